"""Managed instance groups (zonal and regional), regional instance templates and resize requests
of the emulated Compute Engine, on the virtual clock. Mixed into
:class:`~.models.ComputeBackend`, whose instances, operations and request ids they share: the VMs
a group creates are ordinary emulated instances (``instances.get``/``list`` see them).

Behaviour:

* A group's ``targetSize`` is what it holds: its VMs plus the ``resizeBy`` of its requests
  still ``CREATING`` or ``ACCEPTED`` (Google raises it on acceptance and lowers it when a request
  fails or is cancelled; the emulator also lowers it as VMs end, are deleted or roll back).
  A group whose template uses ``FLEX_START`` must start at size 0 and grows only through resize
  requests; ``resize`` is refused while a request is in flight.
* A resize request is ``CREATING`` for :attr:`MigBackend.mig_accept_seconds`, then
  ``ACCEPTED`` (its insert operation finishes then). It gets capacity **for the whole set at
  once** (all or nothing): when ``resizeBy`` VMs of the template's machine type are free in one
  of the group's zones (a zonal group's zone; a regional group's ``distributionPolicy`` zones,
  by default ``<region>-a``, ``-b``, ``-c``: one zone, as ``ANY_SINGLE_ZONE`` does), its VMs
  are created, ``STAGING`` for :attr:`MigBackend.mig_boot_seconds`, then ``RUNNING``; the
  request is ``SUCCEEDED`` once they all run. At the end of ``requestedRunDuration`` (or the
  template's ``maxRunDuration``) the VMs are deleted; the request stays ``SUCCEEDED``.
* ``FAILED`` and ``CANCELLED`` (``cancel``, or scripted with :meth:`MigBackend.fail_resize_request`
  / :meth:`MigBackend.fail_next_resize_request`) roll back the VMs the request made.
  ``cancel`` needs ``ACCEPTED``; ``delete`` needs ``SUCCEEDED``, ``FAILED`` or ``CANCELLED`` and
  leaves the VMs; deleting a group deletes its VMs and its requests.
* A request name is unique within its group (409 otherwise); ``requestId`` deduplicates every
  mutation as for instances. A Flex-start group must not repair its VMs
  (``defaultActionOnFailure: DO_NOTHING``) and a regional group must use ``ANY_SINGLE_ZONE``,
  or its resize requests are refused (400).
"""

from __future__ import annotations

import copy
import datetime as dt
import hashlib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .... import limits
from ..base import GoogleError
from .common import COMPUTE_SELF_LINK_ROOT as _ROOT
from .common import Operation, last, not_found, timestamp

if TYPE_CHECKING:
    import itertools
    import threading
    from collections.abc import Callable

    from ..capacity import CapacityModel
    from .models import _Vm

__all__ = ["MigBackend", "GroupKey", "scope_of"]

GroupKey = tuple[str, str, str]
"""``(project, scope, group name)``; the scope is ``zones/<zone>`` or ``regions/<region>``."""
ACTIVE = frozenset({"CREATING", "ACCEPTED"})
FINISHED = frozenset({"SUCCEEDED", "FAILED", "CANCELLED"})
_MAX_GROUP_SIZE = {"zones": 1000, "regions": 2000}  # discovery: InstanceGroupManager docs


def scope_of(zone: str | None = None, region: str | None = None) -> str:
    """``zones/<zone>`` or ``regions/<region>`` (exactly one must be given)."""
    if (zone is None) == (region is None):
        raise ValueError("give exactly one of zone and region")
    return f"zones/{zone}" if zone else f"regions/{region}"


@dataclass
class _Group:
    key: GroupKey
    resource: dict[str, Any]
    zones: list[str]
    properties: dict[str, Any]  # the template's properties when the group was made
    names: int = 0  # VM names handed out

    @property
    def path(self) -> str:
        project, scope, name = self.key
        return f"projects/{project}/{scope}/instanceGroupManagers/{name}"


@dataclass
class _Request:
    group: GroupKey
    name: str
    resource: dict[str, Any]
    resize_by: int
    run: int | None
    order: int
    insert_op: str | None
    accept_at: dt.datetime | None
    doom: tuple[dt.datetime, str, dict[str, str]] | None = None
    instances: list[tuple[str, str, str]] = field(default_factory=list)

    @property
    def state(self) -> str:
        return str(self.resource["state"])


class MigBackend:
    """Managed instance groups and their resize requests (see the module docstring)."""

    mig_accept_seconds: float = 0.0
    """How long a new resize request stays ``CREATING`` (virtual seconds)."""
    mig_boot_seconds: float = 0.0
    """How long a group's new VMs stay ``STAGING`` before ``RUNNING`` (virtual seconds)."""

    if TYPE_CHECKING:  # what ComputeBackend provides
        capacity: CapacityModel
        created: list[dict[str, Any]]
        _lock: threading.RLock
        _now: dt.datetime
        _ops: dict[str, Operation]
        _vms: dict[tuple[str, str, str], _Vm]
        _counter: itertools.count[int]
        _templates: dict[tuple[str, str], dict[str, Any]]
        _transitions: dict[tuple[str, str, str], tuple[str, dt.datetime]]

        def _new_op(
            self,
            project: str,
            zone: str | None,
            kind: str,
            target: str,
            *,
            done: bool = True,
            region: str | None = None,
        ) -> Operation: ...

        def _finish_op(
            self,
            name: str | None,
            now: dt.datetime,
            *,
            error: dict[str, str] | None = None,
            status: int = 400,
        ) -> None: ...

        def once(
            self, project: str, request_id: str | None, action: Callable[[], Operation]
        ) -> Operation: ...

        def _resource(
            self, project: str, zone: str, body: dict[str, Any], order: int
        ) -> dict[str, Any]: ...

        def _new_vm(
            self, key: tuple[str, str, str], machine: str, resource: dict[str, Any], order: int
        ) -> _Vm: ...

        def _place(self, vm: _Vm, now: dt.datetime) -> None: ...

        def _release(self, vm: _Vm) -> None: ...

        def _drop(self, vm: _Vm) -> None: ...

    def _init_migs(self) -> None:
        self._groups: dict[GroupKey, _Group] = {}
        self._requests: dict[tuple[GroupKey, str], _Request] = {}
        self._region_templates: dict[tuple[str, str, str], dict[str, Any]] = {}
        self._next_doom: tuple[float, str, dict[str, str]] | None = None
        self.resize_inserted: list[dict[str, Any]] = []
        """Every resize request really created: ``{"requestId", "selfLink", "id", "at"}``."""

    # ------------------------------------------------------------------ test helpers
    def groups(self, project: str | None = None) -> list[dict[str, Any]]:
        """Copies of every managed instance group (of ``project``), as ``get`` returns them."""
        with self._lock:
            return [self._group_view(g) for k, g in self._groups.items() if project in (None, k[0])]

    def resize_requests(self, project: str | None = None) -> list[dict[str, Any]]:
        """Copies of every resize request (of ``project``), as ``get`` returns them."""
        with self._lock:
            return [
                copy.deepcopy(r.resource)
                for (g, _), r in sorted(self._requests.items(), key=lambda i: i[1].order)
                if project in (None, g[0])
            ]

    def fail_resize_request(
        self,
        project: str,
        group: str,
        name: str,
        *,
        zone: str | None = None,
        region: str | None = None,
        state: str = "FAILED",
        code: str = "ZONE_RESOURCE_POOL_EXHAUSTED",
        message: str = "Compute Engine could not provision the requested VMs.",
        after: float = 0.0,
    ) -> None:
        """End a request not yet finished with ``state`` (``FAILED`` or ``CANCELLED``), as
        Google would on its own, now or ``after`` virtual seconds; its VMs roll back."""
        if state not in ("FAILED", "CANCELLED"):
            raise ValueError("state must be FAILED or CANCELLED")
        with self._lock:
            request = self._request((project, scope_of(zone, region), group), name)
            at = self._now + dt.timedelta(seconds=after)
            request.doom = (at, state, {"code": code, "message": message})
            if after <= 0:
                self._settle_migs(self._now)

    def fail_next_resize_request(
        self,
        *,
        state: str = "FAILED",
        code: str = "ZONE_RESOURCE_POOL_EXHAUSTED",
        message: str = "Compute Engine could not provision the requested VMs.",
        after: float = 0.0,
    ) -> None:
        """The next resize request inserted ends with ``state`` ``after`` virtual seconds
        (unless it finished before)."""
        if state not in ("FAILED", "CANCELLED"):
            raise ValueError("state must be FAILED or CANCELLED")
        with self._lock:
            self._next_doom = (after, state, {"code": code, "message": message})

    def forget_scripted_failure(self) -> None:
        """Drop what :meth:`fail_next_resize_request` scripted, if no request took it yet."""
        with self._lock:
            self._next_doom = None

    def remove_resize_request(
        self,
        project: str,
        group: str,
        name: str,
        *,
        zone: str | None = None,
        region: str | None = None,
    ) -> None:
        """Delete a request behind the API's back (its VMs stay, as with ``delete``)."""
        with self._lock:
            key = (project, scope_of(zone, region), group)
            self._request(key, name)
            del self._requests[(key, name)]

    # ------------------------------------------------------------------ the clock
    def _mig_events(self) -> list[dt.datetime]:
        times: list[dt.datetime] = []
        for request in self._requests.values():
            if request.state == "CREATING" and request.accept_at is not None:
                times.append(request.accept_at)
            if request.doom is not None and request.state not in FINISHED:
                times.append(request.doom[0])
        return times

    def _settle_migs(self, now: dt.datetime) -> None:
        """Acceptances, scripted ends, placements (oldest request first), completions."""
        for request in sorted(self._requests.values(), key=lambda r: r.order):
            if request.doom is not None and request.doom[0] <= now and request.state in ACTIVE:
                self._end_request(request, request.doom[1], request.doom[2])
                continue
            if request.state == "CREATING" and request.accept_at and request.accept_at <= now:
                request.resource["state"] = "ACCEPTED"
                self._finish_op(request.insert_op, now)
            if request.state == "ACCEPTED" and not request.instances:
                self._provision(request, now)
            if request.state == "ACCEPTED" and request.instances:
                vms = [self._vms.get(key) for key in request.instances]
                if all(vm is not None and vm.status == "RUNNING" for vm in vms):
                    request.resource["state"] = "SUCCEEDED"

    def _provision(self, request: _Request, now: dt.datetime) -> None:
        """Create all of the request's VMs in one zone with room for them all, or none."""
        group = self._groups[request.group]
        machine = last(str(group.properties.get("machineType") or ""))
        for zone in group.zones:
            if self.capacity.take(zone, machine, request.resize_by):
                request.instances = [
                    self._group_vm(group, zone, machine, request.run, now)
                    for _ in range(request.resize_by)
                ]
                return

    def _group_vm(
        self, group: _Group, zone: str, machine: str, run: int | None, now: dt.datetime
    ) -> tuple[str, str, str]:
        project = group.key[0]
        base = str(group.resource["baseInstanceName"])
        while True:
            group.names += 1
            digest = hashlib.sha256(f"{group.path}#{group.names}".encode()).hexdigest()
            name = f"{base}-{digest[:4]}"
            if (project, zone, name) not in self._vms:
                break
        body = copy.deepcopy(group.properties)
        body.update(name=name, machineType=machine)
        items = list((body.get("metadata") or {}).get("items") or [])
        items.append({"key": "created-by", "value": group.path})
        body["metadata"] = {"items": items}
        order = next(self._counter)
        vm = self._new_vm(
            (project, zone, name), machine, self._resource(project, zone, body, order), order
        )
        vm.group = group.key
        self._vms[vm.key] = vm
        self._place(vm, now)  # holds the capacity taken for the whole set
        boot = max(0.0, float(self.mig_boot_seconds))
        if run:
            vm.run_ends = now + dt.timedelta(seconds=boot + run)
            vm.resource["resourceStatus"] = {
                "scheduling": {"terminationTimestamp": timestamp(vm.run_ends)}
            }
        if boot:
            vm.resource["status"] = "STAGING"
            self._transitions[vm.key] = ("RUNNING", now + dt.timedelta(seconds=boot))
        self.created.append(
            {"requestId": None, "selfLink": vm.resource["selfLink"], "id": vm.resource["id"],
             "name": name, "at": now, "group": group.path}
        )  # fmt: skip
        return vm.key

    def _end_request(self, request: _Request, state: str, error: dict[str, str] | None) -> None:
        for key in request.instances:
            vm = self._vms.pop(key, None)
            if vm is not None:
                self._release(vm)
        request.instances = []
        request.resource["state"] = state
        if state == "FAILED" and error:
            request.resource["status"] = {"error": {"errors": [dict(error)]}}
        self._finish_op(request.insert_op, self._now)

    def _left_group(self, vm: _Vm) -> None:
        """A group's VM is gone (deleted, ended): no request counts it any more."""
        if vm.group is None:
            return
        for request in self._requests.values():
            if request.group == vm.group and vm.key in request.instances:
                request.instances.remove(vm.key)

    # ------------------------------------------------------------------ operations
    def _op(
        self, project: str, scope: str, kind: str, target: str, *, done: bool = True
    ) -> Operation:
        where, place = scope.split("/", 1)
        if where == "zones":
            return self._new_op(project, place, kind, target, done=done)
        return self._new_op(project, None, kind, target, done=done, region=place)

    # ------------------------------------------------------------------ regional templates
    def insert_region_template(
        self, project: str, region: str, body: dict[str, Any], *, request_id: str | None = None
    ) -> Operation:
        def action() -> Operation:
            name = body.get("name")
            if not name:
                raise GoogleError(400, "Required field 'resource.name' not specified", "required")
            target = f"projects/{project}/regions/{region}/instanceTemplates/{name}"
            if (project, region, name) in self._region_templates:
                raise GoogleError(409, f"The resource '{target}' already exists", "alreadyExists")
            stored = copy.deepcopy(body)
            stored.update(
                kind="compute#instanceTemplate",
                id=str(6_000_000_000 + next(self._counter)),
                selfLink=_ROOT + target,
                region=f"{_ROOT}projects/{project}/regions/{region}",
                creationTimestamp=timestamp(self._now),
            )
            self._region_templates[(project, region, name)] = stored
            return self._new_op(project, None, "insert", target, region=region)

        return self.once(project, request_id, action)

    def get_region_template(self, project: str, region: str, name: str) -> dict[str, Any]:
        with self._lock:
            found = self._region_templates.get((project, region, name))
            if found is None:
                raise not_found(f"projects/{project}/regions/{region}/instanceTemplates/{name}")
            return copy.deepcopy(found)

    def delete_region_template(
        self, project: str, region: str, name: str, *, request_id: str | None = None
    ) -> Operation:
        def action() -> Operation:
            target = f"projects/{project}/regions/{region}/instanceTemplates/{name}"
            if self._region_templates.pop((project, region, name), None) is None:
                raise not_found(target)
            return self._new_op(project, None, "delete", target, region=region)

        return self.once(project, request_id, action)

    def _template_properties(self, project: str, url: str) -> dict[str, Any]:
        """The properties of the template ``url`` names (global or regional)."""
        parts = url.split("/")
        owner = parts[parts.index("projects") + 1] if "projects" in parts[:-1] else project
        name = parts[-1]
        if "regions" in parts[:-1]:
            region = parts[parts.index("regions") + 1]
            found = self._region_templates.get((owner, region, name))
            where = f"projects/{owner}/regions/{region}/instanceTemplates/{name}"
        else:
            found = self._templates.get((owner, name))
            where = f"projects/{owner}/global/instanceTemplates/{name}"
        if found is None:
            raise not_found(where)
        return copy.deepcopy(found.get("properties") or {})

    # ------------------------------------------------------------------ groups
    def _group(self, key: GroupKey) -> _Group:
        group = self._groups.get(key)
        if group is None:
            raise not_found(f"projects/{key[0]}/{key[1]}/instanceGroupManagers/{key[2]}")
        return group

    def _group_vms(self, key: GroupKey) -> list[_Vm]:
        return sorted((vm for vm in self._vms.values() if vm.group == key), key=lambda v: v.order)

    def _group_view(self, group: _Group) -> dict[str, Any]:
        view = copy.deepcopy(group.resource)
        vms = self._group_vms(group.key)
        pending = sum(
            r.resize_by
            for r in self._requests.values()
            if r.group == group.key and r.state in ACTIVE and not r.instances
        )
        view["targetSize"] = len(vms) + pending
        busy = any(vm.status != "RUNNING" for vm in vms)
        view["status"] = {"isStable": not busy}
        view["currentActions"] = {
            "creating": sum(1 for vm in vms if vm.status != "RUNNING"),
            "none": sum(1 for vm in vms if vm.status == "RUNNING"),
        }
        return view

    def insert_group(
        self, project: str, scope: str, body: dict[str, Any], *, request_id: str | None = None
    ) -> Operation:
        """``instanceGroupManagers.insert`` (zonal or regional)."""

        def action() -> Operation:
            name = body.get("name")
            if not name:
                raise GoogleError(400, "Required field 'resource.name' not specified", "required")
            key = (project, scope, str(name))
            group_path = f"projects/{project}/{scope}/instanceGroupManagers/{name}"
            if key in self._groups:
                raise GoogleError(
                    409, f"The resource '{group_path}' already exists", "alreadyExists"
                )
            versions = body.get("versions") or [{}]
            template = body.get("instanceTemplate") or versions[0].get("instanceTemplate")
            if not template:
                raise GoogleError(
                    400, "Required field 'resource.instanceTemplate' not specified", "required"
                )
            properties = self._template_properties(project, str(template))
            size = int(body.get("targetSize") or 0)
            flex = (properties.get("scheduling") or {}).get("provisioningModel") == "FLEX_START"
            if size and flex:
                raise GoogleError(
                    400,
                    "Invalid value for field 'resource.targetSize': "
                    f"{size}. A group whose instance template uses the FLEX_START provisioning "
                    "model must be created with targetSize 0; add VMs with resize requests.",
                    "invalid",
                )
            where, place = scope.split("/", 1)
            policy = body.get("distributionPolicy") or {}
            if where == "regions":
                zones = [last(z.get("zone", "")) for z in policy.get("zones") or []] or [
                    f"{place}-{letter}" for letter in "abc"
                ]
            else:
                zones = [place]
            resource = copy.deepcopy(body)
            resource.update(
                kind="compute#instanceGroupManager",
                id=str(8_000_000_000 + next(self._counter)),
                selfLink=_ROOT + group_path,
                creationTimestamp=timestamp(self._now),
                baseInstanceName=body.get("baseInstanceName") or name,
                instanceGroup=f"{_ROOT}projects/{project}/{scope}/instanceGroups/{name}",
                fingerprint=hashlib.sha256(group_path.encode()).hexdigest()[:12],
            )
            resource["zone" if where == "zones" else "region"] = (
                f"{_ROOT}projects/{project}/{scope}"
            )
            group = _Group(key, resource, zones, properties)
            self._groups[key] = group
            if size:
                self._grow(group, size)
            return self._op(project, scope, "insert", group_path)

        return self.once(project, request_id, action)

    def _grow(self, group: _Group, count: int) -> None:
        machine = last(str(group.properties.get("machineType") or ""))
        for zone in group.zones:
            if self.capacity.take(zone, machine, count):
                for _ in range(count):
                    self._group_vm(group, zone, machine, None, self._now)
                return
        raise GoogleError(
            503,
            f"The zone does not have enough resources available to fulfill the request: "
            f"{count} x {machine} in {', '.join(group.zones)}.",
            "ZONE_RESOURCE_POOL_EXHAUSTED",
        )

    def get_group(self, project: str, scope: str, name: str) -> dict[str, Any]:
        with self._lock:
            return self._group_view(self._group((project, scope, name)))

    def delete_group(
        self, project: str, scope: str, name: str, *, request_id: str | None = None
    ) -> Operation:
        """Deleting a group deletes its VMs and its resize requests."""

        def action() -> Operation:
            group = self._group((project, scope, name))
            for vm in self._group_vms(group.key):
                self._drop(vm)
            for key in [k for k in self._requests if k[0] == group.key]:
                del self._requests[key]
            del self._groups[group.key]
            return self._op(project, scope, "delete", group.path)

        return self.once(project, request_id, action)

    def list_managed_instances(self, project: str, scope: str, name: str) -> list[dict[str, Any]]:
        """``listManagedInstances``: one entry per VM of the group."""
        with self._lock:
            group = self._group((project, scope, name))
            template = group.resource.get("instanceTemplate") or (
                (group.resource.get("versions") or [{}])[0].get("instanceTemplate")
            )
            out = []
            for vm in self._group_vms(group.key):
                entry: dict[str, Any] = {
                    "instance": vm.resource["selfLink"],
                    "name": vm.key[2],
                    "id": vm.resource["id"],
                    "instanceStatus": vm.status,
                    "currentAction": "NONE" if vm.status == "RUNNING" else "CREATING",
                    "targetStatus": "RUNNING",
                    "version": {"instanceTemplate": template},
                }
                if vm.run_ends is not None:
                    entry["scheduling"] = {"terminationTimestamp": timestamp(vm.run_ends)}
                out.append(entry)
            return out

    def resize_group(
        self, project: str, scope: str, name: str, size: int, *, request_id: str | None = None
    ) -> Operation:
        """``resize``: refused while a resize request is in flight; shrinking deletes the newest
        VMs; growing creates VMs now (a FLEX_START group only grows by resize requests)."""

        def action() -> Operation:
            group = self._group((project, scope, name))
            if any(r.group == group.key and r.state in ACTIVE for r in self._requests.values()):
                raise GoogleError(
                    400,
                    f"The target size of '{group.path}' can't be changed while it has accepted "
                    "resize requests.",
                    "conditionNotMet",
                )
            if size < 0:
                raise GoogleError(400, f"Invalid value for field 'size': {size}.", "invalid")
            vms = self._group_vms(group.key)
            flex = (group.properties.get("scheduling") or {}).get("provisioningModel")
            if size > len(vms) and flex == "FLEX_START":
                raise GoogleError(
                    400,
                    f"'{group.path}' uses a FLEX_START instance template: add VMs with resize "
                    "requests, not resize.",
                    "invalid",
                )
            for vm in vms[size:][::-1]:
                self._drop(vm)
            if size > len(vms):
                self._grow(group, size - len(vms))
            return self._op(project, scope, "resize", group.path)

        return self.once(project, request_id, action)

    def delete_group_instances(
        self,
        project: str,
        scope: str,
        name: str,
        body: dict[str, Any],
        *,
        request_id: str | None = None,
    ) -> Operation:
        """``deleteInstances``: delete the listed VMs of the group (its target size drops)."""

        def action() -> Operation:
            group = self._group((project, scope, name))
            mine = {vm.key[2]: vm for vm in self._group_vms(group.key)}
            listed = [last(str(url)) for url in body.get("instances") or []]
            unknown = [n for n in listed if n not in mine]
            if unknown and not body.get("skipInstancesOnValidationError"):
                raise GoogleError(
                    400,
                    f"Instances {', '.join(unknown)} are not managed by '{group.path}'.",
                    "invalid",
                )
            for vm_name in listed:
                vm = mine.get(vm_name)
                if vm is not None and vm.key in self._vms:
                    self._drop(vm)
            return self._op(project, scope, "deleteInstances", group.path)

        return self.once(project, request_id, action)

    # ------------------------------------------------------------------ resize requests
    def _request(self, group: GroupKey, name: str) -> _Request:
        request = self._requests.get((group, name))
        if request is None:
            self._group(group)
            raise not_found(
                f"projects/{group[0]}/{group[1]}/instanceGroupManagers/{group[2]}"
                f"/resizeRequests/{name}"
            )
        return request

    def insert_resize_request(
        self,
        project: str,
        scope: str,
        group_name: str,
        body: dict[str, Any],
        *,
        request_id: str | None = None,
    ) -> Operation:
        """``resizeRequests.insert``: ``CREATING``, then ``ACCEPTED`` (see the module doc)."""

        def action() -> Operation:
            group = self._group((project, scope, group_name))
            name = body.get("name")
            if not name:
                raise GoogleError(400, "Required field 'resource.name' not specified", "required")
            target = f"{group.path}/resizeRequests/{name}"
            if (group.key, name) in self._requests:
                raise GoogleError(409, f"The resource '{target}' already exists", "alreadyExists")
            self._check_takes_requests(group)
            resize_by = self._resize_by(body, scope)
            run = self._run_seconds(body, group)
            n = next(self._counter)
            resource: dict[str, Any] = {
                "kind": "compute#instanceGroupManagerResizeRequest",
                "id": str(9_000_000_000 + n),
                "name": name,
                "resizeBy": resize_by,
                "state": "CREATING",
                "creationTimestamp": timestamp(self._now),
                "selfLink": _ROOT + target,
                "selfLinkWithId": f"{_ROOT}{group.path}/resizeRequests/{9_000_000_000 + n}",
                "zone"
                if scope.startswith("zones/")
                else "region": f"{_ROOT}projects/{project}/{scope}",
            }
            for key in ("requestedRunDuration", "description"):
                if body.get(key) is not None:
                    resource[key] = copy.deepcopy(body[key])
            op = self._op(project, scope, "insert", target, done=False)
            op["targetId"] = resource["id"]
            accept = self._now + dt.timedelta(seconds=max(0.0, float(self.mig_accept_seconds)))
            request = _Request(
                group.key, str(name), resource, resize_by, run, n, op["name"], accept
            )
            if self._next_doom is not None:
                after, state, error = self._next_doom
                request.doom = (self._now + dt.timedelta(seconds=after), state, error)
                self._next_doom = None
            self._requests[(group.key, str(name))] = request
            self.resize_inserted.append(
                {"requestId": request_id, "selfLink": resource["selfLink"], "id": resource["id"],
                 "at": self._now}
            )  # fmt: skip
            self._settle_migs(self._now)
            return self._ops[op["name"]]

        return self.once(project, request_id, action)

    @staticmethod
    def _check_takes_requests(group: _Group) -> None:
        """Google's requirements on a group that takes resize requests ("Create a MIG with GPU
        VMs": repairs off; "Create an AI-optimized MIG": a regional group uses only the
        ANY_SINGLE_ZONE shape)."""
        resource = group.resource
        flex = (group.properties.get("scheduling") or {}).get("provisioningModel") == "FLEX_START"
        action = (resource.get("instanceLifecyclePolicy") or {}).get("defaultActionOnFailure")
        if flex and action != "DO_NOTHING":
            raise GoogleError(
                400,
                f"'{group.path}' repairs its VMs (instanceLifecyclePolicy.defaultActionOnFailure "
                f"is {action or 'REPAIR'}): turn repairs off (DO_NOTHING) to use resize requests.",
                "invalid",
            )
        shape = (resource.get("distributionPolicy") or {}).get("targetShape") or "EVEN"
        if group.key[1].startswith("regions/") and shape != "ANY_SINGLE_ZONE":
            raise GoogleError(
                400,
                f"'{group.path}' has distributionPolicy.targetShape {shape}: a regional group "
                "takes resize requests only with ANY_SINGLE_ZONE.",
                "invalid",
            )

    @staticmethod
    def _resize_by(body: dict[str, Any], scope: str) -> int:
        if body.get("instances"):
            raise GoogleError(
                400,
                "Invalid value for field 'resource.instances': the emulator supports resizeBy "
                "only.",
                "invalid",
            )
        value = body.get("resizeBy")
        cap = _MAX_GROUP_SIZE[scope.split("/", 1)[0]]
        if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= cap:
            raise GoogleError(
                400,
                f"Invalid value for field 'resource.resizeBy': {value!r}. It must be between 1 "
                f"and {cap}.",
                "invalid",
            )
        return value

    @staticmethod
    def _run_seconds(body: dict[str, Any], group: _Group) -> int | None:
        spec = body.get("requestedRunDuration")
        if spec is None:
            spec = (group.properties.get("scheduling") or {}).get("maxRunDuration")
            return int(spec["seconds"]) if spec and spec.get("seconds") is not None else None
        seconds = int(spec.get("seconds") or 0)
        row = limits.get("mig.requested_run_duration")
        if (row.minimum is not None and seconds < row.minimum) or (
            row.maximum is not None and seconds > row.maximum
        ):
            raise GoogleError(
                400,
                f"Invalid value for field 'resource.requestedRunDuration': {seconds}s. "
                f"Allowed: {row.allowed()}.",
                "invalid",
            )
        return seconds

    def get_resize_request(self, project: str, scope: str, group: str, name: str) -> dict[str, Any]:
        with self._lock:
            return copy.deepcopy(self._request((project, scope, group), name).resource)

    def list_resize_requests(self, project: str, scope: str, group: str) -> list[dict[str, Any]]:
        with self._lock:
            key = (project, scope, group)
            self._group(key)
            found = [r for (g, _), r in self._requests.items() if g == key]
            return [copy.deepcopy(r.resource) for r in sorted(found, key=lambda r: r.order)]

    def cancel_resize_request(
        self, project: str, scope: str, group: str, name: str, *, request_id: str | None = None
    ) -> Operation:
        """``cancel``: only an ``ACCEPTED`` request; its VMs roll back."""

        def action() -> Operation:
            request = self._request((project, scope, group), name)
            if request.state != "ACCEPTED":
                raise GoogleError(
                    400,
                    f"The resize request '{name}' is {request.state}: only an ACCEPTED request "
                    "can be cancelled.",
                    "conditionNotMet",
                )
            self._end_request(request, "CANCELLED", None)
            target = str(request.resource["selfLink"])[len(_ROOT) :]
            return self._op(project, scope, "cancel", target)

        return self.once(project, request_id, action)

    def delete_resize_request(
        self, project: str, scope: str, group: str, name: str, *, request_id: str | None = None
    ) -> Operation:
        """``delete``: only a finished request; the VMs it made stay in the group."""

        def action() -> Operation:
            key = (project, scope, group)
            request = self._request(key, name)
            if request.state not in FINISHED:
                raise GoogleError(
                    400,
                    f"The resize request '{name}' is {request.state}: only a SUCCEEDED, FAILED "
                    "or CANCELLED request can be deleted (cancel it first).",
                    "conditionNotMet",
                )
            del self._requests[(key, name)]
            target = str(request.resource["selfLink"])[len(_ROOT) :]
            return self._op(project, scope, "delete", target)

        return self.once(project, request_id, action)
