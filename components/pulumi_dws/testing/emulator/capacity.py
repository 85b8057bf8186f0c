"""The emulator's capacity model: how many VMs of a machine type a zone can place, now and
later, and which Calendar-mode blocks Google would approve.

Shared by the emulated Compute API (instances take and give back capacity) and its advice
methods (``advice.capacity`` reads what is free now, ``advice.calendarMode`` reads the blocks).
"""

from __future__ import annotations

import datetime as dt
import threading
from dataclasses import dataclass, field

__all__ = ["CapacityModel", "Arrival", "CalendarBlock"]


@dataclass(frozen=True)
class Arrival:
    """``count`` more VMs of ``machine_type`` become placeable in ``zone`` at ``at``."""

    at: dt.datetime
    zone: str
    machine_type: str
    count: int


@dataclass(frozen=True)
class CalendarBlock:
    """A window in which Google would approve a Calendar-mode request of up to ``count`` VMs."""

    zone: str
    machine_type: str
    count: int
    start: dt.datetime
    end: dt.datetime


@dataclass
class CapacityModel:
    """Free capacity per (zone, machine type), with arrivals scheduled on the virtual clock."""

    now: dt.datetime
    free: dict[tuple[str, str], int] = field(default_factory=dict)
    arrivals: list[Arrival] = field(default_factory=list)
    calendar: list[CalendarBlock] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._lock = threading.RLock()

    def add(self, zone: str, machine_type: str, count: int, *, after: float = 0.0) -> None:
        """Make ``count`` VMs placeable now, or ``after`` virtual seconds from now."""
        with self._lock:
            if after <= 0:
                key = (zone, machine_type)
                self.free[key] = self.free.get(key, 0) + count
            else:
                at = self.now + dt.timedelta(seconds=after)
                self.arrivals.append(Arrival(at, zone, machine_type, count))

    def offer_calendar(
        self, zone: str, machine_type: str, count: int, start: dt.datetime, end: dt.datetime
    ) -> CalendarBlock:
        """Declare a Calendar-mode block the emulated Google would approve."""
        block = CalendarBlock(zone, machine_type, count, start, end)
        with self._lock:
            self.calendar.append(block)
        return block

    def tick(self, now: dt.datetime) -> None:
        """Apply every arrival due by ``now``."""
        with self._lock:
            self.now = now
            due = [a for a in self.arrivals if a.at <= now]
            self.arrivals = [a for a in self.arrivals if a.at > now]
            for a in due:
                key = (a.zone, a.machine_type)
                self.free[key] = self.free.get(key, 0) + a.count

    def next_event(self) -> dt.datetime | None:
        """When the next arrival is due (past ones included), or None."""
        with self._lock:
            return min((a.at for a in self.arrivals), default=None)

    def reset(self) -> None:
        """Forget all free capacity, arrivals and Calendar-mode blocks."""
        with self._lock:
            self.free.clear()
            self.arrivals.clear()
            self.calendar.clear()

    def available(self, zone: str, machine_type: str) -> int:
        with self._lock:
            return self.free.get((zone, machine_type), 0)

    def take(self, zone: str, machine_type: str, count: int = 1) -> bool:
        """Place ``count`` VMs if capacity allows; False on a stock-out."""
        with self._lock:
            key = (zone, machine_type)
            if self.free.get(key, 0) < count:
                return False
            self.free[key] -= count
            return True

    def give_back(self, zone: str, machine_type: str, count: int = 1) -> None:
        """A VM stopped or was deleted: its capacity is free again."""
        with self._lock:
            key = (zone, machine_type)
            self.free[key] = self.free.get(key, 0) + count
