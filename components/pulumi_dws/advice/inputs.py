"""What a user asks the advice methods: one pydantic model per question, declared once.

:class:`CalendarQuery` and :class:`CapacityQuery` hold a question's inputs, each checked
against the same limits table as the components, and render the API request body. Their
fields are the arguments of the functions that ask them (:func:`calendar_query`,
:func:`~pulumi_dws.advice.calendar_mode_advice`, ...), whose signatures are checked against
the model when they are defined (:func:`asks`), and the destinations of the ``dws advise``
flags. Every bad input raises :class:`~pulumi_dws.errors.DwsValidationError` naming the
field (``count``, ``duration``, ``earliest``...), the value and what is allowed.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Annotated, Any, TypeVar, Union

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationInfo, model_validator

from .. import catalog, limits
from ..calendar_tpu import WORKLOAD_TYPES, calendar_tpu_version, check_tpu_chips, tpu_zones
from ..clock import now as clock_now
from ..duration import Duration, DurationLike
from ..errors import DwsValidationError
from ..fields import Check, DurationWithin
from ..models import parse_args, signature_mismatches
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
    "AdviceQuery",
    "CalendarQuery",
    "CapacityQuery",
    "asks",
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

Q = TypeVar("Q", bound="AdviceQuery")
F = TypeVar("F", bound=Callable[..., Any])


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


def _ahead_row(info: ValidationInfo) -> str:
    """The look-ahead row of the question: how far ahead Google shows what it asks for
    (``calendar.start_ahead_vms`` for GPU or H4D VMs, ``calendar.start_ahead`` for TPUs)."""
    vms = info.data.get("machine_type") is not None and info.data.get("tpu_version") is None
    return "calendar.start_ahead_vms" if vms else "calendar.start_ahead"


def _check_ahead(
    field: str, when: dt.datetime, now: dt.datetime, shown: str, key: str = "calendar.start_ahead"
) -> None:
    row = limits.get(key)
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


# ------------------------------------------------------------------------------ field checks
# Checks that read a field validated before them (``info.data``) name their field themselves.
def _now(value: Any) -> dt.datetime:
    when = clock_now() if value is None else value
    if not isinstance(when, dt.datetime):
        raise DwsValidationError("now", value, "must be a datetime")
    return when.astimezone(dt.timezone.utc).replace(microsecond=0)


def _longest(value: Any, info: ValidationInfo) -> Any:
    """``max_duration``: ``duration`` when not given; never shorter than it."""
    shortest = info.data.get("duration")
    if value is None:
        return shortest
    longest = limits.check_duration("max_duration", value, "calendar.duration")
    if shortest is not None and longest < shortest:
        raise DwsValidationError(
            "max_duration", str(value), f"is shorter than duration {shortest.human()}"
        )
    return longest


def _earliest(value: Any, info: ValidationInfo) -> Any:
    """``earliest``: by default the look-ahead's minimum from ``now``, on the next hour."""
    now = info.data.get("now")
    if now is None:
        return value
    if value is None:
        ahead = limits.get(_ahead_row(info))
        return _round_up_to_hour(now + dt.timedelta(seconds=ahead.minimum or 0))
    start = parse_when("earliest", value, now)
    _check_ahead("earliest", start, now, format_timestamp(start), _ahead_row(info))
    return start


def _latest(value: Any, info: ValidationInfo) -> Any:
    """``latest``: by default the end of the look-ahead; never before ``earliest``."""
    now, start = info.data.get("now"), info.data.get("earliest")
    if now is None:
        return value
    if value is None:
        ahead = limits.get(_ahead_row(info))
        horizon = (now + dt.timedelta(seconds=ahead.maximum or 0)).replace(minute=0, second=0)
        return horizon if start is None else max(start, horizon)
    end = parse_when("latest", value, now)
    _check_ahead("latest", end, now, format_timestamp(end), _ahead_row(info))
    if start is not None and end < start:
        raise DwsValidationError(
            "latest", format_timestamp(end), f"is before earliest {format_timestamp(start)}"
        )
    return end


def _tpu_version(value: Any) -> Any:
    """``tpu_version``: a version Calendar mode offers (``v6e``...), as its short name."""
    return None if value is None else calendar_tpu_version("tpu_version", value)


def _workload_type(value: Any, info: ValidationInfo) -> Any:
    """``workload_type``: BATCH or SERVING (any case), for TPUs only."""
    if value is None:
        return None
    if info.data.get("tpu_version") is None:
        raise DwsValidationError("workload_type", value, "only applies to TPUs (with tpu_version)")
    shown = value.upper() if isinstance(value, str) else value
    return check_choice("workload_type", shown, WORKLOAD_TYPES)


def _machine_or_tpu(value: Any, info: ValidationInfo) -> Any:
    """``machine_type`` (VMs with GPUs, or H4D VMs), or None with ``tpu_version`` (TPU
    chips): what Calendar mode reserves (:func:`~pulumi_dws.catalog.calendar_machine`)."""
    tpu = info.data.get("tpu_version")
    if (value is None) == (tpu is None):
        raise DwsValidationError(
            "machine_type",
            value if value is not None else "(missing)",
            "give machine_type (VMs with GPUs) or tpu_version (TPU chips), one of them",
        )
    return None if value is None else catalog.calendar_machine("machine_type", value)


def _count(value: Any, info: ValidationInfo) -> int:
    """``count``: VMs (the ``calendar.count`` row; H4D VMs ``calendar.count_h4d``), or TPU chips
    (the version's row)."""
    tpu = info.data.get("tpu_version")
    if tpu is None:
        row = catalog.calendar_limit(info.data.get("machine_type"))
        return limits.check_count("count", value, row)
    chips = limits.as_whole_number("count", value)
    return check_tpu_chips("count", chips, tpu, info.data.get("workload_type"))


def _zones_in_region(value: Any, info: ValidationInfo) -> Any:
    """Zones of the query's region, as ``<field>[i]``."""
    field, region = info.field_name or "zones", info.data.get("region")
    if isinstance(value, str) or not isinstance(value, Sequence):
        raise DwsValidationError(field, value, "must be a list of zones")
    if region is None:
        return tuple(value)
    return tuple(
        check_zone_in_region(f"{field}[{i}]", zone, region) for i, zone in enumerate(value)
    )


def _machine_types(value: Any) -> tuple[str, ...]:
    """One machine type, or several in order of preference (``machine_type[i]``)."""
    shapes = (value,) if isinstance(value, str) else value
    if not isinstance(shapes, Sequence):
        return (_check_machine_type("machine_type", value),)
    if not shapes:
        raise DwsValidationError("machine_type", "(none)", "give at least one machine type")
    return tuple(
        _check_machine_type("machine_type" if len(shapes) == 1 else f"machine_type[{i}]", shape)
        for i, shape in enumerate(shapes)
    )


def _vm_count(field: str, value: Any) -> int:
    count = limits.as_whole_number(field, value)
    if not 1 <= count <= INT32_MAX:
        raise DwsValidationError(field, count, "must be at least 1 VM")
    return count


Now = Annotated[dt.datetime, BeforeValidator(_now)]
"""The time relative times are read from (default: the clock's now)."""
Zones = Annotated[tuple[str, ...], BeforeValidator(_zones_in_region)]
"""Zones of the query's region."""


# ------------------------------------------------------------------------------ the questions
class AdviceQuery(BaseModel):
    """What every advice question names: the project and the region it asks about.

    Build one with :meth:`of` (or the functions that ask it): a bad input raises one
    :class:`~pulumi_dws.errors.DwsValidationError` naming the field.
    """

    model_config = ConfigDict(extra="forbid", frozen=True, arbitrary_types_allowed=True)

    project: Annotated[str, Check(check_project)]
    region: Annotated[str, Check(check_region)]

    @classmethod
    def of(cls: type[Q], arguments: Mapping[str, Any]) -> Q:
        """The question from a call's arguments (``locals()``, an argparse namespace's
        ``vars``): its inputs by name, anything else ignored."""
        given = {name: arguments[name] for name in cls.model_fields if name in arguments}
        return parse_args(cls, given)


class CalendarQuery(AdviceQuery):
    """A validated ``advice.calendarMode`` question: ``count`` VMs of ``machine_type`` in
    ``region`` for ``duration`` (up to ``max_duration``), starting between ``earliest`` and
    ``latest``, not in ``exclude_zones``. For TPUs, ``machine_type`` is None and ``count``
    chips of ``tpu_version`` (``v5e``, ``v5p``, ``v6e``) are asked for, with an optional
    ``workload_type`` (``BATCH``, ``SERVING``).

    Checked against the ``calendar.*`` rows of the limits table (TPUs: ``calendar.tpu_chips.*``
    and ``calendar.tpu_zones.*``). ``earliest``/``latest`` take a date, an RFC 3339 timestamp
    or ``+2w`` from ``now``; by default the whole look-ahead window (``calendar.start_ahead``;
    for GPU or H4D VMs ``calendar.start_ahead_vms``: Google shows them 60 days ahead).
    """

    # Checked in this order: a field's check may read those above it (``now`` first).
    now: Now = Field(default=None, validate_default=True)
    tpu_version: Annotated[str | None, BeforeValidator(_tpu_version)] = None
    workload_type: Annotated[str | None, BeforeValidator(_workload_type)] = None
    machine_type: Annotated[str | None, BeforeValidator(_machine_or_tpu)]
    count: Annotated[int, BeforeValidator(_count)]
    duration: Annotated[Duration, DurationWithin("calendar.duration")]
    max_duration: Annotated[Duration, BeforeValidator(_longest)] = Field(
        default=None, validate_default=True
    )
    earliest: Annotated[dt.datetime, BeforeValidator(_earliest)] = Field(
        default=None, validate_default=True
    )
    latest: Annotated[dt.datetime, BeforeValidator(_latest)] = Field(
        default=None, validate_default=True
    )
    exclude_zones: Zones = ()

    @model_validator(mode="after")
    def _tpus_in_region(self) -> CalendarQuery:
        """A TPU question names a region with a zone where Calendar mode offers the version."""
        if self.tpu_version is None:
            return self
        zones = tpu_zones(self.tpu_version, self.workload_type)
        if zones is not None and not any(zone.startswith(self.region + "-") for zone in zones):
            raise DwsValidationError(
                "region",
                self.region,
                f"has no zone where Calendar mode offers TPU {self.tpu_version}: use the region "
                f"of one of {', '.join(zones)}",
            )
        return self

    @property
    def min_duration(self) -> Duration:
        """The shortest acceptable block: ``duration``."""
        return self.duration

    @property
    def shape(self) -> str:
        """``2 x a3-highgpu-8g`` or ``16 TPU v6e chips (BATCH)``."""
        if self.tpu_version is None:
            return f"{self.count} x {self.machine_type}"
        kind = f" ({self.workload_type})" if self.workload_type else ""
        return f"{self.count} TPU {self.tpu_version} chips{kind}"

    def _targets(self) -> FutureResourcesSpecTargetResources:
        """VMs of a machine type, or (TPUs) chips of the version's ``vmFamily``."""
        if self.tpu_version is None:
            return FutureResourcesSpecTargetResources(
                specific_sku_resources=FutureResourcesSpecSpecificSKUResources(
                    instance_count=self.count, machine_type=self.machine_type
                )
            )
        generation = catalog.tpu_generation("tpu_version", self.tpu_version)
        return FutureResourcesSpecTargetResources(
            aggregate_resources=FutureResourcesSpecAggregateResources.model_validate(
                {
                    "accelerator_count": self.count,
                    "vm_family": generation.vm_family,
                    "workload_type": self.workload_type,
                }
            )
        )

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
                min_duration=self.duration,
                max_duration=self.max_duration,
                start_time_not_earlier_than=self.earliest,
                start_time_not_later_than=self.latest,
            ),
        )
        return CalendarModeAdviceRequest(future_resources_specs={SPEC_KEY: spec})

    def describe(self) -> str:
        """``2 x a3-highgpu-8g in us-central1 for 7d, starting 2026-02-01T00:00:00Z..``."""
        length = self.duration.human()
        if self.max_duration != self.duration:
            length = f"{length} to {self.max_duration.human()}"
        return (
            f"{self.shape} in {self.region} for {length}, starting "
            f"between {format_timestamp(self.earliest)} and {format_timestamp(self.latest)}"
        )


class CapacityQuery(AdviceQuery):
    """A validated ``advice.capacity`` question: ``count`` VMs of ``machine_type`` (one, or
    several in order of preference) in ``region``, by ``provisioning_model``, spread as
    ``target_shape`` over ``zones`` (default: any zone of the region)."""

    machine_type: Annotated[tuple[str, ...], BeforeValidator(_machine_types)]
    count: Annotated[int, Check(_vm_count)]
    provisioning_model: ProvisioningModel = "FLEX_START"
    target_shape: TargetShape = "ANY_SINGLE_ZONE"
    zones: Zones = ()

    @property
    def machine_types(self) -> tuple[str, ...]:
        """The machine types asked for, in order of preference: ``machine_type``."""
        return self.machine_type

    def to_request(self) -> CapacityAdviceRequest:
        """The request body: one instance selection per machine type, ranked in order."""
        selections = {
            f"selection-{i}": CapacityAdviceRequestInstanceSelection(machine_types=[mt], rank=i)
            for i, mt in enumerate(self.machine_type)
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
        shapes = " or ".join(self.machine_type)
        return f"{self.count} x {shapes} ({self.provisioning_model}) in {self.region}"


# ------------------------------------------------------------------------------ signatures
def asks(model: type[AdviceQuery], *, also: Collection[str] = ()) -> Callable[[F], F]:
    """Check, when a function is defined, that it takes ``model``'s fields (and the
    parameters named in ``also``): the required ones positionally, in the model's order,
    the others by keyword with the model's defaults, each taking at least what the model
    holds. The function builds its query with ``model.of(locals())``."""

    def check(func: F) -> F:
        problems = signature_mismatches(func, model, also)
        if problems:
            raise TypeError(
                f"{func.__qualname__} must take the fields of {model.__name__}: "
                + "; ".join(problems)
            )
        return func

    return check


@asks(CalendarQuery)
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
    """Validate a Calendar-mode question (:class:`CalendarQuery`): ``count`` VMs of
    ``machine_type``, or, with ``machine_type`` None, ``count`` chips of ``tpu_version``.

    ``duration`` is the shortest acceptable block (``max_duration`` the longest; default the
    same). ``earliest``/``latest`` bound the start: a date, an RFC 3339 timestamp or ``+2w``;
    by default the whole look-ahead window (``calendar.start_ahead``) from ``now``.
    """
    return CalendarQuery.of(locals())


@asks(CapacityQuery)
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
    """Validate a real-time capacity question (:class:`CapacityQuery`; several machine types:
    in order of preference)."""
    return CapacityQuery.of(locals())
