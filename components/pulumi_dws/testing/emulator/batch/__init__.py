"""The emulated Cloud Batch API (``v1``): jobs whose VMs are Flex-start, Spot or standard.

    with Emulator() as emu:
        batch = emu["batch"]
        batch.add_capacity("us-central1-a", "a3-highgpu-8g", 2, after=3600)  # 2 VMs in an hour
        ...  # create a FLEX_START job of 2 tasks in us-central1: QUEUED
        emu.clock.advance(3600)                  # SCHEDULED, then RUNNING, then SUCCEEDED

Routes (from the discovery document, ``schemas/batch.v1.json``)::

    POST   /v1/projects/{p}/locations/{region}/jobs?jobId=&requestId=
    GET    /v1/projects/{p}/locations/{region}/jobs[?pageSize=&pageToken=]
    GET    /v1/projects/{p}/locations/{region}/jobs/{id}
    DELETE /v1/projects/{p}/locations/{region}/jobs/{id}?requestId=
    POST   /v1/projects/{p}/locations/{region}/jobs/{id}:cancel
    GET    /v1/projects/{p}/locations/{region}/operations/{op}

A create body is checked against the discovery schema ``Job``, then against Batch's own rules
(``job_rules.py``, each with its source); the jobs' store and handlers are in ``jobs.py``
(what the virtual clock does to a job is said there); operations are the shared
:class:`~pulumi_dws.testing.emulator.operations.LroOperations`.

Test controls: :meth:`~BatchService.add_capacity`, :meth:`take_all_capacity`,
:meth:`fail_next` (the next job fails once its VMs are found), :meth:`lose_answers`
(carried out, answered ``503``), :meth:`remove` (deleted outside Pulumi), :meth:`job`,
:meth:`jobs`, and :attr:`created` (every job really created, for duplicate counts).
"""

from __future__ import annotations

import datetime as dt
import threading
from typing import Any

from ..base import Route, ServiceError, VirtualClock, lossy
from ..capacity import CapacityModel
from ..discovery import DiscoverySchema
from ..operations import LocationOperationsApi, LostAnswers, LroOperations
from ..routing import discovered_routes
from ..store import Clockwork, Moment
from .jobs import TYPE_PREFIX, BatchSettings, JobsApi, JobStore

__all__ = ["SCHEMA_TARGETS", "BatchService", "BatchSettings"]

SCHEMA_TARGETS: dict[str, dict[str, tuple[str, ...]]] = {
    # Cloud Batch jobs: v1 has provisioningModel FLEX_START.
    "batch.v1": {
        "methods": (
            "batch.projects.locations.jobs.create",
            "batch.projects.locations.jobs.get",
            "batch.projects.locations.jobs.list",
            "batch.projects.locations.jobs.delete",
            "batch.projects.locations.jobs.cancel",
            "batch.projects.locations.operations.get",
        ),
        "schemas": (),
    },
}  # fmt: skip
"""What this API validates: the methods it serves and the schemas they reach
(``scripts/generate_emulator_schemas.py`` cuts the packaged document to them)."""


class BatchService(BatchSettings):
    """The emulated Cloud Batch API: its jobs and operations, served at their routes (what the
    emulator plugs in as ``batch``), and the controls tests call.

    Args:
        clock: the virtual clock everything happens on.
        capacity: free VMs per zone and machine type (``capacity.add(zone, "a3-highgpu-8g",
            2)``).
    """

    name = "batch"

    def __init__(self, clock: VirtualClock, capacity: CapacityModel | None = None) -> None:
        self.clock = clock
        self.capacity = capacity if capacity is not None else CapacityModel(now=clock.now())
        self.lock = threading.RLock()
        self.operations = LroOperations(TYPE_PREFIX, pending_done=True)
        self.schema = DiscoverySchema.load("batch", "v1")
        self.store = JobStore(clock, self.lock, self, self.capacity, self.operations, self.schema)
        self.clockwork = Clockwork([self.capacity, self.store], Moment(clock.now()), self.lock)
        self.losses = LostAnswers()

    # ------------------------------------------------------------------ serving
    def routes(self) -> list[Route]:
        apis = [JobsApi(self.store), LocationOperationsApi(self.store.get_operation)]
        wrap = lossy(lambda request: self.losses.answering(request.method))
        return discovered_routes(self.schema, apis, wrap=wrap)

    def tick(self, now: dt.datetime) -> None:
        """Apply what happened by ``now`` (see :mod:`.jobs`)."""
        self.clockwork.tick(now)

    def reset(self) -> None:
        """Forget every job, operation, request id, free VM and scripted failure."""
        with self.lock:
            self.store.reset()
            self.operations.reset()
            self.capacity.reset()
            self.losses.clear()

    # ------------------------------------------------------------------ test controls
    @property
    def created(self) -> list[dict[str, Any]]:
        """Every job really created: ``{"name", "requestId", "at"}``."""
        return self.store.created

    def add_capacity(self, zone: str, machine_type: str, count: int, *, after: float = 0) -> None:
        """Make ``count`` VMs of ``machine_type`` free in ``zone``, now or ``after`` virtual
        seconds from now."""
        self.capacity.add(zone, machine_type, count, after=after)
        self.tick(self.clock.now())

    def take_all_capacity(self, zone: str, machine_type: str) -> None:
        """Make every free VM of ``machine_type`` in ``zone`` unavailable (a stock-out)."""
        while self.capacity.take(zone, machine_type):
            pass

    def fail_next(self, message: str = "Task exited with a non-zero exit code 1.") -> None:
        """The next job created fails once its VMs are found, with ``message``."""
        with self.lock:
            self.store.fail_next.append(message)

    def lose_answers(self, method: str, count: int = 1) -> None:
        """Carry out the next ``count`` ``method`` requests but answer each ``503``."""
        self.losses.lose(method, count)

    def job(self, project: str, region: str, job_id: str) -> dict[str, Any] | None:
        """A copy of a stored job, as GET returns it, or None."""
        try:
            return self.store.get((project, region, job_id))
        except ServiceError:
            return None

    def jobs(self) -> list[tuple[str, str, str]]:
        """The keys ``(project, region, job id)`` of every stored job."""
        return self.store.keys()

    def remove(self, project: str, region: str, job_id: str) -> None:
        """Delete a job outside Pulumi, at once (its VMs are freed)."""
        self.store.remove(project, region, job_id)


def default_service(clock: VirtualClock) -> BatchService:
    """The service ``Emulator()`` plugs in by default (see
    :func:`~pulumi_dws.testing.emulator.server.default_services`)."""
    return BatchService(clock)
