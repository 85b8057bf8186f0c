"""The limit rows of Cloud Batch jobs on Flex-start VMs (``BatchFlexJob``): the tasks' run
limit, their number and how many run at once: each row with its source, registered with
:mod:`pulumi_dws.limits` when this module is imported."""

from __future__ import annotations

from ...limits import WEEK, Limit, register

__all__ = ["ROWS"]

FLEX_START_VMS = "https://cloud.google.com/compute/docs/instances/about-flex-start-vms"
DISCOVERY = "batch v1 discovery document (google-api-python-client 2.202.0, 20261103)"

ROWS: tuple[Limit, ...] = (
    Limit(
        "batch.max_run_duration",
        "Batch Flex-start task run (taskSpec.maxRunDuration)",
        "seconds",
        (
            f'{FLEX_START_VMS} ("Flex-start VMs can run for up to seven days"; Batch runs the '
            "tasks on them); Compute Engine Flex-start's 10 minutes as the lower bound "
            f"(https://docs.cloud.google.com/ai-hypercomputer/docs/create/create-vm); {DISCOVERY} "
            "TaskSpec.maxRunDuration"
        ),
        minimum=600,
        maximum=WEEK,
    ),
    Limit(
        "batch.task_count",
        "number of Batch tasks",
        "count",
        (
            f"{DISCOVERY} TaskGroup.taskCount (default 1); the 10000 cap is a pulumi-dws "
            "sanity bound, not a documented Google limit (override the row)"
        ),
        minimum=1,
        maximum=10000,
    ),
    Limit(
        "batch.parallelism",
        "number of Batch tasks that run at once (VMs)",
        "count",
        (
            f"{DISCOVERY} TaskGroup.parallelism (default min(taskCount, the job's limit)); "
            "the 1000 cap is a pulumi-dws sanity bound, not a documented Google limit "
            "(override the row)"
        ),
        minimum=1,
        maximum=1000,
    ),
)
"""This kind's rows."""

register(*ROWS)
