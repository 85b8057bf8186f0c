"""``KueueQueue``: the Kueue objects that route labelled Jobs to DWS node pools and ComputeClasses.

For a :class:`~pulumi_dws.QueuedNodePool` (or a pool name) it creates, with
pulumi-kubernetes: a ``ResourceFlavor`` pinned to the pool (``cloud.google.com/gke-nodepool``),
a ``ProvisioningRequestConfig`` (class ``queued-provisioning.gke.io``; its ``podSetUpdates``
pin each job's Pods to the nodes provisioned for it) and its ``AdmissionCheck``, a
``ClusterQueue`` whose GPU quota is the pool's GPUs, and a ``LocalQueue`` in each namespace.
On a TPU pool the same objects manage ``google.com/tpu`` instead: the quota is the pool's TPU
chips, the flavor selects the slice's GKE TPU labels and tolerates the ``google.com/tpu`` taint
TPU nodes carry (and, for a queued pool, ``cloud.google.com/gke-queued``).

With ``flavors`` instead of ``node_pool`` the ClusterQueue tries several flavors in order (a
reservation or Calendar-block pool, a :class:`~pulumi_dws.ComputeClass`, then the DWS pool),
each with its own quota; the ProvisioningRequest check applies only to queued pools' flavors
(:mod:`.flavors`). ``topology`` adds a Kueue ``Topology`` of GKE's block, sub-block and host
labels that the flavors use (topology-aware scheduling). ``pod_set_merge_policy`` lets one
ProvisioningRequest carry a job with several pod sets (a RayJob's head and workers), which
GKE's queued provisioning needs: it accepts one pod set per request.

``kueue.x-k8s.io/v1beta2`` by default, ``v1beta1`` on request; ``kueue_version`` is the Kueue
release in the cluster (or to install, from its Helm chart, with ``install_kueue``): every
field is checked against what that release serves (:data:`KUEUE_VERSIONS`).

:func:`kueue_manifests` builds the same objects as plain dicts (no Pulumi needed), and
:func:`kueue_job_fields` / :func:`kueue_job` (and :mod:`.jobs` for RayJobs and JobSets) give
what a job needs to use the queue.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import pulumi
import pulumi_kubernetes as kubernetes

from ... import limits
from ...defaults import type_token
from ...duration import DurationLike
from ...errors import DwsValidationError
from ...kube import gke_provider, has_kubernetes_provider
from ...models import parse_args
from ..node_pool.component import QueuedNodePool
from .flavors import Flavor, check_pod_fits
from .manifests import build_manifests, kueue_manifests, label_values, object_names, quotas
from .spec import (
    A4X_TOPOLOGY_LEVELS,
    API_GROUP,
    API_VERSIONS,
    GPU_RESOURCE,
    KUEUE_CHART,
    KUEUE_NAMESPACE,
    KUEUE_VERSION,
    KUEUE_VERSIONS,
    MAX_RUN_DURATION_ANNOTATION,
    MERGE_POLICIES,
    POD_SET_UPDATES,
    PROVISIONING_CLASS,
    PROVISIONING_CONTROLLER,
    PROVISIONING_REQUEST_LABEL,
    QUEUE_NAME_LABEL,
    QUEUED_TAINT_KEY,
    TAS_BETA_SINCE,
    TOPOLOGY_LEVELS,
    TPU_RESOURCE,
    ApiVersion,
    FlavorArgs,
    KueueQueueArgs,
    KueueQueueSpec,
    MergePolicy,
    RetryStrategyArgs,
    _check_dns_label,
    _check_quantity,
    check_command,
    check_k8s_name,
    check_quantity,
    kueue_release,
)

__all__ = [
    "TYPE",
    "KueueQueue",
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
    "GPU_RESOURCE",
    "TPU_RESOURCE",
    "QUEUED_TAINT_KEY",
    "PROVISIONING_REQUEST_LABEL",
    "POD_SET_UPDATES",
    "TOPOLOGY_LEVELS",
    "A4X_TOPOLOGY_LEVELS",
    "kueue_release",
    "check_k8s_name",
    "check_quantity",
    "kueue_manifests",
    "kueue_job_fields",
    "kueue_job",
]

TYPE = type_token("KueueQueue")


_PULUMI_ROLES = {
    "ResourceFlavor": "flavor",
    "ProvisioningRequestConfig": "provisioning-config",
    "AdmissionCheck": "admission-check",
    "ClusterQueue": "cluster-queue",
    "Topology": "topology",
}


def _other_versions(api_version: str, kind: str) -> list[pulumi.Alias]:
    """The object's Pulumi type under the other Kueue API versions of its kind: a change of
    ``api_version`` (or of the Topology's version with ``kueue_version``) is then an update of
    the same object, not a second object of the same name and the old one deleted."""
    group, _, version = api_version.partition("/")
    versions = [*API_VERSIONS, *(["v1alpha1"] if kind == "Topology" else [])]
    return [
        pulumi.Alias(type_=f"kubernetes:{group}/{other}:{kind}")
        for other in sorted(set(versions) - {version})
    ]


def _cluster_of(spec: KueueQueueSpec, flavors: Sequence[Flavor]) -> tuple[Any, Any, Any]:
    """Where to build a Kubernetes provider: the queue's ``cluster``/``location``, else its first
    pool's, else its first ComputeClass's (one that knows its cluster)."""
    if spec.cluster is not None and spec.location:
        return spec.cluster, spec.location, spec.project
    pool = next((f.pool for f in flavors if f.pool is not None), None)
    if pool is not None:
        return pool.cluster, pool.location, pool.project
    for flavor in flavors:
        cls = flavor.compute_class
        if cls is not None and cls.spec.cluster is not None and cls.spec.location:
            return cls.spec.cluster, cls.spec.location, cls.spec.project
    raise DwsValidationError(
        "cluster",
        "(missing)",
        "and location are required to build a Kubernetes provider when node_pool is a name "
        "(or every flavor is a name, or a ComputeClass given its provider through opts) and no "
        "kubernetes provider comes through opts",
    )


class KueueQueue(pulumi.ComponentResource):
    """Kueue objects that send Jobs labelled ``kueue.x-k8s.io/queue-name`` to DWS capacity:
    one pool, or flavors (pools and ComputeClasses) tried in order.

    Outputs: ``local_queue_name``, ``cluster_queue_name``, ``resource_flavor_name`` (the
    first flavor's), ``flavor_names`` (all, in order), ``admission_check_name`` (None without
    ProvisioningRequests), ``topology_name`` (None without ``topology``), ``api_version``,
    ``kueue_version``, ``pod_set_merge_policy``, ``namespaces``, ``manifests`` (the object
    dicts), ``resources`` (kind/namespace -> CustomResource), ``kueue_release`` (the Helm
    release, if installed), ``provider``.

    Multi-pod-set jobs: with ``pod_set_merge_policy`` a job whose GPU pod sets share their
    scheduling requirements (a RayJob's head and workers built by
    :func:`~pulumi_dws.kinds.kueue.jobs.kueue_ray_job`) gets one ProvisioningRequest with one
    pod set, which GKE accepts. Kueue then gives the request's nodeSelector and GKE's
    consume-provisioning-request annotations to the first merged pod set only (an open Kueue
    bug, kubernetes-sigs/kueue#14408): the queue's queued flavors also tolerate
    ``cloud.google.com/gke-queued`` so the other pod sets can start on the pool's nodes, and the
    job helpers give every pod set the same node selectors and tolerations. What stays lost
    until Kueue fixes it: the other pod sets are held to the pool, not to the nodes of their
    own request (in a pool that serves several jobs at once they may start on nodes made for
    another job's request).

    Changes to a deployed queue: the Topology and, with ``topology``, each flavor are named
    after what Kueue freezes in them (:func:`~pulumi_dws.kinds.kueue.manifests.object_names`),
    so a change makes new objects and the old ones go once Kueue's finalizers let them; a
    LocalQueue is deleted and made again when its ClusterQueue changes (Kueue freezes
    ``clusterQueue``; the name jobs use stays).
    """

    local_queue_name: str
    """The LocalQueue a Job names in its ``kueue.x-k8s.io/queue-name`` label."""
    cluster_queue_name: str
    """The ClusterQueue behind the LocalQueues."""
    resource_flavor_name: str
    """The first ResourceFlavor (the node pool's, with one pool)."""
    admission_check_name: str | None
    """The AdmissionCheck of the ProvisioningRequests (None without them)."""
    api_version: str
    """The Kueue API version of the objects (``v1beta2``, ``v1beta1``)."""
    kueue_version: str
    """The Kueue version the objects are written for."""
    pod_set_merge_policy: str | None
    """The ProvisioningRequestConfig's pod set merge policy, if any."""
    namespaces: list[str]
    """The namespaces that have a LocalQueue."""
    flavor_names: list[str]
    """The ResourceFlavors, in the ClusterQueue's order (the first one is
    ``resource_flavor_name``)."""
    topology_name: str | None
    """The Topology of Topology Aware Scheduling (None without it)."""

    def __init__(
        self, name: str, args: KueueQueueArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        spec = parse_args(KueueQueueSpec, args)
        names = object_names(spec, name)
        flavors = spec.resolved_flavors()
        has_provider = has_kubernetes_provider(opts)
        where = None if has_provider else _cluster_of(spec, flavors)
        super().__init__(TYPE, name, None, opts)
        self.spec = spec
        self.provider: kubernetes.Provider | None = None
        if where is not None:
            self.provider = gke_provider(
                f"{name}-k8s", *where, opts=pulumi.ResourceOptions(parent=self)
            )
        child = pulumi.ResourceOptions(parent=self, provider=self.provider)
        self.kueue_release: kubernetes.helm.v3.Release | None = None
        depends: list[pulumi.Resource] = [
            f.compute_class.resource for f in flavors if f.compute_class is not None
        ]
        if spec.install_kueue:
            release = kueue_release(spec.kueue_version)
            values: dict[str, Any] = {}
            if spec.topology is not False and release[:2] < TAS_BETA_SINCE:
                # Before 0.14 TAS is alpha, off by default (Google's TAS guide enables it so).
                values = {
                    "controllerManager": {
                        "featureGates": [{"name": "TopologyAwareScheduling", "enabled": True}]
                    }
                }
            self.kueue_release = kubernetes.helm.v3.Release(
                f"{name}-kueue",
                chart=KUEUE_CHART,
                version=spec.kueue_version,
                name="kueue",
                namespace=KUEUE_NAMESPACE,
                create_namespace=True,
                timeout=600,
                values=values or None,
                opts=child,
            )
            depends.append(self.kueue_release)
        self.manifests = build_manifests(spec, names, label_values(flavors), quotas(flavors))
        self.resources: dict[str, kubernetes.apiextensions.CustomResource] = {}
        # Kueue's CRDs first; the ClusterQueue after what it references; LocalQueues last.
        before_queue = list(depends)
        flavor_suffixes = iter(f.suffix for f in flavors)
        for manifest in self.manifests:
            kind = manifest["kind"]
            object_name = manifest["metadata"]["name"]
            namespace = manifest["metadata"].get("namespace")
            after = before_queue if kind in ("ClusterQueue", "ResourceFlavor") else depends
            role = _PULUMI_ROLES.get(kind) or f"local-queue-{namespace}"
            if kind == "ResourceFlavor":
                suffix = next(flavor_suffixes)
                if spec.flavors is not None:  # (named by suffix: a frozen flavor's name changes)
                    role = f"flavor-{suffix}"
            options = pulumi.ResourceOptions(
                depends_on=list(after), aliases=_other_versions(manifest["apiVersion"], kind)
            )
            if kind == "LocalQueue":
                # Kueue freezes a LocalQueue's clusterQueue; the LocalQueue keeps its name
                # (jobs use it) and has no finalizer: delete it, then make it again.
                options = pulumi.ResourceOptions.merge(
                    options,
                    pulumi.ResourceOptions(
                        replace_on_changes=["spec.clusterQueue"], delete_before_replace=True
                    ),
                )
            resource = kubernetes.apiextensions.CustomResource(
                f"{name}-{role}",
                api_version=manifest["apiVersion"],
                kind=kind,
                metadata=manifest["metadata"],
                spec=manifest["spec"],
                opts=pulumi.ResourceOptions.merge(child, options),
            )
            key = kind if namespace is None else f"{kind}/{namespace}"
            if kind == "ResourceFlavor" and spec.flavors is not None:
                key = f"{kind}/{object_name}"
            self.resources[key] = resource
            if kind == "ClusterQueue":
                depends = [*depends, resource]
            else:
                before_queue.append(resource)
        self.api_version = spec.api_version
        self.kueue_version = spec.kueue_version
        self.pod_set_merge_policy = spec.pod_set_merge_policy
        self.namespaces = list(spec.namespaces)
        self.local_queue_name = names["local_queue"]
        self.cluster_queue_name = names["cluster_queue"]
        self.flavors: list[Flavor] = flavors
        self.flavor_names = [spec.flavor_name(names, f) for f in flavors]
        self.resource_flavor_name = self.flavor_names[0]
        self.admission_check_name = names["check"] if spec.uses_provisioning_request else None
        self.topology_name = names["topology"] if spec.topology is not False else None
        self.register_outputs(
            {
                "local_queue_name": self.local_queue_name,
                "cluster_queue_name": self.cluster_queue_name,
                "resource_flavor_name": self.resource_flavor_name,
                "flavor_names": self.flavor_names,
                "admission_check_name": self.admission_check_name,
                "topology_name": self.topology_name,
                "api_version": self.api_version,
                "kueue_version": self.kueue_version,
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
    check_pod_fits(queue.flavors, field, count, queue.spec.tpu)
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
    command = check_command("command", command)
    if command:
        container["command"] = command
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
