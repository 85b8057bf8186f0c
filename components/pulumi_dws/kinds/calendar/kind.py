"""Calendar-mode reservations (``CalendarReservation``): the pulumi-gcp ``FutureReservation``
it registers (or a user registers directly), a dynamic resource carrying a future reservation's
API body, standing reservations, and the ``StableTime`` that fixes a relative start."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from ... import catalog
from ...errors import DwsValidationError
from ...plan.summary import duration_text, gpu_hours
from ...policy.capacity import CapacityItem, item, known_or_none, window_seconds
from ...policy.shapes import DYNAMIC_PREFIX, FUTURE_RESERVATION, RESERVATION, body_of, machine_gpus
from ...policy.values import UNKNOWN, as_int, dig, pick
from ...policy.view import ResourceView
from ...providers.stable_time import TYPE_TOKEN as STABLE_TIME
from ...registry import CapacityKind, Ref, ResourceType, register
from .component import CalendarReservation, CalendarReservationArgs, CalendarReservationSpec
from .rules import RULES

__all__ = ["KIND", "reservation_source"]

_AIDS = "pulumi_dws.kinds.calendar.testing"
_HOUR = 3600.0


def reservation_source(view: ResourceView) -> Any:
    """What holds a reservation's fields: a dynamic resource's API body, else the props."""
    return body_of(view) if view.type.startswith(DYNAMIC_PREFIX) else view.props


def _reservation_item(view: ResourceView, kind: str) -> CapacityItem:
    """GPUs per VM x ``totalCount`` for the time window (future reservations), unbounded for a
    standing reservation."""
    src = reservation_source(view)
    notes: list[str] = []
    hours: float | None
    if kind == "future_reservation":
        sku = dig(src, "specificSkuProperties")
        units = as_int(dig(sku, "totalCount"))
        try:
            seconds = window_seconds(dig(src, "timeWindow"))
        except DwsValidationError:
            seconds = None
            notes.append("timeWindow is not valid")
        hours = None if seconds in (None, UNKNOWN) else seconds / _HOUR
        bounded = None if seconds is UNKNOWN else seconds is not None
    else:
        sku = dig(src, "specificReservation")
        units = as_int(dig(sku, "count"))
        hours, bounded = None, False
        notes.append("a standing reservation: GPU-hours unbounded")
    chips = _tpu_chips(src)
    if chips is not None:
        return item(
            view,
            kind,
            "",
            tpu_chips=chips,
            machine=None,
            units=1,
            hours=hours,
            bounded=bounded,
            notes=tuple(notes),
        )
    props = dig(sku, "instanceProperties")
    gpus = machine_gpus(dig(props, "machineType"), dig(props, "guestAccelerators"))
    return item(
        view,
        kind,
        "",
        gpus=gpus,
        machine=dig(props, "machineType"),
        units=known_or_none(units),
        hours=hours,
        bounded=bounded,
        notes=tuple(notes),
    )


def _tpu_generation(src: Any) -> Any:
    """The TPU generation (``v6e``) of an aggregate reservation's ``vmFamily``; None for a
    reservation of VMs, UNKNOWN while not known."""
    family = dig(src, "aggregateReservation", "vmFamily")
    if family is UNKNOWN or not isinstance(family, str):
        return family if family is UNKNOWN else None
    try:
        return catalog.tpu_generation("vmFamily", family).name
    except DwsValidationError:
        return family


def _tpu_chips(src: Any) -> tuple[Any, Any] | None:
    """``(generation, chips)`` of a TPU reservation (``aggregateReservation``), else None."""
    aggregate = dig(src, "aggregateReservation")
    if aggregate is None:
        return None
    if aggregate is UNKNOWN:
        return UNKNOWN, UNKNOWN
    resources = dig(aggregate, "reservedResources")
    if resources is UNKNOWN:
        return _tpu_generation(src), UNKNOWN
    total: Any = 0
    for entry in resources if isinstance(resources, list) else []:
        count = as_int(dig(entry, "accelerator", "acceleratorCount"))
        if count is UNKNOWN:
            return _tpu_generation(src), UNKNOWN
        total += count or 0
    return _tpu_generation(src), total


def _future_capacity(view: ResourceView) -> Iterator[CapacityItem]:
    yield _reservation_item(view, "future_reservation")


def _standing_capacity(view: ResourceView) -> Iterator[CapacityItem]:
    yield _reservation_item(view, "reservation")


def _vm_hours(src: Any) -> dict[str, Any]:
    """``vms`` and ``vm_hours`` of a reservation of VMs (GPU or H4D): what an H4D block, which
    counts no GPUs, costs; nothing for TPU chips."""
    count = as_int(dig(src, "specificSkuProperties", "totalCount"))
    if dig(src, "specificSkuProperties") is None or not isinstance(count, int):
        return {}
    try:
        seconds = window_seconds(dig(src, "timeWindow"))
    except DwsValidationError:
        seconds = None
    hours = seconds / _HOUR if isinstance(seconds, int) else None
    return {"vms": count, **({"vm_hours": round(count * hours, 3)} if hours else {})}


def _summary(view: ResourceView) -> dict[str, Any]:
    src = reservation_source(view)
    window = dig(src, "timeWindow")
    chips = _tpu_chips(src)
    return {
        **_vm_hours(src),
        "zone": dig(src, "zone"),
        "mode": dig(src, "reservationMode"),
        "machine_type": dig(src, "specificSkuProperties", "instanceProperties", "machineType"),
        "count": as_int(dig(src, "specificSkuProperties", "totalCount")),
        "tpu_version": chips[0] if chips else None,
        "workload_type": dig(src, "aggregateReservation", "workloadType"),
        "start": dig(window, "startTime"),
        "end": dig(window, "endTime"),
        "duration": duration_text(dig(window, "duration")),
        "planning_status": dig(src, "planningStatus"),
        "reservation_name": pick(src, "reservationName", "namePrefix"),
        **gpu_hours(view),
    }


def _stable_time_summary(view: ResourceView) -> dict[str, Any]:
    return {"timestamp": view.props.get("timestamp")}


def _looks_like_a_future_reservation(view: ResourceView) -> bool:
    body = body_of(view)
    return isinstance(body, Mapping) and "reservationMode" in body and "timeWindow" in body


KIND = register(
    CapacityKind(
        name="CalendarReservation",
        component=CalendarReservation,
        args=CalendarReservationArgs,
        spec=CalendarReservationSpec,
        key="calendar_reservations",
        resources=(
            ResourceType(
                "future_reservation",
                types=(FUTURE_RESERVATION,),
                dynamic_names=("calendarreservation", "futurereservation"),
                recognise=_looks_like_a_future_reservation,
                capacity=_future_capacity,
                summary=_summary,
                mock=Ref(f"{_AIDS}:future_reservation"),
            ),
            ResourceType(
                "reservation",
                types=(RESERVATION,),
                capacity=_standing_capacity,
                mock=Ref(f"{_AIDS}:reservation"),
            ),
            ResourceType(
                "stable_time",
                types=(STABLE_TIME,),
                summary=_stable_time_summary,
                mock=Ref(f"{_AIDS}:stable_time"),
            ),
        ),
        test_aids=_AIDS,
        rules=RULES,
    )
)
