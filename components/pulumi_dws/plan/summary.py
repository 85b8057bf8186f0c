"""The properties ``dws plan`` shows for each resource: where, what shape, how many GPUs, for
how long, under which provisioning model, and the GPU-hours it asks for.

Each resource type's reader (:mod:`pulumi_dws.registry`, declared with its capacity kind under
:mod:`pulumi_dws.kinds`) says what to show, reading the resource through the same facts as the
policy rules (:mod:`pulumi_dws.policy.shapes`) and counting it with the same capacity summary
(:mod:`pulumi_dws.policy.capacity`), from the inputs the providers really receive (a
``FlexStartVm``'s ``desiredStatus``, a node pool's camelCase ``nodeConfig``...): the plan's
summary and the policy rules cannot disagree. The helpers here render those properties.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .. import registry
from ..duration import Duration
from ..errors import DwsValidationError
from ..policy.capacity import CapacityItem, capacity_items
from ..policy.values import UNKNOWN, seconds_of
from ..policy.view import ResourceView

__all__ = ["key_properties", "duration_text", "shown", "gpu_hours", "UNKNOWN_SHOWN"]

Props = dict[str, Any]
UNKNOWN_SHOWN = "[unknown]"
"""How a value not known during the preview is shown (as secrets are shown ``[secret]``)."""


def duration_text(value: Any) -> str | None:
    """Render ``{"seconds": "N"}``, ``"Ns"`` or a number of seconds as ``3d``."""
    try:
        seconds = seconds_of(value, "duration")
    except DwsValidationError:
        return str(value)
    if seconds is UNKNOWN:
        return UNKNOWN_SHOWN
    return Duration(seconds).human() if isinstance(seconds, int) else None


def shown(value: Any) -> Any:
    """Plain values as they are (integral floats as integers); unknowns as ``[unknown]``."""
    if value is UNKNOWN:
        return UNKNOWN_SHOWN
    return int(value) if isinstance(value, float) and value.is_integer() else value


def _clean(props: Props) -> Props:
    return {k: shown(v) for k, v in props.items() if v not in (None, "", [], {})}


def _total(values: list[Any], digits: int | None = None) -> Any:
    if None in values:
        return None
    total = sum(v for v in values if v is not None)
    return round(total, digits) if digits is not None else total


def gpu_hours(view: ResourceView, stack: Sequence[ResourceView] | None = None) -> Props:
    """``gpus`` and ``gpu_hours`` of a resource, as the capacity summary counts them; for
    TPUs ``tpu_chips`` and ``tpu_chip_hours`` instead (a chip is never counted as a GPU).
    ``stack``: every resource, for one whose capacity another completes (a resize request's
    VMs are its group's template's shape)."""
    if stack is not None:
        items: list[CapacityItem] = [
            one for one in capacity_items(stack) if one.urn == view.urn and view.urn
        ]
    else:
        items = capacity_items([view])
    if not items:
        return {}
    tpus = [one for one in items if one.accelerator_kind == "tpu"]
    gpus = [one for one in items if one.accelerator_kind == "gpu"]
    props: Props = {}
    if gpus:
        props["gpus"] = _total([one.gpus for one in gpus])
        props["gpu_hours"] = _total([one.gpu_hours for one in gpus], 3)
    if tpus:
        props["tpu_chips"] = _total([one.tpu_chips for one in tpus])
        props["tpu_chip_hours"] = _total([one.tpu_chip_hours for one in tpus], 3)
    return props


def key_properties(
    type_: str, inputs: Props, view: ResourceView | None = None, stack: Sequence[Any] = ()
) -> Props:
    """The few properties worth showing for a resource of ``type_`` with these inputs;
    ``view`` and ``stack`` (every resource of the program) for a resource whose GPUs another
    resource completes (a resize request counts its group's template's)."""
    own = ResourceView(type_, "", "", inputs)
    reader = registry.reader_for(own)
    if reader is None or reader.summary is None:
        return _clean({k: own.props.get(k) for k in ("zone", "location", "region", "machineType")})
    props = reader.summary(own)
    if reader.stack_capacity is not None and view is not None and stack:
        props.update(gpu_hours(view, [ResourceView.coerce(r) for r in stack]))
    return _clean(props)
