"""A small fake of an API that names what it creates and takes no request id (as Vertex AI's
``customJobs.create`` does: https://cloud.google.com/vertex-ai/docs/reference/rest/v1beta1/
projects.locations.customJobs/create), and a provider declared on it in the ``OWNER_SEARCH``
idempotency mode: the test bed of that mode, served by the emulator over real HTTP.

    with Emulator([]) as emu:
        jobs = emu.add(LabelledJobsService(emu.clock))
        os.environ[LABELLED_JOBS.env_var] = emu.url
        LabelledJobProvider().create({"project": "p", "region": "us-central1",
                                      "displayName": "train", "body": {...}})

Routes::

    POST   /v1/projects/{p}/locations/{region}/jobs          the job, its id assigned here
    GET    /v1/projects/{p}/locations/{region}/jobs?filter=labels.KEY="VALUE"&pageToken=
    GET    /v1/projects/{p}/locations/{region}/jobs/{id}
    DELETE /v1/projects/{p}/locations/{region}/jobs/{id}     an operation, done
    GET    /v1/projects/{p}/locations/{region}/operations/{id}

A job is ``JOB_STATE_QUEUED`` for ``start_seconds`` (virtual), then ``JOB_STATE_RUNNING``; the
list filter takes ``labels.<key>="<value>"`` (AIP-160, as ``customJobs.list`` does). Every POST
that reaches it makes a new job: :attr:`LabelledJobsService.created` counts them (duplicates).
Test controls: :meth:`~LabelledJobsService.fail_next` (the next job created ends
``JOB_STATE_FAILED``), :meth:`~LabelledJobsService.remove`, :meth:`~LabelledJobsService.jobs`.
"""

from __future__ import annotations

import datetime as dt
import itertools
import re
import threading
from collections.abc import Mapping
from typing import Any, ClassVar

from ..providers.create_machine import Idempotency
from ..providers.endpoints import Api
from ..providers.lro import LroCreate, LroProvider
from ..providers.paths import PathTemplate
from ..providers.rest import GoogleRestClient
from ..providers.rest_resource import RestResource, States, Target
from .emulator.base import GoogleError, Request, Response, Route, VirtualClock, page

__all__ = [
    "LABELLED_JOB",
    "LABELLED_JOBS",
    "LabelledJobCreate",
    "LabelledJobError",
    "LabelledJobProvider",
    "LabelledJobsService",
]

LABELLED_JOBS = Api(
    "labelled-jobs",
    "https://labelled-jobs.invalid/",  # a fake: only ever called through its override
    "v1/",
    "DWS_LABELLED_JOBS_ENDPOINT",
    "dws:labelledJobsEndpoint",
)
_PARENT = r"/v1/projects/(?P<project>[^/]+)/locations/(?P<region>[^/]+)"
_FILTER = re.compile(r'labels\.(?P<key>[a-z][a-z0-9_-]*)="?(?P<value>[a-z0-9_-]*)"?')


class LabelledJobsService:
    """The fake API's state and routes (plugged into an emulator as ``labelled-jobs``)."""

    name = "labelled-jobs"

    def __init__(self, clock: VirtualClock, start_seconds: float = 60.0) -> None:
        self.clock = clock
        self.start_seconds = start_seconds
        self.created: list[str] = []
        """The name of every job the API made, in order (a second one for one create is a
        duplicate)."""
        self._jobs: dict[str, dict[str, Any]] = {}
        self._started: dict[str, dt.datetime] = {}
        self._ids = itertools.count(1000)
        self._fail: list[bool] = []
        self._lock = threading.RLock()

    # ------------------------------------------------------------------ test controls
    def fail_next(self) -> None:
        """The next job created ends ``JOB_STATE_FAILED`` instead of running."""
        self._fail.append(True)

    def jobs(self) -> list[dict[str, Any]]:
        """Every job that exists."""
        with self._lock:
            return [dict(job) for job in self._jobs.values()]

    def remove(self, name: str) -> None:
        """Delete a job outside any provider."""
        with self._lock:
            self._jobs.pop(name, None)

    # ------------------------------------------------------------------ the service
    def routes(self) -> list[Route]:
        return [
            Route.of("POST", _PARENT + "/jobs", self._create),
            Route.of("GET", _PARENT + "/jobs", self._list),
            Route.of("GET", _PARENT + r"/jobs/(?P<id>[^/]+)", self._get),
            Route.of("DELETE", _PARENT + r"/jobs/(?P<id>[^/]+)", self._delete),
            Route.of("GET", _PARENT + r"/operations/(?P<id>[^/]+)", self._operation),
        ]

    def tick(self, now: dt.datetime) -> None:
        with self._lock:
            for name, job in self._jobs.items():
                started = self._started.get(name, now)
                waited = (now - started).total_seconds()
                if job["state"] == "JOB_STATE_QUEUED" and waited >= self.start_seconds:
                    job["state"] = "JOB_STATE_RUNNING"

    def _name(self, request: Request, job_id: str) -> str:
        p = request.params
        return f"projects/{p['project']}/locations/{p['region']}/jobs/{job_id}"

    def _create(self, request: Request) -> Response:
        body = request.body
        if not isinstance(body, dict) or not isinstance(body.get("displayName"), str):
            raise GoogleError(400, "a job needs a displayName")
        labels = body.get("labels") or {}
        if not isinstance(labels, dict):
            raise GoogleError(400, "labels must be an object")
        with self._lock:
            name = self._name(request, str(next(self._ids)))
            failed = self._fail.pop(0) if self._fail else False
            job = {
                **body,
                "name": name,
                "labels": dict(labels),
                "state": "JOB_STATE_FAILED" if failed else "JOB_STATE_QUEUED",
                "createTime": self.clock.rfc3339(),
            }
            self._jobs[name] = job
            self._started[name] = self.clock.now()
            self.created.append(name)
            return Response(200, dict(job))

    def _list(self, request: Request) -> Response:
        wanted = request.query.get("filter")
        match = _FILTER.fullmatch(wanted) if wanted else None
        if wanted and match is None:
            raise GoogleError(400, f"unsupported filter {wanted!r}")
        parent = self._name(request, "")
        with self._lock:
            found = [
                dict(job)
                for name, job in self._jobs.items()
                if name.startswith(parent)
                and (match is None or job["labels"].get(match["key"]) == match["value"])
            ]
        return Response(200, page(found, request.query, "jobs"))

    def _get(self, request: Request) -> Response:
        with self._lock:
            job = self._jobs.get(self._name(request, request.params["id"]))
        if job is None:
            raise GoogleError(404, "job not found")
        return Response(200, dict(job))

    def _delete(self, request: Request) -> Response:
        with self._lock:
            job = self._jobs.pop(self._name(request, request.params["id"]), None)
        if job is None:
            raise GoogleError(404, "job not found")
        p = request.params
        operation = f"projects/{p['project']}/locations/{p['region']}/operations/{next(self._ids)}"
        return Response(200, {"name": operation, "done": True})

    def _operation(self, request: Request) -> Response:
        p = request.params
        name = f"projects/{p['project']}/locations/{p['region']}/operations/{p['id']}"
        return Response(200, {"name": name, "done": True})


class LabelledJobError(Exception):
    """A labelled job could not be created, read or deleted."""


def _is_job(answer: Mapping[str, Any]) -> bool:
    return isinstance(answer.get("name"), str) and isinstance(answer.get("state"), str)


LABELLED_JOB = RestResource(
    name="LabelledJob",
    api=LABELLED_JOBS,
    path=PathTemplate("projects/{project}/locations/{region}/jobs/{jobId:numeric_id}"),
    noun="job",
    error=LabelledJobError,
    idempotency=Idempotency.OWNER_SEARCH,
    replace_keys=("project", "region", "displayName", "body"),
    outputs=("name", "state"),
    states=States(
        at=("state",),
        ready=frozenset({"JOB_STATE_RUNNING"}),
        pending=frozenset({"JOB_STATE_QUEUED"}),
        ended=frozenset({"JOB_STATE_FAILED", "JOB_STATE_CANCELLED"}),
    ),
    is_resource=_is_job,
)
"""A job of the fake API, declared: the API names it, so its create runs in ``OWNER_SEARCH``
mode (the ownership key covers ``displayName``, so two jobs of one program differ)."""


class LabelledJobCreate(LroCreate):
    """A job's create: answered with the job itself; its body carries its ``displayName``."""

    CREATE_ANSWER: ClassVar[str] = "resource"

    def body(self) -> dict[str, Any]:
        props = self.target.props
        body = {**dict(props.get("body") or {}), "displayName": props["displayName"]}
        return self.with_owner(body)


class LabelledJobProvider(LroProvider):
    """CRUD of a job of the fake API: everything but the create's body from the base."""

    RESOURCE: ClassVar[RestResource] = LABELLED_JOB

    def create_steps(self, client: GoogleRestClient, target: Target) -> LabelledJobCreate:
        return LabelledJobCreate(self, client, target)

    def outputs(self, target: Target, live: Mapping[str, Any]) -> dict[str, Any]:
        return {**dict(target.props), "name": live.get("name"), "state": live.get("state")}
