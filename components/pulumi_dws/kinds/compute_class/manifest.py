"""The ComputeClass object a :class:`~pulumi_dws.ComputeClass` registers, as a plain dict."""

from __future__ import annotations

from typing import Any

from ...validation import is_output
from .checks import ResolvedPriority
from .spec import API_VERSION, KIND, SHARED_RESERVATION, ComputeClassSpec, PrioritySpec

__all__ = ["class_manifest"]


def _reservation_ref(priority: PrioritySpec, reservation: Any) -> tuple[Any, Any]:
    """``(name, project)`` of a priority's specific reservation (either may be an Output)."""
    project: Any = priority.reservation_project
    if isinstance(reservation, str):
        shared = SHARED_RESERVATION.match(reservation)
        if shared:
            return shared.group(2), project or shared.group(1)
        return reservation, project
    if not is_output(reservation) and hasattr(reservation, "reservation_name"):
        owner = getattr(getattr(reservation, "spec", None), "project", None)
        return reservation.reservation_name, project or owner
    return reservation, project


def _specific(priority: PrioritySpec) -> Any:
    """The ``reservations.specific[0]`` entry; an Output of it when the reservation is an Output
    (its name, or a shared reservation's path, is known only then)."""

    def entry(reservation: Any) -> dict[str, Any]:
        name, project = _reservation_ref(priority, reservation)
        specific: dict[str, Any] = {"name": name}
        if project is not None:
            specific["project"] = project
        if priority.reservation_block is not None:
            block: dict[str, Any] = {"name": priority.reservation_block}
            if priority.reservation_sub_block is not None:
                block["reservationSubBlock"] = {"name": priority.reservation_sub_block}
            specific["reservationBlock"] = block
        return specific

    if is_output(priority.reservation):
        return priority.reservation.apply(entry)
    return entry(priority.reservation)


def _priority_manifest(cls: ComputeClassSpec, resolved: ResolvedPriority) -> dict[str, Any]:
    p = resolved.spec
    if p.capacity == "node_pools":
        return {"nodepools": list(p.node_pools or [])}
    rule: dict[str, Any] = {}
    if resolved.machine_type is not None:
        rule["machineType"] = resolved.machine_type
    if resolved.machine_family is not None:
        rule["machineFamily"] = resolved.machine_family
    if resolved.gpu is not None:
        gpu: dict[str, Any] = {"type": resolved.gpu[0], "count": resolved.gpu[1]}
        if cls.gpu_driver_version is not None:
            gpu["driverVersion"] = cls.gpu_driver_version
        rule["gpu"] = gpu
    if resolved.tpu is not None:
        rule["tpu"] = {
            "type": resolved.tpu.generation.gke_accelerator,
            "count": resolved.tpu.chips_per_vm,
            "topology": resolved.tpu.topology,
        }
    if p.capacity == "spot":
        rule["spot"] = True
    if p.capacity == "flex_start":
        flex: dict[str, Any] = {"enabled": True}
        if p.node_recycling_lead_time is not None:
            flex["nodeRecycling"] = {"leadTimeSeconds": p.node_recycling_lead_time.seconds}
        rule["flexStart"] = flex
    if p.capacity == "any_reservation":
        rule["reservations"] = {"affinity": "AnyBestEffort"}
    if p.capacity == "reservation":
        rule["reservations"] = {"affinity": "Specific", "specific": [_specific(p)]}
    if p.max_run_duration is not None:
        rule["maxRunDurationSeconds"] = p.max_run_duration.seconds
    if p.placement_policy is not None:
        rule["placement"] = {"policyName": p.placement_policy}
    return rule


def class_manifest(spec: ComputeClassSpec, name: str) -> dict[str, Any]:
    """The object for ``spec``, named ``name``."""
    body: dict[str, Any] = {
        "priorities": [_priority_manifest(spec, r) for r in spec.resolved()],
        "whenUnsatisfiable": spec.when_unsatisfiable,
        "nodePoolAutoCreation": {"enabled": spec.node_pool_auto_creation},
    }
    if spec.active_migration:
        body["activeMigration"] = {"optimizeRulePriority": True}
    if spec.zones:
        body["priorityDefaults"] = {"location": {"zones": list(spec.zones)}}
    return {"apiVersion": API_VERSION, "kind": KIND, "metadata": {"name": name}, "spec": body}
