"""Compute instances, with Dynamic Workload Scheduler behaviour, on the virtual clock: their
capacity requests (queued for ``params.requestValidForDuration``, or failing fast), run ends,
passing states, stop/start/suspend/resume, labels, metadata and machine type.

The VMs a managed instance group creates are instances too (``instances.get``/``list`` see
them): :meth:`InstanceStore.add_group_vm` makes one, placed on capacity its group took.
"""

from __future__ import annotations

import copy
import datetime as dt
import itertools
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

from ..base import GoogleError, Request, Response
from ..discovery import DiscoverySchema
from ..routing import Api
from ..store import earliest
from .common import (
    COMPUTE_SELF_LINK_ROOT,
    Operation,
    fingerprint,
    last,
    not_found,
    timestamp,
)
from .instance_rules import INSERT_RULES, NewInstance, duration_seconds
from .operations import ComputeStore, Shared, request_id
from .templates import TemplateStore

__all__ = ["STOCKOUT_CODE", "InstanceStore", "InstancesApi", "Vm", "VmKey"]

STOCKOUT_CODE = "ZONE_RESOURCE_POOL_EXHAUSTED"
VmKey = tuple[str, str, str]
"""``(project, zone, name)``."""


@dataclass
class Vm:
    """One emulated instance: its API resource plus what Google keeps internally."""

    key: VmKey
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
    made_by: tuple[tuple[str, str, str], str] | None = None  # (group, resize request) that made it
    extra: dict[str, Any] = field(default_factory=dict)

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


def _require_status(vm: Vm, status: str, verb: str) -> None:
    """Compute's 400 for an action the VM's status does not allow (``verb``: "suspended")."""
    if vm.status != status:
        raise GoogleError(
            400,
            f"The resource '{vm.target}' is not ready: only a {status} instance can be {verb} "
            f"(it is {vm.status}).",
            "resourceNotReady",
        )


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


class InstanceStore(ComputeStore):
    """Every instance, its capacity request and its clock (see the module doc)."""

    def __init__(self, shared: Shared, templates: TemplateStore) -> None:
        super().__init__(shared)
        self.templates = templates
        self.vms: dict[VmKey, Vm] = {}
        self._transitions: dict[VmKey, tuple[str, dt.datetime]] = {}
        self._counter = itertools.count(1)
        self.inserted: list[tuple[str | None, str]] = []
        """Every VM really created by ``insert``: ``(requestId, instance selfLink)``."""
        self.created: list[dict[str, Any]] = []
        """Every VM really created: ``{"requestId", "selfLink", "id", "name", "at"}`` (and
        ``"group"`` for a group's)."""

    # ------------------------------------------------------------------ reading
    def found(self, project: str, zone: str, name: str) -> Vm:
        vm = self.vms.get((project, zone, name))
        if vm is None:
            raise not_found(f"projects/{project}/zones/{zone}/instances/{name}")
        return vm

    def resources(
        self, project: str | None = None, zone: str | None = None
    ) -> list[dict[str, Any]]:
        """Copies of the instances (of ``project``, of ``zone``), as ``get`` returns them."""
        with self.lock:
            return [
                copy.deepcopy(vm.resource)
                for key, vm in self.vms.items()
                if project in (None, key[0]) and zone in (None, key[1])
            ]

    def of_group(self, group: tuple[str, str, str]) -> list[Vm]:
        """The VMs of a managed group, oldest first."""
        return sorted((vm for vm in self.vms.values() if vm.group == group), key=lambda v: v.order)

    def made_by(self, group: tuple[str, str, str], request: str) -> list[Vm]:
        """The VMs a group's resize request made that still exist."""
        return [vm for vm in self.vms.values() if vm.made_by == (group, request)]

    # ------------------------------------------------------------------ the clock
    def next_event(self) -> dt.datetime | None:
        times = [at for _, at in self._transitions.values()]
        for vm in self.vms.values():
            times += [t for t in (vm.deadline, vm.run_ends) if t is not None]
        return earliest(times)

    def tick(self, now: dt.datetime) -> None:
        """Passing states settle, then runs end, then placements (oldest request first),
        then expired queue windows."""
        with self.lock:
            self.moment.move(now)
            for key, (status, at) in list(self._transitions.items()):
                vm = self.vms.get(key)
                if vm is None:
                    del self._transitions[key]
                elif at <= now:
                    del self._transitions[key]
                    if status in ("TERMINATED", "SUSPENDED"):
                        self.release(vm)
                        vm.resource.pop("resourceStatus", None)
                    vm.resource["status"] = status
            for vm in list(self.vms.values()):
                if vm.run_ends is not None and vm.run_ends <= now and vm.status == "RUNNING":
                    self._end_run(vm, vm.run_ends)
            for vm in sorted(self.vms.values(), key=lambda v: v.order):
                if vm.waiting_op and self.capacity.take(vm.zone, vm.machine_type):
                    self.place(vm, now)
            for vm in list(self.vms.values()):
                if vm.waiting_op and vm.deadline is not None and vm.deadline <= now:
                    self._expire(vm, now)

    def place(self, vm: Vm, now: dt.datetime) -> None:
        """``vm`` got its capacity: it runs, its run clock starts, its operation is done."""
        vm.holds_capacity = True
        res = vm.resource
        res["status"] = "RUNNING"
        res["lastStartTimestamp"] = timestamp(now)
        for i, nic in enumerate(res.get("networkInterfaces") or []):
            for ac in nic.get("accessConfigs") or []:
                ac.setdefault("natIP", f"203.0.113.{(vm.order % 250) + 1}")
            nic.setdefault("networkIP", f"10.128.{i}.{(vm.order % 250) + 2}")
        seconds = duration_seconds((res.get("scheduling") or {}).get("maxRunDuration") or {})
        if seconds:
            vm.run_ends = now + dt.timedelta(seconds=seconds)
            res.setdefault("resourceStatus", {})["scheduling"] = {
                "terminationTimestamp": timestamp(vm.run_ends)
            }
        self.operations.finish(vm.waiting_op, now)
        vm.waiting_op, vm.deadline = None, None

    def _expire(self, vm: Vm, now: dt.datetime) -> None:
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
        error = {"code": STOCKOUT_CODE, "message": message}
        self.operations.finish(op, now, error=error, status=503)
        if kind == "insert" and not self.settings.keep_failed_instances:
            del self.vms[vm.key]
            return
        vm.resource["status"] = "TERMINATED"
        vm.resource["lastStopTimestamp"] = timestamp(now)

    def _end_run(self, vm: Vm, at: dt.datetime) -> None:
        action = (vm.resource.get("scheduling") or {}).get("instanceTerminationAction") or "STOP"
        if action == "DELETE" or vm.group is not None:  # a group's VMs are deleted at the end
            self.drop(vm)
            return
        self.release(vm)
        vm.resource["status"] = "TERMINATED"
        vm.resource["lastStopTimestamp"] = timestamp(at)
        vm.resource.pop("resourceStatus", None)

    def drop(self, vm: Vm) -> None:
        """``vm`` is gone: forget it and give back what it held."""
        self.vms.pop(vm.key, None)
        self.release(vm)

    def release(self, vm: Vm) -> None:
        """Give back capacity and cancel a pending request of ``vm``."""
        if vm.holds_capacity:
            self.capacity.give_back(vm.zone, vm.machine_type)
            vm.holds_capacity = False
        vm.run_ends = None
        if vm.waiting_op:
            error = {"code": "RESOURCE_OPERATION_CANCELLED", "message": "Request cancelled."}
            self.operations.finish(vm.waiting_op, self.moment.at, error=error, status=409)
            vm.waiting_op, vm.deadline = None, None

    # ------------------------------------------------------------------ test hooks
    def transition(
        self, project: str, zone: str, name: str, status: str, then: str | None, after: float
    ) -> None:
        """See :meth:`~pulumi_dws.testing.emulator.compute.ComputeService.transition`."""
        with self.lock:
            vm = self.found(project, zone, name)
            if status in ("TERMINATED", "SUSPENDED"):
                self.release(vm)
                vm.resource.pop("resourceStatus", None)
            vm.resource["status"] = status
            if then is None:
                self._transitions.pop(vm.key, None)
            else:
                at = self.moment.at + dt.timedelta(seconds=after)
                self._transitions[vm.key] = (then, at)

    def settle_later(self, vm: Vm, status: str, at: dt.datetime) -> None:
        """``vm`` becomes ``status`` at ``at`` (a group's VM that boots)."""
        self._transitions[vm.key] = (status, at)

    # ------------------------------------------------------------------ creating
    def resource_of(
        self, project: str, zone: str, body: dict[str, Any], order: int
    ) -> dict[str, Any]:
        """The API resource of a new VM made from ``body``."""
        res = {k: v for k, v in body.items() if k != "params"}
        target = f"projects/{project}/zones/{zone}/instances/{body['name']}"
        labels = res.get("labels") or {}
        metadata = res.get("metadata") or {}
        res.update(
            kind="compute#instance",
            id=str(4_000_000_000 + order),
            zone=f"{COMPUTE_SELF_LINK_ROOT}projects/{project}/zones/{zone}",
            selfLink=COMPUTE_SELF_LINK_ROOT + target,
            creationTimestamp=timestamp(self.moment.at),
            labelFingerprint=fingerprint(labels),
            metadata={
                "kind": "compute#metadata",
                "items": metadata.get("items") or [],
                "fingerprint": fingerprint(metadata.get("items") or []),
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

    def _record(self, vm: Vm, request_id: str | None, **extra: Any) -> None:
        self.created.append(
            {"requestId": request_id, "selfLink": vm.resource["selfLink"],
             "id": vm.resource["id"], "name": vm.key[2], "at": self.moment.at, **extra}
        )  # fmt: skip

    def add_group_vm(
        self,
        group: tuple[str, str, str],
        group_path: str,
        zone: str,
        name: str,
        body: dict[str, Any],
        *,
        run: int | None,
        boot: float,
        made_by: str | None = None,
    ) -> Vm:
        """A VM a managed group makes, on capacity the group already took: ``STAGING`` for
        ``boot`` seconds (when > 0), then ``RUNNING``; deleted ``run`` seconds later."""
        project = group[0]
        order = next(self._counter)
        now = self.moment.at
        machine = last(str(body.get("machineType") or ""))
        vm = Vm(
            (project, zone, name),
            machine,
            self.resource_of(project, zone, body, order),
            None,
            order,
        )
        vm.group = group
        vm.made_by = (group, made_by) if made_by is not None else None
        self.vms[vm.key] = vm
        self.place(vm, now)  # holds the capacity taken for the whole set
        if run:
            vm.run_ends = now + dt.timedelta(seconds=boot + run)
            vm.resource["resourceStatus"] = {
                "scheduling": {"terminationTimestamp": timestamp(vm.run_ends)}
            }
        if boot:
            vm.resource["status"] = "STAGING"
            self.settle_later(vm, "RUNNING", now + dt.timedelta(seconds=boot))
        self._record(vm, None, group=group_path)
        return vm

    def insert(
        self,
        project: str,
        zone: str,
        body: dict[str, Any],
        *,
        template_url: str | None = None,
        request_id: str | None = None,
    ) -> Operation:
        """``instances.insert``: the VM is placed now, or waits for capacity; the operation
        finishes when it is placed or its wait ends."""

        def action() -> Operation:
            merged = self._with_template(project, template_url, body)
            return self._create(project, zone, merged, request_id)

        return self.operations.once(project, request_id, action)

    def _with_template(
        self, project: str, template_url: str | None, body: dict[str, Any]
    ) -> dict[str, Any]:
        if not template_url:
            return copy.deepcopy(body)
        merged = self.templates.properties(project, template_url)
        for key, value in copy.deepcopy(body).items():
            if isinstance(value, dict) and isinstance(merged.get(key), dict):
                merged[key].update(value)
            else:
                merged[key] = value
        return merged

    def _create(
        self, project: str, zone: str, body: dict[str, Any], request_id: str | None
    ) -> Operation:
        new = NewInstance(zone, body)
        INSERT_RULES.check(new)
        window = duration_seconds(new.queue_window) if new.flex_start and new.queue_window else None
        name = body["name"]
        key = (project, zone, name)
        target = f"projects/{project}/zones/{zone}/instances/{name}"
        if key in self.vms:
            raise GoogleError(409, f"The resource '{target}' already exists", "alreadyExists")
        order = next(self._counter)
        resource = self.resource_of(project, zone, body, order)
        vm = Vm(key, last(body["machineType"]), resource, window, order)
        self.vms[key] = vm
        self.inserted.append((request_id, resource["selfLink"]))
        self._record(vm, request_id)
        op = self.operations.new(project, "insert", target, scope=f"zones/{zone}", done=False)
        op["targetId"] = resource["id"]
        self._request_capacity(vm, op["name"], "insert")
        return op

    def _request_capacity(self, vm: Vm, op_name: str, kind: str) -> None:
        """Place ``vm`` now, or make it wait (queued or fail-fast) with ``op_name`` open."""
        vm.waiting_op, vm.waiting_kind = op_name, kind
        if self.capacity.take(vm.zone, vm.machine_type):
            self.place(vm, self.moment.at)
            return
        wait = vm.window if vm.window else self.settings.fail_fast_seconds
        vm.deadline = self.moment.at + dt.timedelta(seconds=wait)
        vm.resource["status"] = "PENDING" if vm.window else "PROVISIONING"

    # ------------------------------------------------------------------ mutations
    def _mutate(
        self, key: VmKey, kind: str, change: Callable[[Vm], Any], request_id: str | None
    ) -> Operation:
        """Carry out ``change(vm)`` once per request id; an operation of ``kind``, left open
        (waiting for capacity, as a start) when ``change`` returns False."""
        project, zone, _ = key

        def action() -> Operation:
            vm = self.found(*key)
            still_open = change(vm) is False
            op = self.operations.new(
                project, kind, vm.target, scope=f"zones/{zone}", done=not still_open
            )
            if still_open:
                self._request_capacity(vm, op["name"], "start")
            return op

        return self.operations.once(project, request_id, action)

    def delete(self, key: VmKey, *, request_id: str | None = None) -> Operation:
        return self._mutate(key, "delete", self.drop, request_id)

    def stop(self, key: VmKey, *, request_id: str | None = None) -> Operation:
        def change(vm: Vm) -> None:
            if vm.status != "TERMINATED":
                self.release(vm)
                vm.resource["status"] = "TERMINATED"
                vm.resource["lastStopTimestamp"] = timestamp(self.moment.at)
                vm.resource.pop("resourceStatus", None)

        return self._mutate(key, "stop", change, request_id)

    def start(self, key: VmKey, *, request_id: str | None = None) -> Operation:
        def change(vm: Vm) -> bool:
            return not (vm.status == "TERMINATED" and not vm.waiting_op)

        return self._mutate(key, "start", change, request_id)

    def suspend(self, key: VmKey, *, request_id: str | None = None) -> Operation:
        def change(vm: Vm) -> None:
            _require_status(vm, "RUNNING", "suspended")
            self.release(vm)
            vm.resource["status"] = "SUSPENDED"
            vm.resource.pop("resourceStatus", None)

        return self._mutate(key, "suspend", change, request_id)

    def resume(self, key: VmKey, *, request_id: str | None = None) -> Operation:
        def change(vm: Vm) -> bool:
            _require_status(vm, "SUSPENDED", "resumed")
            vm.resource["status"] = "TERMINATED"  # a resume asks for capacity like a start
            return False

        return self._mutate(key, "resume", change, request_id)

    def set_labels(
        self, key: VmKey, body: dict[str, Any], *, request_id: str | None = None
    ) -> Operation:
        def change(vm: Vm) -> None:
            _check_fingerprint(body.get("labelFingerprint"), vm.resource["labelFingerprint"])
            labels = dict(body.get("labels") or {})
            if labels:
                vm.resource["labels"] = labels
            else:
                vm.resource.pop("labels", None)
            vm.resource["labelFingerprint"] = fingerprint(labels)

        return self._mutate(key, "setLabels", change, request_id)

    def set_metadata(
        self, key: VmKey, body: dict[str, Any], *, request_id: str | None = None
    ) -> Operation:
        def change(vm: Vm) -> None:
            meta = vm.resource["metadata"]
            _check_fingerprint(body.get("fingerprint"), meta["fingerprint"])
            items = list(body.get("items") or [])
            meta.update(items=items, fingerprint=fingerprint(items))

        return self._mutate(key, "setMetadata", change, request_id)

    def set_machine_type(
        self, key: VmKey, machine_url: str, *, request_id: str | None = None
    ) -> Operation:
        def change(vm: Vm) -> None:
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
                f"{COMPUTE_SELF_LINK_ROOT}projects/{key[0]}/zones/{key[1]}/machineTypes/"
                f"{vm.machine_type}"
            )

        return self._mutate(key, "setMachineType", change, request_id)


class InstancesApi(Api):
    """``instances``: each handler checks the body against the discovery document and calls
    the store."""

    resources: ClassVar[tuple[str, ...]] = ("instances",)

    def __init__(self, instances: InstanceStore, schema: DiscoverySchema) -> None:
        self.instances = instances
        self.schema = schema

    @staticmethod
    def _key(req: Request) -> tuple[str, str, str]:
        return req.params["project"], req.params["zone"], req.params["instance"]

    def insert(self, req: Request) -> Response:
        if not isinstance(req.body, dict):
            raise GoogleError(400, "Invalid JSON payload received: expected an Instance object.")
        self.schema.require(
            "Instance", req.body, root="instance", method="compute.instances.insert"
        )
        op = self.instances.insert(
            req.params["project"],
            req.params["zone"],
            req.body,
            template_url=req.query.get("sourceInstanceTemplate"),
            request_id=request_id(req),
        )
        return Response(200, op)

    def list(self, req: Request) -> Response:
        project, zone = req.params["project"], req.params["zone"]
        items = self.instances.resources(project, zone)
        base = f"{COMPUTE_SELF_LINK_ROOT}projects/{project}/zones/{zone}/instances"
        body: dict[str, Any] = {"kind": "compute#instanceList", "id": base, "selfLink": base}
        if items:
            body["items"] = items
        return Response(200, body)

    def aggregated_list(self, req: Request) -> Response:
        """``instances.aggregatedList``: every zone's instances, by ``zones/<zone>``; a
        ``filter`` of ``labels.KEY="VALUE"`` terms (joined by spaces: AND, as Compute reads
        them) keeps only the instances with those labels. (The rest of Compute's filter
        language is not emulated: any other term is refused.)"""
        project = req.params["project"]
        wanted = label_filter(req.query.get("filter"))
        items: dict[str, Any] = {}
        for vm in self.instances.resources(project):
            labels = vm.get("labels") or {}
            if all(labels.get(key) == value for key, value in wanted.items()):
                zone = str(vm.get("zone", "")).rsplit("/", 1)[-1]
                items.setdefault(f"zones/{zone}", {"instances": []})["instances"].append(vm)
        base = f"{COMPUTE_SELF_LINK_ROOT}projects/{project}/aggregated/instances"
        return Response(
            200, {"kind": "compute#instanceAggregatedList", "selfLink": base, "items": items}
        )

    def get(self, req: Request) -> Response:
        with self.instances.lock:
            return Response(200, copy.deepcopy(self.instances.found(*self._key(req)).resource))

    def delete(self, req: Request) -> Response:
        return Response(200, self.instances.delete(self._key(req), request_id=request_id(req)))

    def stop(self, req: Request) -> Response:
        return Response(200, self.instances.stop(self._key(req), request_id=request_id(req)))

    def start(self, req: Request) -> Response:
        return Response(200, self.instances.start(self._key(req), request_id=request_id(req)))

    def suspend(self, req: Request) -> Response:
        return Response(200, self.instances.suspend(self._key(req), request_id=request_id(req)))

    def resume(self, req: Request) -> Response:
        return Response(200, self.instances.resume(self._key(req), request_id=request_id(req)))

    def set_labels(self, req: Request) -> Response:
        body = req.body or {}
        self.schema.require("InstancesSetLabelsRequest", body)
        op = self.instances.set_labels(self._key(req), body, request_id=request_id(req))
        return Response(200, op)

    def set_metadata(self, req: Request) -> Response:
        body = req.body or {}
        self.schema.require("Metadata", body)
        op = self.instances.set_metadata(self._key(req), body, request_id=request_id(req))
        return Response(200, op)

    def set_machine_type(self, req: Request) -> Response:
        body = req.body or {}
        self.schema.require("InstancesSetMachineTypeRequest", body)
        machine = str(body.get("machineType") or "")
        op = self.instances.set_machine_type(self._key(req), machine, request_id=request_id(req))
        return Response(200, op)


_LABEL_TERM = re.compile(r'labels\.([a-z][-_a-z0-9]*)\s*=\s*"([^"]*)"')


def label_filter(text: str | None) -> dict[str, str]:
    """The ``labels.KEY="VALUE"`` terms of a list ``filter`` (all must hold); a filter with
    anything else is refused, as this emulator reads no other."""
    if not text:
        return {}
    terms = dict(_LABEL_TERM.findall(text))
    if _LABEL_TERM.sub("", text).replace("AND", "").strip():
        raise GoogleError(400, f"Invalid list filter expression: {text}", "invalid")
    return terms
