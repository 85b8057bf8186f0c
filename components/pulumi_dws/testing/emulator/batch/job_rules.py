"""The rules Cloud Batch applies to a job beyond its schema, each with its source (see
:mod:`pulumi_dws.testing.emulator.rules`)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .... import catalog, limits
from ....duration import Duration
from ....errors import DwsValidationError
from ..base import ServiceError
from ..rules import Rules

__all__ = ["CREATE_RULES", "JOB_ID", "NewJob", "invalid", "seconds"]

DISCOVERY = "batch v1 discovery document (schemas/batch.v1.json)"
FLEX_START_VMS = "https://cloud.google.com/compute/docs/instances/about-flex-start-vms"
JOB_ID = re.compile(r"[a-z]([a-z0-9-]{0,61}[a-z0-9])?")
"""``jobId``: "at most 63 characters and must start with lowercase characters. Only lowercase
characters, numbers and '-' are accepted. The '-' character cannot be the first or the last
one" (always fullmatch)."""
_FLEX_START_EXCLUDED = ("a4x-", "g4-")


def invalid(path: str, description: str) -> ServiceError:
    """Cloud Batch's 400 with one ``BadRequest`` field violation."""
    return ServiceError(400, f"{path}: {description}", violations=[(path, description)])


def seconds(value: Any) -> int | None:
    """The seconds of a duration Google takes (None when absent)."""
    if value is None:
        return None
    try:
        return Duration.parse(value, "duration").seconds
    except DwsValidationError:
        raise invalid("duration", f"{value!r} is not a duration") from None


@dataclass(frozen=True)
class NewJob:
    """A ``jobs.create`` request: where, its id, and its body."""

    region: str
    job_id: str | None
    body: Mapping[str, Any]

    @property
    def groups(self) -> list[Mapping[str, Any]]:
        groups = self.body.get("taskGroups")
        return [g for g in groups if isinstance(g, Mapping)] if isinstance(groups, list) else []

    @property
    def instances(self) -> list[Mapping[str, Any]]:
        policy = self.body.get("allocationPolicy")
        found = policy.get("instances") if isinstance(policy, Mapping) else None
        return [i for i in found if isinstance(i, Mapping)] if isinstance(found, list) else []

    @property
    def policy(self) -> Mapping[str, Any]:
        first = self.instances[0] if self.instances else {}
        policy = first.get("policy")
        return policy if isinstance(policy, Mapping) else {}

    @property
    def flex_start(self) -> bool:
        return self.policy.get("provisioningModel") == "FLEX_START"

    @property
    def locations(self) -> list[str]:
        policy = self.body.get("allocationPolicy")
        location = policy.get("location") if isinstance(policy, Mapping) else None
        found = location.get("allowedLocations") if isinstance(location, Mapping) else None
        return [str(x) for x in found] if isinstance(found, list) else []


CREATE_RULES: Rules[NewJob] = Rules("batch.projects.locations.jobs.create")


@CREATE_RULES.rule(
    f"{DISCOVERY} (jobId: at most 63 characters, starting with a lowercase letter; lowercase "
    "letters, numbers and '-', not first or last)"
)
def a_job_id_of_the_documented_shape(new: NewJob) -> None:
    if new.job_id is not None and not JOB_ID.fullmatch(new.job_id):
        raise invalid("job_id", f"{new.job_id!r} is not a valid job id.")


@CREATE_RULES.rule(
    f"{DISCOVERY} (Job.taskGroups: Required. Only one TaskGroup is supported now; "
    "TaskGroup.taskSpec: Required; TaskSpec.runnables: Required)"
)
def one_task_group_with_runnables(new: NewJob) -> None:
    if len(new.groups) != 1:
        raise invalid("job.task_groups", "exactly one task group is supported.")
    spec = new.groups[0].get("taskSpec")
    runnables = spec.get("runnables") if isinstance(spec, Mapping) else None
    if not isinstance(runnables, list) or not runnables:
        raise invalid("job.task_groups[0].task_spec.runnables", "at least one is required.")


@CREATE_RULES.rule(f"{DISCOVERY} (AllocationPolicy.instances: Only instances[0] is supported now)")
def one_instance_policy(new: NewJob) -> None:
    if len(new.instances) > 1:
        raise invalid("job.allocation_policy.instances", "only instances[0] is supported.")


@CREATE_RULES.rule(
    f"{DISCOVERY} (LocationPolicy.allowedLocations: one region or zones of one region, the "
    "region the job is created in)"
)
def locations_in_the_job_region(new: NewJob) -> None:
    for location in new.locations:
        kind, _, name = location.partition("/")
        region = name if kind == "regions" else name.rsplit("-", 1)[0]
        if kind not in ("regions", "zones") or region != new.region:
            raise invalid(
                "job.allocation_policy.location.allowed_locations",
                f"{location!r} is not the job's region {new.region} or one of its zones.",
            )


@CREATE_RULES.rule(
    f'{FLEX_START_VMS} ("Flex-start VMs support all accelerator-optimized machine types '
    '(except A4X and G4) and H4D machine types")'
)
def flex_start_machines(new: NewJob) -> None:
    if not new.flex_start:
        return
    machine = str(new.policy.get("machineType") or "")
    known = machine in catalog.known() or machine.startswith("h4d-")
    if not known or machine.startswith(_FLEX_START_EXCLUDED):
        raise invalid(
            "job.allocation_policy.instances[0].policy.machine_type",
            f"{machine!r}: FLEX_START takes an accelerator-optimized machine type (not A4X or "
            "G4) or H4D.",
        )


@CREATE_RULES.rule(f'{FLEX_START_VMS} ("Flex-start VMs can run for up to seven days")')
def flex_start_runs_at_most_seven_days(new: NewJob) -> None:
    if not new.flex_start:
        return
    spec = new.groups[0].get("taskSpec") or {}
    run = seconds(spec.get("maxRunDuration") if isinstance(spec, Mapping) else None)
    most = limits.get("batch.max_run_duration").maximum or 7 * 86400
    if run is not None and run > most:
        raise invalid(
            "job.task_groups[0].task_spec.max_run_duration",
            f"{run}s is longer than a Flex-start VM runs ({most}s).",
        )


@CREATE_RULES.rule(
    f'{DISCOVERY} (Job.labels: names that start with "goog-" or "google-" are reserved)'
)
def no_reserved_labels(new: NewJob) -> None:
    labels = new.body.get("labels")
    for key in labels if isinstance(labels, Mapping) else {}:
        if str(key).startswith(("goog-", "google-")):
            raise invalid("job.labels", f"{key!r}: goog- and google- labels are reserved.")
