"""Where Kueue puts the pod sets of a job that request none of the queue's accelerators (a
RayJob's submitter in ``K8sJobMode``, a head without GPUs), and whether they can start there
without a node of their own.

Kueue gives each pod set a flavor of its own, resource by resource
(kubernetes-sigs/kueue@ff69552e79ad21652c36caa97038382e55625cf7,
``pkg/scheduler/flavorassigner/flavorassigner.go``: ``assignFlavors``,
``findFlavorForPodSets``, ``checkFlavorForPodSets``): for each resource the pod set requests,
the first flavor of the resource group that covers it whose node labels the pod set's node
selector and required node affinity allow (only the flavor's own label keys are compared) and
whose quota has room. A :class:`~pulumi_dws.KueueQueue` covers CPU, memory and ephemeral
storage in the accelerator's resource group, without bound, so a pod set without
accelerators gets the first flavor its selector allows, whatever the accelerator quotas; the
job's accelerator pod sets may well get a later one. Once admitted, Kueue adds that flavor's
node labels to the pod set's ``nodeSelector`` and its tolerations to the Pods
(``pkg/podset/podset.go``, ``FromAssignment``). So such a pod set is pinned to the
accelerator nodes of its flavor:

* a ComputeClass flavor: GKE creates the class's nodes for pending Pods (node pool
  auto-creation), so a 500m-CPU Pod can start an 8-GPU node of its own;
* a pool in mode ``flex_start`` or ``reserved``: the cluster autoscaler adds the pool's nodes
  for pending Pods, likewise;
* a queued pool: no node is made for a Pod outside a ProvisioningRequest, so it can only use
  the nodes a request made, and they carry the ``cloud.google.com/gke-queued`` taint, which the
  pod set must tolerate (else it never starts while the job's nodes bill).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ...validation import is_output
from .flavors import Flavor
from .manifests import flavor_body
from .merge import PodSet, required_pod_sets, workload_pod_sets
from .spec import QUEUED_TAINT_KEY

__all__ = [
    "CpuOnlyPodSet",
    "flavor_for",
    "node_labels",
    "pod_sets_without_accelerators",
    "tolerates",
    "why_not_here",
]


@dataclass(frozen=True)
class CpuOnlyPodSet:
    """A pod set that requests none of the queue's accelerators, with the flavor Kueue gives
    it (None: none of the queue's flavors allows its node selector)."""

    pod_set: PodSet
    flavor: Flavor | None


def node_labels(flavor: Flavor) -> dict[str, Any]:
    """The node labels of a flavor's ResourceFlavor: the pool's or class's label and, for a TPU
    slice, its GKE TPU labels."""
    key, value = flavor.label
    labels: dict[str, Any] = {key: value}
    if flavor.tpu and flavor.slice is not None:
        labels.update(flavor.slice.gke_node_labels())
    return labels


def _same(wanted: Any, label: Any) -> bool:
    """A selector value against a label value; an Output on either side is not known yet and
    is taken to match (Kueue decides at admission)."""
    return wanted is label or is_output(wanted) or is_output(label) or wanted == label


def _requirement_allows(requirement: Mapping[str, Any], labels: Mapping[str, Any]) -> bool:
    key, operator = str(requirement.get("key")), requirement.get("operator")
    values = list(requirement.get("values") or [])
    if key not in labels:
        return True  # only the flavor's own label keys are compared
    value = labels[key]
    if operator == "In":
        return any(_same(v, value) for v in values)
    if operator == "NotIn":
        return not any(v is value or (not is_output(value) and v == value) for v in values)
    return operator != "DoesNotExist"  # Exists, Gt, Lt: as permissive as the label allows


def _allows(pod_set: PodSet, labels: Mapping[str, Any]) -> bool:
    spec = pod_set.pod_spec
    selector = spec.get("nodeSelector") or {}
    for key, wanted in selector.items():
        if key in labels and not _same(wanted, labels[key]):
            return False
    affinity = ((spec.get("affinity") or {}).get("nodeAffinity") or {}).get(
        "requiredDuringSchedulingIgnoredDuringExecution"
    ) or {}
    terms = [t.get("matchExpressions") or [] for t in affinity.get("nodeSelectorTerms") or []]
    if not terms:
        return True
    # The terms are ORed; a term with no expression on the flavor's keys matches any flavor.
    return any(all(_requirement_allows(r, labels) for r in term) for term in terms)


def flavor_for(pod_set: PodSet, flavors: Sequence[Flavor]) -> Flavor | None:
    """The flavor Kueue gives a pod set that requests no accelerator: the first of ``flavors``
    whose node labels its node selector and required node affinity allow."""
    return next((f for f in flavors if _allows(pod_set, node_labels(f))), None)


def pod_sets_without_accelerators(manifest: Mapping[str, Any], queue: Any) -> list[CpuOnlyPodSet]:
    """The pod sets of ``manifest`` (a Job, JobSet or RayJob) that request none of the
    accelerator ``queue`` (a :class:`~pulumi_dws.KueueQueue`) manages, each with its flavor."""
    pod_sets = [p for p in workload_pod_sets(manifest) if p.count > 0]
    using = {id(p) for p in required_pod_sets(pod_sets, [queue.spec.resource])}
    return [CpuOnlyPodSet(p, flavor_for(p, queue.flavors)) for p in pod_sets if id(p) not in using]


def tolerates(tolerations: Sequence[Mapping[str, Any]], key: str) -> bool:
    """Whether ``tolerations`` tolerate a ``NoSchedule`` taint with ``key``."""
    for t in tolerations:
        if t.get("effect") not in (None, "", "NoSchedule"):
            continue
        if t.get("operator") == "Exists" and t.get("key") in (None, "", key):
            return True
        if t.get("key") == key:
            return True
    return False


def why_not_here(item: CpuOnlyPodSet, queue: Any) -> str | None:
    """Why the pod set should not go where Kueue puts it (None: it can start there on the
    job's own nodes): a flavor whose nodes are made on demand, or a queued pool whose taint
    it does not tolerate, or no flavor at all."""
    flavor = item.flavor
    if flavor is None:
        return (
            "its node selector allows none of the queue's flavors, so Kueue would never admit "
            "the job"
        )
    index = next(i for i, f in enumerate(queue.flavors) if f is flavor)
    name = queue.flavor_names[index]
    machine = flavor.machine_type or "accelerator"
    shapes = ", ".join(f"{n} x {a}" for a, n in flavor.node_shapes)
    nodes = f"{machine} nodes" + (f" ({shapes})" if shapes else "")
    if flavor.compute_class is not None or flavor.class_name is not None:
        return (
            f"Kueue gives it the queue's first flavor its node selector allows, {name} "
            f"(ComputeClass {flavor.class_name}), whatever the GPU quotas, and pins it to that "
            f"class's {nodes}: GKE creates the class's nodes for pending Pods, so this Pod "
            "alone can start one (and the job's accelerator Pods may be on another flavor)"
        )
    if not flavor.queued:
        mode = flavor.pool.mode if flavor.pool is not None else "not queued"
        return (
            f"Kueue gives it the queue's first flavor its node selector allows, {name} (node "
            f"pool {flavor.known_label if isinstance(flavor.known_label, str) else flavor.suffix} "
            f"in mode {mode}), and pins it to the pool's {nodes}: the cluster autoscaler adds "
            "the pool's nodes for pending Pods, so this Pod alone can start one"
        )
    body = flavor_body(queue.spec, flavor, flavor.label[1])
    given = [*(item.pod_set.pod_spec.get("tolerations") or []), *body.get("tolerations", [])]
    if not tolerates(given, QUEUED_TAINT_KEY):
        return (
            f"Kueue pins it to the queued pool of flavor {name}, whose nodes (made only for "
            f"ProvisioningRequests) carry the {QUEUED_TAINT_KEY} taint, which it does not "
            "tolerate (the flavor tolerates it only with the queue's pod_set_merge_policy): it "
            "would never start, while the job's nodes bill"
        )
    return None
