"""Required labels on capacity resources."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ...kinds.flex_vm.shapes import SHAPE_DESCRIPTION
from ..shapes import accelerator_kind, body_of, kind_of, node_pools, vm_spec
from ..values import UNKNOWN, pick
from ..view import Context, ResourceView
from .base import Finding, Option, Rule

__all__ = ["REQUIRED_LABELS"]


def _is_capacity(gpus: tuple[Any, Any], machine_type: Any, dws: Any) -> Any:
    if dws is True or accelerator_kind(gpus, machine_type) is not None:
        return True
    return UNKNOWN if dws is UNKNOWN or gpus[1] is UNKNOWN else False


def _merged(*label_maps: Any) -> Any:
    """Labels from inputs and (stack views) the provider's effective labels."""
    merged: dict[str, Any] = {}
    present = False
    for labels in label_maps:
        if labels is UNKNOWN:
            return UNKNOWN
        if isinstance(labels, dict):
            present = True
            merged.update(labels)
    return merged if present else {}


# A FlexStartInstance's template only carries the VM's shape: its labels go on the VM (the
# insert body), where they can change in place; on the template a label edit would replace it.
SHAPE_ONLY_TEMPLATES = {
    ("gcp:compute/instanceTemplate:InstanceTemplate", "dws:index:FlexStartInstance")
}


def _targets(view: ResourceView) -> Iterator[tuple[str, Any]]:
    """``(field, labels)`` of each capacity part of ``view`` (UNKNOWN when can't tell)."""
    shared = view.props.get("description") == SHAPE_DESCRIPTION  # by the VMs of one shape
    if (view.type, view.parent_type) in SHAPE_ONLY_TEMPLATES or (
        shared and view.type in {t for t, _ in SHAPE_ONLY_TEMPLATES}
    ):
        return
    vm = vm_spec(view)
    capacity = vm is not None and _is_capacity(vm.gpus(), vm.machine_type, vm.flex_start)
    if vm is not None and vm.fields.labels is not None and capacity is True:
        extra = [view.props.get("effectiveLabels"), view.props.get("terraformLabels")]
        labels = _merged(vm.labels, *([] if vm.prefix else extra))
        yield f"{vm.prefix}{vm.fields.labels}", labels
    for pool in node_pools(view):
        if _is_capacity(pool.gpus(), pool.get("nodeConfig", "machineType"), pool.dws) is True:
            yield f"{pool.where}nodeConfig.resourceLabels", pool.get("nodeConfig", "resourceLabels")
    if kind_of(view) == "slurm":
        yield "body.labels", pick(body_of(view), "labels")


def _required_labels(view: ResourceView, cfg: dict[str, Any], ctx: Context) -> Iterator[Finding]:
    required = cfg.get("requiredLabels") or []
    if not required:
        return
    for field, labels in _targets(view):
        if labels is UNKNOWN:
            continue
        labels = labels if isinstance(labels, dict) else {}
        missing = [key for key in required if key not in labels]
        if missing:
            yield Finding(
                f"{view.label}: {field} lacks required label(s) {', '.join(missing)} "
                f"(required: {', '.join(required)})"
            )
        for key in required:
            if key in labels and labels[key] == "":
                yield Finding(f"{view.label}: {field}[{key}] is empty")


REQUIRED_LABELS = Rule(
    name="required-labels",
    description="GPU, TPU and DWS capacity resources must carry the required labels.",
    level="advisory",
    scope="resource",
    check=_required_labels,
    options=(
        Option.strings("requiredLabels", "Label keys every capacity resource must have.", ["team"]),
    ),
    remediation="Add the labels (pulumi_dws components take labels=...).",
)
