"""The rules of managed instance groups (``FlexStartGroup``, or a hand-written group):
``mig-resize-request-group``, what Google requires of a group that takes resize requests, and
``frontier-group-placement``, its zones and workload policy.

A ``FlexStartGroup`` builds its group right; a hand-written pulumi-gcp group paired with a
resize request (a raw ``ResizeRequest`` / ``RegionResizeRequest``, or a ``MigResizeRequest``)
is checked here: no autoscaler targets it, repairs are off (``DO_NOTHING``), and a regional
group uses the ``ANY_SINGLE_ZONE`` target shape without proactive redistribution (Google's
"About resize requests in a MIG" limitations,
:data:`~pulumi_dws.kinds.flex_group.limits.MIG_RESIZE_DOCS`).

A request is paired with the group it names (``group`` / ``instanceGroupManager``, a name or a
link) in the same zone or region; while that name is unknown (a preview), with the one group
registered beside it (the same parent). Nothing paired, or a value unknown: no finding.

``frontier-group-placement`` makes the checks ``FlexStartGroup`` makes at construction
(:func:`~pulumi_dws.kinds.flex_group.placement.check_placement`, the region table), with the
same words: a group's listed zones are in its region; its workload policy (a ``ResourcePolicy``
of the stack it names) suits its machine series, and its accelerator topology holds exactly the
group's VMs; an A4X / A4X Max group of more than one VM has one. A value not known yet (a
preview) gives no finding.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from ... import catalog, regions
from ...errors import DwsValidationError
from ...models import parse_args
from ...policy.rules.base import Finding, Rule
from ...policy.shapes import INSTANCE_TEMPLATE, REGION_INSTANCE_TEMPLATE, body_of, kind_of
from ...policy.values import UNKNOWN, as_int, dig, is_called, is_unknown, last_segment
from ...policy.view import Context, ResourceView
from .placement import PlacementSpec, check_placement

__all__ = ["RESIZE_REQUEST_GROUP", "GROUP_PLACEMENT", "AUTOSCALERS", "RESOURCE_POLICY", "RULES"]

AUTOSCALERS = (
    "gcp:compute/autoscaler:Autoscaler",
    "gcp:compute/regionAutoscaler:RegionAutoscaler",
)


def _where(view: ResourceView) -> tuple[str, Any]:
    """``("zones", zone)`` or ``("regions", region)`` (the value may be unknown or None)."""
    region = view.props.get("region")
    if region is not None and view.props.get("zone") in (None, ""):
        return ("regions", region)
    return ("zones", view.props.get("zone"))


def _same(a: Any, b: Any) -> bool:
    """Whether two values may be the same (unknown or absent on either side: yes)."""
    return a in (None, "") or b in (None, "") or is_unknown(a) or is_unknown(b) or a == b


def _group_of(request: ResourceView, groups: Sequence[ResourceView]) -> ResourceView | None:
    named = request.props.get("group", request.props.get("instanceGroupManager"))
    name = last_segment(named)
    if name is None or is_unknown(name):
        siblings = [g for g in groups if request.parent and g.parent == request.parent]
        return siblings[0] if len(siblings) == 1 else None
    scope, place = _where(request)
    for group in groups:
        g_scope, g_place = _where(group)
        if group.props.get("name") == name and g_scope == scope and _same(place, g_place):
            return group
    return None


def _targets(autoscaler: ResourceView, group: ResourceView) -> bool:
    target = autoscaler.props.get("target")
    if is_unknown(target) or last_segment(target) != group.props.get("name"):
        return False
    return _same(_where(autoscaler)[1], _where(group)[1])


def _group_problems(group: ResourceView) -> Iterator[str]:
    action = dig(group.props, "instanceLifecyclePolicy", "defaultActionOnFailure")
    if not is_unknown(action) and action != "DO_NOTHING":
        shown = "not set (Google's default REPAIR)" if action is None else str(action)
        yield (
            f"instanceLifecyclePolicy.defaultActionOnFailure is {shown}; a group that takes "
            "resize requests must not repair its VMs: set DO_NOTHING"
        )
    if _where(group)[0] != "regions":
        return
    shape = group.props.get("distributionPolicyTargetShape")
    if not is_unknown(shape) and shape != "ANY_SINGLE_ZONE":
        shown = "not set (Google's default EVEN)" if shape is None else str(shape)
        yield (
            f"distributionPolicyTargetShape is {shown}; a regional group takes resize requests "
            "only with ANY_SINGLE_ZONE (the whole set in one zone)"
        )
    redistribution = dig(group.props, "updatePolicy", "instanceRedistributionType")
    if not is_unknown(redistribution) and redistribution not in ("NONE",):
        shown = "not set (Google's default PROACTIVE)" if redistribution is None else redistribution
        yield (
            f"updatePolicy.instanceRedistributionType is {shown}; a regional group that takes "
            "resize requests must not redistribute its VMs: set NONE"
        )


def _check(views: Sequence[ResourceView], cfg: dict[str, Any], ctx: Context) -> Iterator[Finding]:
    groups = [v for v in views if kind_of(v) == "instance_group"]
    autoscalers = [v for v in views if v.type in AUTOSCALERS]
    paired: dict[str, tuple[ResourceView, ResourceView]] = {}
    for request in (v for v in views if kind_of(v) == "resize_request"):
        group = _group_of(request, groups)
        if group is not None:
            paired.setdefault(group.urn or group.name, (group, request))
    for group, request in paired.values():
        asked = f"(resize request {request.label} asks it for VMs)"
        for problem in _group_problems(group):
            yield Finding(f"{group.label} {asked}: {problem}", group)
        for autoscaler in autoscalers:
            if _targets(autoscaler, group):
                yield Finding(
                    f"{autoscaler.label} autoscales {group.label} {asked}: a group that takes "
                    "resize requests must not be autoscaled; remove the autoscaler",
                    autoscaler,
                )


RESIZE_REQUEST_GROUP = Rule(
    name="mig-resize-request-group",
    description=(
        "A managed instance group that takes resize requests has no autoscaler, repairs off "
        "(DO_NOTHING) and, when regional, the ANY_SINGLE_ZONE shape without redistribution."
    ),
    level="mandatory",
    scope="stack",
    check=_check,
    remediation=(
        "Use pulumi_dws FlexStartGroup, which builds the group right, or set the fields the "
        "message names on your group (and remove its autoscaler)."
    ),
    note=(
        "a group a resize request asks for VMs: no autoscaler, `DO_NOTHING` on failure; "
        "regional: `ANY_SINGLE_ZONE`, redistribution `NONE`"
    ),
)

# ---------------------------------------------------------------------- frontier groups
RESOURCE_POLICY = "gcp:compute/resourcePolicy:ResourcePolicy"
_TEMPLATES = (INSTANCE_TEMPLATE, REGION_INSTANCE_TEMPLATE)


def _problem(check: Any, *args: Any, **kwargs: Any) -> str | None:
    """The message of the DwsValidationError ``check(*args, **kwargs)`` raises, or None."""
    try:
        check(*args, **kwargs)
    except DwsValidationError as err:
        return str(err)
    return None


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
    note=(
        "a group's zones in its region; a workload policy that suits its series and holds its "
        "VMs; A4X groups need one"
    ),
)


RULES = (RESIZE_REQUEST_GROUP, GROUP_PLACEMENT)
"""This kind's rules."""
