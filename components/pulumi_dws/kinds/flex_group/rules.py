"""The rule of managed instance groups that take resize requests (``FlexStartGroup``, or a
hand-written group with a resize request): what Google requires of the group.

A ``FlexStartGroup`` builds its group right; a hand-written pulumi-gcp group paired with a
resize request (a raw ``ResizeRequest`` / ``RegionResizeRequest``, or a ``MigResizeRequest``)
is checked here: no autoscaler targets it, repairs are off (``DO_NOTHING``), and a regional
group uses the ``ANY_SINGLE_ZONE`` target shape without proactive redistribution (Google's
"About resize requests in a MIG" limitations,
:data:`~pulumi_dws.kinds.flex_group.limits.MIG_RESIZE_DOCS`).

A request is paired with the group it names (``group`` / ``instanceGroupManager``, a name or a
link) in the same zone or region; while that name is unknown (a preview), with the one group
registered beside it (the same parent). Nothing paired, or a value unknown: no finding.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from ...policy.rules.base import Finding, Rule
from ...policy.shapes import kind_of
from ...policy.values import dig, is_unknown, last_segment
from ...policy.view import Context, ResourceView

__all__ = ["RESIZE_REQUEST_GROUP", "AUTOSCALERS", "RULES"]

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

RULES = (RESIZE_REQUEST_GROUP,)
"""This kind's rules."""
