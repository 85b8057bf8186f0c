"""Test aids of Vertex AI custom jobs (:mod:`pulumi_dws.kinds.vertex_training.kind`): how a
``VertexCustomJob`` behaves under :class:`~pulumi_dws.testing.GcpMocks`, its policy samples,
what each asks for, and violating examples."""

from __future__ import annotations

import zlib
from typing import TYPE_CHECKING, Any

from ...testing.samples import DELETE, Capacity, Example, Sample
from .provider import TYPE_TOKEN as CUSTOM_JOB

if TYPE_CHECKING:
    from ...testing.mocks import GcpMocks

__all__ = ["CAPACITY", "COMPONENT_ARGS", "EXAMPLES", "PACKAGE_CASE", "SAMPLES", "custom_job"]

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
        "waits Google's default of 1 day",
        config={"requireQueueWindow": True},
        unknown=_SCHEDULING,
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
