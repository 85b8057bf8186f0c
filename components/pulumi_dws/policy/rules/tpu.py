"""TPUs: a GKE TPU pool is whole slices of its machine type, a queued Flex-start TPU pool is
contested, and a Calendar-mode TPU request asks for chips and zones Google offers."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ... import catalog, limits
from ...calendar_tpu import check_tpu_zone, tpu_chip_row
from ...errors import DwsValidationError
from ..shapes import PoolSpec, node_pools
from ..values import UNKNOWN, as_bool, as_int, dig, last_segment
from ..view import Context, ResourceView
from .base import Finding, Rule
from .calendar import calendar_body

__all__ = ["TPU_SLICE", "TPU_QUEUED_FLEX_START", "CALENDAR_TPU"]


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


def _chips(aggregate: Any) -> Any:
    resources = dig(aggregate, "reservedResources")
    if resources is UNKNOWN:
        return UNKNOWN
    total = 0
    for entry in resources if isinstance(resources, list) else []:
        count = as_int(dig(entry, "accelerator", "acceleratorCount"))
        if count is UNKNOWN:
            return UNKNOWN
        total += count if isinstance(count, int) else 0
    return total


def _calendar_tpu(view: ResourceView, cfg: dict[str, Any], ctx: Context) -> Iterator[Finding]:
    calendar, src = calendar_body(view)
    aggregate = dig(src, "aggregateReservation") if calendar is True else None
    if not isinstance(aggregate, dict):
        return
    family, workload = dig(aggregate, "vmFamily"), dig(aggregate, "workloadType")
    if not isinstance(family, str) or workload is UNKNOWN:
        return
    try:
        generation = catalog.tpu_generation("aggregateReservation.vmFamily", family)
    except DwsValidationError:
        return  # not a TPU family pulumi-dws knows: the API judges it
    if generation.calendar_version is None:
        yield Finding(
            f"{view.label}: aggregateReservation.vmFamily {family} ({generation.title}) is not "
            "offered in Calendar mode by gcloud 528 (V5E, V5P, V6E)"
        )
        return
    chips = _chips(aggregate)
    row = tpu_chip_row(generation.name, workload if isinstance(workload, str) else None)
    if isinstance(chips, int):
        try:
            limits.get(row).check("aggregateReservation acceleratorCount", chips)
        except DwsValidationError as err:
            yield Finding(f"{view.label}: {err} [limit {row}]")
    zone = last_segment(dig(src, "zone"))
    if isinstance(zone, str):
        try:
            check_tpu_zone("zone", zone, generation.name, workload)
        except DwsValidationError as err:
            yield Finding(f"{view.label}: {err}")


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
)

CALENDAR_TPU = Rule(
    name="calendar-tpu-request",
    description=(
        "A Calendar-mode TPU request asks for a chip count and a zone Google offers for its "
        "version and workload type (limits rows calendar.tpu_chips.* and calendar.tpu_zones.*)."
    ),
    level="mandatory",
    scope="resource",
    check=_calendar_tpu,
    remediation="Use an allowed chip count and zone, or override the limits row with a source.",
)
