"""The emulated Compute Engine's state and what time does to it: instances, their capacity
requests, run ends and passing states, operations, request ids and instance templates, all on
the virtual clock. No HTTP here: ``responses.py`` turns requests into calls of
:class:`ComputeBackend`, and tests call its helpers directly."""

from __future__ import annotations

import copy
import datetime as dt
import itertools
import threading
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .... import limits
from ..base import GoogleError, VirtualClock
from ..capacity import CapacityModel
from .common import COMPUTE_SELF_LINK_ROOT, Operation, last, not_found, timestamp
from .common import fingerprint as _fingerprint
from .models_mig import MigBackend

__all__ = ["COMPUTE_SELF_LINK_ROOT", "STOCKOUT_CODE", "ComputeBackend", "not_found"]

STOCKOUT_CODE = "ZONE_RESOURCE_POOL_EXHAUSTED"


def _check_fingerprint(given: str | None, current: str) -> None:
    if given != current:
        raise GoogleError(
            412,
            "Supplied fingerprint does not match current metadata fingerprint."
            if given
            else "Required field 'fingerprint' not specified: the request must carry the "
            "current fingerprint.",
            "conditionNotMet",
        )


@dataclass
class _Vm:
    """One emulated instance: its API resource plus what Google keeps internally."""

    key: tuple[str, str, str]
    machine_type: str
    resource: dict[str, Any]
    window: int | None  # queue window in seconds; None: fail fast
    order: int
    deadline: dt.datetime | None = None  # while waiting for capacity
    waiting_op: str | None = None  # the insert/start operation that finishes on placement
    waiting_kind: str = "insert"
    holds_capacity: bool = False
    run_ends: dt.datetime | None = None
    group: tuple[str, str, str] | None = None  # (project, scope, name) of its managed group

    @property
    def zone(self) -> str:
        return self.key[1]

    @property
    def status(self) -> str:
        return str(self.resource["status"])

    @property
    def target(self) -> str:
        project, zone, name = self.key
        return f"projects/{project}/zones/{zone}/instances/{name}"


def _require_status(vm: _Vm, status: str, verb: str) -> None:
    """Compute's 400 for an action the VM's status does not allow (``verb``: "suspended")."""
    if vm.status != status:
        raise GoogleError(
            400,
            f"The resource '{vm.target}' is not ready: only a {status} instance can be {verb} "
            f"(it is {vm.status}).",
            "resourceNotReady",
        )


@dataclass
class ComputeBackend(MigBackend):
    """Compute Engine's state, with Dynamic Workload Scheduler behaviour (see the package doc).

    Args:
        clock: the virtual clock everything happens on.
        capacity: free capacity per zone and machine type (shared with the advice methods).
        fail_fast_seconds: how long Compute keeps trying to place a VM that is not queued.
        keep_failed_instances: whether a VM whose request expired stays, ``TERMINATED``.
        request_id_ttl: how long a ``requestId`` is remembered (seconds).
    """

    clock: VirtualClock
    capacity: CapacityModel = None  # type: ignore[assignment]  # made in __post_init__
    fail_fast_seconds: int = 90
    keep_failed_instances: bool = False
    name: str = "compute"
    request_id_ttl: float = 3600.0
    inserted: list[tuple[str | None, str]] = field(default_factory=list)
    """Every VM really created: ``(requestId, instance selfLink)``."""
    created: list[dict[str, Any]] = field(default_factory=list)
    """Every VM really created: ``{"requestId", "selfLink", "id", "name", "at"}``."""

    def __post_init__(self) -> None:
        if self.capacity is None:
            self.capacity = CapacityModel(now=self.clock.now())
        self._now = self.clock.now()
        self._lock = threading.RLock()
        self._vms: dict[tuple[str, str, str], _Vm] = {}
        self._ops: dict[str, Operation] = {}
        self._request_ids: dict[tuple[str, str], tuple[str, dt.datetime]] = {}
        self._transitions: dict[tuple[str, str, str], tuple[str, dt.datetime]] = {}
        self._templates: dict[tuple[str, str], dict[str, Any]] = {}
        self._counter = itertools.count(1)
        self._init_migs()
        # Listen to the clock from construction on, so capacity arrivals are applied here, in
        # time order with window ends and run ends, before any other service's tick applies
        # them all at once (the server subscribes tick() again later; a second call is a no-op).
        self.clock.subscribe(self.tick)

    # ------------------------------------------------------------------ test helpers
    def add_capacity(
        self, zone: str, machine_type: str, count: int = 1, *, after: float = 0.0
    ) -> None:
        """``count`` VMs of ``machine_type`` become placeable in ``zone`` (``after`` seconds)."""
        self.capacity.add(zone, machine_type, count, after=after)
        if after <= 0:
            with self._lock:
                self._settle(self._now)

    def instance(self, project: str, zone: str, name: str) -> dict[str, Any] | None:
        """A copy of an instance as ``instances.get`` returns it, or None."""
        with self._lock:
            vm = self._vms.get((project, zone, name))
            return copy.deepcopy(vm.resource) if vm else None

    def instances(self, project: str | None = None) -> list[dict[str, Any]]:
        """Copies of every instance (of ``project``)."""
        with self._lock:
            return [
                copy.deepcopy(vm.resource)
                for key, vm in self._vms.items()
                if project is None or key[0] == project
            ]

    def operation(self, name: str) -> Operation:
        """A copy of an operation as ``zoneOperations.get`` returns it."""
        with self._lock:
            return copy.deepcopy(self._ops[name])

    def remove_instance(self, project: str, zone: str, name: str) -> None:
        """Delete a VM behind the API's back (as a user in the console would)."""
        with self._lock:
            self._drop(self._vms[(project, zone, name)])

    def set_status(self, project: str, zone: str, name: str, status: str) -> None:
        """Give a VM ``status`` now, as Compute would on its own (``STOPPING``,
        ``PENDING_STOP``, ``DEPROVISIONING``, ``SUSPENDED``...); a VM that comes to rest
        (``TERMINATED``, ``SUSPENDED``) gives its capacity back. It stays so until something
        changes it (see :meth:`transition` for a status that passes on its own)."""
        self.transition(project, zone, name, status)

    def transition(
        self,
        project: str,
        zone: str,
        name: str,
        status: str,
        *,
        then: str | None = None,
        after: float = 60.0,
    ) -> None:
        """Put a VM in ``status`` (e.g. ``STOPPING``, ``SUSPENDING``, ``PENDING_STOP``,
        ``SUSPENDED``) as Compute would on its own; with ``then``, it becomes that status
        ``after`` virtual seconds later (its capacity is given back when it stops)."""
        with self._lock:
            vm = self._vms.get((project, zone, name))
            if vm is None:
                raise not_found(f"projects/{project}/zones/{zone}/instances/{name}")
            if status in ("TERMINATED", "SUSPENDED"):
                self._release(vm)
                vm.resource.pop("resourceStatus", None)
            vm.resource["status"] = status
            if then is None:
                self._transitions.pop(vm.key, None)
            else:
                self._transitions[vm.key] = (then, self._now + dt.timedelta(seconds=after))

    def put_template(self, project: str, template: dict[str, Any]) -> str:
        """Store an instance template directly; returns its selfLink."""
        with self._lock:
            return self._store_template(project, template)

    # ------------------------------------------------------------------ the clock
    def tick(self, now: dt.datetime) -> None:
        """Apply, in time order, every arrival, placement, window end and run end up to now."""
        with self._lock:
            for _ in range(1_000_000):
                due = self._next_event(now)
                if due is None:
                    break
                moment = max(due, self._now)
                self.capacity.tick(moment)
                self._settle(moment)
            self.capacity.tick(now)
            self._settle(now)

    def _next_event(self, now: dt.datetime) -> dt.datetime | None:
        """The earliest pending event at or before ``now``."""
        times = [a.at for a in self.capacity.arrivals]
        times += [at for _, at in self._transitions.values()]
        for vm in self._vms.values():
            times += [t for t in (vm.deadline, vm.run_ends) if t is not None]
        times += self._mig_events()
        due = [t for t in times if t <= now]
        return min(due) if due else None

    def _settle(self, now: dt.datetime) -> None:
        """Run ends, then placements (oldest request first), then expired windows."""
        self._now = max(self._now, now)
        for key, (status, at) in list(self._transitions.items()):
            vm = self._vms.get(key)
            if vm is None:
                del self._transitions[key]
            elif at <= now:
                del self._transitions[key]
                if status in ("TERMINATED", "SUSPENDED"):
                    self._release(vm)
                    vm.resource.pop("resourceStatus", None)
                vm.resource["status"] = status
        for vm in list(self._vms.values()):
            if vm.run_ends is not None and vm.run_ends <= now and vm.status == "RUNNING":
                self._end_run(vm, vm.run_ends)
        for vm in sorted(self._vms.values(), key=lambda v: v.order):
            if vm.waiting_op and self.capacity.take(vm.zone, vm.machine_type):
                self._place(vm, now)
        for vm in list(self._vms.values()):
            if vm.waiting_op and vm.deadline is not None and vm.deadline <= now:
                self._expire(vm, now)
        self._settle_migs(now)

    def _new_vm(
        self, key: tuple[str, str, str], machine: str, resource: dict[str, Any], order: int
    ) -> _Vm:
        """A VM that does not wait for capacity (a group's), for the MIG models."""
        return _Vm(key, machine, resource, None, order)

    def _place(self, vm: _Vm, now: dt.datetime) -> None:
        vm.holds_capacity = True
        res = vm.resource
        res["status"] = "RUNNING"
        res["lastStartTimestamp"] = timestamp(now)
        for i, nic in enumerate(res.get("networkInterfaces") or []):
            for ac in nic.get("accessConfigs") or []:
                ac.setdefault("natIP", f"203.0.113.{(vm.order % 250) + 1}")
            nic.setdefault("networkIP", f"10.128.{i}.{(vm.order % 250) + 2}")
        seconds = int(((res.get("scheduling") or {}).get("maxRunDuration") or {}).get("seconds", 0))
        if seconds:
            vm.run_ends = now + dt.timedelta(seconds=seconds)
            res.setdefault("resourceStatus", {})["scheduling"] = {
                "terminationTimestamp": timestamp(vm.run_ends)
            }
        self._finish_op(vm.waiting_op, now)
        vm.waiting_op, vm.deadline = None, None

    def _expire(self, vm: _Vm, now: dt.datetime) -> None:
        kind, op = vm.waiting_kind, vm.waiting_op
        vm.waiting_op, vm.deadline = None, None
        what = (
            f"within the {vm.window}s queue window (requestValidForDuration)"
            if vm.window
            else "and the request was not queued (no requestValidForDuration)"
        )
        message = (
            f"The zone 'projects/{vm.key[0]}/zones/{vm.zone}' does not have enough resources "
            f"available to fulfill the request: no {vm.machine_type} capacity arrived {what}. "
            "Try a different zone, or try again later."
        )
        self._finish_op(op, now, error={"code": STOCKOUT_CODE, "message": message}, status=503)
        if kind == "insert" and not self.keep_failed_instances:
            del self._vms[vm.key]
            return
        vm.resource["status"] = "TERMINATED"
        vm.resource["lastStopTimestamp"] = timestamp(now)

    def _end_run(self, vm: _Vm, at: dt.datetime) -> None:
        action = (vm.resource.get("scheduling") or {}).get("instanceTerminationAction") or "STOP"
        if action == "DELETE" or vm.group is not None:  # a group's VMs are deleted at the end
            self._drop(vm)
            return
        self._release(vm)
        vm.resource["status"] = "TERMINATED"
        vm.resource["lastStopTimestamp"] = timestamp(at)
        vm.resource.pop("resourceStatus", None)

    def _drop(self, vm: _Vm) -> None:
        """``vm`` is gone: forget it, give back what it held, take it out of its group."""
        del self._vms[vm.key]
        self._release(vm)
        self._left_group(vm)

    def _release(self, vm: _Vm) -> None:
        """Give back capacity and cancel a pending request of ``vm``."""
        if vm.holds_capacity:
            self.capacity.give_back(vm.zone, vm.machine_type)
            vm.holds_capacity = False
        vm.run_ends = None
        if vm.waiting_op:
            error = {"code": "RESOURCE_OPERATION_CANCELLED", "message": "Request cancelled."}
            self._finish_op(vm.waiting_op, self._now, error=error, status=409)
            vm.waiting_op, vm.deadline = None, None

    # ------------------------------------------------------------------ operations
    def _new_op(
        self,
        project: str,
        zone: str | None,
        kind: str,
        target: str,
        *,
        done: bool = True,
        region: str | None = None,
    ) -> Operation:
        """A new operation in ``zone``, ``region`` or (neither) the project's global scope."""
        n = next(self._counter)
        name = f"operation-{int(self._now.timestamp() * 1000)}-{n:06d}"
        scope = f"projects/{project}/global"
        if zone:
            scope = f"projects/{project}/zones/{zone}"
        elif region:
            scope = f"projects/{project}/regions/{region}"
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
            "insertTime": timestamp(self._now),
            "startTime": timestamp(self._now),
            "selfLink": f"{COMPUTE_SELF_LINK_ROOT}{scope}/operations/{name}",
        }
        if zone:
            op["zone"] = f"{COMPUTE_SELF_LINK_ROOT}projects/{project}/zones/{zone}"
        elif region:
            op["region"] = f"{COMPUTE_SELF_LINK_ROOT}projects/{project}/regions/{region}"
        self._ops[name] = op
        if done:
            self._finish_op(name, self._now)
        return op

    def _finish_op(
        self,
        name: str | None,
        now: dt.datetime,
        *,
        error: dict[str, str] | None = None,
        status: int = 400,
    ) -> None:
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

    def once(
        self, project: str, request_id: str | None, action: Callable[[], Operation]
    ) -> Operation:
        """Carry out a mutation once per ``requestId`` (for :attr:`request_id_ttl` seconds);
        a repeat answers the first one's operation. Returns a copy of the operation."""
        with self._lock:
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
                known = self._request_ids.get((project, request_id))
                if known and (self._now - known[1]).total_seconds() < self.request_id_ttl:
                    return copy.deepcopy(self._ops[known[0]])
            op = action()
            if request_id:
                self._request_ids[(project, request_id)] = (op["name"], self._now)
            return copy.deepcopy(op)

    def get_operation(
        self, project: str, zone: str | None, name: str, *, region: str | None = None
    ) -> Operation:
        """An operation of the zone, of the region, or (neither) of the project's global
        scope."""
        with self._lock:
            op = self._ops.get(name)
            scope = f"projects/{project}/global/"
            if zone:
                scope = f"projects/{project}/zones/{zone}/"
            elif region:
                scope = f"projects/{project}/regions/{region}/"
            if op is None or scope not in op["selfLink"]:
                raise not_found(f"{scope}operations/{name}")
            return copy.deepcopy(op)

    # ------------------------------------------------------------------ instances
    def _vm(self, project: str, zone: str, name: str) -> _Vm:
        vm = self._vms.get((project, zone, name))
        if vm is None:
            raise not_found(f"projects/{project}/zones/{zone}/instances/{name}")
        return vm

    def get_instance(self, project: str, zone: str, name: str) -> dict[str, Any]:
        with self._lock:
            return copy.deepcopy(self._vm(project, zone, name).resource)

    def list_instances(self, project: str, zone: str) -> list[dict[str, Any]]:
        with self._lock:
            return [
                copy.deepcopy(vm.resource)
                for key, vm in self._vms.items()
                if key[0] == project and key[1] == zone
            ]

    def insert_instance(
        self,
        project: str,
        zone: str,
        body: dict[str, Any],
        *,
        template_url: str | None = None,
        request_id: str | None = None,
    ) -> Operation:
        """``instances.insert``: the VM is placed now, or waits for capacity (see the
        package doc); the operation finishes when it is placed or its wait ends."""

        def action() -> Operation:
            merged = self._with_template(project, template_url, body)
            return self._create(project, zone, merged, request_id)

        return self.once(project, request_id, action)

    def _with_template(
        self, project: str, template_url: str | None, body: dict[str, Any]
    ) -> dict[str, Any]:
        if not template_url:
            return copy.deepcopy(body)
        tpl_project = (
            template_url.split("projects/", 1)[1].split("/")[0]
            if ("projects/" in template_url)
            else project
        )
        template = self._templates.get((tpl_project, last(template_url)))
        if template is None:
            raise not_found(f"projects/{tpl_project}/global/instanceTemplates/{last(template_url)}")
        merged = copy.deepcopy(template.get("properties") or {})
        for key, value in copy.deepcopy(body).items():
            if isinstance(value, dict) and isinstance(merged.get(key), dict):
                merged[key].update(value)
            else:
                merged[key] = value
        return merged

    def _create(
        self, project: str, zone: str, body: dict[str, Any], request_id: str | None
    ) -> Operation:
        name = body["name"]
        machine_url = body.get("machineType")
        if not machine_url:
            raise GoogleError(400, "Invalid value for field 'resource.machineType': ''.", "invalid")
        if "zones/" in machine_url and f"zones/{zone}/" not in machine_url:
            raise GoogleError(
                400,
                f"Invalid value for field 'resource.machineType': '{machine_url}'. "
                f"Machine type must be in zone {zone}.",
                "invalid",
            )
        window = self._check_flex_start(body)
        key = (project, zone, name)
        target = f"projects/{project}/zones/{zone}/instances/{name}"
        if key in self._vms:
            raise GoogleError(409, f"The resource '{target}' already exists", "alreadyExists")
        order = next(self._counter)
        resource = self._resource(project, zone, body, order)
        vm = _Vm(key, last(machine_url), resource, window, order)
        self._vms[key] = vm
        self.inserted.append((request_id, resource["selfLink"]))
        self.created.append(
            {
                "requestId": request_id,
                "selfLink": resource["selfLink"],
                "id": resource["id"],
                "name": name,
                "at": self._now,
            }
        )
        op = self._new_op(project, zone, "insert", target, done=False)
        op["targetId"] = resource["id"]
        self._request_capacity(vm, op["name"], "insert")
        return op

    def _check_flex_start(self, body: dict[str, Any]) -> int | None:
        """Google's rules for Flex-start bodies; returns the queue window in seconds."""
        scheduling = body.get("scheduling") or {}
        window_spec = ((body.get("params") or {}).get("requestValidForDuration")) or None
        flex = scheduling.get("provisioningModel") == "FLEX_START"
        if window_spec is not None and not flex:
            raise GoogleError(
                400,
                "Invalid value for field 'resource.params.requestValidForDuration': "
                "it is only supported with provisioningModel FLEX_START.",
                "invalid",
            )
        if not flex:
            return None
        run = scheduling.get("maxRunDuration")
        if not run:
            raise GoogleError(
                400, "FLEX_START instances require scheduling.maxRunDuration.", "invalid"
            )
        rules = [
            ("onHostMaintenance", scheduling.get("onHostMaintenance") != "TERMINATE", "TERMINATE"),
            ("automaticRestart", scheduling.get("automaticRestart") is True, "false"),
        ]
        for field_name, bad, wanted in rules:
            if bad:
                raise GoogleError(
                    400,
                    f"Invalid value for field 'resource.scheduling.{field_name}': FLEX_START "
                    f"instances require {field_name} {wanted}.",
                    "invalid",
                )
        self._check_limit("scheduling.maxRunDuration", run, "flex_start.max_run_duration")
        if window_spec is None:
            return None
        return self._check_limit(
            "params.requestValidForDuration", window_spec, "flex_start.request_valid_for"
        )

    @staticmethod
    def _check_limit(field_name: str, duration: dict[str, Any], key: str) -> int:
        seconds = int(duration.get("seconds", 0))
        row = limits.get(key)
        if (row.minimum is not None and seconds < row.minimum) or (
            row.maximum is not None and seconds > row.maximum
        ):
            raise GoogleError(
                400,
                f"Invalid value for field 'resource.{field_name}': {seconds}s. "
                f"Allowed: {row.allowed()}.",
                "invalid",
            )
        return seconds

    def _resource(
        self, project: str, zone: str, body: dict[str, Any], order: int
    ) -> dict[str, Any]:
        res = {k: v for k, v in body.items() if k != "params"}
        target = f"projects/{project}/zones/{zone}/instances/{body['name']}"
        labels = res.get("labels") or {}
        metadata = res.get("metadata") or {}
        res.update(
            kind="compute#instance",
            id=str(4_000_000_000 + order),
            zone=f"{COMPUTE_SELF_LINK_ROOT}projects/{project}/zones/{zone}",
            selfLink=COMPUTE_SELF_LINK_ROOT + target,
            creationTimestamp=timestamp(self._now),
            labelFingerprint=_fingerprint(labels),
            metadata={
                "kind": "compute#metadata",
                "items": metadata.get("items") or [],
                "fingerprint": _fingerprint(metadata.get("items") or []),
            },
        )
        machine = res["machineType"]
        if not machine.startswith("http"):
            res["machineType"] = (
                f"{COMPUTE_SELF_LINK_ROOT}projects/{project}/zones/{zone}/machineTypes/"
                f"{last(machine)}"
            )
        if labels:
            res["labels"] = labels
        return res

    def _request_capacity(self, vm: _Vm, op_name: str, kind: str) -> None:
        """Place ``vm`` now, or make it wait (queued or fail-fast) with ``op_name`` open."""
        vm.waiting_op, vm.waiting_kind = op_name, kind
        if self.capacity.take(vm.zone, vm.machine_type):
            self._place(vm, self._now)
            return
        wait = vm.window if vm.window else self.fail_fast_seconds
        vm.deadline = self._now + dt.timedelta(seconds=wait)
        vm.resource["status"] = "PENDING" if vm.window else "PROVISIONING"

    def delete_instance(
        self, project: str, zone: str, name: str, *, request_id: str | None = None
    ) -> Operation:
        def action() -> Operation:
            vm = self._vm(project, zone, name)
            self._drop(vm)
            return self._new_op(project, zone, "delete", vm.target)

        return self.once(project, request_id, action)

    def stop_instance(
        self, project: str, zone: str, name: str, *, request_id: str | None = None
    ) -> Operation:
        def action() -> Operation:
            vm = self._vm(project, zone, name)
            if vm.status != "TERMINATED":
                self._release(vm)
                vm.resource["status"] = "TERMINATED"
                vm.resource["lastStopTimestamp"] = timestamp(self._now)
                vm.resource.pop("resourceStatus", None)
            return self._new_op(project, zone, "stop", vm.target)

        return self.once(project, request_id, action)

    def start_instance(
        self, project: str, zone: str, name: str, *, request_id: str | None = None
    ) -> Operation:
        def action() -> Operation:
            vm = self._vm(project, zone, name)
            if vm.status != "TERMINATED" or vm.waiting_op:
                return self._new_op(project, zone, "start", vm.target)
            op = self._new_op(project, zone, "start", vm.target, done=False)
            self._request_capacity(vm, op["name"], "start")
            return op

        return self.once(project, request_id, action)

    def suspend_instance(
        self, project: str, zone: str, name: str, *, request_id: str | None = None
    ) -> Operation:
        def action() -> Operation:
            vm = self._vm(project, zone, name)
            _require_status(vm, "RUNNING", "suspended")
            self._release(vm)
            vm.resource["status"] = "SUSPENDED"
            vm.resource.pop("resourceStatus", None)
            return self._new_op(project, zone, "suspend", vm.target)

        return self.once(project, request_id, action)

    def resume_instance(
        self, project: str, zone: str, name: str, *, request_id: str | None = None
    ) -> Operation:
        def action() -> Operation:
            vm = self._vm(project, zone, name)
            _require_status(vm, "SUSPENDED", "resumed")
            vm.resource["status"] = "TERMINATED"  # a resume asks for capacity like a start
            op = self._new_op(project, zone, "resume", vm.target, done=False)
            self._request_capacity(vm, op["name"], "start")
            return op

        return self.once(project, request_id, action)

    def set_labels(
        self,
        project: str,
        zone: str,
        name: str,
        body: dict[str, Any],
        *,
        request_id: str | None = None,
    ) -> Operation:
        def action() -> Operation:
            vm = self._vm(project, zone, name)
            _check_fingerprint(body.get("labelFingerprint"), vm.resource["labelFingerprint"])
            labels = dict(body.get("labels") or {})
            if labels:
                vm.resource["labels"] = labels
            else:
                vm.resource.pop("labels", None)
            vm.resource["labelFingerprint"] = _fingerprint(labels)
            return self._new_op(project, zone, "setLabels", vm.target)

        return self.once(project, request_id, action)

    def set_metadata(
        self,
        project: str,
        zone: str,
        name: str,
        body: dict[str, Any],
        *,
        request_id: str | None = None,
    ) -> Operation:
        def action() -> Operation:
            vm = self._vm(project, zone, name)
            meta = vm.resource["metadata"]
            _check_fingerprint(body.get("fingerprint"), meta["fingerprint"])
            items = list(body.get("items") or [])
            meta.update(items=items, fingerprint=_fingerprint(items))
            return self._new_op(project, zone, "setMetadata", vm.target)

        return self.once(project, request_id, action)

    def set_machine_type(
        self,
        project: str,
        zone: str,
        name: str,
        machine_url: str,
        *,
        request_id: str | None = None,
    ) -> Operation:
        def action() -> Operation:
            vm = self._vm(project, zone, name)
            if not machine_url:
                raise GoogleError(
                    400, "Invalid value for field 'resource.machineType': ''.", "invalid"
                )
            if vm.status != "TERMINATED":
                raise GoogleError(
                    400,
                    f"The resource '{vm.target}' is not ready: stop the instance before "
                    "changing its machine type.",
                    "resourceNotReady",
                )
            vm.machine_type = last(machine_url)
            vm.resource["machineType"] = (
                f"{COMPUTE_SELF_LINK_ROOT}projects/{project}/zones/{zone}/machineTypes/"
                f"{vm.machine_type}"
            )
            return self._new_op(project, zone, "setMachineType", vm.target)

        return self.once(project, request_id, action)

    # ------------------------------------------------------------------ instance templates
    def _store_template(self, project: str, body: dict[str, Any]) -> str:
        name = body.get("name")
        if not name:
            raise GoogleError(400, "Required field 'resource.name' not specified", "required")
        if (project, name) in self._templates:
            raise GoogleError(
                409,
                f"The resource 'projects/{project}/global/instanceTemplates/{name}' already exists",
                "alreadyExists",
            )
        link = f"{COMPUTE_SELF_LINK_ROOT}projects/{project}/global/instanceTemplates/{name}"
        stored = copy.deepcopy(body)
        stored.update(
            kind="compute#instanceTemplate",
            id=str(6_000_000_000 + next(self._counter)),
            selfLink=link,
            creationTimestamp=timestamp(self._now),
        )
        self._templates[(project, name)] = stored
        return link

    def insert_template(
        self, project: str, body: dict[str, Any], *, request_id: str | None = None
    ) -> Operation:
        def action() -> Operation:
            link = self._store_template(project, body)
            return self._new_op(project, None, "insert", link[len(COMPUTE_SELF_LINK_ROOT) :])

        return self.once(project, request_id, action)

    def _template(self, project: str, name: str) -> dict[str, Any]:
        template = self._templates.get((project, name))
        if template is None:
            raise not_found(f"projects/{project}/global/instanceTemplates/{name}")
        return template

    def get_template(self, project: str, name: str) -> dict[str, Any]:
        with self._lock:
            return copy.deepcopy(self._template(project, name))

    def delete_template(
        self, project: str, name: str, *, request_id: str | None = None
    ) -> Operation:
        def action() -> Operation:
            self._template(project, name)
            del self._templates[(project, name)]
            target = f"projects/{project}/global/instanceTemplates/{name}"
            return self._new_op(project, None, "delete", target)

        return self.once(project, request_id, action)
