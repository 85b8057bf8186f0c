"""Vertex AI custom jobs on Flex-start: the ``pulumi-python:dynamic/dws:VertexCustomJob`` a
``VertexTrainingJob`` registers, whose ``body`` is the ``CustomJob``. Capacity: each worker
pool's GPUs per replica x its replicas, for the job's run limit (``scheduling.timeout``,
Google's default 7 days when it is left out, so a custom job is never unbounded).

The readers yield the facts the general rules check: a Flex-start job's run limit
(``RunLimit``) and queue window (``QueueWindow``), and a GPU job's labels (``Labels``); the
run-duration, queue-window and label rules check it with no case of their own.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from ...duration import Duration
from ...errors import DwsValidationError
from ...plan.summary import duration_text, gpu_hours, shown
from ...policy.capacity import CapacityItem, item, known_or_none, limited_hours
from ...policy.facts import Labels, QueueWindow, RunLimit
from ...policy.shapes import body_of, machine_gpus
from ...policy.values import UNKNOWN, as_int, dig
from ...policy.view import ResourceView
from ...registry import CapacityKind, Ref, ResourceType, register
from .component import VertexTrainingJob, VertexTrainingJobArgs, VertexTrainingJobSpec
from .provider import TYPE_TOKEN as CUSTOM_JOB

__all__ = ["KIND", "job_pools", "read_parts"]

_AIDS = "pulumi_dws.kinds.vertex_training.testing"
_SCHEDULING = "body.jobSpec.scheduling"


def job_pools(view: ResourceView) -> Iterator[tuple[int, Any, Any, Any]]:
    """``(index, machine spec, replicas, GPUs)`` of each worker pool of a custom job body
    (``GPUs`` as :func:`~pulumi_dws.policy.shapes.machine_gpus` gives them); UNKNOWN parts while
    not known."""
    pools = dig(body_of(view), "jobSpec", "workerPoolSpecs")
    if pools is UNKNOWN:
        yield 0, UNKNOWN, UNKNOWN, (UNKNOWN, UNKNOWN)
        return
    for i, pool in enumerate(pools if isinstance(pools, list) else []):
        spec = dig(pool, "machineSpec")
        accelerators = (
            UNKNOWN
            if spec is UNKNOWN
            else [
                {
                    "type": dig(spec, "acceleratorType"),
                    "count": dig(spec, "acceleratorCount"),
                }
            ]
            if dig(spec, "acceleratorType") not in (None, "ACCELERATOR_TYPE_UNSPECIFIED")
            else None
        )
        replicas = as_int(dig(pool, "replicaCount"))  # int64: a string, or a float
        yield (
            i,
            spec,
            1 if replicas is None else replicas,
            machine_gpus(dig(spec, "machineType"), accelerators),
        )


def _strategy(view: ResourceView) -> Any:
    return dig(body_of(view), "jobSpec", "scheduling", "strategy")


def _is_zero(value: Any) -> bool:
    """``maxWaitDuration: 0``: "the job will wait indefinitely" (the discovery document)."""
    if value is UNKNOWN or value is None:
        return False
    try:
        return Duration.parse(value, "maxWaitDuration").seconds == 0
    except DwsValidationError:
        return False


def read_parts(view: ResourceView) -> Iterator[Any]:
    """The facts the general rules check of a custom job: its run limit and queue window when it
    is Flex-start, its labels when it asks for GPUs."""
    scheduling = dig(body_of(view), "jobSpec", "scheduling")
    if _strategy(view) == "FLEX_START":
        yield RunLimit(
            f"{_SCHEDULING}.timeout",
            dig(scheduling, "timeout"),
            "vertex_training.max_run_duration",
        )
        window = dig(scheduling, "maxWaitDuration")
        if _is_zero(window):  # no window at all: what a stack requiring one refuses
            yield QueueWindow(
                f"{_SCHEDULING}.maxWaitDuration",
                None,
                "vertex_training.max_wait",
                "(maxWaitDuration 0) the job waits indefinitely",
                setting="max_wait",
            )
        else:
            yield QueueWindow(
                f"{_SCHEDULING}.maxWaitDuration",
                window,
                "vertex_training.max_wait",
                "the job waits Google's default of 1 day",
                setting="max_wait",
            )
    counts = [gpus[1] for _, _, _, gpus in job_pools(view)]
    if any(count is UNKNOWN for count in counts) or any(
        isinstance(count, int) and count > 0 for count in counts
    ):
        yield Labels("body.labels", dig(body_of(view), "labels"))


def _capacity(view: ResourceView) -> Iterator[CapacityItem]:
    notes: list[str] = []
    timeout = dig(body_of(view), "jobSpec", "scheduling", "timeout")
    hours, bounded = limited_hours(
        timeout, "jobSpec.scheduling.timeout", "vertex_training.max_run_duration", notes
    )
    for i, spec, replicas, gpus in job_pools(view):
        yield item(
            view,
            "vertex_training",
            f"pool{i}",
            gpus=gpus,
            machine=dig(spec, "machineType"),
            units=known_or_none(replicas),
            hours=hours,
            bounded=bounded,
            notes=tuple(notes),
        )


def _summary(view: ResourceView) -> dict[str, Any]:
    scheduling = dig(body_of(view), "jobSpec", "scheduling")
    pools = list(job_pools(view))
    replicas = [replicas for _, _, replicas, _ in pools]
    return {
        "region": view.props.get("region"),
        "machine_type": shown(dig(pools[0][1], "machineType")) if pools else None,
        "replicas": sum(replicas) if all(isinstance(r, int) for r in replicas) else UNKNOWN,
        "strategy": dig(scheduling, "strategy"),
        "max_wait": duration_text(dig(scheduling, "maxWaitDuration")),
        "max_run_duration": duration_text(dig(scheduling, "timeout")),
        "state": view.props.get("state"),
        **gpu_hours(view),
    }


def _looks_like_a_custom_job(view: ResourceView) -> bool:
    spec = dig(body_of(view), "jobSpec")
    return isinstance(spec, Mapping) and "workerPoolSpecs" in spec


KIND = register(
    CapacityKind(
        name="VertexTrainingJob",
        component=VertexTrainingJob,
        args=VertexTrainingJobArgs,
        spec=VertexTrainingJobSpec,
        key="vertex_training_jobs",
        resources=(
            ResourceType(
                "vertex_training",
                types=(CUSTOM_JOB,),
                dynamic_names=("vertexcustomjob", "customjob"),
                recognise=_looks_like_a_custom_job,
                parts=read_parts,
                capacity=_capacity,
                summary=_summary,
                mock=Ref(f"{_AIDS}:custom_job"),
            ),
        ),
        test_aids=_AIDS,
    )
)
