"""Kueue queues for DWS node pools and ComputeClasses (``KueueQueue``): its objects are
Kubernetes custom resources; the rules read a ``ProvisioningRequestConfig``'s
``maxRunDurationSeconds``, ``dws plan`` a ``ClusterQueue``'s flavors and quotas. In
``dws:capacity`` a queue's ``node_pool`` (or each of its ``flavors``) must name a node pool
(or ComputeClass) declared beside it."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from ... import catalog
from ...errors import DwsValidationError
from ...models import suggest
from ...policy.facts import RunLimit
from ...policy.values import dig
from ...policy.view import ResourceView
from ...registry import BlueprintEntry, CapacityKind, Ref, ResourceType, register
from ..common import kubernetes_summary
from .component import KueueQueue, KueueQueueArgs, KueueQueueSpec
from .merge import workload_pod_sets

__all__ = ["KIND", "PROVISIONING_REQUEST_CONFIG", "CLUSTER_QUEUE", "QUEUED_JOB"]

_AIDS = "pulumi_dws.kinds.kueue.testing"
PROVISIONING_REQUEST_CONFIG = (
    r"^kubernetes:kueue\.x-k8s\.io/v1[a-z0-9]*:ProvisioningRequestConfig\Z"
)
CLUSTER_QUEUE = r"^kubernetes:kueue\.x-k8s\.io/v1[a-z0-9]*:ClusterQueue\Z"
QUEUED_JOB = r"^kubernetes:(ray\.io/v1:RayJob|jobset\.x-k8s\.io/v1alpha2:JobSet)\Z"
_POOLS = "queued_node_pools"
_CLASSES = "compute_classes"
_ACCELERATORS = ("nvidia.com/gpu", "google.com/tpu")


def _cluster_queue_summary(view: ResourceView) -> dict[str, Any]:
    """The flavors in the order Kueue tries them, each with its GPU (or TPU chip) quota and
    whether it waits for a ProvisioningRequest."""
    spec = view.props.get("spec") or {}
    checked: set[str] = set()
    everywhere = bool(spec.get("admissionChecks"))
    for entry in dig(spec, "admissionChecksStrategy", "admissionChecks") or []:
        on = dig(entry, "onFlavors")
        if isinstance(on, list):
            checked.update(str(f) for f in on)
        else:
            everywhere = True
    flavors = []
    for group in spec.get("resourceGroups") or []:
        for flavor in dig(group, "flavors") or []:
            name = dig(flavor, "name")
            quota = {
                dig(r, "name"): dig(r, "nominalQuota")
                for r in dig(flavor, "resources") or []
                if dig(r, "name") in _ACCELERATORS
            }
            dws = everywhere or name in checked
            for resource, amount in quota.items():
                if isinstance(amount, float) and amount.is_integer():
                    amount = int(amount)
                unit = "GPUs" if resource == "nvidia.com/gpu" else "TPU chips"
                flavors.append(
                    f"{name}: {amount} {unit}" + (" (ProvisioningRequest)" if dws else "")
                )
    return {
        "cluster_queue": dig(view.props, "metadata", "name"),
        "flavors": " > ".join(flavors),
        "queueing": spec.get("queueingStrategy"),
    }


def _job_summary(view: ResourceView) -> dict[str, Any]:
    """A RayJob's or JobSet's queue, Pods, and the GPUs or TPU chips they request in all."""
    props = view.props
    try:
        pod_sets = workload_pod_sets(props)
    except (DwsValidationError, KeyError, TypeError, AttributeError):
        pod_sets = []
    totals: dict[str, Any] = {}
    for pod_set in pod_sets:
        for container in pod_set.pod_spec.get("containers") or []:
            requests = dig(container, "resources", "requests")
            if not isinstance(requests, dict):
                continue
            for resource in _ACCELERATORS:
                amount = requests.get(resource)
                if isinstance(amount, int | float | str) and str(amount).replace(".", "").isdigit():
                    totals[resource] = totals.get(resource, 0) + pod_set.count * int(float(amount))
    return {
        "queue": dig(props, "metadata", "labels", "kueue.x-k8s.io/queue-name"),
        "namespace": dig(props, "metadata", "namespace"),
        "pods": sum(p.count for p in pod_sets) or None,
        "gpus": totals.get("nvidia.com/gpu"),
        "tpu_chips": totals.get("google.com/tpu"),
        "suspended": dig(props, "spec", "suspend"),
    }


def _check_target(
    queue: BlueprintEntry, where: str, target: Any, pools: dict[str, BlueprintEntry], args: Any
) -> None:
    """One pool a queue (or a flavor of it) names: declared, same cluster, right quota."""
    pool = pools.get(target)
    if pool is None:
        declared = ", ".join(sorted(pools)) or "none"
        close = suggest(target, sorted(pools))
        hint = f"; did you mean {close}?" if close else ""
        raise DwsValidationError(
            f"{where}.node_pool",
            target,
            f"names no node pool declared in dws:capacity.{_POOLS} (declared: {declared}){hint}",
        )
    for field in ("cluster", "location", "project"):
        mine, theirs = queue.args.get(field), pool.args.get(field)
        if mine is not None and theirs is not None and mine != theirs:
            raise DwsValidationError(
                f"{queue.where}.{field}",
                mine,
                f"differs from the {field} of node pool {target} ({pool.where}: {theirs})",
            )
    tpu_pool = catalog.is_tpu_machine(pool.args.get("machine_type"))
    for quota, wanted in (("gpu_quota", not tpu_pool), ("tpu_quota", tpu_pool)):
        if args.get(quota) is not None and not wanted:
            has = "TPUs" if tpu_pool else "GPUs"
            other = "tpu_quota" if tpu_pool else "gpu_quota"
            raise DwsValidationError(
                f"{where}.{quota}",
                args[quota],
                f"does not fit node pool {target} ({pool.where}), which has {has}; give {other}",
            )
    queued = pool.args.get("mode", "queued") == "queued"
    if args.get("provisioning_request", True) and not queued:
        raise DwsValidationError(
            f"{where}.node_pool",
            target,
            f"is in mode {pool.args.get('mode')}; ProvisioningRequests need a pool in mode "
            "queued (or set provisioning_request: false)",
        )


def _check_class(
    queue: BlueprintEntry, where: str, named: str, cls: BlueprintEntry, flavor: Any
) -> None:
    """A class a queue's flavor names: on the queue's cluster, quota of its accelerator."""
    for field in ("cluster", "location", "project"):
        mine, theirs = queue.args.get(field), cls.args.get(field)
        if mine is not None and theirs is not None and mine != theirs:
            raise DwsValidationError(
                f"{queue.where}.{field}",
                mine,
                f"differs from the {field} of ComputeClass {named} ({cls.where}: {theirs})",
            )
    machines = [cls.args.get("machine_type")] + [
        p.get("machine_type") for p in cls.args.get("priorities") or [] if isinstance(p, dict)
    ]
    tpu = any(catalog.is_tpu_machine(m) for m in machines if isinstance(m, str))
    for quota, wanted in (("gpu_quota", not tpu), ("tpu_quota", tpu)):
        if flavor.get(quota) is not None and not wanted:
            has = "TPUs" if tpu else "GPUs"
            other = "tpu_quota" if tpu else "gpu_quota"
            raise DwsValidationError(
                f"{where}.{quota}",
                flavor[quota],
                f"does not fit ComputeClass {named} ({cls.where}), which has {has}; give {other}",
            )


def _config_parts(view: ResourceView) -> Iterator[RunLimit]:
    """A ProvisioningRequestConfig's run limit (the facts the general rules check)."""
    raw = dig(view.props, "spec", "parameters", "maxRunDurationSeconds")
    yield RunLimit("spec.parameters.maxRunDurationSeconds", raw, "kueue.max_run_duration")


def check_entries(entries: Sequence[BlueprintEntry]) -> None:
    """Each Kueue queue names queued node pools (or ComputeClasses) declared beside it, on the
    same cluster, in a mode its ProvisioningRequests can use."""
    pools = {str(e.args.get("name") or e.name): e for e in entries if e.kind.key == _POOLS}
    classes = {str(e.args.get("name") or e.name): e for e in entries if e.kind.key == _CLASSES}
    for queue in (e for e in entries if e.kind.key == KIND.key):
        target = queue.args.get("node_pool")
        if isinstance(target, str):
            _check_target(queue, queue.where, target, pools, queue.args)
        for i, flavor in enumerate(queue.args.get("flavors") or []):
            where = f"{queue.where}.flavors[{i}]"
            if not isinstance(flavor, dict):
                continue
            if isinstance(flavor.get("node_pool"), str):
                _check_target(queue, where, flavor["node_pool"], pools, flavor)
            named = flavor.get("compute_class")
            if isinstance(named, str) and named not in classes:
                declared = ", ".join(sorted(classes)) or "none"
                close = suggest(named, sorted(classes))
                hint = f"; did you mean {close}?" if close else ""
                raise DwsValidationError(
                    f"{where}.compute_class",
                    named,
                    f"names no ComputeClass declared in dws:capacity.{_CLASSES} "
                    f"(declared: {declared}){hint}",
                )
            if isinstance(named, str):
                _check_class(queue, where, named, classes[named], flavor)


KIND = register(
    CapacityKind(
        name="KueueQueue",
        component=KueueQueue,
        args=KueueQueueArgs,
        spec=KueueQueueSpec,
        key="kueue_queues",
        resources=(
            ResourceType(
                "kueue_config",
                pattern=PROVISIONING_REQUEST_CONFIG,
                parts=_config_parts,
                summary=kubernetes_summary,
                mock=Ref("pulumi_dws.testing.kinds.common:kubernetes"),
            ),
            ResourceType(
                "queued_job",
                pattern=QUEUED_JOB,
                summary=_job_summary,
                mock=Ref("pulumi_dws.testing.kinds.common:kubernetes"),
            ),
            ResourceType(
                "cluster_queue",
                pattern=CLUSTER_QUEUE,
                summary=_cluster_queue_summary,
                mock=Ref("pulumi_dws.testing.kinds.common:kubernetes"),
            ),
        ),
        test_aids=_AIDS,
        check_entries=check_entries,
    )
)
