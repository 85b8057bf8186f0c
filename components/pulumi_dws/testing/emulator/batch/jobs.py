"""Cloud Batch ``jobs`` (``v1``), on the virtual clock: the jobs, the VMs they take, and the
handlers of their methods. The rules Batch applies to a new job are in ``job_rules.py``.

A job is ``QUEUED`` ("admitted and waiting for resources", the discovery document's
``JobStatus.state``) until one zone it may use (``allowedLocations``, else every zone of its
region) has a VM of its machine type for each task it runs at once (``parallelism``, default
``taskCount``: one task per VM), all at once; then ``SCHEDULED`` for ``schedule_seconds``,
``RUNNING`` until it ends: ``SUCCEEDED`` after ``run_seconds`` (when set and shorter than the
task's ``maxRunDuration``), else ``FAILED`` at ``maxRunDuration``. Its VMs are freed when it
ends. ``delete`` makes it ``DELETION_IN_PROGRESS`` and removes it after ``delete_seconds``
(its VMs freed at once); ``cancel`` makes it ``CANCELLATION_IN_PROGRESS``, then ``CANCELLED``.
Both answer an operation.

``requestId`` makes a create, a delete or a cancel happen once for ``request_id_ttl`` seconds
("The server will guarantee that for at least 60 minutes"): a repeat answers what the first
did; a create of a ``jobId`` that exists is ``409 ALREADY_EXISTS``. Every job really created is
recorded (:attr:`JobStore.created`), for duplicate counts.
"""

from __future__ import annotations

import copy
import datetime as dt
import itertools
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from ....regions import zones_of
from ..base import Request, Response, ServiceError, VirtualClock, page
from ..capacity import CapacityModel
from ..discovery import DiscoverySchema
from ..operations import Lro, LroOperations
from ..routing import Api
from ..store import Store, earliest
from .job_rules import CREATE_RULES, NewJob, seconds

__all__ = ["BatchJob", "BatchSettings", "JobStore", "JobsApi"]

TYPE_PREFIX = "type.googleapis.com/google.cloud.batch.v1."
_OUTPUT_ONLY = ("name", "uid", "status", "createTime", "updateTime")
ENDED = frozenset({"SUCCEEDED", "FAILED", "CANCELLED"})


def _ts(moment: dt.datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


class BatchSettings:
    """The knobs of the emulated Batch API (on the service: ``batch.run_seconds = 600``).

    Attributes:
        schedule_seconds: ``SCHEDULED`` time once the VMs are found.
        run_seconds: how long a job's tasks run before it succeeds (None: until its
            ``maxRunDuration``, where it fails).
        delete_seconds: ``DELETION_IN_PROGRESS`` time.
        cancel_seconds: ``CANCELLATION_IN_PROGRESS`` time.
        request_id_ttl: how long a ``requestId`` is remembered.
    """

    schedule_seconds: float = 60.0
    run_seconds: float | None = 3600.0
    delete_seconds: float = 30.0
    cancel_seconds: float = 30.0
    request_id_ttl: float = 3600.0


@dataclass
class BatchJob:
    """One job: its API form and what the service keeps to itself."""

    key: tuple[str, str, str]  # (project id, region, job id)
    resource: dict[str, Any]
    machine_type: str
    vms: int
    zones: list[str]
    max_run: int | None
    order: int
    zone: str | None = None
    running_at: dt.datetime | None = None
    ends_at: dt.datetime | None = None
    succeeds: bool = False
    gone_at: dt.datetime | None = None
    cancelled_at: dt.datetime | None = None
    operation: Lro | None = None
    fail_with: str | None = None

    @property
    def state(self) -> str:
        return str(self.resource["status"]["state"])

    def due(self) -> dt.datetime | None:
        if self.gone_at is not None:
            return self.gone_at
        if self.cancelled_at is not None:
            return self.cancelled_at
        if self.state == "SCHEDULED":
            return self.running_at
        if self.state == "RUNNING":
            return self.ends_at
        return None


class JobStore(Store):
    """Every Batch job, the VMs it holds, and its clock (see the module doc)."""

    def __init__(
        self,
        clock: VirtualClock,
        lock: threading.RLock,
        settings: BatchSettings,
        capacity: CapacityModel,
        operations: LroOperations,
        schema: DiscoverySchema,
    ) -> None:
        self.clock = clock
        self.lock = lock
        self.settings = settings
        self.capacity = capacity
        self.operations = operations
        self.schema = schema
        self.jobs: dict[tuple[str, str, str], BatchJob] = {}
        self.created: list[dict[str, Any]] = []
        """Every job really created: ``{"name", "requestId", "at"}``."""
        self.fail_next: list[str] = []
        self._answers: dict[str, tuple[Any, dt.datetime]] = {}
        self._ids = itertools.count(1)
        self._order = itertools.count()
        self._at = clock.now()

    # ------------------------------------------------------------------ helpers
    def _now(self) -> dt.datetime:
        self._at = max(self._at, self.clock.now())
        return self._at

    def _remembered(self, request_id: str | None, now: dt.datetime) -> Any:
        """What the request of ``request_id`` answered, while it is remembered."""
        horizon = now - dt.timedelta(seconds=self.settings.request_id_ttl)
        for old in [k for k, (_, at) in self._answers.items() if at <= horizon]:
            del self._answers[old]
        found = self._answers.get(request_id) if request_id else None
        return copy.deepcopy(found[0]) if found else None

    def _remember(self, request_id: str | None, answer: Any, now: dt.datetime) -> None:
        if request_id:
            self._answers[request_id] = (copy.deepcopy(answer), now)

    def _found(self, key: tuple[str, str, str]) -> BatchJob:
        found = self.jobs.get(key)
        if found is None:
            name = f"projects/{key[0]}/locations/{key[1]}/jobs/{key[2]}"
            raise ServiceError(404, f"Job {name} not found.", "NOT_FOUND")
        return found

    def _operation(self, key: tuple[str, str, str], verb: str, now: dt.datetime) -> Lro:
        name = f"projects/{key[0]}/locations/{key[1]}/operations/operation-{next(self._ids)}"
        return self.operations.start(
            name,
            "OperationMetadata",
            createTime=_ts(now),
            target=f"projects/{key[0]}/locations/{key[1]}/jobs/{key[2]}",
            verb=verb,
            apiVersion="v1",
        )

    # ------------------------------------------------------------------ test controls
    def keys(self) -> list[tuple[str, str, str]]:
        with self.lock:
            return list(self.jobs)

    def remove(self, project: str, region: str, job_id: str) -> None:
        """Delete a job outside Pulumi, at once (its VMs are freed)."""
        with self.lock:
            found = self.jobs.pop((project, region, job_id), None)
            if found is not None:
                self._release(found)

    # ------------------------------------------------------------------ API methods
    def create(
        self, project: str, region: str, job_id: str | None, body: Any, request_id: str | None
    ) -> dict[str, Any]:
        if not isinstance(body, dict):
            raise ServiceError(400, "Invalid JSON payload received. Expected a Job.")
        self.schema.require("Job", body, method="batch.projects.locations.jobs.create")
        new = NewJob(region, job_id, body)
        CREATE_RULES.check(new)
        with self.lock:
            now = self._now()
            repeat = self._remembered(request_id, now)
            if repeat is not None:
                return dict(repeat)
            job_id = job_id or f"job-{next(self._ids):08d}"
            key = (project, region, job_id)
            name = f"projects/{project}/locations/{region}/jobs/{job_id}"
            if key in self.jobs:
                raise ServiceError(409, f"Job {name} already exists.", "ALREADY_EXISTS")
            group = new.groups[0]
            spec = group.get("taskSpec") or {}
            tasks = int(group.get("taskCount") or 1)
            zones = [
                loc.split("/", 1)[1] if loc.startswith("zones/") else zone
                for loc in (new.locations or [f"regions/{region}"])
                for zone in (zones_of(region) if loc.startswith("regions/") else [""])
            ]
            resource = {k: copy.deepcopy(v) for k, v in body.items() if k not in _OUTPUT_ONLY}
            resource.update(
                name=name,
                uid=f"{job_id}-{next(self._ids):08x}",
                createTime=_ts(now),
                updateTime=_ts(now),
                status={
                    "state": "QUEUED",
                    "statusEvents": [
                        {"type": "STATE_TRANSITION", "eventTime": _ts(now),
                         "description": "Job state is set from QUEUED."}
                    ],
                },
            )  # fmt: skip
            job = BatchJob(
                key,
                resource,
                str(new.policy.get("machineType") or "e2-standard-2"),
                int(group.get("parallelism") or tasks),
                [z for z in zones if z],
                seconds(spec.get("maxRunDuration") if isinstance(spec, Mapping) else None),
                next(self._order),
                fail_with=self.fail_next.pop(0) if self.fail_next else None,
            )
            self.jobs[key] = job
            self.created.append({"name": name, "requestId": request_id, "at": now})
            self._advance(job, now)
            answer = copy.deepcopy(job.resource)
            self._remember(request_id, answer, now)
            return answer

    def get(self, key: tuple[str, str, str]) -> dict[str, Any]:
        with self.lock:
            return copy.deepcopy(self._found(key).resource)

    def list(self, project: str, region: str) -> list[dict[str, Any]]:
        with self.lock:
            jobs = sorted(
                (j for j in self.jobs.values() if j.key[:2] == (project, region)),
                key=lambda j: j.order,
            )
            return [copy.deepcopy(j.resource) for j in jobs]

    def delete(self, key: tuple[str, str, str], request_id: str | None) -> dict[str, Any]:
        with self.lock:
            now = self._now()
            repeat = self._remembered(request_id, now)
            if repeat is not None:
                return dict(repeat)
            job = self._found(key)
            if job.gone_at is not None and job.operation is not None:
                return self.operations.render(job.operation)
            op = self._operation(key, "delete", now)
            self._release(job)
            job.operation = op
            job.gone_at = now + dt.timedelta(seconds=self.settings.delete_seconds)
            self._set(job, "DELETION_IN_PROGRESS", now)
            answer = self.operations.render(op)
            self._remember(request_id, answer, now)
            return answer

    def cancel(self, key: tuple[str, str, str], request_id: str | None) -> dict[str, Any]:
        with self.lock:
            now = self._now()
            repeat = self._remembered(request_id, now)
            if repeat is not None:
                return dict(repeat)
            job = self._found(key)
            if job.state in ENDED or job.gone_at is not None:
                raise ServiceError(
                    400, f"Job {job.resource['name']} is {job.state}.", "FAILED_PRECONDITION"
                )
            op = self._operation(key, "cancel", now)
            self._release(job)
            job.operation = op
            job.cancelled_at = now + dt.timedelta(seconds=self.settings.cancel_seconds)
            self._set(job, "CANCELLATION_IN_PROGRESS", now)
            answer = self.operations.render(op)
            self._remember(request_id, answer, now)
            return answer

    def get_operation(self, name: str) -> dict[str, Any]:
        with self.lock:
            op = self.operations.find(name)
            if op is None:
                raise ServiceError(404, f"Operation {name} not found.", "NOT_FOUND")
            return self.operations.render(op)

    # ------------------------------------------------------------------ the clock
    def next_event(self) -> dt.datetime | None:
        with self.lock:
            return earliest(job.due() for job in self.jobs.values())

    def tick(self, now: dt.datetime) -> None:
        with self.lock:
            self._at = max(self._at, now)
            for job in sorted(self.jobs.values(), key=lambda j: j.order):
                self._advance(job, now)

    def _advance(self, job: BatchJob, now: dt.datetime) -> None:
        if job.gone_at is not None:
            if now >= job.gone_at:
                self.jobs.pop(job.key, None)
                self.operations.finish(job.operation, endTime=_ts(now))
            return
        if job.cancelled_at is not None:
            if now >= job.cancelled_at:
                self._set(job, "CANCELLED", job.cancelled_at)
                self.operations.finish(job.operation, endTime=_ts(now))
                job.cancelled_at = None
            return
        if job.state == "QUEUED":
            for zone in job.zones:
                if self.capacity.take(zone, job.machine_type, job.vms):
                    job.zone = zone
                    job.running_at = now + dt.timedelta(seconds=self.settings.schedule_seconds)
                    self._set(job, "SCHEDULED", now)
                    break
        if job.state == "SCHEDULED" and job.running_at is not None and now >= job.running_at:
            started = job.running_at
            if job.fail_with is not None:
                self._end(job, "FAILED", started, job.fail_with)
                return
            self._set(job, "RUNNING", started)
            run = self.settings.run_seconds
            limit = job.max_run
            job.succeeds = run is not None and (limit is None or run < limit)
            length = run if job.succeeds and run is not None else limit
            job.ends_at = started + dt.timedelta(seconds=length) if length is not None else None
        if job.state == "RUNNING" and job.ends_at is not None and now >= job.ends_at:
            if job.succeeds:
                self._end(job, "SUCCEEDED", job.ends_at, None)
            else:
                self._end(job, "FAILED", job.ends_at, "A task ran past its maxRunDuration.")

    def _set(self, job: BatchJob, state: str, at: dt.datetime) -> None:
        status = job.resource["status"]
        status["state"] = state
        status.setdefault("statusEvents", []).append(
            {
                "type": "STATE_TRANSITION",
                "eventTime": _ts(at),
                "description": f"Job state is set from {state}.",
            }
        )
        job.resource["updateTime"] = _ts(at)

    def _end(self, job: BatchJob, state: str, at: dt.datetime, why: str | None) -> None:
        self._release(job)
        self._set(job, state, at)
        if why:
            job.resource["status"]["statusEvents"][-1]["description"] = why

    def _release(self, job: BatchJob) -> None:
        if job.zone is not None:
            self.capacity.give_back(job.zone, job.machine_type, job.vms)
            job.zone = None


class JobsApi(Api):
    """``projects.locations.jobs``: each handler reads a request and calls the store."""

    resources: ClassVar[tuple[str, ...]] = ("projects.locations.jobs",)

    def __init__(self, store: JobStore) -> None:
        self.store = store

    def _key(self, req: Request) -> tuple[str, str, str]:
        p = req.params
        return p["project"], p["location"], p["job"]

    def create(self, req: Request) -> Response:
        p, q = req.params, req.query
        job = self.store.create(
            p["project"], p["location"], q.get("jobId") or q.get("job_id"), req.body,
            q.get("requestId") or q.get("request_id"),
        )  # fmt: skip
        return Response(200, job)

    def get(self, req: Request) -> Response:
        return Response(200, self.store.get(self._key(req)))

    def list(self, req: Request) -> Response:
        items = self.store.list(req.params["project"], req.params["location"])
        return Response(200, page(items, req.query, "jobs"))

    def delete(self, req: Request) -> Response:
        return Response(200, self.store.delete(self._key(req), req.query.get("requestId")))

    def cancel(self, req: Request) -> Response:
        body = req.body if isinstance(req.body, Mapping) else {}
        return Response(200, self.store.cancel(self._key(req), body.get("requestId")))
