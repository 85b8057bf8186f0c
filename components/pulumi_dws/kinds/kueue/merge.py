"""What Kueue puts in a job's ProvisioningRequest: its pod sets, which of them need the
provisioned resources, and how ``podSetMergePolicy`` merges them.

GKE's queued provisioning (``queued-provisioning.gke.io``) takes one pod set per request
("the queued provisioning feature currently supports only single PodSet per request",
ray-project/ray#57839; "use the IdenticalWorkloadSchedulingRequirements option in the
podSetMergePolicy feature to merge Pod templates that have identical scheduling requirements",
https://docs.cloud.google.com/kubernetes-engine/docs/how-to/provisioningrequest). This module
reads a job manifest as Kueue does and says whether its request would have one pod set, so the
job helpers refuse, with the reason, a job GKE would refuse after it was queued.

Modelled on kubernetes-sigs/kueue at ff69552e79ad21652c36caa97038382e55625cf7:
``pkg/controller/jobs/{job,jobset,rayjob,raycluster}`` (``PodSets``: a batch Job's one pod set
of ``min(parallelism, completions)`` Pods; a JobSet's pod set per replicated job of
``replicas x min(parallelism, completions)``; a RayJob's ``head`` (1), one per worker group
(``replicas x numOfHosts``) and, in ``K8sJobMode``, the ``submitter`` (1, CPU only)) and
``pkg/controller/admissionchecks/provisioning/controller.go`` (``requiredPodSets``: the pod sets
that request one of ``managedResources``; ``mergePodSets``/``canMergePodSets``:
``IdenticalPodTemplates`` merges equal templates, ``IdenticalWorkloadSchedulingRequirements``
pod sets whose containers' and init containers' requests, pod resources, node selector,
tolerations, affinity and resource claims are equal).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from ...errors import DwsValidationError

__all__ = [
    "PodSet",
    "RequestPodSet",
    "workload_pod_sets",
    "required_pod_sets",
    "merged_pod_sets",
    "difference",
]

# KubeRay's submitter defaults, as Kueue counts them (rayjob_controller.go,
# defaultSubmitterResources): requests 500m CPU and 200Mi, limits 1 CPU and 1Gi.
_SUBMITTER = {
    "name": "ray-job-submitter",
    "resources": {
        "requests": {"cpu": "500m", "memory": "200Mi"},
        "limits": {"cpu": "1", "memory": "1Gi"},
    },
}
_SUFFIX: dict[str, int | Decimal] = {
    "Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60,
    "n": Decimal("1e-9"), "u": Decimal("1e-6"), "m": Decimal("1e-3"), "": 1,
    "k": 10**3, "M": 10**6, "G": 10**9, "T": 10**12, "P": 10**15, "E": 10**18,
}  # fmt: skip
_QUANTITY = re.compile(r"^([+-]?[0-9.]+)([eE][+-]?[0-9]+|[KMGTPE]i|[numkMGTPE])?\Z")


@dataclass(frozen=True)
class PodSet:
    """One pod set of a Kueue workload: its name, Pods and Pod template."""

    name: str
    count: int
    template: Mapping[str, Any]

    @property
    def pod_spec(self) -> Mapping[str, Any]:
        spec = self.template.get("spec")
        return spec if isinstance(spec, Mapping) else {}


@dataclass(frozen=True)
class RequestPodSet:
    """One pod set of the ProvisioningRequest: the workload pod sets merged into it."""

    names: tuple[str, ...]
    count: int
    template: Mapping[str, Any]


def _quantity(value: Any) -> Decimal | Any:
    """A Kubernetes quantity as a number (``"8"``, 8 and ``8000m`` are equal), else as is."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float):
        return Decimal(str(value))
    if isinstance(value, str):
        found = _QUANTITY.match(value)
        if found:
            number, suffix = found.groups()
            if suffix and suffix[0] in "eE":
                return Decimal(number + suffix)
            return Decimal(number) * _SUFFIX[suffix or ""]
    return value


def _requests(container: Mapping[str, Any]) -> dict[str, Any]:
    resources = container.get("resources") or {}
    requests = dict(resources.get("requests") or {})
    return {name: _quantity(v) for name, v in requests.items()}


def _empty_is_none(value: Any) -> Any:
    """Semantic equality, as Kubernetes' ``equality.Semantic`` has it: nil and empty agree."""
    return None if value in (None, {}, []) else value


def difference(one: PodSet, other: PodSet, policy: str) -> str | None:
    """Why ``policy`` would not merge two pod sets (None: it would)."""
    if policy == "IdenticalPodTemplates":
        return None if dict(one.template) == dict(other.template) else "their Pod templates"
    a, b = one.pod_spec, other.pod_spec
    for key in ("containers", "initContainers"):
        first, second = a.get(key) or [], b.get(key) or []
        if len(first) != len(second):
            return f"the number of {key} ({len(first)} and {len(second)})"
        for x, y in zip(first, second, strict=True):
            if _requests(x) != _requests(y):
                return f"the resource requests of their {key}"
    for key in ("resources", "nodeSelector", "tolerations", "affinity", "resourceClaims"):
        if _empty_is_none(a.get(key)) != _empty_is_none(b.get(key)):
            return f"their {key}"
    return None


def _uses(pod: PodSet, resources: Sequence[str]) -> bool:
    containers = [
        *(pod.pod_spec.get("initContainers") or []),
        *(pod.pod_spec.get("containers") or []),
    ]
    return any(name in resources for c in containers for name in _requests(c))


def required_pod_sets(pod_sets: Sequence[PodSet], resources: Sequence[str]) -> list[PodSet]:
    """The pod sets a request carries: those with Pods that request one of ``resources``
    (all of them when ``resources`` is empty)."""
    return [p for p in pod_sets if p.count > 0 and (not resources or _uses(p, resources))]


def merged_pod_sets(pod_sets: Sequence[PodSet], policy: str | None) -> list[RequestPodSet]:
    """The request's pod sets: with ``policy``, each pod set joins the first earlier group it
    merges with (Kueue's order); without, one each."""
    groups: list[tuple[PodSet, list[str], int]] = []
    for pod in pod_sets:
        for i, (first, names, count) in enumerate(groups):
            if policy is not None and difference(first, pod, policy) is None:
                groups[i] = (first, [*names, pod.name], count + pod.count)
                break
        else:
            groups.append((pod, [pod.name], pod.count))
    return [RequestPodSet(tuple(names), count, first.template) for first, names, count in groups]


def _int(value: Any, default: int) -> int:
    """A count as written (``3``, or the ``3.0`` a preview hands back), else ``default``."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def _job_pods(job_spec: Mapping[str, Any]) -> int:
    parallelism = _int(job_spec.get("parallelism"), 1)
    completions = _int(job_spec.get("completions"), parallelism)
    return min(parallelism, completions)


def workload_pod_sets(manifest: Mapping[str, Any]) -> list[PodSet]:
    """The pod sets Kueue makes of a ``batch/v1`` Job, a JobSet or a RayJob manifest."""
    kind, spec = manifest.get("kind"), manifest.get("spec") or {}
    if kind == "Job":
        return [PodSet("main", _job_pods(spec), spec.get("template") or {})]
    if kind == "JobSet":
        return [
            PodSet(
                str(rj.get("name")),
                _int(rj.get("replicas"), 1) * _job_pods(rj["template"]["spec"]),
                rj["template"]["spec"].get("template") or {},
            )
            for rj in spec.get("replicatedJobs") or []
        ]
    if kind == "RayJob":
        cluster = spec.get("rayClusterSpec") or {}
        head = (cluster.get("headGroupSpec") or {}).get("template") or {}
        out = [PodSet("head", 1, head)]
        for group in cluster.get("workerGroupSpecs") or []:
            hosts = max(_int(group.get("numOfHosts"), 1), 1)
            out.append(
                PodSet(
                    str(group.get("groupName")),
                    _int(group.get("replicas"), 1) * hosts,
                    group.get("template") or {},
                )
            )
        if spec.get("submissionMode", "K8sJobMode") == "K8sJobMode":
            template = spec.get("submitterPodTemplate") or {
                "spec": {"containers": [dict(_SUBMITTER)], "restartPolicy": "Never"}
            }
            out.append(PodSet("submitter", 1, template))
        return out
    raise DwsValidationError(
        "manifest.kind", kind, "is not a kind Kueue's integrations read here: Job, JobSet, RayJob"
    )
