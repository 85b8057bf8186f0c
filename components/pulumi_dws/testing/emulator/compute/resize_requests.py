"""Resize requests of managed instance groups (``instanceGroupManagerResizeRequests`` and their
regional twin), on the virtual clock.

A request is ``CREATING`` for ``mig_accept_seconds``, then ``ACCEPTED`` (its insert operation
finishes then). It gets capacity **for the whole set at once** (all or nothing): when
``resizeBy`` VMs of the template's machine type are free in one of the group's zones (a zonal
group's zone; a regional group's ``distributionPolicy`` zones, by default ``<region>-a``,
``-b``, ``-c``: one zone, as ``ANY_SINGLE_ZONE`` does), its VMs are created, ``STAGING`` for
``mig_boot_seconds``, then ``RUNNING``; the request is ``SUCCEEDED`` once they all run. At the
end of ``requestedRunDuration`` (or the template's ``maxRunDuration``) the VMs are deleted; the
request stays ``SUCCEEDED``. ``FAILED`` and ``CANCELLED`` (``cancel``, or scripted) roll back
the VMs the request made. ``cancel`` needs ``ACCEPTED``; ``delete`` needs ``SUCCEEDED``,
``FAILED`` or ``CANCELLED`` and leaves the VMs. A request name is unique within its group.
(https://docs.cloud.google.com/compute/docs/instance-groups/about-resize-requests-mig)
"""

from __future__ import annotations

import copy
import datetime as dt
import itertools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

from .... import limits
from ..base import GoogleError, Request, Response
from ..discovery import DiscoverySchema
from ..routing import Api
from ..store import earliest
from .common import COMPUTE_SELF_LINK_ROOT, Operation, not_found, timestamp
from .group_rules import GROUP_SIZE_ROWS, REQUEST_RULES, TakingRequests
from .groups import Group, GroupKey, GroupStore, group_of
from .instance_rules import within
from .instances import InstanceStore
from .operations import ComputeStore, Shared, body_object, request_id

__all__ = ["ACTIVE", "FINISHED", "ResizeRequestStore", "ResizeRequestsApi"]

ACTIVE = frozenset({"CREATING", "ACCEPTED"})
FINISHED = frozenset({"SUCCEEDED", "FAILED", "CANCELLED"})
Doom = tuple[dt.datetime, str, dict[str, str]]
Finder = Callable[[], Group]
"""Finds the group a request names (Google's 404 when there is none)."""


@dataclass
class ResizeRequest:
    """One resize request: its API resource, its group and what the service keeps."""

    group: Group
    name: str
    resource: dict[str, Any]
    resize_by: int
    run: int | None
    order: int
    insert_op: str | None
    accept_at: dt.datetime | None
    doom: Doom | None = None
    provisioned: bool = False

    @property
    def state(self) -> str:
        return str(self.resource["state"])


class ResizeRequestStore(ComputeStore):
    """Every resize request, by group and name (see the module doc)."""

    def __init__(self, shared: Shared, instances: InstanceStore) -> None:
        super().__init__(shared)
        self.instances = instances
        self.requests: dict[tuple[GroupKey, str], ResizeRequest] = {}
        self._next_doom: tuple[float, str, dict[str, str]] | None = None
        self._ids = itertools.count(1)
        self.inserted: list[dict[str, Any]] = []
        """Every resize request really created: ``{"requestId", "selfLink", "id", "at"}``."""

    # ------------------------------------------------------------------ what groups ask
    def _vms(self, request: ResizeRequest) -> list[Any]:
        return self.instances.made_by(request.group.key, request.name)

    def pending(self, group: GroupKey) -> int:
        return sum(
            r.resize_by
            for r in self.requests.values()
            if r.group.key == group and r.state in ACTIVE and not self._vms(r)
        )

    def in_flight(self, group: GroupKey) -> bool:
        return any(r.group.key == group and r.state in ACTIVE for r in self.requests.values())

    def forget_group(self, group: GroupKey) -> None:
        for key in [k for k in self.requests if k[0] == group]:
            del self.requests[key]

    # ------------------------------------------------------------------ reading
    def found(self, group: GroupKey, name: str) -> ResizeRequest:
        request = self.requests.get((group, name))
        if request is None:
            raise not_found(
                f"projects/{group[0]}/{group[1]}/instanceGroupManagers/{group[2]}"
                f"/resizeRequests/{name}"
            )
        return request

    def resources(self, project: str | None = None) -> list[dict[str, Any]]:
        """Copies of every resize request (of ``project``), oldest first."""
        with self.lock:
            return [
                copy.deepcopy(r.resource)
                for r in sorted(self.requests.values(), key=lambda r: r.order)
                if project in (None, r.group.key[0])
            ]

    def of_group(self, group: GroupKey) -> list[dict[str, Any]]:
        with self.lock:
            found = [r for (g, _), r in self.requests.items() if g == group]
            return [copy.deepcopy(r.resource) for r in sorted(found, key=lambda r: r.order)]

    # ------------------------------------------------------------------ test hooks
    def doom(
        self, group: GroupKey, name: str, state: str, error: dict[str, str], after: float
    ) -> None:
        """End a request not yet finished with ``state``, now or ``after`` virtual seconds."""
        with self.lock:
            request = self.found(group, name)
            request.doom = (self.moment.at + dt.timedelta(seconds=after), state, error)
            if after <= 0:
                self.tick(self.moment.at)

    def doom_next(self, after: float, state: str, error: dict[str, str]) -> None:
        with self.lock:
            self._next_doom = (after, state, error)

    def forget_scripted_failure(self) -> None:
        with self.lock:
            self._next_doom = None

    def remove(self, group: GroupKey, name: str) -> None:
        """Delete a request behind the API's back (its VMs stay)."""
        with self.lock:
            self.found(group, name)
            del self.requests[(group, name)]

    # ------------------------------------------------------------------ the clock
    def next_event(self) -> dt.datetime | None:
        times: list[dt.datetime | None] = []
        for request in self.requests.values():
            if request.state == "CREATING" and request.accept_at is not None:
                times.append(request.accept_at)
            if request.doom is not None and request.state not in FINISHED:
                times.append(request.doom[0])
        return earliest(times)

    def tick(self, now: dt.datetime) -> None:
        """Acceptances, scripted ends, placements (oldest request first), completions."""
        with self.lock:
            self.moment.move(now)
            for request in sorted(self.requests.values(), key=lambda r: r.order):
                self._settle(request, now)

    def _settle(self, request: ResizeRequest, now: dt.datetime) -> None:
        if request.doom is not None and request.doom[0] <= now and request.state in ACTIVE:
            self._end(request, request.doom[1], request.doom[2])
            return
        if request.state == "CREATING" and request.accept_at and request.accept_at <= now:
            request.resource["state"] = "ACCEPTED"
            self.operations.finish(request.insert_op, now)
        vms = self._vms(request)
        if request.state == "ACCEPTED" and not vms:
            self._provision(request)
            vms = self._vms(request)
        if request.state == "ACCEPTED" and vms and all(vm.status == "RUNNING" for vm in vms):
            request.resource["state"] = "SUCCEEDED"

    def _provision(self, request: ResizeRequest) -> None:
        """Create all of the request's VMs in one zone with room for them all, or none."""
        group = request.group
        for zone in group.zones:
            if self.capacity.take(zone, group.machine_type, request.resize_by):
                for _ in range(request.resize_by):
                    group.new_vm(
                        self.instances,
                        zone,
                        run=request.run,
                        boot=max(0.0, float(self.settings.mig_boot_seconds)),
                        made_by=request.name,
                    )
                return

    def _end(self, request: ResizeRequest, state: str, error: dict[str, str] | None) -> None:
        for vm in self._vms(request):
            self.instances.drop(vm)
        request.resource["state"] = state
        if state == "FAILED" and error:
            request.resource["status"] = {"error": {"errors": [dict(error)]}}
        self.operations.finish(request.insert_op, self.moment.at)

    # ------------------------------------------------------------------ API methods
    def insert(
        self, key: GroupKey, find: Finder, body: dict[str, Any], *, request_id: str | None = None
    ) -> Operation:
        """``resizeRequests.insert`` on the group ``find`` returns (Google's 404 if there is
        none): ``CREATING``, then ``ACCEPTED`` (see the module doc)."""
        project, scope, _ = key

        def action() -> Operation:
            group = find()
            name = body.get("name")
            if not name:
                raise GoogleError(400, "Required field 'resource.name' not specified", "required")
            target = f"{group.path}/resizeRequests/{name}"
            if (group.key, name) in self.requests:
                raise GoogleError(409, f"The resource '{target}' already exists", "alreadyExists")
            REQUEST_RULES.check(
                TakingRequests(group.path, group.resource, group.properties, group.regional)
            )
            resize_by = _resize_by(body, scope)
            run = _run_seconds(body, group)
            n = next(self._ids)
            now = self.moment.at
            root = COMPUTE_SELF_LINK_ROOT
            resource: dict[str, Any] = {
                "kind": "compute#instanceGroupManagerResizeRequest",
                "id": str(9_000_000_000 + n),
                "name": name,
                "resizeBy": resize_by,
                "state": "CREATING",
                "creationTimestamp": timestamp(now),
                "selfLink": root + target,
                "selfLinkWithId": f"{root}{group.path}/resizeRequests/{9_000_000_000 + n}",
                "zone"
                if scope.startswith("zones/")
                else "region": f"{root}projects/{project}/{scope}",
            }
            for key in ("requestedRunDuration", "description"):
                if body.get(key) is not None:
                    resource[key] = copy.deepcopy(body[key])
            op = self.operations.new(project, "insert", target, scope=scope, done=False)
            op["targetId"] = resource["id"]
            accept = now + dt.timedelta(seconds=max(0.0, float(self.settings.mig_accept_seconds)))
            request = ResizeRequest(
                group, str(name), resource, resize_by, run, n, op["name"], accept
            )
            if self._next_doom is not None:
                after, state, error = self._next_doom
                request.doom = (now + dt.timedelta(seconds=after), state, error)
                self._next_doom = None
            self.requests[(group.key, str(name))] = request
            self.inserted.append(
                {"requestId": request_id, "selfLink": resource["selfLink"], "id": resource["id"],
                 "at": now}
            )  # fmt: skip
            self.tick(now)
            return self.operations.stored(op["name"])

        return self.operations.once(project, request_id, action)

    def cancel(
        self, key: GroupKey, find: Finder, name: str, *, request_id: str | None = None
    ) -> Operation:
        """``cancel``: only an ``ACCEPTED`` request; its VMs roll back."""

        def action() -> Operation:
            group = find()
            request = self.found(group.key, name)
            if request.state != "ACCEPTED":
                raise GoogleError(
                    400,
                    f"The resize request '{name}' is {request.state}: only an ACCEPTED request "
                    "can be cancelled.",
                    "conditionNotMet",
                )
            self._end(request, "CANCELLED", None)
            target = str(request.resource["selfLink"])[len(COMPUTE_SELF_LINK_ROOT) :]
            return self.operations.new(group.key[0], "cancel", target, scope=group.key[1])

        return self.operations.once(key[0], request_id, action)

    def delete(
        self, key: GroupKey, find: Finder, name: str, *, request_id: str | None = None
    ) -> Operation:
        """``delete``: only a finished request; the VMs it made stay in the group."""

        def action() -> Operation:
            group = find()
            request = self.found(group.key, name)
            if request.state not in FINISHED:
                raise GoogleError(
                    400,
                    f"The resize request '{name}' is {request.state}: only a SUCCEEDED, FAILED "
                    "or CANCELLED request can be deleted (cancel it first).",
                    "conditionNotMet",
                )
            del self.requests[(group.key, name)]
            target = str(request.resource["selfLink"])[len(COMPUTE_SELF_LINK_ROOT) :]
            return self.operations.new(group.key[0], "delete", target, scope=group.key[1])

        return self.operations.once(key[0], request_id, action)


def _resize_by(body: dict[str, Any], scope: str) -> int:
    if body.get("instances"):
        raise GoogleError(
            400,
            "Invalid value for field 'resource.instances': the emulator supports resizeBy only.",
            "invalid",
        )
    value = body.get("resizeBy")
    cap = limits.get(GROUP_SIZE_ROWS[scope.split("/", 1)[0]]).maximum or 0
    if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= cap:
        raise GoogleError(
            400,
            f"Invalid value for field 'resource.resizeBy': {value!r}. It must be between 1 "
            f"and {cap}.",
            "invalid",
        )
    return value


def _run_seconds(body: dict[str, Any], group: Group) -> int | None:
    spec = body.get("requestedRunDuration")
    if spec is None:
        spec = (group.properties.get("scheduling") or {}).get("maxRunDuration")
        return int(spec["seconds"]) if spec and spec.get("seconds") is not None else None
    return within("requestedRunDuration", spec, "mig.requested_run_duration")


class ResizeRequestsApi(Api):
    """``instanceGroupManagerResizeRequests`` and ``regionInstanceGroupManagerResizeRequests``:
    the group a path names is found (Google's 404) before its requests are."""

    resources: ClassVar[tuple[str, ...]] = (
        "instanceGroupManagerResizeRequests",
        "regionInstanceGroupManagerResizeRequests",
    )

    def __init__(
        self, requests: ResizeRequestStore, groups: GroupStore, schema: DiscoverySchema
    ) -> None:
        self.requests = requests
        self.groups = groups
        self.schema = schema

    def _group(self, req: Request) -> Group:
        with self.groups.lock:
            return self.groups.found(group_of(req))

    def _finder(self, req: Request) -> tuple[GroupKey, Finder]:
        key = group_of(req)
        return key, lambda: self.groups.found(key)

    def insert(self, req: Request) -> Response:
        body = body_object(req, "an InstanceGroupManagerResizeRequest")
        self.schema.require("InstanceGroupManagerResizeRequest", body, root="resize_request")
        op = self.requests.insert(*self._finder(req), body, request_id=request_id(req))
        return Response(200, op)

    def list(self, req: Request) -> Response:
        items = self.requests.of_group(self._group(req).key)
        body: dict[str, Any] = {"kind": "compute#instanceGroupManagerResizeRequestsListResponse"}
        if items:
            body["items"] = items
        return Response(200, body)

    def get(self, req: Request) -> Response:
        with self.requests.lock:
            found = self.requests.found(self._group(req).key, req.params["resizeRequest"])
            return Response(200, copy.deepcopy(found.resource))

    def cancel(self, req: Request) -> Response:
        op = self.requests.cancel(
            *self._finder(req), req.params["resizeRequest"], request_id=request_id(req)
        )
        return Response(200, op)

    def delete(self, req: Request) -> Response:
        op = self.requests.delete(
            *self._finder(req), req.params["resizeRequest"], request_id=request_id(req)
        )
        return Response(200, op)
