"""GKE queued provisioning / Flex-start node pools: the settings GKE requires of them."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ...catalog import compact_with_flex_start
from ..shapes import PoolSpec, node_pools
from ..values import UNKNOWN, as_bool, as_int, last_segment
from ..view import Context, ResourceView
from .base import Finding, Rule

__all__ = ["QUEUED_POOL", "AUTO_UPGRADE"]


def _what(pool: PoolSpec) -> str:
    queued = as_bool(pool.get("queuedProvisioning", "enabled")) is True
    kind = "queued-provisioning" if queued else "Flex-start"
    where = f" {pool.where.rstrip('.')}" if pool.where else ""
    return f"{pool.view.label}{where} ({kind} pool)"


def _pool_problems(pool: PoolSpec) -> Iterator[str]:
    autoscaling = pool.get("autoscaling")
    if autoscaling is None:
        yield "autoscaling is missing; DWS pools scale from 0: set autoscaling with a maximum"
    elif autoscaling is not UNKNOWN:
        if as_bool(pool.get("autoscaling", "enabled")) is False:
            yield "autoscaling.enabled is false; DWS pools need autoscaling"
        for key in ("minNodeCount", "totalMinNodeCount"):
            value = as_int(pool.get("autoscaling", key))
            if isinstance(value, int) and value > 0:
                yield f"autoscaling.{key} is {value}; DWS pools need a minimum of 0"
        policy = pool.get("autoscaling", "locationPolicy")
        if policy is not UNKNOWN and policy != "ANY":
            shown = "missing (GKE default BALANCED)" if policy is None else f"{policy}"
            yield f"autoscaling.locationPolicy is {shown}; use ANY"
    for key in ("initialNodeCount", "nodeCount"):
        value = as_int(pool.get(key))
        if isinstance(value, int) and value > 0:
            yield f"{key} is {value}; DWS pools start with 0 nodes"
    affinity = pool.get("nodeConfig", "reservationAffinity", "consumeReservationType")
    if affinity not in (UNKNOWN, "NO_RESERVATION"):
        shown = "not set" if affinity is None else str(affinity)
        yield (
            f"nodeConfig.reservationAffinity.consumeReservationType is {shown}; use "
            "NO_RESERVATION (GKE: queued provisioning requires reservation affinity none)"
        )
    repair = as_bool(pool.get("management", "autoRepair"))
    if pool.get("management") is not UNKNOWN and repair is not UNKNOWN and repair is not False:
        shown = "on (the default)" if repair is None else "true"
        yield f"management.autoRepair is {shown}; set it to false for DWS pools"
    for key in ("spot", "preemptible"):
        if as_bool(pool.get("nodeConfig", key)) is True:
            yield f"nodeConfig.{key} is true; DWS pools can't use Spot/preemptible VMs"
    placement = pool.get("placementPolicy", "type")
    machine = last_segment(pool.get("nodeConfig", "machineType"))
    tpu = machine is UNKNOWN or (isinstance(machine, str) and machine.startswith(("ct", "tpu")))
    queued = as_bool(pool.get("queuedProvisioning", "enabled"))
    # Flex-start without a queue may be compact on A3 Ultra, A4 and H4D (Cluster Toolkit).
    flex_compact = queued is False or queued is None
    flex_compact = flex_compact and isinstance(machine, str) and compact_with_flex_start(machine)
    if placement == "COMPACT" and not tpu and not flex_compact:  # unknown: may be a TPU's
        yield (
            "placementPolicy.type is COMPACT; compact placement is not allowed on GPU DWS pools "
            "except Flex-start pools (no queued provisioning) of A3 Ultra, A4 or H4D"
        )


def _queued_pool(view: ResourceView, cfg: dict[str, Any], ctx: Context) -> Iterator[Finding]:
    for pool in node_pools(view):
        if pool.dws is not True:
            continue
        for problem in _pool_problems(pool):
            yield Finding(f"{_what(pool)}: {problem}")


def _auto_upgrade(view: ResourceView, cfg: dict[str, Any], ctx: Context) -> Iterator[Finding]:
    for pool in node_pools(view):
        if pool.dws is not True or pool.get("management") is UNKNOWN:
            continue
        upgrade = as_bool(pool.get("management", "autoUpgrade"))
        if upgrade is not UNKNOWN and upgrade is not False:
            shown = "on (the default)" if upgrade is None else "true"
            yield Finding(
                f"{_what(pool)}: management.autoUpgrade is {shown}; turn it off so an upgrade "
                "does not drain nodes a long job obtained through DWS"
            )


QUEUED_POOL = Rule(
    name="gke-dws-node-pool",
    description=(
        "GKE queued-provisioning / Flex-start node pools need autoscaling from 0, location "
        "policy ANY, reservation affinity NO_RESERVATION, auto-repair off, no Spot, no "
        "compact placement (except Flex-start A3 Ultra, A4 and H4D pools) and 0 initial nodes."
    ),
    level="mandatory",
    scope="resource",
    check=_queued_pool,
    remediation="Use pulumi_dws QueuedNodePool, or set the fields named in the message.",
)

AUTO_UPGRADE = Rule(
    name="gke-dws-auto-upgrade",
    description="Auto-upgrade off is recommended on GKE queued-provisioning / Flex-start pools.",
    level="advisory",
    scope="resource",
    check=_auto_upgrade,
    remediation="Set management.autoUpgrade to false (clusters on a release channel may not "
    "allow it; then accept this advisory).",
)
