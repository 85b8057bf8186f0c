"""The emulated Cloud TPU API (``v2alpha1``): queued resources with DWS Flex-start, Spot and
reservation-bound requests.

    with Emulator() as emu:
        tpu = emu["tpu"]
        tpu.add_chips("us-east5-a", "v6e", 16, after=3600)   # 16 v6e chips free in an hour
        ...  # create a FLEX_START queued resource for v6e-16: WAITING_FOR_RESOURCES
        emu.clock.advance(3600)                             # PROVISIONING, then ACTIVE

Routes (from the discovery document, ``schemas/tpu.v2alpha1.json``)::

    POST   /v2alpha1/projects/{p}/locations/{zone}/queuedResources?queuedResourceId=&requestId=
    GET    /v2alpha1/projects/{p}/locations/{zone}/queuedResources[?pageSize=&pageToken=]
    GET    /v2alpha1/projects/{p}/locations/{zone}/queuedResources/{id}
    DELETE /v2alpha1/projects/{p}/locations/{zone}/queuedResources/{id}?force=&requestId=
    GET    /v2alpha1/projects/{p}/locations/{zone}/operations/{op}

Behaviour, as Google documents it (https://docs.cloud.google.com/tpu/docs/queued-resources,
https://docs.cloud.google.com/tpu/docs/request-using-flex-start, the ``tpu.v2alpha1``
discovery document), all on the virtual clock:

* A create body is checked against the discovery schema ``QueuedResource`` (packaged in
  ``schemas/tpu.v2alpha1.json``, revision recorded there), then against Cloud TPU's own rules
  (one node spec, ``node_id`` xor ``multi_node_params`` with ``node_count`` > 1, a known
  accelerator type, a runtime version, ``runDuration`` only and always with ``FLEX_START``, at
  most 7 days, ``reservationName`` with ``RESERVATION_BOUND``, one tier, ``networkConfig`` xor
  ``networkConfigs``). Failures are ``400 INVALID_ARGUMENT`` with ``BadRequest`` details.
* A create answers an operation; the request is ``CREATING`` for ``accept_seconds``, then
  ``WAITING_FOR_RESOURCES`` (the operation is done, its ``response`` the queued resource).
  It takes its chips (slice chips times ``nodeCount``) from the zone's free TPU chips of its
  version as soon as there are enough: ``PROVISIONING`` for ``provision_seconds``, then
  ``ACTIVE``. A ``validUntilDuration`` that passes first makes it ``FAILED`` (it stays listed
  until deleted, as Google keeps expired requests). A Flex-start run ends after
  ``maxRunDuration``: its nodes are deleted, the chips freed, the request ``SUSPENDED``.
* ``requestId`` makes a create or delete idempotent for ``request_id_ttl`` seconds (the same id
  answers the same operation); a second create of the same id is ``409 ALREADY_EXISTS``.
* A delete of a request with TPU nodes (``PROVISIONING``, ``ACTIVE``...) needs ``force=true``
  (else ``400 FAILED_PRECONDITION``); the request is ``DELETING`` for ``delete_seconds``, then
  gone and its operation done.

Laid out like every emulated service (``docs/emulator-services.md``): the queued resources'
store and the handlers of their methods in ``queued_resources.py``, Cloud TPU's rules with
their sources in ``queued_resource_rules.py``, operations in the shared
:class:`~pulumi_dws.testing.emulator.operations.LroOperations`.

Test controls: :meth:`~TpuService.add_chips`, :meth:`take_all_chips`,
:meth:`fail_next` (the next request goes ``FAILED`` when accepted), :meth:`fail_next_delete` (the
next delete's operation ends in an error and the request stays), :meth:`lose_answers` (carried
out, answered ``503``), :meth:`remove` (deleted outside Pulumi), :meth:`queued_resource`, and
:attr:`created` (every request really created, for duplicate counts).
"""

from __future__ import annotations

import datetime as dt
import threading
from typing import Any

from ..base import Route, VirtualClock, lossy
from ..capacity import CapacityModel
from ..discovery import DiscoverySchema
from ..operations import LocationOperationsApi, LostAnswers, LroOperations
from ..routing import discovered_routes
from .queued_resource_rules import FLEX_START_MAX_RUN, QUEUED_RESOURCE_ID
from .queued_resources import (
    TYPE_PREFIX,
    QueuedResourcesApi,
    QueuedResourceStore,
    TpuSettings,
)

__all__ = [
    "FLEX_START_MAX_RUN",
    "QUEUED_RESOURCE_ID",
    "TpuBackend",
    "TpuService",
    "TpuSettings",
]


SCHEMA_TARGETS: dict[str, dict[str, tuple[str, ...]]] = {
    # Cloud TPU queued resources: v2alpha1 is the only version with provisioningModel,
    # runDuration and queueingPolicy (Flex-start).
    "tpu.v2alpha1": {
        "methods": (
            "tpu.projects.locations.queuedResources.create",
            "tpu.projects.locations.queuedResources.get",
            "tpu.projects.locations.queuedResources.list",
            "tpu.projects.locations.queuedResources.delete",
            "tpu.projects.locations.operations.get",
        ),
        "schemas": (),
    },
}  # fmt: skip
"""What this API validates: the methods it serves and the schemas they reach
(``scripts/generate_emulator_schemas.py`` cuts the packaged document to them)."""


class TpuService(TpuSettings):
    """The emulated Cloud TPU API: its queued resources and operations, served at their routes
    (what the emulator plugs in as ``tpu``), and the controls tests call.

    Args:
        clock: the virtual clock everything happens on.
        capacity: free TPU chips per zone and version (``capacity.add(zone, "v6e", 16)``).
        accept_seconds, provision_seconds, delete_seconds, request_id_ttl: see
            :class:`~.queued_resources.TpuSettings`.
    """

    def __init__(
        self,
        clock: VirtualClock,
        capacity: CapacityModel | None = None,
        accept_seconds: float = 10.0,
        provision_seconds: float = 120.0,
        delete_seconds: float = 60.0,
        request_id_ttl: float = 3600.0,
        name: str = "tpu",
    ) -> None:
        self.clock = clock
        self.name = name
        self.capacity = capacity if capacity is not None else CapacityModel(now=clock.now())
        self.accept_seconds = accept_seconds
        self.provision_seconds = provision_seconds
        self.delete_seconds = delete_seconds
        self.request_id_ttl = request_id_ttl
        self.lock = threading.RLock()
        self.operations = LroOperations(TYPE_PREFIX, pending_done=True)
        self.store = QueuedResourceStore(clock, self.lock, self, self.capacity, self.operations)
        self.losses = LostAnswers()
        self.clock.subscribe(self.tick)

    # ------------------------------------------------------------------ serving
    def routes(self) -> list[Route]:
        schema = DiscoverySchema.load("tpu", "v2alpha1")
        operations = LocationOperationsApi(self.store.get_operation)
        apis = [QueuedResourcesApi(self.store, schema), operations]
        return discovered_routes(
            schema, apis, wrap=lossy(lambda request: self.answering(request.method))
        )

    def tick(self, now: dt.datetime) -> None:
        """Apply what happened by ``now`` (see :meth:`QueuedResourceStore.tick`)."""
        self.store.tick(now)

    def reset(self) -> None:
        """Forget every queued resource, operation, scripted failure and answer to lose, and
        all free capacity (as Compute's: chips a forgotten request held would come back to no
        one, those still free would end a later stock-out)."""
        with self.lock:
            self.capacity.reset()
            self.store.reset()
            self.operations.reset()
            self.losses.clear()

    # ------------------------------------------------------------------ test controls
    @property
    def created(self) -> list[dict[str, Any]]:
        """Every queued resource really created: ``{"name", "requestId", "at"}``."""
        return self.store.created

    @property
    def lost(self) -> dict[str, int]:
        """Answers still to lose, by HTTP method."""
        return self.losses.counts

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
        with self.lock:
            self.store.fail_next.append(message)

    def fail_next_delete(self, message: str = "Internal error while deleting.") -> None:
        """Make the next delete's operation end with an error (``13``, ``message``): the
        request goes back to the state it had, and stays."""
        with self.lock:
            self.store.fail_deletes.append(message)

    def lose_answers(self, method: str, count: int = 1) -> None:
        """Carry out the next ``count`` ``method`` requests (``POST``, ``DELETE``...) but
        answer each with ``503 UNAVAILABLE``."""
        self.losses.lose(method, count)

    def answering(self, method: str) -> bool:
        """False when this request's answer is to be lost (see :meth:`lose_answers`)."""
        return self.losses.answering(method)

    def remove(self, project: str, zone: str, queued_resource_id: str) -> None:
        """Delete a queued resource outside Pulumi, at once (its chips are freed)."""
        self.store.remove(project, zone, queued_resource_id)

    def queued_resource(
        self, project: str, zone: str, queued_resource_id: str
    ) -> dict[str, Any] | None:
        """A copy of a stored queued resource, as GET returns it, or None."""
        return self.store.copy_of(project, zone, queued_resource_id)

    def queued_resources(self) -> list[tuple[str, str, str]]:
        """The keys ``(project, zone, id)`` of every stored queued resource."""
        with self.lock:
            return list(self.store.queued)


TpuBackend = TpuService
"""The name this service had when its state was one class."""


def default_service(clock: VirtualClock) -> TpuService:
    """The service ``Emulator()`` plugs in by default (see
    :func:`~pulumi_dws.testing.emulator.server.default_services`)."""
    return TpuService(clock)
