"""Accelerator VMs and nodes without public IPs (an allow-list for exceptions)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..shapes import (
    CLUSTER,
    PoolSpec,
    accelerator_kind,
    body_of,
    node_pools,
    slurm_pools,
    vm_spec,
)
from ..values import UNKNOWN, as_bool, dig, matches_any, pick
from ..view import Context, ResourceView
from .base import Finding, Option, Rule

__all__ = ["NO_PUBLIC_IP"]


def _has_gpus(gpus: tuple[Any, Any]) -> bool:
    count = gpus[1]
    return isinstance(count, int) and count > 0


def _cluster_private(pool: PoolSpec, ctx: Context) -> Any:
    """Whether the pool's cluster gives nodes private IPs only: True/False, or UNKNOWN when
    the cluster is not in view (a policy pack sees one resource at a time)."""
    if pool.view.type == CLUSTER:
        cluster: ResourceView | None = pool.view
    else:
        name = pool.cluster_name
        if not isinstance(name, str):
            return UNKNOWN
        cluster = next(
            (v for v in ctx.stack if v.type == CLUSTER and name in (v.props.get("name"), v.name)),
            None,
        )
    if cluster is None:
        return UNKNOWN
    private = as_bool(dig(cluster.props, "privateClusterConfig", "enablePrivateNodes"))
    return False if private is None else private


def _pool_public(pool: PoolSpec, ctx: Context) -> bool:
    own = as_bool(pool.get("networkConfig", "enablePrivateNodes"))
    if own is not None:
        return own is False
    return _cluster_private(pool, ctx) is False


def _no_public_ip(view: ResourceView, cfg: dict[str, Any], ctx: Context) -> Iterator[Finding]:
    if matches_any(cfg.get("allowedResources") or [], view.name, view.urn):
        return
    vm = vm_spec(view)
    kind = accelerator_kind(vm.gpus(), vm.machine_type) if vm is not None else None
    if vm is not None and kind:
        for field in vm.public_ip_fields():
            yield Finding(
                f"{view.label}: {vm.prefix}{field} gives a {kind} VM a public IP; remove it "
                "(use Cloud NAT / IAP) or add the resource to allowedResources"
            )
    for pool in node_pools(view):
        kind = accelerator_kind(pool.gpus(), pool.get("nodeConfig", "machineType"))
        if kind and _pool_public(pool, ctx):
            where = f" {pool.where.rstrip('.')}" if pool.where else ""
            yield Finding(
                f"{view.label}{where}: {kind} nodes get public IPs; set "
                "networkConfig.enablePrivateNodes (or a private cluster) or add the resource "
                "to allowedResources"
            )
    top = pick(body_of(view), "enable_public_ips", "enablePublicIps")
    for spool in slurm_pools(view):
        public = as_bool(spool.get("enable_public_ips", "enablePublicIps"))
        public = as_bool(top) if public is None else public
        if public is True and _has_gpus(spool.gpus()):
            yield Finding(
                f"{view.label}: {spool.where}enable_public_ips is true on GPU node pool "
                f"{spool.id}; set it to false or add the resource to allowedResources"
            )


NO_PUBLIC_IP = Rule(
    name="no-public-ip-on-accelerators",
    description="GPU and TPU VMs and nodes must not have public IP addresses.",
    level="mandatory",
    scope="resource",
    check=_no_public_ip,
    options=(
        Option.strings(
            "allowedResources",
            "Resource names or URNs (globs allowed) that may have public IPs.",
        ),
    ),
    remediation="Drop accessConfigs / enable private nodes; reach nodes through IAP or NAT.",
)
