"""A Cloud Batch job on Flex-start VMs (``provisioningModel: FLEX_START``): its tasks wait until
Dynamic Workload Scheduler finds the VMs, then run with a per-task run limit.

Config (``Pulumi.<stack>.yaml``, namespace ``batch-dws``): ``region``, ``image``,
``machineType``, ``taskCount``, ``parallelism`` (tasks, and so VMs, at a time),
``maxRunDuration`` (each task's limit), ``team`` (a cost label).
"""

import pulumi

from pulumi_dws import BatchFlexJob

config = pulumi.Config()

job = BatchFlexJob(
    "render",
    {
        "region": config.get("region") or "us-central1",
        "machine_type": config.get("machineType") or "a3-highgpu-8g",
        "image": config.require("image"),
        "commands": ["python", "render.py"],
        "task_count": config.get_int("taskCount") or 8,
        "parallelism": config.get_int("parallelism") or 2,
        "max_run_duration": config.get("maxRunDuration") or "6h",
        "labels": {"team": config.get("team") or "research"},
    },
)

pulumi.export("job", job.job_name)
pulumi.export("state", job.state)
pulumi.export("gpus", job.gpus)
