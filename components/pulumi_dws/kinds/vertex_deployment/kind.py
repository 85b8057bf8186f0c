"""Models deployed on Vertex AI Flex-start capacity: the
``pulumi-python:dynamic/dws:FlexStartDeployedModel`` a ``FlexStartDeployment`` registers, whose
``body`` is the ``deployModel`` request. Capacity: GPUs per replica x the replicas it may scale
to (``maxReplicaCount``), for its run (``flexStart.maxRuntimeDuration``; a deployment without
Flex-start is unbounded).

The readers yield the run limit of a Flex-start deployment (``RunLimit``): the run-duration
rule checks it with no case of its own. A deployed model carries no labels of its own (its
endpoint does), so there are none to require.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from ...plan.summary import duration_text, gpu_hours
from ...policy.capacity import CapacityItem, item, known_or_none, run_hours
from ...policy.facts import RunLimit
from ...policy.shapes import body_of, machine_gpus
from ...policy.values import UNKNOWN, as_int, dig
from ...policy.view import ResourceView
from ...registry import CapacityKind, Ref, ResourceType, register
from .component import FlexStartDeployment, FlexStartDeploymentArgs, FlexStartDeploymentSpec
from .provider import TYPE_TOKEN as DEPLOYED_MODEL

__all__ = ["KIND", "read_parts", "vms_of"]

_AIDS = "pulumi_dws.kinds.vertex_deployment.testing"
_RESOURCES = "body.deployedModel.dedicatedResources"


def _resources(view: ResourceView) -> Any:
    return dig(body_of(view), "deployedModel", "dedicatedResources")


def _flex(view: ResourceView) -> Any:
    resources = _resources(view)
    if resources is UNKNOWN:
        return UNKNOWN
    return isinstance(resources, Mapping) and isinstance(resources.get("flexStart"), Mapping)


def _runtime(view: ResourceView) -> Any:
    return dig(_resources(view), "flexStart", "maxRuntimeDuration")


def read_parts(view: ResourceView) -> Iterator[Any]:
    """A Flex-start deployment's run limit (the only fact a deployed model carries)."""
    if _flex(view) is True:
        yield RunLimit(
            f"{_RESOURCES}.flexStart.maxRuntimeDuration",
            _runtime(view),
            "vertex_deployment.max_runtime_duration",
            needed="a Flex-start deployment needs a max runtime duration",
        )


def _replicas(view: ResourceView) -> Any:
    resources = _resources(view)
    most = as_int(dig(resources, "maxReplicaCount"))
    return as_int(dig(resources, "minReplicaCount")) if most is None else most


def vms_of(spec: Any, replicas: Any) -> tuple[tuple[Any, Any], Any]:
    """``((accelerator, GPUs per VM), VMs)`` of ``replicas`` replicas of machine spec
    ``spec``: a replica that takes half of its machine's GPUs or fewer shares a VM with
    others (MachineSpec.acceleratorCount, co-scheduling), and a VM holds all its GPUs."""
    accelerators = (
        UNKNOWN
        if spec is UNKNOWN
        else [{"type": dig(spec, "acceleratorType"), "count": dig(spec, "acceleratorCount")}]
    )
    given = machine_gpus(dig(spec, "machineType"), accelerators)
    whole = machine_gpus(dig(spec, "machineType"), None)
    count, gpus = given[1], whole[1]
    if not (isinstance(count, int) and isinstance(gpus, int) and 0 < count < gpus):
        return given, replicas
    per_vm = gpus // count if count <= gpus // 2 else 1
    vms = -(-replicas // per_vm) if isinstance(replicas, int) else replicas
    return (given[0], gpus), vms


def _capacity(view: ResourceView) -> Iterator[CapacityItem]:
    spec = dig(_resources(view), "machineSpec")
    notes: list[str] = []
    hours, bounded = run_hours(
        _runtime(view),
        "flexStart.maxRuntimeDuration",
        _flex(view),
        "vertex_deployment.max_runtime_duration",
        notes,
    )
    replicas = _replicas(view)
    gpus, vms = vms_of(spec, 1 if replicas is None else replicas)
    yield item(
        view,
        "vertex_deployment",
        "",
        gpus=gpus,
        machine=dig(spec, "machineType"),
        units=known_or_none(vms),
        hours=hours,
        bounded=bounded,
        notes=tuple(notes),
    )


def _summary(view: ResourceView) -> dict[str, Any]:
    resources = _resources(view)
    return {
        "region": view.props.get("region"),
        "endpoint": view.props.get("endpoint"),
        "machine_type": dig(resources, "machineSpec", "machineType"),
        "replicas": _replicas(view),
        "max_run_duration": duration_text(_runtime(view)),
        "state": view.props.get("state"),
        **gpu_hours(view),
    }


def _looks_like_a_deployment(view: ResourceView) -> bool:
    return isinstance(dig(body_of(view), "deployedModel"), Mapping)


KIND = register(
    CapacityKind(
        name="FlexStartDeployment",
        component=FlexStartDeployment,
        args=FlexStartDeploymentArgs,
        spec=FlexStartDeploymentSpec,
        key="flex_start_deployments",
        resources=(
            ResourceType(
                "vertex_deployment",
                types=(DEPLOYED_MODEL,),
                dynamic_names=("flexstartdeployedmodel", "deployedmodel"),
                recognise=_looks_like_a_deployment,
                parts=read_parts,
                capacity=_capacity,
                summary=_summary,
                mock=Ref(f"{_AIDS}:deployed_model"),
            ),
        ),
        test_aids=_AIDS,
    )
)
