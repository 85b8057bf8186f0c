"""``QueuedNodePool``: a GKE node pool that Dynamic Workload Scheduler fills on demand.

Three modes:

* ``"queued"`` (default): flex-start with queued provisioning (``queuedProvisioning.enabled``
  and ``node_config.flex_start``, as ``gcloud container node-pools create
  --enable-queued-provisioning --flex-start`` in GKE's current docs); nodes appear only when a
  ProvisioningRequest (created by Kueue, see :mod:`pulumi_dws.kinds.kueue`) is granted. On clusters
  older than GKE 1.32.2-gke.1652000 pass ``flex_start: False`` (queued provisioning alone).
* ``"flex_start"``: Flex-start nodes without a queue (``node_config.flex_start``); the cluster
  autoscaler asks DWS for capacity when Pods are pending. On A3 Ultra, A4 and H4D machine types
  such a pool may use compact placement (one zone).
* ``"reserved"``: nodes that consume a Calendar-mode reservation (SPECIFIC_RESERVATION affinity).

TPU pools take a TPU machine type and ``tpu_topology`` (``ct6e-standard-4t`` + ``"4x4"``: 16
chips on 4 VMs). A multi-host slice is one atomic unit that GKE creates and deletes whole, so
such a pool is one slice in one zone: compact placement with the topology, and a per-zone
maximum that equals the slice's VMs (``max_nodes`` defaults to it; more slices are more pools).
No guest accelerators are attached: the chips come with the machine type.

The inputs mean the same as what ``gcloud beta container node-pools create
--enable-queued-provisioning --flex-start --enable-autoscaling --num-nodes=0
--total-max-nodes=N --location-policy=ANY --reservation-affinity=none --no-enable-autorepair
--accelerator type=...,count=...,gpu-driver-version=latest`` sends, and every rule GKE
enforces for DWS pools is checked when the component is constructed.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Annotated, Any, Literal

import pulumi
import pulumi_gcp as gcp
from pydantic import model_validator

from ... import catalog, limits, regions
from ...defaults import default_name, type_token
from ...duration import Duration
from ...errors import DwsValidationError
from ...fields import (
    AcceleratorMachineType,
    Check,
    DurationWithin,
    Known,
    Labels,
    Location,
    MaybeOutput,
    OneOf,
    ProjectId,
    ServiceAccount,
    Within,
    Zones,
)
from ...models import DwsModel, parse_args
from ...validation import (
    check_choice,
    check_name,
    check_zone_in_region,
    is_output,
    region_of_location,
    when_known,
)
from ..calendar.consumers import check_tpu_consumer, check_vm_consumer, reservation_spec
from . import limits as _rows  # noqa: F401 (registers this kind's limit rows)
from .args import QueuedNodePoolArgs, TaintArgs

__all__ = [
    "check_cluster",
    "TYPE",
    "QueuedNodePool",
    "QueuedNodePoolArgs",
    "QueuedNodePoolSpec",
    "TaintArgs",
    "Mode",
    "MODES",
    "NODE_POOL_LABEL",
    "RESERVATION_KEY",
    "GKE_DEFAULT_SCOPES",
    "FLEX_START_MIN_GKE_VERSION",
    "TPU_FLEX_START_MIN_GKE_VERSION",
    "SERVICE_ACCOUNT_SCOPES",
    "node_pool_args",
    "reservation_affinity",
    "K8sLabels",
]

TYPE = type_token("QueuedNodePool")
Mode = Literal["queued", "flex_start", "reserved"]
MODES: tuple[str, ...] = ("queued", "flex_start", "reserved")
NODE_POOL_LABEL = "cloud.google.com/gke-nodepool"
RESERVATION_KEY = "compute.googleapis.com/reservation-name"
# What gcloud sends without --scopes: its "gke-default" alias (the Terraform provider's default).
GKE_DEFAULT_SCOPES: tuple[str, ...] = tuple(
    "https://www.googleapis.com/auth/" + s
    for s in (
        "devstorage.read_only",
        "logging.write",
        "monitoring",
        "service.management.readonly",
        "servicecontrol",
        "trace.append",
    )
)
# What gcloud sends with --service-account and no --scopes: access is governed by IAM.
SERVICE_ACCOUNT_SCOPES: tuple[str, ...] = (
    "https://www.googleapis.com/auth/cloud-platform",
    "https://www.googleapis.com/auth/userinfo.email",
)
FLEX_START_MIN_GKE_VERSION = "1.32.2-gke.1652000"
"""The first GKE version with Flex-start nodes, and so with flex-start with queued provisioning
(https://docs.cloud.google.com/kubernetes-engine/docs/how-to/provisioningrequest: "Ensure
that you have a GKE cluster in version 1.32.2-gke.1652000 or later"; "1.32.2-gke.1652000 or
later, the minimum version for nodes that use Flex-start VMs")."""
TPU_FLEX_START_MIN_GKE_VERSION = "1.33.0-gke.1712000"
"""The first GKE version with Flex-start TPU nodes (GKE "About flex-start provisioning mode",
https://docs.cloud.google.com/kubernetes-engine/docs/concepts/dws: "To run TPUs, use GKE
version 1.33.0-gke.1712000 or later")."""
_GKE_VERSION = re.compile(r"^(\d+)\.(\d+)(?:\.(\d+)(?:-gke\.(\d+))?)?\Z")
DRIVER_VERSIONS = ("LATEST", "DEFAULT", "INSTALLATION_DISABLED")
DISK_TYPES = (
    "pd-standard",
    "pd-balanced",
    "pd-ssd",
    "pd-extreme",
    "hyperdisk-balanced",
    "hyperdisk-extreme",
    "hyperdisk-throughput",
)
LOCATION_POLICIES = ("ANY", "BALANCED")
_EFFECTS = {"NoSchedule": "NO_SCHEDULE", "PreferNoSchedule": "PREFER_NO_SCHEDULE"}
_EFFECTS["NoExecute"] = "NO_EXECUTE"
_CLUSTER_ID = re.compile(r"^projects/[^/]+/(locations|zones)/[^/]+/clusters/[a-z][-a-z0-9]*\Z")
_SHARED_RESERVATION = re.compile(r"^projects/[a-z][-a-z0-9]{4,28}[a-z0-9]/reservations/(.+)\Z")
_K8S_NAME = re.compile(r"^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?\Z")
_DNS_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\Z")


def _check_k8s_key(field: str, key: str) -> str:
    prefix, _, name = key.rpartition("/")
    name_length = limits.get("kubernetes.name_length")
    prefix_length = limits.get("kubernetes.label_prefix_length").maximum or 0
    ok = (
        isinstance(key, str)
        and 0 < len(name) <= (name_length.maximum or 0)
        and _K8S_NAME.match(name) is not None
        and (not prefix or (len(prefix) <= prefix_length and _DNS_SUBDOMAIN.match(prefix)))
    )
    if not ok:
        raise DwsValidationError(
            field,
            key,
            f"is not a valid Kubernetes label key: [prefix/]name, name {name_length.allowed()} "
            f"alphanumerics, '-', '_' or '.', prefix a DNS subdomain of at most {prefix_length}",
        )
    return key


def _check_k8s_labels(field: str, labels: Mapping[str, str]) -> dict[str, str]:
    for key, value in labels.items():
        _check_k8s_key(f"{field} key", key)
        longest = limits.get("kubernetes.name_length").maximum or 0
        if not isinstance(value, str) or len(value) > longest or not _K8S_NAME.match(value):
            raise DwsValidationError(
                f"{field}[{key}]",
                value,
                f"is not a valid Kubernetes label value: up to {longest} alphanumerics, "
                "'-', '_' or '.'",
            )
    return dict(labels)


def _region(location: str) -> str:
    return region_of_location("location", location)


def _check_pool_name(field: str, value: str) -> str:
    check_name(field, value)
    limits.get("gke.node_pool_name").check(field, len(value), shown=value)
    return value


def _taint_effect(field: str, value: str) -> str:
    return check_choice(field, _EFFECTS.get(value, value), tuple(_EFFECTS.values()))


def check_cluster(field: str, value: Any) -> str:
    """A GKE cluster: its name (RFC 1035) or ``projects/P/locations/L/clusters/NAME``."""
    if not isinstance(value, str) or not value:
        raise DwsValidationError(field, value, "must be a cluster name or id")
    if "/" in value:
        if not _CLUSTER_ID.match(value):
            raise DwsValidationError(
                field, value, "is not a cluster id like projects/P/locations/L/clusters/NAME"
            )
        return value
    return check_name(field, value)


def _reservation(field: str, value: Any) -> Any:
    if value is None or reservation_spec(value) is not None or hasattr(value, "reservation_name"):
        return value
    if isinstance(value, str):
        shared = _SHARED_RESERVATION.match(value)
        check_name(field, shared.group(1) if shared else value)
        return value
    raise DwsValidationError(
        field,
        value,
        "must be a reservation name or a CalendarReservation (an object with reservation_name)",
    )


K8sLabels = Annotated[dict[str, str], Check(_check_k8s_labels, before=False)]
"""Kubernetes labels (``[prefix/]name`` keys, values of up to 63 alphanumerics, -, _ or .)."""
_BY_MODE = "it is checked against the mode's rules"
_BY_SHAPE = "it is checked against the machine type's GPUs"


class _TaintSpec(DwsModel):
    """A Kubernetes taint on every node: ``effect`` as GKE (``NO_SCHEDULE``) or kubectl
    (``NoSchedule``) spells it."""

    outputs_within = True  # its fields take Outputs

    key: Annotated[str, Check(_check_k8s_key, before=False)]
    """The taint's key (a Kubernetes label key, ``[prefix/]name``)."""
    value: str = ""
    """The taint's value (default empty)."""
    effect: Annotated[str, Check(_taint_effect, before=False)] = "NO_SCHEDULE"
    """``NO_SCHEDULE`` (default), ``PREFER_NO_SCHEDULE`` or ``NO_EXECUTE``; kubectl's spelling
    (``NoSchedule``...) is taken too."""


class QueuedNodePoolSpec(DwsModel):
    """Arguments of :class:`QueuedNodePool`.

    Required: ``cluster`` (name or ``projects/.../clusters/NAME`` id), ``location`` (the
    cluster's region or zone), ``machine_type`` (a known GPU type, e.g. ``a3-highgpu-8g``, or
    TPU type, e.g. ``ct6e-standard-4t``), ``max_nodes`` for GPU pools (total across zones).
    ``accelerator_type``/``accelerator_count`` default to what the machine type has attached
    and must match it when given (GPU pools only).

    TPU pools: ``tpu_topology`` (``"4x4"``; default: one VM's own shape) picks the slice. A
    multi-host slice needs one zone (``node_locations``, or a zonal ``location``) and its
    ``max_nodes`` (per zone) is the slice's VMs: the default, and the only value allowed.

    ``flex_start``: in mode ``queued`` the nodes are Flex-start VMs unless it is False (needed
    on clusters older than GKE 1.32.2-gke.1652000); mode ``flex_start`` implies it; mode
    ``reserved`` refuses it. ``compact_placement``: only Flex-start pools (mode ``flex_start``)
    of A3 Ultra, A4 or H4D in one zone (``node_locations`` of one zone).
    """

    # The one declaration of each field: QueuedNodePoolArgs is generated from it (python
    # scripts/generate.py). Also the shape of this kind's dws:capacity entries.

    cluster: MaybeOutput[Annotated[str, Check(check_cluster)]]
    """The GKE cluster: its name, or ``projects/P/locations/L/clusters/NAME``."""
    location: Location
    """The cluster's region or zone (``us-central1``)."""
    machine_type: Annotated[
        AcceleratorMachineType, Known("it decides the pool's GPUs or TPU chips")
    ]
    """A GPU machine type of the catalog (``a3-highgpu-8g``) or a TPU one (``ct6e-standard-4t``)."""
    max_nodes: MaybeOutput[Annotated[int, Within("gke.max_nodes")]] | None = None
    """GPU pools: the most nodes, in total across zones (required). TPU pools: the nodes per zone,
    which must be the slice's VMs (the default)."""
    tpu_topology: Annotated[str | None, Known("it decides the TPU slice's VMs and placement")] = (
        None
    )
    """TPU pools: the slice's topology (``4x4``; default: one VM's own shape)."""
    mode: Annotated[str, OneOf(MODES), Known("it decides which node pool settings apply")] = (
        "queued"
    )
    """``queued`` (default): flex-start with queued provisioning, nodes come when Kueue's
    ProvisioningRequest is granted; ``flex_start``: Flex-start nodes without a queue; ``reserved``:
    nodes that consume ``reservation``."""
    accelerator_type: Annotated[str | None, Known(_BY_SHAPE)] = None
    """GPU pools: the GPU type (default: the machine type's; must match it)."""
    accelerator_count: Annotated[int | None, Known(_BY_SHAPE)] = None
    """GPU pools: GPUs per node (default: the machine type's; must match it)."""
    name: Annotated[str, Check(_check_pool_name, before=False)] | None = None
    """Name of the node pool (default: the component's name)."""
    project: MaybeOutput[ProjectId] | None = None
    """Project (default: the ``gcp:project`` stack config)."""
    node_locations: Annotated[
        Zones | None,
        Known("its zones are checked against the location and the slice", outputs_in_items=True),
    ] = None
    """Zones of the pool, in the cluster's region (default: GKE's; a multi-host TPU slice needs
    exactly one)."""
    gpu_driver_version: Annotated[str, OneOf(DRIVER_VERSIONS, upper=True)] | None = None
    """GPU pools: the driver GKE installs (default ``LATEST``; ``INSTALLATION_DISABLED`` to install
    your own)."""
    max_run_duration: (
        MaybeOutput[Annotated[Duration, DurationWithin("gke.max_run_duration")]] | None
    ) = None
    """How long a node runs before GKE deletes it (at most 7 days)."""
    labels: K8sLabels = {}
    """Kubernetes labels on every node."""
    resource_labels: MaybeOutput[Labels] = {}
    """Google Cloud labels on the nodes' VMs."""
    taints: Annotated[list[_TaintSpec], Known("each taint is written into the pool")] = []
    """Kubernetes taints on every node."""
    service_account: MaybeOutput[ServiceAccount] | None = None
    """Service account email of the nodes (default: the Compute default one)."""
    oauth_scopes: Annotated[
        list[str] | None, Known("they are written into the pool", outputs_in_items=True)
    ] = None
    """OAuth scopes of the nodes (default: GKE's default scopes; ``cloud-platform`` and
    ``userinfo.email`` with ``service_account``, as gcloud)."""
    disk_size_gb: Annotated[int, Within("gke.disk_size_gb")] | None = None
    """Boot disk size of each node in GB (default: GKE's)."""
    disk_type: Annotated[str, OneOf(DISK_TYPES)] | None = None
    """Boot disk type of each node (default: GKE's)."""
    image_type: str | None = None
    """Node image (``COS_CONTAINERD``; default: GKE's)."""
    version: str | None = None
    """GKE version of the nodes (default: the cluster's); checked against the first version with
    Flex-start nodes."""
    auto_upgrade: bool = False
    """Let GKE upgrade the nodes (default False)."""
    flex_start: bool | None = None
    """Mode ``queued``: False for queued provisioning without Flex-start nodes (clusters older than
    GKE 1.32.2-gke.1652000). Implied by mode ``flex_start``, refused by mode ``reserved``."""
    reservation: Annotated[Any, Check(_reservation)] = None
    """Mode ``reserved``: the reservation the nodes consume: a
    :class:`~pulumi_dws.CalendarReservation`, a name, or ``projects/P/reservations/NAME``
    (shared)."""
    spot: bool = False
    """Refused: DWS pools can't use Spot VMs (accepted only to say so)."""
    compact_placement: bool = False
    """Compact placement: TPU slices, and Flex-start pools (mode ``flex_start``) of A3 Ultra, A4 or
    H4D in one zone."""
    min_nodes: Annotated[int, Known(_BY_MODE)] = 0
    """Mode ``reserved``: the fewest nodes kept; the other modes need 0."""
    initial_node_count: Annotated[int, Known(_BY_MODE)] = 0
    """Nodes at creation; the modes ``queued`` and ``flex_start`` need 0."""
    location_policy: Annotated[str, OneOf(LOCATION_POLICIES, upper=True), Known(_BY_MODE)] = "ANY"
    """How the autoscaler spreads nodes over zones; the modes ``queued`` and ``flex_start`` need
    ``ANY``."""
    auto_repair: bool = False
    """Let GKE repair nodes; the modes ``queued`` and ``flex_start`` need it off."""

    # ------------------------------------------------------------------ cross-field rules
    @model_validator(mode="after")
    def _rules(self) -> QueuedNodePoolSpec:
        region = _region(self.location)
        for i, zone in enumerate(self.node_locations or []):
            check_zone_in_region(f"node_locations[{i}]", zone, region)
        if self.is_tpu:
            self._tpu_rules()
        else:
            self._gpu_rules()
        self._mode_rules()
        return self

    def _gpu_rules(self) -> None:
        if self.tpu_topology is not None:
            raise DwsValidationError(
                "tpu_topology",
                self.tpu_topology,
                f"only applies to TPU machine types; {self.machine_type} is a GPU machine type",
            )
        if self.max_nodes is None:
            raise DwsValidationError(
                "max_nodes", "(missing)", "is required for a GPU pool (the total across zones)"
            )
        shape = self.shape
        if (
            self.accelerator_type is not None
            and catalog.accelerator("accelerator_type", self.accelerator_type) != shape.accelerator
        ):
            raise DwsValidationError(
                "accelerator_type",
                self.accelerator_type,
                f"does not match {self.machine_type}, which has "
                f"{shape.accelerator.compute_name} attached; use that or omit it",
            )
        if self.accelerator_count is not None and self.accelerator_count != shape.gpus:
            raise DwsValidationError(
                "accelerator_count",
                self.accelerator_count,
                f"does not match {self.machine_type}, which has {shape.gpus} GPUs attached; "
                f"use {shape.gpus} or omit it",
            )

    def _tpu_rules(self) -> None:
        """A TPU pool: the slice from the catalog, no guest accelerators, and a multi-host
        slice as one atomic unit in one zone."""
        for field in ("accelerator_type", "accelerator_count", "gpu_driver_version"):
            value = getattr(self, field)
            if value is not None:
                raise DwsValidationError(
                    field,
                    value,
                    f"is not allowed with the TPU machine type {self.machine_type}: TPU pools "
                    "carry no guest accelerators (the chips come with the machine type)",
                )
        tpu = self.tpu
        assert tpu is not None
        self._tpu_door_rules(tpu)
        if not tpu.multi_host:
            return
        what = f"a multi-host TPU pool ({tpu.topology} on {self.machine_type}: {tpu.vms} VMs)"
        if self.tpu_zones is None or len(self.tpu_zones) != 1:
            raise DwsValidationError(
                "node_locations",
                self.node_locations or "(missing)",
                f"must be exactly one zone for {what}: a slice's VMs are placed together "
                "(compact placement) in one zone",
            )
        if isinstance(self.max_nodes, int) and self.max_nodes != tpu.vms:
            raise DwsValidationError(
                "max_nodes",
                self.max_nodes,
                f"is not allowed for {what}: GKE creates and deletes a slice's VMs as one unit, "
                f"so the pool's maximum is the slice's {tpu.vms} VMs (omit max_nodes); for "
                "more slices, make one pool per slice",
            )
        if self.min_nodes not in (0, tpu.vms):
            raise DwsValidationError(
                "min_nodes",
                self.min_nodes,
                f"is not allowed for {what}: a slice has all its {tpu.vms} VMs or none "
                f"(use 0 or {tpu.vms})",
            )

    def _tpu_door_rules(self, tpu: catalog.TpuSlice) -> None:
        """The generation where GKE offers it: Flex-start TPU nodes in the zones of GKE's
        flex-start page, other pools where the generation is (catalog tables); and the GKE
        version the generation or Flex-start TPU nodes need."""
        door = "gke_flex_start" if self.uses_flex_start else "tpu"
        hint = (
            "pass flex_start: False (queued provisioning without Flex-start) or use mode reserved"
            if self.mode == "queued"
            else "use mode queued with flex_start: False, or mode reserved"
        )
        catalog.check_tpu_door("machine_type", self.machine_type, tpu.generation, door, hint=hint)
        if self.mode == "reserved" and reservation_spec(self.reservation) is not None:
            return  # the reservation's zone and generation are checked against the pool
        zones = self.tpu_zones or []
        where = "node_locations" if self.node_locations else "location"
        for i, zone in enumerate(zones):
            field = f"node_locations[{i}]" if self.node_locations else where
            catalog.check_tpu_zone(field, zone, tpu.generation, door)
        if not zones:  # a regional pool: GKE picks its zones, one of the door's at least
            catalog.check_tpu_region("location", self.location, tpu.generation, door)
        if tpu.generation.name == "tpu7x":
            catalog.check_gke_version(
                "version", self.version, "tpu7x", "TPU7x nodes", "use a newer version"
            )

    def _mode_rules(self) -> None:
        what = {
            "queued": "queued provisioning",
            "flex_start": "Flex-start node pools",
            "reserved": "reservation-bound node pools",
        }[self.mode]
        if self.spot:
            raise DwsValidationError(
                "spot", True, f"is not allowed: {what} can't use Spot VMs; remove spot"
            )
        if self.compact_placement:
            self._compact_rules(what)
        if self.mode == "flex_start" and self.flex_start is False:
            raise DwsValidationError(
                "flex_start",
                False,
                "is not allowed with mode flex_start (its nodes are Flex-start VMs); use mode "
                "queued with flex_start False for queued provisioning without Flex-start",
            )
        if self.uses_flex_start:
            if not self.is_tpu:
                catalog.check_flex_start("machine_type", self.machine_type)
            self._flex_start_version_rule()
        if self.mode == "reserved":
            if self.reservation is None:
                raise DwsValidationError(
                    "reservation", "(missing)", "is required with mode reserved"
                )
            if self.flex_start:
                raise DwsValidationError(
                    "flex_start",
                    True,
                    "is not allowed with mode reserved (nodes are reservation-bound)",
                )
            self._reservation_rules()
            if self.min_nodes < 0:
                raise DwsValidationError("min_nodes", self.min_nodes, "must be >= 0")
            if isinstance(self.max_nodes, int) and self.min_nodes > self.max_nodes:
                raise DwsValidationError(
                    "min_nodes", self.min_nodes, f"is above max_nodes ({self.max_nodes})"
                )
            return
        if self.reservation is not None:
            raise DwsValidationError(
                "reservation",
                _shown_reservation(self.reservation),
                f"is not allowed with mode {self.mode}: {what} requires reservation "
                "affinity NO_RESERVATION; use mode reserved to consume a reservation",
            )
        fixed: list[tuple[str, Any, Any, str]] = [
            ("min_nodes", self.min_nodes, 0, "total minimum node count 0"),
            ("initial_node_count", self.initial_node_count, 0, "initial node count 0"),
            ("location_policy", self.location_policy, "ANY", "location policy ANY"),
            ("auto_repair", self.auto_repair, False, "auto-repair off"),
        ]
        for field, value, required, rule in fixed:
            if value != required:
                raise DwsValidationError(
                    field, value, f"is not allowed: {what} requires {rule} (use {required})"
                )

    def _compact_rules(self, what: str) -> None:
        """Compact placement: TPU pools, and Flex-start pools (no queue) of A3 Ultra, A4 or
        H4D, in one zone (Cluster Toolkit ``gke-node-pool`` preconditions); never queued
        provisioning or reservation-bound pools with GPUs."""
        if self.is_tpu:
            zones = self.tpu_zones
            if zones is None or len(zones) != 1:
                raise DwsValidationError(
                    "node_locations",
                    self.node_locations or "(missing)",
                    "must be exactly one zone with compact_placement (compact placement is only "
                    "available for node pools in a single zone)",
                )
            return
        if self.mode != "flex_start":
            raise DwsValidationError(
                "compact_placement",
                True,
                f"is not allowed: {what} with GPUs can't use compact placement (TPUs only); "
                "Flex-start pools (mode flex_start) of A3 Ultra, A4 or H4D can",
            )
        if not catalog.compact_with_flex_start(self.machine_type):
            raise DwsValidationError(
                "compact_placement",
                True,
                f"is not allowed with {self.machine_type}: compact placement with Flex-start is "
                "only supported for A3 Ultra, A4 and H4D machine types "
                f"({', '.join(p + '*' for p in catalog.COMPACT_FLEX_START_PREFIXES)})",
            )
        if not self.node_locations or len(self.node_locations) != 1:
            raise DwsValidationError(
                "node_locations",
                self.node_locations or "(missing)",
                "must be exactly one zone with compact_placement (compact placement is only "
                "available for node pools in a single zone)",
            )

    def _flex_start_version_rule(self) -> None:
        """Refuse a node ``version`` older than the first one with Flex-start nodes."""
        match = _GKE_VERSION.match(self.version) if isinstance(self.version, str) else None
        if match is None:
            return
        given = tuple(int(part) for part in match.groups() if part is not None)
        first_version = (
            TPU_FLEX_START_MIN_GKE_VERSION if self.is_tpu else FLEX_START_MIN_GKE_VERSION
        )
        what = "Flex-start TPU nodes" if self.is_tpu else "Flex-start nodes"
        first = tuple(int(part) for part in re.findall(r"\d+", first_version))
        if given < first[: len(given)]:
            hint = (
                "pass flex_start: False (queued provisioning without Flex-start)"
                if self.mode == "queued"
                else "use a newer version"
            )
            raise DwsValidationError(
                "version",
                self.version,
                f"is older than {first_version}, the first GKE version with {what}; {hint}",
            )

    def _reservation_rules(self) -> None:
        machine = _reservation_attr(self.reservation, "machine_type")
        version = _reservation_attr(self.reservation, "tpu_version")
        tpu = self.tpu
        if version is not None:
            held = catalog.tpu_generation("reservation tpu_version", version)
            if tpu is None or tpu.generation != held:
                raise DwsValidationError(
                    "machine_type",
                    self.machine_type,
                    f"does not match the reservation, which holds {held.title} chips; use a "
                    f"{held.name} machine type "
                    f"({', '.join(m for m in catalog.tpu_machines() if _gen(m) == held)})",
                )
        if machine is not None and machine != self.machine_type:
            raise DwsValidationError(
                "machine_type",
                self.machine_type,
                f"does not match the reservation, which holds {machine} VMs; use {machine}",
            )
        zone = _reservation_attr(self.reservation, "zone")
        if zone is not None and self.node_locations and self.node_locations != [zone]:
            raise DwsValidationError(
                "node_locations",
                self.node_locations,
                f"must be [{zone}], the reservation's zone (or omit it)",
            )
        if zone is not None:
            check_zone_in_region("reservation zone", zone, _region(self.location))
        self._reservation_size()

    def _reservation_size(self) -> None:
        """The pool holds no more than the reservation: a GPU pool's ``max_nodes`` VMs, a TPU
        pool's chips (its nodes times the chips per VM)."""
        tpu = self.tpu
        nodes = self.node_count
        if tpu is None:
            check_vm_consumer(
                self.reservation,
                machine_type=self.machine_type,
                count=nodes,
                fields=("machine_type", "max_nodes", "node_locations"),
                what="VMs (the pool's max_nodes may not exceed them)",
            )
            return
        chips = nodes * tpu.chips_per_vm if isinstance(nodes, int) else None
        check_tpu_consumer(
            self.reservation,
            generation=tpu.generation,
            chips=chips,
            fields=(
                "machine_type",
                "tpu_topology" if tpu.multi_host else "max_nodes",
                "node_locations",
            ),
            value=self.machine_type,
            chips_shown=tpu.topology if tpu.multi_host else nodes,
        )

    # ------------------------------------------------------------------ derived values
    @property
    def is_tpu(self) -> bool:
        """Whether ``machine_type`` is a TPU machine type."""
        return catalog.is_tpu_machine(self.machine_type)

    @property
    def shape(self) -> catalog.MachineShape:
        """The GPU shape of ``machine_type`` (a GPU pool's)."""
        return catalog.machine_shape("machine_type", self.machine_type)

    @property
    def tpu(self) -> catalog.TpuSlice | None:
        """The TPU slice of a TPU pool (``machine_type`` and ``tpu_topology``), else None."""
        if not self.is_tpu:
            return None
        return catalog.tpu_slice(self.machine_type, self.tpu_topology)

    @property
    def tpu_zones(self) -> list[str] | None:
        """The zones a TPU pool's nodes go to: ``node_locations``, else the reservation's zone,
        else a zonal ``location``."""
        if self.node_locations:
            return list(self.node_locations)
        reserved = _reservation_zones(self)
        if reserved:
            return reserved
        return [self.location] if regions.is_zone(self.location) else None

    @property
    def node_count(self) -> Any:
        """The pool's maximum nodes: ``max_nodes``, else (a TPU pool) one slice's VMs."""
        if self.max_nodes is not None:
            return self.max_nodes
        tpu = self.tpu
        return tpu.vms if tpu is not None else None

    @property
    def uses_flex_start(self) -> bool:
        """True when nodes are Flex-start VMs (``node_config.flex_start``): mode flex_start,
        and mode queued unless ``flex_start`` is False."""
        if self.mode == "flex_start":
            return True
        if self.mode == "queued":
            return self.flex_start is not False
        return False


def _gen(machine_type: str) -> catalog.TpuGeneration:
    return catalog.tpu_machine("machine_type", machine_type).generation


def _shown_reservation(value: Any) -> Any:
    return value if isinstance(value, str) else type(value).__name__


def reservation_affinity(reservation: Any, consumer_project: Any = None) -> dict[str, Any]:
    """The node pool ``reservation_affinity`` that consumes ``reservation``.

    ``reservation`` is a reservation name (or ``projects/P/reservations/NAME`` for a shared
    one), an ``Output[str]``, or an object with a ``reservation_name`` Output such as
    :class:`~pulumi_dws.CalendarReservation` (its ``gke_reservation_affinity()`` is used when
    it has one; ``consumer_project`` is passed on so a shared reservation is named in full).
    """
    plain = isinstance(reservation, str) or is_output(reservation)
    helper = None if plain else getattr(reservation, "gke_reservation_affinity", None)
    if callable(helper):
        given = dict(helper(consumer_project) if isinstance(consumer_project, str) else helper())
        return {
            "consume_reservation_type": given.get("consume_reservation_type"),
            "key": given.get("key"),
            "values": list(given.get("values") or []),
        }
    name = reservation if plain else reservation.reservation_name
    return {
        "consume_reservation_type": "SPECIFIC_RESERVATION",
        "key": RESERVATION_KEY,
        "values": [name],
    }


def _reservation_attr(reservation: Any, attr: str) -> Any:
    """A plain attribute of a reservation object (or of its ``spec``), else None."""
    if isinstance(reservation, str) or is_output(reservation):
        return None
    for holder in (reservation, getattr(reservation, "spec", None)):
        value = getattr(holder, attr, None) if holder is not None else None
        if isinstance(value, str):
            return value
    return None


def node_pool_args(
    spec: QueuedNodePoolSpec, pool_name: str, max_nodes: Any = None
) -> dict[str, Any]:
    """The keyword arguments of ``gcp.container.NodePool`` for ``spec`` (pure; no resources).

    ``max_nodes`` overrides ``spec.max_nodes`` (the component passes a checked Output).

    A multi-host TPU pool is one slice: per-zone autoscaling limits (GKE checks the slice's
    size against the per-zone maximum and refuses a total-only one) and placement
    ``{type: COMPACT, tpu_topology}`` (pulumi-gcp requires the ``type``).
    """
    reserved = spec.mode == "reserved"
    tpu = spec.tpu
    if spec.oauth_scopes is not None:
        scopes = list(spec.oauth_scopes)
    else:
        scopes = list(SERVICE_ACCOUNT_SCOPES if spec.service_account else GKE_DEFAULT_SCOPES)
    node_config: dict[str, Any] = {
        "machine_type": spec.machine_type,
        "reservation_affinity": (
            reservation_affinity(spec.reservation, spec.project)
            if reserved
            else {"consume_reservation_type": "NO_RESERVATION"}
        ),
        "oauth_scopes": scopes,
    }
    optional = {
        "flex_start": True if spec.uses_flex_start else None,
        "max_run_duration": _proto_duration(spec.max_run_duration),
        "labels": spec.labels or None,
        "resource_labels": spec.resource_labels or None,
        "taints": [t.model_dump() for t in spec.taints] or None,
        "service_account": spec.service_account,
        "disk_size_gb": spec.disk_size_gb,
        "disk_type": spec.disk_type,
        "image_type": spec.image_type,
    }
    node_config.update({k: v for k, v in optional.items() if v is not None})
    if tpu is None:
        shape = spec.shape
        accelerator = {
            "type": shape.accelerator.compute_name,
            "count": shape.gpus,
            "gpu_driver_installation_config": {
                "gpu_driver_version": spec.gpu_driver_version or "LATEST"
            },
        }
        node_config = {"guest_accelerators": [accelerator], **node_config}
    limit = spec.node_count if max_nodes is None else max_nodes
    multi_host = tpu is not None and tpu.multi_host
    scope = "" if multi_host else "total_"
    args: dict[str, Any] = {
        "name": pool_name,
        "cluster": spec.cluster,
        "location": spec.location,
        "initial_node_count": spec.initial_node_count,
        "autoscaling": {
            f"{scope}min_node_count": spec.min_nodes,
            f"{scope}max_node_count": limit,
            "location_policy": spec.location_policy,
        },
        "management": {"auto_repair": spec.auto_repair, "auto_upgrade": spec.auto_upgrade},
        "node_config": node_config,
    }
    if spec.mode == "queued":
        args["queued_provisioning"] = {"enabled": True}
    if multi_host:
        assert tpu is not None
        args["placement_policy"] = {"type": "COMPACT", "tpu_topology": tpu.topology}
    elif spec.compact_placement:
        args["placement_policy"] = {"type": "COMPACT"}
    node_locations = spec.tpu_zones if multi_host else None
    node_locations = node_locations or spec.node_locations or _reservation_zones(spec)
    for key, value in (
        ("project", spec.project),
        ("node_locations", node_locations),
        ("version", spec.version),
    ):
        if value is not None:
            args[key] = value
    return args


def _reservation_zones(spec: QueuedNodePoolSpec) -> list[str] | None:
    zone = _reservation_attr(spec.reservation, "zone") if spec.mode == "reserved" else None
    return [zone] if zone else None


def _proto_duration(value: Any) -> Any:
    if value is None:
        return None
    if is_output(value):
        return value.apply(
            lambda v: limits.check_duration(
                "max_run_duration", v, "gke.max_run_duration"
            ).to_proto_string()
        )
    return Duration.parse(value, "max_run_duration").to_proto_string()


class QueuedNodePool(pulumi.ComponentResource):
    """A GKE node pool for Dynamic Workload Scheduler capacity (queued, Flex-start or reserved).

    Outputs: ``node_pool`` (the ``gcp.container.NodePool``), ``name`` (pool name),
    ``gpus_total`` (``max_nodes`` x GPUs per node; 0 for a TPU pool), ``tpu_chips_total``
    (``max_nodes`` x TPU chips per node; 0 for a GPU pool), ``node_selector``
    (``{"cloud.google.com/gke-nodepool": name}``, for Kueue ResourceFlavors and Pods),
    ``max_nodes``, ``gpus_per_node``, ``tpu_chips_per_node``, ``tpu_topology``,
    ``accelerator_type`` (a GPU's Compute name, a TPU's GKE accelerator label such as
    ``tpu-v6e-slice``), ``machine_type``, ``mode``, ``queued``, ``cluster``, ``location``,
    ``project``; ``tpu`` is the :class:`~pulumi_dws.catalog.TpuSlice` of a TPU pool.
    """

    node_pool: gcp.container.NodePool
    name: pulumi.Output[str]
    """The node pool's name."""
    gpus_total: pulumi.Output[int]
    """``max_nodes`` x GPUs per node (0 for a TPU pool)."""
    tpu_chips_total: pulumi.Output[int]
    """``max_nodes`` x TPU chips per node (0 for a GPU pool)."""
    node_selector: pulumi.Output[dict[str, str]]
    """``{"cloud.google.com/gke-nodepool": name}``, for Kueue ResourceFlavors and Pods."""
    max_nodes: pulumi.Output[int]
    """The pool's maximum node count (across its zones)."""
    cluster: pulumi.Output[str]
    """The cluster the pool belongs to."""
    location: pulumi.Output[str]
    """The cluster's region or zone."""
    project: pulumi.Output[str]
    """The project of the cluster."""

    def __init__(
        self, name: str, args: QueuedNodePoolArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        spec = parse_args(QueuedNodePoolSpec, args)
        pool_name = default_name("name", spec.name, name, _check_pool_name)
        super().__init__(TYPE, name, None, opts)
        self.spec = spec
        tpu = spec.tpu
        min_nodes = spec.min_nodes

        def check_max(n: int) -> int:
            limits.check_count("max_nodes", n, "gke.max_nodes")
            if tpu is not None and tpu.multi_host and n != tpu.vms:
                raise DwsValidationError(
                    "max_nodes",
                    n,
                    f"is not allowed for a multi-host TPU pool: it is one slice of {tpu.vms} "
                    f"VMs ({tpu.topology} on {tpu.machine_type}); use {tpu.vms}",
                )
            if min_nodes > n:
                raise DwsValidationError("min_nodes", min_nodes, f"is above max_nodes ({n})")
            return n

        max_nodes = pulumi.Output.from_input(when_known(spec.node_count, check_max))
        self.node_pool = gcp.container.NodePool(
            f"{name}-pool",
            **node_pool_args(spec, pool_name, max_nodes),
            opts=pulumi.ResourceOptions(parent=self, delete_before_replace=True),
        )
        self.mode: str = spec.mode
        self.queued: bool = spec.mode == "queued"
        self.machine_type: str = spec.machine_type
        self.tpu: catalog.TpuSlice | None = tpu
        if tpu is None:
            shape = spec.shape
            self.accelerator_type: str = shape.accelerator.compute_name
            self.gpus_per_node: int = shape.gpus
            self.tpu_chips_per_node: int = 0
            self.tpu_topology: str | None = None
        else:
            self.accelerator_type = tpu.generation.gke_accelerator
            self.gpus_per_node = 0
            self.tpu_chips_per_node = tpu.chips_per_vm
            self.tpu_topology = tpu.topology
        gpus, chips = self.gpus_per_node, self.tpu_chips_per_node
        self.node_pool_name: str = pool_name
        """The pool's name, known when the program runs (``name`` is its Output)."""
        self.name = self.node_pool.name
        self.max_nodes = max_nodes
        self.gpus_total = max_nodes.apply(lambda n: n * gpus)
        self.tpu_chips_total = max_nodes.apply(lambda n: n * chips)
        self.node_selector = self.node_pool.name.apply(lambda n: {NODE_POOL_LABEL: n})
        self.cluster = self.node_pool.cluster
        self.location = self.node_pool.location
        self.project = self.node_pool.project
        self.register_outputs(
            {
                "name": self.name,
                "mode": self.mode,
                "machine_type": self.machine_type,
                "accelerator_type": self.accelerator_type,
                "gpus_per_node": self.gpus_per_node,
                "tpu_chips_per_node": self.tpu_chips_per_node,
                "tpu_topology": self.tpu_topology,
                "max_nodes": self.max_nodes,
                "gpus_total": self.gpus_total,
                "tpu_chips_total": self.tpu_chips_total,
                "node_selector": self.node_selector,
            }
        )
