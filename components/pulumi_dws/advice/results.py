"""Advice answers, flattened into what a user chooses between: windows, zones and shards."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from ..duration import Duration
from ..validation import format_timestamp
from .errors import NoRecommendationError
from .inputs import CalendarQuery, CapacityQuery
from .models import CalendarModeAdviceResponse, CapacityAdviceResponse, zone_name

__all__ = [
    "CalendarWindow",
    "ZoneStatus",
    "CalendarAdvice",
    "CapacityShard",
    "CapacityOption",
    "CapacityAdvice",
]


@dataclass(frozen=True)
class CalendarWindow:
    """A recommended Calendar-mode block: where, when, how many."""

    zone: str
    machine_type: str | None
    count: int
    start_time: dt.datetime
    end_time: dt.datetime
    recommendation_id: str | None = None
    tpu_version: str | None = None
    workload_type: str | None = None

    @property
    def duration(self) -> Duration:
        return Duration(int((self.end_time - self.start_time).total_seconds()))

    @property
    def shape(self) -> str:
        """``2 x a3-highgpu-8g`` or ``16 TPU v6e chips``."""
        if self.tpu_version is None:
            return f"{self.count} x {self.machine_type}"
        return f"{self.count} TPU {self.tpu_version} chips"

    def to_dict(self) -> dict[str, Any]:
        what: dict[str, Any] = {"machine_type": self.machine_type, "count": self.count}
        if self.tpu_version is not None:
            what = {
                "tpu_version": self.tpu_version,
                "chip_count": self.count,
                "workload_type": self.workload_type,
            }
        return {
            "zone": self.zone,
            **what,
            "start_time": format_timestamp(self.start_time),
            "end_time": format_timestamp(self.end_time),
            "duration": self.duration.human(),
            "recommendation_id": self.recommendation_id,
        }


@dataclass(frozen=True)
class ZoneStatus:
    """A zone that was not recommended, and why (``NO_CAPACITY``, ``NOT_SUPPORTED``...)."""

    zone: str
    status: str
    details: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"zone": self.zone, "status": self.status, "details": self.details}


@dataclass(frozen=True)
class CalendarAdvice:
    """The answer to a :class:`CalendarQuery`; ``windows`` best first."""

    query: CalendarQuery
    response: CalendarModeAdviceResponse

    @property
    def windows(self) -> list[CalendarWindow]:
        found: list[CalendarWindow] = []
        for rec in self.response.recommendations or []:
            for spec in (rec.recommendations_per_spec or {}).values():
                if not (spec.location and spec.start_time and spec.end_time):
                    continue
                found.append(
                    CalendarWindow(
                        zone_name(spec.location),
                        self.query.machine_type,
                        self.query.count,
                        spec.start_time.astimezone(dt.timezone.utc),
                        spec.end_time.astimezone(dt.timezone.utc),
                        spec.recommendation_id,
                        self.query.tpu_version,
                        self.query.workload_type,
                    )
                )
        return found

    @property
    def other_zones(self) -> list[ZoneStatus]:
        """Zones not recommended anywhere in the answer, with Google's reason."""
        recommended = {w.zone for w in self.windows}
        seen: dict[str, ZoneStatus] = {}
        for rec in self.response.recommendations or []:
            for spec in (rec.recommendations_per_spec or {}).values():
                for location, other in (spec.other_locations or {}).items():
                    zone = zone_name(location)
                    if zone in recommended or zone in seen:
                        continue
                    seen[zone] = ZoneStatus(zone, other.status or "", other.details or "")
        return sorted(seen.values(), key=lambda z: z.zone)

    @property
    def empty(self) -> bool:
        return not self.windows

    def pick(self, index: int = 0) -> CalendarWindow:
        """The ``index``-th recommendation (0: the best); :class:`NoRecommendationError` if none."""
        windows = self.windows
        if not windows:
            raise NoRecommendationError(self.why_empty())
        if not 0 <= index < len(windows):
            raise IndexError(f"there are {len(windows)} recommendations; pick 1 to {len(windows)}")
        return windows[index]

    def why_empty(self) -> str:
        lines = [f"No Calendar-mode recommendation for {self.query.describe()}."]
        lines += [f"  {z.zone}: {z.status} {z.details}".rstrip() for z in self.other_zones]
        lines.append(
            "Try a wider start window (--earliest/--latest), a shorter --duration, a smaller "
            "--count, or another region."
        )
        return "\n".join(lines)


@dataclass(frozen=True)
class CapacityShard:
    """VMs of one machine type in one zone."""

    zone: str
    machine_type: str
    count: int
    provisioning_model: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "zone": self.zone,
            "machine_type": self.machine_type,
            "count": self.count,
            "provisioning_model": self.provisioning_model,
        }


@dataclass(frozen=True)
class CapacityOption:
    """One recommendation: its shards and scores (``obtainability`` 0.0-1.0)."""

    shards: tuple[CapacityShard, ...]
    obtainability: float | None = None
    estimated_uptime: Duration | None = None

    def to_dict(self) -> dict[str, Any]:
        uptime = self.estimated_uptime
        return {
            "obtainability": self.obtainability,
            "estimated_uptime": uptime.to_proto_string() if uptime else None,
            "shards": [s.to_dict() for s in self.shards],
        }


@dataclass(frozen=True)
class CapacityAdvice:
    """The answer to a :class:`CapacityQuery`; ``options`` in Google's order."""

    query: CapacityQuery
    response: CapacityAdviceResponse

    @property
    def options(self) -> list[CapacityOption]:
        found: list[CapacityOption] = []
        for rec in self.response.recommendations or []:
            shards = tuple(
                CapacityShard(
                    zone_name(s.zone),
                    s.machine_type or "",
                    s.instance_count or 0,
                    s.provisioning_model or self.query.provisioning_model,
                )
                for s in rec.shards or []
                if s.zone
            )
            if not shards:
                continue
            scores = rec.scores
            found.append(
                CapacityOption(
                    shards,
                    scores.obtainability if scores else None,
                    scores.estimated_uptime if scores else None,
                )
            )
        return found

    @property
    def empty(self) -> bool:
        return not self.options

    def pick(self, index: int = 0) -> CapacityOption:
        """The ``index``-th recommendation; :class:`NoRecommendationError` if none."""
        options = self.options
        if not options:
            raise NoRecommendationError(self.why_empty())
        if not 0 <= index < len(options):
            raise IndexError(f"there are {len(options)} recommendations; pick 1 to {len(options)}")
        return options[index]

    def why_empty(self) -> str:
        return (
            f"No capacity recommendation for {self.query.describe()}: no zone can place them "
            "now. Try fewer VMs, another machine type or region, or book ahead with "
            "`dws advise calendar`."
        )
