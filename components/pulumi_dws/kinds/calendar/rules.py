"""The rules of Calendar-mode reservations (``CalendarReservation``, and the future reservations
users register with pulumi-gcp): auto-delete on, a window inside the limits, care with changes,
and TPU requests of chips and zones Google offers."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from ... import catalog, clock, limits
from ...calendar_tpu import check_tpu_zone, tpu_chip_row
from ...errors import DwsValidationError
from ...policy.capacity import window_seconds
from ...policy.rules.base import Finding, Rule
from ...policy.rules.common import describe_seconds
from ...policy.shapes import FUTURE_RESERVATION, body_of, kind_of
from ...policy.values import UNKNOWN, as_bool, as_int, dig, last_segment
from ...policy.view import Context, ResourceView, normalize_operation, type_of_urn
from ...validation import parse_timestamp

__all__ = [
    "AUTO_DELETE",
    "WINDOW",
    "DELETE_OR_REPLACE",
    "CALENDAR_TPU",
    "CALENDAR_VMS",
    "RULES",
    "calendar_body",
]


def calendar_body(view: ResourceView) -> tuple[Any, Any]:
    """``(is calendar mode, body)`` of a future reservation; (False, None) for other kinds."""
    if kind_of(view) != "future_reservation":
        return False, None
    src = body_of(view) if view.type.startswith("pulumi-python:") else view.props
    mode = dig(src, "reservationMode")
    if mode is UNKNOWN or src is UNKNOWN:
        return UNKNOWN, src
    return mode == "CALENDAR", src


def _auto_delete(view: ResourceView, cfg: dict[str, Any], ctx: Context) -> Iterator[Finding]:
    calendar, src = calendar_body(view)
    if calendar is not True:
        return
    value = as_bool(dig(src, "autoDeleteAutoCreatedReservations"))
    if value is UNKNOWN or value is True:
        return
    shown = "missing (default false)" if value is None else "false"
    yield Finding(
        f"{view.label}: autoDeleteAutoCreatedReservations is {shown}; turn it on so the "
        "reservation Calendar mode creates is deleted at the end of the window"
    )


def _check(
    key: str, field: str, seconds: int, only_max: bool = False, shown: str | None = None
) -> str | None:
    limit = limits.get(key)
    if only_max and limit.maximum is not None and seconds <= limit.maximum:
        return None
    try:
        limit.check(field, seconds, shown=shown)
    except DwsValidationError as err:
        return f"{err} [limit {key}]"
    return None


def _window(view: ResourceView, cfg: dict[str, Any], ctx: Context) -> Iterator[Finding]:
    calendar, src = calendar_body(view)
    if calendar is not True:
        return
    window = dig(src, "timeWindow")
    if window is None:
        yield Finding(f"{view.label}: timeWindow is missing (Calendar mode needs one)")
        return
    try:
        seconds = window_seconds(window)
    except DwsValidationError as err:
        yield Finding(f"{view.label}: {err}")
        return
    if isinstance(seconds, int):
        problem = _check("calendar.duration", "timeWindow duration", seconds)
        if problem:
            yield Finding(f"{view.label}: {problem}")
    start = dig(window, "startTime")
    if not isinstance(start, str):
        return
    try:
        begins = parse_timestamp("timeWindow.startTime", start)
    except DwsValidationError as err:
        yield Finding(f"{view.label}: {err}")
        return
    ahead = int((begins - clock.now()).total_seconds())
    operation = ctx.operation_for(view)
    if operation in ("same", "update", "read", "delete"):
        return  # an existing request: its look-ahead shrinks by itself as time passes
    field, shown = "timeWindow.startTime", f"{start} ({_ahead(ahead)})"
    if operation in ("create", "replace"):
        problem = _check("calendar.start_ahead", field, max(ahead, 0), shown=shown)
    elif ahead > 0:
        # Without a plan an existing reservation looks the same as a new one; only the
        # maximum is safe to check (the look-ahead of an existing request only shrinks).
        problem = _check("calendar.start_ahead", field, ahead, only_max=True, shown=shown)
    else:
        problem = None
    if problem:
        yield Finding(f"{view.label}: {problem}")


def _ahead(seconds: int) -> str:
    if seconds <= 0:
        return "in the past"
    rounded = seconds - seconds % 3600 if seconds >= 3600 else seconds
    about = "" if rounded == seconds else "about "
    return f"{about}{describe_seconds(rounded)} ahead"


_OPS_TEXT = {
    "delete": "delete",
    "replace": "replace (delete and re-create)",
    "update": "modify",
}


def _delete_or_replace(
    views: Sequence[ResourceView], cfg: dict[str, Any], ctx: Context
) -> Iterator[Finding]:
    if not ctx.operations:
        return
    by_urn = {v.urn: v for v in views if v.urn}
    by_name = {v.name: v for v in views}
    for key, raw in ctx.operations.items():
        view = by_urn.get(key) or by_name.get(key)
        op = normalize_operation(raw)
        if op not in _OPS_TEXT:
            continue
        if view is not None:
            calendar, _ = calendar_body(view)
            if calendar is False:
                continue
            subject = view
        else:
            rtype = type_of_urn(key)
            if rtype != FUTURE_RESERVATION and "reservation" not in rtype.lower():
                continue
            name = key.split("::")[-1]
            subject = ResourceView(rtype, name, key)
        yield Finding(
            f"{subject.label}: this plan would {_OPS_TEXT[op]} a future reservation. An approved "
            "Calendar-mode request can't be modified, cancelled or deleted; at the end of its "
            "window the reservation and its VMs are deleted. Check this is intended "
            "(protect=True guards against accidental deletes).",
            subject,
        )


AUTO_DELETE = Rule(
    name="calendar-auto-delete",
    description="Calendar-mode reservations must auto-delete the reservations they create.",
    level="mandatory",
    scope="resource",
    check=_auto_delete,
    remediation="Set autoDeleteAutoCreatedReservations: true.",
)

WINDOW = Rule(
    name="calendar-window",
    description=(
        "A Calendar-mode reservation's duration and look-ahead must be inside the limits table "
        "(calendar.duration, calendar.start_ahead)."
    ),
    level="mandatory",
    scope="resource",
    check=_window,
    remediation="Pick a window the limits allow; pulumi_dws.limits shows or overrides them.",
    note="reads `calendar.duration`, `calendar.start_ahead`",
)

DELETE_OR_REPLACE = Rule(
    name="calendar-delete-or-replace",
    description="Warn when a plan would delete, replace or modify a Calendar-mode reservation.",
    level="advisory",
    scope="plan",
    check=_delete_or_replace,
    remediation="Keep the reservation unchanged, or confirm the loss of the booked capacity.",
    note="`dws plan` with planned operations only",
)


def _chips(aggregate: Any) -> Any:
    resources = dig(aggregate, "reservedResources")
    if resources is UNKNOWN:
        return UNKNOWN
    total = 0
    for entry in resources if isinstance(resources, list) else []:
        count = as_int(dig(entry, "accelerator", "acceleratorCount"))
        if count is UNKNOWN:
            return UNKNOWN
        total += count if isinstance(count, int) else 0
    return total


def _calendar_tpu(view: ResourceView, cfg: dict[str, Any], ctx: Context) -> Iterator[Finding]:
    calendar, src = calendar_body(view)
    aggregate = dig(src, "aggregateReservation") if calendar is True else None
    if not isinstance(aggregate, dict):
        return
    family, workload = dig(aggregate, "vmFamily"), dig(aggregate, "workloadType")
    if not isinstance(family, str) or workload is UNKNOWN:
        return
    try:
        generation = catalog.tpu_generation("aggregateReservation.vmFamily", family)
    except DwsValidationError:
        return  # not a TPU family pulumi-dws knows: the API judges it
    if generation.calendar_version is None:
        yield Finding(
            f"{view.label}: aggregateReservation.vmFamily {family} ({generation.title}) is not "
            "offered in Calendar mode by gcloud 528 (V5E, V5P, V6E)"
        )
        return
    chips = _chips(aggregate)
    row = tpu_chip_row(generation.name, workload if isinstance(workload, str) else None)
    if isinstance(chips, int):
        try:
            limits.get(row).check("aggregateReservation acceleratorCount", chips)
        except DwsValidationError as err:
            yield Finding(f"{view.label}: {err} [limit {row}]")
    zone = last_segment(dig(src, "zone"))
    if isinstance(zone, str):
        try:
            check_tpu_zone("zone", zone, generation.name, workload)
        except DwsValidationError as err:
            yield Finding(f"{view.label}: {err}")


CALENDAR_TPU = Rule(
    name="calendar-tpu-request",
    description=(
        "A Calendar-mode TPU request asks for a chip count and a zone Google offers for its "
        "version and workload type (limits rows calendar.tpu_chips.* and calendar.tpu_zones.*)."
    ),
    level="mandatory",
    scope="resource",
    check=_calendar_tpu,
    remediation="Use an allowed chip count and zone, or override the limits row with a source.",
    note="reads `calendar.tpu_chips.*`, `calendar.tpu_zones.*`",
)


def _calendar_vms(view: ResourceView, cfg: dict[str, Any], ctx: Context) -> Iterator[Finding]:
    calendar, src = calendar_body(view)
    sku = dig(src, "specificSkuProperties") if calendar is True else None
    if not isinstance(sku, dict):
        return
    machine = last_segment(dig(sku, "instanceProperties", "machineType"))
    if not isinstance(machine, str):
        return
    field = "specificSkuProperties.instanceProperties.machineType"
    try:
        catalog.check_series_machine(field, machine)  # an H4D type Google does not document
    except DwsValidationError as err:
        yield Finding(f"{view.label}: {err}")
        return
    count = as_int(dig(sku, "totalCount"))
    if not isinstance(count, int):
        return
    row = catalog.calendar_limit(machine)
    try:
        limits.get(row).check("specificSkuProperties.totalCount", count)
    except DwsValidationError as err:
        yield Finding(f"{view.label}: {err} for {machine} [limit {row}]")


CALENDAR_VMS = Rule(
    name="calendar-vm-request",
    description=(
        "A Calendar-mode request of VMs asks for 1 to 80 GPU VMs or 1 to 256 H4D VMs of a "
        "machine type Google documents (limits rows calendar.count, calendar.count_h4d)."
    ),
    level="mandatory",
    scope="resource",
    check=_calendar_vms,
    remediation="Split the block into requests the limits allow, or override the row.",
    note="reads `calendar.count`, `calendar.count_h4d`",
)

RULES = (AUTO_DELETE, WINDOW, DELETE_OR_REPLACE, CALENDAR_TPU, CALENDAR_VMS)
"""This kind's rules, in the order they are reported."""
