"""The emulated Cloud TPU API's state and what time does to it: queued resources, the TPU chips
free per zone and version, operations and request ids, all on the virtual clock. No HTTP here:
``responses.py`` turns requests into calls of :class:`TpuBackend`; tests call its controls."""

from __future__ import annotations

import copy
import datetime as dt
import itertools
import re
import threading
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .... import catalog
from ....duration import Duration
from ....errors import DwsValidationError
from ..base import ServiceError, VirtualClock
from ..capacity import CapacityModel

__all__ = ["TpuBackend", "QUEUED_RESOURCE_ID", "FLEX_START_MAX_RUN"]

QUEUED_RESOURCE_ID = re.compile(r"[A-Za-z0-9_.~+%-]+")
"""``queuedResourceId`` as the discovery document describes it (always fullmatch)."""
FLEX_START_MAX_RUN = 7 * 86400
"""Flex-start runs up to 7 days (https://docs.cloud.google.com/tpu/docs/request-using-flex-start)."""
_HAS_NODES = frozenset({"CREATING", "PROVISIONING", "ACTIVE", "SUSPENDING"})
_TIERS = ("spot", "guaranteed", "bestEffort")


def _ts(moment: dt.datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _invalid(path: str, description: str) -> ServiceError:
    return ServiceError(400, f"{path}: {description}", violations=[(path, description)])


@dataclass
class _Queued:
    """One queued resource: its API form plus what the service keeps to itself."""

    key: tuple[str, str, str]
    resource: dict[str, Any]
    pool: str  # the TPU version whose chips it takes (v6e, v5e, v5p)
    chips: int
    order: int
    accept_at: dt.datetime
    create_op: str
    valid_until: dt.datetime | None = None
    max_run: int | None = None
    provisioned_at: dt.datetime | None = None
    run_ends: dt.datetime | None = None
    holds: bool = False
    delete_at: dt.datetime | None = None
    delete_op: str | None = None
    fail_with: str | None = None
    delete_fails: str | None = None
    before_delete: dict[str, Any] | None = None

    @property
    def state(self) -> str:
        return str(self.resource["state"]["state"])

    @property
    def name(self) -> str:
        return str(self.resource["name"])


@dataclass
class TpuBackend:
    """Cloud TPU queued resources with DWS behaviour (see the package docstring).

    Args:
        clock: the virtual clock everything happens on.
        capacity: free TPU chips per zone and version (``capacity.add(zone, "v6e", 16)``).
        accept_seconds: how long a create's operation runs (``CREATING``).
        provision_seconds: ``PROVISIONING`` time once capacity is found.
        delete_seconds: ``DELETING`` time.
        request_id_ttl: how long a ``requestId`` is remembered (seconds).
    """

    clock: VirtualClock
    capacity: CapacityModel = None  # type: ignore[assignment]  # made in __post_init__
    accept_seconds: float = 10.0
    provision_seconds: float = 120.0
    delete_seconds: float = 60.0
    request_id_ttl: float = 3600.0
    name: str = "tpu"
    created: list[dict[str, Any]] = field(default_factory=list)
    """Every queued resource really created: ``{"name", "requestId", "at"}``."""

    def __post_init__(self) -> None:
        if self.capacity is None:
            self.capacity = CapacityModel(now=self.clock.now())
        self._lock = threading.RLock()
        self._queued: dict[tuple[str, str, str], _Queued] = {}
        self._ops: dict[str, dict[str, Any]] = {}
        self._request_ids: dict[str, tuple[str, dt.datetime]] = {}
        self._order = itertools.count()
        self._fail_next: list[str] = []
        self._fail_deletes: list[str] = []
        self.lost: dict[str, int] = {}
        self._last_tick = self.clock.now()
        self.clock.subscribe(self.tick)

    # ------------------------------------------------------------------ test controls
    def add_chips(self, zone: str, version: str, chips: int, *, after: float = 0.0) -> None:
        """Make ``chips`` TPU chips of ``version`` (``v6e``) free in ``zone``, now or ``after``
        virtual seconds from now."""
        self.capacity.add(zone, version, chips, after=after)
        self.tick(self.clock.now())

    def take_all_chips(self, zone: str, version: str) -> None:
        """Make every free chip of ``version`` in ``zone`` unavailable (a stock-out)."""
        while self.capacity.take(zone, version):
            pass

    def fail_next(self, message: str = "Internal error while provisioning TPU nodes.") -> None:
        """Make the next created request go ``FAILED`` (with ``message``) when accepted."""
        with self._lock:
            self._fail_next.append(message)

    def fail_next_delete(self, message: str = "Internal error while deleting.") -> None:
        """Make the next delete's operation end with an error (``13``, ``message``): the
        request goes back to the state it had, and stays."""
        with self._lock:
            self._fail_deletes.append(message)

    def lose_answers(self, method: str, count: int = 1) -> None:
        """Carry out the next ``count`` ``method`` requests (``POST``, ``DELETE``...) but
        answer each with ``503 UNAVAILABLE``."""
        with self._lock:
            self.lost[method] = self.lost.get(method, 0) + count

    def answering(self, method: str) -> bool:
        """False when this request's answer is to be lost (see :meth:`lose_answers`)."""
        with self._lock:
            if self.lost.get(method, 0) > 0:
                self.lost[method] -= 1
                return False
            return True

    def remove(self, project: str, zone: str, queued_resource_id: str) -> None:
        """Delete a queued resource outside Pulumi, at once (its chips are freed)."""
        with self._lock:
            found = self._queued.pop((project, zone, queued_resource_id), None)
            if found is not None and found.holds:
                self.capacity.give_back(zone, found.pool, found.chips)

    def queued_resource(
        self, project: str, zone: str, queued_resource_id: str
    ) -> dict[str, Any] | None:
        """A copy of a stored queued resource, as GET returns it, or None."""
        with self._lock:
            found = self._queued.get((project, zone, queued_resource_id))
            return copy.deepcopy(found.resource) if found else None

    def queued_resources(self) -> list[tuple[str, str, str]]:
        """The keys ``(project, zone, id)`` of every stored queued resource."""
        with self._lock:
            return list(self._queued)

    # ------------------------------------------------------------------ API methods
    def create(
        self,
        project: str,
        zone: str,
        queued_resource_id: str | None,
        body: Mapping[str, Any],
        request_id: str | None,
    ) -> dict[str, Any]:
        def action(now: dt.datetime) -> str:
            if not queued_resource_id or not QUEUED_RESOURCE_ID.fullmatch(queued_resource_id):
                raise _invalid(
                    "queued_resource_id",
                    f"{queued_resource_id!r} should follow the ^[A-Za-z0-9_.~+%-]+$ regex",
                )
            key = (project, zone, queued_resource_id)
            pool, chips = self._check(project, zone, body)
            name = f"projects/{project}/locations/{zone}/queuedResources/{queued_resource_id}"
            if key in self._queued:
                raise ServiceError(409, f"Resource '{name}' already exists", "ALREADY_EXISTS")
            resource = copy.deepcopy(dict(body))
            resource.update(name=name, createTime=_ts(now), state={"state": "CREATING"})
            op = self._operation(project, zone, "create", name, now)
            queued = _Queued(
                key,
                resource,
                pool,
                chips,
                next(self._order),
                accept_at=now + dt.timedelta(seconds=self.accept_seconds),
                create_op=op["name"],
                max_run=_seconds((body.get("runDuration") or {}).get("maxRunDuration")),
                fail_with=self._fail_next.pop(0) if self._fail_next else None,
            )
            window = _seconds((body.get("queueingPolicy") or {}).get("validUntilDuration"))
            if window is not None:
                queued.valid_until = now + dt.timedelta(seconds=window)
            self._queued[key] = queued
            self.created.append({"name": name, "requestId": request_id, "at": now})
            return str(op["name"])

        return self._once(request_id, action)

    def get(self, project: str, zone: str, queued_resource_id: str) -> dict[str, Any]:
        found = self.queued_resource(project, zone, queued_resource_id)
        if found is None:
            raise _not_found(project, zone, queued_resource_id)
        return found

    def list(self, project: str, zone: str) -> list[dict[str, Any]]:
        with self._lock:
            items = sorted(
                (q for q in self._queued.values() if q.key[:2] == (project, zone)),
                key=lambda q: q.order,
            )
            return [copy.deepcopy(q.resource) for q in items]

    def delete(
        self,
        project: str,
        zone: str,
        queued_resource_id: str,
        *,
        force: bool,
        request_id: str | None,
    ) -> dict[str, Any]:
        def action(now: dt.datetime) -> str:
            found = self._queued.get((project, zone, queued_resource_id))
            if found is None:
                raise _not_found(project, zone, queued_resource_id)
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
            if self._fail_deletes:
                found.delete_fails = self._fail_deletes.pop(0)
                found.before_delete = copy.deepcopy(found.resource["state"])
            else:
                self._release(found)
            found.resource["state"] = {"state": "DELETING", "stateInitiator": "USER"}
            found.delete_at = now + dt.timedelta(seconds=self.delete_seconds)
            found.delete_op = op["name"]
            return str(op["name"])

        return self._once(request_id, action)

    def get_operation(self, name: str) -> dict[str, Any]:
        with self._lock:
            op = self._ops.get(name)
            if op is None:
                raise ServiceError(404, f"Operation '{name}' not found", "NOT_FOUND")
            return copy.deepcopy(op)

    # ------------------------------------------------------------------ the clock
    def tick(self, now: dt.datetime) -> None:
        """Apply what happened by ``now``: accepted creates, expired queue windows, chips
        found, provisioning done, runs ended, deletes finished."""
        self.capacity.tick(now)
        with self._lock:
            for queued in sorted(self._queued.values(), key=lambda q: q.order):
                self._advance(queued, now)
            self._last_tick = max(self._last_tick, now)

    def _advance(self, q: _Queued, now: dt.datetime) -> None:
        if q.state == "DELETING":
            if q.delete_at is not None and now >= q.delete_at and q.delete_fails is not None:
                q.resource["state"] = q.before_delete or {"state": "FAILED"}
                self._finish(q.delete_op, {}, now, error={"code": 13, "message": q.delete_fails})
                q.delete_at = q.delete_fails = q.before_delete = None
            elif q.delete_at is not None and now >= q.delete_at:
                del self._queued[q.key]
                self._finish(
                    q.delete_op, {"@type": "type.googleapis.com/google.protobuf.Empty"}, now
                )
            return
        if q.state == "CREATING" and now >= q.accept_at:
            self._set(q, "WAITING_FOR_RESOURCES")
            response = {
                "@type": "type.googleapis.com/google.cloud.tpu.v2alpha1.QueuedResource",
                **q.resource,
            }
            self._finish(q.create_op, response, now)
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
                q.provisioned_at = found_at + dt.timedelta(seconds=self.provision_seconds)
                self._set(q, "PROVISIONING")
        if q.state == "PROVISIONING" and q.provisioned_at is not None and now >= q.provisioned_at:
            self._set(q, "ACTIVE")
            if q.max_run is not None:
                q.run_ends = q.provisioned_at + dt.timedelta(seconds=q.max_run)
                q.resource.setdefault("runDuration", {})["terminationTime"] = _ts(q.run_ends)
        if q.state == "ACTIVE" and q.run_ends is not None and now >= q.run_ends:
            self._release(q)
            self._set(q, "SUSPENDED", initiator="SERVICE")

    def _set(self, q: _Queued, state: str, initiator: str = "") -> None:
        value: dict[str, Any] = {"state": state}
        if initiator:
            value["stateInitiator"] = initiator
        q.resource["state"] = value

    def _fail(self, q: _Queued, code: int, message: str) -> None:
        self._release(q)
        q.resource["state"] = {
            "state": "FAILED",
            "stateInitiator": "SERVICE",
            "failedData": {"error": {"code": code, "message": message}},
        }

    def _release(self, q: _Queued) -> None:
        if q.holds:
            self.capacity.give_back(q.key[1], q.pool, q.chips)
            q.holds = False

    # ------------------------------------------------------------------ helpers
    def _operation(
        self, project: str, zone: str, verb: str, target: str, now: dt.datetime
    ) -> dict[str, Any]:
        name = f"projects/{project}/locations/{zone}/operations/operation-{uuid.uuid4().hex[:20]}"
        op = {
            "name": name,
            "metadata": {
                "@type": "type.googleapis.com/google.cloud.tpu.v2alpha1.OperationMetadata",
                "createTime": _ts(now),
                "target": target,
                "verb": verb,
                "apiVersion": "v2alpha1",
                "cancelRequested": False,
            },
            "done": False,
        }
        self._ops[name] = op
        return op

    def _finish(
        self,
        op_name: str | None,
        response: dict[str, Any],
        now: dt.datetime,
        error: dict[str, Any] | None = None,
    ) -> None:
        op = self._ops.get(op_name or "")
        if op is not None and not op["done"]:
            op["done"] = True
            op["metadata"]["endTime"] = _ts(now)
            if error is not None:
                op["error"] = error
            else:
                op["response"] = copy.deepcopy(response)

    def _once(self, request_id: str | None, action: Callable[[dt.datetime], str]) -> dict[str, Any]:
        """Carry out ``action(now)`` (it returns its operation's name) once per ``requestId``
        (for :attr:`request_id_ttl` seconds); a repeat answers the first one's operation."""
        now = self.clock.now()
        with self._lock:
            repeated = self._repeated(request_id, now)
            if repeated is not None:
                return repeated
            name = action(now)
            if request_id:
                self._request_ids[request_id] = (name, now)
        self.tick(now)
        return self.get_operation(name)

    def _repeated(self, request_id: str | None, now: dt.datetime) -> dict[str, Any] | None:
        """The operation a request id still remembered answered (a repeat does nothing
        twice); ids older than ``request_id_ttl`` are forgotten first."""
        horizon = now - dt.timedelta(seconds=self.request_id_ttl)
        for rid in [r for r, (_, at) in self._request_ids.items() if at < horizon]:
            del self._request_ids[rid]
        if request_id and request_id in self._request_ids:
            return copy.deepcopy(self._ops[self._request_ids[request_id][0]])
        return None

    def _check(self, project: str, zone: str, body: Mapping[str, Any]) -> tuple[str, int]:
        """Cloud TPU's own rules for a create (beyond the schema): the TPU version and chips
        it asks for."""
        specs = (body.get("tpu") or {}).get("nodeSpec") or []
        if len(specs) != 1:
            raise _invalid("tpu.node_spec", "exactly one node spec is supported")
        spec = specs[0]
        if spec.get("parent") != f"projects/{project}/locations/{zone}":
            raise _invalid(
                "tpu.node_spec[0].parent",
                f"must be projects/{project}/locations/{zone}, got {spec.get('parent')!r}",
            )
        multi = spec.get("multiNodeParams")
        if spec.get("nodeId") and multi:
            raise _invalid(
                "tpu.node_spec[0]", "It's an error to specify both node_id and multi_node_params"
            )
        if not spec.get("nodeId") and not multi:
            raise _invalid("tpu.node_spec[0].node_id", "node_id or multi_node_params is required")
        count = int((multi or {}).get("nodeCount") or 1)
        if multi and count <= 1:
            raise _invalid(
                "tpu.node_spec[0].multi_node_params.node_count", "must be greater than 1"
            )
        node = spec.get("node") or {}
        if not node.get("runtimeVersion"):
            raise _invalid("tpu.node_spec[0].node.runtime_version", "is required")
        if node.get("networkConfig") and node.get("networkConfigs"):
            raise _invalid(
                "tpu.node_spec[0].node", "network_config and network_configs are mutually exclusive"
            )
        try:
            tpu = catalog.cloud_tpu_slice("acceleratorType", node.get("acceleratorType") or "")
        except DwsValidationError as err:
            raise _invalid("tpu.node_spec[0].node.accelerator_type", err.problem) from None
        model = body.get("provisioningModel") or "STANDARD"
        run = body.get("runDuration")
        if model == "FLEX_START":
            seconds = _seconds((run or {}).get("maxRunDuration"))
            if seconds is None:
                raise _invalid("run_duration.max_run_duration", "is required for FLEX_START")
            if seconds > FLEX_START_MAX_RUN:
                raise _invalid(
                    "run_duration.max_run_duration", "Flex-start runs for at most 7 days"
                )
        elif run:
            raise _invalid("run_duration", f"only applies to FLEX_START, not {model}")
        if model == "RESERVATION_BOUND" and not body.get("reservationName"):
            raise _invalid("reservation_name", "is required for RESERVATION_BOUND")
        if sum(1 for tier in _TIERS if tier in body) > 1:
            raise _invalid("tier", "spot, guaranteed and best_effort are mutually exclusive")
        return tpu.generation.name, tpu.chips * count


def _seconds(value: Any) -> int | None:
    if value is None:
        return None
    return Duration.parse(value, "duration").seconds


def _not_found(project: str, zone: str, queued_resource_id: str) -> ServiceError:
    name = f"projects/{project}/locations/{zone}/queuedResources/{queued_resource_id}"
    return ServiceError(404, f"Resource '{name}' was not found", "NOT_FOUND")
