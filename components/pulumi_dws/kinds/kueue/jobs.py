"""Jobs with more than one pod set, routed to a :class:`~pulumi_dws.KueueQueue`: a KubeRay
``RayJob`` (a head and workers) and a ``JobSet`` (a leader and workers), beside
:func:`~pulumi_dws.kueue_job` (one ``batch/v1`` Job).

Each helper returns a complete manifest (register it with
``pulumi_kubernetes.apiextensions.CustomResource``, or write it out as YAML) that carries the
queue's label and ``suspend: true``, and gives every pod set of the job the same node selectors
and tolerations: the pool's (or the ComputeClass's) and, for a queued pool, the
``cloud.google.com/gke-queued`` taint's. With a :class:`~pulumi_dws.KueueQueue` that uses
ProvisioningRequests the helper also checks what Kueue will ask GKE for
(:mod:`.merge`): one pod set per request, or a clear error saying why not and what to change.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ...catalog import TPU_ACCELERATOR_LABEL
from ...duration import DurationLike
from ...errors import DwsValidationError
from ..compute_class.component import COMPUTE_CLASS_LABEL, ComputeClass
from ..node_pool.component import NODE_POOL_LABEL
from .assign import pod_sets_without_accelerators, why_not_here
from .component import KueueQueue, kueue_job_fields
from .flavors import check_accelerator_type, check_pod_fits
from .merge import (
    RequestPodSet,
    difference,
    merged_pod_sets,
    required_pod_sets,
    workload_pod_sets,
)
from .spec import (
    GPU_RESOURCE,
    GPU_TOLERATION,
    QUEUED_TOLERATION,
    TPU_RESOURCE,
    TPU_TOLERATION,
    check_command,
    check_k8s_name,
    check_quantity,
    kueue_release,
)

__all__ = [
    "RAY_API_VERSION",
    "JOBSET_API_VERSION",
    "ACCELERATOR_LABEL",
    "REQUIRED_TOPOLOGY_ANNOTATION",
    "PREFERRED_TOPOLOGY_ANNOTATION",
    "SUBMISSION_MODES",
    "kueue_ray_job",
    "kueue_jobset",
    "provisioning_request_pod_sets",
]

RAY_API_VERSION = "ray.io/v1"
JOBSET_API_VERSION = "jobset.x-k8s.io/v1alpha2"
ACCELERATOR_LABEL = "cloud.google.com/gke-accelerator"
REQUIRED_TOPOLOGY_ANNOTATION = "kueue.x-k8s.io/podset-required-topology"
PREFERRED_TOPOLOGY_ANNOTATION = "kueue.x-k8s.io/podset-preferred-topology"
# KubeRay's submission modes Kueue reads (kubernetes-sigs/kueue@ff69552e79ad21652c36caa97038382e
# 55625cf7 pkg/controller/jobs/rayjob/rayjob_controller.go, addSubmitterPodSet): K8sJobMode adds
# a "submitter" pod set (KubeRay's submitter Job: 500m CPU, 200Mi, no accelerator), which Kueue
# gives a flavor of its own (see .assign); HTTPMode none: KubeRay's operator sends the job to
# the head's dashboard (ray-project/kuberay@feeaf72facab4881ba2b179248bb67315634e229
# ray-operator/apis/ray/v1/rayjob_types.go; since KubeRay 1.1.0, the oldest Kueue's RayJob
# integration supports). SidecarMode adds a container to the head, which then no longer merges
# with the workers. HTTPMode is the helpers' default.
SUBMISSION_MODES = ("HTTPMode", "K8sJobMode")
_GKE_SINGLE_POD_SET = (
    "GKE's queued provisioning takes one pod set per ProvisioningRequest (ray-project/ray#57839; "
    "https://docs.cloud.google.com/kubernetes-engine/docs/how-to/provisioningrequest)"
)


def _count(field: str, value: Any, at_least: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < at_least:
        raise DwsValidationError(field, value, f"must be a whole number >= {at_least}")
    return value


def _class_name(value: ComputeClass | str | None) -> str | None:
    if value is None or isinstance(value, str):
        if isinstance(value, str):
            check_k8s_name("compute_class", value)
        return value
    if isinstance(value, ComputeClass):
        return value.name
    raise DwsValidationError("compute_class", value, "must be a ComputeClass or a class name")


def _resource(queue: KueueQueue | str, gpus: int | None, tpu_chips: int | None) -> tuple[str, int]:
    if (gpus is None) == (tpu_chips is None):
        raise DwsValidationError(
            "gpus", gpus, "give gpus (a GPU queue) or tpu_chips (a TPU queue), one of them"
        )
    field, count = ("gpus", gpus) if gpus is not None else ("tpu_chips", tpu_chips)
    _count(field, count)
    resource = GPU_RESOURCE if field == "gpus" else TPU_RESOURCE
    if isinstance(queue, KueueQueue) and queue.spec.resource != resource:
        manages = "TPU chips (google.com/tpu)" if queue.spec.tpu else "GPUs (nvidia.com/gpu)"
        other = "tpu_chips" if queue.spec.tpu else "gpus"
        raise DwsValidationError(
            field, count, f"does not fit the queue, which manages {manages}; give {other}"
        )
    assert count is not None
    if isinstance(queue, KueueQueue):
        check_pod_fits(queue.flavors, field, count, resource == TPU_RESOURCE)
    return resource, count


def _placement(
    queue: KueueQueue | str,
    compute_class: ComputeClass | str | None,
    resource: str,
    accelerator_type: str | None,
    autopilot: bool,
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The node selector and tolerations every pod set of the job gets."""
    selector: dict[str, Any] = {}
    tpu = resource == TPU_RESOURCE
    label = TPU_ACCELERATOR_LABEL if tpu else ACCELERATOR_LABEL
    if accelerator_type is not None:
        flavors = queue.flavors if isinstance(queue, KueueQueue) else []
        accelerator_type = check_accelerator_type(
            flavors, "accelerator_type", accelerator_type, tpu
        )
    class_name = _class_name(compute_class)
    single = isinstance(queue, KueueQueue) and len(queue.flavors) == 1
    if class_name is not None:
        selector[COMPUTE_CLASS_LABEL] = class_name
    elif single:
        assert isinstance(queue, KueueQueue)
        key, value = queue.flavors[0].label
        selector[key] = value
    if autopilot:
        if NODE_POOL_LABEL in selector:
            raise DwsValidationError(
                "queue",
                queue.local_queue_name if isinstance(queue, KueueQueue) else queue,
                "selects a node pool (cloud.google.com/gke-nodepool), which Autopilot refuses in "
                "a node selector (GoogleCloudPlatform/ai-on-gke#983); route it to a ComputeClass",
            )
        if COMPUTE_CLASS_LABEL not in selector:
            if accelerator_type is None:
                raise DwsValidationError(
                    "compute_class",
                    "(missing)",
                    "or accelerator_type is required on Autopilot: a GPU Pod must select a "
                    "ComputeClass with a GPU rule or cloud.google.com/gke-accelerator "
                    "(GoogleCloudPlatform/ai-on-gke#983)",
                )
            selector[label] = accelerator_type
    elif accelerator_type is not None:
        selector[label] = accelerator_type
    tolerations = [dict(GPU_TOLERATION if resource == GPU_RESOURCE else TPU_TOLERATION)]
    if isinstance(queue, KueueQueue) and any(f.queued for f in queue.flavors):
        tolerations.append(dict(QUEUED_TOLERATION))
    return selector, tolerations


def _pod(
    container: str,
    image: str,
    requests: Mapping[str, Any],
    command: Sequence[str] | None,
    selector: Mapping[str, Any],
    tolerations: Sequence[Mapping[str, Any]],
    annotations: Mapping[str, str],
    restart_policy: str | None = None,
) -> dict[str, Any]:
    main: dict[str, Any] = {
        "name": container,
        "image": image,
        "resources": {"requests": dict(requests), "limits": dict(requests)},
    }
    command = check_command("command", command)
    if command:
        main["command"] = command
    spec: dict[str, Any] = {"containers": [main]}
    if selector:
        spec["nodeSelector"] = dict(selector)
    spec["tolerations"] = [dict(t) for t in tolerations]
    if restart_policy is not None:
        spec["restartPolicy"] = restart_policy
    template: dict[str, Any] = {"spec": spec}
    if annotations:
        template["metadata"] = {"annotations": dict(annotations)}
    return template


def _requests(
    resource: str, count: int, cpu: int | str | None, memory: str | None
) -> dict[str, Any]:
    requests: dict[str, Any] = {resource: count}
    if cpu is not None:
        requests["cpu"] = check_quantity("cpu", cpu)
    if memory is not None:
        requests["memory"] = check_quantity("memory", memory)
    return requests


def _topology(queue: KueueQueue | str, topology: str | None, required: bool) -> dict[str, str]:
    if topology is None:
        return {}
    if isinstance(queue, KueueQueue):
        levels = queue.spec.topology_levels
        if not levels:
            raise DwsValidationError(
                "topology",
                topology,
                "needs a queue with a Topology (KueueQueue topology: True); this one has none",
            )
        if topology not in levels:
            raise DwsValidationError(
                "topology", topology, f"is not a level of the queue's Topology: {', '.join(levels)}"
            )
    key = REQUIRED_TOPOLOGY_ANNOTATION if required else PREFERRED_TOPOLOGY_ANNOTATION
    return {key: topology}


def _namespace(queue: KueueQueue | str, namespace: str) -> None:
    check_k8s_name("namespace", namespace)
    if isinstance(queue, KueueQueue) and namespace not in queue.namespaces:
        raise DwsValidationError(
            "namespace",
            namespace,
            f"has no LocalQueue {queue.local_queue_name}, so Kueue would never admit the job; "
            f"use one of the queue's namespaces ({', '.join(queue.namespaces)})",
        )


def provisioning_request_pod_sets(
    manifest: Mapping[str, Any], queue: KueueQueue
) -> list[RequestPodSet]:
    """The pod sets of the ProvisioningRequest Kueue makes for ``manifest`` (a Job, JobSet or
    RayJob) on ``queue``: the pod sets that request its GPUs or TPU chips, merged by its
    ``pod_set_merge_policy`` (empty for a queue without ProvisioningRequests)."""
    if not queue.spec.uses_provisioning_request:
        return []
    wanted = required_pod_sets(workload_pod_sets(manifest), [queue.spec.resource])
    return merged_pod_sets(wanted, queue.pod_set_merge_policy)


def _one_request(manifest: Mapping[str, Any], queue: KueueQueue | str, hint: str) -> None:
    """Refuse a job whose request GKE would refuse, saying why and what to change."""
    if not isinstance(queue, KueueQueue):
        return
    groups = provisioning_request_pod_sets(manifest, queue)
    if len(groups) <= 1:
        return
    names = ", ".join("+".join(g.names) for g in groups)
    policy = queue.pod_set_merge_policy
    release = kueue_release(queue.kueue_version)
    if policy is None and release[:2] < (0, 12):
        fix = (
            f"Kueue {queue.kueue_version} cannot merge pod sets (podSetMergePolicy needs Kueue "
            f"0.12 or later): upgrade Kueue and set the queue's pod_set_merge_policy, or {hint}"
        )
    elif policy is None:
        fix = (
            "set the queue's pod_set_merge_policy to IdenticalWorkloadSchedulingRequirements "
            f"(Kueue {queue.kueue_version} has it), or {hint}"
        )
    else:
        pod_sets = required_pod_sets(workload_pod_sets(manifest), [queue.spec.resource])
        why = difference(pod_sets[0], pod_sets[1], policy) or "their templates"
        fix = f"the queue's pod_set_merge_policy {policy} cannot merge them: {why} differ"
    raise DwsValidationError(
        "queue",
        queue.local_queue_name,
        f"would get a ProvisioningRequest with {len(groups)} pod sets ({names}); "
        f"{_GKE_SINGLE_POD_SET}: {fix}",
    )


def _pod_sets_without_accelerators(
    manifest: Mapping[str, Any], queue: KueueQueue | str, fields: Mapping[str, tuple[str, Any, str]]
) -> None:
    """Refuse a pod set that requests none of the queue's accelerators where Kueue would pin it
    to nodes made on demand, or to nodes it cannot start on (:mod:`.assign`); ``fields`` maps a
    pod set's name to the argument that made it, its value and what to do instead."""
    if not isinstance(queue, KueueQueue):
        return
    what = "TPU chips" if queue.spec.tpu else "GPUs"
    for item in pod_sets_without_accelerators(manifest, queue):
        why = why_not_here(item, queue)
        if why is None:
            continue
        name = item.pod_set.name
        field, value, fix = fields.get(name, ("queue", queue.local_queue_name, ""))
        raise DwsValidationError(
            field,
            value,
            f"makes a pod set ({name}) that requests no {what}: {why}; {fix}".rstrip("; "),
        )


def kueue_ray_job(
    name: str,
    *,
    queue: KueueQueue | str,
    image: str,
    entrypoint: str,
    workers: int,
    gpus: int | None = None,
    tpu_chips: int | None = None,
    head_accelerators: bool = True,
    namespace: str = "default",
    cpu: int | str | None = None,
    memory: str | None = None,
    max_run_duration: DurationLike | None = None,
    compute_class: ComputeClass | str | None = None,
    accelerator_type: str | None = None,
    autopilot: bool = False,
    topology: str | None = None,
    topology_required: bool = True,
    ray_version: str = "2.46.0",
    submission_mode: str = "HTTPMode",
) -> dict[str, Any]:
    """A KubeRay ``RayJob`` (``ray.io/v1``) of a head and ``workers`` workers, each Pod with
    ``gpus`` GPUs (or ``tpu_chips`` TPU chips), queued on ``queue``.

    The head requests what a worker requests (``head_accelerators``), so that with the queue's
    ``pod_set_merge_policy`` the head and the workers merge into the one pod set GKE's queued
    provisioning takes; with ``head_accelerators=False`` the head needs no GPUs and stays out
    of the request (which then carries the workers alone, on any Kueue release).
    ``compute_class`` (or, on a one-flavor queue, the queue's pool or class) is the node
    selector of every Pod; ``autopilot`` checks what Autopilot requires of GPU Pods.
    ``topology``: a level of the queue's Topology the Pods must (``topology_required``) or
    should share. ``max_run_duration``: the ProvisioningRequest's, per job.

    ``submission_mode``: ``HTTPMode`` (default; KubeRay's operator sends the job to the head,
    no Pod of its own) or ``K8sJobMode`` (a submitter Job: a pod set with no accelerator). On a
    :class:`KueueQueue`, a pod set without accelerators (the submitter, or the head with
    ``head_accelerators=False``) is refused where Kueue would pin it to a ComputeClass or an
    autoscaled pool (GKE could make an accelerator node for it alone) or to a queued pool whose
    taint it does not tolerate (:mod:`pulumi_dws.kinds.kueue.assign`).
    """
    check_k8s_name("name", name)
    _namespace(queue, namespace)
    if not isinstance(entrypoint, str) or not entrypoint.strip():
        raise DwsValidationError("entrypoint", entrypoint, "must be the command Ray runs")
    _count("workers", workers)
    if submission_mode not in SUBMISSION_MODES:
        raise DwsValidationError(
            "submission_mode",
            submission_mode,
            f"is not allowed; use {' or '.join(SUBMISSION_MODES)} (SidecarMode adds a container "
            "to the head, which then cannot merge with the workers)",
        )
    resource, count = _resource(queue, gpus, tpu_chips)
    selector, tolerations = _placement(queue, compute_class, resource, accelerator_type, autopilot)
    annotations = _topology(queue, topology, topology_required)
    requests = _requests(resource, count, cpu, memory)
    head_requests = dict(requests)
    head_tolerations = tolerations
    if not head_accelerators:
        head_requests.pop(resource)
        if autopilot:  # Autopilot refuses GPU tolerations on Pods that request no GPU
            head_tolerations = [t for t in tolerations if t["key"] != GPU_RESOURCE]
    fields = kueue_job_fields(queue, max_run_duration)
    head = _pod("ray-head", image, head_requests, None, selector, head_tolerations, annotations)
    worker = _pod("ray-worker", image, requests, None, selector, tolerations, annotations)
    manifest: dict[str, Any] = {
        "apiVersion": RAY_API_VERSION,
        "kind": "RayJob",
        "metadata": {"name": name, "namespace": namespace, **fields["metadata"]},
        "spec": {
            "suspend": True,
            "entrypoint": entrypoint,
            "shutdownAfterJobFinishes": True,
            "submissionMode": submission_mode,
            "rayClusterSpec": {
                "rayVersion": ray_version,
                "headGroupSpec": {"rayStartParams": {}, "template": head},
                "workerGroupSpecs": [
                    {
                        "groupName": "workers",
                        "replicas": workers,
                        "minReplicas": workers,
                        "maxReplicas": workers,
                        "rayStartParams": {},
                        "template": worker,
                    }
                ],
            },
        },
    }
    _pod_sets_without_accelerators(
        manifest,
        queue,
        {
            "submitter": (
                "submission_mode",
                submission_mode,
                "use submission_mode HTTPMode (the default): KubeRay's operator then sends the "
                "job to the head, and there is no submitter Pod",
            ),
            "head": (
                "head_accelerators",
                False,
                "give the head the workers' accelerators (head_accelerators=True, with the "
                "queue's pod_set_merge_policy) so it runs on the job's own nodes",
            ),
        },
    )
    _one_request(manifest, queue, "give the head no accelerators (head_accelerators=False)")
    return manifest


def kueue_jobset(
    name: str,
    *,
    queue: KueueQueue | str,
    image: str,
    workers: int,
    gpus: int | None = None,
    tpu_chips: int | None = None,
    leader: bool = True,
    command: Sequence[str] | None = None,
    namespace: str = "default",
    cpu: int | str | None = None,
    memory: str | None = None,
    max_run_duration: DurationLike | None = None,
    compute_class: ComputeClass | str | None = None,
    accelerator_type: str | None = None,
    autopilot: bool = False,
    topology: str | None = None,
    topology_required: bool = True,
) -> dict[str, Any]:
    """A ``JobSet`` (``jobset.x-k8s.io/v1alpha2``) of a ``leader`` Pod and ``workers`` worker
    Pods (two replicated jobs; ``leader=False``: the workers alone), each with ``gpus`` GPUs
    (or ``tpu_chips``), queued on ``queue``; the leader requests what a worker does, so the
    queue's ``pod_set_merge_policy`` merges them into one pod set for GKE. The other arguments
    are :func:`kueue_ray_job`'s."""
    check_k8s_name("name", name)
    _namespace(queue, namespace)
    _count("workers", workers)
    resource, count = _resource(queue, gpus, tpu_chips)
    selector, tolerations = _placement(queue, compute_class, resource, accelerator_type, autopilot)
    annotations = _topology(queue, topology, topology_required)
    requests = _requests(resource, count, cpu, memory)
    fields = kueue_job_fields(queue, max_run_duration)

    def replicated(job: str, pods: int) -> dict[str, Any]:
        pod = _pod(job, image, requests, command, selector, tolerations, annotations, "Never")
        return {
            "name": job,
            "replicas": 1,
            "template": {
                "spec": {
                    "parallelism": pods,
                    "completions": pods,
                    "backoffLimit": 0,
                    "template": pod,
                }
            },
        }

    jobs = [replicated("leader", 1)] if leader else []
    jobs.append(replicated("workers", workers))
    manifest: dict[str, Any] = {
        "apiVersion": JOBSET_API_VERSION,
        "kind": "JobSet",
        "metadata": {"name": name, "namespace": namespace, **fields["metadata"]},
        "spec": {"suspend": True, "replicatedJobs": jobs},
    }
    _one_request(manifest, queue, "run the workers alone (leader=False)")
    return manifest
