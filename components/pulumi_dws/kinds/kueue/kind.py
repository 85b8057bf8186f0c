"""Kueue queues for DWS node pools (``KueueQueue``): its objects are Kubernetes custom
resources; the rules read a ``ProvisioningRequestConfig``'s ``maxRunDurationSeconds``. In
``dws:capacity`` a queue must name a queued node pool declared beside it."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from ... import catalog
from ...errors import DwsValidationError
from ...models import suggest
from ...policy.facts import RunLimit
from ...policy.values import dig
from ...policy.view import ResourceView
from ...registry import BlueprintEntry, CapacityKind, Ref, ResourceType, register
from ..common import kubernetes_summary
from .component import KueueQueue, KueueQueueArgs, KueueQueueSpec

__all__ = ["KIND", "PROVISIONING_REQUEST_CONFIG"]

_AIDS = "pulumi_dws.kinds.kueue.testing"
PROVISIONING_REQUEST_CONFIG = (
    r"^kubernetes:kueue\.x-k8s\.io/v1[a-z0-9]*:ProvisioningRequestConfig\Z"
)
_POOLS = "queued_node_pools"


def _config_parts(view: ResourceView) -> Iterator[RunLimit]:
    """A ProvisioningRequestConfig's run limit (the facts the general rules check)."""
    raw = dig(view.props, "spec", "parameters", "maxRunDurationSeconds")
    yield RunLimit("spec.parameters.maxRunDurationSeconds", raw, "kueue.max_run_duration")


def check_entries(entries: Sequence[BlueprintEntry]) -> None:
    """Each Kueue queue names a queued node pool declared beside it, on the same cluster, in a
    mode its ProvisioningRequests can use."""
    pools = {str(e.args.get("name") or e.name): e for e in entries if e.kind.key == _POOLS}
    for queue in (e for e in entries if e.kind.key == KIND.key):
        target = queue.args.get("node_pool")
        if not isinstance(target, str):
            continue
        pool = pools.get(target)
        if pool is None:
            declared = ", ".join(sorted(pools)) or "none"
            close = suggest(target, sorted(pools))
            hint = f"; did you mean {close}?" if close else ""
            raise DwsValidationError(
                f"{queue.where}.node_pool",
                target,
                f"names no node pool declared in dws:capacity.{_POOLS} "
                f"(declared: {declared}){hint}",
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
            if queue.args.get(quota) is not None and not wanted:
                has = "TPUs" if tpu_pool else "GPUs"
                other = "tpu_quota" if tpu_pool else "gpu_quota"
                raise DwsValidationError(
                    f"{queue.where}.{quota}",
                    queue.args[quota],
                    f"does not fit node pool {target} ({pool.where}), which has {has}; "
                    f"give {other}",
                )
        queued = pool.args.get("mode", "queued") == "queued"
        if queue.args.get("provisioning_request", True) and not queued:
            raise DwsValidationError(
                f"{queue.where}.node_pool",
                target,
                f"is in mode {pool.args.get('mode')}; ProvisioningRequests need a pool in mode "
                "queued (or set provisioning_request: false)",
            )


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
        ),
        test_aids=_AIDS,
        check_entries=check_entries,
    )
)
