"""The arguments of :class:`~pulumi_dws.KueueQueue`, their validated form, and the Kueue
constants and releases they are checked against (which release serves which field)."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from typing import Annotated, Any, Literal

from pydantic import model_validator

from ... import catalog, limits
from ...duration import Duration
from ...errors import NO_VALUE, DwsValidationError
from ...fields import Check, DurationWithin, Known, MaybeOutput, OneOf, ProjectId
from ...models import DwsModel
from ...validation import check_name, is_output
from ..node_pool.component import QueuedNodePool, check_cluster
from . import limits as _rows  # noqa: F401 (registers this kind's limit rows)
from .args import KueueQueueArgs, RetryStrategyArgs
from .flavors import TAS_MACHINES, Flavor, FlavorArgs, FlavorSpec, resolve_flavors, whole_quota

__all__ = [
    "KueueQueueArgs",
    "KueueQueueSpec",
    "FlavorArgs",
    "RetryStrategyArgs",
    "ApiVersion",
    "MergePolicy",
    "API_GROUP",
    "API_VERSIONS",
    "KUEUE_CHART",
    "KUEUE_VERSION",
    "KUEUE_VERSIONS",
    "KUEUE_NAMESPACE",
    "MERGE_POLICIES",
    "PROVISIONING_CLASS",
    "PROVISIONING_CONTROLLER",
    "QUEUE_NAME_LABEL",
    "MAX_RUN_DURATION_ANNOTATION",
    "MAX_RUN_DURATION_PARAMETER",
    "TPU_TOPOLOGY_PARAMETER",
    "GPU_RESOURCE",
    "TPU_RESOURCE",
    "QUEUED_TAINT_KEY",
    "PROVISIONING_REQUEST_LABEL",
    "POD_SET_UPDATES",
    "TOPOLOGY_LEVELS",
    "A4X_TOPOLOGY_LEVELS",
    "GPU_TOLERATION",
    "TPU_TOLERATION",
    "QUEUED_TOLERATION",
    "UNBOUNDED_CPU",
    "UNBOUNDED_MEMORY",
    "UNBOUNDED_EPHEMERAL",
    "QUEUEING_STRATEGIES",
    "K8sName",
    "Quantity",
    "kueue_release",
    "fingerprint",
    "check_k8s_name",
    "check_quantity",
    "check_command",
    "TAS_BETA_SINCE",
    "POD_SET_UPDATES_SINCE",
]

ApiVersion = Literal["v1beta2", "v1beta1"]
MergePolicy = Literal["IdenticalPodTemplates", "IdenticalWorkloadSchedulingRequirements"]
API_GROUP = "kueue.x-k8s.io"
API_VERSIONS: tuple[str, ...] = ("v1beta2", "v1beta1")
KUEUE_CHART = "oci://registry.k8s.io/kueue/charts/kueue"
# Pinned chart version. v1beta2 is served from Kueue 0.15 and is the storage version from 0.16.
KUEUE_VERSION = "0.16.1"
KUEUE_VERSIONS = ("0.11", "0.12", "0.13", "0.14", "0.15", "0.16", "0.17", "0.18", "0.19")
"""The Kueue minor releases pulumi-dws writes objects for: their CRDs (the last patch release of
each, and the pinned one) are vendored in tests/fixtures/kueue_crd_schemas.json and every object
is checked against them. A newer release is accepted as is."""
_OLDEST = (0, 11)
_V1BETA2_SINCE = (0, 15)
# Fields of kubernetes-sigs/kueue's CRDs, by the release that added them (the vendored schemas
# of each release show it): ProvisioningRequestConfig podSetUpdates and podSetMergePolicy in
# v0.12.0 (kubernetes-sigs/kueue#5290); Topology v1alpha1 until 0.13, v1beta1 from 0.14,
# v1beta2 from 0.15; TopologyAwareScheduling on by default (beta) from 0.14
# (pkg/features/kube_features.go at v0.14.0).
POD_SET_UPDATES_SINCE = (0, 12)
_MERGE_SINCE = (0, 12)
_TOPOLOGY_V1BETA1_SINCE = (0, 14)
TAS_BETA_SINCE = (0, 14)
# The CRDs' bounds, by release (the vendored schemas show them): a ClusterQueue's
# resourceGroups[].flavors takes 16 items until 0.13 and 64 from 0.14; a Topology's levels 8
# until 0.12 and 16 from 0.13; a ProvisioningRequestConfig 100 parameters (maxProperties).
_MORE_FLAVORS_SINCE, _FLAVORS, _MORE_FLAVORS = (0, 14), 16, 64
_MORE_LEVELS_SINCE, _LEVELS, _MORE_LEVELS = (0, 13), 8, 16
_PARAMETERS = 100
HOSTNAME_LABEL = "kubernetes.io/hostname"
KUEUE_NAMESPACE = "kueue-system"
PROVISIONING_CLASS = "queued-provisioning.gke.io"
PROVISIONING_CONTROLLER = "kueue.x-k8s.io/provisioning-request"
QUEUE_NAME_LABEL = "kueue.x-k8s.io/queue-name"
MAX_RUN_DURATION_ANNOTATION = "provreq.kueue.x-k8s.io/maxRunDurationSeconds"
MAX_RUN_DURATION_PARAMETER = "maxRunDurationSeconds"
# Cluster Toolkit's TPU queues pass the slice's topology to GKE as a ProvisioningRequest
# parameter (GoogleCloudPlatform/cluster-toolkit@1047080375afbb44da4b596be314634e7486af4a
# examples/gke-consumption-options/dws-flex-start-queued-provisioning/tpu-dws-queues.yaml.tftpl:
# parameters.tpu-topology, managedResources [google.com/tpu]); no GKE page documents it yet.
TPU_TOPOLOGY_PARAMETER = "tpu-topology"
MERGE_POLICIES: tuple[str, ...] = (
    "IdenticalPodTemplates",
    "IdenticalWorkloadSchedulingRequirements",
)
GPU_RESOURCE = "nvidia.com/gpu"
PROVISIONING_REQUEST_LABEL = "autoscaling.gke.io/provisioning-request"
POD_SET_UPDATES: dict[str, Any] = {
    "nodeSelector": [
        {"key": PROVISIONING_REQUEST_LABEL, "valueFromProvisioningClassDetail": "ResizeRequestName"}
    ]
}
"""The ProvisioningRequestConfig's ``podSetUpdates``: once a request is provisioned, Kueue adds a
nodeSelector on the GKE label of the nodes made for it (its value is the request's
``ResizeRequestName`` class detail), so a job's Pods land on the nodes provisioned for that
job and not on nodes another job is waiting for. As Google's xpk writes it
(AI-Hypercomputer/xpk ``src/xpk/templates/kueue_config.yaml.j2``); the field is in both
``v1beta1`` and ``v1beta2`` of the Kueue CRD, from Kueue 0.12.

With ``podSetMergePolicy``, Kueue gives this update (and GKE's consume-provisioning-request
annotations) only to the first pod set of each merged group: the others keep their own
templates (kubernetes-sigs/kueue ``pkg/controller/admissionchecks/provisioning/controller.go``,
``podSetUpdates``, unfixed at ff69552e79ad21652c36caa97038382e55625cf7; fix proposed in
kubernetes-sigs/kueue#14408). The queue designs around it: see :class:`KueueQueue`."""
TOPOLOGY_LEVELS: tuple[str, ...] = (
    "cloud.google.com/gce-topology-block",
    "cloud.google.com/gce-topology-subblock",
    "cloud.google.com/gce-topology-host",
    "kubernetes.io/hostname",
)
"""GKE's topology node labels, coarse to fine (AI Hypercomputer, "Schedule GKE workloads with
Topology Aware Scheduling": https://docs.cloud.google.com/ai-hypercomputer/docs/workloads/
schedule-gke-workloads-tas; Cluster Toolkit's examples/gke-a4/kueue-configuration.yaml.tftpl)."""
A4X_TOPOLOGY_LEVELS: tuple[str, ...] = (
    "cloud.google.com/gce-topology-block",
    "cloud.google.com/gce-topology-subblock",
    "cloud.google.com/gke-nodepool",
    "cloud.google.com/gce-topology-host",
    "kubernetes.io/hostname",
)
"""A4X's levels: its node pools (one NVL72 domain each) between sub-block and host
(GoogleCloudPlatform/cluster-toolkit@1047080375afbb44da4b596be314634e7486af4a
examples/gke-a4x/kueue-configuration.yaml.tftpl)."""
# GPU nodes on GKE carry the taint nvidia.com/gpu=present:NoSchedule; Kueue adds the flavor's
# tolerations to the Pods it admits.
GPU_TOLERATION = {"key": GPU_RESOURCE, "operator": "Exists", "effect": "NoSchedule"}
TPU_RESOURCE = catalog.TPU_RESOURCE
# TPU nodes carry google.com/tpu=present:NoSchedule (catalog.TPU_TAINT); nodes of a queued pool
# also carry cloud.google.com/gke-queued (NoSchedule), which Google's TPU samples tolerate
# (https://docs.cloud.google.com/kubernetes-engine/docs/tutorials/ray-kueue-dws, whose YAML is
# GoogleCloudPlatform/kubernetes-engine-samples ai-ml/gke-ray/tpu/dws/rayjob-tpu-v6e-dws.yaml;
# GoogleCloudPlatform/cluster-toolkit@1047080375afbb44da4b596be314634e7486af4a
# examples/gke-consumption-options/dws-flex-start-queued-provisioning: "Mandatory for Queued
# Provisioning"). GKE taints every queued pool so (GPU pools too: "The --flex-start flag
# combined with the --enable-queued-provisioning flag instructs GKE ... to add the
# cloud.google.com/gke-queued taint", https://docs.cloud.google.com/kubernetes-engine/docs/
# how-to/provisioningrequest) and lets a Pod that consumes a request onto its nodes.
TPU_TOLERATION = {"key": TPU_RESOURCE, "operator": "Exists", "effect": "NoSchedule"}
QUEUED_TAINT_KEY = "cloud.google.com/gke-queued"
QUEUED_TOLERATION = {"key": QUEUED_TAINT_KEY, "operator": "Exists", "effect": "NoSchedule"}
# Effectively unlimited, as in GKE's DWS samples: the pool's GPUs are the real bound.
UNBOUNDED_CPU = 1000000000
UNBOUNDED_MEMORY = "1000000000Gi"
UNBOUNDED_EPHEMERAL = "1000000000Ti"
QUEUEING_STRATEGIES = ("BestEffortFIFO", "StrictFIFO")

_DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?\Z")
_QUANTITY = re.compile(
    r"^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?"
    r"(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?\Z"
)
_VERSION = re.compile(r"^v?(\d+)\.(\d+)\.(\d+)\Z")
_LABEL_KEY = re.compile(
    r"^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?"
    r"[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?\Z"
)
_PARAMETER_KEY = re.compile(r"^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?\Z")
_INT32 = 2**31 - 1


def fingerprint(content: Any) -> str:
    """Six hex digits that change with ``content`` (JSON, keys sorted): the end of the name of a
    Kueue object whose spec Kueue freezes."""
    text = json.dumps(content, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:6]


def kueue_release(version: str) -> tuple[int, int, int]:
    """``0.16.1`` (or ``v0.16.1``) -> ``(0, 16, 1)``."""
    found = _VERSION.match(version)
    if found is None:
        raise DwsValidationError(
            "kueue_version", version, f"is not a Kueue chart version like {KUEUE_VERSION}"
        )
    major, minor, patch = (int(x) for x in found.groups())
    return major, minor, patch


class _RetryStrategySpec(DwsModel):
    """ProvisioningRequest retries (Kueue defaults: 3 retries, 60 s base, 1800 s max);
    ``backoff_limit_count: 0`` switches retries off (the CRD's ``retryStrategy``)."""

    backoff_limit_count: int = 3
    """How many times a failed ProvisioningRequest is retried (default 3; 0: never)."""
    backoff_base_seconds: int = 60
    """The first wait before a retry, doubled each time (default 60)."""
    backoff_max_seconds: int = 1800
    """The longest wait before a retry (default 1800)."""

    @model_validator(mode="after")
    def _bounds(self) -> _RetryStrategySpec:
        for field in ("backoff_limit_count", "backoff_base_seconds", "backoff_max_seconds"):
            value = getattr(self, field)
            if not 0 <= value <= _INT32:
                raise DwsValidationError(field, value, f"must be between 0 and {_INT32}")
        if self.backoff_base_seconds > self.backoff_max_seconds:
            raise DwsValidationError(
                "backoff_base_seconds",
                self.backoff_base_seconds,
                f"is above backoff_max_seconds ({self.backoff_max_seconds})",
            )
        return self

    def manifest(self) -> dict[str, int]:
        return {
            "backoffLimitCount": self.backoff_limit_count,
            "backoffBaseSeconds": self.backoff_base_seconds,
            "backoffMaxSeconds": self.backoff_max_seconds,
        }


def _check_dns_label(field: str, value: Any) -> str:
    row = limits.get("kubernetes.name_length")
    longest = row.maximum or 0
    if not isinstance(value, str) or not 0 < len(value) <= longest or not _DNS_LABEL.match(value):
        raise DwsValidationError(
            field,
            value,
            f"is not a valid Kubernetes name: {row.allowed()} lowercase letters, digits or '-', "
            "starting and ending with a letter or digit",
        )
    return value


def _check_quantity(field: str, value: Any) -> int | str:
    ok = (isinstance(value, int) and not isinstance(value, bool) and value >= 0) or (
        isinstance(value, str) and _QUANTITY.match(value) is not None
    )
    if not ok:
        raise DwsValidationError(
            field, value, "is not a Kubernetes quantity such as 96, 500m, 1000Gi"
        )
    return value


def _node_pool(field: str, value: Any) -> Any:
    if isinstance(value, QueuedNodePool):  # (an explicit None is refused: leave it out)
        return value
    if isinstance(value, str):
        return check_name(field, value)
    raise DwsValidationError(field, value, "must be a QueuedNodePool or a node pool name")


def _namespaces(field: str, value: Any) -> list[str]:
    if isinstance(value, str) or not isinstance(value, Sequence) or not value:
        raise DwsValidationError(
            field, value, "must be a non-empty list of namespaces for the LocalQueues"
        )
    seen: set[str] = set()
    for i, ns in enumerate(value):
        _check_dns_label(f"{field}[{i}]", ns)
        if ns in seen:
            raise DwsValidationError(f"{field}[{i}]", ns, "is listed twice")
        seen.add(ns)
    return list(value)


def _gpu_quota(field: str, value: Any) -> int:
    return whole_quota(field, value, " of GPUs")


def _tpu_quota(field: str, value: Any) -> int:
    return whole_quota(field, value, " of TPU chips")


def _kueue_version(field: str, value: str) -> str:
    if not _VERSION.match(value):
        raise DwsValidationError(field, value, f"is not a Kueue chart version like {KUEUE_VERSION}")
    if kueue_release(value)[:2] < _OLDEST:
        raise DwsValidationError(
            field,
            value,
            f"is older than Kueue 0.11, the oldest release pulumi-dws writes objects for "
            f"({', '.join(KUEUE_VERSIONS)}); upgrade Kueue",
        )
    return value.lstrip("v")


def _parameters(field: str, value: Any) -> dict[str, str]:
    if not isinstance(value, Mapping):
        raise DwsValidationError(field, value, "must be a mapping of parameter names to strings")
    for key, item in value.items():
        if not isinstance(key, str) or not 0 < len(key) <= 316 or not _PARAMETER_KEY.match(key):
            raise DwsValidationError(f"{field} key", key, "is not a parameter name")
        if not isinstance(item, str) or len(item) > 255:
            raise DwsValidationError(
                f"{field}[{key}]", item, "must be a string of at most 255 characters (the CRD)"
            )
    return dict(value)


def _topology(field: str, value: Any) -> bool | list[str]:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) or not isinstance(value, Sequence) or not value:
        raise DwsValidationError(
            field, value, "must be True (GKE's levels) or a list of node label keys, coarse first"
        )
    for i, key in enumerate(value):
        if not isinstance(key, str) or not _LABEL_KEY.match(key):
            raise DwsValidationError(f"{field}[{i}]", key, "is not a node label key")
        if key == HOSTNAME_LABEL and i != len(value) - 1:
            raise DwsValidationError(
                f"{field}[{i}]",
                key,
                "must come last: Kueue takes the hostname label only at the lowest level of a "
                "Topology",
            )
    if len(set(value)) != len(value):
        raise DwsValidationError(field, list(value), "lists a level twice")
    return list(value)


def check_command(field: str, value: Any) -> list[str] | None:
    """A container's ``command``: a list of strings (a string would be split into its
    characters), or None."""
    if value is None:
        return None
    if isinstance(value, str) or not isinstance(value, Sequence):
        raise DwsValidationError(
            field,
            value,
            'must be a list of strings: the command and its arguments, e.g. ["python", "train.py"]',
        )
    for i, item in enumerate(value):
        if not isinstance(item, str):
            raise DwsValidationError(f"{field}[{i}]", item, "must be a string")
    return list(value)


check_k8s_name = _check_dns_label
"""Check a Kubernetes DNS label (a name, a namespace): ``check_k8s_name(field, value)``."""
check_quantity = _check_quantity
"""Check a Kubernetes quantity (``96``, ``500m``, ``1000Gi``): ``check_quantity(field, value)``."""
K8sName = Annotated[str, Check(_check_dns_label, before=False)]
"""A Kubernetes DNS label: lowercase letters, digits or '-' (the length from the limits table)."""
Quantity = Annotated[int | str, Check(_check_quantity)]
"""A Kubernetes quantity: a whole number, or a string such as ``500m`` or ``1000Gi``."""
_RunDuration = Annotated[Duration, DurationWithin("kueue.max_run_duration")]


class KueueQueueSpec(DwsModel):
    """Arguments of :class:`KueueQueue`.

    ``node_pool`` is a :class:`~pulumi_dws.QueuedNodePool` or a pool name; with a name,
    give ``gpu_quota`` (a GPU pool) or ``tpu_quota`` (a TPU pool, in chips), and
    ``cluster``/``location`` unless a Kubernetes provider comes through ``opts``. Or
    ``flavors``: pools and ComputeClasses in the order Kueue tries them, each with its quota
    (:class:`FlavorArgs`). ``name`` is the prefix of the Kueue object names (default: the
    component name); ``local_queue_name`` defaults to ``<name>-local-queue``.

    ``pod_set_merge_policy`` (Kueue 0.12 and later) lets a job with several pod sets (a
    RayJob's head and workers) through GKE's queued provisioning, which takes one pod set per
    request. ``topology``: True for GKE's block/sub-block/host levels (A4X: with its node
    pools), or the node label keys in order. ``provisioning_parameters``: more
    ProvisioningRequest parameters (strings).
    """

    # The one declaration of each field: KueueQueueArgs is generated from it (python
    # scripts/generate.py). Also the shape of this kind's dws:capacity entries.

    node_pool: Annotated[Any, Check(_node_pool)] = None
    """The one pool the queue sends jobs to: a :class:`~pulumi_dws.QueuedNodePool` or a pool name
    (give ``node_pool`` or ``flavors``)."""
    flavors: Annotated[list[FlavorSpec], Known("each flavor becomes a ResourceFlavor")] | None = (
        None
    )
    """Pools and ComputeClasses in the order Kueue tries them, each with its quota (give
    ``node_pool`` or ``flavors``)."""
    namespaces: Annotated[
        list[str],
        Check(_namespaces),
        Known("each namespace gets a LocalQueue resource named after it"),
    ] = []
    """The namespaces whose jobs use the queue: each gets a LocalQueue (at least one)."""
    gpu_quota: MaybeOutput[Annotated[int, Check(_gpu_quota)]] | None = None
    """GPUs the ClusterQueue admits (default: the pool's GPUs; required with a GPU pool's name)."""
    tpu_quota: MaybeOutput[Annotated[int, Check(_tpu_quota)]] | None = None
    """TPU chips the ClusterQueue admits (default: the pool's chips; required with a TPU pool's
    name)."""
    max_run_duration: Annotated[
        _RunDuration | None, Known("it is checked against the node pool's max_run_duration")
    ] = None
    """How long a job's nodes may run (the ProvisioningRequest's ``maxRunDurationSeconds``; at most
    the pool's ``max_run_duration``). Only with a pool in mode ``queued``."""
    api_version: Annotated[
        str, OneOf(API_VERSIONS), Known("it decides the shape of every Kueue object")
    ] = "v1beta2"
    """The Kueue API the objects are written in: ``v1beta2`` (default, Kueue 0.15 and later) or
    ``v1beta1``."""
    install_kueue: bool = False
    """Install Kueue from its Helm chart (at ``kueue_version``) before the objects (default
    False)."""
    kueue_version: Annotated[
        str, Check(_kueue_version, before=False), Known("it is checked against api_version")
    ] = KUEUE_VERSION
    """The Kueue release in the cluster (or to install); every object is checked against what it
    serves."""
    name: Annotated[K8sName | None, Known("it names the Kueue objects and their resources")] = None
    """Prefix of the Kueue objects' names (default: the component's name)."""
    local_queue_name: K8sName | None = None
    """Name of the LocalQueues (default ``<name>-local-queue``)."""
    provisioning_request: Annotated[
        bool | None, Known("it decides which Kueue objects are made")
    ] = None
    """With a pool's name: whether it is a queued pool whose nodes come through ProvisioningRequests
    (default True); with a pool object, its mode decides."""
    retry_strategy: Annotated[
        _RetryStrategySpec, Known("its values are checked against each other")
    ] = _RetryStrategySpec()
    """How failed ProvisioningRequests are retried (Kueue's defaults: 3 retries, 60 s, up to 1800
    s)."""
    pod_set_merge_policy: (
        Annotated[str, OneOf(MERGE_POLICIES), Known("it is checked against kueue_version")] | None
    ) = None
    """How a job's pod sets merge into one ProvisioningRequest (Kueue 0.12 and later), for jobs with
    several pod sets such as a RayJob's head and workers."""
    provisioning_parameters: Annotated[
        dict[str, str], Check(_parameters), Known("they are checked against the others")
    ] = {}
    """More ProvisioningRequest parameters, as strings."""
    topology: Annotated[
        bool | list[str], Check(_topology), Known("it decides the Topology object")
    ] = False
    """Topology-aware scheduling: True for GKE's block, sub-block and host levels, or the node label
    keys, coarsest first (default False)."""
    cpu_quota: Quantity = UNBOUNDED_CPU
    """CPU the ClusterQueue admits (a Kubernetes quantity; default: unbounded)."""
    memory_quota: Quantity = UNBOUNDED_MEMORY
    """Memory the ClusterQueue admits (a Kubernetes quantity; default: unbounded)."""
    queueing_strategy: Annotated[str, OneOf(QUEUEING_STRATEGIES)] = "BestEffortFIFO"
    """The ClusterQueue's ``queueingStrategy`` (default ``BestEffortFIFO``)."""
    cluster: MaybeOutput[Annotated[str, Check(check_cluster)]] | None = None
    """The GKE cluster, to build a Kubernetes provider when none comes through ``opts`` (with
    ``location``): its name or ``projects/P/locations/L/clusters/NAME``."""
    location: str | None = None
    """The cluster's region or zone (with ``cluster``)."""
    project: MaybeOutput[ProjectId] | None = None
    """The cluster's project (default: the ``gcp:project`` stack config)."""

    @model_validator(mode="after")
    def _rules(self) -> KueueQueueSpec:
        if not self.namespaces:
            raise DwsValidationError(
                "namespaces", "(missing)", "is required: the namespaces that get a LocalQueue"
            )
        if (self.node_pool is None) == (self.flavors is None):
            raise DwsValidationError(
                "node_pool",
                "(missing)" if self.node_pool is None else "(and flavors)",
                "is required: give node_pool (one pool) or flavors (pools and ComputeClasses "
                "in order), one of them",
            )
        if self.flavors is not None:
            for field in ("gpu_quota", "tpu_quota", "provisioning_request"):
                if getattr(self, field) is not None:
                    raise DwsValidationError(
                        field, getattr(self, field), "goes on each of flavors, not on the queue"
                    )
        flavors = self.resolved_flavors()
        self._same_cluster(flavors)
        queued = [f for f in flavors if f.queued]
        pool = self.node_pool if isinstance(self.node_pool, QueuedNodePool) else None
        if self.max_run_duration is not None and not queued:
            raise DwsValidationError(
                "max_run_duration",
                self.max_run_duration.human(),
                "only applies to ProvisioningRequests (a pool in mode queued); "
                "set the pool's max_run_duration instead",
            )
        for flavor in queued:
            node_limit = flavor.pool.spec.max_run_duration if flavor.pool is not None else None
            if (
                self.max_run_duration is not None
                and isinstance(node_limit, Duration)
                and self.max_run_duration > node_limit
            ):
                raise DwsValidationError(
                    "max_run_duration",
                    self.max_run_duration.human(),
                    f"is above the node pool's max_run_duration ({node_limit.describe()})",
                )
        release = kueue_release(self.kueue_version)
        if self.api_version == "v1beta2" and release[:2] < _V1BETA2_SINCE:
            raise DwsValidationError(
                "kueue_version",
                self.kueue_version,
                "does not serve kueue.x-k8s.io/v1beta2 (Kueue 0.15 or later does); "
                "use a newer version or api_version v1beta1",
            )
        self._merge_rules(queued, release)
        self._parameter_rules(queued)
        self._topology_rules(flavors)
        self._bounds(flavors, release)
        del pool
        return self

    def _same_cluster(self, flavors: list[Flavor]) -> None:
        """The queue's cluster, location and project, where given, are those of its pools and
        classes (a flavor selects nodes of the queue's own cluster)."""
        for flavor in flavors:
            owner: Any
            if flavor.compute_class is not None:
                owner, what = flavor.compute_class.spec, f"ComputeClass {flavor.compute_class.name}"
            elif flavor.pool is not None:
                owner, what = flavor.pool.spec, f"node pool {flavor.pool._name}"
            else:
                continue
            for field in ("cluster", "location", "project"):
                mine, theirs = getattr(self, field), getattr(owner, field, None)
                if not isinstance(mine, str) or not isinstance(theirs, str):
                    continue
                if field == "cluster":
                    same = mine.rsplit("/", 1)[-1] == theirs.rsplit("/", 1)[-1]
                else:
                    same = mine == theirs
                if not same:
                    raise DwsValidationError(
                        field,
                        mine,
                        f"differs from the {field} of {what} ({theirs}): a queue's flavors "
                        "select nodes of its own cluster",
                    )

    def _merge_rules(self, queued: list[Flavor], release: tuple[int, int, int]) -> None:
        policy = self.pod_set_merge_policy
        if policy is None:
            return
        if release[:2] < _MERGE_SINCE:
            raise DwsValidationError(
                "pod_set_merge_policy",
                policy,
                f"needs Kueue 0.12 or later; Kueue {self.kueue_version} (kueue_version) has no "
                "podSetMergePolicy, so its ProvisioningRequests carry one pod set per job pod set "
                "and GKE refuses a job with more than one",
            )
        if not queued:
            raise DwsValidationError(
                "pod_set_merge_policy",
                policy,
                "only applies to ProvisioningRequests, and the queue has none (no pool in mode "
                "queued)",
            )

    def _parameter_rules(self, queued: list[Flavor]) -> None:
        params = self.provisioning_parameters
        if params and not queued:
            raise DwsValidationError(
                "provisioning_parameters",
                params,
                "only apply to ProvisioningRequests, and the queue has none",
            )
        if MAX_RUN_DURATION_PARAMETER in params:
            raise DwsValidationError(
                f"provisioning_parameters[{MAX_RUN_DURATION_PARAMETER}]",
                params[MAX_RUN_DURATION_PARAMETER],
                "is set from max_run_duration: give that instead",
            )
        slices = {f.slice.topology for f in queued if f.slice is not None}
        if len(slices) > 1 and TPU_TOPOLOGY_PARAMETER not in params:
            raise DwsValidationError(
                "flavors",
                sorted(slices),
                "are queued TPU pools of different topologies; one ProvisioningRequestConfig "
                f"passes one {TPU_TOPOLOGY_PARAMETER}: make one queue per topology",
            )

    def _bounds(self, flavors: list[Flavor], release: tuple[int, int, int]) -> None:
        """What the Kueue release's CRDs take: flavors per resource group, Topology levels,
        parameters (those the queue sets included)."""
        most = _MORE_FLAVORS if release[:2] >= _MORE_FLAVORS_SINCE else _FLAVORS
        if len(flavors) > most:
            raise DwsValidationError(
                "flavors",
                f"{len(flavors)} flavors",
                f"are too many for Kueue {self.kueue_version}: a ClusterQueue takes at most "
                f"{most} (64 from Kueue 0.14)",
            )
        levels = _MORE_LEVELS if release[:2] >= _MORE_LEVELS_SINCE else _LEVELS
        if isinstance(self.topology, list) and len(self.topology) > levels:
            raise DwsValidationError(
                "topology",
                f"{len(self.topology)} levels",
                f"are too many for Kueue {self.kueue_version}: a Topology takes at most "
                f"{levels} (16 from Kueue 0.13)",
            )
        count = len(self.request_parameters(flavors))
        if count > _PARAMETERS:
            raise DwsValidationError(
                "provisioning_parameters",
                f"{count} parameters",
                f"are too many: a ProvisioningRequestConfig takes at most {_PARAMETERS}, "
                "counting maxRunDurationSeconds and tpu-topology when the queue sets them",
            )

    def request_parameters(self, flavors: list[Flavor]) -> dict[str, str]:
        """The ProvisioningRequestConfig's parameters: the max run duration, a queued TPU
        pool's topology, then ``provisioning_parameters``."""
        parameters: dict[str, str] = {}
        if self.max_run_duration is not None:
            parameters[MAX_RUN_DURATION_PARAMETER] = str(self.max_run_duration.seconds)
        slices = {f.slice.topology for f in flavors if f.queued and f.slice is not None}
        if len(slices) == 1:
            parameters[TPU_TOPOLOGY_PARAMETER] = next(iter(slices))
        parameters.update(self.provisioning_parameters)
        return parameters

    def _topology_rules(self, flavors: list[Flavor]) -> None:
        if self.topology is False:
            return
        for flavor in flavors:
            if is_output(flavor.known_label):
                field = "node_pool" if flavor.class_name is None else "compute_class"
                raise DwsValidationError(
                    f"{flavor.where}{field}",
                    NO_VALUE,
                    "must be known when the program runs, not an Output: with topology, Kueue "
                    "freezes a flavor's node labels, so the flavor's object name is made from "
                    "them (a change is a new flavor)",
                )
            if flavor.tpu:
                raise DwsValidationError(
                    "topology",
                    self.topology,
                    f"is for GPU nodes (GKE's block, sub-block and host labels); "
                    f"{flavor.where.rstrip('.') or 'node_pool'} manages TPU chips, which a slice's "
                    "node pool places",
                )
            machine = flavor.machine_type
            if machine is not None and machine not in TAS_MACHINES:
                raise DwsValidationError(
                    "topology",
                    self.topology,
                    f"needs nodes that carry GKE's topology labels ({', '.join(TAS_MACHINES)}); "
                    f"{flavor.where.rstrip('.') or 'node_pool'} is {machine}",
                )
        if self.topology is True:
            machines = {f.machine_type for f in flavors if f.machine_type is not None}
            a4x = {m for m in machines if m.startswith("a4x-")}
            if a4x and a4x != machines:
                raise DwsValidationError(
                    "topology",
                    True,
                    "mixes A4X flavors (levels with their node pools) and others; give the "
                    "levels yourself (a list of node label keys) or one queue each",
                )

    # ------------------------------------------------------------------ derived values
    def resolved_flavors(self) -> list[Flavor]:
        """The flavors in order: the one ``node_pool`` (with the queue's quota fields), or
        ``flavors``."""
        if self.flavors is not None:
            return resolve_flavors(self.flavors, None, single=False)
        single = FlavorSpec.model_construct(
            node_pool=self.node_pool,
            compute_class=None,
            gpu_quota=self.gpu_quota,
            tpu_quota=self.tpu_quota,
            name=None,
            provisioning_request=self.provisioning_request,
        )
        return resolve_flavors([single], self.provisioning_request, single=True)

    @property
    def tpu(self) -> bool:
        """Whether the queue manages TPU chips (a TPU pool, or ``tpu_quota``) rather than GPUs."""
        return self.resolved_flavors()[0].tpu

    @property
    def resource(self) -> str:
        """The extended resource the queue manages: ``nvidia.com/gpu`` or ``google.com/tpu``."""
        return TPU_RESOURCE if self.tpu else GPU_RESOURCE

    @property
    def uses_provisioning_request(self) -> bool:
        """Whether the ClusterQueue gets the ProvisioningRequest admission check."""
        return any(f.queued for f in self.resolved_flavors())

    @property
    def topology_levels(self) -> list[str]:
        """The Topology's node label keys (empty without ``topology``)."""
        if self.topology is False:
            return []
        if isinstance(self.topology, list):
            return list(self.topology)
        machines = {f.machine_type for f in self.resolved_flavors() if f.machine_type}
        if machines and all(m.startswith("a4x-") for m in machines):
            return list(A4X_TOPOLOGY_LEVELS)
        return list(TOPOLOGY_LEVELS)

    @property
    def topology_api_version(self) -> str:
        """The Topology's API version for ``kueue_version`` and ``api_version``."""
        release = kueue_release(self.kueue_version)[:2]
        if release < _TOPOLOGY_V1BETA1_SINCE:
            return "v1alpha1"
        return self.api_version

    def object_names(
        self, default_name: str, frozen: Mapping[str, Any] | None = None
    ) -> dict[str, str]:
        """Names of the Kueue objects: flavor, config, check, cluster_queue, local_queue,
        topology (and ``flavor:SUFFIX`` with ``flavors``). ``frozen`` maps some of those keys
        to what Kueue will not let change in the object (a Topology's levels, a
        topology-aware flavor's spec): its name then ends in a fingerprint of it, so a change
        is a new object (:func:`~pulumi_dws.kinds.kueue.manifests.object_names`)."""
        base = self.name or default_name
        names = {
            "flavor": f"{base}-flavor",
            "config": f"{base}-config",
            "check": f"{base}-prov",
            "cluster_queue": f"{base}-cluster-queue",
            "local_queue": self.local_queue_name or f"{base}-local-queue",
            "topology": f"{base}-topology",
        }
        if self.flavors is not None:
            for flavor in self.resolved_flavors():
                names[f"flavor:{flavor.suffix}"] = f"{base}-{flavor.suffix}"
        for key, content in (frozen or {}).items():
            names[key] = f"{names[key]}-{fingerprint(content)}"
        field = "name" if self.name else "component name"
        for value in names.values():
            if value == self.local_queue_name:
                continue
            try:
                _check_dns_label(field, value)
            except DwsValidationError:
                raise DwsValidationError(
                    field,
                    base,
                    f"makes the Kueue object name {value}, which is not a valid Kubernetes "
                    f"name ({limits.get('kubernetes.name_length').allowed()} lowercase letters, "
                    "digits or '-'); pass a shorter args['name']",
                ) from None
        return names

    def flavor_name(self, names: Mapping[str, str], flavor: Flavor) -> str:
        """The ResourceFlavor object's name of ``flavor``."""
        if self.flavors is None:
            return names["flavor"]
        return names[f"flavor:{flavor.suffix}"]
