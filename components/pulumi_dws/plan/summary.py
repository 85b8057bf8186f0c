"""The properties ``dws plan`` shows for each resource: where, what shape, how many GPUs, for
how long, under which provisioning model, and the GPU-hours it asks for.

Everything is read through the policy's resource readers (:mod:`pulumi_dws.policy.shapes`) and
counted by its capacity summary (:mod:`pulumi_dws.policy.capacity`), from the inputs the
providers really receive (a ``FlexStartVm``'s ``desiredStatus``, a node pool's camelCase
``nodeConfig``...): the plan's summary and the policy rules cannot disagree.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .. import catalog
from ..duration import Duration
from ..errors import DwsValidationError
from ..policy.capacity import CapacityItem, capacity_items
from ..policy.shapes import body_of, kind_of, node_pools, slurm_pools, vm_spec
from ..policy.values import UNKNOWN, as_int, dig, last_segment, pick, seconds_of
from ..policy.view import ResourceView

__all__ = ["key_properties", "gpus_per_machine", "UNKNOWN_SHOWN"]

Props = dict[str, Any]
UNKNOWN_SHOWN = "[unknown]"
"""How a value not known during the preview is shown (as secrets are shown ``[secret]``)."""


def _seconds(value: Any) -> str | None:
    """Render ``{"seconds": "N"}``, ``"Ns"`` or a number of seconds as ``3d``."""
    try:
        seconds = seconds_of(value, "duration")
    except DwsValidationError:
        return str(value)
    if seconds is UNKNOWN:
        return UNKNOWN_SHOWN
    return Duration(seconds).human() if isinstance(seconds, int) else None


def gpus_per_machine(machine_type: Any) -> int | None:
    """GPUs a known machine type carries, or None."""
    if not isinstance(machine_type, str):
        return None
    try:
        return catalog.machine_shape("machine_type", machine_type.split("/")[-1]).gpus
    except DwsValidationError:
        return None


def _shown(value: Any) -> Any:
    """Plain values as they are (integral floats as integers); unknowns as ``[unknown]``."""
    if value is UNKNOWN:
        return UNKNOWN_SHOWN
    return int(value) if isinstance(value, float) and value.is_integer() else value


def _clean(props: Props) -> Props:
    return {k: _shown(v) for k, v in props.items() if v not in (None, "", [], {})}


def _gpu_hours(items: list[CapacityItem]) -> Props:
    """``gpus`` and ``gpu_hours`` of a resource, as the capacity summary counts them."""
    if not items:
        return {}
    gpus = [item.gpus for item in items]
    hours = [item.gpu_hours for item in items]
    return {
        "gpus": sum(gpus) if None not in gpus else None,  # type: ignore[arg-type]
        "gpu_hours": round(sum(hours), 3) if None not in hours else None,  # type: ignore[arg-type]
    }


def _vm(view: ResourceView) -> Props:
    vm = vm_spec(view)
    assert vm is not None
    machine = last_segment(vm.machine_type)
    stopped = vm.stopped
    props: Props = {
        "zone": vm.zone,
        "machine_type": machine,
        "gpus": vm.gpus()[1] or None,
        "provisioning_model": vm.provisioning_model,
        "max_run_duration": _seconds(vm.max_run_duration),
        "termination_action": vm.termination_action,
        "queue_window": _seconds(vm.queue_window),
        "reservation": vm.reservation,
        "desired_status": vm.desired_status,
        "stopped": True if stopped is True else None,
    }
    if kind_of(view) != "template":  # a template is no capacity by itself
        props.update(_gpu_hours(capacity_items([view])))
    return props


def _future_reservation(view: ResourceView) -> Props:
    src = body_of(view) if view.type.startswith("pulumi-python:") else view.props
    window = dig(src, "timeWindow")
    count = as_int(dig(src, "specificSkuProperties", "totalCount"))
    return {
        "zone": dig(src, "zone"),
        "mode": dig(src, "reservationMode"),
        "machine_type": dig(src, "specificSkuProperties", "instanceProperties", "machineType"),
        "count": count,
        "start": dig(window, "startTime"),
        "end": dig(window, "endTime"),
        "duration": _seconds(dig(window, "duration")),
        "planning_status": dig(src, "planningStatus"),
        "reservation_name": pick(src, "reservationName", "namePrefix"),
        **_gpu_hours(capacity_items([view])),
    }


def _node_pool(view: ResourceView) -> Props:
    pool = next(node_pools(view))
    return {
        "cluster": pool.get("cluster"),
        "location": pool.get("location"),
        "machine_type": pool.get("nodeConfig", "machineType"),
        "accelerator": pool.get("nodeConfig", "guestAccelerators", 0, "type"),
        "max_nodes": as_int(pool.get("autoscaling", "totalMaxNodeCount"))
        or as_int(pool.get("autoscaling", "maxNodeCount")),
        "queued_provisioning": pool.get("queuedProvisioning", "enabled"),
        "flex_start": pool.get("nodeConfig", "flexStart"),
        "placement": pool.get("placementPolicy", "type"),
        "max_run_duration": _seconds(pool.get("nodeConfig", "maxRunDuration")),
        "reservation": pool.get("nodeConfig", "reservationAffinity", "consumeReservationType"),
        **_gpu_hours(capacity_items([view])),
    }


def _slurm(view: ResourceView) -> Props:
    pools = list(slurm_pools(view))

    def line(pool: Any) -> str:
        spec = pool.get("machine_spec", "machineSpec")
        machine = pick(spec, "machine_type", "machineType")
        count = _shown(pool.max_nodes() or 0)
        model = pool.get("provisioning_model", "provisioningModel") or ""
        return f"{pool.id}: {_shown(machine)} x{count} {_shown(model)}".rstrip()

    return {
        "region": view.props.get("region"),
        "node_pools": ", ".join(line(pool) for pool in pools),
        "max_run_duration": ", ".join(
            filter(
                None,
                (
                    _seconds(pool.get("flex_start_max_duration", "flexStartMaxDuration"))
                    for pool in pools
                ),
            )
        ),
        **_gpu_hours(capacity_items([view])),
    }


def _kubernetes(view: ResourceView) -> Props:
    p = view.props
    return {
        "kind": p.get("kind"),
        "api_version": p.get("apiVersion"),
        "namespace": dig(p, "metadata", "namespace"),
        "chart": p.get("chart"),
        "version": p.get("version") if p.get("chart") else None,
    }


EXTRACTORS: dict[str, Callable[[ResourceView], Props]] = {
    "instance": _vm,
    "template": _vm,
    "flex_vm": _vm,
    "future_reservation": _future_reservation,
    "node_pool": _node_pool,
    "slurm": _slurm,
    "iam": lambda v: {"role": v.props.get("role"), "member": v.props.get("member")},
}
"""Key properties by resource kind (:func:`pulumi_dws.policy.shapes.kind_of`)."""

_BY_TYPE: dict[str, Callable[[ResourceView], Props]] = {
    "pulumi-python:dynamic/dws:StableTime": lambda v: {"timestamp": v.props.get("timestamp")},
}


def key_properties(type_: str, inputs: Props) -> Props:
    """The few properties worth showing for a resource of ``type_`` with these inputs."""
    view = ResourceView(type_, "", "", inputs)
    extractor = _BY_TYPE.get(type_) or EXTRACTORS.get(kind_of(view) or "")
    if extractor is None and type_.startswith("kubernetes:"):
        extractor = _kubernetes
    if extractor is None:
        return _clean({k: view.props.get(k) for k in ("zone", "location", "region", "machineType")})
    return _clean(extractor(view))
