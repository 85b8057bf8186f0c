"""Compute's operations, shared by every emulated Compute resource: zonal, regional and global
operations of any target, and the request ids that make a mutation happen once.

``requestId`` (a UUID) makes every mutation idempotent: the same id answers the same operation
and does nothing twice, for ``request_id_ttl`` seconds (Compute keeps them "at least 60
minutes", https://cloud.google.com/compute/docs/reference/rest/v1/instances/insert); afterwards
the id is forgotten and a repeat is a new request.
"""

from __future__ import annotations

import copy
import datetime as dt
import itertools
import threading
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

from ..base import GoogleError, Request, Response
from ..capacity import CapacityModel
from ..operations import RequestIds
from ..routing import Api
from ..store import Moment, Store
from .common import COMPUTE_SELF_LINK_ROOT, ComputeSettings, Operation, not_found, timestamp

__all__ = [
    "ComputeOperations",
    "ComputeStore",
    "OperationsApi",
    "RegionalOperationsApi",
    "Shared",
    "body_object",
    "request_id",
    "scope_of",
    "split_scope",
]


def scope_of(zone: str | None = None, region: str | None = None) -> str:
    """``zones/<zone>`` or ``regions/<region>`` (exactly one must be given)."""
    if (zone is None) == (region is None):
        raise ValueError("give exactly one of zone and region")
    return f"zones/{zone}" if zone else f"regions/{region}"


def split_scope(scope: str) -> tuple[str | None, str | None]:
    """``(zone, region)`` of ``zones/<zone>``, ``regions/<region>`` or ``global``."""
    where, _, place = scope.partition("/")
    return (place, None) if where == "zones" else (None, place) if where == "regions" else (
        None, None,
    )  # fmt: skip


class ComputeOperations(Store):
    """Every Compute operation, and the request ids each answered (see the module doc)."""

    def __init__(self, moment: Moment, lock: threading.RLock, settings: ComputeSettings) -> None:
        self.moment = moment
        self.lock = lock
        self._ops: dict[str, Operation] = {}
        self._request_ids = RequestIds(0)
        self.settings = settings
        self._counter = itertools.count(1)

    def new(
        self,
        project: str,
        kind: str,
        target: str,
        *,
        scope: str = "global",
        done: bool = True,
    ) -> Operation:
        """A new operation on ``target`` (a path under the API root) in ``scope``
        (``zones/<z>``, ``regions/<r>`` or ``global``), finished at once unless ``done`` is
        false."""
        now = self.moment.at
        n = next(self._counter)
        name = f"operation-{int(now.timestamp() * 1000)}-{n:06d}"
        zone, region = split_scope(scope)
        where = f"projects/{project}/{scope}"
        op: Operation = {
            "kind": "compute#operation",
            "id": str(7_000_000_000 + n),
            "name": name,
            "operationType": kind,
            "targetLink": COMPUTE_SELF_LINK_ROOT + target,
            "targetId": str(5_000_000_000 + n),
            "status": "RUNNING",
            "progress": 0,
            "user": "emulator@pulumi-dws.invalid",
            "insertTime": timestamp(now),
            "startTime": timestamp(now),
            "selfLink": f"{COMPUTE_SELF_LINK_ROOT}{where}/operations/{name}",
        }
        if zone:
            op["zone"] = f"{COMPUTE_SELF_LINK_ROOT}projects/{project}/zones/{zone}"
        elif region:
            op["region"] = f"{COMPUTE_SELF_LINK_ROOT}projects/{project}/regions/{region}"
        self._ops[name] = op
        if done:
            self.finish(name, now)
        return op

    def finish(
        self,
        name: str | None,
        now: dt.datetime,
        *,
        error: dict[str, str] | None = None,
        status: int = 400,
    ) -> None:
        """``DONE`` (once), with Compute's error fields when ``error`` is given."""
        if not name or name not in self._ops:
            return
        op = self._ops[name]
        if op["status"] == "DONE":
            return
        op.update(status="DONE", progress=100, endTime=timestamp(now))
        if error:
            op["error"] = {"errors": [error]}
            op["httpErrorStatusCode"] = status
            op["httpErrorMessage"] = {503: "SERVICE UNAVAILABLE", 409: "CONFLICT"}.get(
                status, "BAD REQUEST"
            )

    def stored(self, name: str) -> Operation:
        """The operation itself (not a copy): its owner updates it."""
        return self._ops[name]

    def copy(self, name: str) -> Operation:
        """A copy of an operation, as ``*Operations.get`` returns it."""
        with self.lock:
            return copy.deepcopy(self._ops[name])

    def get(self, project: str, scope: str, name: str) -> Operation:
        """An operation of ``scope`` (``zones/<z>``, ``regions/<r>``, ``global``); Google's 404
        for one of another scope."""
        with self.lock:
            op = self._ops.get(name)
            where = f"projects/{project}/{scope}/"
            if op is None or where not in op["selfLink"]:
                raise not_found(f"{where}operations/{name}")
            return copy.deepcopy(op)

    def once(
        self, project: str, request_id: str | None, action: Callable[[], Operation]
    ) -> Operation:
        """Carry out a mutation once per ``requestId`` (see the module doc); a repeat answers
        the first one's operation. Returns a copy of the operation."""
        with self.lock:
            if request_id:
                try:
                    parsed = uuid.UUID(request_id)
                except ValueError:
                    parsed = None
                if parsed is None or parsed.int == 0:
                    raise GoogleError(
                        400,
                        f"Invalid value for field 'requestId': '{request_id}'. "
                        "The request ID must be a valid non-zero UUID.",
                        "invalid",
                    )
                self._request_ids.ttl = self.settings.request_id_ttl
                known = self._request_ids.known((project, request_id), self.moment.at)
                if known:
                    return copy.deepcopy(self._ops[known])
            op = action()
            if request_id:
                self._request_ids.remember((project, request_id), op["name"], self.moment.at)
            return copy.deepcopy(op)


@dataclass(frozen=True)
class Shared:
    """What every store of one Compute service shares: the moment they stand at, the lock,
    the settings, the free capacity and the operations."""

    moment: Moment
    lock: threading.RLock
    settings: ComputeSettings
    capacity: CapacityModel
    operations: ComputeOperations


class ComputeStore(Store):
    """A store of the emulated Compute API, over what the service's stores share."""

    def __init__(self, shared: Shared) -> None:
        self.shared = shared
        self.moment = shared.moment
        self.lock = shared.lock
        self.settings = shared.settings
        self.capacity = shared.capacity
        self.operations = shared.operations


class OperationsApi(Api):
    """``zoneOperations``, ``regionOperations`` and ``globalOperations``: ``get`` (and a zone's
    ``wait``, which answers at once, as ``get`` does)."""

    resources: ClassVar[tuple[str, ...]] = (
        "zoneOperations",
        "regionOperations",
        "globalOperations",
    )

    def __init__(self, operations: ComputeOperations) -> None:
        self.operations = operations

    def get(self, req: Request) -> Response:
        p = req.params
        scope = (
            f"zones/{p['zone']}" if "zone" in p else
            f"regions/{p['region']}" if "region" in p else "global"
        )  # fmt: skip
        return Response(200, self.operations.get(p["project"], scope, p["operation"]))

    wait = get


class RegionalOperationsApi(OperationsApi):
    """Zone and region operations alone: what the ``beta`` document serves (the operations of
    the groups and policies the pulumi-gcp provider creates)."""

    resources: ClassVar[tuple[str, ...]] = ("zoneOperations", "regionOperations")


def request_id(req: Request) -> str | None:
    """A mutation's ``requestId`` query parameter."""
    return req.query.get("requestId")


def body_object(req: Request, what: str) -> dict[str, Any]:
    """The request's JSON object body, or Google's 400 naming ``what`` it should be."""
    if not isinstance(req.body, dict):
        raise GoogleError(400, f"Invalid JSON payload received: expected {what} object.")
    return req.body
