"""Flex-start VMs (``FlexStartInstance``), and the VMs and instance templates users register
with pulumi-gcp directly: one reader for all of them.

A ``FlexStartInstance`` registers a pulumi-gcp ``InstanceTemplate`` (the VM's shape) and a
``pulumi-python:dynamic/dws:FlexStartVm`` whose ``body`` is the Compute ``instances.insert``
request. A raw ``gcp.compute.Instance`` with ``provisioning_model="FLEX_START"`` is the same
capacity in pulumi-gcp's spelling, and a reservation-bound one consumes a Calendar-mode block.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ...plan.summary import duration_text, gpu_hours
from ...policy.capacity import CapacityItem, consumer_item, item, run_hours
from ...policy.facts import vm_facts
from ...policy.shapes import (
    INSTANCE,
    INSTANCE_TEMPLATE,
    REGION_INSTANCE_TEMPLATE,
    VmSpec,
    any3,
    body_of,
    vm_spec,
)
from ...policy.values import UNKNOWN, dig, last_segment, pick
from ...policy.view import ResourceView
from ...registry import CapacityKind, Items, Ref, ResourceType, register
from .component import TYPE, FlexStartInstance, FlexStartInstanceArgs, FlexStartInstanceSpec
from .provider import TYPE_TOKEN as FLEX_VM
from .shapes import SHAPE_DESCRIPTION

__all__ = ["KIND", "read_vm"]

_AIDS = "pulumi_dws.kinds.flex_vm.testing"


def read_vm(view: ResourceView, *, dynamic: bool = False, template: bool = False) -> VmSpec:
    """The VM fields of a raw instance or template (pulumi-gcp inputs) or, ``dynamic``, of a
    Flex-start VM's Compute insert ``body``."""
    src = body_of(view) if dynamic else view.props
    if src is UNKNOWN:
        src = {"scheduling": UNKNOWN, "machineType": UNKNOWN, "guestAccelerators": UNKNOWN}
    scheduling = dig(src, "scheduling")
    model = dig(scheduling, "provisioningModel")
    if dynamic and model is None:
        model = "FLEX_START"  # the resource exists to create Flex-start VMs
    affinity = pick(dig(src, "reservationAffinity"), "type", "consumeReservationType")
    consumer = any3(
        affinity == "SPECIFIC_RESERVATION" if affinity is not UNKNOWN else UNKNOWN,
        model == "RESERVATION_BOUND" if model is not UNKNOWN else UNKNOWN,
    )
    machine = dig(src, "machineType")
    if dynamic and machine is None:
        machine = view.props.get("machineType")  # FlexStartVm keeps the short name beside body
    # The reservation named: pulumi-gcp's specificReservation.values, the API's values.
    named = dig(src, "reservationAffinity", "specificReservation", "values", 0)
    if named is None:
        named = dig(src, "reservationAffinity", "values", 0)
    return VmSpec(
        prefix="body." if dynamic and "body" in view.props else "",
        machine_type=machine,
        provisioning_model=model,
        max_run_duration=dig(scheduling, "maxRunDuration"),
        queue_window=dig(src, "params", "requestValidForDuration"),
        network_interfaces=dig(src, "networkInterfaces"),
        accelerators=dig(src, "guestAccelerators"),
        labels=dig(src, "labels"),
        reservation_consumer=consumer,
        zone=None if template else view.props.get("zone"),
        termination_action=dig(scheduling, "instanceTerminationAction"),
        # The resource's own input (FlexStartVm, gcp.compute.Instance), never the API body.
        desired_status=None if template else pick(view.props, "desiredStatus"),
        reservation=named if named is not None else affinity,
    )


def _shape_only(view: ResourceView) -> bool:
    """A template that carries only a ``FlexStartInstance``'s shape (its own, or one shared by
    the VMs of that shape): its labels go on the VM (the insert body), where they can change in
    place; on the template a label edit would replace it."""
    shared = view.props.get("description") == SHAPE_DESCRIPTION
    return view.type == INSTANCE_TEMPLATE and (view.parent_type == TYPE or shared)


def read_parts(
    view: ResourceView, *, dynamic: bool = False, template: bool = False
) -> Iterator[Any]:
    """A VM's or template's fields (:class:`VmSpec`) and the facts the general rules check."""
    vm = read_vm(view, dynamic=dynamic, template=template)
    yield vm
    yield from vm_facts(view, vm, template=template, labelled=not _shape_only(view))


def _vm_capacity(kind: str) -> Items:
    """A VM's GPUs for its max run duration (none while it is asked to be stopped)."""

    def capacity(view: ResourceView) -> Iterator[CapacityItem]:
        vm = vm_spec(view)
        if vm is None:
            return
        notes: list[str] = []
        hours, bounded = run_hours(
            vm.max_run_duration,
            "maxRunDuration",
            vm.flex_start,
            "flex_start.max_run_duration",
            notes,
        )
        if vm.stopped is True:
            notes.append(f"stopped (desiredStatus {vm.desired_status}): no GPUs, no GPU-hours")
            yield item(
                view,
                kind,
                "",
                gpus=vm.gpus(),
                machine=vm.machine_type,
                units=1,
                hours=0.0,
                bounded=True,
                counted=False,
                notes=tuple(notes),
            )
            return
        if vm.stopped is UNKNOWN:
            notes.append("desiredStatus not known yet: may be stopped")
            hours, bounded = None, None
        yield consumer_item(
            view,
            kind,
            "",
            vm.reservation_consumer,
            notes,
            gpus=vm.gpus(),
            machine=vm.machine_type,
            units=1,
            hours=hours,
            bounded=bounded,
        )

    return capacity


def _vm_summary(view: ResourceView) -> dict[str, Any]:
    vm = vm_spec(view)
    assert vm is not None
    stopped = vm.stopped
    return {
        "zone": vm.zone,
        "machine_type": last_segment(vm.machine_type),
        "gpus": vm.gpus()[1] or None,
        "provisioning_model": vm.provisioning_model,
        "max_run_duration": duration_text(vm.max_run_duration),
        "termination_action": vm.termination_action,
        "queue_window": duration_text(vm.queue_window),
        "reservation": vm.reservation,
        "desired_status": vm.desired_status,
        "stopped": True if stopped is True else None,
        **gpu_hours(view),  # none for a template: it is no capacity by itself
    }


def _looks_like_a_vm(view: ResourceView) -> bool:
    body = body_of(view)
    return (
        isinstance(body, dict)
        and "scheduling" in body
        and ("machineType" in body or "networkInterfaces" in body)
    )


KIND = register(
    CapacityKind(
        name="FlexStartInstance",
        component=FlexStartInstance,
        args=FlexStartInstanceArgs,
        spec=FlexStartInstanceSpec,
        key="flex_start_vms",
        resources=(
            ResourceType(
                "flex_vm",
                types=(FLEX_VM,),
                dynamic_names=("flexstartvm", "flexstartinstance"),
                recognise=_looks_like_a_vm,
                parts=lambda v: read_parts(v, dynamic=True),
                capacity=_vm_capacity("flex_vm"),
                summary=_vm_summary,
                mock=Ref(f"{_AIDS}:flex_start_vm"),
            ),
            ResourceType(
                "instance",
                types=(INSTANCE,),
                parts=read_parts,
                capacity=_vm_capacity("instance"),
                summary=_vm_summary,
                mock=Ref(f"{_AIDS}:instance"),
            ),
            ResourceType(
                "template",
                types=(INSTANCE_TEMPLATE,),
                parts=lambda v: read_parts(v, template=True),
                summary=_vm_summary,
                mock=Ref(f"{_AIDS}:instance_template"),
            ),
            ResourceType(
                "template",
                types=(REGION_INSTANCE_TEMPLATE,),
                parts=lambda v: read_parts(v, template=True),
                summary=_vm_summary,
                mock=Ref(f"{_AIDS}:region_instance_template"),
            ),
        ),
        test_aids=_AIDS,
    )
)
