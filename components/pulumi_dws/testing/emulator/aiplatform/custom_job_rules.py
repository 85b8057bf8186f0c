"""The rules Vertex AI applies to a custom job beyond its schema, each with its source (see
:mod:`pulumi_dws.testing.emulator.rules`), and the list filter its ``customJobs.list`` takes."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .... import limits
from ....duration import Duration
from ....errors import DwsValidationError
from ....kinds.vertex_training.vertex import DWS_TRAINING_GPUS
from ..base import ServiceError
from ..rules import Rules

__all__ = [
    "CREATE_RULES",
    "DEFAULT_TIMEOUT",
    "DEFAULT_WAIT",
    "JobFilter",
    "NewCustomJob",
    "invalid",
    "seconds",
]

DWS_TRAINING = "https://cloud.google.com/vertex-ai/docs/training/schedule-jobs-dws"
DISCOVERY = "aiplatform v1beta1 discovery document (schemas/aiplatform.v1beta1.json)"
LIST_FILTER = (
    f"{DISCOVERY}, customJobs.list filter: display_name, state, create_time and labels "
    "(labels.key=value, labels.key:*)"
)
DEFAULT_WAIT = 86400
"""``maxWaitDuration`` when none is given ("The default is 24 hours")."""
DEFAULT_TIMEOUT = 7 * 86400
"""``timeout`` when none is given ("The default is 7 days")."""


def invalid(path: str, description: str) -> ServiceError:
    """Vertex AI's 400 with one ``BadRequest`` field violation."""
    return ServiceError(400, f"{path}: {description}", violations=[(path, description)])


def seconds(value: Any, default: int) -> int:
    """The seconds of a duration in any form Google takes (``default`` when absent)."""
    if value is None:
        return default
    try:
        return Duration.parse(value, "duration").seconds
    except DwsValidationError:
        raise invalid("duration", f"{value!r} is not a duration") from None


@dataclass(frozen=True)
class NewCustomJob:
    """A ``customJobs.create`` request: its location and body."""

    location: str
    body: Mapping[str, Any]

    @property
    def spec(self) -> Mapping[str, Any]:
        spec = self.body.get("jobSpec")
        return spec if isinstance(spec, Mapping) else {}

    @property
    def pools(self) -> list[Mapping[str, Any]]:
        pools = self.spec.get("workerPoolSpecs")
        return [p for p in pools if isinstance(p, Mapping)] if isinstance(pools, list) else []

    @property
    def scheduling(self) -> Mapping[str, Any]:
        scheduling = self.spec.get("scheduling")
        return scheduling if isinstance(scheduling, Mapping) else {}

    @property
    def flex_start(self) -> bool:
        return self.scheduling.get("strategy") == "FLEX_START"


CREATE_RULES: Rules[NewCustomJob] = Rules("aiplatform.projects.locations.customJobs.create")


@CREATE_RULES.rule(f"{DISCOVERY} (CustomJob.displayName, jobSpec: Required)")
def a_display_name_and_a_job_spec(new: NewCustomJob) -> None:
    name = new.body.get("displayName")
    if not isinstance(name, str) or not name:
        raise invalid("custom_job.display_name", "is required.")
    if len(name) > 128:
        raise invalid("custom_job.display_name", "can be up to 128 characters long.")
    if not new.spec:
        raise invalid("custom_job.job_spec", "is required.")


@CREATE_RULES.rule(
    f"{DISCOVERY} (CustomJobSpec.workerPoolSpecs: Required; ContainerSpec.imageUri: Required; "
    "WorkerPoolSpec.machineSpec.machineType: required as part of a WorkerPoolSpec)"
)
def worker_pools_with_a_machine_and_an_image(new: NewCustomJob) -> None:
    if not new.pools:
        raise invalid("custom_job.job_spec.worker_pool_specs", "at least one is required.")
    for i, pool in enumerate(new.pools):
        where = f"custom_job.job_spec.worker_pool_specs[{i}]"
        machine = pool.get("machineSpec")
        if not isinstance(machine, Mapping) or not machine.get("machineType"):
            raise invalid(f"{where}.machine_spec.machine_type", "is required.")
        container = pool.get("containerSpec")
        package = pool.get("pythonPackageSpec")
        if not isinstance(container, Mapping) and not isinstance(package, Mapping):
            raise invalid(where, "needs a container_spec or a python_package_spec.")
        if isinstance(container, Mapping) and not container.get("imageUri"):
            raise invalid(f"{where}.container_spec.image_uri", "is required.")


_NETWORK = re.compile(r"projects/[0-9]+/global/networks/[^/]+")


@CREATE_RULES.rule(
    f"{DISCOVERY} (CustomJobSpec.network: projects/{{project}}/global/networks/{{network}}, "
    '"Where {project} is a project number")'
)
def a_peered_network_by_project_number(new: NewCustomJob) -> None:
    network = new.spec.get("network")
    if network is not None and not (isinstance(network, str) and _NETWORK.fullmatch(network)):
        raise invalid(
            "custom_job.job_spec.network",
            f"{network!r} is not projects/PROJECT_NUMBER/global/networks/NETWORK.",
        )


@CREATE_RULES.rule(
    f'{DWS_TRAINING} ("Your serverless training job requests L4, A100, H100, H200, or B200 GPUs")'
)
def flex_start_takes_its_gpus(new: NewCustomJob) -> None:
    if not new.flex_start:
        return
    for i, pool in enumerate(new.pools):
        kind = (pool.get("machineSpec") or {}).get("acceleratorType")
        if kind not in DWS_TRAINING_GPUS:
            raise invalid(
                f"custom_job.job_spec.worker_pool_specs[{i}].machine_spec.accelerator_type",
                f"{kind!r}: the FLEX_START strategy needs L4, A100, H100, H200 or B200 GPUs.",
            )


@CREATE_RULES.rule(
    f'{DWS_TRAINING} ("Your serverless training job uses the same machine configuration for '
    'all worker pools")'
)
def flex_start_one_machine_configuration(new: NewCustomJob) -> None:
    if not new.flex_start:
        return
    specs = [dict(pool.get("machineSpec") or {}) for pool in new.pools]
    for i, spec in enumerate(specs[1:], start=1):
        if spec != specs[0]:
            raise invalid(
                f"custom_job.job_spec.worker_pool_specs[{i}].machine_spec",
                "differs from worker_pool_specs[0]: the FLEX_START strategy needs the same "
                "machine configuration in every worker pool.",
            )


@CREATE_RULES.rule(f'{DWS_TRAINING} ("a maximum timeout of 7 days or less")')
def flex_start_runs_at_most_seven_days(new: NewCustomJob) -> None:
    if not new.flex_start:
        return
    timeout = seconds(new.scheduling.get("timeout"), DEFAULT_TIMEOUT)
    most = limits.get("vertex_training.max_run_duration").maximum or DEFAULT_TIMEOUT
    if timeout > most:
        raise invalid(
            "custom_job.job_spec.scheduling.timeout",
            f"{timeout}s: the FLEX_START strategy takes a timeout of at most {most}s.",
        )


_RESTRICTION = re.compile(
    r"(?:labels\.(?P<key>[a-z][a-z0-9_]*)(?:=(?P<value>\"[^\"]*\"|[a-z0-9_-]*)|(?P<has>:\*))"
    r"|state=(?P<state>\"[A-Z_]+\"|[A-Z_]+))"
)


@dataclass(frozen=True)
class JobFilter:
    """A ``customJobs.list`` filter of the forms the API documents (:data:`LIST_FILTER`):
    ``labels.key=value`` (the value may be quoted), ``labels.key:*`` and ``state=...``, joined
    by ``AND``. A key is letters, digits and underscores, as the documented examples are: any
    other form is refused (``400``), so a provider can only rely on what Google documents."""

    labels: tuple[tuple[str, str | None], ...] = ()
    state: str | None = None

    @classmethod
    def parse(cls, text: str | None) -> JobFilter:
        if not text:
            return cls()
        labels: list[tuple[str, str | None]] = []
        state: str | None = None
        for part in text.split(" AND "):
            match = _RESTRICTION.fullmatch(part.strip())
            if match is None:
                raise ServiceError(
                    400,
                    f"Unsupported filter {text!r}: use labels.KEY=VALUE, labels.KEY:* or "
                    "state=STATE, joined by AND.",
                )
            if match["state"]:
                state = match["state"].strip('"')
            else:
                value = match["value"].strip('"') if match["value"] is not None else None
                labels.append((match["key"], value))
        return cls(tuple(labels), state)

    def matches(self, job: Mapping[str, Any]) -> bool:
        found = job.get("labels") or {}
        for key, value in self.labels:
            if key not in found or (value is not None and found[key] != value):
                return False
        return self.state is None or job.get("state") == self.state
