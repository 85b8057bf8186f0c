"""The rules a ComputeClass priority is checked against with its class: the machine it resolves
to (GPUs from the catalog, a TPU slice), reservations (blocks for A3 Ultra, A4 and A4X;
sub-blocks for A4X; TPU reservations Specific only; a CalendarReservation's zone and machine),
Flex-start (single-host TPUs; compact placement on A3 Ultra, A4 and H4D) and the GKE version of
each (About custom ComputeClasses:
https://docs.cloud.google.com/kubernetes-engine/docs/concepts/about-custom-compute-classes)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ... import catalog, regions
from ...errors import NO_VALUE, DwsValidationError
from ...validation import check_zone_in_region, is_output, region_of_location
from .versions import check_gke_version

if TYPE_CHECKING:
    from .spec import ComputeClassSpec, PrioritySpec

__all__ = ["ResolvedPriority", "PriorityRules", "shown", "BLOCK_MACHINES", "SUB_BLOCK_MACHINES"]

# Reservation blocks: A3 Ultra and A4; sub-blocks: A4X (About custom ComputeClasses, "Consume
# specific reservation blocks").
BLOCK_MACHINES = ("a3-ultragpu-", "a4-highgpu-", "a4x-highgpu-")
SUB_BLOCK_MACHINES = ("a4x-highgpu-",)


def shown(value: Any) -> Any:
    """A value as an error message shows it (a duration in words, an object by its type, an
    Output as no value yet)."""
    if is_output(value):
        return NO_VALUE
    if hasattr(value, "human"):
        return value.human()
    if value is None or isinstance(value, str | int | float | list):
        return value
    return type(value).__name__


def _calendar_block(reservation: Any) -> Any:
    """The spec of a priority's CalendarReservation (None for a name, or an Output of one,
    whose zone and machine are not known)."""
    if reservation is None or isinstance(reservation, str) or is_output(reservation):
        return None
    return getattr(reservation, "spec", None)


class ResolvedPriority:
    """A priority's machine as GKE sees it: GPU type and count, or the TPU slice."""

    def __init__(
        self,
        spec: PrioritySpec,
        machine_type: str | None,
        machine_family: str | None,
        gpu: tuple[str, int] | None,
        tpu: catalog.TpuSlice | None,
    ) -> None:
        self.spec = spec
        self.machine_type = machine_type
        self.machine_family = machine_family
        self.gpu = gpu
        self.tpu = tpu

    @property
    def capacity(self) -> str:
        return self.spec.capacity

    @property
    def accelerator(self) -> str | None:
        """A GPU's Compute name, or a TPU generation (``v6e``)."""
        if self.gpu is not None:
            return self.gpu[0]
        return self.tpu.generation.name if self.tpu is not None else None

    @property
    def per_node(self) -> int:
        """GPUs or TPU chips on each node (0 for a node_pools rule)."""
        if self.gpu is not None:
            return self.gpu[1]
        return self.tpu.chips_per_vm if self.tpu is not None else 0


class PriorityRules:
    """One priority checked with its class: the machine it resolves to and Google's rules."""

    def __init__(self, cls: ComputeClassSpec, priority: PrioritySpec, where: str) -> None:
        self.cls = cls
        self.p = priority
        self.where = where

    def _get(self, name: str) -> Any:
        own = getattr(self.p, name)
        return own if own is not None else getattr(self.cls, name)

    def _fail(self, field: str, value: Any, problem: str) -> DwsValidationError:
        return DwsValidationError(f"{self.where}{field}", shown(value), problem)

    def resolve(self) -> ResolvedPriority:
        p = self.p
        if p.capacity == "node_pools":
            return ResolvedPriority(p, None, None, None, None)
        machine = self._get("machine_type")
        family = self._get("machine_family") if p.machine_type is None else p.machine_family
        gpu_type, gpu_count = self._get("gpu_type"), self._get("gpu_count")
        topology = self._get("tpu_topology")
        if machine is not None and family is not None:
            raise self._fail(
                "machine_family",
                family,
                f"and machine_type ({machine}) cannot be set together (the CRD: MachineFamily and "
                "MachineType cannot be set together)",
            )
        if machine is not None and catalog.is_tpu_machine(machine):
            for name, value in (("gpu_type", gpu_type), ("gpu_count", gpu_count)):
                if value is not None:
                    raise self._fail(name, value, f"does not apply to the TPU machine {machine}")
            tpu = catalog.tpu_slice(
                machine,
                topology,
                machine_field=f"{self.where}machine_type",
                topology_field=f"{self.where}tpu_topology",
            )
            return ResolvedPriority(p, machine, None, None, tpu)
        if topology is not None:
            raise self._fail(
                "tpu_topology", topology, "only applies to a TPU machine type (ct6e-standard-4t...)"
            )
        if machine is not None:
            shape = catalog.machine_shape(f"{self.where}machine_type", machine)
            if gpu_type is not None and gpu_type != shape.accelerator.compute_name:
                raise self._fail(
                    "gpu_type",
                    gpu_type,
                    f"does not match {machine}, which has {shape.accelerator.compute_name}; "
                    "use that or omit it",
                )
            if gpu_count is not None and gpu_count != shape.gpus:
                raise self._fail(
                    "gpu_count",
                    gpu_count,
                    f"does not match {machine}, which has {shape.gpus} GPUs; use that or omit it",
                )
            gpu = (shape.accelerator.compute_name, shape.gpus)
            return ResolvedPriority(p, machine, None, gpu, None)
        if gpu_type is None or gpu_count is None:
            missing = "gpu_type" if gpu_type is None else "gpu_count"
            raise self._fail(
                missing,
                "(missing)",
                "is required: give the priority (or the class) a machine_type, or gpu_type and "
                "gpu_count (with or without machine_family)",
            )
        accelerator = catalog.accelerator(f"{self.where}gpu_type", gpu_type)
        shapes = [
            shape
            for shape in (catalog.machine_shape("machine_type", m) for m in catalog.known())
            if shape.accelerator == accelerator
        ]
        if family is not None:
            families = sorted({shape.machine_type.split("-")[0] for shape in shapes})
            if family not in families:
                raise self._fail(
                    "machine_family",
                    family,
                    f"has no {gpu_type} GPUs; {gpu_type} comes with {', '.join(families)}",
                )
            shapes = [s for s in shapes if s.machine_type.split("-")[0] == family]
        counts = sorted({shape.gpus for shape in shapes})
        if counts and gpu_count not in counts:
            where = f"{family} machine" if family is not None else "machine"
            choices = ", ".join(map(str, counts[:-1])) + (" or " if len(counts) > 1 else "")
            raise self._fail(
                "gpu_count",
                gpu_count,
                f"matches no node shape: no {where} has {gpu_count} {accelerator.compute_name} "
                f"GPUs; use {choices}{counts[-1]} (GKE would find no machine for the priority)",
            )
        return ResolvedPriority(p, None, family, (accelerator.compute_name, gpu_count), None)

    def check(self) -> None:
        resolved = self.resolve()
        p, cls = self.p, self.cls
        version = cls.gke_version
        if p.capacity == "node_pools" and cls.autopilot:
            raise self._fail(
                "capacity",
                "node_pools",
                "is not allowed on Autopilot (nodepools rules are for Standard clusters only)",
            )
        if resolved.tpu is not None:
            check_gke_version(f"{self.where}machine_type", resolved.machine_type, version, "tpu")
        if p.capacity in ("reservation", "any_reservation"):
            self._reservation_rules(resolved)
        if p.capacity == "flex_start":
            self._flex_start_rules(resolved)
        if resolved.tpu is not None:
            self._tpu_door_rules(resolved.tpu)

    def _tpu_door_rules(self, tpu: catalog.TpuSlice) -> None:
        """A TPU priority at its door, as a QueuedNodePool of that door is checked (catalog
        tables): GKE's Flex-start TPU nodes for ``flex_start``, TPU VMs for the others, in
        the class's zones (or its zonal location; a regional one must hold one of the door's
        zones); a Calendar block's zone is the block's own check. TPU7x nodes need the GKE
        version the catalog names."""
        p, cls = self.p, self.cls
        door = "gke_flex_start" if p.capacity == "flex_start" else "tpu"
        catalog.check_tpu_door(
            f"{self.where}machine_type",
            tpu.machine_type,
            tpu.generation,
            door,
            hint="use capacity spot, on_demand or a reservation for it",
        )
        if tpu.generation.name == "tpu7x":
            catalog.check_gke_version(
                "gke_version", cls.gke_version, "tpu7x", "TPU7x nodes", "use a newer version"
            )
        if p.capacity == "reservation" and _calendar_block(p.reservation) is not None:
            return
        if cls.zones:
            for i, zone in enumerate(cls.zones):
                catalog.check_tpu_zone(f"zones[{i}]", zone, tpu.generation, door)
            return
        if cls.location is None:
            return
        if regions.is_zone(cls.location):
            catalog.check_tpu_zone("location", cls.location, tpu.generation, door)
        else:
            catalog.check_tpu_region("location", cls.location, tpu.generation, door)

    def _reservation_rules(self, resolved: ResolvedPriority) -> None:
        p, cls = self.p, self.cls
        version = cls.gke_version
        check_gke_version(f"{self.where}capacity", p.capacity, version, "reservations")
        if not cls.node_pool_auto_creation and not cls.autopilot:
            raise self._fail(
                "capacity",
                p.capacity,
                "needs node_pool_auto_creation: GKE consumes a class's reservations in node pools "
                "it creates (for pools you made, use capacity node_pools)",
            )
        if (
            resolved.tpu is None
            and resolved.machine_type is None
            and resolved.machine_family is None
        ):
            raise self._fail(
                "machine_type",
                "(missing)",
                "or machine_family is required with a reservation (non-TPU reservations can be "
                "used only when machineType or machineFamily is defined)",
            )
        if resolved.tpu is not None and p.capacity == "any_reservation":
            raise self._fail(
                "capacity",
                p.capacity,
                "is not allowed with TPUs: TPU reservations require Specific affinity (capacity "
                "reservation with the reservation's name)",
            )
        if p.capacity != "reservation":
            return
        machine = resolved.machine_type or ""
        if p.reservation_block is not None:
            check_gke_version(
                f"{self.where}reservation_block", p.reservation_block, version, "reservation_block"
            )
            if not machine.startswith(BLOCK_MACHINES):
                raise self._fail(
                    "reservation_block",
                    p.reservation_block,
                    "only applies to A3 Ultra, A4 and A4X machine types "
                    f"({', '.join(m + '*' for m in BLOCK_MACHINES)}); give the priority such a "
                    "machine_type",
                )
        if p.reservation_sub_block is not None:
            check_gke_version(
                f"{self.where}reservation_sub_block",
                p.reservation_sub_block,
                version,
                "reservation_sub_block",
            )
            if not machine.startswith(SUB_BLOCK_MACHINES):
                raise self._fail(
                    "reservation_sub_block",
                    p.reservation_sub_block,
                    "only applies to A4X machine types (a4x-highgpu-*)",
                )
        self._held(resolved)

    def _held(self, resolved: ResolvedPriority) -> None:
        """A CalendarReservation's zone and machine against the class."""
        reservation = self.p.reservation
        spec = _calendar_block(reservation)
        if spec is None:
            return
        zone = getattr(spec, "zone", None)
        if isinstance(zone, str):
            zones = self.cls.zones
            if zones and zone not in zones:
                raise self._fail(
                    "reservation",
                    f"{type(reservation).__name__} in {zone}",
                    f"is in zone {zone}, outside the class's zones ({', '.join(zones)}); add "
                    f"{zone} to zones or use a reservation in one of them",
                )
            if self.cls.location is not None:
                check_zone_in_region(
                    f"{self.where}reservation",
                    zone,
                    region_of_location("location", self.cls.location),
                )
        held = getattr(spec, "machine_type", None)
        if (
            isinstance(held, str)
            and resolved.machine_type is not None
            and held != resolved.machine_type
        ):
            raise self._fail(
                "reservation",
                f"{type(reservation).__name__} of {held}",
                f"holds {held} VMs; the priority's machine type is {resolved.machine_type}",
            )
        generation = getattr(spec, "tpu_version", None)
        if isinstance(generation, str) and (
            resolved.tpu is None
            or catalog.tpu_generation("tpu_version", generation) != resolved.tpu.generation
        ):
            raise self._fail(
                "reservation",
                f"{type(reservation).__name__} of TPU {generation}",
                "holds TPU chips of another generation than the priority's machine",
            )

    def _flex_start_rules(self, resolved: ResolvedPriority) -> None:
        p, version = self.p, self.cls.gke_version
        feature = "flex_start_tpu" if resolved.tpu is not None else "flex_start"
        check_gke_version(f"{self.where}capacity", "flex_start", version, feature)
        if resolved.tpu is not None and resolved.tpu.multi_host:
            raise self._fail(
                "tpu_topology",
                resolved.tpu.topology,
                f"is a multi-host slice ({resolved.tpu.vms} VMs); Flex-start provisions TPUs in "
                "single-host slices only: use a topology of one VM "
                f"({resolved.tpu.machine.single_host_topology}) or queued provisioning",
            )
        machine = resolved.machine_type
        if machine is not None and resolved.tpu is None:
            try:
                catalog.check_flex_start("machine_type", machine)
            except DwsValidationError as err:
                raise self._fail("machine_type", machine, err.problem) from None
        if p.placement_policy is not None and not (
            machine is not None and catalog.compact_with_flex_start(machine)
        ):
            raise self._fail(
                "placement_policy",
                p.placement_policy,
                "is not allowed with Flex-start on this machine: compact placement with "
                "Flex-start is only supported for A3 Ultra, A4 and H4D machine types",
            )
