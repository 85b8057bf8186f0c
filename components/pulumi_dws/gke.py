"""``QueuedNodePool``: a GKE node pool that Dynamic Workload Scheduler fills on demand.

Three modes:

* ``"queued"`` (default): flex-start with queued provisioning (``queuedProvisioning.enabled``
  and ``node_config.flex_start``, as ``gcloud container node-pools create
  --enable-queued-provisioning --flex-start`` in GKE's current docs); nodes appear only when a
  ProvisioningRequest (created by Kueue, see :mod:`pulumi_dws.kueue`) is granted. On clusters
  older than GKE 1.32.2-gke.1652000 pass ``flex_start: False`` (queued provisioning alone).
* ``"flex_start"``: Flex-start nodes without a queue (``node_config.flex_start``); the cluster
  autoscaler asks DWS for capacity when Pods are pending. On A3 Ultra, A4 and H4D machine types
  such a pool may use compact placement (one zone).
* ``"reserved"``: nodes that consume a Calendar-mode reservation (SPECIFIC_RESERVATION affinity).

The inputs mean the same as what ``gcloud beta container node-pools create
--enable-queued-provisioning --flex-start --enable-autoscaling --num-nodes=0
--total-max-nodes=N --location-policy=ANY --reservation-affinity=none --no-enable-autorepair
--accelerator type=...,count=...,gpu-driver-version=latest`` sends, and every rule GKE
enforces for DWS pools is checked when the component is constructed.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from typing import Any, ClassVar, Literal, TypedDict

import pulumi
import pulumi_gcp as gcp
from pydantic import ValidationInfo, field_validator, model_validator
from typing_extensions import NotRequired, Required

from . import catalog, limits
from .defaults import default_name, type_token
from .duration import Duration, DurationLike
from .errors import DwsValidationError
from .models import DwsModel, parse_args
from .validation import (
    check_choice,
    check_labels,
    check_name,
    check_zone,
    check_zone_in_region,
    is_output,
    region_of_location,
    when_known,
)

__all__ = [
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
    "SERVICE_ACCOUNT_SCOPES",
    "node_pool_args",
    "reservation_affinity",
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
_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[a-z]+\Z")


class TaintArgs(TypedDict):
    """A Kubernetes taint on every node: ``effect`` as GKE (``NO_SCHEDULE``) or kubectl
    (``NoSchedule``) spells it."""

    key: str
    value: NotRequired[str]
    effect: NotRequired[str]


class QueuedNodePoolArgs(TypedDict, total=False):
    """Arguments of :class:`QueuedNodePool`.

    Required: ``cluster`` (name or ``projects/.../clusters/NAME`` id), ``location`` (the
    cluster's region or zone), ``machine_type`` (a known GPU type, e.g. ``a3-highgpu-8g``),
    ``max_nodes`` (total across zones). ``accelerator_type``/``accelerator_count`` default
    to what the machine type has attached and must match it when given.

    ``flex_start``: in mode ``queued`` the nodes are Flex-start VMs unless it is False (needed
    on clusters older than GKE 1.32.2-gke.1652000); mode ``flex_start`` implies it; mode
    ``reserved`` refuses it. ``compact_placement``: only Flex-start pools (mode ``flex_start``)
    of A3 Ultra, A4 or H4D in one zone (``node_locations`` of one zone).
    """

    cluster: Required[pulumi.Input[str]]
    location: Required[str]
    machine_type: Required[str]
    max_nodes: Required[pulumi.Input[int]]
    mode: Mode
    accelerator_type: str
    accelerator_count: int
    name: str
    project: pulumi.Input[str]
    node_locations: Sequence[str]
    gpu_driver_version: str
    max_run_duration: DurationLike
    labels: Mapping[str, str]
    resource_labels: Mapping[str, str]
    taints: Sequence[TaintArgs]
    service_account: pulumi.Input[str]
    oauth_scopes: Sequence[str]
    disk_size_gb: int
    disk_type: str
    image_type: str
    version: str
    auto_upgrade: bool
    flex_start: bool
    reservation: Any
    compact_placement: bool
    # Accepted only to refuse them with a clear message (queued / flex_start modes):
    spot: bool
    min_nodes: int
    initial_node_count: int
    location_policy: str
    auto_repair: bool


class _Taint(DwsModel):
    key: str
    value: str = ""
    effect: str = "NO_SCHEDULE"

    @field_validator("key")
    @classmethod
    def _key(cls, v: str) -> str:
        return _check_k8s_key("key", v)

    @field_validator("effect")
    @classmethod
    def _effect(cls, v: str) -> str:
        return check_choice("effect", _EFFECTS.get(v, v), tuple(_EFFECTS.values()))


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


def choice_validator(choices: Mapping[str, tuple[str, ...]], upper: Collection[str] = ()) -> Any:
    """A pydantic field validator for every field of ``choices``: the value must be one of that
    field's choices (upper-cased first for the fields in ``upper``); ``None`` passes."""

    def check(cls: type, value: str | None, info: ValidationInfo) -> str | None:
        if value is None:
            return None
        field = info.field_name
        assert field is not None
        return check_choice(field, value.upper() if field in upper else value, choices[field])

    return field_validator(*choices)(check)


def _region(location: str) -> str:
    return region_of_location("location", location)


class QueuedNodePoolSpec(DwsModel):
    """The validated form of :class:`QueuedNodePoolArgs` (what the component builds from)."""

    known_at_construction: ClassVar[Mapping[str, str]] = {
        "machine_type": "it decides the pool's GPUs (accelerator type and count)",
        "accelerator_type": "it is checked against the machine type's GPUs",
        "accelerator_count": "it is checked against the machine type's GPUs",
        "mode": "it decides which node pool settings apply",
        "min_nodes": "it is checked against the mode's rules",
        "initial_node_count": "it is checked against the mode's rules",
        "location_policy": "it is checked against the mode's rules",
    }

    cluster: Any
    location: str
    machine_type: str
    max_nodes: Any
    mode: str = "queued"
    accelerator_type: str | None = None
    accelerator_count: int | None = None
    name: str | None = None
    project: Any = None
    node_locations: list[str] | None = None
    gpu_driver_version: str = "LATEST"
    max_run_duration: Any = None
    labels: dict[str, str] = {}
    resource_labels: dict[str, str] = {}
    taints: list[_Taint] = []
    service_account: Any = None
    oauth_scopes: list[str] | None = None
    disk_size_gb: int | None = None
    disk_type: str | None = None
    image_type: str | None = None
    version: str | None = None
    auto_upgrade: bool = False
    flex_start: bool | None = None
    reservation: Any = None
    spot: bool = False
    compact_placement: bool = False
    min_nodes: int = 0
    initial_node_count: int = 0
    location_policy: str = "ANY"
    auto_repair: bool = False

    # ------------------------------------------------------------------ single fields
    @field_validator("cluster", mode="before")
    @classmethod
    def _cluster(cls, v: Any) -> Any:
        if is_output(v):
            return v
        if not isinstance(v, str) or not v:
            raise DwsValidationError("cluster", v, "must be a cluster name or id")
        if "/" in v:
            if not _CLUSTER_ID.match(v):
                raise DwsValidationError(
                    "cluster", v, "is not a cluster id like projects/P/locations/L/clusters/NAME"
                )
            return v
        return check_name("cluster", v)

    @field_validator("location")
    @classmethod
    def _location(cls, v: str) -> str:
        _region(v)
        return v

    @field_validator("machine_type", mode="before")
    @classmethod
    def _machine_type(cls, v: Any) -> str:
        if not isinstance(v, str):
            raise DwsValidationError(
                "machine_type", v, "must be a plain string (it decides the GPU shape up front)"
            )
        catalog.machine_shape("machine_type", v)
        return v

    @field_validator("max_nodes", mode="before")
    @classmethod
    def _max_nodes(cls, v: Any) -> Any:
        return v if is_output(v) else limits.check_count("max_nodes", v, "gke.max_nodes")

    _choices = choice_validator(
        {
            "mode": MODES,
            "gpu_driver_version": DRIVER_VERSIONS,
            "disk_type": DISK_TYPES,
            "location_policy": LOCATION_POLICIES,
        },
        upper=("gpu_driver_version", "location_policy"),
    )

    @field_validator("accelerator_type")
    @classmethod
    def _accelerator_type(cls, v: str | None) -> str | None:
        return None if v is None else catalog.accelerator("accelerator_type", v).compute_name

    @field_validator("name")
    @classmethod
    def _name(cls, v: str | None) -> str | None:
        return None if v is None else _check_pool_name("name", v)

    @field_validator("node_locations")
    @classmethod
    def _node_locations(cls, v: list[str] | None) -> list[str] | None:
        for i, zone in enumerate(v or []):
            check_zone(f"node_locations[{i}]", zone)
        if v is not None and not v:
            raise DwsValidationError("node_locations", v, "must list at least one zone")
        return v

    @field_validator("max_run_duration", mode="before")
    @classmethod
    def _max_run_duration(cls, v: Any) -> Any:
        if v is None or is_output(v):
            return v
        return limits.check_duration("max_run_duration", v, "gke.max_run_duration")

    @field_validator("labels")
    @classmethod
    def _labels(cls, v: dict[str, str]) -> dict[str, str]:
        return _check_k8s_labels("labels", v)

    @field_validator("resource_labels")
    @classmethod
    def _resource_labels(cls, v: dict[str, str]) -> dict[str, str]:
        return check_labels("resource_labels", v)

    @field_validator("service_account", mode="before")
    @classmethod
    def _service_account(cls, v: Any) -> Any:
        if v is None or is_output(v) or v == "default":
            return v
        if not isinstance(v, str) or not _EMAIL.match(v):
            raise DwsValidationError(
                "service_account", v, "is not a service account email (or 'default')"
            )
        return v

    @field_validator("disk_size_gb")
    @classmethod
    def _disk_size(cls, v: int | None) -> int | None:
        return None if v is None else limits.check_count("disk_size_gb", v, "gke.disk_size_gb")

    @field_validator("reservation", mode="before")
    @classmethod
    def _reservation(cls, v: Any) -> Any:
        if v is None or is_output(v) or hasattr(v, "reservation_name"):
            return v
        if isinstance(v, str):
            shared = _SHARED_RESERVATION.match(v)
            check_name("reservation", shared.group(1) if shared else v)
            return v
        raise DwsValidationError(
            "reservation",
            v,
            "must be a reservation name or a CalendarReservation (an object with reservation_name)",
        )

    # ------------------------------------------------------------------ cross-field rules
    @model_validator(mode="after")
    def _rules(self) -> QueuedNodePoolSpec:
        shape = self.shape
        if (
            self.accelerator_type is not None
            and self.accelerator_type != shape.accelerator.compute_name
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
        region = _region(self.location)
        for i, zone in enumerate(self.node_locations or []):
            check_zone_in_region(f"node_locations[{i}]", zone, region)
        self._mode_rules()
        return self

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
            if not is_output(self.max_nodes) and self.min_nodes > self.max_nodes:
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
        """Compact placement: Flex-start pools (no queue) of A3 Ultra, A4 or H4D, in one zone
        (Cluster Toolkit ``gke-node-pool`` preconditions); never queued provisioning or
        reservation-bound pools with GPUs."""
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
        first = (1, 32, 2, 1652000)
        if given < first[: len(given)]:
            hint = (
                "pass flex_start: False (queued provisioning without Flex-start)"
                if self.mode == "queued"
                else "use a newer version"
            )
            raise DwsValidationError(
                "version",
                self.version,
                f"is older than {FLEX_START_MIN_GKE_VERSION}, the first GKE version with "
                f"Flex-start nodes; {hint}",
            )

    def _reservation_rules(self) -> None:
        machine = _reservation_attr(self.reservation, "machine_type")
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

    # ------------------------------------------------------------------ derived values
    @property
    def shape(self) -> catalog.MachineShape:
        """The GPU shape of ``machine_type``."""
        return catalog.machine_shape("machine_type", self.machine_type)

    @property
    def uses_flex_start(self) -> bool:
        """True when nodes are Flex-start VMs (``node_config.flex_start``): mode flex_start,
        and mode queued unless ``flex_start`` is False."""
        if self.mode == "flex_start":
            return True
        if self.mode == "queued":
            return self.flex_start is not False
        return False


def _shown_reservation(value: Any) -> Any:
    return value if isinstance(value, str) else type(value).__name__


def _check_pool_name(field: str, value: str) -> str:
    check_name(field, value)
    limits.get("gke.node_pool_name").check(field, len(value), shown=value)
    return value


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
    """
    shape = spec.shape
    reserved = spec.mode == "reserved"
    accelerator = {
        "type": shape.accelerator.compute_name,
        "count": shape.gpus,
        "gpu_driver_installation_config": {"gpu_driver_version": spec.gpu_driver_version},
    }
    if spec.oauth_scopes is not None:
        scopes = list(spec.oauth_scopes)
    else:
        scopes = list(SERVICE_ACCOUNT_SCOPES if spec.service_account else GKE_DEFAULT_SCOPES)
    node_config: dict[str, Any] = {
        "machine_type": spec.machine_type,
        "guest_accelerators": [accelerator],
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
    args: dict[str, Any] = {
        "name": pool_name,
        "cluster": spec.cluster,
        "location": spec.location,
        "initial_node_count": spec.initial_node_count,
        "autoscaling": {
            "total_min_node_count": spec.min_nodes,
            "total_max_node_count": spec.max_nodes if max_nodes is None else max_nodes,
            "location_policy": spec.location_policy,
        },
        "management": {"auto_repair": spec.auto_repair, "auto_upgrade": spec.auto_upgrade},
        "node_config": node_config,
    }
    if spec.mode == "queued":
        args["queued_provisioning"] = {"enabled": True}
    if spec.compact_placement:
        args["placement_policy"] = {"type": "COMPACT"}
    node_locations = spec.node_locations or _reservation_zones(spec)
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
    ``gpus_total`` (``max_nodes`` x GPUs per node), ``node_selector`` (``{"cloud.google.com/
    gke-nodepool": name}``, for Kueue ResourceFlavors and Pods), ``max_nodes``,
    ``gpus_per_node``, ``accelerator_type``, ``machine_type``, ``mode``, ``queued``,
    ``cluster``, ``location``, ``project``.
    """

    node_pool: gcp.container.NodePool
    name: pulumi.Output[str]
    gpus_total: pulumi.Output[int]
    node_selector: pulumi.Output[dict[str, str]]
    max_nodes: pulumi.Output[int]
    cluster: pulumi.Output[str]
    location: pulumi.Output[str]
    project: pulumi.Output[str]

    def __init__(
        self, name: str, args: QueuedNodePoolArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        spec = parse_args(QueuedNodePoolSpec, args)
        pool_name = default_name("name", spec.name, name, _check_pool_name)
        super().__init__(TYPE, name, None, opts)
        self.spec = spec
        shape = spec.shape
        min_nodes = spec.min_nodes

        def check_max(n: int) -> int:
            limits.check_count("max_nodes", n, "gke.max_nodes")
            if min_nodes > n:
                raise DwsValidationError("min_nodes", min_nodes, f"is above max_nodes ({n})")
            return n

        max_nodes = pulumi.Output.from_input(when_known(spec.max_nodes, check_max))
        self.node_pool = gcp.container.NodePool(
            f"{name}-pool",
            **node_pool_args(spec, pool_name, max_nodes),
            opts=pulumi.ResourceOptions(parent=self, delete_before_replace=True),
        )
        self.mode: str = spec.mode
        self.queued: bool = spec.mode == "queued"
        self.machine_type: str = spec.machine_type
        self.accelerator_type: str = shape.accelerator.compute_name
        self.gpus_per_node: int = shape.gpus
        self.name = self.node_pool.name
        self.max_nodes = max_nodes
        self.gpus_total = max_nodes.apply(lambda n: n * shape.gpus)
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
                "max_nodes": self.max_nodes,
                "gpus_total": self.gpus_total,
                "node_selector": self.node_selector,
            }
        )
