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


def gpu_hours(view: ResourceView) -> Props:
    """``gpus`` and ``gpu_hours`` of a resource, as the capacity summary counts them."""
    items: list[CapacityItem] = capacity_items([view])
    if not items:
        return {}
    gpus = [one.gpus for one in items]
    hours = [one.gpu_hours for one in items]
    return {
        "gpus": sum(g for g in gpus if g is not None) if None not in gpus else None,
        "gpu_hours": round(sum(h for h in hours if h is not None), 3)
        if None not in hours
        else None,
    }


def key_properties(type_: str, inputs: Props) -> Props:
    """The few properties worth showing for a resource of ``type_`` with these inputs."""
    view = ResourceView(type_, "", "", inputs)
    reader = registry.reader_for(view)
    if reader is None or reader.summary is None:
        return _clean({k: view.props.get(k) for k in ("zone", "location", "region", "machineType")})
    return _clean(reader.summary(view))
