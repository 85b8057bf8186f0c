"""Test aids of Cloud Batch jobs on Flex-start (:mod:`pulumi_dws.kinds.batch.kind`): how a
``BatchJob`` behaves under :class:`~pulumi_dws.testing.GcpMocks`, its policy samples, what each
asks for, and violating examples."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...testing.samples import DELETE, Capacity, Example, Sample
from .provider import TYPE_TOKEN as BATCH_JOB

if TYPE_CHECKING:
    from ...testing.mocks import GcpMocks

__all__ = ["CAPACITY", "COMPONENT_ARGS", "EXAMPLES", "PACKAGE_CASE", "SAMPLES", "batch_job"]

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
