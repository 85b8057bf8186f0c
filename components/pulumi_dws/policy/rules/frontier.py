"""Frontier GPUs (A3 Ultra, A4, A4X, H4D...): the machine-series rules ``FlexStartGroup`` and
``GpuNetwork`` check at construction, checked again on what a stack registers (hand-written
pulumi-gcp resources included), with the same words (:mod:`pulumi_dws.catalog.series`,
:func:`pulumi_dws.kinds.flex_group.placement.check_placement`).

* ``frontier-machine-fit`` (each resource): no Flex-start VM, template, GKE or Slurm pool of a
  series Google does not offer Flex-start for (A4X, A4X Max, G4); RDMA NICs (``MRDMA`` /
  ``IRDMA``) only in the layout of the machine type (A4: 2 gVNIC + 8 MRDMA...).
* ``frontier-group-placement`` (the stack): a managed instance group's listed zones are in its
  region; its workload policy (a ``ResourcePolicy`` of the stack it names) suits its machine
  series, and its accelerator topology holds exactly the group's VMs; an A4X / A4X Max group
  of more than one VM has one.

A value not known yet (a preview) gives no finding.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from ... import catalog, regions
from ...catalog.series import check_flex_start
from ...errors import DwsValidationError
from ...kinds.flex_group.placement import PlacementSpec, check_placement
from ...models import parse_args
from ..shapes import (
    INSTANCE_TEMPLATE,
    REGION_INSTANCE_TEMPLATE,
    body_of,
    kind_of,
    node_pools,
    slurm_pools,
    vm_spec,
)
from ..values import UNKNOWN, as_int, dig, is_called, is_unknown, last_segment
from ..view import Context, ResourceView
from .base import Finding, Rule

__all__ = ["MACHINE_FIT", "GROUP_PLACEMENT"]

RESOURCE_POLICY = "gcp:compute/resourcePolicy:ResourcePolicy"
_TEMPLATES = (INSTANCE_TEMPLATE, REGION_INSTANCE_TEMPLATE)
_RDMA = ("MRDMA", "IRDMA")


def _problem(check: Any, *args: Any, **kwargs: Any) -> str | None:
    """The message of the DwsValidationError ``check(*args, **kwargs)`` raises, or None."""
    try:
        check(*args, **kwargs)
    except DwsValidationError as err:
        return str(err)
    return None


def _nic_problem(machine: Any, nics: Any, where: str) -> str | None:
    if not isinstance(machine, str) or not isinstance(nics, list):
        return None
    types = [dig(nic, "nicType") for nic in nics]
    if any(is_unknown(t) for t in types) or not any(t in _RDMA for t in types):
        return None
    try:
        layout = catalog.nic_layout("machine_type", machine)
    except DwsValidationError as err:
        return f"{where}: RDMA NICs on {machine}, which {err.problem}"
    rdma = sum(1 for t in types if t in _RDMA)
    wrong = sorted({t for t in types if t in _RDMA and t != layout.rdma_type})
    gvnics = len(types) - rdma
    if wrong or rdma != layout.rdma or gvnics != layout.gvnics:
        kinds = ", ".join(sorted({t for t in types if t in _RDMA}))
        have = f"{gvnics} other + {rdma} RDMA ({kinds})"
        return (
            f"{where}: {have} NICs do not fit {machine}, whose VMs take {layout.gvnics} gVNIC + "
            f"{layout.rdma} {layout.rdma_type} NICs ({layout.source})"
        )
    return None


def _machine_fit(view: ResourceView, cfg: dict[str, Any], ctx: Context) -> Iterator[Finding]:
    vm = vm_spec(view)
    if vm is not None:
        machine = last_segment(vm.machine_type)
        if vm.flex_start is True and isinstance(machine, str):
            problem = _problem(check_flex_start, f"{vm.prefix}machineType", machine)
            if problem:
                yield Finding(f"{view.label}: {problem}")
        problem = _nic_problem(machine, vm.network_interfaces, f"{vm.prefix}networkInterfaces")
        if problem:
            yield Finding(f"{view.label}: {problem}")
    for pool in node_pools(view):
        machine = pool.get("nodeConfig", "machineType")
        if pool.get("nodeConfig", "flexStart") is True and isinstance(machine, str):
            field = f"{pool.where}nodeConfig.machineType"
            problem = _problem(check_flex_start, field, machine)
            if problem:
                yield Finding(f"{view.label}: {problem}")
    for spool in slurm_pools(view):
        spec = spool.get("machine_spec", "machineSpec")
        machine = dig(spec, "machine_type") or dig(spec, "machineType")
        if spool.flex_start is True and isinstance(machine, str):
            field = f"{spool.where}machine_spec.machine_type"
            problem = _problem(check_flex_start, field, machine)
            if problem:
                yield Finding(f"{view.label}: {problem}")


# ---------------------------------------------------------------------- groups
def _template_of(group: ResourceView, stack: Sequence[ResourceView]) -> ResourceView | None:
    """The template the group's first version names (by name), else the one template beside
    it (same parent)."""
    named = last_segment(dig(group.props, "versions", 0, "instanceTemplate"))
    templates = [v for v in stack if v.type in _TEMPLATES]
    if isinstance(named, str):
        found = [t for t in templates if is_called(t.props, t.name, named)]
        if len(found) == 1:
            return found[0]
    siblings = [t for t in templates if group.parent and t.parent == group.parent]
    return siblings[0] if len(siblings) == 1 else None


def _policy_of(group: ResourceView, stack: Sequence[ResourceView]) -> Any:
    """The ``ResourcePolicy`` the group names (None: none named; UNKNOWN: named but not in
    view or not known yet)."""
    link = dig(group.props, "resourcePolicies", "workloadPolicy")
    if link is None or link == "":
        return None
    policies = [v for v in stack if v.type == RESOURCE_POLICY]
    name = last_segment(link)
    if isinstance(name, str):
        found = [p for p in policies if is_called(p.props, p.name, name)]
        if len(found) == 1:
            return found[0]
    siblings = [p for p in policies if group.parent and p.parent == group.parent]
    return siblings[0] if len(siblings) == 1 else UNKNOWN


def _count(group: ResourceView, stack: Sequence[ResourceView]) -> Any:
    """The group's VMs: its target size, else the resizeBy of the requests beside it."""
    size = as_int(group.props.get("targetSize"))
    if size is UNKNOWN or (isinstance(size, int) and size > 0):
        return size
    total = 0
    for request in stack:
        if kind_of(request) != "resize_request" or not group.parent:
            continue
        if request.parent != group.parent:
            continue
        count = as_int(dig(body_of(request), "resizeBy"))
        if not isinstance(count, int):
            return UNKNOWN
        total += count
    return total


def _zone_problems(group: ResourceView) -> Iterator[str]:
    region = group.props.get("region")
    zones = group.props.get("distributionPolicyZones")
    if not isinstance(region, str) or not isinstance(zones, list):
        return
    for i, zone in enumerate(zones):
        if not isinstance(zone, str):
            continue
        name = last_segment(zone)
        if not isinstance(name, str):
            continue
        if not regions.is_zone(name) or regions.region_of_zone(name) != region:
            known = ", ".join(regions.zones_of(region) + regions.ai_zones_of(region))
            yield (
                f"distributionPolicyZones[{i}]: {name} is not a zone of the group's region "
                f"{region} ({known})"
            )


def _placement_problem(group: ResourceView, stack: Sequence[ResourceView]) -> str | None:
    template = _template_of(group, stack)
    if template is None:
        return None
    machine = last_segment(template.props.get("machineType"))
    count = _count(group, stack)
    policy = _policy_of(group, stack)
    if not isinstance(machine, str) or not isinstance(count, int) or policy is UNKNOWN:
        return None
    accelerators = catalog.machine_accelerators(machine)
    gpus = accelerators.count if accelerators is not None else 0
    placement = None
    if policy is not None:
        workload = policy.props.get("workloadPolicy")
        if not isinstance(workload, dict) or any(is_unknown(v) for v in workload.values()):
            return None
        given = {
            "type": workload.get("type"),
            "max_topology_distance": workload.get("maxTopologyDistance"),
            "accelerator_topology": workload.get("acceleratorTopology"),
        }
        described = {k: v for k, v in given.items() if v}
        problem = _problem(parse_args, PlacementSpec, described, prefix="placement")
        if problem:
            return f"workload policy {policy.label}: {problem}"
        placement = parse_args(PlacementSpec, described, prefix="placement")
    return _problem(check_placement, placement, machine, count, gpus)


def _group_placement(
    views: Sequence[ResourceView], cfg: dict[str, Any], ctx: Context
) -> Iterator[Finding]:
    for group in (v for v in views if kind_of(v) == "instance_group"):
        for zone_problem in _zone_problems(group):
            yield Finding(f"{group.label}: {zone_problem}", group)
        problem = _placement_problem(group, views)
        if problem:
            yield Finding(f"{group.label}: {problem}", group)


MACHINE_FIT = Rule(
    name="frontier-machine-fit",
    description=(
        "No Flex-start VM, template or pool of A4X, A4X Max or G4 (Google offers none); RDMA "
        "NICs only in the layout of the machine type (A3 Ultra and A4: 2 gVNIC + 8 MRDMA, A4X: "
        "2 + 4 MRDMA, H4D: 1 + 1 IRDMA)."
    ),
    level="mandatory",
    scope="resource",
    check=_machine_fit,
    remediation=(
        "Use a series that can be Flex-start (or a reservation), and give the VMs a "
        "pulumi_dws.GpuNetwork built for their machine type."
    ),
)

GROUP_PLACEMENT = Rule(
    name="frontier-group-placement",
    description=(
        "A managed instance group lists zones of its region; its workload policy suits its "
        "machine series (A4X Max, A4X, A4, A3 Ultra, A3 Mega, A3 High 8-GPU, H4D) and its "
        "accelerator topology holds exactly its VMs; A4X groups of more than one VM have one."
    ),
    level="mandatory",
    scope="stack",
    check=_group_placement,
    remediation=(
        "Use pulumi_dws FlexStartGroup with zones and placement, or fix the group's "
        "distribution zones and workload policy as the message says."
    ),
)
