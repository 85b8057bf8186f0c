"""The Cloud Batch ``v1`` ``jobs`` API as the ``BatchFlexJob`` resource uses it: the API
(:data:`BATCH`: its endpoint and override knobs), the resource's declaration
(:data:`BATCH_JOB`: path, states, outputs, idempotency), the error its provider raises, and
how its answers read.

The program names the job (``jobId``) and each create carries a ``requestId`` (Batch
guarantees a repeated id is ignored "for at least 60 minutes"): a create whose answer was lost
is sent again with the same id, and one that meets ``409`` (the job exists) is settled by
reading the job of that id (``REQUEST_ID`` mode with ``id_param="jobId"``, as Cloud TPU's
queued resources).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...providers.checks import WAIT_KEYS
from ...providers.create_machine import Idempotency
from ...providers.endpoints import Api
from ...providers.paths import PathTemplate
from ...providers.rest_resource import RestResource, States

__all__ = [
    "BATCH",
    "BATCH_JOB",
    "ENDED",
    "QUEUED",
    "BatchJobError",
    "TYPE_TOKEN",
    "is_batch_job",
    "last_event",
    "state_of",
]

TYPE_TOKEN = "pulumi-python:dynamic/dws:BatchJob"
BATCH = Api(
    "batch",
    "https://batch.googleapis.com/",
    "v1/",
    "DWS_BATCH_ENDPOINT",
    "dws:batchEndpoint",
)
"""Cloud Batch: ``DWS_BATCH_ENDPOINT`` or the stack config ``dws:batchEndpoint`` override it."""
QUEUED = frozenset({"QUEUED", "SCHEDULED"})
"""Waiting for its VMs (``QUEUED``), or about to run on them (``SCHEDULED``)."""
ENDED = frozenset({"FAILED", "CANCELLED", "CANCELLATION_IN_PROGRESS", "DELETION_IN_PROGRESS"})
"""States that will never run the job again."""


class BatchJobError(Exception):
    """A Batch job call failed; the message says what happened and what to do."""


def is_batch_job(answer: Mapping[str, Any]) -> bool:
    """A Batch job: a ``name`` and, if any, a ``status`` object."""
    status = answer.get("status")
    return isinstance(answer.get("name"), str) and (status is None or isinstance(status, Mapping))


def state_of(job: Mapping[str, Any] | None) -> str | None:
    """``status.state`` of a job (None when it has none)."""
    return BATCH_JOB.states.of(job)


def last_event(job: Mapping[str, Any]) -> str:
    """`` (what the job's last status event says)``, or ""."""
    status = job.get("status")
    events = status.get("statusEvents") if isinstance(status, Mapping) else None
    if isinstance(events, list) and events and isinstance(events[-1], Mapping):
        description = events[-1].get("description")
        if isinstance(description, str) and description:
            return f" ({description})"
    return ""


BATCH_JOB = RestResource(
    name="BatchJob",
    api=BATCH,
    path=PathTemplate(
        "projects/{project}/locations/{region}/jobs/{jobId:name}", labels={"jobId": "job_id"}
    ),
    noun="Batch job",
    error=BatchJobError,
    idempotency=Idempotency.REQUEST_ID,
    id_param="jobId",
    replace_keys=("project", "region", "jobId", "body"),
    in_place_keys=WAIT_KEYS,
    outputs=("name", "state", "observed"),
    states=States(
        at=("status", "state"),
        ready=frozenset({"RUNNING"}),
        pending=QUEUED,
        queued=frozenset({"QUEUED"}),  # no VM yet: an interrupted create deletes it
        ended=ENDED,
        deleting=frozenset({"DELETION_IN_PROGRESS"}),
    ),
    is_resource=is_batch_job,
    api_name="Cloud Batch",
)
"""The ``BatchJob`` dynamic resource, declared (see :mod:`~.provider` for its behaviour)."""
