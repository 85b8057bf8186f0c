"""``ComputeClass``: a GKE custom ComputeClass (``cloud.google.com/v1``) built from typed
priorities, the door to Flex-start (and reservations, Spot, on-demand) for Pods on GKE.

GKE tries the priorities in order when a Pod that selects the class needs a node: a Calendar
block or named reservation first, Flex-start when it is full, Spot or on-demand after. Each
priority is one kind of capacity (``capacity``) on one machine shape: a GPU machine type (the
catalog gives its GPUs), a TPU machine type with a topology, or a machine family with a GPU
type and count; class-level ``machine_type`` & co. apply to every priority that sets none.

Pods use the class with ``nodeSelector: {cloud.google.com/compute-class: NAME}`` (the
``node_selector`` output), and a Kueue ``ResourceFlavor`` can point at it (a
:class:`~pulumi_dws.KueueQueue` flavor ``{"compute_class": cls}``).

Every rule is checked at construction, before anything is registered: the CRD's own rules
(Flex-start is not Spot, Specific affinity names a reservation, ...), the rules Google
documents (a reservation needs a machine type or family, TPU reservations are Specific,
reservation blocks are for A3 Ultra, A4 and A4X, Flex-start TPUs are single-host), the zones
of a reservation against the class's zones, and with ``gke_version`` the GKE version each field
needs (:mod:`.versions`). Sources: the CRD reference
(https://docs.cloud.google.com/kubernetes-engine/docs/reference/crds/computeclass) and "About
custom ComputeClasses"
(https://docs.cloud.google.com/kubernetes-engine/docs/concepts/about-custom-compute-classes).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Annotated, Any, Literal, TypedDict

import pulumi
import pulumi_kubernetes as kubernetes
from pydantic import model_validator
from typing_extensions import Required

from ... import catalog, limits
from ...defaults import type_token
from ...duration import Duration, DurationLike
from ...errors import DwsValidationError
from ...fields import Check, DurationWithin, Known, MaybeOutput, OneOf, Zones
from ...kube import gke_provider, has_kubernetes_provider
from ...models import DwsModel, parse_args
from ...validation import check_zone_in_region, is_output, region_of_location
from . import limits as _rows  # noqa: F401 (registers the kind's limits rows)
from .versions import FEATURES, check_gke_version, supports

__all__ = [
    "TYPE",
    "API_VERSION",
    "KIND",
    "COMPUTE_CLASS_LABEL",
    "CAPACITIES",
    "ComputeClass",
    "ComputeClassArgs",
    "ComputeClassSpec",
    "PriorityArgs",
    "PrioritySpec",
    "compute_class_manifest",
]

TYPE = type_token("ComputeClass")
API_VERSION = "cloud.google.com/v1"
KIND = "ComputeClass"
COMPUTE_CLASS_LABEL = "cloud.google.com/compute-class"
"""The node label (and nodeSelector key) that names a Pod's ComputeClass."""
Capacity = Literal[
    "reservation", "any_reservation", "flex_start", "spot", "on_demand", "node_pools"
]
CAPACITIES: tuple[str, ...] = (
    "reservation",
    "any_reservation",
    "flex_start",
    "spot",
    "on_demand",
    "node_pools",
)
DRIVER_VERSIONS = ("default", "latest")
WHEN_UNSATISFIABLE = ("DoNotScaleUp", "ScaleUpAnyway")
# Reservation blocks: A3 Ultra and A4; sub-blocks: A4X (About custom ComputeClasses, "Consume
# specific reservation blocks").
BLOCK_MACHINES = ("a3-ultragpu-", "a4-highgpu-", "a4x-highgpu-")
SUB_BLOCK_MACHINES = ("a4x-highgpu-",)
_DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?\Z")
_SHARED = re.compile(r"^projects/([a-z][-a-z0-9]{4,28}[a-z0-9])/reservations/([a-z][-a-z0-9]*)\Z")
_RESOURCE_NAME = re.compile(r"^[a-z]([-a-z0-9]{0,61}[a-z0-9])?\Z")
_PROJECT = re.compile(r"^[a-z][-a-z0-9]{4,28}[a-z0-9]\Z")


class PriorityArgs(TypedDict, total=False):
    """One priority rule, tried in order.

    ``capacity``: ``reservation`` (``reservation``: a CalendarReservation or a reservation name,
    optionally ``reservation_block``/``reservation_sub_block``), ``any_reservation`` (any
    matching reservation, then on-demand), ``flex_start`` (``max_run_duration`` up to 7 days,
    ``node_recycling_lead_time``), ``spot``, ``on_demand``, or ``node_pools`` (existing pools,
    Standard clusters only). The machine fields override the class's.
    """

    capacity: Required[Capacity]
    reservation: Any
    reservation_project: str
    reservation_block: str
    reservation_sub_block: str
    machine_type: str
    machine_family: str
    gpu_type: str
    gpu_count: int
    tpu_topology: str
    max_run_duration: DurationLike
    node_recycling_lead_time: DurationLike
    placement_policy: str
    node_pools: Sequence[str]


class ComputeClassArgs(TypedDict, total=False):
    """Arguments of :class:`ComputeClass`.

    ``priorities`` in order (at least one). ``machine_type`` (GPU or TPU, with
    ``tpu_topology``), or ``machine_family`` with ``gpu_type`` and ``gpu_count``, apply to
    every priority that sets none. ``zones``: where GKE may create nodes (``priorityDefaults``).
    ``gke_version``: the cluster's version, to check each field against the version that
    serves it. ``cluster``/``location``/``project`` build a Kubernetes provider unless one comes
    through ``opts``. ``name`` is the class's name (default: the component's).
    """

    priorities: Required[Sequence[PriorityArgs]]
    machine_type: str
    machine_family: str
    gpu_type: str
    gpu_count: int
    gpu_driver_version: str
    tpu_topology: str
    zones: Sequence[str]
    node_pool_auto_creation: bool
    active_migration: bool
    when_unsatisfiable: str
    gke_version: str
    autopilot: bool
    cluster_autoprovisioning: bool
    name: str
    cluster: pulumi.Input[str]
    location: str
    project: pulumi.Input[str]


def _class_name(field: str, value: Any) -> str:
    longest = limits.get("kubernetes.name_length").maximum or 0
    if not isinstance(value, str) or not 0 < len(value) <= longest or not _DNS_LABEL.match(value):
        raise DwsValidationError(
            field,
            value,
            f"is not a valid ComputeClass name: 1 to {longest} lowercase letters, digits or '-' "
            "(it is a node label value), starting and ending with a letter or digit",
        )
    if value.startswith(("gke", "autopilot")):
        raise DwsValidationError(
            field, value, "may not begin with gke or autopilot (GKE reserves those names)"
        )
    return value


def _whole(field: str, value: Any, at_least: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < at_least:
        raise DwsValidationError(field, value, f"must be a whole number >= {at_least}")
    return value


def _gpu_count(field: str, value: Any) -> int:
    return _whole(field, value)


def _reservation(field: str, value: Any) -> Any:
    if value is None or is_output(value) or hasattr(value, "reservation_name"):
        return value
    if isinstance(value, str):
        if _SHARED.match(value) or _RESOURCE_NAME.match(value):
            return value
        raise DwsValidationError(
            field,
            value,
            "is not a reservation name (lowercase letters, digits, '-') or "
            "projects/PROJECT/reservations/NAME",
        )
    raise DwsValidationError(field, value, "must be a CalendarReservation or a reservation name")


def _resource_name(field: str, value: Any) -> str:
    if not isinstance(value, str) or not _RESOURCE_NAME.match(value):
        raise DwsValidationError(
            field, value, "is not a Compute Engine resource name (lowercase letters, digits, '-')"
        )
    return value


def _project(field: str, value: Any) -> str:
    if not isinstance(value, str) or not _PROJECT.match(value):
        raise DwsValidationError(field, value, "is not a project id")
    return value


def _family(field: str, value: Any) -> str:
    if not isinstance(value, str) or not re.match(r"^[a-z][a-z0-9]{1,9}\Z", value):
        raise DwsValidationError(
            field, value, "is not a machine family such as a3 or n4 (at most 10 characters)"
        )
    return value


def _machine(field: str, value: Any) -> str:
    if not isinstance(value, str) or catalog.machine_accelerators(value) is None:
        raise DwsValidationError(
            field,
            value,
            "is not a known GPU or TPU machine type; use a GPU type (e.g. a3-ultragpu-8g) or a "
            f"TPU type ({', '.join(catalog.tpu_machines())}), or pulumi_dws.catalog.register() it",
        )
    return value


def _node_pools(field: str, value: Any) -> list[str]:
    if isinstance(value, str) or not isinstance(value, Sequence) or not value:
        raise DwsValidationError(field, value, "must be a non-empty list of node pool names")
    for i, pool in enumerate(value):
        _resource_name(f"{field}[{i}]", pool)
    return list(value)


_RunDuration = Annotated[Duration, DurationWithin("compute_class.flex_start_max_run_duration")]
_LeadTime = Annotated[Duration, DurationWithin("compute_class.lead_time")]


class PrioritySpec(DwsModel):
    """The validated form of :class:`PriorityArgs` (rules that need the class: the class)."""

    capacity: Annotated[str, OneOf(CAPACITIES), Known("it decides the priority's fields")]
    reservation: Annotated[Any, Check(_reservation)] = None
    reservation_project: Annotated[str, Check(_project)] | None = None
    reservation_block: Annotated[str, Check(_resource_name)] | None = None
    reservation_sub_block: Annotated[str, Check(_resource_name)] | None = None
    machine_type: Annotated[str, Check(_machine), Known("it decides the node shape")] | None = None
    machine_family: Annotated[str, Check(_family)] | None = None
    gpu_type: Annotated[str, Known("it is checked against the machine")] | None = None
    gpu_count: Annotated[int, Check(_gpu_count)] | None = None
    tpu_topology: Annotated[str, Known("it decides the TPU slice")] | None = None
    max_run_duration: _RunDuration | None = None
    node_recycling_lead_time: _LeadTime | None = None
    placement_policy: Annotated[str, Check(_resource_name)] | None = None
    node_pools: Annotated[list[str], Check(_node_pools)] | None = None

    @model_validator(mode="after")
    def _own_fields(self) -> PrioritySpec:
        given = {
            name
            for name in (
                "reservation",
                "reservation_project",
                "reservation_block",
                "reservation_sub_block",
                "node_recycling_lead_time",
                "node_pools",
            )
            if getattr(self, name) is not None
        }
        allowed = {
            "reservation": {
                "reservation",
                "reservation_project",
                "reservation_block",
                "reservation_sub_block",
            },
            "flex_start": {"node_recycling_lead_time"},
            "node_pools": {"node_pools"},
        }.get(self.capacity, set())
        for name in sorted(given - allowed):
            raise DwsValidationError(
                name, _shown(getattr(self, name)), f"only applies to capacity {_owner(name)}"
            )
        if self.capacity == "reservation" and self.reservation is None:
            raise DwsValidationError(
                "reservation",
                "(missing)",
                "is required with capacity reservation: a CalendarReservation or a reservation "
                "name (capacity any_reservation takes any matching reservation)",
            )
        if self.capacity == "node_pools":
            if self.node_pools is None:
                raise DwsValidationError(
                    "node_pools", "(missing)", "is required with capacity node_pools"
                )
            others = [
                name
                for name in (
                    "machine_type",
                    "machine_family",
                    "gpu_type",
                    "gpu_count",
                    "tpu_topology",
                    "max_run_duration",
                    "placement_policy",
                )
                if getattr(self, name) is not None
            ]
            if others:
                raise DwsValidationError(
                    others[0],
                    _shown(getattr(self, others[0])),
                    "is not allowed with capacity node_pools: a nodepools rule takes nothing "
                    "else (the pools' own settings apply)",
                )
        if self.reservation_sub_block is not None and self.reservation_block is None:
            raise DwsValidationError(
                "reservation_sub_block",
                self.reservation_sub_block,
                "needs reservation_block (a sub-block is inside a block)",
            )
        if (
            self.capacity == "flex_start"
            and self.max_run_duration is not None
            and self.node_recycling_lead_time is not None
            and self.node_recycling_lead_time >= self.max_run_duration
        ):
            raise DwsValidationError(
                "node_recycling_lead_time",
                self.node_recycling_lead_time.human(),
                f"must be shorter than max_run_duration ({self.max_run_duration.human()}): GKE "
                "starts looking for a replacement node this long before a node's end",
            )
        return self


def _owner(field: str) -> str:
    if field.startswith("reservation"):
        return "reservation"
    if field == "node_recycling_lead_time":
        return "flex_start"
    return "node_pools"


def _shown(value: Any) -> Any:
    if hasattr(value, "human"):
        return value.human()
    if value is None or isinstance(value, str | int | float | list):
        return value
    return type(value).__name__


class ComputeClassSpec(DwsModel):
    """The validated form of :class:`ComputeClassArgs`."""

    priorities: Annotated[list[PrioritySpec], Known("each priority becomes a rule of the class")]
    machine_type: Annotated[str, Check(_machine), Known("it decides the node shape")] | None = None
    machine_family: Annotated[str, Check(_family)] | None = None
    gpu_type: Annotated[str, Known("it is checked against the machine")] | None = None
    gpu_count: Annotated[int, Check(_gpu_count)] | None = None
    gpu_driver_version: Annotated[str, OneOf(DRIVER_VERSIONS)] | None = None
    tpu_topology: Annotated[str, Known("it decides the TPU slice")] | None = None
    zones: Annotated[Zones, Known("they are checked against the reservations")] | None = None
    node_pool_auto_creation: bool = True
    active_migration: bool = False
    when_unsatisfiable: Annotated[str, OneOf(WHEN_UNSATISFIABLE)] = "DoNotScaleUp"
    gke_version: Annotated[str, Known("each field is checked against it")] | None = None
    autopilot: bool = False
    cluster_autoprovisioning: bool = False
    name: Annotated[str, Check(_class_name), Known("it is the class's name")] | None = None
    cluster: MaybeOutput[str] | None = None
    location: str | None = None
    project: MaybeOutput[str] | None = None

    @model_validator(mode="after")
    def _rules(self) -> ComputeClassSpec:
        rows = limits.get("compute_class.priorities")
        if not self.priorities:
            raise DwsValidationError(
                "priorities",
                [],
                "has no usable entry: give at least one priority (capacity reservation, "
                "any_reservation, flex_start, spot, on_demand or node_pools)",
            )
        rows.check("priorities", len(self.priorities), shown=f"{len(self.priorities)} rules")
        if self.location is not None:
            region_of_location("location", self.location)
        if self.zones and self.location is not None:
            region = region_of_location("location", self.location)
            for i, zone in enumerate(self.zones):
                check_zone_in_region(f"zones[{i}]", zone, region)
        check_gke_version("gke_version", self.gke_version, self.gke_version, "compute_class")
        if self.autopilot and not self.node_pool_auto_creation:
            raise DwsValidationError(
                "node_pool_auto_creation",
                False,
                "cannot be off on Autopilot (the CRD: NodePoolAutoCreation cannot be disabled "
                "when Autopilot is enabled)",
            )
        for i, priority in enumerate(self.priorities):
            _Rule(self, priority, f"priorities[{i}].").check()
        if self.zones:
            check_gke_version("zones", self.zones, self.gke_version, "priority_defaults")
        if self.gpu_driver_version is not None:
            check_gke_version(
                "gpu_driver_version",
                self.gpu_driver_version,
                self.gke_version,
                "gpu_driver_version",
            )
        if (
            self.node_pool_auto_creation
            and not self.autopilot
            and not self.cluster_autoprovisioning
            and self.gke_version is not None
            and not supports(self.gke_version, "auto_creation_without_nap")
        ):
            first = FEATURES["auto_creation_without_nap"].since
            raise DwsValidationError(
                "node_pool_auto_creation",
                True,
                f"needs cluster-level node auto-provisioning on GKE before {first} (the cluster "
                f"runs {self.gke_version}): enable it on the cluster and pass "
                "cluster_autoprovisioning: True, or turn node_pool_auto_creation off and name "
                "your pools (capacity node_pools)",
            )
        return self

    # ------------------------------------------------------------------ derived values
    def resolved(self) -> list[ResolvedPriority]:
        """Each priority with the class's machine fields filled in."""
        return [
            _Rule(self, p, f"priorities[{i}].").resolve() for i, p in enumerate(self.priorities)
        ]


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


class _Rule:
    """One priority checked with its class: the machine it resolves to and Google's rules."""

    def __init__(self, cls: ComputeClassSpec, priority: PrioritySpec, where: str) -> None:
        self.cls = cls
        self.p = priority
        self.where = where

    def _get(self, name: str) -> Any:
        own = getattr(self.p, name)
        return own if own is not None else getattr(self.cls, name)

    def _fail(self, field: str, value: Any, problem: str) -> DwsValidationError:
        return DwsValidationError(f"{self.where}{field}", _shown(value), problem)

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
        if family is not None:
            families = sorted(
                {
                    machine.split("-")[0]
                    for machine in catalog.known()
                    if catalog.machine_shape("machine_type", machine).accelerator == accelerator
                }
            )
            if family not in families:
                raise self._fail(
                    "machine_family",
                    family,
                    f"has no {gpu_type} GPUs; {gpu_type} comes with {', '.join(families)}",
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
        spec = getattr(reservation, "spec", None)
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
        if p.placement_policy is not None and not (
            machine is not None and catalog.compact_with_flex_start(machine)
        ):
            raise self._fail(
                "placement_policy",
                p.placement_policy,
                "is not allowed with Flex-start on this machine: compact placement with "
                "Flex-start is only supported for A3 Ultra, A4 and H4D machine types",
            )


# ---------------------------------------------------------------------- the manifest
def _reservation_ref(priority: PrioritySpec) -> tuple[Any, Any]:
    """``(name, project)`` of a priority's specific reservation (either may be an Output)."""
    reservation = priority.reservation
    project: Any = priority.reservation_project
    if isinstance(reservation, str):
        shared = _SHARED.match(reservation)
        if shared:
            return shared.group(2), project or shared.group(1)
        return reservation, project
    if hasattr(reservation, "reservation_name"):
        owner = getattr(getattr(reservation, "spec", None), "project", None)
        return reservation.reservation_name, project or owner
    return reservation, project


def _priority_manifest(cls: ComputeClassSpec, resolved: ResolvedPriority) -> dict[str, Any]:
    p = resolved.spec
    if p.capacity == "node_pools":
        return {"nodepools": list(p.node_pools or [])}
    rule: dict[str, Any] = {}
    if resolved.machine_type is not None:
        rule["machineType"] = resolved.machine_type
    if resolved.machine_family is not None:
        rule["machineFamily"] = resolved.machine_family
    if resolved.gpu is not None:
        gpu: dict[str, Any] = {"type": resolved.gpu[0], "count": resolved.gpu[1]}
        if cls.gpu_driver_version is not None:
            gpu["driverVersion"] = cls.gpu_driver_version
        rule["gpu"] = gpu
    if resolved.tpu is not None:
        rule["tpu"] = {
            "type": resolved.tpu.generation.gke_accelerator,
            "count": resolved.tpu.chips_per_vm,
            "topology": resolved.tpu.topology,
        }
    if p.capacity == "spot":
        rule["spot"] = True
    if p.capacity == "flex_start":
        flex: dict[str, Any] = {"enabled": True}
        if p.node_recycling_lead_time is not None:
            flex["nodeRecycling"] = {"leadTimeSeconds": p.node_recycling_lead_time.seconds}
        rule["flexStart"] = flex
    if p.capacity == "any_reservation":
        rule["reservations"] = {"affinity": "AnyBestEffort"}
    if p.capacity == "reservation":
        name, project = _reservation_ref(p)
        specific: dict[str, Any] = {"name": name}
        if project is not None:
            specific["project"] = project
        if p.reservation_block is not None:
            block: dict[str, Any] = {"name": p.reservation_block}
            if p.reservation_sub_block is not None:
                block["reservationSubBlock"] = {"name": p.reservation_sub_block}
            specific["reservationBlock"] = block
        rule["reservations"] = {"affinity": "Specific", "specific": [specific]}
    if p.max_run_duration is not None:
        rule["maxRunDurationSeconds"] = p.max_run_duration.seconds
    if p.placement_policy is not None:
        rule["placement"] = {"policyName": p.placement_policy}
    return rule


def _manifest(spec: ComputeClassSpec, name: str) -> dict[str, Any]:
    body: dict[str, Any] = {
        "priorities": [_priority_manifest(spec, r) for r in spec.resolved()],
        "whenUnsatisfiable": spec.when_unsatisfiable,
        "nodePoolAutoCreation": {"enabled": spec.node_pool_auto_creation},
    }
    if spec.active_migration:
        body["activeMigration"] = {"optimizeRulePriority": True}
    if spec.zones:
        body["priorityDefaults"] = {"location": {"zones": list(spec.zones)}}
    return {"apiVersion": API_VERSION, "kind": KIND, "metadata": {"name": name}, "spec": body}


def compute_class_manifest(name: str, args: ComputeClassArgs) -> dict[str, Any]:
    """The ComputeClass object as a plain dict (pure: no Pulumi, no cluster); ``args`` are
    :class:`ComputeClassArgs` without the provider ones. Raises :class:`DwsValidationError`
    like the component does."""
    spec = parse_args(ComputeClassSpec, {**args, "name": args.get("name") or name})
    return _manifest(spec, spec.name or name)


class ComputeClass(pulumi.ComponentResource):
    """A GKE custom ComputeClass whose priorities reach Calendar blocks, Flex-start, Spot or
    on-demand nodes, in order.

    Outputs: ``name`` (the class's name), ``node_selector``
    (``{"cloud.google.com/compute-class": name}``, for Pods and Kueue flavors), ``manifest``
    (the object), ``resource`` (the CustomResource), ``provider`` (built when none comes
    through ``opts``), ``priorities`` (each priority's capacity, accelerator and GPUs or TPU
    chips per node), ``flex_start`` (whether a priority is Flex-start), ``tpu`` (whether the
    class's accelerators are TPU chips).
    """

    def __init__(
        self, name: str, args: ComputeClassArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        spec = parse_args(ComputeClassSpec, args)
        class_name = spec.name or _class_name("name", name)
        has_provider = has_kubernetes_provider(opts)
        if not has_provider and (spec.cluster is None or not spec.location):
            raise DwsValidationError(
                "cluster",
                "(missing)",
                "and location are required to build a Kubernetes provider when no kubernetes "
                "provider comes through opts",
            )
        super().__init__(TYPE, name, None, opts)
        self.spec = spec
        self.provider: kubernetes.Provider | None = None
        if not has_provider:
            assert spec.cluster is not None and spec.location is not None
            self.provider = gke_provider(
                f"{name}-k8s",
                spec.cluster,
                spec.location,
                spec.project,
                opts=pulumi.ResourceOptions(parent=self),
            )
        self.manifest = _manifest(spec, class_name)
        self.resource = kubernetes.apiextensions.CustomResource(
            f"{name}-compute-class",
            api_version=API_VERSION,
            kind=KIND,
            metadata=self.manifest["metadata"],
            spec=self.manifest["spec"],
            opts=pulumi.ResourceOptions(parent=self, provider=self.provider),
        )
        resolved = spec.resolved()
        self.name: str = class_name
        self.node_selector: dict[str, str] = {COMPUTE_CLASS_LABEL: class_name}
        self.resolved_priorities: list[ResolvedPriority] = resolved
        self.priorities: list[dict[str, Any]] = [
            {"capacity": r.capacity, "accelerator": r.accelerator, "per_node": r.per_node}
            for r in resolved
        ]
        self.flex_start: bool = any(r.capacity == "flex_start" for r in resolved)
        kinds = {("tpu" if r.tpu is not None else "gpu") for r in resolved if r.per_node}
        self.tpu: bool = kinds == {"tpu"}
        self.register_outputs(
            {
                "name": self.name,
                "node_selector": self.node_selector,
                "priorities": self.priorities,
                "flex_start": self.flex_start,
            }
        )
