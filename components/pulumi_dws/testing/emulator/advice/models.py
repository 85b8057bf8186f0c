"""The advice methods' state (the capacity model they read, scenario knobs, the calls made) and
their answers, computed from that state. No HTTP here: see ``responses.py``."""

from __future__ import annotations

import datetime as dt
import re
import threading
import uuid
from typing import Any

from ....duration import Duration
from ..base import GoogleError, VirtualClock
from ..capacity import CalendarBlock, CapacityModel

__all__ = ["AdviceBackend"]

_DURATION = re.compile(r"^(\d+)(?:\.\d+)?s\Z")
_SHAPES = ("ANY", "ANY_SINGLE_ZONE", "BALANCED", "TARGET_SHAPE_UNSPECIFIED")
_MODELS = ("FLEX_START", "RESERVATION_BOUND", "SPOT", "STANDARD")
_DEFAULT_LOOKAHEAD = dt.timedelta(days=120)


def _bad(message: str) -> GoogleError:
    return GoogleError(400, f"Invalid value for field {message}", "invalid")


def _int(value: Any, field: str) -> int:
    if isinstance(value, bool):
        raise _bad(f"'{field}': {value!r}. Expected an integer.")
    try:
        return int(value)
    except (TypeError, ValueError):
        raise _bad(f"'{field}': {value!r}. Expected an integer.") from None


def _duration(value: Any, field: str) -> dt.timedelta:
    match = _DURATION.match(str(value))
    if not match:
        raise _bad(f"'{field}': {value!r}. Expected a duration such as '604800s'.")
    return dt.timedelta(seconds=int(match.group(1)))


def _time(value: Any, field: str) -> dt.datetime:
    try:
        parsed = dt.datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        raise _bad(f"'{field}': {value!r}. Expected an RFC 3339 timestamp.") from None
    if parsed.tzinfo is None:
        raise _bad(f"'{field}': {value!r}. The timestamp needs a time zone.")
    return parsed.astimezone(dt.timezone.utc)


def _stamp(value: dt.datetime) -> str:
    return value.astimezone(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _zone_of(text: str) -> str:
    return text.rstrip("/").rsplit("/", 1)[-1]


class AdviceBackend:
    """Answers ``advice.calendarMode`` and ``advice.capacity`` from a capacity model.

    Share the model with the Compute service so that VMs it places reduce what
    ``advice.capacity`` reports::

        compute = ComputeService(clock)
        advice = AdviceService(compute.capacity, clock)  # the backend, served
    """

    name = "advice"

    def __init__(
        self,
        capacity_model: CapacityModel | None = None,
        clock: VirtualClock | None = None,
        *,
        ineligible: set[str] | None = None,
    ) -> None:
        self.clock = clock or VirtualClock()
        self.capacity = capacity_model or CapacityModel(self.clock.now())
        self.ineligible: set[str] = set(ineligible or ())
        self.calls: list[tuple[str, str, str, Any]] = []  # (method, project, region, body)
        self._failures: list[GoogleError] = []
        self._lock = threading.Lock()

    # ------------------------------------------------------------------ the clock
    def tick(self, now: dt.datetime) -> None:
        """Apply capacity arrivals due by ``now`` (idempotent if the Compute service did)."""
        self.capacity.tick(now)

    # ------------------------------------------------------------------ scenario knobs
    def reset(self) -> CapacityModel:
        """Start afresh: a new, empty capacity model (returned, to offer capacity on), no
        ineligible zones, no recorded calls, no scripted failures."""
        with self._lock:
            self.capacity = CapacityModel(self.clock.now())
            self.ineligible.clear()
            self.calls.clear()
            self._failures.clear()
            return self.capacity

    def fail_next(self, status: int, message: str, reason: str = "") -> None:
        """Answer the next advice call with this Google error (queued, one per call)."""
        with self._lock:
            self._failures.append(GoogleError(status, message, reason))

    def _enter(self, method: str, project: str, region: str, raw_body: Any) -> dict[str, Any]:
        body = raw_body if isinstance(raw_body, dict) else {}
        self.calls.append((method, project, region, raw_body))
        with self._lock:
            failure = self._failures.pop(0) if self._failures else None
        if failure is not None:
            raise failure
        if project in self.ineligible:
            raise GoogleError(
                403,
                f"Project {project} is not eligible to use advice.{method}; the feature is "
                "not enabled for this project.",
                "forbidden",
            )
        if not re.match(r"^[a-z]+-[a-z]+[0-9]+\Z", region):
            where = f"projects/{project}/regions/{region}"
            raise GoogleError(404, f"The resource '{where}' was not found")
        return body

    def _zones(self, region: str) -> list[str]:
        """Zones of ``region`` that the capacity model knows (free capacity or blocks)."""
        zones = {zone for zone, _ in self.capacity.free} | {b.zone for b in self.capacity.calendar}
        zones |= {a.zone for a in self.capacity.arrivals}
        return sorted(z for z in zones if z.startswith(region + "-"))

    # ------------------------------------------------------------------ calendarMode
    def calendar_mode(self, project: str, region: str, raw_body: Any) -> dict[str, Any]:
        """``advice.calendarMode``: the answer's body."""
        body = self._enter("calendarMode", project, region, raw_body)
        specs = body.get("futureResourcesSpecs") or {}
        if not isinstance(specs, dict) or len(specs) != 1:
            raise _bad("'futureResourcesSpecs': exactly one specification is allowed.")
        key, spec = next(iter(specs.items()))
        targets = (spec or {}).get("targetResources") or {}
        # TPUs ask for chips of a vmFamily: the capacity model offers blocks of them under the
        # vmFamily's name (offer_calendar(zone, "VM_FAMILY_CLOUD_TPU_...", chips, ...)).
        chips = targets.get("aggregateResources")
        sku = targets.get("specificSkuResources") or {}
        machine_type = chips.get("vmFamily") if chips is not None else sku.get("machineType")
        if not machine_type:
            raise _bad("'targetResources.specificSkuResources.machineType': required.")
        if chips is not None:
            count = _int(chips.get("acceleratorCount"), "aggregateResources.acceleratorCount")
        else:
            count = _int(sku.get("instanceCount"), "specificSkuResources.instanceCount")
        if count < 1:
            raise _bad("'specificSkuResources.instanceCount': must be at least 1.")
        window = self._window(spec.get("timeRangeSpec") or {})
        deny = {
            _zone_of(loc)
            for loc, pref in ((spec.get("locationPolicy") or {}).get("locations") or {}).items()
            if (pref or {}).get("preference") == "DENY"
        }
        zones = [z for z in self._zones(region) if z not in deny]
        found: list[tuple[dt.datetime, dt.datetime, str]] = []
        status: dict[str, dict[str, str]] = {}
        for zone in zones:
            fit, why = self._fit(zone, machine_type, count, *window)
            if fit is None:
                status[zone] = why
            else:
                found.append((fit[0], fit[1], zone))
        found.sort()
        recommended = {zone for _, _, zone in found}
        recs = []
        for start, end, zone in found:
            others = {
                f"zones/{z}": status.get(z)
                or {"status": "RECOMMENDED", "details": "Another location was recommended."}
                for z in zones
                if z != zone
            }
            rec_id = uuid.uuid5(uuid.NAMESPACE_URL, f"{project}/{zone}/{machine_type}/{start}")
            item: dict[str, Any] = {
                "recommendationId": str(rec_id),
                "recommendationType": "FUTURE_RESERVATION",
                "location": f"zones/{zone}",
                "startTime": _stamp(start),
                "endTime": _stamp(end),
            }
            if others:
                item["otherLocations"] = others
            recs.append({"recommendationsPerSpec": {key: item}})
        if not recs and zones:
            others = {f"zones/{z}": status[z] for z in zones if z not in recommended}
            recs.append({"recommendationsPerSpec": {key: {"otherLocations": others}}})
        return {"recommendations": recs} if recs else {}

    def _window(
        self, spec: dict[str, Any]
    ) -> tuple[dt.timedelta, dt.timedelta, dt.datetime, dt.datetime]:
        low, high = spec.get("minDuration"), spec.get("maxDuration")
        if low is None and high is None:
            raise _bad("'timeRangeSpec': minDuration or maxDuration is required.")
        shortest = _duration(low if low is not None else high, "timeRangeSpec.minDuration")
        longest = _duration(high if high is not None else low, "timeRangeSpec.maxDuration")
        if shortest > longest:
            raise _bad("'timeRangeSpec': minDuration is longer than maxDuration.")
        now = self.clock.now()
        earliest = spec.get("startTimeNotEarlierThan")
        latest = spec.get("startTimeNotLaterThan")
        first = _time(earliest, "startTimeNotEarlierThan") if earliest else now
        last = _time(latest, "startTimeNotLaterThan") if latest else now + _DEFAULT_LOOKAHEAD
        if last < first:
            raise _bad("'timeRangeSpec': the time range cannot be matched by any interval.")
        return shortest, longest, max(first, now), last

    def _fit(
        self,
        zone: str,
        machine_type: str,
        count: int,
        shortest: dt.timedelta,
        longest: dt.timedelta,
        first: dt.datetime,
        last: dt.datetime,
    ) -> tuple[tuple[dt.datetime, dt.datetime] | None, dict[str, str]]:
        blocks: list[CalendarBlock] = [
            b for b in self.capacity.calendar if b.zone == zone and b.machine_type == machine_type
        ]
        if not blocks:
            return None, {
                "status": "NOT_SUPPORTED",
                "details": f"{machine_type} is not offered in Calendar mode in {zone}.",
            }
        fits = []
        for block in blocks:
            start = max(block.start, first)
            end = min(start + longest, block.end)
            if block.count >= count and start <= last and end - start >= shortest:
                fits.append((start, end))
        if not fits:
            length = Duration(int(shortest.total_seconds())).human()
            return None, {
                "status": "NO_CAPACITY",
                "details": f"No capacity for {count} x {machine_type} for {length} "
                f"starting between {_stamp(first)} and {_stamp(last)}.",
            }
        # The earliest start; of windows starting together, the longest (up to maxDuration).
        return min(fits, key=lambda fit: (fit[0], fit[0] - fit[1])), {}

    # ------------------------------------------------------------------ capacity
    def capacity_advice(self, project: str, region: str, raw_body: Any) -> dict[str, Any]:
        """``advice.capacity``: the answer's body."""
        body = self._enter("capacity", project, region, raw_body)
        size = _int(body.get("size"), "size")
        if size < 1:
            raise _bad("'size': must be at least 1.")
        scheduling = (body.get("instanceProperties") or {}).get("scheduling") or {}
        model = scheduling.get("provisioningModel") or "STANDARD"
        if model not in _MODELS:
            raise _bad(f"'provisioningModel': {model!r}.")
        machine_types = self._machine_types(body)
        policy = body.get("distributionPolicy") or {}
        shape = policy.get("targetShape") or "ANY"
        if shape not in _SHAPES:
            raise _bad(f"'distributionPolicy.targetShape': {shape!r}.")
        zones = [_zone_of((z or {}).get("zone", "")) for z in policy.get("zones") or []]
        for zone in zones:
            if not zone.startswith(region + "-"):
                raise _bad(f"'distributionPolicy.zones': zone {zone} is not in region {region}.")
        zones = zones or self._zones(region)
        best: tuple[float, list[dict[str, Any]]] | None = None
        for machine_type in machine_types:
            free = {z: self.capacity.available(z, machine_type) for z in zones}
            score, shards = self._place(free, size, shape, machine_type, model)
            if shards and (best is None or score > best[0]):
                best = (score, shards)
            if score >= 1.0:
                break
        if best is None:
            return {}
        rec = {"scores": {"obtainability": round(best[0], 2)}, "shards": best[1]}
        return {"recommendations": [rec]}

    @staticmethod
    def _machine_types(body: dict[str, Any]) -> list[str]:
        policy = body.get("instanceFlexibilityPolicy") or {}
        selections = policy.get("instanceSelections") or {}
        ranked = sorted(
            selections.items(), key=lambda kv: (_int((kv[1] or {}).get("rank", 0), "rank"), kv[0])
        )
        types = [mt for _, sel in ranked for mt in (sel or {}).get("machineTypes") or []]
        if not types:
            raise _bad("'instanceFlexibilityPolicy.instanceSelections': give a machine type.")
        return types

    @staticmethod
    def _place(
        free: dict[str, int], size: int, shape: str, machine_type: str, model: str
    ) -> tuple[float, list[dict[str, Any]]]:
        """Spread ``size`` VMs over zones; return (obtainability, shards)."""
        usable = sorted(((n, z) for z, n in free.items() if n > 0), key=lambda t: (-t[0], t[1]))
        if not usable:
            return 0.0, []
        placed: dict[str, int] = {}
        if shape == "ANY_SINGLE_ZONE":
            most, zone = usable[0]
            placed[zone] = size
            score = min(1.0, most / size)
        elif shape == "BALANCED":
            left = size
            while left > 0 and any(placed.get(z, 0) < n for n, z in usable):
                for n, z in usable:
                    if left and placed.get(z, 0) < n:
                        placed[z] = placed.get(z, 0) + 1
                        left -= 1
            score = (size - left) / size
        else:
            left = size
            for n, z in usable:
                if left:
                    placed[z] = min(n, left)
                    left -= placed[z]
            score = (size - left) / size
        shards = [
            {"zone": z, "machineType": machine_type, "instanceCount": n, "provisioningModel": model}
            for z, n in sorted(placed.items())
        ]
        return score, shards
