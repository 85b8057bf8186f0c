"""Test aids of Vertex AI custom jobs (:mod:`pulumi_dws.kinds.vertex_training.kind`): how a
``VertexCustomJob`` behaves under :class:`~pulumi_dws.testing.GcpMocks`, its policy samples,
what each asks for, and violating examples."""

from __future__ import annotations

import zlib
from typing import TYPE_CHECKING, Any

from ...testing.emulator.aiplatform import AiPlatformService
from ...testing.fault_proxy import ProxyFaultPlan
from ...testing.fault_run import (
    POLL,
    STACK_A,
    STACK_B,
    FaultRunReport,
    Interrupter,
    KindFaultRun,
    OtherStack,
    create_then_delete,
    interruption,
    owned,
    run_cycles,
    two_stack_cycle,
)
from ...testing.samples import DELETE, Capacity, Example, Sample
from .provider import TYPE_TOKEN as CUSTOM_JOB
from .provider import VertexCustomJobProvider, VertexTrainingError

if TYPE_CHECKING:
    from ...testing.mocks import GcpMocks

__all__ = [
    "CAPACITY",
    "COMPONENT_ARGS",
    "EXAMPLES",
    "FAULT_RUN",
    "PACKAGE_CASE",
    "SAMPLES",
    "custom_job",
    "custom_job_fault_run",
]

_STATES = {
    "queued": "JOB_STATE_QUEUED",
    "running": "JOB_STATE_RUNNING",
    "succeeded": "JOB_STATE_SUCCEEDED",
}


def custom_job(mocks: GcpMocks, typ: str, name: str, s: dict[str, Any]) -> str:
    """Like the provider after a create: the state ``waitFor`` asked for; the id is
    ``projects/<p>/locations/<region>/customJobs/<number>`` (the API names the job)."""
    project = s.get("project") or mocks.project
    region = s.get("region") or mocks.region
    number = 1_000_000_000 + zlib.crc32(name.encode()) % 1_000_000_000
    job = f"projects/{project}/locations/{region}/customJobs/{number}"
    s["name"] = job
    wanted = str(s.get("waitFor") or "running")
    s["state"] = mocks.lifecycle(_STATES.get(wanted, "JOB_STATE_RUNNING"))
    s["observed"] = {"createTime": None, "startTime": None, "endTime": None}
    return job


# ---------------------------------------------------------------------- policy samples
def custom_job_props() -> dict[str, Any]:
    """Two worker pools of a3-highgpu-8g (1 + 3 replicas: 32 H100s) for up to 2 days, waiting
    up to 6 hours, as ``VertexTrainingJob`` passes them to its provider."""
    machine = {
        "acceleratorCount": 8,
        "acceleratorType": "NVIDIA_H100_80GB",
        "machineType": "a3-highgpu-8g",
    }
    container = {"args": ["--epochs=3"], "imageUri": "us-docker.pkg.dev/my-project/train/llm:1"}
    return {
        "project": "my-project",
        "region": "us-central1",
        "owner": "finetune-job",
        "waitFor": "running",
        "body": {
            "displayName": "finetune",
            "jobSpec": {
                "scheduling": {
                    "maxWaitDuration": "21600s",
                    "strategy": "FLEX_START",
                    "timeout": "172800s",
                },
                "workerPoolSpecs": [
                    {"containerSpec": container, "machineSpec": machine, "replicaCount": "1"},
                    {"containerSpec": container, "machineSpec": machine, "replicaCount": "3"},
                ],
            },
            "labels": {"team": "ml"},
        },
    }


SAMPLES: dict[str, Sample] = {"custom_job": (CUSTOM_JOB, custom_job_props)}

CAPACITY: dict[str, Capacity] = {
    # 4 replicas x 8 H100s for 2 days
    "custom_job": Capacity("nvidia-h100-80gb", gpus=32, gpu_hours=32 * 48),
}
"""What each sample asks for (see :func:`pulumi_dws.testing.samples.totals`)."""

COMPONENT_ARGS: dict[str, Any] = {
    "region": "us-central1",
    "machine_type": "a3-highgpu-8g",
    "image": "us-docker.pkg.dev/my-project/train/llm:1",
    "worker_pools": [{"replica_count": 1}, {"replica_count": 3}],
    "max_wait": "6h",
    "max_run_duration": "2d",
    "labels": {"team": "research"},
}
"""The component's arguments as a program writes them (the component package's samples)."""

PACKAGE_CASE: dict[str, Any] = {  # a machine whose GPUs Flex-start training does not take
    "bad": {"machine_type": "a4x-highgpu-4g"},
    "path": "machineType",
}
"""The refused input of the component package's tests."""

_SCHEDULING = "body.jobSpec.scheduling"

EXAMPLES: tuple[Example, ...] = (
    Example(
        "flex-start-max-run-duration",
        "custom_job",
        ((f"{_SCHEDULING}.timeout", "691200s"),),
        "body.jobSpec.scheduling.timeout: 8d (691200s) is above",
        unknown=f"{_SCHEDULING}.timeout",
    ),
    Example(
        "flex-start-max-run-duration",
        "custom_job",
        ((f"{_SCHEDULING}.timeout", "345600s"),),
        "policy cap of 3d",
        config={"maxRunDuration": "3d"},
    ),
    Example(
        "flex-start-queue-window",
        "custom_job",
        ((f"{_SCHEDULING}.maxWaitDuration", "soon"),),
        "body.jobSpec.scheduling.maxWaitDuration",
        unknown=f"{_SCHEDULING}.maxWaitDuration",
    ),
    Example(
        "flex-start-queue-window",
        "custom_job",
        ((f"{_SCHEDULING}.maxWaitDuration", DELETE),),
        "waits Google's default of 1 day. Set one (at least 0s), e.g. with max_wait=",
        config={"requireQueueWindow": True},
        unknown=_SCHEDULING,
    ),
    Example(
        "flex-start-queue-window",
        "custom_job",
        ((f"{_SCHEDULING}.maxWaitDuration", "0s"),),
        "waits indefinitely",
        config={"requireQueueWindow": True},
        unknown=f"{_SCHEDULING}.maxWaitDuration",
    ),
    Example(
        "required-labels",
        "custom_job",
        (("body.labels", DELETE),),
        "body.labels lacks required label(s) team",
        unknown="body.labels",
    ),
)
"""One per rule a custom job can break (the GPU budget, ``gpu-budget``, is a stack rule)."""


# ---------------------------------------------------------------------- fault run
def custom_job_fault_run(
    emu: Any,
    proxy: Any,
    *,
    cycles: int = 200,
    rate: float = 0.25,
    seed: int = 1,
    names: int = 4,
    deadline: float = 0.1,
    held_weight: float = 0.05,
) -> FaultRunReport:
    """``cycles`` create/delete cycles of ``VertexCustomJob`` (4 replicas of a3-highgpu-8g)
    through ``proxy`` (see :mod:`pulumi_dws.testing.fault_run`): the API names each job and
    takes no request id, so every lost create is settled by searching its label. Names repeat
    every ``names`` cycles (identical jobs of other names run beside: none may adopt another's).
    Every fourth job queues for capacity, every seventh fails once provisioned, every tenth
    finds none in its 2-hour queue window; every third returns once queued, every fifth waits
    until it succeeded. An orphan is a job no successful create returned; a duplicate, a second
    job made by one create."""
    svc = emu["aiplatform"]
    report = FaultRunReport("VertexCustomJob")
    interrupter = Interrupter(emu, seed)
    provider = VertexCustomJobProvider(sleep=interrupter, poll=POLL)
    region, machine = "us-central1", "a3-highgpu-8g"
    other = OtherStack(emu, report, provider, VertexTrainingError, lambda: len(svc.jobs_created))

    def cycle(i: int) -> None:
        props = custom_job_props()
        props["body"]["jobSpec"]["scheduling"]["maxWaitDuration"] = "7200s"
        props["waitFor"] = "queued" if i % 3 == 2 else "succeeded" if i % 5 == 4 else "running"
        svc.take_all_capacity(region, machine)
        if i % 10 != 9:
            svc.add_capacity(region, machine, 4, after=1800 if i % 4 == 1 else 0)
        if i % 7 == 6:
            svc.fail_next_job()
        before = other.start()
        name = f"job-{i % names}"
        tracked = create_then_delete(
            report,
            provider,
            owned(props, STACK_A, name),
            VertexTrainingError,
            lambda r: r.id.rsplit("/", 1)[-1],
            interrupter=interrupter,
            interrupt=interruption(i),
            meanwhile=other.meanwhile(owned(props, STACK_B, name)) if two_stack_cycle(i) else None,
        )
        svc.jobs.fail_next.clear()
        other.duplicates(before)
        emu.clock.advance(3600)  # let any cancel or delete in flight finish
        for name in svc.custom_jobs():
            if name.rsplit("/", 1)[-1] not in tracked:
                report.orphans += 1
            svc.remove_custom_job(name)

    plan = ProxyFaultPlan(rate=rate, seed=seed, held_weight=held_weight)
    return run_cycles(report, proxy, plan, "DWS_AIPLATFORM_ENDPOINT", deadline, cycles, cycle)


def _services(clock: Any) -> list[Any]:
    return [AiPlatformService(clock)]


FAULT_RUN = KindFaultRun("VertexCustomJob", _services, custom_job_fault_run)
"""This kind's fault run (``benchmarks/fault_run.py``, ``tests/test_kind_fault_runs.py``)."""
