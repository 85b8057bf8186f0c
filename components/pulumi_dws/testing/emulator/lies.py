"""Answers that lie, and outages, for the emulator (:meth:`Emulator.lie`,
:meth:`Emulator.outage`): what a real API does now and then, which a provider must never take
for the truth after one read.

A :class:`Lie` replaces the answer to matching requests *after the service acted* (the act
happened; only what the client hears is wrong): a ``404`` for a resource that exists right
after its create (eventual consistency), a state of ``STATE_UNSPECIFIED``, an empty list. An
:class:`Outage` answers every API request with an error *before* the service sees it, for a
span of virtual time (a credential outage: ``401 UNAUTHENTICATED``)."""

from __future__ import annotations

import copy
import datetime as dt
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .base import Request, Response, google_error

__all__ = ["Lie", "Lies", "Outage"]


@dataclass
class Lie:
    """Replace the answer to the next ``times`` requests ``match`` accepts: with ``status`` and
    Google's error (``status`` set), or with ``transform(body)`` of the true answer."""

    match: Callable[[Request], bool]
    status: int | None = None
    transform: Callable[[Any], Any] | None = None
    times: int = 1
    told: int = 0
    message: str = "The resource was not found"
    acted: bool = True
    """False: the service never sees the request (a refusal of Google's own, say)."""

    def answer(self, response: Response) -> Response:
        self.told += 1
        if self.status is not None:
            return Response(self.status, google_error(self.status, self.message))
        assert self.transform is not None
        return Response(response.status, self.transform(copy.deepcopy(response.body)))


@dataclass
class Outage:
    """From ``start`` (or, with ``trigger``, from the first request it accepts) for ``seconds``
    of virtual time, every API request is answered with ``status`` (default ``401``: the
    credentials are refused) before the service sees it."""

    start: dt.datetime | None
    seconds: float
    status: int = 401
    message: str = "Request had invalid authentication credentials."
    answered: int = 0
    trigger: Callable[[Request], bool] | None = None

    def covers(self, request: Request, now: dt.datetime) -> bool:
        if self.start is None:
            if self.trigger is None or not self.trigger(request):
                return False
            self.start = now
        return self.start <= now < self.start + dt.timedelta(seconds=self.seconds)


@dataclass
class Lies:
    """The emulator's lies and outages."""

    lies: list[Lie] = field(default_factory=list)
    outages: list[Outage] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def before(self, request: Request, now: dt.datetime) -> Response | None:
        """The answer of an outage covering ``now`` (the service never sees the request)."""
        if request.path.startswith("/_emulator"):
            return None
        with self._lock:
            for outage in self.outages:
                if outage.covers(request, now):
                    outage.answered += 1
                    return Response(
                        outage.status,
                        google_error(outage.status, outage.message, "authError"),
                        {"WWW-Authenticate": 'Bearer realm="https://accounts.google.com/"'},
                    )
        return None

    def instead(self, request: Request) -> Response | None:
        """The answer of a lie told *instead of* the act (``acted=False``), if one matches."""
        with self._lock:
            for lie in self.lies:
                if not lie.acted and lie.told < lie.times and lie.match(request):
                    return lie.answer(Response(200, {}))
        return None

    def after(self, request: Request, response: Response) -> Response:
        """The answer the client hears once the service acted: a lie's, or the true one."""
        with self._lock:
            for lie in self.lies:
                if lie.acted and lie.told < lie.times and lie.match(request):
                    return lie.answer(response)
        return response
