"""The Vertex AI ``v1beta1`` ``customJobs`` API as the ``VertexTrainingJob`` resource uses it: its
declaration (:data:`VERTEX_CUSTOM_JOB`: path, states, outputs, idempotency), the error its
provider raises, and how its answers read.

``customJobs.create`` takes neither a job id nor a ``requestId``: the API names the job. So a
create whose answer was lost is never sent again blindly (``OWNER_SEARCH``): the job carries
the ownership label, and a search for it (``customJobs.list`` filtered on the label) settles
whether the first create was carried out. The label key is ``dws_create``: the list filter's
documentation shows label keys of letters, digits and underscores only (``labels.keyA=valueA``;
AIP-160's grammar would take a hyphen inside a field name, but Vertex AI documents none), so the
key that is certain to filter is used.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...providers.checks import WAIT_KEYS
from ...providers.create_machine import Idempotency
from ...providers.endpoints import AIPLATFORM
from ...providers.paths import PathTemplate
from ...providers.rest_resource import RestResource, States

__all__ = [
    "CANCELLABLE",
    "ENDED",
    "OWNER_LABEL",
    "STACK_LABEL",
    "QUEUED",
    "TERMINAL",
    "TYPE_TOKEN",
    "VERTEX_CUSTOM_JOB",
    "VertexTrainingError",
    "is_custom_job",
    "job_error",
    "state_of",
]

TYPE_TOKEN = "pulumi-python:dynamic/dws:VertexCustomJob"
OWNER_LABEL = "dws_create"
"""The ownership label of a custom job (see the module docstring)."""
STACK_LABEL = "dws_stack"
"""The stack's label of a custom job (underscored as :data:`OWNER_LABEL` is)."""
QUEUED = frozenset({"JOB_STATE_QUEUED", "JOB_STATE_PENDING"})
"""Waiting for capacity (``QUEUED``), or being provisioned (``PENDING``)."""
ENDED = frozenset(
    {"JOB_STATE_FAILED", "JOB_STATE_CANCELLED", "JOB_STATE_EXPIRED", "JOB_STATE_CANCELLING"}
)
"""States that will never run the job again."""
TERMINAL = frozenset(
    {
        "JOB_STATE_SUCCEEDED",
        "JOB_STATE_FAILED",
        "JOB_STATE_CANCELLED",
        "JOB_STATE_EXPIRED",
        "JOB_STATE_PARTIALLY_SUCCEEDED",
    }
)
"""States a job rests in: it can be deleted (any other is cancelled first)."""
CANCELLABLE = frozenset(
    {"JOB_STATE_QUEUED", "JOB_STATE_PENDING", "JOB_STATE_RUNNING", "JOB_STATE_PAUSED"}
)


class VertexTrainingError(Exception):
    """A custom job call failed; the message says what happened and what to do."""


def is_custom_job(answer: Mapping[str, Any]) -> bool:
    """A custom job: a ``name`` and a ``state`` string."""
    return isinstance(answer.get("name"), str) and isinstance(answer.get("state", ""), str)


def state_of(job: Mapping[str, Any] | None) -> str | None:
    """``state`` of a job (None when it has none)."""
    return VERTEX_CUSTOM_JOB.states.of(job)


def job_error(job: Mapping[str, Any]) -> str:
    """`` (code: message)`` of a job that carries an ``error``, else ""."""
    error = job.get("error")
    if not isinstance(error, Mapping):
        return ""
    return f" ({error.get('code', '')}: {error.get('message', '')})"


VERTEX_CUSTOM_JOB = RestResource(
    name="VertexCustomJob",
    api=AIPLATFORM,
    path=PathTemplate(
        "projects/{project}/locations/{region}/customJobs/{customJobId:numeric_id}",
        labels={"customJobId": "job id"},
    ),
    noun="custom job",
    error=VertexTrainingError,
    idempotency=Idempotency.OWNER_SEARCH,
    region_key="region",
    replace_keys=("project", "region", "body"),
    in_place_keys=WAIT_KEYS,
    outputs=("name", "state", "observed"),
    states=States(
        at=("state",),
        ready=frozenset({"JOB_STATE_RUNNING"}),
        pending=QUEUED,
        queued=frozenset({"JOB_STATE_QUEUED"}),  # no capacity yet: an interrupted create ends it
        ended=ENDED,
        busy=frozenset({"JOB_STATE_CANCELLING"}),
    ),
    is_resource=is_custom_job,
    api_name="Vertex AI",
    owner_label=OWNER_LABEL,
    stack_label=STACK_LABEL,
)
"""The ``VertexCustomJob`` dynamic resource, declared (see :mod:`~.provider` for its
behaviour)."""
