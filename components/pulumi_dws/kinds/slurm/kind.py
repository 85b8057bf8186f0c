"""Managed Slurm clusters with Flex-start partitions (``SlurmCluster``): the cluster's create
body (``pulumi-python:dynamic/dws:SlurmCluster``), the service agent's IAM grants (and any IAM
member, binding or policy a user registers), and the ``/home`` Filestore."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any

from ...plan.summary import duration_text, gpu_hours, shown
from ...policy.capacity import CapacityItem, consumer_item, known_or_none, run_hours
from ...policy.facts import Grant, Labels, MachineUse, PublicIp, RunLimit
from ...policy.shapes import body_of
from ...policy.values import as_bool, pick
from ...policy.view import ResourceView
from ...registry import CapacityKind, Ref, ResourceType, register
from .component import SlurmCluster, SlurmClusterArgs, SlurmClusterSpec
from .provider import TYPE_TOKEN as SLURM
from .shapes import SlurmPool, slurm_pools

__all__ = ["KIND", "read_grants", "read_parts", "read_pools", "IAM_PATTERN"]

_AIDS = "pulumi_dws.kinds.slurm.testing"
IAM_PATTERN = r"^gcp:[A-Za-z]+/iAM(Member|Binding|Policy):IAM(Member|Binding|Policy)\Z"
"""Project, folder, organization and service-account IAM members, bindings and policies."""
IAM_MEMBER = "gcp:projects/iAMMember:IAMMember"
FILESTORE = "gcp:filestore/instance:Instance"


def read_pools(view: ResourceView) -> Iterator[SlurmPool]:
    """The node pools of a SlurmCluster body (nothing if unknown or absent)."""
    body = body_of(view)
    pools = pick(body, "node_pools", "nodePools")
    model = pick(body, "provisioning_model", "provisioningModel")
    if isinstance(pools, list):
        for i, pool in enumerate(pools):
            yield SlurmPool(view, i, pool, model)


def read_parts(view: ResourceView) -> Iterator[Any]:
    """The cluster's node pools (:func:`read_pools`), and the facts the general rules check:
    a Flex-start pool's run limit, each pool's machine type, the cluster's labels, a GPU pool's
    public IPs."""
    body = body_of(view)
    top = pick(body, "enable_public_ips", "enablePublicIps")
    for spool in read_pools(view):
        yield spool
        if spool.flex_start is True:
            yield RunLimit(
                f"{spool.where}flex_start_max_duration",
                spool.get("flex_start_max_duration", "flexStartMaxDuration"),
                "slurm.flex_start_max_duration",
            )
        spec = spool.get("machine_spec", "machineSpec")
        yield MachineUse(
            f"{spool.where}machine_spec.machine_type",
            pick(spec, "machine_type", "machineType"),
            spool.flex_start,
        )
        public = as_bool(spool.get("enable_public_ips", "enablePublicIps"))
        public = as_bool(top) if public is None else public
        count = spool.gpus()[1]
        if public is True and isinstance(count, int) and count > 0:
            yield PublicIp(
                f"{spool.where}enable_public_ips is true on GPU node pool {spool.id}",
                "set it to false",
            )
    yield Labels("body.labels", pick(body, "labels"))


def read_grants(view: ResourceView) -> Iterator[Grant]:
    """The grants of an IAM member, binding or policy (``policyData`` JSON)."""
    props = view.props
    if view.type.endswith(":IAMMember"):
        yield Grant(props.get("role"), [props.get("member")])
    elif view.type.endswith(":IAMBinding"):
        members = props.get("members")
        yield Grant(props.get("role"), members if isinstance(members, list) else [members])
    elif view.type.endswith(":IAMPolicy"):
        data = props.get("policyData")
        if isinstance(data, str) and data not in ("",):
            try:
                policy = json.loads(data)
            except ValueError:
                return
            bindings = policy.get("bindings") if isinstance(policy, dict) else None
            for binding in bindings if isinstance(bindings, list) else []:
                if isinstance(binding, dict):
                    yield Grant(binding.get("role"), list(binding.get("members") or []))


def _capacity(view: ResourceView) -> Iterator[CapacityItem]:
    """GPUs per node x ``max_node_count`` per pool, for ``flex_start_max_duration`` (a
    RESERVATION pool is counted on its reservation)."""
    for spool in slurm_pools(view):
        notes: list[str] = []
        raw = spool.get("flex_start_max_duration", "flexStartMaxDuration")
        hours, bounded = run_hours(
            raw, "flex_start_max_duration", spool.flex_start, "slurm.flex_start_max_duration", notes
        )
        spec = spool.get("machine_spec", "machineSpec")
        yield consumer_item(
            view,
            "slurm",
            spool.id,
            spool.reservation_consumer,
            notes,
            gpus=spool.gpus(),
            machine=pick(spec, "machine_type", "machineType"),
            units=known_or_none(spool.max_nodes()),
            hours=hours,
            bounded=bounded,
        )


def _summary(view: ResourceView) -> dict[str, Any]:
    pools = list(slurm_pools(view))

    def line(pool: SlurmPool) -> str:
        spec = pool.get("machine_spec", "machineSpec")
        machine = pick(spec, "machine_type", "machineType")
        count = shown(pool.max_nodes() or 0)
        model = pool.get("provisioning_model", "provisioningModel") or ""
        return f"{pool.id}: {shown(machine)} x{count} {shown(model)}".rstrip()

    durations = (
        duration_text(pool.get("flex_start_max_duration", "flexStartMaxDuration")) for pool in pools
    )
    return {
        "region": view.props.get("region"),
        "node_pools": ", ".join(line(pool) for pool in pools),
        "max_run_duration": ", ".join(filter(None, durations)),
        **gpu_hours(view),
    }


def _looks_like_a_cluster(view: ResourceView) -> bool:
    body = body_of(view)
    return isinstance(body, Mapping) and (
        "node_pools" in body or ("nodePools" in body and "orchestrator_spec" in body)
    )


def _iam_summary(view: ResourceView) -> dict[str, Any]:
    return {"role": view.props.get("role"), "member": view.props.get("member")}


KIND = register(
    CapacityKind(
        name="SlurmCluster",
        component=SlurmCluster,
        args=SlurmClusterArgs,
        spec=SlurmClusterSpec,
        key="slurm_clusters",
        resources=(
            ResourceType(
                "slurm",
                types=(SLURM,),
                dynamic_names=("slurmcluster",),
                recognise=_looks_like_a_cluster,
                parts=read_parts,
                capacity=_capacity,
                summary=_summary,
                mock=Ref(f"{_AIDS}:slurm_cluster"),
            ),
            ResourceType(
                "iam",
                types=(IAM_MEMBER,),
                parts=read_grants,
                summary=_iam_summary,
                mock=Ref(f"{_AIDS}:iam_member"),
                autonamed=False,
            ),
            ResourceType("iam", pattern=IAM_PATTERN, parts=read_grants, summary=_iam_summary),
            ResourceType("filestore", types=(FILESTORE,), mock=Ref(f"{_AIDS}:filestore")),
        ),
        test_aids=_AIDS,
    )
)
