"""A ``FlexStartGroup``'s workload policy (``placement``): its args, the rules Google documents
for it per machine series, and the pulumi-gcp ``ResourcePolicy`` it declares.

    FlexStartGroup("trainers", {..., "machine_type": "a4-highgpu-8g", "count": 16,
                                "placement": {"max_topology_distance": "BLOCK"}})

registers a ``gcp.compute.ResourcePolicy`` with ``workload_policy`` ``{type: HIGH_THROUGHPUT,
max_topology_distance: BLOCK}`` in the group's region (shared by the program's groups that ask
for the same one: :func:`workload_policy`), the body
``gcloud compute resource-policies create workload-policy NAME --type=HIGH_THROUGHPUT
--max-topology-distance=BLOCK --region=R`` sends, and the group names it in
``resource_policies.workload_policy`` (``gcloud beta compute instance-groups managed create
--workload-policy=...``). ``{"policy": <ResourcePolicy or name>}`` uses an existing policy.

Rules (sources: :mod:`pulumi_dws.catalog.series`): workload policies only for A4X Max, A4X, A4,
A3 Ultra, A3 Mega, A3 High (8 GPUs) and H4D; only the ``HIGH_THROUGHPUT`` type;
``accelerator_topology`` for A4X Max and A4X (required for a group of more than one VM, and the
slice it names must hold exactly the group's VMs: ``1x72`` is 18 VMs of 4 GPUs),
``max_topology_distance`` for the others.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, cast

import pulumi
import pulumi_gcp as gcp
from pulumi.runtime import settings
from pydantic import model_validator

from ... import catalog
from ...catalog.series import (
    MAX_TOPOLOGY_DISTANCES,
    WORKLOAD_POLICY_SOURCE,
    WORKLOAD_POLICY_TYPES,
    Series,
    topologies_text,
    workload_policy_series,
)
from ...errors import DwsValidationError
from ...fields import Check, Takes
from ...models import DwsModel
from ...validation import check_name, is_output
from ..flex_vm.shapes import fingerprint, shareable

__all__ = [
    "PlacementSpec",
    "POLICY_TYPE",
    "check_placement",
    "shared_policy",
    "workload_policy",
]

_POLICY_PATH = "projects/{project}/regions/{region}/resourcePolicies/{name}"


def _type(field: str, value: Any) -> str:
    if value not in WORKLOAD_POLICY_TYPES:
        raise DwsValidationError(
            field,
            value,
            f"is not allowed; use {', '.join(WORKLOAD_POLICY_TYPES)} (the only workload-policy "
            f"type Google documents for MIGs: {WORKLOAD_POLICY_SOURCE})",
        )
    return str(value)


def _distance(field: str, value: Any) -> str:
    if value not in MAX_TOPOLOGY_DISTANCES:
        raise DwsValidationError(
            field, value, f"is not allowed; use one of {', '.join(MAX_TOPOLOGY_DISTANCES)}"
        )
    return str(value)


def _policy(field: str, value: Any) -> Any:
    if isinstance(value, gcp.compute.ResourcePolicy) or is_output(value):
        return value
    if isinstance(value, str) and value:
        name = value.rsplit("/", 1)[-1]
        parts = value.split("/")
        if value != name and not (
            len(parts) == 6 and parts[0] == "projects" and parts[2] == "regions"
            and parts[4] == "resourcePolicies"
        ):  # fmt: skip
            raise DwsValidationError(
                field,
                value,
                "must be a name or projects/PROJECT/regions/REGION/resourcePolicies/NAME",
            )
        check_name(field, name)
        return value
    raise DwsValidationError(
        field, value, "must be a gcp.compute.ResourcePolicy or a resource policy name"
    )


class PlacementSpec(DwsModel):
    """A ``FlexStartGroup``'s workload policy: the properties of a new one, or ``policy``."""

    # The one declaration of each field: PlacementArgs is generated from it (scripts/generate.py).

    type: Annotated[str, Check(_type), Takes(Literal["HIGH_THROUGHPUT"])] = "HIGH_THROUGHPUT"
    """The policy's intent; Google documents only ``HIGH_THROUGHPUT`` for MIGs (default)."""
    max_topology_distance: (
        Annotated[str, Check(_distance), Takes(Literal["SUBBLOCK", "BLOCK", "CLUSTER"])] | None
    ) = None
    """How far apart the VMs may be (A4, A3 Ultra, A3 Mega, A3 High 8-GPU, H4D)."""
    accelerator_topology: str | None = None
    """The slice the VMs form (A4X, A4X Max: ``1x72``, 18 VMs)."""
    policy: (
        Annotated[Any, Check(_policy), Takes("pulumi_gcp.compute.ResourcePolicy | str")] | None
    ) = None
    """An existing workload policy instead: a ``gcp.compute.ResourcePolicy``, its name
    (``my-policy``, in the group's region) or its path
    (``projects/P/regions/R/resourcePolicies/NAME``)."""

    @model_validator(mode="after")
    def _one_property(self) -> PlacementSpec:
        if self.max_topology_distance is not None and self.accelerator_topology is not None:
            raise DwsValidationError(
                "accelerator_topology",
                self.accelerator_topology,
                "can't be given with max_topology_distance: a workload policy takes one of them "
                "(gcloud compute resource-policies create workload-policy: the flags are "
                "exclusive)",
            )
        described = self.max_topology_distance or self.accelerator_topology
        if self.policy is not None and (described or "type" in self.model_fields_set):
            raise DwsValidationError(
                "policy",
                _shown(self.policy),
                "can't be given with type, max_topology_distance or accelerator_topology: "
                "those describe a new policy; an existing one is used as it is",
            )
        return self


def _shown(value: Any) -> Any:
    return getattr(value, "_name", value) if isinstance(value, pulumi.Resource) else value


def check_placement(
    placement: PlacementSpec | None, machine_type: str, count: int, gpus_per_vm: int
) -> None:
    """The group-level rules: the series takes workload policies, the property it takes, the
    one an A4X group of more than one VM needs, and a slice that holds exactly ``count`` VMs."""
    series = catalog.series_of(machine_type)
    if placement is None:
        if series is not None and series.workload_policy_required and count > 1:
            raise DwsValidationError(
                "placement",
                "(missing)",
                f"is required for a group of {count} {series.name} VMs: give placement "
                f"{{'accelerator_topology': ...}} ({topologies_text(series)}); Google requires a "
                f"workload policy for {series.name} groups of more than one VM "
                f"({WORKLOAD_POLICY_SOURCE})",
            )
        return
    if series is None or series.workload_policy is None:
        what = f"{series.name} " if series is not None else ""
        raise DwsValidationError(
            "placement",
            _placement_shown(placement),
            f"is not allowed for {what}machine type {machine_type}: workload policies are for "
            f"{workload_policy_series()} ({WORKLOAD_POLICY_SOURCE}); other series use "
            "placement policies, which Flex-start groups can't",
        )
    if placement.policy is not None:
        return
    _check_property(placement, series, count, gpus_per_vm)


def _check_property(placement: PlacementSpec, series: Series, count: int, gpus: int) -> None:
    if series.workload_policy == "accelerator_topology":
        if placement.max_topology_distance is not None:
            raise DwsValidationError(
                "placement.max_topology_distance",
                placement.max_topology_distance,
                f"is not allowed for {series.name}: its workload policy takes "
                f"accelerator_topology ({topologies_text(series)}; {WORKLOAD_POLICY_SOURCE})",
            )
        topology = placement.accelerator_topology
        if topology is None:
            if count > 1:
                raise DwsValidationError(
                    "placement.accelerator_topology",
                    "(missing)",
                    f"is required for a group of {count} {series.name} VMs "
                    f"({topologies_text(series)}; {WORKLOAD_POLICY_SOURCE})",
                )
            return
        field = "placement.accelerator_topology"
        if topology not in series.topologies:
            raise DwsValidationError(
                field,
                topology,
                f"is not a topology Google documents for {series.name}; use "
                f"{topologies_text(series)} ({WORKLOAD_POLICY_SOURCE})",
            )
        vms = catalog.slice_vms(field, topology, gpus)
        if vms != count:
            raise DwsValidationError(
                field,
                topology,
                f"does not fit a group of {count} VMs: a {topology} slice is {vms} VMs of "
                f"{gpus} GPUs; use count {vms}",
            )
        return
    if placement.accelerator_topology is not None:
        raise DwsValidationError(
            "placement.accelerator_topology",
            placement.accelerator_topology,
            f"is not allowed for {series.name}: its workload policy takes "
            f"max_topology_distance ({', '.join(MAX_TOPOLOGY_DISTANCES)}; "
            f"{WORKLOAD_POLICY_SOURCE})",
        )


def _placement_shown(placement: PlacementSpec) -> Any:
    given = placement.model_dump(exclude_none=True, exclude_defaults=True)
    return {k: _shown(v) for k, v in given.items()} or {"type": placement.type}


def workload_policy(
    placement: PlacementSpec,
    *,
    project: Any,
    region: Any,
    component: pulumi.Resource,
    opts: pulumi.ResourceOptions | None,
) -> tuple[gcp.compute.ResourcePolicy | None, Any]:
    """The group's workload policy: ``(the ResourcePolicy declared, or None for an existing
    one; the link the group's resource_policies.workload_policy names)``.

    Google applies one workload policy to many groups, each on its own ("You can apply the same
    workload policy to multiple MIGs. When you do so, Compute Engine applies the placement rules
    independently to each MIG", :data:`WORKLOAD_POLICY_SOURCE`): groups of one program that ask
    for the same policy in the same project and region share one ``ResourcePolicy``,
    ``workload-policy-<fingerprint>`` at the stack's root (:func:`shared_policy`); with a
    project not known yet, or ``protect`` / transformations on the component (a shared
    resource is nobody's child), the group gets its own ``<name>-placement`` child."""
    given = placement.policy
    if isinstance(given, gcp.compute.ResourcePolicy):
        return None, given.self_link
    if given is not None:
        if is_output(given) or "/" in str(given):
            return None, given
        return None, pulumi.Output.all(project, region).apply(
            lambda pr: _POLICY_PATH.format(project=pr[0], region=pr[1], name=given)
        )
    properties: dict[str, Any] = {"type": placement.type}
    if placement.max_topology_distance is not None:
        properties["max_topology_distance"] = placement.max_topology_distance
    if placement.accelerator_topology is not None:
        properties["accelerator_topology"] = placement.accelerator_topology
    inputs = {"project": project, "region": region, "workload_policy": properties}
    provider = component.get_provider(POLICY_TYPE)
    shape = fingerprint(inputs, provider) if shareable(component, opts) else None
    if shape is not None:
        policy = shared_policy(shape, inputs, provider)
    else:
        policy = gcp.compute.ResourcePolicy(
            f"{component._name}-placement",  # noqa: SLF001
            project=project,
            region=region,
            workload_policy=cast(Any, properties),
            opts=pulumi.ResourceOptions(parent=component),
        )
    return policy, policy.self_link


POLICY_TYPE = "gcp:compute/resourcePolicy:ResourcePolicy"

# The shared workload policies of the running program, keyed by fingerprint; a new resource
# monitor (a new program run, e.g. under test mocks) starts an empty table.
_program: tuple[Any, dict[str, gcp.compute.ResourcePolicy]] = (None, {})


def shared_policy(
    shape: str, inputs: dict[str, Any], provider: pulumi.ProviderResource | None
) -> gcp.compute.ResourcePolicy:
    """The program's workload policy of fingerprint ``shape``, registered on first use."""
    global _program
    monitor = settings.get_monitor()
    if _program[0] is not monitor:
        _program = (monitor, {})
    policies = _program[1]
    policy = policies.get(shape)
    if policy is None:
        policy = gcp.compute.ResourcePolicy(
            f"workload-policy-{shape}",
            project=inputs["project"],
            region=inputs["region"],
            workload_policy=cast(Any, inputs["workload_policy"]),
            opts=pulumi.ResourceOptions(provider=provider),
        )
        policies[shape] = policy
    return policy
