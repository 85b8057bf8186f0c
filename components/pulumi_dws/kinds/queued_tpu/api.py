"""The Cloud TPU ``v2alpha1`` queued-resources API as the ``QueuedTpu`` resource uses it: its
declaration (:data:`QUEUED_TPU`: path, states, outputs, idempotency), the error its provider
raises, and how its answers read."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...providers.create_machine import Idempotency
from ...providers.endpoints import TPU
from ...providers.paths import PathTemplate
from ...providers.rest_resource import RestResource, StateField, States

__all__ = [
    "ENDED",
    "NO_NODES",
    "QUEUED",
    "QUEUED_TPU",
    "QueuedTpuError",
    "REPLACE_KEYS",
    "TYPE_TOKEN",
    "describe_status",
    "failure_detail",
    "is_queued_resource",
    "state_of",
]

TYPE_TOKEN = "pulumi-python:dynamic/dws:QueuedTpu"
REPLACE_KEYS = ("project", "zone", "queuedResourceId", "body")
QUEUED = frozenset({"CREATING", "ACCEPTED", "WAITING_FOR_RESOURCES", "PROVISIONING"})
"""States of a request still on its way to capacity."""
ENDED = frozenset({"FAILED", "SUSPENDING", "SUSPENDED", "DELETING"})
"""States that will never become ``ACTIVE`` on their own."""
NO_NODES = frozenset({"ACCEPTED", "WAITING_FOR_RESOURCES", "FAILED", "SUSPENDED"})
"""States whose request the API deletes without ``force`` (it holds no TPU nodes)."""


class QueuedTpuError(Exception):
    """A queued-resource call failed; the message says what happened and what to do."""


def is_queued_resource(answer: Mapping[str, Any]) -> bool:
    """A queued resource: a ``name`` and, if any, a ``state`` object."""
    state = answer.get("state")
    return isinstance(answer.get("name"), str) and (state is None or isinstance(state, Mapping))


def state_of(resource: Mapping[str, Any] | None) -> str | None:
    """``state.state`` of a queued resource (None when it has none)."""
    return QUEUED_TPU.states.of(resource)


def describe_status(status: Mapping[str, Any]) -> str:
    """``google.rpc.Status`` as text."""
    return f"{status.get('code', '')}: {status.get('message', '')}".strip(": ")


def failure_detail(live: Mapping[str, Any]) -> str:
    """`` (why)`` for a request whose state carries an error, else ""."""
    state = live.get("state") or {}
    failed = state.get("failedData") if isinstance(state, Mapping) else None
    error = (failed or {}).get("error") if isinstance(failed, Mapping) else None
    return f" ({describe_status(error)})" if isinstance(error, Mapping) else ""


QUEUED_TPU = RestResource(
    name="QueuedTpu",
    api=TPU,
    path=PathTemplate(
        "projects/{project}/locations/{zone}/queuedResources/{queuedResourceId:name}",
        labels={"queuedResourceId": "queued_resource_id"},
    ),
    noun="queued resource",
    error=QueuedTpuError,
    # ids are RFC 1035 names here: a subset of what the API takes (^[A-Za-z0-9_.~+%-]+$) that
    # needs no quoting; the create also carries a requestId, kept for its retries
    idempotency=Idempotency.REQUEST_ID,
    id_param="queuedResourceId",
    replace_keys=REPLACE_KEYS,
    in_place_keys=("waitFor", "waitTimeout", "onTimeout"),
    outputs=("name", "state", "observed", "drift"),
    states=States(
        at=("state", "state"),
        ready=frozenset({"ACTIVE"}),
        pending=QUEUED,
        ended=ENDED,
        deleting=frozenset({"DELETING"}),
        queued=frozenset({"CREATING", "ACCEPTED", "WAITING_FOR_RESOURCES"}),
    ),
    is_resource=is_queued_resource,
    state={
        "project": StateField((str,), required=True),
        "zone": StateField((str,), required=True),
        "queuedResourceId": StateField((str,), required=True),
        "body": StateField((dict,), required=True),
        "waitFor": StateField((str,)),
        "waitTimeout": StateField((int, float)),
        "onTimeout": StateField((str,)),
        "name": StateField((str,)),
        "state": StateField((str,)),
        "observed": StateField((dict,)),
        "drift": StateField((list,)),
        "body.tpu": StateField((dict,)),
        "body.queueingPolicy": StateField((dict,)),
    },
)
"""The ``QueuedTpu`` dynamic resource, declared (see :mod:`~.provider` for its behaviour)."""
