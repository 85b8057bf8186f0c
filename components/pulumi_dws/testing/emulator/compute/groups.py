"""Managed instance groups of the emulated Compute API, zonal (``instanceGroupManagers``) and
regional (``regionInstanceGroupManagers``).

A group's VMs are ordinary emulated instances. Its ``targetSize`` is what it holds: its VMs
plus the ``resizeBy`` of its resize requests still ``CREATING`` or ``ACCEPTED`` with no VMs
yet (Google raises it on acceptance and lowers it when a request fails or is cancelled; the
emulator also lowers it as VMs end, are deleted or roll back). A group whose template uses
``FLEX_START`` starts at size 0 and grows only through resize requests; ``resize`` is refused
while a request is in flight; deleting a group deletes its VMs and its requests. A group's
create request is checked by :data:`~.group_rules.GROUP_RULES` (update policy, redistribution,
zones, workload policy, A4X), with the workload policy it names as :mod:`.resource_policies`
holds it; a create Google refuses makes nothing.

The ``beta`` API (what the pulumi-gcp provider calls) answers ``insert``, ``get`` and ``delete``
of the same groups, checked against the beta discovery document (beta-only fields such as
``params`` and ``updatePolicy.minReadySec``).
"""

from __future__ import annotations

import copy
import hashlib
import itertools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol

from ..base import GoogleError, Request, Response
from ..discovery import DiscoverySchema
from ..routing import Api
from .common import COMPUTE_SELF_LINK_ROOT, Operation, last, not_found, timestamp
from .group_rules import GROUP_RULES, NewGroup, flex_start
from .instances import InstanceStore, Vm
from .operations import ComputeStore, Shared, body_object, request_id
from .resource_policies import PolicyKey, PolicyStore, policy_key
from .templates import TemplateStore

__all__ = ["Group", "GroupKey", "GroupRequests", "GroupStore", "GroupsApi", "group_of"]

GroupKey = tuple[str, str, str]
"""``(project, scope, group name)``; the scope is ``zones/<zone>`` or ``regions/<region>``."""


@dataclass
class Group:
    """One managed instance group: its API resource, the zones it places VMs in and its
    template's properties when it was made."""

    key: GroupKey
    resource: dict[str, Any]
    zones: list[str]
    properties: dict[str, Any]
    names: int = 0  # VM names handed out

    @property
    def path(self) -> str:
        project, scope, name = self.key
        return f"projects/{project}/{scope}/instanceGroupManagers/{name}"

    @property
    def machine_type(self) -> str:
        return last(str(self.properties.get("machineType") or ""))

    @property
    def regional(self) -> bool:
        return self.key[1].startswith("regions/")

    def new_vm(
        self,
        instances: InstanceStore,
        zone: str,
        *,
        run: int | None,
        boot: float,
        made_by: str | None = None,
    ) -> Vm:
        """One more VM of the group in ``zone``, named from its base instance name, on capacity
        the caller took."""
        project = self.key[0]
        base = str(self.resource["baseInstanceName"])
        while True:
            self.names += 1
            digest = hashlib.sha256(f"{self.path}#{self.names}".encode()).hexdigest()
            name = f"{base}-{digest[:4]}"
            if (project, zone, name) not in instances.vms:
                break
        body = copy.deepcopy(self.properties)
        body.update(name=name, machineType=self.machine_type)
        items = list((body.get("metadata") or {}).get("items") or [])
        items.append({"key": "created-by", "value": self.path})
        body["metadata"] = {"items": items}
        return instances.add_group_vm(
            self.key, self.path, zone, name, body, run=run, boot=boot, made_by=made_by
        )


class GroupRequests(Protocol):
    """What a group needs to know of its resize requests (the resize request store)."""

    def pending(self, group: GroupKey) -> int:
        """VMs its requests in flight will add (not made yet)."""
        ...

    def in_flight(self, group: GroupKey) -> bool:
        """Whether a request of the group is ``CREATING`` or ``ACCEPTED``."""
        ...

    def forget_group(self, group: GroupKey) -> None:
        """The group is deleted: so are its requests."""
        ...


def group_of(req: Request) -> GroupKey:
    """The group a request's path names."""
    p = req.params
    scope = f"zones/{p['zone']}" if "zone" in p else f"regions/{p['region']}"
    return p["project"], scope, p["instanceGroupManager"]


class GroupStore(ComputeStore):
    """Every managed instance group (see the module doc)."""

    def __init__(
        self,
        shared: Shared,
        templates: TemplateStore,
        instances: InstanceStore,
        requests: GroupRequests,
        policies: PolicyStore | None = None,
    ) -> None:
        super().__init__(shared)
        self.templates = templates
        self.instances = instances
        self.requests = requests
        self.policies = policies
        self.groups: dict[GroupKey, Group] = {}
        self._ids = itertools.count(1)

    def found(self, key: GroupKey) -> Group:
        """The group, or Google's 404."""
        group = self.groups.get(key)
        if group is None:
            raise not_found(f"projects/{key[0]}/{key[1]}/instanceGroupManagers/{key[2]}")
        return group

    def policy_users(self, key: PolicyKey) -> list[str]:
        """The groups whose workload policy is the policy ``key``."""
        with self.lock:
            users = []
            for group in self.groups.values():
                link = (group.resource.get("resourcePolicies") or {}).get("workloadPolicy")
                project, scope, _ = group.key
                place = scope.split("/", 1)[1]
                region = place if group.regional else place.rsplit("-", 1)[0]
                if link and policy_key(str(link), project, region) == key:
                    users.append(group.path)
            return users

    def view(self, group: Group) -> dict[str, Any]:
        """The group as ``get`` returns it: its size and whether it is stable."""
        view = copy.deepcopy(group.resource)
        vms = self.instances.of_group(group.key)
        view["targetSize"] = len(vms) + self.requests.pending(group.key)
        view["status"] = {"isStable": not any(vm.status != "RUNNING" for vm in vms)}
        view["currentActions"] = {
            "creating": sum(1 for vm in vms if vm.status != "RUNNING"),
            "none": sum(1 for vm in vms if vm.status == "RUNNING"),
        }
        return view

    def views(self, project: str | None = None) -> list[dict[str, Any]]:
        with self.lock:
            return [self.view(g) for k, g in self.groups.items() if project in (None, k[0])]

    def insert(
        self, project: str, scope: str, body: dict[str, Any], *, request_id: str | None = None
    ) -> Operation:
        """``instanceGroupManagers.insert`` (zonal or regional)."""

        def action() -> Operation:
            name = body.get("name")
            if not name:
                raise GoogleError(400, "Required field 'resource.name' not specified", "required")
            key = (project, scope, str(name))
            group_path = f"projects/{project}/{scope}/instanceGroupManagers/{name}"
            if key in self.groups:
                raise GoogleError(
                    409, f"The resource '{group_path}' already exists", "alreadyExists"
                )
            versions = body.get("versions") or [{}]
            template = body.get("instanceTemplate") or versions[0].get("instanceTemplate")
            if not template:
                raise GoogleError(
                    400, "Required field 'resource.instanceTemplate' not specified", "required"
                )
            properties = self.templates.properties(project, str(template))
            new = NewGroup(body, properties, scope, group_path)
            if new.policy_link and self.policies is not None:
                found = self.policies.find(new.policy_link, project, new.region)
                new = NewGroup(body, properties, scope, group_path, found)
            GROUP_RULES.check(new)
            where = scope.split("/", 1)[0]
            zones = new.zones
            root = COMPUTE_SELF_LINK_ROOT
            resource = copy.deepcopy(body)
            resource.update(
                kind="compute#instanceGroupManager",
                id=str(8_000_000_000 + next(self._ids)),
                selfLink=root + group_path,
                creationTimestamp=timestamp(self.moment.at),
                baseInstanceName=body.get("baseInstanceName") or name,
                instanceGroup=f"{root}projects/{project}/{scope}/instanceGroups/{name}",
                fingerprint=hashlib.sha256(group_path.encode()).hexdigest()[:12],
            )
            resource["zone" if where == "zones" else "region"] = f"{root}projects/{project}/{scope}"
            group = Group(key, resource, zones, properties)
            self.groups[key] = group
            if new.size:
                try:
                    self._grow(group, new.size)
                except GoogleError:
                    del self.groups[key]  # a refused create makes nothing
                    raise
            return self.operations.new(project, "insert", group_path, scope=scope)

        return self.operations.once(project, request_id, action)

    def _grow(self, group: Group, count: int) -> None:
        for zone in group.zones:
            if self.capacity.take(zone, group.machine_type, count):
                for _ in range(count):
                    group.new_vm(
                        self.instances, zone, run=None, boot=self.settings.mig_boot_seconds
                    )
                return
        raise GoogleError(
            503,
            f"The zone does not have enough resources available to fulfill the request: "
            f"{count} x {group.machine_type} in {', '.join(group.zones)}.",
            "ZONE_RESOURCE_POOL_EXHAUSTED",
        )

    def delete(
        self, project: str, scope: str, name: str, *, request_id: str | None = None
    ) -> Operation:
        """Deleting a group deletes its VMs and its resize requests."""

        def action() -> Operation:
            group = self.found((project, scope, name))
            for vm in self.instances.of_group(group.key):
                self.instances.drop(vm)
            self.requests.forget_group(group.key)
            del self.groups[group.key]
            return self.operations.new(project, "delete", group.path, scope=scope)

        return self.operations.once(project, request_id, action)

    def managed_instances_page(self, key: GroupKey, query: Mapping[str, str]) -> dict[str, Any]:
        """``listManagedInstances`` as Google answers it: every VM at once, unless the group's
        ``listManagedInstancesResults`` is ``PAGINATED``; then ``maxResults`` (default and at
        most ``mig_page_size``, 500 at Google) from ``pageToken``, and ``nextPageToken`` while
        more follow (https://cloud.google.com/compute/docs/reference/rest/v1/
        instanceGroupManagers: ``listManagedInstancesResults``, "PAGELESS ... maxResults and
        pageToken query parameters are ignored")."""
        every = self.managed_instances(key)
        with self.lock:
            paged = self.found(key).resource.get("listManagedInstancesResults")
        if paged != "PAGINATED":
            return {"managedInstances": every}
        most = max(1, int(self.settings.mig_page_size))
        size = max(1, min(int(query.get("maxResults") or most), most))
        start = int(query.get("pageToken") or 0)
        page: dict[str, Any] = {"managedInstances": every[start : start + size]}
        if start + size < len(every):
            page["nextPageToken"] = str(start + size)
        return page

    def managed_instances(self, key: GroupKey) -> list[dict[str, Any]]:
        """``listManagedInstances``: one entry per VM of the group."""
        with self.lock:
            group = self.found(key)
            template = group.resource.get("instanceTemplate") or (
                (group.resource.get("versions") or [{}])[0].get("instanceTemplate")
            )
            out = []
            for vm in self.instances.of_group(group.key):
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

    def resize(
        self, project: str, scope: str, name: str, size: int, *, request_id: str | None = None
    ) -> Operation:
        """``resize``: refused while a resize request is in flight; shrinking deletes the newest
        VMs; growing creates VMs now (a FLEX_START group only grows by resize requests)."""

        def action() -> Operation:
            group = self.found((project, scope, name))
            if self.requests.in_flight(group.key):
                raise GoogleError(
                    400,
                    f"The target size of '{group.path}' can't be changed while it has accepted "
                    "resize requests.",
                    "conditionNotMet",
                )
            if size < 0:
                raise GoogleError(400, f"Invalid value for field 'size': {size}.", "invalid")
            vms = self.instances.of_group(group.key)
            if size > len(vms) and flex_start(group.properties):
                raise GoogleError(
                    400,
                    f"'{group.path}' uses a FLEX_START instance template: add VMs with resize "
                    "requests, not resize.",
                    "invalid",
                )
            for vm in vms[size:][::-1]:
                self.instances.drop(vm)
            if size > len(vms):
                self._grow(group, size - len(vms))
            return self.operations.new(project, "resize", group.path, scope=scope)

        return self.operations.once(project, request_id, action)

    def delete_instances(
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
            group = self.found((project, scope, name))
            mine = {vm.key[2]: vm for vm in self.instances.of_group(group.key)}
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
                if vm is not None and vm.key in self.instances.vms:
                    self.instances.drop(vm)
            return self.operations.new(project, "deleteInstances", group.path, scope=scope)

        return self.operations.once(project, request_id, action)


class GroupsApi(Api):
    """``instanceGroupManagers`` and ``regionInstanceGroupManagers``."""

    resources: ClassVar[tuple[str, ...]] = (
        "instanceGroupManagers",
        "regionInstanceGroupManagers",
    )

    def __init__(self, groups: GroupStore, schema: DiscoverySchema) -> None:
        self.groups = groups
        self.schema = schema

    def insert(self, req: Request) -> Response:
        body = body_object(req, "an InstanceGroupManager")
        self.schema.require("InstanceGroupManager", body, root="instance_group_manager")
        p = req.params
        scope = f"zones/{p['zone']}" if "zone" in p else f"regions/{p['region']}"
        op = self.groups.insert(p["project"], scope, body, request_id=request_id(req))
        return Response(200, op)

    def get(self, req: Request) -> Response:
        with self.groups.lock:
            return Response(200, self.groups.view(self.groups.found(group_of(req))))

    def delete(self, req: Request) -> Response:
        return Response(200, self.groups.delete(*group_of(req), request_id=request_id(req)))

    def list_managed_instances(self, req: Request) -> Response:
        return Response(200, self.groups.managed_instances_page(group_of(req), req.query))

    def resize(self, req: Request) -> Response:
        try:
            size = int(req.query.get("size", ""))
        except ValueError:
            raise GoogleError(
                400, "Required parameter 'size' is missing or not an integer.", "required"
            ) from None
        op = self.groups.resize(*group_of(req), size, request_id=request_id(req))
        return Response(200, op)

    def delete_instances(self, req: Request) -> Response:
        body = body_object(req, "a DeleteInstancesRequest")
        schema = (
            "RegionInstanceGroupManagersDeleteInstancesRequest"
            if "region" in req.params
            else "InstanceGroupManagersDeleteInstancesRequest"
        )
        self.schema.require(schema, body)
        op = self.groups.delete_instances(*group_of(req), body, request_id=request_id(req))
        return Response(200, op)
