"""Vertex AI ``customJobs`` (``v1beta1``), on the virtual clock: the jobs, the capacity their
replicas take, and the handlers of their methods. The rules Vertex AI applies to a new job are
in ``custom_job_rules.py``.

A job with ``scheduling.strategy: FLEX_START`` is ``JOB_STATE_QUEUED`` until the region has a
VM of its machine type for every replica (all at once: Dynamic Workload Scheduler provisions
the whole job, https://cloud.google.com/vertex-ai/docs/training/schedule-jobs-dws); then
``JOB_STATE_PENDING`` for ``job_provision_seconds``, ``JOB_STATE_RUNNING`` until it ends:
``JOB_STATE_SUCCEEDED`` after ``job_run_seconds`` (when set and shorter than its run limit),
else ``JOB_STATE_FAILED`` at its run limit (``scheduling.timeout``, default 7 days;
``DEADLINE_EXCEEDED``). A queue window (``maxWaitDuration``, default 1 day; ``0``: none) that
passes first fails it with ``RESOURCE_EXHAUSTED`` (what Vertex AI records then is not
documented; the job does not run). Any other strategy runs at once when capacity is free.

``cancel`` makes a queued or running job ``JOB_STATE_CANCELLING`` for ``job_cancel_seconds``,
then ``JOB_STATE_CANCELLED`` with ``error.code`` 1 (the API reference of ``customJobs.cancel``);
a job at rest can't be cancelled (``400 FAILED_PRECONDITION``). ``delete`` answers an operation
and removes a job at rest after ``job_delete_seconds``; a job still queued or running is refused
(``400 FAILED_PRECONDITION``): Google's own samples cancel a job and wait for
``JOB_STATE_CANCELLED`` before they delete it (googleapis/python-aiplatform
``samples/snippets/job_service/create_custom_job_sample_test.py``), and the API reference of
``customJobs.delete`` says nothing of a job that still runs.

``list`` takes the filter forms Vertex AI documents (:class:`~.custom_job_rules.JobFilter`).
Every job really created is recorded (:attr:`CustomJobStore.created`), for duplicate counts.
"""

from __future__ import annotations

import copy
import datetime as dt
import itertools
import threading
from dataclasses import dataclass
from typing import Any, ClassVar

from ..base import Request, Response, ServiceError, VirtualClock, page
from ..capacity import CapacityModel
from ..discovery import DiscoverySchema
from ..operations import Lro, LroOperations
from ..routing import Api
from ..store import Store, earliest
from .custom_job_rules import (
    CREATE_RULES,
    DEFAULT_TIMEOUT,
    DEFAULT_WAIT,
    JobFilter,
    NewCustomJob,
    seconds,
)
from .projects import ProjectNumbers

__all__ = ["CustomJob", "CustomJobSettings", "CustomJobStore", "CustomJobsApi"]

SCHEMA = "GoogleCloudAiplatformV1beta1CustomJob"
TERMINAL = frozenset(
    {"JOB_STATE_SUCCEEDED", "JOB_STATE_FAILED", "JOB_STATE_CANCELLED", "JOB_STATE_EXPIRED"}
)
_OUTPUT_ONLY = (
    "name",
    "state",
    "createTime",
    "startTime",
    "endTime",
    "updateTime",
    "error",
    "webAccessUris",
    "satisfiesPzs",
    "satisfiesPzi",
)


def _ts(moment: dt.datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


class CustomJobSettings:
    """The knobs of the emulated custom jobs (on the service: ``svc.job_run_seconds = 600``).

    Attributes:
        job_provision_seconds: ``JOB_STATE_PENDING`` time once capacity is found.
        job_run_seconds: how long a job's code runs before it succeeds (None: until its run
            limit, where it fails).
        job_cancel_seconds: ``JOB_STATE_CANCELLING`` time.
        job_delete_seconds: how long a delete's operation runs.
    """

    job_provision_seconds: float = 120.0
    job_run_seconds: float | None = 3600.0
    job_cancel_seconds: float = 30.0
    job_delete_seconds: float = 10.0


@dataclass
class CustomJob:
    """One job: its API form and what the service keeps to itself."""

    key: tuple[str, str, str]  # (project id, location, job id)
    resource: dict[str, Any]
    machine_type: str
    replicas: int
    order: int
    wait_until: dt.datetime | None
    timeout: int
    provisioned_at: dt.datetime | None = None
    ends_at: dt.datetime | None = None
    succeeds: bool = False
    cancel_at: dt.datetime | None = None
    delete_op: Lro | None = None
    delete_at: dt.datetime | None = None
    holds: bool = False
    fail_with: str | None = None

    @property
    def state(self) -> str:
        return str(self.resource["state"])

    def due(self) -> dt.datetime | None:
        """When something is next due for this job (waiting for capacity is the capacity
        model's event)."""
        if self.delete_at is not None:
            return self.delete_at
        if self.state == "JOB_STATE_QUEUED":
            return self.wait_until
        if self.state == "JOB_STATE_PENDING":
            return self.provisioned_at
        if self.state == "JOB_STATE_RUNNING":
            return self.ends_at
        if self.state == "JOB_STATE_CANCELLING":
            return self.cancel_at
        return None


class CustomJobStore(Store):
    """Every custom job, the capacity it holds, and its clock (see the module doc)."""

    def __init__(
        self,
        clock: VirtualClock,
        lock: threading.RLock,
        settings: CustomJobSettings,
        capacity: CapacityModel,
        operations: LroOperations,
        projects: ProjectNumbers,
        schema: DiscoverySchema,
    ) -> None:
        self.clock = clock
        self.lock = lock
        self.settings = settings
        self.capacity = capacity
        self.operations = operations
        self.projects = projects
        self.schema = schema
        self.jobs: dict[tuple[str, str, str], CustomJob] = {}
        self.created: list[str] = []
        """The name of every job really created, in order (a second one for one create is a
        duplicate)."""
        self.fail_next: list[str] = []
        self._ids = itertools.count(7_000_000_000_000_000_000)
        self._order = itertools.count()
        self._at = clock.now()

    # ------------------------------------------------------------------ reading
    def key(self, project: str, location: str, job_id: str) -> tuple[str, str, str]:
        return self.projects.project(project), location, job_id

    def _found(self, key: tuple[str, str, str]) -> CustomJob:
        found = self.jobs.get(key)
        if found is None:
            raise ServiceError(
                404,
                f"CustomJob projects/{key[0]}/locations/{key[1]}/customJobs/{key[2]} not found.",
            )
        return found

    def get(self, key: tuple[str, str, str]) -> dict[str, Any]:
        with self.lock:
            return copy.deepcopy(self._found(key).resource)

    def names(self) -> list[str]:
        """The names of every stored job."""
        with self.lock:
            return [str(j.resource["name"]) for j in self.jobs.values()]

    def remove(self, name: str) -> None:
        """Delete a job outside Pulumi, at once (its capacity is freed)."""
        with self.lock:
            for key, job in list(self.jobs.items()):
                if job.resource["name"] == name:
                    self._release(job)
                    del self.jobs[key]

    # ------------------------------------------------------------------ API methods
    def list(self, project: str, location: str, wanted: JobFilter) -> list[dict[str, Any]]:
        project = self.projects.project(project)
        with self.lock:
            jobs = sorted(
                (j for j in self.jobs.values() if j.key[:2] == (project, location)),
                key=lambda j: j.order,
            )
            return [copy.deepcopy(j.resource) for j in jobs if wanted.matches(j.resource)]

    def create(self, project: str, location: str, body: Any) -> dict[str, Any]:
        if not isinstance(body, dict):
            raise ServiceError(400, "Invalid JSON payload received. Expected a CustomJob.")
        self.schema.require(SCHEMA, body, method="aiplatform.projects.locations.customJobs.create")
        new = NewCustomJob(location, body)
        CREATE_RULES.check(new)
        project = self.projects.project(project)
        with self.lock:
            now = max(self._at, self.clock.now())
            job_id = str(next(self._ids))
            number = self.projects.number(project)
            resource = {k: copy.deepcopy(v) for k, v in body.items() if k not in _OUTPUT_ONLY}
            name = f"projects/{number}/locations/{location}/customJobs/{job_id}"
            resource.update(
                name=name,
                state="JOB_STATE_QUEUED",
                createTime=_ts(now),
                updateTime=_ts(now),
            )
            window = seconds(new.scheduling.get("maxWaitDuration"), DEFAULT_WAIT)
            wait_until = now + dt.timedelta(seconds=window) if new.flex_start and window else None
            pool = new.pools[0]
            job = CustomJob(
                (project, location, job_id),
                resource,
                str((pool.get("machineSpec") or {}).get("machineType")),
                sum(int(p.get("replicaCount") or 1) for p in new.pools),
                next(self._order),
                wait_until=wait_until,
                timeout=seconds(new.scheduling.get("timeout"), DEFAULT_TIMEOUT),
                fail_with=self.fail_next.pop(0) if self.fail_next else None,
            )
            self.jobs[job.key] = job
            self.created.append(name)
            self._advance(job, now)
            return copy.deepcopy(resource)

    def cancel(self, key: tuple[str, str, str]) -> dict[str, Any]:
        with self.lock:
            job = self._found(key)
            if job.state in TERMINAL or job.state == "JOB_STATE_CANCELLING":
                raise ServiceError(
                    400,
                    f"CustomJob {job.resource['name']} is {job.state} and can't be cancelled.",
                    "FAILED_PRECONDITION",
                )
            now = max(self._at, self.clock.now())
            self._release(job)
            job.resource["state"] = "JOB_STATE_CANCELLING"
            job.resource["updateTime"] = _ts(now)
            job.cancel_at = now + dt.timedelta(seconds=self.settings.job_cancel_seconds)
            return {}

    def delete(self, key: tuple[str, str, str], operation_name: str) -> dict[str, Any]:
        with self.lock:
            job = self._found(key)
            if job.state not in TERMINAL:
                raise ServiceError(
                    400,
                    f"CustomJob {job.resource['name']} is {job.state}: cancel it and wait until "
                    "it is JOB_STATE_CANCELLED before deleting it.",
                    "FAILED_PRECONDITION",
                )
            if job.delete_op is not None:
                return self.operations.render(job.delete_op)
            now = max(self._at, self.clock.now())
            op = self.operations.start(
                operation_name,
                "DeleteOperationMetadata",
                genericMetadata={"createTime": _ts(now), "updateTime": _ts(now)},
            )
            job.delete_op = op
            job.delete_at = now + dt.timedelta(seconds=self.settings.job_delete_seconds)
            self._advance(job, now)
            return self.operations.render(op)

    # ------------------------------------------------------------------ the clock
    def next_event(self) -> dt.datetime | None:
        with self.lock:
            return earliest(job.due() for job in self.jobs.values())

    def tick(self, now: dt.datetime) -> None:
        """Apply what is due by ``now``: capacity found, provisioning done, runs ended,
        queue windows passed, cancellations and deletes finished."""
        with self.lock:
            self._at = max(self._at, now)
            for job in sorted(self.jobs.values(), key=lambda j: j.order):
                self._advance(job, now)

    def _advance(self, job: CustomJob, now: dt.datetime) -> None:
        if job.delete_at is not None:
            if now >= job.delete_at:
                self.jobs.pop(job.key, None)
                self.operations.finish(job.delete_op, endTime=_ts(now))
            return
        if job.state == "JOB_STATE_QUEUED":
            if job.wait_until is not None and now >= job.wait_until:
                self._end(
                    job,
                    "JOB_STATE_FAILED",
                    job.wait_until,
                    {"code": 8, "message": "No capacity was found before maxWaitDuration."},
                )
                return
            if self.capacity.take(job.key[1], job.machine_type, job.replicas):
                job.holds = True
                job.provisioned_at = now + dt.timedelta(seconds=self.settings.job_provision_seconds)
                self._set(job, "JOB_STATE_PENDING", now)
        if job.state == "JOB_STATE_PENDING" and job.provisioned_at is not None:
            if now < job.provisioned_at:
                return
            started = job.provisioned_at
            if job.fail_with is not None:
                self._end(job, "JOB_STATE_FAILED", started, {"code": 13, "message": job.fail_with})
                return
            self._set(job, "JOB_STATE_RUNNING", started)
            job.resource["startTime"] = _ts(started)
            run = self.settings.job_run_seconds
            job.succeeds = run is not None and run < job.timeout
            length = run if job.succeeds and run is not None else job.timeout
            job.ends_at = started + dt.timedelta(seconds=length)
        if job.state == "JOB_STATE_RUNNING" and job.ends_at is not None and now >= job.ends_at:
            if job.succeeds:
                self._end(job, "JOB_STATE_SUCCEEDED", job.ends_at, None)
            else:
                error = {"code": 4, "message": "The job ran past its timeout."}
                self._end(job, "JOB_STATE_FAILED", job.ends_at, error)
        cancelled = job.cancel_at
        if job.state == "JOB_STATE_CANCELLING" and cancelled is not None and now >= cancelled:
            self._end(job, "JOB_STATE_CANCELLED", cancelled, {"code": 1, "message": "CANCELED"})

    def _set(self, job: CustomJob, state: str, at: dt.datetime) -> None:
        job.resource["state"] = state
        job.resource["updateTime"] = _ts(at)

    def _end(self, job: CustomJob, state: str, at: dt.datetime, error: Any) -> None:
        self._release(job)
        self._set(job, state, at)
        job.resource["endTime"] = _ts(at)
        if error is not None:
            job.resource["error"] = dict(error)

    def _release(self, job: CustomJob) -> None:
        if job.holds:
            self.capacity.give_back(job.key[1], job.machine_type, job.replicas)
            job.holds = False


class CustomJobsApi(Api):
    """``projects.locations.customJobs``: each handler reads a request and calls the store."""

    resources: ClassVar[tuple[str, ...]] = ("projects.locations.customJobs",)

    def __init__(self, store: CustomJobStore, operation_name: Any) -> None:
        self.store = store
        self.operation_name = operation_name

    def _key(self, req: Request) -> tuple[str, str, str]:
        p = req.params
        return self.store.key(p["project"], p["location"], p["customJob"])

    def create(self, req: Request) -> Response:
        p = req.params
        return Response(200, self.store.create(p["project"], p["location"], req.body))

    def list(self, req: Request) -> Response:
        wanted = JobFilter.parse(req.query.get("filter"))
        items = self.store.list(req.params["project"], req.params["location"], wanted)
        return Response(200, page(items, req.query, "customJobs"))

    def get(self, req: Request) -> Response:
        return Response(200, self.store.get(self._key(req)))

    def cancel(self, req: Request) -> Response:
        return Response(200, self.store.cancel(self._key(req)))

    def delete(self, req: Request) -> Response:
        key = self._key(req)
        return Response(200, self.store.delete(key, self.operation_name(key)))
