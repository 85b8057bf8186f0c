"""The properties ``dws plan`` shows for each resource: where, what shape, how many GPUs, for
how long, and under which provisioning model."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .. import catalog
from ..duration import Duration
from ..errors import DwsValidationError
from ..policy.values import seconds_of

__all__ = ["key_properties", "gpus_per_machine"]

Props = dict[str, Any]


def _get(data: Any, *path: str | int) -> Any:
    for part in path:
        if isinstance(part, int):
            data = data[part] if isinstance(data, list) and len(data) > part else None
        else:
            data = data.get(part) if isinstance(data, dict) else None
        if data is None:
            return None
    return data


def _seconds(value: Any) -> str | None:
    """Render ``{"seconds": "N"}``, ``"Ns"`` or a number of seconds as ``3d``."""
    try:
        seconds = seconds_of(value, "duration")
    except DwsValidationError:
        return str(value)
    return Duration(seconds).human() if isinstance(seconds, int) else None


def gpus_per_machine(machine_type: Any) -> int | None:
    """GPUs a known machine type carries, or None."""
    if not isinstance(machine_type, str):
        return None
    try:
        return catalog.machine_shape("machine_type", machine_type.split("/")[-1]).gpus
    except DwsValidationError:
        return None


def _number(value: Any) -> Any:
    """Pulumi hands integers back as floats (``4.0``): show them as integers."""
    return int(value) if isinstance(value, float) and value.is_integer() else value


def _clean(props: Props) -> Props:
    return {k: _number(v) for k, v in props.items() if v not in (None, "", [], {})}


def _scheduling(s: Any) -> Props:
    return {
        "provisioning_model": _get(s, "provisioningModel"),
        "max_run_duration": _seconds(_get(s, "maxRunDuration")),
        "termination_action": _get(s, "instanceTerminationAction"),
    }


def _instance(p: Props) -> Props:
    props = p.get("properties") if isinstance(p.get("properties"), dict) else p
    machine = props.get("machineType")
    return {
        "zone": p.get("zone"),
        "machine_type": machine,
        "gpus": gpus_per_machine(machine),
        **_scheduling(props.get("scheduling")),
        "reservation": _get(props, "reservationAffinity", "specificReservation", "values", 0),
    }


def _future_reservation(p: Props) -> Props:
    machine = _get(p, "specificSkuProperties", "instanceProperties", "machineType")
    count = _get(p, "specificSkuProperties", "totalCount")
    per = gpus_per_machine(machine)
    return {
        "zone": p.get("zone"),
        "mode": p.get("reservationMode"),
        "machine_type": machine,
        "count": int(count) if count is not None else None,
        "gpus": per * int(count) if per is not None and count is not None else None,
        "start": _get(p, "timeWindow", "startTime"),
        "end": _get(p, "timeWindow", "endTime"),
        "duration": _seconds(_get(p, "timeWindow", "duration")),
        "planning_status": p.get("planningStatus"),
        "reservation_name": p.get("reservationName") or p.get("namePrefix"),
    }


def _node_pool(p: Props) -> Props:
    machine = _get(p, "nodeConfig", "machineType")
    max_nodes = _get(p, "autoscaling", "totalMaxNodeCount") or _get(
        p, "autoscaling", "maxNodeCount"
    )
    per = gpus_per_machine(machine)
    return {
        "cluster": p.get("cluster"),
        "location": p.get("location"),
        "machine_type": machine,
        "accelerator": _get(p, "nodeConfig", "guestAccelerators", 0, "type"),
        "max_nodes": max_nodes,
        "gpus": per * int(max_nodes) if per is not None and max_nodes is not None else None,
        "queued_provisioning": _get(p, "queuedProvisioning", "enabled"),
        "flex_start": _get(p, "nodeConfig", "flexStart"),
        "max_run_duration": _seconds(_get(p, "nodeConfig", "maxRunDuration")),
        "reservation": _get(p, "nodeConfig", "reservationAffinity", "consumeReservationType"),
    }


def _flex_vm(p: Props) -> Props:
    body = p.get("body") if isinstance(p.get("body"), dict) else {}
    machine = str(body.get("machineType") or p.get("machine_type") or "").split("/")[-1] or None
    return {
        "zone": p.get("zone"),
        "machine_type": machine,
        "gpus": gpus_per_machine(machine),
        **_scheduling(body.get("scheduling")),
        "queue_window": _seconds(_get(body, "params", "requestValidForDuration")),
        "desired_status": p.get("desired_status"),
    }


def _slurm(p: Props) -> Props:
    body = p.get("body") if isinstance(p.get("body"), dict) else {}
    pools = body.get("node_pools") or []
    return {
        "region": p.get("region"),
        "node_pools": ", ".join(
            f"{_get(n, 'id')}: {_get(n, 'machine_spec', 'machine_type')}"
            f" x{_number(_get(n, 'scaling_spec', 'max_node_count') or 0)}"
            f" {_get(n, 'provisioning_model') or ''}".rstrip()
            for n in pools
        ),
        "max_run_duration": ", ".join(
            filter(None, (_seconds(n.get("flex_start_max_duration")) for n in pools))
        ),
    }


def _kubernetes(p: Props) -> Props:
    return {
        "kind": p.get("kind"),
        "api_version": p.get("apiVersion"),
        "namespace": _get(p, "metadata", "namespace"),
        "chart": p.get("chart"),
        "version": p.get("version") if p.get("chart") else None,
    }


EXTRACTORS: dict[str, Callable[[Props], Props]] = {
    "gcp:compute/instance:Instance": _instance,
    "gcp:compute/instanceTemplate:InstanceTemplate": _instance,
    "gcp:compute/regionInstanceTemplate:RegionInstanceTemplate": _instance,
    "gcp:compute/futureReservation:FutureReservation": _future_reservation,
    "gcp:container/nodePool:NodePool": _node_pool,
    "pulumi-python:dynamic/dws:FlexStartVm": _flex_vm,
    "pulumi-python:dynamic/dws:SlurmCluster": _slurm,
    "pulumi-python:dynamic/dws:StableTime": lambda p: {"timestamp": p.get("timestamp")},
    "gcp:projects/iAMMember:IAMMember": lambda p: {
        "role": p.get("role"),
        "member": p.get("member"),
    },
}


def key_properties(type_: str, inputs: Props) -> Props:
    """The few properties worth showing for a resource of ``type_``."""
    extractor = EXTRACTORS.get(type_)
    if extractor is None and type_.startswith("kubernetes:"):
        extractor = _kubernetes
    if extractor is None:
        return _clean({k: inputs.get(k) for k in ("zone", "location", "region", "machineType")})
    return _clean(extractor(inputs))
