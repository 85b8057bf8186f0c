"""Cloud Batch jobs on Flex-start VMs: the ``pulumi-python:dynamic/dws:BatchJob`` a
``BatchFlexJob`` registers, whose ``body`` is the Batch ``Job``. Capacity: GPUs per VM x the VMs
it asks for at once (``parallelism``, one task per VM), for its tasks' run limit times the
waves it runs them in (a job with no ``maxRunDuration`` is unbounded).

The readers yield the facts the general rules check: a Flex-start job's run limit
(``RunLimit``), a GPU job's labels (``Labels``) and the network interfaces that give its GPU
VMs a public IP (``PublicIp``): the run-duration, label and public-IP rules check it with no
case of their own. Batch has no queue window: none is yielded.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from ...plan.summary import duration_text, gpu_hours
from ...policy.capacity import CapacityItem, item, known_or_none
from ...policy.facts import Labels, PublicIp, RunLimit
from ...policy.shapes import body_of, machine_gpus
from ...policy.values import UNKNOWN, as_bool, as_int, dig
from ...policy.view import ResourceView
from ...registry import CapacityKind, Ref, ResourceType, register
from .advice import advice_hint
from .component import BatchFlexJob, BatchFlexJobArgs, BatchFlexJobSpec
from .create import run_hours_of
from .provider import TYPE_TOKEN as BATCH_JOB

__all__ = ["KIND", "read_parts"]

_AIDS = "pulumi_dws.kinds.batch.testing"
_TASK = "body.taskGroups[0].taskSpec"
_NETWORK = "body.allocationPolicy.network.networkInterfaces"


def _policy(view: ResourceView) -> Any:
    return dig(body_of(view), "allocationPolicy", "instances", 0, "policy")


def _model(view: ResourceView) -> Any:
    return dig(_policy(view), "provisioningModel")


def _gpus(view: ResourceView) -> tuple[Any, Any]:
    policy = _policy(view)
    return machine_gpus(dig(policy, "machineType"), dig(policy, "accelerators"))


def _group(view: ResourceView) -> Any:
    return dig(body_of(view), "taskGroups", 0)


def _vms(view: ResourceView) -> Any:
    group = _group(view)
    tasks = as_int(dig(group, "taskCount"))
    at_once = as_int(dig(group, "parallelism"))
    chosen = at_once if at_once is not None else tasks
    return 1 if chosen is None else chosen


def read_parts(view: ResourceView) -> Iterator[Any]:
    """A Flex-start job's run limit, a GPU job's labels and public IPs."""
    if _model(view) == "FLEX_START":
        yield RunLimit(
            f"{_TASK}.maxRunDuration",
            dig(_group(view), "taskSpec", "maxRunDuration"),
            "batch.max_run_duration",
            needed="a FLEX_START Batch job needs its tasks' max run duration",
        )
    count = _gpus(view)[1]
    if count is UNKNOWN or (isinstance(count, int) and count > 0):
        yield Labels("body.labels", dig(body_of(view), "labels"))
    if isinstance(count, int) and count > 0:
        interfaces = dig(body_of(view), "allocationPolicy", "network", "networkInterfaces")
        if interfaces is None:
            yield PublicIp(
                "body.allocationPolicy.network has no network interface with "
                "noExternalIpAddress: Batch gives its GPU VMs a public IP",
                "set noExternalIpAddress: true (use Cloud NAT / Private Google Access)",
            )
        for i, nic in enumerate(interfaces if isinstance(interfaces, list) else []):
            private = as_bool(dig(nic, "noExternalIpAddress"))
            if private is not UNKNOWN and private is not True:
                yield PublicIp(
                    f"{_NETWORK}[{i}].noExternalIpAddress is not true: it gives the GPU VMs a "
                    "public IP",
                    "set it to true (use Cloud NAT / Private Google Access)",
                )


def _capacity(view: ResourceView) -> Iterator[CapacityItem]:
    body = body_of(view)
    hours = None if body is UNKNOWN else run_hours_of(body)
    raw = dig(_group(view), "taskSpec", "maxRunDuration")
    notes: list[str] = []
    if raw is None:
        notes.append("no max run duration: GPU-hours unbounded")
    yield item(
        view,
        "batch",
        "",
        gpus=_gpus(view),
        machine=dig(_policy(view), "machineType"),
        units=known_or_none(_vms(view)),
        hours=hours,
        bounded=None if raw is UNKNOWN or body is UNKNOWN else raw is not None,
        notes=tuple(notes),
    )


def _summary(view: ResourceView) -> dict[str, Any]:
    group = _group(view)
    return {
        "region": view.props.get("region"),
        "machine_type": dig(_policy(view), "machineType"),
        "provisioning_model": _model(view),
        "tasks": as_int(dig(group, "taskCount")),
        "vms": _vms(view),
        "max_run_duration": duration_text(dig(group, "taskSpec", "maxRunDuration")),
        "state": view.props.get("state"),
        **gpu_hours(view),
    }


def _looks_like_a_batch_job(view: ResourceView) -> bool:
    body = body_of(view)
    return isinstance(body, Mapping) and "taskGroups" in body


KIND = register(
    CapacityKind(
        name="BatchFlexJob",
        component=BatchFlexJob,
        args=BatchFlexJobArgs,
        spec=BatchFlexJobSpec,
        key="batch_flex_jobs",
        resources=(
            ResourceType(
                "batch",
                types=(BATCH_JOB,),
                dynamic_names=("batchjob",),
                recognise=_looks_like_a_batch_job,
                parts=read_parts,
                capacity=_capacity,
                summary=_summary,
                mock=Ref(f"{_AIDS}:batch_job"),
            ),
        ),
        test_aids=_AIDS,
        advice_hint=advice_hint,
    )
)
