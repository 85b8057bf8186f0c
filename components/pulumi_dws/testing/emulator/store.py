"""What every emulated resource is kept in: a :class:`Store`, with its own ``tick`` and
``reset``, and the :class:`Clockwork` that moves a service's stores through time together.

A store holds one resource type's state (Compute instances, a group's resize requests, Cloud
TPU queued resources...), the rules time applies to it (``tick``) and the moments something is
due (``next_event``). ``reset`` forgets everything by building the store again from the
arguments it was made with, as moto's backends do, so no field can be forgotten by hand.
"""

from __future__ import annotations

import datetime as dt
import threading
from collections.abc import Iterable, Sequence
from typing import Any, Protocol

__all__ = ["Clockwork", "Moment", "Store", "Timed"]


class Moment:
    """The moment a service's stores stand at: the virtual clock's time as far as they have
    applied it (``at`` only moves forward). Shared by the stores of one service, so the
    timestamps one writes agree with the deadlines another keeps."""

    def __init__(self, start: dt.datetime) -> None:
        self.at = start

    def move(self, moment: dt.datetime) -> dt.datetime:
        """Stand at ``moment`` unless already later; returns where it stands."""
        self.at = max(self.at, moment)
        return self.at


class Timed(Protocol):
    """Anything the clockwork moves: a store, or a capacity model."""

    def next_event(self) -> dt.datetime | None: ...

    def tick(self, now: dt.datetime) -> None: ...


class Store:
    """One emulated resource type: its state, what time does to it, and a ``reset``.

    Subclasses make their whole state in ``__init__`` (from the arguments they are given:
    the clock, the service's lock, its settings and the stores they read), so :meth:`reset`
    can make it again. Shared things (the lock, a capacity model, another store) are passed
    in and survive a reset; what the store made itself does not.
    """

    _made_with: tuple[tuple[Any, ...], dict[str, Any]]

    def __new__(cls, *args: Any, **kwargs: Any) -> Store:
        store = super().__new__(cls)
        store._made_with = (args, kwargs)
        return store

    def reset(self) -> None:
        """Forget everything: the store is made again from the arguments it was made with."""
        args, kwargs = self._made_with
        self.__dict__.clear()
        self._made_with = (args, kwargs)
        self.__init__(*args, **kwargs)  # type: ignore[misc]

    def next_event(self) -> dt.datetime | None:
        """The earliest moment something is due in this store (past ones included), or None."""
        return None

    def tick(self, now: dt.datetime) -> None:
        """Apply what is due by ``now``."""


def earliest(times: Iterable[dt.datetime | None]) -> dt.datetime | None:
    """The earliest of ``times`` that are set, or None."""
    known = [t for t in times if t is not None]
    return min(known) if known else None


class Clockwork:
    """Moves a service's stores (and capacity models) through time in order: every moment
    something is due, each store in turn applies it, so a capacity arrival, a queue window's
    end and a run's end happen in the order of their times however far the clock jumps."""

    def __init__(
        self, parts: Sequence[Timed], moment: Moment, lock: threading.RLock | None = None
    ) -> None:
        self.parts = list(parts)
        self.moment = moment
        self.lock = lock or threading.RLock()

    def tick(self, now: dt.datetime) -> None:
        """Apply, in time order, everything due by ``now``."""
        with self.lock:
            for _ in range(1_000_000):
                due = earliest(part.next_event() for part in self.parts)
                if due is None or due > now:
                    break
                self.settle(max(due, self.moment.at))
            self.settle(now)

    def settle(self, moment: dt.datetime) -> None:
        """Every part applies what is due at ``moment``."""
        for part in self.parts:
            part.tick(moment)
