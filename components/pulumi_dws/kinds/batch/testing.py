"""Test aids of Cloud Batch jobs on Flex-start (:mod:`pulumi_dws.kinds.batch.kind`): how a
``BatchJob`` behaves under :class:`~pulumi_dws.testing.GcpMocks`, its policy samples, what each
asks for, and violating examples."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...testing.emulator.batch import BatchService
from ...testing.fault_proxy import ProxyFaultPlan
from ...testing.fault_run import (
    POLL,
    FaultRunReport,
    Interrupter,
    KindFaultRun,
    keyed_cycle,
    run_cycles,
)
from ...testing.samples import DELETE, Capacity, Example, Sample
from .provider import TYPE_TOKEN as BATCH_JOB
from .provider import BatchJobError, BatchJobProvider

if TYPE_CHECKING:
    from ...testing.mocks import GcpMocks

__all__ = [
    "CAPACITY",
    "COMPONENT_ARGS",
    "EXAMPLES",
    "FAULT_RUN",
    "PACKAGE_CASE",
    "SAMPLES",
    "batch_job",
]

_STATES = {"queued": "QUEUED", "running": "RUNNING", "succeeded": "SUCCEEDED"}


def batch_job(mocks: GcpMocks, typ: str, name: str, s: dict[str, Any]) -> str:
    """Like the provider after a create: the state ``waitFor`` asked for; the id is
    ``projects/<p>/locations/<region>/jobs/<jobId>``."""
    project = s.get("project") or mocks.project
    region = s.get("region") or mocks.region
    job = f"projects/{project}/locations/{region}/jobs/{s.get('jobId') or name}"
    s["name"] = job
    s["state"] = mocks.lifecycle(_STATES.get(str(s.get("waitFor") or "running"), "RUNNING"))
    s["observed"] = {"createTime": None, "uid": None, "event": None}
    return job


# ---------------------------------------------------------------------- policy samples
def batch_job_props() -> dict[str, Any]:
    """8 tasks on a3-highgpu-8g, 2 VMs at a time, each task up to 6 hours (4 waves: 24 hours),
    as ``BatchFlexJob`` passes it to its provider."""
    return {
        "project": "my-project",
        "region": "us-central1",
        "jobId": "render",
        "waitFor": "running",
        "body": {
            "allocationPolicy": {
                "instances": [
                    {
                        "installGpuDrivers": True,
                        "policy": {
                            "machineType": "a3-highgpu-8g",
                            "provisioningModel": "FLEX_START",
                        },
                    }
                ],
                "labels": {"team": "ml"},
                "network": {
                    "networkInterfaces": [
                        {"network": "global/networks/default", "noExternalIpAddress": True}
                    ]
                },
            },
            "labels": {"team": "ml"},
            "logsPolicy": {"destination": "CLOUD_LOGGING"},
            "taskGroups": [
                {
                    "parallelism": "2",
                    "taskCount": "8",
                    "taskCountPerNode": "1",
                    "taskSpec": {
                        "maxRunDuration": "21600s",
                        "runnables": [
                            {
                                "container": {
                                    "commands": ["python", "render.py"],
                                    "imageUri": "us-docker.pkg.dev/my-project/jobs/render:1",
                                }
                            }
                        ],
                    },
                }
            ],
        },
    }


SAMPLES: dict[str, Sample] = {"batch_job": (BATCH_JOB, batch_job_props)}

CAPACITY: dict[str, Capacity] = {
    # 2 VMs x 8 H100s at a time, for 4 waves of 6 hours
    "batch_job": Capacity("nvidia-h100-80gb", gpus=16, gpu_hours=16 * 24),
}
"""What each sample asks for (see :func:`pulumi_dws.testing.samples.totals`)."""

COMPONENT_ARGS: dict[str, Any] = {
    "region": "us-central1",
    "machine_type": "a3-highgpu-8g",
    "image": "us-docker.pkg.dev/my-project/jobs/render:1",
    "commands": ["python", "render.py"],
    "task_count": 8,
    "parallelism": 2,
    "max_run_duration": "6h",
    "labels": {"team": "research"},
}
"""The component's arguments as a program writes them (the component package's samples)."""

PACKAGE_CASE: dict[str, Any] = {"bad": {"region": "africa-south1"}, "path": "region"}
"""The refused input of the component package's tests (a region Batch does not serve)."""

_TASK = "body.taskGroups.0.taskSpec"
_NIC = "body.allocationPolicy.network.networkInterfaces.0"

EXAMPLES: tuple[Example, ...] = (
    Example(
        "flex-start-max-run-duration",
        "batch_job",
        ((f"{_TASK}.maxRunDuration", "691200s"),),
        "body.taskGroups[0].taskSpec.maxRunDuration: 8d (691200s) is above",
        unknown=f"{_TASK}.maxRunDuration",
    ),
    Example(
        "flex-start-max-run-duration",
        "batch_job",
        ((f"{_TASK}.maxRunDuration", DELETE),),
        "body.taskGroups[0].taskSpec.maxRunDuration is missing",
        unknown="body.allocationPolicy",
    ),
    Example(
        "no-public-ip-on-accelerators",
        "batch_job",
        ((f"{_NIC}.noExternalIpAddress", False),),
        "noExternalIpAddress is not true",
        unknown=f"{_NIC}.noExternalIpAddress",
    ),
    Example(
        "required-labels",
        "batch_job",
        (("body.labels", DELETE),),
        "body.labels lacks required label(s) team",
        unknown="body.labels",
    ),
)
"""One per rule a Batch job can break (the GPU budget, ``gpu-budget``, is a stack rule)."""


# ---------------------------------------------------------------------- fault run
def batch_job_fault_run(
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
    """``cycles`` create/delete cycles of ``BatchJob`` (8 tasks, 2 a3-highgpu-8g VMs at a time)
    through ``proxy`` (see :mod:`pulumi_dws.testing.fault_run`): each create carries a request
    id and the program's job id. Job ids repeat every ``names`` cycles (a create follows the
    delete of a job of the same id). Every fourth job queues for its VMs, every seventh fails
    once they are found, every tenth finds none (the wait runs out: deleted); every third
    returns once queued, every fifth waits until it succeeded. An orphan is a job no successful
    create returned; a duplicate, a second job made by one create."""
    svc = emu["batch"]
    # Batch remembers a request id "for at least 60 minutes"; here it remembers it for the whole
    # run. The virtual clock runs hours ahead in the milliseconds a busy machine may take to
    # hand a damaged request on (one the client gave up on), so a 60-minute memory would let
    # a create arrive "hours" late, which no real request does.
    svc.request_id_ttl = 10 * 365 * 86400.0
    report = FaultRunReport("BatchJob")
    interrupter = Interrupter(emu, seed)
    provider = BatchJobProvider(sleep=interrupter, poll=POLL, timeout=7200)
    zone, machine = "us-central1-a", "a3-highgpu-8g"

    def cycle(i: int) -> None:
        job_id = f"render-{i % names}"
        props = batch_job_props()
        props["jobId"] = job_id
        props["waitFor"] = "queued" if i % 3 == 2 else "succeeded" if i % 5 == 4 else "running"
        for each in ("us-central1-a", "us-central1-b", "us-central1-c", "us-central1-f"):
            svc.take_all_capacity(each, machine)
        if i % 10 != 9:
            svc.add_capacity(zone, machine, 2, after=1800 if i % 4 == 1 else 0)
        if i % 7 == 6:
            svc.fail_next()
        keyed_cycle(
            emu,
            report,
            i,
            provider,
            BatchJobError,
            props,
            job_id,
            interrupter=interrupter,
            created=lambda: svc.created,
            listed=svc.jobs,
            remove=svc.remove,
            settle=lambda: svc.store.fail_next.clear(),
        )

    plan = ProxyFaultPlan(rate=rate, seed=seed, held_weight=held_weight)
    return run_cycles(report, proxy, plan, "DWS_BATCH_ENDPOINT", deadline, cycles, cycle)


def _services(clock: Any) -> list[Any]:
    return [BatchService(clock)]


FAULT_RUN = KindFaultRun("BatchJob", _services, batch_job_fault_run)
"""This kind's fault run (``benchmarks/fault_run.py``, ``tests/test_kind_fault_runs.py``)."""
