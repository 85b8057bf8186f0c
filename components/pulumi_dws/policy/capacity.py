"""Accelerator capacity a stack asks for: GPUs by type and GPU-hours (GPUs x max run duration),
and TPU chips by generation and chip-hours, counted apart (a TPU chip is never a GPU).

Counting rules (the same for GPUs and TPU chips; a TPU machine type's chips come from the
catalog, a TPU reservation's from its ``aggregateReservation``):

* a VM (raw ``Instance`` or ``FlexStartVm``): its GPUs, for its max run duration (Flex-start
  without one: the 7-day Flex-start limit; other VMs without one are *unbounded*); a VM asked
  to be stopped (``desiredStatus`` TERMINATED or SUSPENDED) holds no GPUs: listed, 0 GPU-hours,
  not counted;
* a GKE node pool: GPUs per node x maximum nodes (``totalMaxNodeCount``, else the per-zone
  ``maxNodeCount`` or ``nodeCount`` x node locations); DWS pools run at most their
  ``maxRunDuration`` (default: the GKE limit);
* a Slurm node pool: GPUs per node x ``max_node_count``, for ``flex_start_max_duration``
  (a RESERVATION pool is counted on its reservation);
* a reservation: GPUs per VM x ``totalCount`` for its time window (future reservations) or
  unbounded (plain reservations); a TPU reservation: its ``acceleratorCount`` chips. VMs and
  pools that consume a specific reservation are listed but not counted again.

Instance templates are not capacity by themselves and are not counted. Values not known during
preview make an item *unknown*: totals then count only what is known (a lower bound).

Each resource type's reader (:mod:`pulumi_dws.registry`) says what items it asks for, built with
:func:`item`, :func:`consumer_item` and :func:`run_hours`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from .. import catalog, limits, registry
from ..errors import DwsValidationError
from ..validation import parse_timestamp
from .values import UNKNOWN, Unknown, dig, last_segment, seconds_of
from .view import ResourceView

__all__ = [
    "CapacityItem",
    "capacity_items",
    "capacity_summary",
    "window_seconds",
    "item",
    "run_hours",
    "limited_hours",
    "consumer_item",
    "known_or_none",
]

_HOUR = 3600.0


@dataclass(frozen=True)
class CapacityItem:
    """GPUs or TPU chips one resource (or one pool of it) asks for.

    ``per_unit`` accelerators (GPUs, or TPU chips when ``accelerator_kind`` is ``tpu``) of
    ``accelerator`` (a GPU's Compute name, a TPU generation such as ``v6e``) on each of
    ``units`` machines, for ``hours``. ``per_unit`` / ``units`` / ``hours`` are None when not
    known yet; ``hours`` is also None when ``bounded`` is False (no max run duration).
    """

    urn: str
    name: str
    type: str
    kind: str
    part: str
    machine_type: str | None
    accelerator: str | None
    per_unit: int | None
    units: int | None
    hours: float | None
    bounded: bool | None
    counted: bool = True
    notes: tuple[str, ...] = field(default_factory=tuple)
    accelerator_kind: str = "gpu"

    @property
    def accelerators(self) -> int | None:
        """GPUs or TPU chips in all (None while not known)."""
        if self.per_unit is None or self.units is None:
            return None
        return self.per_unit * self.units

    @property
    def accelerator_hours(self) -> float | None:
        total = self.accelerators
        if total is None or not self.bounded or self.hours is None:
            return None
        return total * self.hours

    @property
    def gpus_per_unit(self) -> int | None:
        return self.per_unit if self.accelerator_kind == "gpu" else 0

    @property
    def gpus(self) -> int | None:
        return self.accelerators if self.accelerator_kind == "gpu" else 0

    @property
    def gpu_hours(self) -> float | None:
        return self.accelerator_hours if self.accelerator_kind == "gpu" else 0.0

    @property
    def tpu_chips(self) -> int | None:
        return self.accelerators if self.accelerator_kind == "tpu" else 0

    @property
    def tpu_chip_hours(self) -> float | None:
        return self.accelerator_hours if self.accelerator_kind == "tpu" else 0.0

    @property
    def known(self) -> bool:
        return self.accelerators is not None and self.bounded is not None

    def label(self) -> str:
        return f"{self.name}/{self.part}" if self.part else self.name

    def to_dict(self) -> dict[str, Any]:
        tpu = self.accelerator_kind == "tpu"
        return {
            "urn": self.urn,
            "name": self.label(),
            "type": self.type,
            "kind": self.kind,
            "machine_type": self.machine_type,
            "accelerator": self.accelerator,
            "accelerator_kind": self.accelerator_kind,
            "gpus_per_unit": self.gpus_per_unit,
            "tpu_chips_per_unit": self.per_unit if tpu else 0,
            "units": self.units,
            "gpus": self.gpus,
            "tpu_chips": self.tpu_chips,
            "max_run_hours": self.hours,
            "gpu_hours": self.gpu_hours,
            "tpu_chip_hours": self.tpu_chip_hours,
            "bounded": self.bounded,
            "counted": self.counted,
            "notes": list(self.notes),
        }


def known_or_none(value: Any) -> Any:
    """``value``, or None when it is not known yet."""
    return None if value is UNKNOWN else value


def limited_hours(
    raw: Any, field_name: str, default_key: str | None, notes: list[str]
) -> tuple[float | None, bool | None]:
    """``(hours, bounded)`` of a max run duration, defaulting to a limit's maximum."""
    try:
        seconds = seconds_of(raw, field_name)
    except DwsValidationError:
        notes.append(f"{field_name} is not a duration")
        return None, None
    if isinstance(seconds, Unknown):
        return None, None
    if seconds is None:
        if default_key is None:
            notes.append("no max run duration: GPU-hours unbounded")
            return None, False
        limit = limits.get(default_key)
        if limit.maximum is None:
            return None, False
        notes.append(f"no {field_name}: counted at the {limit.render(limit.maximum)} limit")
        return limit.maximum / _HOUR, True
    return seconds / _HOUR, True


def window_seconds(window: Any) -> Any:
    """Length of a reservation ``timeWindow``: ``duration`` or ``endTime - startTime``."""
    if window is UNKNOWN:
        return UNKNOWN
    duration = dig(window, "duration")
    if duration is not None:
        return seconds_of(duration, "timeWindow.duration")
    start, end = dig(window, "startTime"), dig(window, "endTime")
    if start is UNKNOWN or end is UNKNOWN:
        return UNKNOWN
    if isinstance(start, str) and isinstance(end, str):
        begin = parse_timestamp("timeWindow.startTime", start)
        finish = parse_timestamp("timeWindow.endTime", end)
        return int((finish - begin).total_seconds())
    return None


def item(view: ResourceView, kind: str, part: str, **values: Any) -> CapacityItem:
    """An item of ``view``: ``gpus`` is ``(accelerator, GPUs per unit)``, or ``tpu_chips``
    ``(generation, chips per unit)``; ``machine`` the machine type (any spelling): a TPU
    machine type with no GPUs counts the chips the catalog gives it. The other values are
    :class:`CapacityItem` fields."""
    machine = last_segment(values.pop("machine"))
    accel, per_unit = values.pop("gpus", (None, 0))
    accelerator_kind = "gpu"
    if "tpu_chips" in values:
        accel, per_unit = values.pop("tpu_chips")
        accelerator_kind = "tpu"
    elif per_unit in (0, None) and catalog.is_tpu_machine(machine):
        chips = catalog.machine_accelerators(machine)
        assert chips is not None
        accel, per_unit, accelerator_kind = chips.name, chips.count, "tpu"
    if accelerator_kind == "tpu" and "notes" in values:  # chips are counted in chip-hours
        values["notes"] = tuple(
            note.replace("GPU-hours", "chip-hours").replace("no GPUs", "no TPU chips")
            for note in values["notes"]
        )
    return CapacityItem(
        urn=view.urn,
        name=view.name,
        type=view.type,
        kind=kind,
        part=part,
        machine_type=known_or_none(machine) if isinstance(known_or_none(machine), str) else None,
        accelerator=accel if isinstance(accel, str) else None,
        per_unit=known_or_none(per_unit),
        accelerator_kind=accelerator_kind,
        **values,
    )


def run_hours(
    raw: Any, field_name: str, dws: Any, default_key: str, notes: list[str]
) -> tuple[float | None, bool | None]:
    """``(hours, bounded)`` of a max run duration. A duration that is given bounds the run
    whatever the provisioning model; without one, DWS capacity (``dws`` True) runs at most
    ``default_key``'s limit, other capacity is unbounded, and unknown ``dws`` can't tell."""
    if raw is None and dws is UNKNOWN:
        return None, None
    return limited_hours(raw, field_name, default_key if dws is True else None, notes)


def consumer_item(
    view: ResourceView, kind: str, part: str, consumer: Any, notes: list[str], **values: Any
) -> CapacityItem:
    """A VM's or node pool's item. One that consumes a specific reservation is listed but
    counted on the reservation; one that may (not known yet) is not known either."""
    if consumer is True:
        notes.append("consumes a specific reservation: counted on the reservation")
    elif consumer is UNKNOWN:
        notes.append("may consume a specific reservation (not known yet)")
        values.update(units=None, hours=None, bounded=None)
    return item(view, kind, part, counted=consumer is not True, notes=tuple(notes), **values)


def capacity_items(resources: Iterable[Any]) -> list[CapacityItem]:
    """Every GPU- or TPU-bearing item of ``resources`` (views, or ``Registered`` from the mocks);
    items whose GPU count is 0 are left out, items not known yet are kept."""
    items: list[CapacityItem] = []
    views = [ResourceView.coerce(resource) for resource in resources]
    for view in views:
        reader = registry.reader_for(view)
        if reader is None:
            continue
        if reader.stack_capacity is not None:
            found_items: Iterable[CapacityItem] = reader.stack_capacity(view, views)
        else:
            found_items = reader.capacity(view) if reader.capacity else ()
        for found in found_items:
            if found.per_unit == 0 or found.units == 0:
                continue
            items.append(found)
    return items


def capacity_summary(resources: Iterable[Any]) -> dict[str, Any]:
    """GPUs, TPU chips and their hours a set of resources asks for (JSON-ready).

    Returns ``{"gpus", "gpus_by_type", "gpu_hours", "gpu_hours_by_type", "tpu_chips",
    "tpu_chips_by_type", "tpu_chip_hours", "tpu_chip_hours_by_type", "resources",
    "unbounded", "unknown"}``: totals of the counted items that are known (GPUs and TPU chips
    apart); ``resources`` lists every item (see :class:`CapacityItem`); ``unbounded`` the
    URNs/names of accelerator resources with no max run duration; ``unknown`` those whose
    count or duration is not known yet.
    """
    items = capacity_items(resources)
    totals: dict[str, dict[str, int]] = {"gpu": {}, "tpu": {}}
    hours: dict[str, dict[str, float]] = {"gpu": {}, "tpu": {}}
    unbounded: list[str] = []
    unknown: list[str] = []
    for one in items:
        if not one.counted:
            continue
        accel = one.accelerator or "unknown"
        count, spent = one.accelerators, one.accelerator_hours
        by_type, hours_by_type = totals[one.accelerator_kind], hours[one.accelerator_kind]
        if count is not None:
            by_type[accel] = by_type.get(accel, 0) + count
        if spent is not None:
            hours_by_type[accel] = hours_by_type.get(accel, 0.0) + spent
        if one.bounded is False:
            unbounded.append(one.urn or one.label())
        if not one.known:
            unknown.append(one.urn or one.label())
    summary: dict[str, Any] = {}
    for kind, (count_key, hours_key) in {
        "gpu": ("gpus", "gpu_hours"),
        "tpu": ("tpu_chips", "tpu_chip_hours"),
    }.items():
        summary[count_key] = sum(totals[kind].values())
        summary[f"{count_key}_by_type"] = dict(sorted(totals[kind].items()))
        summary[hours_key] = round(sum(hours[kind].values()), 3)
        summary[f"{hours_key}_by_type"] = {k: round(v, 3) for k, v in sorted(hours[kind].items())}
    return {
        **summary,
        "resources": [one.to_dict() for one in items],
        "unbounded": unbounded,
        "unknown": unknown,
    }
