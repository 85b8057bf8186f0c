"""``KueueQueue``: the Kueue objects that route labelled Jobs to one DWS node pool.

For a :class:`~pulumi_dws.QueuedNodePool` (or a pool name) it creates, with
pulumi-kubernetes: a ``ResourceFlavor`` pinned to the pool (``cloud.google.com/gke-nodepool``),
a ``ProvisioningRequestConfig`` (class ``queued-provisioning.gke.io``; its ``podSetUpdates``
pin each job's Pods to the nodes provisioned for it) and its ``AdmissionCheck``, a
``ClusterQueue`` whose GPU quota is the pool's GPUs, and a ``LocalQueue`` in each namespace.
On a TPU pool the same objects manage ``google.com/tpu`` instead: the quota is the pool's TPU
chips, the flavor selects the slice's GKE TPU labels and tolerates the ``google.com/tpu`` taint
TPU nodes carry (and, for a queued pool, ``cloud.google.com/gke-queued``).
``kueue.x-k8s.io/v1beta2`` by default, ``v1beta1`` on request; optionally installs Kueue itself
from its Helm chart (pinned version) before the objects.

:func:`kueue_manifests` builds the same objects as plain dicts (no Pulumi needed), and
:func:`kueue_job_fields` / :func:`kueue_job` give what a Job needs to use the queue.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping, Sequence
from typing import Annotated, Any, Literal, TypedDict

import pulumi
import pulumi_kubernetes as kubernetes
from pydantic import model_validator
from typing_extensions import Required

from ... import catalog, limits
from ...defaults import type_token
from ...duration import Duration, DurationLike
from ...errors import DwsValidationError
from ...fields import Check, DurationWithin, Known, MaybeOutput, OneOf
from ...models import DwsModel, parse_args
from ...validation import check_name
from ..node_pool.component import NODE_POOL_LABEL, QueuedNodePool
from . import limits as _rows  # noqa: F401 (registers this kind's limit rows)
from .kube import gke_provider

__all__ = [
    "TYPE",
    "KueueQueue",
    "KueueQueueArgs",
    "KueueQueueSpec",
    "RetryStrategyArgs",
    "ApiVersion",
    "API_GROUP",
    "API_VERSIONS",
    "KUEUE_CHART",
    "KUEUE_VERSION",
    "KUEUE_NAMESPACE",
    "PROVISIONING_CLASS",
    "PROVISIONING_CONTROLLER",
    "QUEUE_NAME_LABEL",
    "MAX_RUN_DURATION_ANNOTATION",
    "GPU_RESOURCE",
    "TPU_RESOURCE",
    "QUEUED_TAINT_KEY",
    "PROVISIONING_REQUEST_LABEL",
    "POD_SET_UPDATES",
    "kueue_manifests",
    "kueue_job_fields",
    "kueue_job",
]

TYPE = type_token("KueueQueue")
ApiVersion = Literal["v1beta2", "v1beta1"]
API_GROUP = "kueue.x-k8s.io"
API_VERSIONS: tuple[str, ...] = ("v1beta2", "v1beta1")
KUEUE_CHART = "oci://registry.k8s.io/kueue/charts/kueue"
# Pinned chart version. v1beta2 is served from Kueue 0.15 and is the storage version from 0.16.
KUEUE_VERSION = "0.16.1"
_V1BETA2_SINCE = (0, 15)
KUEUE_NAMESPACE = "kueue-system"
PROVISIONING_CLASS = "queued-provisioning.gke.io"
PROVISIONING_CONTROLLER = "kueue.x-k8s.io/provisioning-request"
QUEUE_NAME_LABEL = "kueue.x-k8s.io/queue-name"
MAX_RUN_DURATION_ANNOTATION = "provreq.kueue.x-k8s.io/maxRunDurationSeconds"
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
``v1beta1`` and ``v1beta2`` of the Kueue CRD."""
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
# Provisioning").
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
_INT32 = 2**31 - 1


class RetryStrategyArgs(TypedDict, total=False):
    """ProvisioningRequest retries (Kueue defaults: 3 retries, 60 s base, 1800 s max)."""

    backoff_limit_count: int
    backoff_base_seconds: int
    backoff_max_seconds: int


class KueueQueueArgs(TypedDict, total=False):
    """Arguments of :class:`KueueQueue`.

    ``node_pool`` is a :class:`~pulumi_dws.QueuedNodePool` or a pool name; with a name,
    give ``gpu_quota`` (a GPU pool) or ``tpu_quota`` (a TPU pool, in chips), and
    ``cluster``/``location`` unless a Kubernetes provider comes through ``opts``. ``name`` is
    the prefix of the Kueue object names (default: the component name);
    ``local_queue_name`` defaults to ``<name>-local-queue``.
    """

    node_pool: Required[Any]
    namespaces: Required[Sequence[str]]
    gpu_quota: pulumi.Input[int]
    tpu_quota: pulumi.Input[int]
    max_run_duration: DurationLike
    api_version: ApiVersion
    install_kueue: bool
    kueue_version: str
    name: str
    local_queue_name: str
    provisioning_request: bool
    retry_strategy: RetryStrategyArgs
    cpu_quota: int | str
    memory_quota: int | str
    queueing_strategy: str
    cluster: pulumi.Input[str]
    location: str
    project: pulumi.Input[str]


class _Retry(DwsModel):
    backoff_limit_count: int = 3
    backoff_base_seconds: int = 60
    backoff_max_seconds: int = 1800

    @model_validator(mode="after")
    def _bounds(self) -> _Retry:
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
    if isinstance(value, QueuedNodePool):
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
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise DwsValidationError(field, value, "must be a whole number of GPUs >= 1")
    return value


def _tpu_quota(field: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise DwsValidationError(field, value, "must be a whole number of TPU chips >= 1")
    return value


def _kueue_version(field: str, value: str) -> str:
    if not _VERSION.match(value):
        raise DwsValidationError(field, value, f"is not a Kueue chart version like {KUEUE_VERSION}")
    return value.lstrip("v")


K8sName = Annotated[str, Check(_check_dns_label, before=False)]
"""A Kubernetes DNS label: lowercase letters, digits or '-' (the length from the limits table)."""
Quantity = Annotated[int | str, Check(_check_quantity)]
"""A Kubernetes quantity: a whole number, or a string such as ``500m`` or ``1000Gi``."""
_RunDuration = Annotated[Duration, DurationWithin("kueue.max_run_duration")]


class KueueQueueSpec(DwsModel):
    """The validated form of :class:`KueueQueueArgs`."""

    node_pool: Annotated[Any, Check(_node_pool)]
    namespaces: Annotated[
        list[str],
        Check(_namespaces),
        Known("each namespace gets a LocalQueue resource named after it"),
    ]
    gpu_quota: MaybeOutput[Annotated[int, Check(_gpu_quota)]] | None = None
    tpu_quota: MaybeOutput[Annotated[int, Check(_tpu_quota)]] | None = None
    max_run_duration: Annotated[
        _RunDuration | None, Known("it is checked against the node pool's max_run_duration")
    ] = None
    api_version: Annotated[
        str, OneOf(API_VERSIONS), Known("it decides the shape of every Kueue object")
    ] = "v1beta2"
    install_kueue: bool = False
    kueue_version: Annotated[
        str, Check(_kueue_version, before=False), Known("it is checked against api_version")
    ] = KUEUE_VERSION
    name: Annotated[K8sName | None, Known("it names the Kueue objects and their resources")] = None
    local_queue_name: K8sName | None = None
    provisioning_request: Annotated[
        bool | None, Known("it decides which Kueue objects are made")
    ] = None
    retry_strategy: Annotated[_Retry, Known("its values are checked against each other")] = _Retry()
    cpu_quota: Quantity = UNBOUNDED_CPU
    memory_quota: Quantity = UNBOUNDED_MEMORY
    queueing_strategy: Annotated[str, OneOf(QUEUEING_STRATEGIES)] = "BestEffortFIFO"
    cluster: MaybeOutput[str] | None = None
    location: str | None = None
    project: MaybeOutput[str] | None = None

    @model_validator(mode="after")
    def _rules(self) -> KueueQueueSpec:
        pool = self.node_pool if isinstance(self.node_pool, QueuedNodePool) else None
        if self.gpu_quota is not None and self.tpu_quota is not None:
            raise DwsValidationError(
                "tpu_quota", "(set)", "give gpu_quota (a GPU pool) or tpu_quota (a TPU pool)"
            )
        if pool is None and self.gpu_quota is None and self.tpu_quota is None:
            raise DwsValidationError(
                "gpu_quota",
                "(missing)",
                "is required when node_pool is a name, not a pool (or tpu_quota for a TPU pool)",
            )
        if pool is not None and pool.tpu is not None and self.gpu_quota is not None:
            raise DwsValidationError(
                "gpu_quota",
                self.gpu_quota,
                f"is not allowed: the pool has TPUs ({pool.machine_type}); give tpu_quota "
                "(chips) or leave it to the pool",
            )
        if pool is not None and pool.tpu is None and self.tpu_quota is not None:
            raise DwsValidationError(
                "tpu_quota",
                self.tpu_quota,
                f"is not allowed: the pool has GPUs ({pool.machine_type}); give gpu_quota",
            )
        if self.provisioning_request is False and pool is not None and pool.queued:
            raise DwsValidationError(
                "provisioning_request",
                False,
                "is not allowed: a pool in mode queued only gets nodes through "
                "ProvisioningRequests; leave provisioning_request on",
            )
        if self.provisioning_request and pool is not None and not pool.queued:
            raise DwsValidationError(
                "provisioning_request",
                True,
                f"is not allowed: the pool is in mode {pool.mode}; ProvisioningRequests "
                f"({PROVISIONING_CLASS}) need a pool in mode queued",
            )
        if self.max_run_duration is not None and not self.uses_provisioning_request:
            raise DwsValidationError(
                "max_run_duration",
                self.max_run_duration.human(),
                "only applies to ProvisioningRequests (a pool in mode queued); "
                "set the pool's max_run_duration instead",
            )
        node_limit = pool.spec.max_run_duration if pool is not None else None
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
        if self.api_version == "v1beta2" and self.install_kueue:
            version = _VERSION.match(self.kueue_version)
            assert version is not None  # checked by the field's type
            major, minor = (int(x) for x in version.groups()[:2])
            if (major, minor) < _V1BETA2_SINCE:
                raise DwsValidationError(
                    "kueue_version",
                    self.kueue_version,
                    "does not serve kueue.x-k8s.io/v1beta2 (Kueue 0.15 or later does); "
                    "use a newer version or api_version v1beta1",
                )
        return self

    @property
    def tpu(self) -> bool:
        """Whether the queue manages TPU chips (a TPU pool, or ``tpu_quota``) rather than GPUs."""
        pool = self.node_pool
        if isinstance(pool, QueuedNodePool):
            return pool.tpu is not None
        return self.tpu_quota is not None

    @property
    def resource(self) -> str:
        """The extended resource the queue manages: ``nvidia.com/gpu`` or ``google.com/tpu``."""
        return TPU_RESOURCE if self.tpu else GPU_RESOURCE

    @property
    def uses_provisioning_request(self) -> bool:
        """Whether the ClusterQueue gets the ProvisioningRequest admission check."""
        if self.provisioning_request is not None:
            return self.provisioning_request
        pool = self.node_pool
        return pool.queued if isinstance(pool, QueuedNodePool) else True

    def object_names(self, default_name: str) -> dict[str, str]:
        """Names of the Kueue objects: flavor, config, check, cluster_queue, local_queue."""
        base = self.name or default_name
        names = {
            "flavor": f"{base}-flavor",
            "config": f"{base}-config",
            "check": f"{base}-prov",
            "cluster_queue": f"{base}-cluster-queue",
            "local_queue": self.local_queue_name or f"{base}-local-queue",
        }
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


def _flavor(spec: KueueQueueSpec, pool_name: Any) -> dict[str, Any]:
    """The ResourceFlavor's spec: the pool's nodes, and the tolerations of their taints."""
    pool = spec.node_pool if isinstance(spec.node_pool, QueuedNodePool) else None
    labels: dict[str, Any] = {NODE_POOL_LABEL: pool_name}
    if not spec.tpu:
        return {"nodeLabels": labels, "tolerations": [dict(GPU_TOLERATION)]}
    if pool is not None and pool.tpu is not None:
        labels.update(pool.tpu.gke_node_labels())
    tolerations = [dict(TPU_TOLERATION)]
    if spec.uses_provisioning_request:
        tolerations.append(dict(QUEUED_TOLERATION))
    return {"nodeLabels": labels, "tolerations": tolerations}


def _build(
    spec: KueueQueueSpec, names: Mapping[str, str], pool_name: Any, quota: Any
) -> list[dict[str, Any]]:
    """The manifests; ``pool_name`` and ``quota`` (GPUs or TPU chips) may be Pulumi Outputs."""
    api = f"{API_GROUP}/{spec.api_version}"
    queued = spec.uses_provisioning_request
    resource = spec.resource

    def obj(
        kind: str, name: str, body: dict[str, Any], namespace: str | None = None
    ) -> dict[str, Any]:
        meta = {"name": name, **({"namespace": namespace} if namespace else {})}
        return {"apiVersion": api, "kind": kind, "metadata": meta, "spec": body}

    out = [
        obj("ResourceFlavor", names["flavor"], _flavor(spec, pool_name)),
    ]
    if queued:
        config: dict[str, Any] = {
            "provisioningClassName": PROVISIONING_CLASS,
            "managedResources": [resource],
            "podSetUpdates": copy.deepcopy(POD_SET_UPDATES),
            "retryStrategy": spec.retry_strategy.manifest(),
        }
        if spec.max_run_duration is not None:
            config["parameters"] = {"maxRunDurationSeconds": str(spec.max_run_duration.seconds)}
        out.append(obj("ProvisioningRequestConfig", names["config"], config))
        check = {
            "controllerName": PROVISIONING_CONTROLLER,
            "parameters": {
                "apiGroup": API_GROUP,
                "kind": "ProvisioningRequestConfig",
                "name": names["config"],
            },
        }
        out.append(obj("AdmissionCheck", names["check"], check))
    quotas = [
        ("cpu", spec.cpu_quota),
        ("memory", spec.memory_quota),
        ("ephemeral-storage", UNBOUNDED_EPHEMERAL),
        (resource, quota),
    ]
    cluster_queue: dict[str, Any] = {
        "namespaceSelector": {
            "matchExpressions": [
                {
                    "key": "kubernetes.io/metadata.name",
                    "operator": "In",
                    "values": list(spec.namespaces),
                }
            ]
        },
        "queueingStrategy": spec.queueing_strategy,
        "resourceGroups": [
            {
                "coveredResources": [name for name, _ in quotas],
                "flavors": [
                    {
                        "name": names["flavor"],
                        "resources": [{"name": n, "nominalQuota": q} for n, q in quotas],
                    }
                ],
            }
        ],
    }
    if queued:
        if spec.api_version == "v1beta2":
            cluster_queue["admissionChecksStrategy"] = {
                "admissionChecks": [{"name": names["check"]}]
            }
        else:
            cluster_queue["admissionChecks"] = [names["check"]]
    out.append(obj("ClusterQueue", names["cluster_queue"], cluster_queue))
    for ns in spec.namespaces:
        out.append(
            obj("LocalQueue", names["local_queue"], {"clusterQueue": names["cluster_queue"]}, ns)
        )
    return out


def kueue_manifests(
    pool_name: str,
    namespaces: Sequence[str],
    gpu_quota: int | None = None,
    *,
    name: str = "dws",
    **options: Any,
) -> list[dict[str, Any]]:
    """The Kueue objects for one DWS pool as plain dicts (pure: no Pulumi, no cluster).

    ``options`` are the other :class:`KueueQueueArgs` (``tpu_quota`` instead of ``gpu_quota``
    for a TPU pool, ``api_version``, ``max_run_duration``, ``provisioning_request``,
    ``local_queue_name``, ``retry_strategy``, ``cpu_quota``, ``memory_quota``,
    ``queueing_strategy``). Raises :class:`DwsValidationError` like the component does.
    """
    args = {"node_pool": pool_name, "namespaces": namespaces, "name": name, **options}
    if gpu_quota is not None:
        args["gpu_quota"] = gpu_quota
    spec = parse_args(KueueQueueSpec, args)
    quota = spec.tpu_quota if spec.tpu else spec.gpu_quota
    return _build(spec, spec.object_names(name), pool_name, quota)


def _has_kubernetes_provider(opts: pulumi.ResourceOptions | None) -> bool:
    if opts is None:
        return False
    if getattr(opts.provider, "package", None) == "kubernetes":
        return True
    providers = opts.providers
    if isinstance(providers, Mapping):
        if "kubernetes" in providers:
            return True
    elif any(getattr(p, "package", None) == "kubernetes" for p in providers or []):
        return True
    inherited = getattr(opts.parent, "_providers", None) or {}
    return "kubernetes" in inherited


_PULUMI_ROLES = {
    "ResourceFlavor": "flavor",
    "ProvisioningRequestConfig": "provisioning-config",
    "AdmissionCheck": "admission-check",
    "ClusterQueue": "cluster-queue",
}


class KueueQueue(pulumi.ComponentResource):
    """Kueue objects that send Jobs labelled ``kueue.x-k8s.io/queue-name`` to one DWS pool.

    Outputs: ``local_queue_name``, ``cluster_queue_name``, ``resource_flavor_name``,
    ``admission_check_name`` (None without ProvisioningRequests), ``api_version``,
    ``namespaces``, ``manifests`` (the object dicts), ``resources`` (kind/namespace ->
    CustomResource), ``kueue_release`` (the Helm release, if installed), ``provider``.
    """

    def __init__(
        self, name: str, args: KueueQueueArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        spec = parse_args(KueueQueueSpec, args)
        names = spec.object_names(name)
        pool = spec.node_pool if isinstance(spec.node_pool, QueuedNodePool) else None
        has_provider = _has_kubernetes_provider(opts)
        if not has_provider and pool is None and (spec.cluster is None or not spec.location):
            raise DwsValidationError(
                "cluster",
                "(missing)",
                "and location are required to build a Kubernetes provider when node_pool is a "
                "name and no kubernetes provider comes through opts",
            )
        super().__init__(TYPE, name, None, opts)
        self.spec = spec
        self.provider: kubernetes.Provider | None = None
        if not has_provider:
            where: tuple[Any, Any, Any] = (
                (pool.cluster, pool.location, pool.project)
                if pool is not None
                else (spec.cluster, spec.location, spec.project)
            )
            self.provider = gke_provider(
                f"{name}-k8s", *where, opts=pulumi.ResourceOptions(parent=self)
            )
        child = pulumi.ResourceOptions(parent=self, provider=self.provider)
        self.kueue_release: kubernetes.helm.v3.Release | None = None
        depends: list[pulumi.Resource] = []
        if spec.install_kueue:
            self.kueue_release = kubernetes.helm.v3.Release(
                f"{name}-kueue",
                chart=KUEUE_CHART,
                version=spec.kueue_version,
                name="kueue",
                namespace=KUEUE_NAMESPACE,
                create_namespace=True,
                timeout=600,
                opts=child,
            )
            depends.append(self.kueue_release)
        pool_name = pool.name if pool is not None else spec.node_pool
        given = spec.tpu_quota if spec.tpu else spec.gpu_quota
        if given is None:
            assert pool is not None
            given = pool.tpu_chips_total if spec.tpu else pool.gpus_total
        self.manifests = _build(spec, names, pool_name, given)
        self.resources: dict[str, kubernetes.apiextensions.CustomResource] = {}
        # Kueue's CRDs first; the ClusterQueue after what it references; LocalQueues last.
        before_queue = list(depends)
        for manifest in self.manifests:
            kind = manifest["kind"]
            namespace = manifest["metadata"].get("namespace")
            after = before_queue if kind == "ClusterQueue" else depends
            resource = kubernetes.apiextensions.CustomResource(
                f"{name}-{_PULUMI_ROLES.get(kind) or f'local-queue-{namespace}'}",
                api_version=manifest["apiVersion"],
                kind=kind,
                metadata=manifest["metadata"],
                spec=manifest["spec"],
                opts=pulumi.ResourceOptions.merge(
                    child, pulumi.ResourceOptions(depends_on=list(after))
                ),
            )
            self.resources[kind if namespace is None else f"{kind}/{namespace}"] = resource
            if kind == "ClusterQueue":
                depends = [*depends, resource]
            else:
                before_queue.append(resource)
        self.api_version: str = spec.api_version
        self.namespaces: list[str] = list(spec.namespaces)
        self.local_queue_name: str = names["local_queue"]
        self.cluster_queue_name: str = names["cluster_queue"]
        self.resource_flavor_name: str = names["flavor"]
        self.admission_check_name: str | None = (
            names["check"] if spec.uses_provisioning_request else None
        )
        self.register_outputs(
            {
                "local_queue_name": self.local_queue_name,
                "cluster_queue_name": self.cluster_queue_name,
                "resource_flavor_name": self.resource_flavor_name,
                "admission_check_name": self.admission_check_name,
                "api_version": self.api_version,
                "namespaces": self.namespaces,
            }
        )


# ---------------------------------------------------------------------- Jobs
def _queue_of(queue: Any) -> tuple[str, bool]:
    if isinstance(queue, KueueQueue):
        return queue.local_queue_name, queue.spec.uses_provisioning_request
    if isinstance(queue, str):
        if len(queue) > 253 or not re.match(
            r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\Z", queue
        ):
            raise DwsValidationError("queue", queue, "is not a valid LocalQueue name")
        return queue, True
    raise DwsValidationError("queue", queue, "must be a KueueQueue or a LocalQueue name")


def kueue_job_fields(
    queue: KueueQueue | str, max_run_duration: DurationLike | None = None
) -> dict[str, Any]:
    """What a ``batch/v1`` Job needs to run through a :class:`KueueQueue`.

    Returns ``{"metadata": {"labels": {"kueue.x-k8s.io/queue-name": Q}, "annotations":
    {...}}, "spec": {"suspend": True}}``: the queue label, ``suspend: true`` (Kueue unsuspends
    the Job once DWS has the nodes) and, with ``max_run_duration``, the per-job annotation
    ``provreq.kueue.x-k8s.io/maxRunDurationSeconds`` (seconds, as a string). Merge it into
    your Job manifest.
    """
    local_queue, queued = _queue_of(queue)
    annotations: dict[str, str] = {}
    if max_run_duration is not None:
        if not queued:
            raise DwsValidationError(
                "max_run_duration",
                str(max_run_duration),
                "only applies to ProvisioningRequests, and this queue has none (its pool is "
                "not in mode queued)",
            )
        duration = limits.check_duration(
            "max_run_duration", max_run_duration, "kueue.max_run_duration"
        )
        annotations[MAX_RUN_DURATION_ANNOTATION] = str(duration.seconds)
    metadata: dict[str, Any] = {"labels": {QUEUE_NAME_LABEL: local_queue}}
    if annotations:
        metadata["annotations"] = annotations
    return {"metadata": metadata, "spec": {"suspend": True}}


def _job_accelerators(
    queue: KueueQueue | str, gpus: int | None, tpu_chips: int | None
) -> tuple[str, int]:
    """The extended resource and count each Pod of a Job requests, checked against the queue."""
    if (gpus is None) == (tpu_chips is None):
        raise DwsValidationError(
            "gpus", gpus, "give gpus (a GPU queue) or tpu_chips (a TPU queue), one of them"
        )
    field, count = ("gpus", gpus) if gpus is not None else ("tpu_chips", tpu_chips)
    what = "GPUs" if field == "gpus" else "TPU chips"
    if isinstance(count, bool) or not isinstance(count, int) or count < 1:
        raise DwsValidationError(field, count, f"must be a whole number of {what} per Pod >= 1")
    if not isinstance(queue, KueueQueue):
        return (GPU_RESOURCE if field == "gpus" else TPU_RESOURCE), count
    if queue.spec.tpu != (field == "tpu_chips"):
        manages = "TPU chips (google.com/tpu)" if queue.spec.tpu else "GPUs (nvidia.com/gpu)"
        other = "tpu_chips" if queue.spec.tpu else "gpus"
        raise DwsValidationError(
            field, count, f"does not fit the queue, which manages {manages}; give {other}"
        )
    pool = queue.spec.node_pool
    tpu = pool.tpu if isinstance(pool, QueuedNodePool) else None
    if tpu is not None and count != tpu.chips_per_vm:
        raise DwsValidationError(
            field,
            count,
            f"must be {tpu.chips_per_vm}, the chips of one {tpu.machine_type} node: a Pod on a "
            "TPU node requests all of its chips",
        )
    return queue.spec.resource, count


def kueue_job(
    name: str,
    *,
    queue: KueueQueue | str,
    image: str,
    gpus: int | None = None,
    tpu_chips: int | None = None,
    command: Sequence[str] | None = None,
    namespace: str = "default",
    max_run_duration: DurationLike | None = None,
    parallelism: int | None = None,
    cpu: int | str | None = None,
    memory: str | None = None,
) -> dict[str, Any]:
    """A complete ``batch/v1`` Job manifest that runs ``image`` on the queue's DWS nodes.

    Give ``gpus`` (per Pod) for a GPU queue, ``tpu_chips`` (per Pod: a TPU node's chips, all
    of them) for a TPU queue. ``parallelism`` Pods run together (and must all complete);
    default 1, or on a :class:`KueueQueue` of a TPU pool the slice's VMs (one Pod per VM).
    With a :class:`KueueQueue`, ``namespace`` must be one where it created its LocalQueue.
    """
    _check_dns_label("name", name)
    _check_dns_label("namespace", namespace)
    if isinstance(queue, KueueQueue) and namespace not in queue.namespaces:
        raise DwsValidationError(
            "namespace",
            namespace,
            f"has no LocalQueue {queue.local_queue_name}, so Kueue would never admit the Job; "
            f"use one of the queue's namespaces ({', '.join(queue.namespaces)})",
        )
    resource, count = _job_accelerators(queue, gpus, tpu_chips)
    if parallelism is None:
        pool = queue.spec.node_pool if isinstance(queue, KueueQueue) else None
        tpu = pool.tpu if isinstance(pool, QueuedNodePool) else None
        parallelism = tpu.vms if tpu is not None else 1
    if isinstance(parallelism, bool) or not isinstance(parallelism, int) or parallelism < 1:
        raise DwsValidationError("parallelism", parallelism, "must be a whole number >= 1")
    fields = kueue_job_fields(queue, max_run_duration)
    requests: dict[str, Any] = {resource: count}
    if cpu is not None:
        requests["cpu"] = _check_quantity("cpu", cpu)
    if memory is not None:
        requests["memory"] = _check_quantity("memory", memory)
    container: dict[str, Any] = {
        "name": "main",
        "image": image,
        "resources": {"requests": dict(requests), "limits": {resource: count}},
    }
    if command:
        container["command"] = list(command)
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": name, "namespace": namespace, **fields["metadata"]},
        "spec": {
            **fields["spec"],
            "parallelism": parallelism,
            "completions": parallelism,
            "template": {
                "spec": {
                    "restartPolicy": "Never",
                    "containers": [container],
                }
            },
        },
    }
