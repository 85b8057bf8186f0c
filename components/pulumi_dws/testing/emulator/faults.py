"""Fault injection for the emulator: 429s, 503s and dropped connections."""

from __future__ import annotations

import random
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

__all__ = ["Fault", "FaultPlan"]

Fault = Literal["429", "503", "drop"]


@dataclass
class FaultPlan:
    """Which requests fail, and how.

    ``queue`` faults are used first, one per matching request (exact scenarios); then, with
    probability ``rate``, a random fault from ``kinds`` (seeded, so a run is repeatable).
    ``retry_after`` is sent with 429/503 answers. ``counts`` tallies what was injected.
    """

    rate: float = 0.0
    kinds: tuple[Fault, ...] = ("429", "503", "drop")
    seed: int = 0
    retry_after: int | None = 1
    match: Callable[[str, str], bool] = lambda method, path: True
    queue: list[Fault] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self._rng = random.Random(self.seed)
        self._lock = threading.Lock()

    def next(self, method: str, path: str) -> Fault | None:
        """The fault to inject for this request, if any."""
        if path.startswith("/_emulator") or not self.match(method, path):
            return None
        with self._lock:
            fault: Fault | None = None
            if self.queue:
                fault = self.queue.pop(0)
            elif self.rate and self._rng.random() < self.rate:
                fault = self._rng.choice(self.kinds)
            if fault:
                self.counts[fault] = self.counts.get(fault, 0) + 1
            return fault
