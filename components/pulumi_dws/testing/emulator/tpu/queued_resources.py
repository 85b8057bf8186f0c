"""Cloud TPU queued resources (``v2alpha1``), on the virtual clock: created ``CREATING``, then
``WAITING_FOR_RESOURCES`` until the zone has the chips, ``PROVISIONING``, ``ACTIVE``; ``FAILED``
when the queue window passes first; ``SUSPENDED`` at the end of a Flex-start run; ``DELETING``,
then gone (https://docs.cloud.google.com/tpu/docs/queued-resources)."""

from __future__ import annotations

import copy
import datetime as dt
import itertools
import threading
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from ..base import Request, Response, ServiceError, VirtualClock, page
from ..capacity import CapacityModel
from ..discovery import DiscoverySchema
from ..operations import Lro, LroOperations, RequestIds
from ..routing import Api
from ..store import Store
from .queued_resource_rules import CREATE_RULES, NewQueuedResource, seconds, slice_of

__all__ = ["QueuedResourceStore", "QueuedResourcesApi", "TpuSettings"]

TYPE_PREFIX = "type.googleapis.com/google.cloud.tpu.v2alpha1."
_HAS_NODES = frozenset({"CREATING", "PROVISIONING", "ACTIVE", "SUSPENDING"})


def _ts(moment: dt.datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


class TpuSettings:
    """The knobs of the emulated Cloud TPU API (on the service: ``tpu.delete_seconds = 0``).

    Attributes:
        accept_seconds: how long a create's operation runs (``CREATING``).
        provision_seconds: ``PROVISIONING`` time once capacity is found.
        delete_seconds: ``DELETING`` time.
        request_id_ttl: how long a ``requestId`` is remembered (seconds).
    """

    accept_seconds: float = 10.0
    provision_seconds: float = 120.0
    delete_seconds: float = 60.0
    request_id_ttl: float = 3600.0


@dataclass
class Queued:
    """One queued resource: its API form plus what the service keeps to itself."""

    key: tuple[str, str, str]
    resource: dict[str, Any]
    pool: str  # the TPU version whose chips it takes (v6e, v5e, v5p)
    chips: int
    order: int
    accept_at: dt.datetime
    create_op: Lro
    valid_until: dt.datetime | None = None
    max_run: int | None = None
    provisioned_at: dt.datetime | None = None
    run_ends: dt.datetime | None = None
    holds: bool = False
    delete_at: dt.datetime | None = None
    delete_op: Lro | None = None
    fail_with: str | None = None
    delete_fails: str | None = None
    before_delete: dict[str, Any] | None = None

    @property
    def state(self) -> str:
        return str(self.resource["state"]["state"])

    @property
    def name(self) -> str:
        return str(self.resource["name"])


def not_found(project: str, zone: str, queued_resource_id: str) -> ServiceError:
    name = f"projects/{project}/locations/{zone}/queuedResources/{queued_resource_id}"
    return ServiceError(404, f"Resource '{name}' was not found", "NOT_FOUND")


class QueuedResourceStore(Store):
    """Every queued resource, the chips it holds, and its clock (see the module doc)."""

    def __init__(
        self,
        clock: VirtualClock,
        lock: threading.RLock,
        settings: TpuSettings,
        capacity: CapacityModel,
        operations: LroOperations,
    ) -> None:
        self.clock = clock
        self.lock = lock
        self.settings = settings
        self.capacity = capacity
        self.operations = operations
        self.queued: dict[tuple[str, str, str], Queued] = {}
        self._request_ids = RequestIds(settings.request_id_ttl)
        self._order = itertools.count()
        self.fail_next: list[str] = []
        self.fail_deletes: list[str] = []
        self.created: list[dict[str, Any]] = []
        """Every queued resource really created: ``{"name", "requestId", "at"}``."""
        self._last_tick = clock.now()

    # ------------------------------------------------------------------ reading
    def copy_of(self, project: str, zone: str, queued_resource_id: str) -> dict[str, Any] | None:
        with self.lock:
            found = self.queued.get((project, zone, queued_resource_id))
            return copy.deepcopy(found.resource) if found else None

    def get(self, project: str, zone: str, queued_resource_id: str) -> dict[str, Any]:
        found = self.copy_of(project, zone, queued_resource_id)
        if found is None:
            raise not_found(project, zone, queued_resource_id)
        return found

    def list(self, project: str, zone: str) -> list[dict[str, Any]]:
        with self.lock:
            items = sorted(
                (q for q in self.queued.values() if q.key[:2] == (project, zone)),
                key=lambda q: q.order,
            )
            return [copy.deepcopy(q.resource) for q in items]

    def remove(self, project: str, zone: str, queued_resource_id: str) -> None:
        """Delete a queued resource outside Pulumi, at once (its chips are freed)."""
        with self.lock:
            found = self.queued.pop((project, zone, queued_resource_id), None)
            if found is not None and found.holds:
                self.capacity.give_back(zone, found.pool, found.chips)

    # ------------------------------------------------------------------ API methods
    def create(
        self,
        project: str,
        zone: str,
        queued_resource_id: str | None,
        body: Mapping[str, Any],
        request_id: str | None,
    ) -> dict[str, Any]:
        def action(now: dt.datetime) -> Lro:
            new = NewQueuedResource(project, zone, queued_resource_id, body)
            CREATE_RULES.check(new)
            tpu = slice_of(new)
            count = int((new.spec.get("multiNodeParams") or {}).get("nodeCount") or 1)
            key = (project, zone, str(queued_resource_id))
            name = f"projects/{project}/locations/{zone}/queuedResources/{queued_resource_id}"
            if key in self.queued:
                raise ServiceError(409, f"Resource '{name}' already exists", "ALREADY_EXISTS")
            resource = copy.deepcopy(dict(body))
            resource.update(name=name, createTime=_ts(now), state={"state": "CREATING"})
            op = self._operation(project, zone, "create", name, now)
            queued = Queued(
                key,
                resource,
                tpu.generation.name,
                tpu.chips * count,
                next(self._order),
                accept_at=now + dt.timedelta(seconds=self.settings.accept_seconds),
                create_op=op,
                max_run=seconds((body.get("runDuration") or {}).get("maxRunDuration")),
                fail_with=self.fail_next.pop(0) if self.fail_next else None,
            )
            window = seconds((body.get("queueingPolicy") or {}).get("validUntilDuration"))
            if window is not None:
                queued.valid_until = now + dt.timedelta(seconds=window)
            self.queued[key] = queued
            self.created.append({"name": name, "requestId": request_id, "at": now})
            return op

        return self._once(request_id, action)

    def delete(
        self,
        project: str,
        zone: str,
        queued_resource_id: str,
        *,
        force: bool,
        request_id: str | None,
    ) -> dict[str, Any]:
        def action(now: dt.datetime) -> Lro:
            found = self.queued.get((project, zone, queued_resource_id))
            if found is None:
                raise not_found(project, zone, queued_resource_id)
            if found.state == "DELETING":
                raise ServiceError(
                    400, f"Queued resource '{found.name}' is being deleted.", "FAILED_PRECONDITION"
                )
            if found.state in _HAS_NODES and not force:
                raise ServiceError(
                    400,
                    f"Queued resource '{found.name}' is {found.state} and has TPU nodes: delete "
                    "them first, or set force=true.",
                    "FAILED_PRECONDITION",
                )
            op = self._operation(project, zone, "delete", found.name, now)
            if self.fail_deletes:
                found.delete_fails = self.fail_deletes.pop(0)
                found.before_delete = copy.deepcopy(found.resource["state"])
            else:
                self._release(found)
            found.resource["state"] = {"state": "DELETING", "stateInitiator": "USER"}
            found.delete_at = now + dt.timedelta(seconds=self.settings.delete_seconds)
            found.delete_op = op
            return op

        return self._once(request_id, action)

    def get_operation(self, name: str) -> dict[str, Any]:
        op = self.operations.find(name)
        if op is None:
            raise ServiceError(404, f"Operation '{name}' not found", "NOT_FOUND")
        return self.operations.render(op)

    # ------------------------------------------------------------------ the clock
    def tick(self, now: dt.datetime) -> None:
        """Apply what happened by ``now``: accepted creates, expired queue windows, chips
        found, provisioning done, runs ended, deletes finished."""
        self.capacity.tick(now)
        with self.lock:
            for queued in sorted(self.queued.values(), key=lambda q: q.order):
                self._advance(queued, now)
            self._last_tick = max(self._last_tick, now)

    def _advance(self, q: Queued, now: dt.datetime) -> None:
        if q.state == "DELETING":
            if q.delete_at is not None and now >= q.delete_at and q.delete_fails is not None:
                q.resource["state"] = q.before_delete or {"state": "FAILED"}
                error = {"code": 13, "message": q.delete_fails}
                self.operations.finish(q.delete_op, error=error, endTime=_ts(now))
                q.delete_at = q.delete_fails = q.before_delete = None
            elif q.delete_at is not None and now >= q.delete_at:
                del self.queued[q.key]
                self.operations.finish(q.delete_op, endTime=_ts(now))
            return
        if q.state == "CREATING" and now >= q.accept_at:
            self._set(q, "WAITING_FOR_RESOURCES")
            self.operations.finish(
                q.create_op, resource=q.resource, resource_type="QueuedResource", endTime=_ts(now)
            )
            if q.fail_with is not None:
                self._fail(q, 13, q.fail_with)
        if q.state == "WAITING_FOR_RESOURCES":
            if q.valid_until is not None and now >= q.valid_until:
                self._fail(
                    q,
                    8,
                    "The queued resource request expired: no capacity was found before its "
                    "validUntil time.",
                )
            elif self.capacity.take(q.key[1], q.pool, q.chips):
                # found at the earliest moment this tick stands for (a long advance is
                # many short ones: provisioning then finishes within it)
                found_at = max(q.accept_at, self._last_tick)
                q.holds = True
                q.provisioned_at = found_at + dt.timedelta(seconds=self.settings.provision_seconds)
                self._set(q, "PROVISIONING")
        if q.state == "PROVISIONING" and q.provisioned_at is not None and now >= q.provisioned_at:
            self._set(q, "ACTIVE")
            if q.max_run is not None:
                q.run_ends = q.provisioned_at + dt.timedelta(seconds=q.max_run)
                q.resource.setdefault("runDuration", {})["terminationTime"] = _ts(q.run_ends)
        if q.state == "ACTIVE" and q.run_ends is not None and now >= q.run_ends:
            self._release(q)
            self._set(q, "SUSPENDED", initiator="SERVICE")

    @staticmethod
    def _set(q: Queued, state: str, initiator: str = "") -> None:
        value: dict[str, Any] = {"state": state}
        if initiator:
            value["stateInitiator"] = initiator
        q.resource["state"] = value

    def _fail(self, q: Queued, code: int, message: str) -> None:
        self._release(q)
        q.resource["state"] = {
            "state": "FAILED",
            "stateInitiator": "SERVICE",
            "failedData": {"error": {"code": code, "message": message}},
        }

    def _release(self, q: Queued) -> None:
        if q.holds:
            self.capacity.give_back(q.key[1], q.pool, q.chips)
            q.holds = False

    # ------------------------------------------------------------------ operations
    def _operation(self, project: str, zone: str, verb: str, target: str, now: dt.datetime) -> Lro:
        name = f"projects/{project}/locations/{zone}/operations/operation-{uuid.uuid4().hex[:20]}"
        return self.operations.start(
            name,
            "OperationMetadata",
            createTime=_ts(now),
            target=target,
            verb=verb,
            apiVersion="v2alpha1",
            cancelRequested=False,
        )

    def _once(self, request_id: str | None, action: Callable[[dt.datetime], Lro]) -> dict[str, Any]:
        """Carry out ``action(now)`` (it returns its operation) once per ``requestId`` (for
        ``request_id_ttl`` seconds); a repeat answers the first one's operation."""
        now = self.clock.now()
        with self.lock:
            self._request_ids.ttl = self.settings.request_id_ttl
            known = self._request_ids.known(request_id, now) if request_id else None
            if known is not None:
                return self.get_operation(known)
            name = action(now).name
            if request_id:
                self._request_ids.remember(request_id, name, now)
        self.tick(now)
        return self.get_operation(name)


class QueuedResourcesApi(Api):
    """``projects.locations.queuedResources``: the body checked against the discovery
    document, then the store."""

    resources: ClassVar[tuple[str, ...]] = ("projects.locations.queuedResources",)

    def __init__(self, store: QueuedResourceStore, schema: DiscoverySchema) -> None:
        self.store = store
        self.schema = schema

    def create(self, req: Request) -> Response:
        if not isinstance(req.body, dict):
            raise ServiceError(400, "Invalid JSON payload received: expected a QueuedResource.")
        self.schema.require(
            "QueuedResource", req.body, method="tpu.projects.locations.queuedResources.create"
        )
        p = req.params
        op = self.store.create(
            p["project"],
            p["location"],
            req.query.get("queuedResourceId") or req.query.get("queued_resource_id"),
            req.body,
            req.query.get("requestId") or req.query.get("request_id"),
        )
        return Response(200, op)

    def list(self, req: Request) -> Response:
        items = self.store.list(req.params["project"], req.params["location"])
        return Response(200, page(items, req.query, "queuedResources"))

    def get(self, req: Request) -> Response:
        p = req.params
        return Response(200, self.store.get(p["project"], p["location"], p["queuedResource"]))

    def delete(self, req: Request) -> Response:
        p = req.params
        force = str(req.query.get("force", "")).lower() == "true"
        op = self.store.delete(
            p["project"],
            p["location"],
            p["queuedResource"],
            force=force,
            request_id=req.query.get("requestId"),
        )
        return Response(200, op)
