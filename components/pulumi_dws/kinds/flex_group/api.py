"""Compute Engine resize requests (``instanceGroupManagers.resizeRequests``, zonal or regional)
as the ``MigResizeRequest`` resource uses them: its declaration (:data:`RESIZE_REQUEST`: paths,
states, outputs, idempotency), its inputs and outputs, how its bodies are typed, and the error
its provider raises."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...providers.compute_ops import RESIZE_REQUEST_NUMBERS, typed_numbers
from ...providers.create_machine import Idempotency
from ...providers.endpoints import COMPUTE
from ...providers.paths import PathTemplate
from ...providers.rest_resource import RestResource, StateField, States

__all__ = [
    "ACCEPT_WAIT_SECONDS",
    "GOOGLE_STATES",
    "ON_TIMEOUT",
    "REPLACE_KEYS",
    "WAIT_KEYS",
    "ACTIVE",
    "ENDED",
    "FINISHED",
    "GROUP",
    "INPUT_KEYS",
    "MigResizeError",
    "OBSERVED_KEYS",
    "OUTPUT_KEYS",
    "RESIZE_REQUEST",
    "RESIZE_REQUEST_PATH",
    "RUNNING_WAIT_SECONDS",
    "TYPE_TOKEN",
    "WAITS",
    "is_resize_request",
    "request_id_of",
    "resize_request_body",
    "typed_body",
]

TYPE_TOKEN = "pulumi-python:dynamic/dws:MigResizeRequest"
INPUT_KEYS = (
    "project",
    "zone",
    "region",
    "group",
    "name",
    "body",
    "waitFor",
    "waitTimeout",
    "onTimeout",
)
"""The inputs; ``waitTimeout`` and ``onTimeout`` only when the program sets them."""
REPLACE_KEYS = ("project", "zone", "region", "group", "name", "body")
WAIT_KEYS = ("waitFor", "waitTimeout", "onTimeout")
"""Inputs that matter at create time only: a change is an update that changes nothing."""
OUTPUT_KEYS = ("state", "observed")
OBSERVED_KEYS = (
    "selfLink",
    "instances",
    "runEndsAt",
    "requestId",
    "error",
    "createdAt",
    "googleState",
    "derived",
    "note",
)
WAITS = ("accepted", "running")
ON_TIMEOUT = ("keep", "cancel")
"""What a create does when its ``waitTimeout`` passes with the request still queued: ``keep``
it (the create succeeds with its true state, and says so), or ``cancel`` it (cancelled and
deleted: the place in the queue is lost)."""
GOOGLE_STATES = frozenset(
    {"ACCEPTED", "CANCELLED", "CREATING", "FAILED", "STATE_UNSPECIFIED", "SUCCEEDED"}
)
"""A resize request's states as Google names them (the discovery document's
``InstanceGroupManagerResizeRequest.state`` enum). ``EXPIRED`` is not one: pulumi-dws derives
it (the run ended and the group has no VMs) and says so (``observed.derived``)."""
ACCEPT_WAIT_SECONDS = 900.0
"""How long a new request may stay ``CREATING`` before ``waitFor: accepted`` gives up."""
RUNNING_WAIT_SECONDS = 7200.0 + 600.0
"""The default ``waitTimeout`` of ``waitFor: running`` (the component's ``wait_timeout``): the
longest a Flex-start VM may queue (``flex_start.request_valid_for``, 2 h) plus a margin.
Resize requests in v1 have no queue deadline of their own: DWS keeps a request queued until
capacity and quota exist, so when the wait passes the request is kept, still queued
(``onTimeout: keep``, the default), unless the program asks to cancel it."""
ACTIVE = frozenset({"CREATING", "ACCEPTED"})
"""States of a request still in flight (it can't be deleted; only ACCEPTED can be cancelled)."""
FINISHED = frozenset({"SUCCEEDED", "FAILED", "CANCELLED"})
ENDED = frozenset({"FAILED", "CANCELLED"})
"""States of a request that ended without VMs."""

GROUP = PathTemplate(
    "projects/{project}/zones/{zone}/instanceGroupManagers/{group:name}",
    "projects/{project}/regions/{region}/instanceGroupManagers/{group:name}",
)
"""A zonal or regional managed instance group."""
RESIZE_REQUEST_PATH = PathTemplate(
    "projects/{project}/zones/{zone}/instanceGroupManagers/{group:name}/resizeRequests/{name}",
    "projects/{project}/regions/{region}/instanceGroupManagers/{group:name}/resizeRequests/{name}",
)
"""A resize request of a zonal or regional group; its path is the resource id."""


class MigResizeError(Exception):
    """A resize request could not be created, read or deleted. The message says what was
    asked, where, why, what to change, and whether anything was left behind."""


def is_resize_request(answer: Mapping[str, Any]) -> bool:
    """A resize request: a ``name`` and a ``state``."""
    return isinstance(answer.get("name"), str) and isinstance(answer.get("state"), str)


def resize_request_body(name: str, count: int, run_seconds: int | None) -> dict[str, Any]:
    """The ``InstanceGroupManagerResizeRequest`` gcloud sends for ``gcloud beta compute
    instance-groups managed resize-requests create GROUP --resize-request=NAME --resize-by=COUNT
    --requested-run-duration=RUN`` (``run_seconds=None``: no ``--requested-run-duration``)."""
    body: dict[str, Any] = {"name": name, "resizeBy": count}
    if run_seconds is not None:
        body["requestedRunDuration"] = {"seconds": str(int(run_seconds))}
    return body


def typed_body(body: Mapping[str, Any]) -> dict[str, Any]:
    """A resize request body typed as the API types it (:data:`RESIZE_REQUEST_NUMBERS`: values
    reach a dynamic provider as protobuf doubles, ``4.0`` -> ``4``, a duration's ``seconds`` an
    int64 string, ``259200.0`` -> ``"259200"``)."""
    return dict(typed_numbers(dict(body), RESIZE_REQUEST_NUMBERS))


def request_id_of(
    project: str, group: str, name: str, *, zone: str | None = None, region: str | None = None
) -> str:
    """The resource id: ``projects/p/{zones/z|regions/r}/instanceGroupManagers/g/
    resizeRequests/name`` (pulumi-gcp's format)."""
    values = {"project": project, "group": group, "name": name, "zone": zone, "region": region}
    return RESIZE_REQUEST_PATH.path(values)


RESIZE_REQUEST = RestResource(
    name="MigResizeRequest",
    api=COMPUTE,
    path=RESIZE_REQUEST_PATH,
    noun="resize request",
    error=MigResizeError,
    # the insert's requestId is derived from the inputs (a later attempt's is random); the
    # request's name is the program's too, unique in its group
    idempotency=Idempotency.REQUEST_ID,
    replace_keys=REPLACE_KEYS,
    in_place_keys=WAIT_KEYS,
    outputs=OUTPUT_KEYS,
    states=States(
        at=("state",),
        ready=frozenset({"SUCCEEDED"}),
        pending=ACTIVE,
        ended=ENDED,
        queued=ACTIVE,  # CREATING or ACCEPTED: no VM yet
    ),
    is_resource=is_resize_request,
    api_name="Compute Engine",
    state={
        "project": StateField((str,), required=True),
        "zone": StateField((str, type(None))),
        "region": StateField((str, type(None))),
        "group": StateField((str,), required=True),
        "name": StateField((str,), required=True),
        "body": StateField((dict,), required=True),
        "waitFor": StateField((str,)),
        "waitTimeout": StateField((int, float)),
        "onTimeout": StateField((str,)),
        "state": StateField((str,)),
        "observed": StateField((dict,)),
        "observed.instances": StateField((list,)),
        "observed.runEndsAt": StateField((str,)),
        "observed.createdAt": StateField((str,)),
        "observed.requestId": StateField((str,)),
        "observed.selfLink": StateField((str,)),
        "observed.googleState": StateField((str,)),
        "body.requestedRunDuration": StateField((dict,)),
    },
)
"""The ``MigResizeRequest`` dynamic resource, declared (see :mod:`~.provider`)."""
