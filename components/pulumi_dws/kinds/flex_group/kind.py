"""Groups of GPU VMs brought at once by a MIG resize request (``FlexStartGroup``).

A ``FlexStartGroup`` registers an instance template (read by the Flex-start VM kind's template
reader: the rules on run duration, public IPs and labels check it as any template), a managed
instance group at size 0, and a ``pulumi-python:dynamic/dws:MigResizeRequest`` whose ``body`` is
the Compute resize request. The request is the capacity: ``resizeBy`` VMs of the template's
shape, for ``requestedRunDuration`` (else the template's max run duration). Its GPUs come from
its group's template, the sibling under the same component.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from ...plan.summary import duration_text
from ...policy.capacity import CapacityItem, consumer_item, item, run_hours
from ...policy.facts import RunLimit
from ...policy.shapes import INSTANCE_TEMPLATE, REGION_INSTANCE_TEMPLATE, VmSpec, body_of
from ...policy.values import UNKNOWN, as_int, dig, is_called, last_segment
from ...policy.view import ResourceView
from ...registry import CapacityKind, Ref, ResourceType, register
from ..flex_vm.kind import read_vm
from .component import FlexStartGroup, FlexStartGroupArgs, FlexStartGroupSpec
from .provider import TYPE_TOKEN as RESIZE_REQUEST
from .rules import RESOURCE_POLICY, RULES

__all__ = [
    "KIND",
    "INSTANCE_GROUP_MANAGER",
    "REGION_INSTANCE_GROUP_MANAGER",
    "RAW_RESIZE_REQUEST",
    "RAW_REGION_RESIZE_REQUEST",
    "RESOURCE_POLICY",
    "group_template",
]

_AIDS = "pulumi_dws.kinds.flex_group.testing"
INSTANCE_GROUP_MANAGER = "gcp:compute/instanceGroupManager:InstanceGroupManager"
REGION_INSTANCE_GROUP_MANAGER = "gcp:compute/regionInstanceGroupManager:RegionInstanceGroupManager"
RAW_RESIZE_REQUEST = "gcp:compute/resizeRequest:ResizeRequest"
RAW_REGION_RESIZE_REQUEST = "gcp:compute/regionResizeRequest:RegionResizeRequest"
_TEMPLATES = (INSTANCE_TEMPLATE, REGION_INSTANCE_TEMPLATE)
_GROUPS = (INSTANCE_GROUP_MANAGER, REGION_INSTANCE_GROUP_MANAGER)


def group_template(view: ResourceView, stack: Sequence[ResourceView]) -> ResourceView | None:
    """The instance template of a resize request's or a group's VMs: the one registered beside
    it (same parent: a ``FlexStartGroup``'s own, or the user's component's), else the one its
    group (``view`` itself, or the one group beside it) names in its first version, by name (a
    ``FlexStartGroup`` of a shared shape names ``projects/P/global/instanceTemplates/NAME``,
    known while Pulumi previews); None when that is not known."""
    if view.parent:
        found = [v for v in stack if v.parent == view.parent and v.type in _TEMPLATES]
        if len(found) == 1:
            return found[0]
        if found:
            return None  # several: which one the group uses is not known from the inputs
    groups = [view] if view.type in _GROUPS else [
        v for v in stack if view.parent and v.parent == view.parent and v.type in _GROUPS
    ]  # fmt: skip
    if len(groups) != 1:
        return None
    name = last_segment(dig(groups[0].props, "versions", 0, "instanceTemplate"))
    if not isinstance(name, str):
        return None
    named = [v for v in stack if v.type in _TEMPLATES and is_called(v.props, v.name, name)]
    return named[0] if len(named) == 1 else None


def _request_capacity(view: ResourceView, stack: Sequence[ResourceView]) -> Iterator[CapacityItem]:
    """``resizeBy`` VMs x the template's GPUs x the run duration; reservation-bound VMs are
    listed but counted on their reservation. A ``MigResizeRequest`` carries the API body under
    ``body``; a raw pulumi-gcp ``ResizeRequest`` the same fields as its inputs."""
    body = body_of(view)
    count = as_int(dig(body, "resizeBy"))
    units = None if count is UNKNOWN else count
    template = group_template(view, stack)
    notes: list[str] = []
    raw = dig(body, "requestedRunDuration")
    if template is None:
        notes.append(
            "the group's instance template is not known (none, or several, beside the request): "
            "GPUs per VM not known"
        )
        hours, bounded = run_hours(raw, "requestedRunDuration", UNKNOWN, "", notes)
        yield item(
            view,
            "resize_request",
            "",
            gpus=(None, UNKNOWN),
            machine=None,
            units=units,
            hours=hours,
            bounded=bounded,
            notes=tuple(notes),
        )
        return
    vm: VmSpec = read_vm(template, template=True)
    field = "requestedRunDuration"
    if raw is None and vm.max_run_duration is not None:
        raw, field = vm.max_run_duration, "scheduling.maxRunDuration"
    hours, bounded = run_hours(raw, field, vm.flex_start, "mig.requested_run_duration", notes)
    yield consumer_item(
        view,
        "resize_request",
        "",
        vm.reservation_consumer,
        notes,
        gpus=vm.gpus(),
        machine=vm.machine_type,
        units=units,
        hours=hours,
        bounded=bounded,
    )


def _group_capacity(view: ResourceView, stack: Sequence[ResourceView]) -> Iterator[CapacityItem]:
    """A group created at its size (``targetSize`` > 0: an A4X ``FlexStartGroup``, or the
    user's own group) holds ``targetSize`` VMs of its sibling template's shape; a group at size
    0 holds what its resize requests bring (counted on them)."""
    size = as_int(view.props.get("targetSize"))
    if size == 0 or size is None:
        return
    template = group_template(view, stack)
    units = None if size is UNKNOWN else size
    notes: list[str] = []
    if template is None:
        notes.append("the group's instance template is not known: GPUs per VM not known")
        yield item(
            view, "instance_group", "", gpus=(None, UNKNOWN), machine=None, units=units,
            hours=None, bounded=None, notes=tuple(notes),
        )  # fmt: skip
        return
    vm: VmSpec = read_vm(template, template=True)
    hours, bounded = run_hours(
        vm.max_run_duration, "scheduling.maxRunDuration", vm.flex_start, "", notes
    )
    yield consumer_item(
        view, "instance_group", "", vm.reservation_consumer, notes, gpus=vm.gpus(),
        machine=vm.machine_type, units=units, hours=hours, bounded=bounded,
    )  # fmt: skip


def _request_parts(view: ResourceView) -> Iterator[Any]:
    """The run limit the request asks for (the facts the general rules check)."""
    field = "body.requestedRunDuration" if "body" in view.props else "requestedRunDuration"
    yield RunLimit(field, dig(body_of(view), "requestedRunDuration"), "mig.requested_run_duration")


def _request_summary(view: ResourceView) -> dict[str, Any]:
    body = body_of(view)
    return {
        "zone": view.props.get("zone"),
        "region": view.props.get("region"),
        "group": last_segment(view.props.get("group") or view.props.get("instanceGroupManager")),
        "resize_by": dig(body, "resizeBy"),
        "run_duration": duration_text(dig(body, "requestedRunDuration")),
        "wait_for": view.props.get("waitFor"),
    }


def _group_summary(view: ResourceView) -> dict[str, Any]:
    props = view.props
    return {
        "zone": props.get("zone"),
        "region": props.get("region"),
        "name": props.get("name"),
        "target_size": props.get("targetSize"),
        "target_shape": props.get("distributionPolicyTargetShape"),
        "zones": props.get("distributionPolicyZones"),
        "workload_policy": last_segment(dig(props, "resourcePolicies", "workloadPolicy")),
        "on_failure": dig(props, "instanceLifecyclePolicy", "defaultActionOnFailure"),
        "template": last_segment(dig(props, "versions", 0, "instanceTemplate")),
    }


def _policy_summary(view: ResourceView) -> dict[str, Any]:
    workload = view.props.get("workloadPolicy") or {}
    return {
        "region": view.props.get("region"),
        "name": view.props.get("name"),
        "type": dig(workload, "type"),
        "max_topology_distance": dig(workload, "maxTopologyDistance"),
        "accelerator_topology": dig(workload, "acceleratorTopology"),
    }


def _looks_like_a_request(view: ResourceView) -> bool:
    body = body_of(view)
    return isinstance(body, dict) and "resizeBy" in body and "group" in view.props


KIND = register(
    CapacityKind(
        name="FlexStartGroup",
        component=FlexStartGroup,
        args=FlexStartGroupArgs,
        spec=FlexStartGroupSpec,
        key="flex_start_groups",
        resources=(
            ResourceType(
                "resize_request",
                types=(RESIZE_REQUEST,),
                dynamic_names=("migresizerequest",),
                recognise=_looks_like_a_request,
                parts=_request_parts,
                stack_capacity=_request_capacity,
                summary=_request_summary,
                mock=Ref(f"{_AIDS}:resize_request"),
            ),
            ResourceType(
                "resize_request",
                types=(RAW_RESIZE_REQUEST, RAW_REGION_RESIZE_REQUEST),
                parts=_request_parts,
                stack_capacity=_request_capacity,
                summary=_request_summary,
            ),
            ResourceType(
                "instance_group",
                types=(INSTANCE_GROUP_MANAGER,),
                stack_capacity=_group_capacity,
                summary=_group_summary,
                mock=Ref(f"{_AIDS}:instance_group_manager"),
            ),
            ResourceType(
                "instance_group",
                types=(REGION_INSTANCE_GROUP_MANAGER,),
                stack_capacity=_group_capacity,
                summary=_group_summary,
                mock=Ref(f"{_AIDS}:region_instance_group_manager"),
            ),
            ResourceType(
                "workload_policy",
                types=(RESOURCE_POLICY,),
                summary=_policy_summary,
                mock=Ref(f"{_AIDS}:resource_policy"),
            ),
        ),
        test_aids=_AIDS,
        rules=RULES,
    )
)
