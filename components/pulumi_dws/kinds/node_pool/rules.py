"""The rules of GKE node pools (``QueuedNodePool``, and the node pools and clusters users register
with pulumi-gcp): the settings GKE requires of queued provisioning / Flex-start pools, and a TPU
pool is whole slices of its machine type."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ... import catalog
from ...catalog import compact_with_flex_start
from ...errors import DwsValidationError
from ...policy.rules.base import Finding, Rule
from ...policy.values import UNKNOWN, as_bool, as_int, dig, last_segment
from ...policy.view import Context, ResourceView
from .shapes import PoolSpec, node_pools

__all__ = ["QUEUED_POOL", "AUTO_UPGRADE", "TPU_SLICE", "TPU_QUEUED_FLEX_START", "RULES"]


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


def _tpu_machine(pool: PoolSpec) -> str | None:
    machine = last_segment(pool.get("nodeConfig", "machineType"))
    return machine if isinstance(machine, str) and catalog.is_tpu_machine(machine) else None


def _where(pool: PoolSpec) -> str:
    return f"{pool.view.label} {pool.where.rstrip('.')}".rstrip()


def _slice_problems(pool: PoolSpec, machine: str) -> Iterator[str]:
    accelerators = pool.get("nodeConfig", "guestAccelerators")
    if isinstance(accelerators, list) and accelerators:
        yield (
            "nodeConfig.guestAccelerators is set; a TPU pool carries no guest accelerators "
            f"(the chips come with {machine})"
        )
    topology = pool.get("placementPolicy", "tpuTopology")
    if topology is UNKNOWN:
        return
    try:
        tpu = catalog.tpu_slice(machine, topology, topology_field="placementPolicy.tpuTopology")
    except DwsValidationError as err:
        yield str(err)
        return
    if not tpu.multi_host:
        return
    shape = f"a {tpu.topology} slice of {machine} is {tpu.vms} VMs, created and deleted as one"
    autoscaling = pool.get("autoscaling")
    if isinstance(autoscaling, dict):
        per_zone = as_int(dig(autoscaling, "maxNodeCount"))
        total = as_int(dig(autoscaling, "totalMaxNodeCount"))
        if per_zone in (None, 0) and isinstance(total, int):
            yield (
                "autoscaling sets totalMaxNodeCount only; GKE checks a multi-host slice against "
                "the per-zone maxNodeCount (a total-only pool is refused: 'Maximum node count 0 "
                f"is not a valid size of TPU pod slice'): set maxNodeCount to {tpu.vms}"
            )
        elif isinstance(per_zone, int) and per_zone != tpu.vms:
            yield (
                f"autoscaling.maxNodeCount is {per_zone}; {shape} unit: set it to {tpu.vms} "
                "(more slices are more pools)"
            )
    elif autoscaling is None:
        count = as_int(pool.get("nodeCount"))
        if isinstance(count, int) and count not in (0, tpu.vms):
            yield f"nodeCount is {count}; {shape} unit: use 0 or {tpu.vms}"
    zones = pool.get("nodeLocations")
    if isinstance(zones, list) and len(zones) > 1:
        yield (
            f"nodeLocations lists {len(zones)} zones; a multi-host slice's VMs are placed "
            "together in one zone"
        )


def _tpu_slice(view: ResourceView, cfg: dict[str, Any], ctx: Context) -> Iterator[Finding]:
    for pool in node_pools(view):
        machine = _tpu_machine(pool)
        if machine is None:
            continue
        for problem in _slice_problems(pool, machine):
            yield Finding(f"{_where(pool)}: {problem}")


def _queued_flex_start(view: ResourceView, cfg: dict[str, Any], ctx: Context) -> Iterator[Finding]:
    for pool in node_pools(view):
        if _tpu_machine(pool) is None:
            continue
        queued = as_bool(pool.get("queuedProvisioning", "enabled"))
        flex = as_bool(pool.get("nodeConfig", "flexStart"))
        if queued is True and flex is True:
            yield Finding(
                f"{_where(pool)}: queued provisioning with Flex-start TPU nodes is recent: GKE "
                "refused it in December 2025 ('Flex start node pools don't support TPUs with "
                "queued provisioning', AI-Hypercomputer/xpk#900) and Cluster Toolkit supports "
                "it since February 2026 (GoogleCloudPlatform/cluster-toolkit#5218); if your "
                "cluster refuses it, use a Flex-start pool without a queue (mode flex_start) "
                "or queued provisioning alone (flex_start: false)"
            )


TPU_SLICE = Rule(
    name="gke-tpu-slice",
    description=(
        "A GKE TPU pool is whole slices: a topology its machine type serves, no guest "
        "accelerators, and a multi-host slice (one atomic unit) in one zone with a per-zone "
        "maximum equal to the slice's VMs."
    ),
    level="mandatory",
    scope="resource",
    check=_tpu_slice,
    remediation=(
        "Use pulumi_dws QueuedNodePool with tpu_topology, or set the fields named in the "
        "message; make one pool per slice."
    ),
    note=(
        "a TPU pool: topology, no accelerators, a multi-host slice in one zone with per-zone "
        "max = its VMs"
    ),
)

TPU_QUEUED_FLEX_START = Rule(
    name="gke-tpu-queued-flex-start",
    description=(
        "Queued provisioning with Flex-start on TPU pools is recent GKE support (refused in "
        "December 2025, used by Cluster Toolkit since February 2026)."
    ),
    level="advisory",
    scope="resource",
    check=_queued_flex_start,
    remediation=(
        "If GKE refuses the pool, drop the queue (mode flex_start) or Flex-start (flex_start: "
        "false); set this rule to disabled once your clusters accept it, or to mandatory to "
        "keep such pools out."
    ),
    note="queued provisioning + Flex-start on TPUs: contested, see TPUs",
)

RULES = (QUEUED_POOL, AUTO_UPGRADE, TPU_SLICE, TPU_QUEUED_FLEX_START)
"""This kind's rules, in the order they are reported."""
