"""The facts general rules read, whatever kind yields them.

A kind's reader (its :class:`~pulumi_dws.registry.ResourceType` ``parts``) yields, beside the
shapes its capacity and summary read (``VmSpec``, ``PoolSpec``...), the facts below: a run
limit with its field, limits row and value; a queue window; the labels a capacity resource
carries; a way it gives accelerators a public IP; an IAM grant; the machine type capacity is
asked on, with its NICs. A general rule checks every
fact of its type, so a new kind is checked by yielding them, with no case of its own in the
rule. Each fact names its field as messages show it (``body.scheduling.maxRunDuration``,
``nodePools[1].nodeConfig.maxRunDuration``); values are plain, ``None`` when absent, or
:data:`~pulumi_dws.policy.values.UNKNOWN`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, TypeVar

from .shapes import accelerator_kind, parts
from .values import UNKNOWN, dig
from .view import Context, ResourceView

__all__ = [
    "Grant",
    "Labels",
    "MachineUse",
    "PublicIp",
    "QueueWindow",
    "RunLimit",
    "capacity_labels",
    "facts",
    "is_capacity",
    "vm_facts",
]

F = TypeVar("F")


@dataclass(frozen=True)
class RunLimit:
    """How long capacity may run: ``value`` (any duration form, None when absent) at
    ``field``, inside limits row ``row``.

    Attributes:
        needed: why a missing value is wrong (``a FLEX_START VM needs a max run duration``);
            empty when it may be missing.
        required_by: the option of the run-duration rule that makes a missing value wrong
            (``requireOnNodePools``), with ``when_required`` saying why.
    """

    field: str
    value: Any
    row: str
    needed: str = ""
    required_by: str = ""
    when_required: str = ""


@dataclass(frozen=True)
class QueueWindow:
    """How long a queued request waits for capacity: ``value`` at ``field``, inside limits
    row ``row``; ``without`` says what happens with none; ``requirable``: a stack may require
    one (not of a template, whose VMs say it when they are created); ``setting``: the
    component argument that sets it."""

    field: str
    value: Any
    row: str
    without: str
    requirable: bool = True
    setting: str = "request_valid_for"


@dataclass(frozen=True)
class Labels:
    """The labels a GPU, TPU or DWS capacity resource carries at ``field`` (UNKNOWN when they
    can't be known yet)."""

    field: str
    value: Any


@dataclass(frozen=True)
class PublicIp:
    """A way a resource may give accelerators a public IP: ``problem`` (``networkInterfaces[0]
    .accessConfigs gives a GPU VM a public IP``) and its ``fix``, after the resource's label
    and ``where`` (a part of it); ``public(context)`` is True when it does (False, or UNKNOWN
    while it can't be told: the stack may not be in view)."""

    problem: str
    fix: str
    where: str = ""
    public: Callable[[Context], Any] = lambda context: True


@dataclass(frozen=True)
class MachineUse:
    """Capacity asked on machine type ``machine_type`` (at ``field``), Flex-start when
    ``flex_start`` is True; ``nic_types``: the ``nicType`` of each of its network interfaces
    (at ``nics_field``; None when the kind says nothing of NICs)."""

    field: str
    machine_type: Any
    flex_start: Any
    nics_field: str = ""
    nic_types: Any = None


@dataclass(frozen=True)
class Grant:
    """An IAM grant: ``role`` to each of ``members`` (UNKNOWN entries while not known)."""

    role: Any
    members: list[Any]


def facts(view: ResourceView, of: type[F]) -> Iterator[F]:
    """The facts of type ``of`` the resource's reader yields (none for unknown types)."""
    return parts(view, of)


def is_capacity(gpus: tuple[Any, Any], machine_type: Any, dws: Any) -> Any:
    """True for DWS capacity or a machine with GPUs or TPUs; UNKNOWN while that can't be told."""
    if dws is True or accelerator_kind(gpus, machine_type) is not None:
        return True
    return UNKNOWN if dws is UNKNOWN or gpus[1] is UNKNOWN else False


def capacity_labels(*label_maps: Any) -> Any:
    """Labels from several places (inputs, and the provider's effective labels), merged;
    UNKNOWN if any is."""
    merged: dict[str, Any] = {}
    present = False
    for labels in label_maps:
        if labels is UNKNOWN:
            return UNKNOWN
        if isinstance(labels, dict):
            present = True
            merged.update(labels)
    return merged if present else {}


def vm_facts(
    view: ResourceView, vm: Any, *, template: bool = False, labelled: bool = True
) -> Iterator[Any]:
    """The facts of a VM's fields (a :class:`~pulumi_dws.policy.shapes.VmSpec`, in any API's
    spelling): its run limit and queue window when it is Flex-start, its labels when it is
    capacity (``labelled``: the kind does not put them elsewhere), its public IPs when it has
    accelerators, and the machine type it asks for with its NICs. ``template``: an instance
    template (no queue window is required of it)."""
    prefix, fields = vm.prefix, vm.fields
    if vm.flex_start is True:
        yield RunLimit(
            f"{prefix}{fields.max_run_duration}",
            vm.max_run_duration,
            fields.max_run_limit,
            needed="a FLEX_START VM needs a max run duration",
        )
        yield QueueWindow(
            f"{prefix}{fields.queue_window}",
            vm.queue_window,
            fields.queue_window_limit,
            fields.without_window,
            requirable=not template,
        )
    capacity = is_capacity(vm.gpus(), vm.machine_type, vm.flex_start)
    if labelled and fields.labels is not None and capacity is True:
        extra = [view.props.get("effectiveLabels"), view.props.get("terraformLabels")]
        labels = capacity_labels(vm.labels, *([] if prefix else extra))
        yield Labels(f"{prefix}{fields.labels}", labels)
    nics = vm.network_interfaces
    yield MachineUse(
        f"{prefix}{fields.machine_type}",
        vm.machine_type,
        vm.flex_start,
        nics_field=f"{prefix}networkInterfaces",
        nic_types=([dig(nic, "nicType") for nic in nics] if isinstance(nics, list) else None),
    )
    kind = accelerator_kind(vm.gpus(), vm.machine_type)
    if kind:
        for field in vm.public_ip_fields():
            yield PublicIp(
                f"{prefix}{field} gives a {kind} VM a public IP", "remove it (use Cloud NAT / IAP)"
            )
