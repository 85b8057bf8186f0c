"""GKE node pools that DWS fills (``QueuedNodePool``), and the node pools and clusters users
register with pulumi-gcp directly: a ``gcp.container.NodePool`` is read as itself, a
``gcp.container.Cluster`` as its inline ``nodePools``."""

from __future__ import annotations

import functools
from collections.abc import Iterator
from typing import Any

from ...plan.summary import duration_text, gpu_hours
from ...policy.capacity import CapacityItem, consumer_item, known_or_none, run_hours
from ...policy.facts import Labels, MachineUse, PublicIp, RunLimit, is_capacity
from ...policy.shapes import CLUSTER, NODE_POOL, accelerator_kind
from ...policy.values import UNKNOWN, as_bool, as_int, dig
from ...policy.view import Context, ResourceView
from ...registry import CapacityKind, Ref, ResourceType, register
from .component import QueuedNodePool, QueuedNodePoolArgs, QueuedNodePoolSpec
from .rules import RULES
from .shapes import PoolSpec, node_pools

__all__ = ["KIND", "read_parts", "read_pools"]

_AIDS = "pulumi_dws.kinds.node_pool.testing"


def read_pools(view: ResourceView) -> Iterator[PoolSpec]:
    """The node pools a resource defines: itself (NodePool) or its inline ``nodePools``."""
    if view.type == NODE_POOL:
        yield PoolSpec(view, "", view.props)
    elif view.type == CLUSTER:
        pools = view.props.get("nodePools")
        if isinstance(pools, list):
            for i, pool in enumerate(pools):
                yield PoolSpec(view, f"nodePools[{i}].", pool)


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


def _public(pool: PoolSpec, ctx: Context) -> bool:
    own = as_bool(pool.get("networkConfig", "enablePrivateNodes"))
    if own is not None:
        return own is False
    return _cluster_private(pool, ctx) is False


def read_parts(view: ResourceView) -> Iterator[Any]:
    """The node pools a resource defines (:func:`read_pools`), each followed by the facts the
    general rules check: a DWS pool's run limit, its machine type, a capacity pool's labels, an
    accelerator pool's public IPs."""
    for pool in read_pools(view):
        yield pool
        machine = pool.get("nodeConfig", "machineType")
        if pool.dws is True:
            yield RunLimit(
                f"{pool.where}nodeConfig.maxRunDuration",
                pool.get("nodeConfig", "maxRunDuration"),
                "gke.max_run_duration",
                required_by="requireOnNodePools",
                when_required="this stack's policy requires a max run duration on queued / "
                "Flex-start node pools (GKE's default is 7d)",
            )
        yield MachineUse(
            f"{pool.where}nodeConfig.machineType",
            machine,
            as_bool(pool.get("nodeConfig", "flexStart")),
        )
        if is_capacity(pool.gpus(), machine, pool.dws) is True:
            labels = pool.get("nodeConfig", "resourceLabels")
            yield Labels(f"{pool.where}nodeConfig.resourceLabels", labels)
        kind = accelerator_kind(pool.gpus(), machine)
        if kind:
            yield PublicIp(
                f"{kind} nodes get public IPs",
                "set networkConfig.enablePrivateNodes (or a private cluster)",
                where=f" {pool.where.rstrip('.')}" if pool.where else "",
                public=functools.partial(_public, pool),
            )


def _pool_units(pool: PoolSpec, notes: list[str]) -> Any:
    autoscaling = pool.get("autoscaling")
    if autoscaling is UNKNOWN:
        return UNKNOWN
    total = as_int(dig(autoscaling, "totalMaxNodeCount"))
    if total is not None:
        return total
    per_zone = as_int(dig(autoscaling, "maxNodeCount"))
    if per_zone is None:
        per_zone = as_int(pool.get("nodeCount"))
    if per_zone is None:
        per_zone = as_int(pool.get("initialNodeCount"))
    if per_zone is UNKNOWN or per_zone is None:
        return UNKNOWN if per_zone is UNKNOWN else 0
    zones = pool.zones()
    if zones is UNKNOWN:
        return UNKNOWN
    if zones is None:
        notes.append("per-zone node count and no nodeLocations: counted for one zone")
        zones = 1
    return per_zone * zones


def _capacity(view: ResourceView) -> Iterator[CapacityItem]:
    """GPUs per node x maximum nodes; DWS pools for at most their ``maxRunDuration``."""
    for pool in node_pools(view):
        notes: list[str] = []
        raw = pool.get("nodeConfig", "maxRunDuration")
        hours, bounded = run_hours(
            raw, "nodeConfig.maxRunDuration", pool.dws, "gke.max_run_duration", notes
        )
        units = _pool_units(pool, notes)
        affinity = pool.get("nodeConfig", "reservationAffinity", "consumeReservationType")
        yield consumer_item(
            view,
            "node_pool",
            pool.where.rstrip("."),
            UNKNOWN if affinity is UNKNOWN else affinity == "SPECIFIC_RESERVATION",
            notes,
            gpus=pool.gpus(),
            machine=pool.get("nodeConfig", "machineType"),
            units=known_or_none(units),
            hours=hours,
            bounded=bounded,
        )


def _summary(view: ResourceView) -> dict[str, Any]:
    pool = next(node_pools(view))
    return {
        "cluster": pool.get("cluster"),
        "location": pool.get("location"),
        "machine_type": pool.get("nodeConfig", "machineType"),
        "accelerator": pool.get("nodeConfig", "guestAccelerators", 0, "type"),
        "max_nodes": as_int(pool.get("autoscaling", "totalMaxNodeCount"))
        or as_int(pool.get("autoscaling", "maxNodeCount")),
        "queued_provisioning": pool.get("queuedProvisioning", "enabled"),
        "flex_start": pool.get("nodeConfig", "flexStart"),
        "placement": pool.get("placementPolicy", "type"),
        "tpu_topology": pool.get("placementPolicy", "tpuTopology"),
        "max_run_duration": duration_text(pool.get("nodeConfig", "maxRunDuration")),
        "reservation": pool.get("nodeConfig", "reservationAffinity", "consumeReservationType"),
        **gpu_hours(view),
    }


KIND = register(
    CapacityKind(
        name="QueuedNodePool",
        component=QueuedNodePool,
        args=QueuedNodePoolArgs,
        spec=QueuedNodePoolSpec,
        key="queued_node_pools",
        resources=(
            ResourceType(
                "node_pool",
                types=(NODE_POOL,),
                parts=read_parts,
                capacity=_capacity,
                summary=_summary,
                mock=Ref(f"{_AIDS}:node_pool"),
            ),
            ResourceType(
                "cluster",
                types=(CLUSTER,),
                parts=read_parts,
                capacity=_capacity,
                mock=Ref(f"{_AIDS}:cluster"),
            ),
        ),
        test_aids=_AIDS,
        rules=RULES,
    )
)
