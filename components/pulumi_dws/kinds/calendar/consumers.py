"""What a reservation's consumers check against it, from Python and from the blueprint alike.

A consumer (a ``FlexStartGroup``, a reserved ``QueuedNodePool``, a ``RESERVATION`` Slurm pool,
a reservation-bound ``QueuedTpu``) given a :class:`~pulumi_dws.CalendarReservation` checks what
the reservation holds: GPU VMs or TPU chips, of which machine type or generation, how many,
in which zone. The blueprint (``dws:capacity``) checks the same before anything is made: a
``reservation:`` naming a ``calendar_reservations`` entry stands for a
:class:`DeclaredReservation` (the entry's name and validated spec) while the entries are
checked, and for the entry's component once it exists.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ... import catalog
from ...errors import DwsValidationError
from .component import CalendarReservation, CalendarReservationSpec

__all__ = [
    "DeclaredReservation",
    "reservation_spec",
    "reservation_label",
    "check_vm_consumer",
    "check_tpu_consumer",
]


@dataclass(frozen=True)
class DeclaredReservation:
    """A ``CalendarReservation`` declared (in ``dws:capacity``) but not made yet: what its
    consumers check. ``name`` is the entry's name, ``spec`` its validated args."""

    name: str
    spec: CalendarReservationSpec

    @property
    def reservation_name(self) -> str:
        """The name of the reservation Google creates for the block."""
        return self.spec.reservation_name or self.spec.name or self.name


def reservation_spec(value: Any) -> CalendarReservationSpec | None:
    """The spec of a Calendar-mode reservation object (a component or a declared one), or
    None for anything else (a name, an Output)."""
    if isinstance(value, CalendarReservation | DeclaredReservation):
        return value.spec
    return None


def reservation_label(value: Any) -> str:
    """How a message names a reservation: ``h100-block`` for an object, the text for a name."""
    if isinstance(value, DeclaredReservation):
        return value.name
    if isinstance(value, CalendarReservation):
        return value._name
    return value if isinstance(value, str) else type(value).__name__


def _holds(held: CalendarReservationSpec) -> str:
    if held.tpu_version is not None:
        generation = held.tpu_generation
        assert generation is not None
        return f"{held.chip_count} {generation.title} chips"
    count = held.count if isinstance(held.count, int) else "some"
    return f"{count} {held.machine_type} VMs"


def _vms_held(held: CalendarReservationSpec) -> str:
    """``a3-highgpu-8g VMs (2, 8 GPUs each)``, ``h4d-highmem-192 VMs (256, H4D: no GPUs)``."""
    count = f"{held.count}, " if isinstance(held.count, int) else ""
    if catalog.is_hpc_flex_machine(held.machine_type):
        return f"{held.machine_type} VMs ({count}H4D: no GPUs)"
    shape = catalog.machine_accelerators(held.machine_type)
    gpus = f"{shape.count} GPUs each" if shape is not None else "GPUs"
    return f"{held.machine_type} VMs ({count}{gpus})"


def check_vm_consumer(
    reservation: Any,
    *,
    machine_type: Any,
    count: Any,
    zone: Any = None,
    region: Any = None,
    fields: tuple[str, str, str] = ("machine_type", "count", "zone"),
    what: str = "VMs",
    reservation_field: str = "reservation",
) -> None:
    """A consumer of ``count`` VMs of ``machine_type`` in ``zone`` (or somewhere in
    ``region``): the reservation must hold GPU VMs of that machine type, at least ``count``
    of them, in that zone. ``fields`` name the consumer's machine type, count and zone
    arguments. Values not known yet (Outputs) are let be. A GPU consumer on a block of H4D VMs
    (or an H4D consumer on a block of GPU VMs) is refused as any other machine type that
    differs: only VMs of the reserved machine type consume it."""
    held = reservation_spec(reservation)
    if held is None:
        return
    machine_field, count_field, zone_field = fields
    if held.machine_type is None:
        raise DwsValidationError(
            reservation_field,
            reservation_label(reservation),
            f"holds {_holds(held)}, not VMs; this consumer needs {machine_type} VMs",
        )
    if isinstance(machine_type, str) and held.machine_type != machine_type:
        raise DwsValidationError(
            machine_field,
            machine_type,
            f"does not match the reservation {reservation_label(reservation)}, which holds "
            f"{_vms_held(held)}; its consumers must use machine_type {held.machine_type}",
        )
    if isinstance(count, int) and isinstance(held.count, int) and count > held.count:
        raise DwsValidationError(
            count_field, count, f"is above the reservation's {held.count} {what}"
        )
    _same_zone(held, zone, region, zone_field)


def check_tpu_consumer(
    reservation: Any,
    *,
    generation: catalog.TpuGeneration,
    chips: Any,
    zone: Any = None,
    region: Any = None,
    fields: tuple[str, str, str] = ("machine_type", "chips", "zone"),
    value: Any = None,
    chips_shown: Any = None,
    reservation_field: str = "reservation",
) -> None:
    """A consumer of ``chips`` TPU chips of ``generation`` in ``zone``: the reservation must
    hold chips of that generation, at least ``chips`` of them, in that zone. ``fields`` name
    the consumer's arguments that chose the generation, the chips and the zone; ``value`` is
    what the first of them holds (``v6e-16``, ``ct6e-standard-4t``), ``chips_shown`` what the
    second holds (default: ``chips``)."""
    held = reservation_spec(reservation)
    if held is None:
        return
    kind_field, chips_field, zone_field = fields
    shown = value if value is not None else generation.name
    if held.tpu_generation is None:
        raise DwsValidationError(
            reservation_field,
            reservation_label(reservation),
            f"holds {_holds(held)}, not TPU chips; this consumer needs {generation.title} chips",
        )
    if held.tpu_generation != generation:
        raise DwsValidationError(
            kind_field,
            shown,
            f"does not match the reservation, which holds {held.tpu_generation.title} chips",
        )
    if isinstance(chips, int) and chips > held.tpu_chips:
        raise DwsValidationError(
            chips_field,
            chips_shown
            if chips_shown is not None
            else (chips if chips_field != kind_field else shown),
            f"needs {chips} chips; the reservation holds {held.tpu_chips}",
        )
    _same_zone(held, zone, region, zone_field)


def _same_zone(held: CalendarReservationSpec, zone: Any, region: Any, field: str) -> None:
    reserved = held.zone
    if not isinstance(reserved, str):
        return
    if isinstance(zone, str) and zone != reserved:
        raise DwsValidationError(field, zone, f"does not match the reservation's zone {reserved}")
    if isinstance(region, str) and not reserved.startswith(region + "-"):
        raise DwsValidationError(
            "region", region, f"does not hold the reservation's zone {reserved}"
        )
