"""Validate what a user asks the advice methods, with the same limits table as the components.

Each builder returns a frozen query that renders the API request body; every bad input raises
:class:`~pulumi_dws.errors.DwsValidationError` naming the field (``count``, ``duration``,
``earliest``...), the value and what is allowed.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Union, get_args

from .. import catalog, limits
from ..calendar_tpu import (
    WORKLOAD_TYPES,
    calendar_tpu_version,
    check_tpu_chips,
    tpu_zones,
)
from ..clock import now as clock_now
from ..duration import Duration, DurationLike
from ..errors import DwsValidationError
from ..validation import (
    check_choice,
    check_region,
    check_zone_in_region,
    format_timestamp,
    parse_timestamp,
)
from .models import (
    CalendarModeAdviceRequest,
    CapacityAdviceRequest,
    CapacityAdviceRequestDistributionPolicy,
    CapacityAdviceRequestInstanceFlexibilityPolicy,
    CapacityAdviceRequestInstanceProperties,
    CapacityAdviceRequestInstanceSelection,
    CapacityAdviceRequestScheduling,
    CapacityAdviceRequestZoneConfiguration,
    FlexibleTimeRange,
    FutureResourcesSpec,
    FutureResourcesSpecAggregateResources,
    FutureResourcesSpecLocationPolicy,
    FutureResourcesSpecLocationPolicyLocation,
    FutureResourcesSpecSpecificSKUResources,
    FutureResourcesSpecTargetResources,
    ProvisioningModel,
    TargetShape,
)

__all__ = [
    "TimeLike",
    "SPEC_KEY",
    "CalendarQuery",
    "CapacityQuery",
    "calendar_query",
    "capacity_query",
    "check_project",
    "parse_when",
]

TimeLike = Union[str, dt.datetime]  # noqa: UP007 (runtime alias)

SPEC_KEY = "spec"
"""The key of the one ``futureResourcesSpecs`` entry (the key gcloud uses too)."""

INT32_MAX = 2**31 - 1

# The ``project`` path pattern of the discovery document (domain-scoped ids allowed).
_PROJECT = re.compile(
    r"^(?:(?:[-a-z0-9]{1,63}\.)*(?:[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?):)?"
    r"(?:[0-9]{1,19}|(?:[a-z0-9](?:[-a-z0-9]{0,61}[a-z0-9])?))\Z"
)
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}\Z")
_WHEN_FORMS = (
    "is not a date (2027-03-01), an RFC 3339 timestamp (2027-03-01T00:00:00Z) "
    "or an offset from now (+2w, +36h)"
)


def check_project(field: str, value: str) -> str:
    """A project id (``my-project``), number, or domain-scoped id (``example.com:proj``)."""
    if not isinstance(value, str) or not _PROJECT.match(value):
        raise DwsValidationError(
            field, value, "is not a project id: lowercase letters, digits and hyphens (my-project)"
        )
    return value


def parse_when(field: str, value: TimeLike, now: dt.datetime) -> dt.datetime:
    """A date (midnight UTC), an RFC 3339 timestamp, or ``+<duration>`` from ``now``."""
    if isinstance(value, str):
        text = value.strip()
        if text.startswith("+"):
            return now + Duration.parse(text[1:], field).timedelta()
        if _DATE.match(text):
            try:
                return dt.datetime.fromisoformat(text).replace(tzinfo=dt.timezone.utc)
            except ValueError:
                raise DwsValidationError(field, value, _WHEN_FORMS) from None
    try:
        return parse_timestamp(field, value)
    except DwsValidationError as err:
        if isinstance(value, str) and "time zone" not in err.problem:
            raise DwsValidationError(field, value, _WHEN_FORMS) from None
        raise


def _check_ahead(field: str, when: dt.datetime, now: dt.datetime, shown: str) -> None:
    row = limits.get("calendar.start_ahead")
    ahead = int((when - now).total_seconds())
    if ahead < 0:
        raise DwsValidationError(
            field, shown, f"is in the past; a Calendar-mode window starts {row.allowed()} ahead"
        )
    days, hours = ahead // 86400, ahead % 86400 // 3600
    row.check(field, ahead, shown=f"{shown} ({days}d {hours}h ahead)")


def _round_up_to_hour(value: dt.datetime) -> dt.datetime:
    floor = value.replace(minute=0, second=0, microsecond=0)
    return floor if floor == value else floor + dt.timedelta(hours=1)


def _check_machine_type(field: str, value: str) -> str:
    if not isinstance(value, str):
        raise DwsValidationError(field, value, "must be a machine type name such as a3-highgpu-8g")
    catalog.machine_shape(field, value)
    return value


@dataclass(frozen=True)
class CalendarQuery:
    """A validated ``advice.calendarMode`` question: ``count`` VMs of ``machine_type`` (GPUs),
    or ``count`` chips of ``tpu_version`` (TPUs, with an optional ``workload_type``)."""

    project: str
    region: str
    machine_type: str | None
    count: int
    min_duration: Duration
    max_duration: Duration
    earliest: dt.datetime
    latest: dt.datetime
    exclude_zones: tuple[str, ...] = ()
    tpu_version: str | None = None
    workload_type: str | None = None

    def _targets(self) -> FutureResourcesSpecTargetResources:
        if self.tpu_version is None:
            return FutureResourcesSpecTargetResources(
                specific_sku_resources=FutureResourcesSpecSpecificSKUResources(
                    instance_count=self.count, machine_type=self.machine_type
                )
            )
        generation = catalog.tpu_generation("tpu_version", self.tpu_version)
        return FutureResourcesSpecTargetResources(
            aggregate_resources=FutureResourcesSpecAggregateResources(
                accelerator_count=self.count,
                vm_family=generation.vm_family,
                workload_type=self.workload_type,  # type: ignore[arg-type]
            )
        )

    @property
    def shape(self) -> str:
        """``2 x a3-highgpu-8g`` or ``16 TPU v6e chips (BATCH)``."""
        if self.tpu_version is None:
            return f"{self.count} x {self.machine_type}"
        kind = f" ({self.workload_type})" if self.workload_type else ""
        return f"{self.count} TPU {self.tpu_version} chips{kind}"

    def to_request(self) -> CalendarModeAdviceRequest:
        """The request body, shaped like the one ``gcloud compute advice calendar-mode`` sends."""
        policy = None
        if self.exclude_zones:
            deny = FutureResourcesSpecLocationPolicyLocation(preference="DENY")
            policy = FutureResourcesSpecLocationPolicy(
                locations={f"zones/{zone}": deny for zone in self.exclude_zones}
            )
        spec = FutureResourcesSpec(
            deployment_type="DENSE",
            location_policy=policy,
            target_resources=self._targets(),
            time_range_spec=FlexibleTimeRange(
                min_duration=self.min_duration,
                max_duration=self.max_duration,
                start_time_not_earlier_than=self.earliest,
                start_time_not_later_than=self.latest,
            ),
        )
        return CalendarModeAdviceRequest(future_resources_specs={SPEC_KEY: spec})

    def describe(self) -> str:
        """``2 x a3-highgpu-8g in us-central1 for 7d, starting 2026-02-01T00:00:00Z..``."""
        length = self.min_duration.human()
        if self.max_duration != self.min_duration:
            length = f"{length} to {self.max_duration.human()}"
        return (
            f"{self.shape} in {self.region} for {length}, starting "
            f"between {format_timestamp(self.earliest)} and {format_timestamp(self.latest)}"
        )


def _check_tpu(
    region: str, tpu_version: str, count: int, workload_type: str | None
) -> tuple[str, str | None]:
    """A TPU question: a version and workload type Calendar mode offers, a chip count of its
    row, and a region with a zone where it is offered."""
    version = calendar_tpu_version("tpu_version", tpu_version)
    if workload_type is not None:
        shown = workload_type.upper() if isinstance(workload_type, str) else workload_type
        workload_type = check_choice("workload_type", shown, WORKLOAD_TYPES)
    check_tpu_chips("count", count, version, workload_type)
    zones = tpu_zones(version, workload_type)
    if zones is not None and not any(zone.startswith(region + "-") for zone in zones):
        raise DwsValidationError(
            "region",
            region,
            f"has no zone where Calendar mode offers TPU {version}: use the region of one of "
            f"{', '.join(zones)}",
        )
    return version, workload_type


def calendar_query(
    project: str,
    region: str,
    machine_type: str | None,
    count: int,
    duration: DurationLike,
    *,
    tpu_version: str | None = None,
    workload_type: str | None = None,
    max_duration: DurationLike | None = None,
    earliest: TimeLike | None = None,
    latest: TimeLike | None = None,
    exclude_zones: Sequence[str] = (),
    now: dt.datetime | None = None,
) -> CalendarQuery:
    """Validate a Calendar-mode question against the ``calendar.*`` rows of the limits table.

    ``count`` VMs of ``machine_type``; or, with ``machine_type`` None, ``count`` TPU chips of
    ``tpu_version`` (``v5e``, ``v5p``, ``v6e``) for an optional ``workload_type`` (``BATCH``,
    ``SERVING``), checked against the ``calendar.tpu_chips.*`` and ``calendar.tpu_zones.*``
    rows. ``duration`` is the shortest acceptable block (``max_duration`` the longest; default
    the same). ``earliest``/``latest`` bound the start: a date, an RFC 3339 timestamp or
    ``+2w``; by default the whole look-ahead window (``calendar.start_ahead``) from ``now``.
    """
    now = (now or clock_now()).astimezone(dt.timezone.utc).replace(microsecond=0)
    check_project("project", project)
    check_region("region", region)
    if (machine_type is None) == (tpu_version is None):
        raise DwsValidationError(
            "machine_type",
            machine_type or "(missing)",
            "give machine_type (VMs with GPUs) or tpu_version (TPU chips), one of them",
        )
    if machine_type is not None:
        if workload_type is not None:
            raise DwsValidationError(
                "workload_type", workload_type, "only applies to TPUs (with tpu_version)"
            )
        _check_machine_type("machine_type", machine_type)
        limits.check_count("count", count, "calendar.count")
    else:
        assert tpu_version is not None
        tpu_version, workload_type = _check_tpu(region, tpu_version, count, workload_type)
    shortest = limits.check_duration("duration", duration, "calendar.duration")
    longest = shortest
    if max_duration is not None:
        longest = limits.check_duration("max_duration", max_duration, "calendar.duration")
        if longest < shortest:
            raise DwsValidationError(
                "max_duration", str(max_duration), f"is shorter than duration {shortest.human()}"
            )
    ahead = limits.get("calendar.start_ahead")
    if earliest is None:
        start = _round_up_to_hour(now + dt.timedelta(seconds=ahead.minimum or 0))
    else:
        start = parse_when("earliest", earliest, now)
        _check_ahead("earliest", start, now, format_timestamp(start))
    if latest is None:
        horizon = now + dt.timedelta(seconds=ahead.maximum or 0)
        end = max(start, horizon.replace(minute=0, second=0))
    else:
        end = parse_when("latest", latest, now)
        _check_ahead("latest", end, now, format_timestamp(end))
        if end < start:
            raise DwsValidationError(
                "latest", format_timestamp(end), f"is before earliest {format_timestamp(start)}"
            )
    zones = tuple(
        check_zone_in_region(f"exclude_zones[{i}]", zone, region)
        for i, zone in enumerate(exclude_zones)
    )
    return CalendarQuery(
        project,
        region,
        machine_type,
        count,
        shortest,
        longest,
        start,
        end,
        zones,
        tpu_version,
        workload_type,
    )


@dataclass(frozen=True)
class CapacityQuery:
    """A validated ``advice.capacity`` question."""

    project: str
    region: str
    machine_types: tuple[str, ...]
    count: int
    provisioning_model: ProvisioningModel = "FLEX_START"
    target_shape: TargetShape = "ANY_SINGLE_ZONE"
    zones: tuple[str, ...] = ()

    def to_request(self) -> CapacityAdviceRequest:
        """The request body: one instance selection per machine type, ranked in order."""
        selections = {
            f"selection-{i}": CapacityAdviceRequestInstanceSelection(machine_types=[mt], rank=i)
            for i, mt in enumerate(self.machine_types)
        }
        zones = [CapacityAdviceRequestZoneConfiguration(zone=f"zones/{z}") for z in self.zones]
        return CapacityAdviceRequest(
            size=self.count,
            instance_properties=CapacityAdviceRequestInstanceProperties(
                scheduling=CapacityAdviceRequestScheduling(
                    provisioning_model=self.provisioning_model
                )
            ),
            instance_flexibility_policy=CapacityAdviceRequestInstanceFlexibilityPolicy(
                instance_selections=selections
            ),
            distribution_policy=CapacityAdviceRequestDistributionPolicy(
                target_shape=self.target_shape, zones=zones or None
            ),
        )

    def describe(self) -> str:
        """``2 x a3-highgpu-8g (FLEX_START) in us-central1``."""
        shapes = " or ".join(self.machine_types)
        return f"{self.count} x {shapes} ({self.provisioning_model}) in {self.region}"


def capacity_query(
    project: str,
    region: str,
    machine_type: str | Sequence[str],
    count: int,
    *,
    provisioning_model: ProvisioningModel = "FLEX_START",
    target_shape: TargetShape = "ANY_SINGLE_ZONE",
    zones: Sequence[str] = (),
) -> CapacityQuery:
    """Validate a real-time capacity question (several machine types: in order of preference)."""
    check_project("project", project)
    check_region("region", region)
    shapes = (machine_type,) if isinstance(machine_type, str) else tuple(machine_type)
    if not shapes:
        raise DwsValidationError("machine_type", "(none)", "give at least one machine type")
    for i, shape in enumerate(shapes):
        _check_machine_type("machine_type" if len(shapes) == 1 else f"machine_type[{i}]", shape)
    if isinstance(count, bool) or not isinstance(count, int):
        raise DwsValidationError("count", count, "must be an integer")
    if not 1 <= count <= INT32_MAX:
        raise DwsValidationError("count", count, "must be at least 1 VM")
    if provisioning_model not in get_args(ProvisioningModel):
        allowed = ", ".join(get_args(ProvisioningModel))
        raise DwsValidationError("provisioning_model", provisioning_model, f"use one of {allowed}")
    if target_shape not in get_args(TargetShape):
        allowed = ", ".join(get_args(TargetShape))
        raise DwsValidationError("target_shape", target_shape, f"use one of {allowed}")
    checked = tuple(
        check_zone_in_region(f"zones[{i}]", zone, region) for i, zone in enumerate(zones)
    )
    return CapacityQuery(project, region, shapes, count, provisioning_model, target_shape, checked)
