"""The emulated Compute Engine v1 API: the subset pulumi-dws calls, with DWS Flex-start behaviour.

    with Emulator() as emu:
        compute = emu["compute"]
        compute.add_capacity("us-central1-a", "a3-highgpu-8g", 1, after=3600)  # arrives in 1 h
        ...  # insert a FLEX_START VM with params.requestValidForDuration = 2 h: it is PENDING
        emu.clock.advance(3600)                                              # now RUNNING

Laid out like every emulated service (see ``docs/emulator-services.md``): one store per
resource (``instances.py``, ``templates.py``, ``groups.py``, ``resize_requests.py``), each with
its state, its clock and the handlers of its API methods; ``operations.py`` holds the
operations and request ids they share; ``*_rules.py`` the rules Google documents, each with its
source. :class:`ComputeService` joins them; its helpers are what tests call.

Behaviour (all on the virtual clock):

* ``instances.insert`` validates the body against the discovery schema ``Instance`` (400 on an
  unknown field or a wrong type), merges ``sourceInstanceTemplate`` properties under the body,
  and enforces the Flex-start rules (``maxRunDuration``, ``onHostMaintenance: TERMINATE``, no
  automatic restart, the queue window limits). With ``params.requestValidForDuration`` the VM
  is ``PENDING`` and its insert operation ``RUNNING`` until capacity arrives (then ``RUNNING``,
  operation ``DONE``) or the window ends (operation ``DONE`` with a
  ``ZONE_RESOURCE_POOL_EXHAUSTED`` error; the VM is removed, or kept ``TERMINATED`` with
  ``keep_failed_instances``). Without it: ``RUNNING`` if capacity is free now, else Compute
  keeps trying for ``fail_fast_seconds`` (about 90 s) and then fails the same way.
* ``maxRunDuration`` ends a run: ``instanceTerminationAction`` ``STOP`` leaves the VM
  ``TERMINATED`` (kept), ``DELETE`` removes it; either way its capacity is given back.
* ``stop`` releases capacity; ``start`` places a new capacity request (queued for the VM's
  original window, or fail-fast) and restarts the run clock once placed.
* ``get``, ``list``, ``delete``, ``setLabels`` / ``setMetadata`` (fingerprints checked: 412 on a
  stale one), ``setMachineType`` (stopped VMs only), zone operations ``get`` / ``wait``,
  instance templates ``insert`` / ``get`` / ``delete`` and global operations ``get``.
* ``suspend`` / ``resume``; :meth:`~ComputeService.set_status` gives a VM a status as Compute
  would on its own, :meth:`~ComputeService.transition` a passing state (``STOPPING``,
  ``SUSPENDING``, ``PENDING_STOP``...) that settles later on the virtual clock.
* ``requestId`` (a UUID) makes every mutation idempotent: the same id answers the same
  operation and does nothing twice, for ``request_id_ttl`` seconds (Compute keeps them "at
  least 60 minutes"); afterwards the id is forgotten and a repeat is a new request. Note what
  that means after a deliberate delete: an insert repeated with the id of the insert that made
  the deleted VM is answered with that old, finished operation, while no VM exists.
  :attr:`~ComputeService.inserted` logs each VM really created, with its request id, and
  :attr:`~ComputeService.created` with its instance id and time, so tests can prove there were
  no duplicate creates and count orphans from the emulator's own records.
* Path parameters (project, zone, instance, operation) and name fields must match the
  ``pattern`` of the discovery document, as Google checks them.
* Workload policies (``resourcePolicies``, :mod:`.resource_policies`) and the ``beta`` paths the
  pulumi-gcp provider calls for groups and policies (checked against the beta document).
* Managed instance groups (zonal and regional), regional instance templates and resize
  requests (``CREATING`` -> ``ACCEPTED`` -> ``SUCCEEDED`` when capacity for the whole set
  arrives, all or nothing; ``FAILED``/``CANCELLED`` roll the VMs back; the VMs are deleted at the
  run's end), with region operations: see :mod:`.groups`, :mod:`.resize_requests` and the
  test hooks
  (``fail_resize_request``, ``fail_next_resize_request``, ``remove_resize_request``,
  ``mig_accept_seconds``, ``mig_boot_seconds``); :attr:`~ComputeService.resize_inserted` logs
  each request really created.
"""

from __future__ import annotations

import copy
import datetime as dt
import threading
from typing import Any

from ..base import Route, VirtualClock
from ..capacity import CapacityModel
from ..discovery import DiscoverySchema
from ..routing import discovered_routes
from ..store import Clockwork, Moment
from .common import COMPUTE_SELF_LINK_ROOT, ComputeSettings, Operation
from .groups import GroupsApi, GroupStore
from .instances import STOCKOUT_CODE, InstancesApi, InstanceStore
from .operations import ComputeOperations, OperationsApi, RegionalOperationsApi, Shared, scope_of
from .resize_requests import ResizeRequestsApi, ResizeRequestStore
from .resource_policies import PolicyStore, ResourcePoliciesApi
from .templates import TemplatesApi, TemplateStore

__all__ = [
    "COMPUTE_SELF_LINK_ROOT",
    "STOCKOUT_CODE",
    "ComputeBackend",
    "ComputeService",
    "ComputeSettings",
    "scope_of",
]


SCHEMA_TARGETS: dict[str, dict[str, tuple[str, ...]]] = {
    "compute.v1": {
        "methods": (
            "compute.instances.insert",
            "compute.instances.get",
            "compute.instances.list",
            "compute.instances.aggregatedList",  # dws leftovers: what a stack marked
            "compute.instances.delete",
            "compute.instances.stop",
            "compute.instances.start",
            "compute.instances.suspend",
            "compute.instances.resume",
            "compute.instances.setLabels",
            "compute.instances.setMetadata",
            "compute.instances.setMachineType",
            "compute.zoneOperations.get",
            "compute.zoneOperations.wait",
            "compute.instanceTemplates.insert",
            "compute.instanceTemplates.get",
            "compute.instanceTemplates.delete",
            "compute.globalOperations.get",
            "compute.regionOperations.get",
            "compute.regionInstanceTemplates.insert",
            "compute.regionInstanceTemplates.get",
            "compute.regionInstanceTemplates.delete",
            "compute.instanceGroupManagers.insert",
            "compute.instanceGroupManagers.get",
            "compute.instanceGroupManagers.delete",
            "compute.instanceGroupManagers.listManagedInstances",
            "compute.instanceGroupManagers.resize",
            "compute.instanceGroupManagers.deleteInstances",
            "compute.regionInstanceGroupManagers.insert",
            "compute.regionInstanceGroupManagers.get",
            "compute.regionInstanceGroupManagers.delete",
            "compute.regionInstanceGroupManagers.listManagedInstances",
            "compute.regionInstanceGroupManagers.resize",
            "compute.regionInstanceGroupManagers.deleteInstances",
            "compute.instanceGroupManagerResizeRequests.insert",
            "compute.instanceGroupManagerResizeRequests.get",
            "compute.instanceGroupManagerResizeRequests.list",
            "compute.instanceGroupManagerResizeRequests.cancel",
            "compute.instanceGroupManagerResizeRequests.delete",
            "compute.regionInstanceGroupManagerResizeRequests.insert",
            "compute.regionInstanceGroupManagerResizeRequests.get",
            "compute.regionInstanceGroupManagerResizeRequests.list",
            "compute.regionInstanceGroupManagerResizeRequests.cancel",
            "compute.regionInstanceGroupManagerResizeRequests.delete",
            "compute.advice.calendarMode",
            "compute.advice.capacity",
            "compute.resourcePolicies.insert",
            "compute.resourcePolicies.get",
            "compute.resourcePolicies.delete",
        ),
        "schemas": (),
    },
    # What the pulumi-gcp provider calls (terraform-provider-google-beta: Compute's beta API):
    # the instance group managers and workload policies it creates, with beta-only fields
    # (InstanceGroupManager.params, updatePolicy.minReadySec).
    "compute.beta": {
        "methods": (
            "compute.instanceGroupManagers.insert",
            "compute.instanceGroupManagers.get",
            "compute.instanceGroupManagers.delete",
            "compute.regionInstanceGroupManagers.insert",
            "compute.regionInstanceGroupManagers.get",
            "compute.regionInstanceGroupManagers.delete",
            "compute.resourcePolicies.insert",
            "compute.resourcePolicies.get",
            "compute.resourcePolicies.delete",
            "compute.zoneOperations.get",
            "compute.regionOperations.get",
        ),
        "schemas": (),
    },
}  # fmt: skip
"""What this API validates: the methods it serves and the schemas they reach
(``scripts/generate_emulator_schemas.py`` cuts the packaged document to them)."""

_FAILURE = "Compute Engine could not provision the requested VMs."


class ComputeService(ComputeSettings):
    """The emulated Compute Engine: its stores, joined on one clock, served at their routes
    (what the emulator plugs in as ``compute``), and the helpers tests call.

    Args:
        clock: the virtual clock everything happens on.
        capacity: free capacity per zone and machine type (shared with the advice methods).
        fail_fast_seconds, keep_failed_instances, request_id_ttl: see
            :class:`~.common.ComputeSettings` (also settable later, as attributes).
    """

    def __init__(
        self,
        clock: Any,
        capacity: CapacityModel | None = None,
        fail_fast_seconds: float = 90,
        keep_failed_instances: bool = False,
        name: str = "compute",
        request_id_ttl: float = 3600.0,
    ) -> None:
        self.clock = clock
        self.name = name
        self.capacity = capacity if capacity is not None else CapacityModel(now=clock.now())
        self.fail_fast_seconds = fail_fast_seconds
        self.keep_failed_instances = keep_failed_instances
        self.request_id_ttl = request_id_ttl
        self.lock = threading.RLock()
        self.moment = Moment(clock.now())
        self.operations = ComputeOperations(self.moment, self.lock, self)
        shared = Shared(self.moment, self.lock, self, self.capacity, self.operations)
        self.templates = TemplateStore(shared)
        self.vms = InstanceStore(shared, self.templates)
        self.requests = ResizeRequestStore(shared, self.vms)
        self.resource_policies = PolicyStore(shared)
        self.migs = GroupStore(
            shared, self.templates, self.vms, self.requests, self.resource_policies
        )
        self.stores = (
            self.operations,
            self.templates,
            self.vms,
            self.requests,
            self.resource_policies,
            self.migs,
        )
        self.clockwork = Clockwork([self.capacity, *self.stores], self.moment, self.lock)
        # Listen to the clock from construction on, so capacity arrivals are applied here, in
        # time order with window ends and run ends, before any other service's tick applies
        # them all at once (the server subscribes tick() again later; a second call is a no-op).
        self.clock.subscribe(self.tick)

    # ------------------------------------------------------------------ serving
    def routes(self) -> list[Route]:
        """The Compute v1 paths this service answers (under ``/compute/v1/``), and the beta
        ones the pulumi-gcp provider calls for groups and workload policies (under
        ``/compute/beta/``, checked against the beta document)."""
        schema = DiscoverySchema.load("compute", "v1")
        apis = [
            InstancesApi(self.vms, schema),
            OperationsApi(self.operations),
            TemplatesApi(self.templates, schema),
            GroupsApi(self.migs, schema),
            ResizeRequestsApi(self.requests, self.migs, schema),
            ResourcePoliciesApi(self.resource_policies, self.migs.policy_users, schema),
        ]
        beta = DiscoverySchema.load("compute", "beta")
        beta_apis = [
            GroupsApi(self.migs, beta),
            ResourcePoliciesApi(self.resource_policies, self.migs.policy_users, beta),
            RegionalOperationsApi(self.operations),
        ]
        return discovered_routes(schema, apis) + discovered_routes(beta, beta_apis)

    def tick(self, now: dt.datetime) -> None:
        """Apply, in time order, every arrival, placement, window end and run end up to now."""
        self.clockwork.tick(now)

    def reset(self) -> None:
        """Forget every resource, operation and request id, and all free capacity."""
        with self.lock:
            self.capacity.reset()
            for store in self.stores:
                store.reset()

    # ------------------------------------------------------------------ records
    @property
    def inserted(self) -> list[tuple[str | None, str]]:
        """Every VM really created by ``insert``: ``(requestId, instance selfLink)``."""
        return self.vms.inserted

    @property
    def created(self) -> list[dict[str, Any]]:
        """Every VM really created: ``{"requestId", "selfLink", "id", "name", "at"}``."""
        return self.vms.created

    @property
    def resize_inserted(self) -> list[dict[str, Any]]:
        """Every resize request really created: ``{"requestId", "selfLink", "id", "at"}``."""
        return self.requests.inserted

    # ------------------------------------------------------------------ instances
    def add_capacity(
        self, zone: str, machine_type: str, count: int = 1, *, after: float = 0.0
    ) -> None:
        """``count`` VMs of ``machine_type`` become placeable in ``zone`` (``after`` seconds)."""
        self.capacity.add(zone, machine_type, count, after=after)
        if after <= 0:
            self.clockwork.settle(self.moment.at)

    def instance(self, project: str, zone: str, name: str) -> dict[str, Any] | None:
        """A copy of an instance as ``instances.get`` returns it, or None."""
        with self.lock:
            vm = self.vms.vms.get((project, zone, name))
            return copy.deepcopy(vm.resource) if vm else None

    def instances(self, project: str | None = None) -> list[dict[str, Any]]:
        """Copies of every instance (of ``project``)."""
        return self.vms.resources(project)

    def operation(self, name: str) -> Operation:
        """A copy of an operation as ``zoneOperations.get`` returns it."""
        return self.operations.copy(name)

    def remove_instance(self, project: str, zone: str, name: str) -> None:
        """Delete a VM behind the API's back (as a user in the console would)."""
        with self.lock:
            self.vms.drop(self.vms.found(project, zone, name))

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
        self.vms.transition(project, zone, name, status, then, after)

    def put_template(self, project: str, template: dict[str, Any]) -> str:
        """Store an instance template directly; returns its selfLink."""
        with self.lock:
            return self.templates.put(project, template)

    # ------------------------------------------------------------------ groups and requests
    def insert_group(
        self, project: str, scope: str, body: dict[str, Any], *, request_id: str | None = None
    ) -> Operation:
        """``instanceGroupManagers.insert`` in ``scope`` (``zones/<z>`` or ``regions/<r>``)."""
        return self.migs.insert(project, scope, body, request_id=request_id)

    def insert_resize_request(
        self,
        project: str,
        scope: str,
        group: str,
        body: dict[str, Any],
        *,
        request_id: str | None = None,
    ) -> Operation:
        """``resizeRequests.insert`` on group ``group`` of ``scope``, as the API does it."""
        key = (project, scope, group)
        return self.requests.insert(key, lambda: self.migs.found(key), body, request_id=request_id)

    def groups(self, project: str | None = None) -> list[dict[str, Any]]:
        """Copies of every managed instance group (of ``project``), as ``get`` returns them."""
        return self.migs.views(project)

    def policies(self, project: str | None = None) -> list[dict[str, Any]]:
        """Copies of every resource policy (of ``project``), as ``get`` returns them."""
        return self.resource_policies.resources(project)

    def resize_requests(self, project: str | None = None) -> list[dict[str, Any]]:
        """Copies of every resize request (of ``project``), as ``get`` returns them."""
        return self.requests.resources(project)

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
        message: str = _FAILURE,
        after: float = 0.0,
    ) -> None:
        """End a request not yet finished with ``state`` (``FAILED`` or ``CANCELLED``), as
        Google would on its own, now or ``after`` virtual seconds; its VMs roll back."""
        if state not in ("FAILED", "CANCELLED"):
            raise ValueError("state must be FAILED or CANCELLED")
        with self.lock:
            key = (project, scope_of(zone, region), group)
            self.migs.found(key)
            self.requests.doom(key, name, state, {"code": code, "message": message}, after)

    def fail_next_resize_request(
        self,
        *,
        state: str = "FAILED",
        code: str = "ZONE_RESOURCE_POOL_EXHAUSTED",
        message: str = _FAILURE,
        after: float = 0.0,
    ) -> None:
        """The next resize request inserted ends with ``state`` ``after`` virtual seconds
        (unless it finished before)."""
        if state not in ("FAILED", "CANCELLED"):
            raise ValueError("state must be FAILED or CANCELLED")
        self.requests.doom_next(after, state, {"code": code, "message": message})

    def forget_scripted_failure(self) -> None:
        """Drop what :meth:`fail_next_resize_request` scripted, if no request took it yet."""
        self.requests.forget_scripted_failure()

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
        with self.lock:
            key = (project, scope_of(zone, region), group)
            self.migs.found(key)
            self.requests.remove(key, name)


ComputeBackend = ComputeService
"""The name this service had when its state was one class."""


def default_service(clock: VirtualClock) -> ComputeService:
    """The service ``Emulator()`` plugs in by default (see
    :func:`~pulumi_dws.testing.emulator.server.default_services`)."""
    return ComputeService(clock)
