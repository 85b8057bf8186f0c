"""The arguments of :class:`~pulumi_dws.ComputeClass` and their validated form: the class's
fields and its typed priorities (the checks that need the class and a priority together are
in :mod:`.checks`)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Annotated, Any, Literal

from pydantic import model_validator

from ... import catalog, limits
from ...duration import Duration
from ...errors import DwsValidationError
from ...fields import Check, DurationWithin, Known, MaybeOutput, OneOf, ProjectId, Zones
from ...models import DwsModel
from ...validation import check_zone_in_region, is_output, region_of_location
from ..node_pool.component import check_cluster
from . import limits as _rows  # noqa: F401 (registers the kind's limits rows)
from .args import ComputeClassArgs, PriorityArgs
from .checks import PriorityRules, ResolvedPriority, shown
from .versions import FEATURES, check_gke_version, supports

__all__ = [
    "API_VERSION",
    "KIND",
    "COMPUTE_CLASS_LABEL",
    "CAPACITIES",
    "ComputeClassArgs",
    "ComputeClassSpec",
    "PriorityArgs",
    "PrioritySpec",
    "SHARED_RESERVATION",
    "check_class_name",
]

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
_DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?\Z")
SHARED_RESERVATION = re.compile(
    r"^projects/([a-z][-a-z0-9]{4,28}[a-z0-9])/reservations/([a-z][-a-z0-9]*)\Z"
)
_RESOURCE_NAME = re.compile(r"^[a-z]([-a-z0-9]{0,61}[a-z0-9])?\Z")
_PROJECT = re.compile(r"^[a-z][-a-z0-9]{4,28}[a-z0-9]\Z")


def check_class_name(field: str, value: Any) -> str:
    """A ComputeClass name: a DNS label (it is a node label value), not gke* or autopilot*."""
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
    """A whole number (``8``, or ``8.0`` as YAML and the engine give numbers) >= ``at_least``."""
    try:
        number = limits.as_whole_number(field, value)
    except DwsValidationError:
        number = at_least - 1
    if number < at_least:
        raise DwsValidationError(field, value, f"must be a whole number >= {at_least}")
    return number


def _gpu_count(field: str, value: Any) -> int:
    return _whole(field, value)


def _reservation(field: str, value: Any) -> Any:
    if value is None or is_output(value) or hasattr(value, "reservation_name"):
        return value
    if isinstance(value, str):
        if SHARED_RESERVATION.match(value) or _RESOURCE_NAME.match(value):
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


_RunDuration = Annotated[Duration, DurationWithin("compute_class.max_run_duration")]
_FLEX_RUN = "compute_class.flex_start_max_run_duration"
_LeadTime = Annotated[Duration, DurationWithin("compute_class.lead_time")]


class PrioritySpec(DwsModel):
    """One priority rule, tried in order.

    ``capacity``: ``reservation`` (``reservation``: a CalendarReservation or a reservation name,
    optionally ``reservation_block``/``reservation_sub_block``), ``any_reservation`` (any
    matching reservation, then on-demand), ``flex_start`` (``max_run_duration`` up to 7 days,
    ``node_recycling_lead_time``), ``spot``, ``on_demand``, or ``node_pools`` (existing pools,
    Standard clusters only). The machine fields override the class's.
    """

    # The one declaration of each field: PriorityArgs is generated from it (scripts/generate.py).

    # A priority's ``reservation`` may be an Output (``gcp.compute.Reservation(...).name``),
    # checked once known, though the list of priorities is known
    # (:attr:`~pulumi_dws.models.DwsModel.outputs_within`); every other field of a priority is
    # checked with the class at construction, so it is declared Known.
    outputs_within = True

    capacity: Annotated[str, OneOf(CAPACITIES), Known("it decides the priority's fields")]
    """The kind of capacity the rule asks for: ``reservation``, ``any_reservation``, ``flex_start``,
    ``spot``, ``on_demand`` or ``node_pools``."""
    reservation: Annotated[Any, Check(_reservation)] = None
    """Capacity ``reservation``: a :class:`~pulumi_dws.CalendarReservation`, a reservation name, or
    ``projects/P/reservations/NAME`` (shared)."""
    reservation_project: (
        Annotated[str, Check(_project), Known("it is checked with the reservation")] | None
    ) = None
    """Capacity ``reservation``: the project that owns the reservation (default: the name's, or the
    cluster's)."""
    reservation_block: (
        Annotated[str, Check(_resource_name), Known("it is checked against the machine")] | None
    ) = None
    """Capacity ``reservation``: one block of the reservation (A3 Ultra, A4 and A4X)."""
    reservation_sub_block: (
        Annotated[str, Check(_resource_name), Known("it is checked against the machine")] | None
    ) = None
    """Capacity ``reservation``: one sub-block of ``reservation_block`` (A4X)."""
    machine_type: Annotated[str, Check(_machine), Known("it decides the node shape")] | None = None
    """A GPU or TPU machine type of the catalog (default: the class's)."""
    machine_family: Annotated[str, Check(_family), Known("it decides the node shape")] | None = None
    """A machine family (``a3``, ``n4``), with ``gpu_type`` and ``gpu_count`` (default: the
    class's)."""
    gpu_type: Annotated[str, Known("it is checked against the machine")] | None = None
    """The GPU type (default: the machine type's, or the class's)."""
    gpu_count: Annotated[int, Check(_gpu_count), Known("it decides the node shape")] | None = None
    """GPUs per node (default: the machine type's, or the class's)."""
    tpu_topology: Annotated[str, Known("it decides the TPU slice")] | None = None
    """A TPU machine type's slice topology (``2x4``; default: the class's)."""
    max_run_duration: (
        Annotated[_RunDuration, Known("it is checked against the capacity's limit")] | None
    ) = None
    """How long the rule's nodes run (``maxRunDurationSeconds``; at most 7 days with
    ``flex_start``); not with ``node_pools``."""
    node_recycling_lead_time: (
        Annotated[_LeadTime, Known("it is checked against max_run_duration")] | None
    ) = None
    """Capacity ``flex_start``: how long before a node's end GKE starts looking for its replacement
    (shorter than ``max_run_duration``)."""
    placement_policy: (
        Annotated[str, Check(_resource_name), Known("it is checked against the machine")] | None
    ) = None
    """A compact placement policy's name (with Flex-start: A3 Ultra, A4 or H4D only)."""
    node_pools: (
        Annotated[list[str], Check(_node_pools), Known("they are the whole rule")] | None
    ) = None
    """Capacity ``node_pools``: existing node pools, by name (Standard clusters; nothing else goes
    in the rule)."""

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
                name, shown(getattr(self, name)), f"only applies to capacity {_owner(name)}"
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
                    shown(getattr(self, others[0])),
                    "is not allowed with capacity node_pools: a nodepools rule takes nothing "
                    "else (the pools' own settings apply)",
                )
        if self.capacity == "flex_start" and self.max_run_duration is not None:
            limits.get(_FLEX_RUN).check(
                "max_run_duration",
                self.max_run_duration.seconds,
                shown=self.max_run_duration.human(),
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


class ComputeClassSpec(DwsModel):
    """Arguments of :class:`ComputeClass`.

    ``priorities`` in order (at least one). ``machine_type`` (GPU or TPU, with
    ``tpu_topology``), or ``machine_family`` with ``gpu_type`` and ``gpu_count``, apply to
    every priority that sets none. ``zones``: where GKE may create nodes (``priorityDefaults``).
    ``gke_version``: the cluster's version, to check each field against the version that
    serves it. ``cluster``/``location``/``project`` build a Kubernetes provider unless one comes
    through ``opts``. ``name`` is the class's name (default: the component's).
    """

    # The one declaration of each field: ComputeClassArgs is generated from it (python
    # scripts/generate.py). Also the shape of this kind's dws:capacity entries.

    priorities: Annotated[list[PrioritySpec], Known("each priority becomes a rule of the class")]
    """The rules GKE tries in order when a Pod that selects the class needs a node (at least
    one)."""
    machine_type: Annotated[str, Check(_machine), Known("it decides the node shape")] | None = None
    """A GPU or TPU machine type of the catalog, for every priority that sets no machine."""
    machine_family: Annotated[str, Check(_family)] | None = None
    """A machine family, with ``gpu_type`` and ``gpu_count``, for every priority that sets no
    machine."""
    gpu_type: Annotated[str, Known("it is checked against the machine")] | None = None
    """The GPU type, for every priority that sets none."""
    gpu_count: Annotated[int, Check(_gpu_count)] | None = None
    """GPUs per node, for every priority that sets none."""
    gpu_driver_version: Annotated[str, OneOf(DRIVER_VERSIONS)] | None = None
    """The GPU driver GKE installs (``gpu.driverVersion``: ``default`` or ``latest``)."""
    tpu_topology: Annotated[str, Known("it decides the TPU slice")] | None = None
    """A TPU machine type's slice topology, for every priority that sets none."""
    zones: Annotated[Zones, Known("they are checked against the reservations")] | None = None
    """Where GKE may create the class's nodes (``priorityDefaults.location.zones``), in the
    cluster's region."""
    node_pool_auto_creation: bool = True
    """Let GKE create node pools for the class (default True; reservations need it)."""
    active_migration: bool = False
    """Move workloads to a higher priority's nodes when they come back
    (``activeMigration.optimizeRulePriority``; default False)."""
    when_unsatisfiable: Annotated[str, OneOf(WHEN_UNSATISFIABLE)] = "DoNotScaleUp"
    """What GKE does when no priority can be met: ``DoNotScaleUp`` (default) or
    ``ScaleUpAnyway``."""
    gke_version: Annotated[str, Known("each field is checked against it")] | None = None
    """The cluster's GKE version: each field is checked against the first version that serves it."""
    autopilot: bool = False
    """The cluster is an Autopilot cluster (no ``node_pools`` capacity; node pool auto-creation
    stays on)."""
    cluster_autoprovisioning: bool = False
    """The cluster has node auto-provisioning on (needed for node pool auto-creation before GKE
    1.33.3-gke.1136000)."""
    name: Annotated[str, Check(check_class_name), Known("it is the class's name")] | None = None
    """The class's name (default: the component's name; not ``gke*`` or ``autopilot*``)."""
    cluster: MaybeOutput[Annotated[str, Check(check_cluster)]] | None = None
    """The GKE cluster, to build a Kubernetes provider when none comes through ``opts`` (with
    ``location``): its name or ``projects/P/locations/L/clusters/NAME``."""
    location: str | None = None
    """The cluster's region or zone (with ``cluster``; the class's zones are checked against it)."""
    project: MaybeOutput[ProjectId] | None = None
    """The cluster's project (default: the ``gcp:project`` stack config)."""

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
            PriorityRules(self, priority, f"priorities[{i}].").check()
        if self.zones:
            check_gke_version("zones", self.zones, self.gke_version, "priority_defaults")
        if self.gpu_driver_version is not None and not any(r.gpu for r in self.resolved()):
            raise DwsValidationError(
                "gpu_driver_version",
                self.gpu_driver_version,
                "only applies to GPU priorities, and the class has no GPU priority (it would "
                "not be written)",
            )
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
            PriorityRules(self, p, f"priorities[{i}].").resolve()
            for i, p in enumerate(self.priorities)
        ]
