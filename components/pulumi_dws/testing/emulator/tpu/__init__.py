"""The emulated Cloud TPU API (``v2alpha1``): queued resources with DWS Flex-start, Spot and
reservation-bound requests.

    with Emulator() as emu:
        tpu = emu["tpu"]
        tpu.add_chips("us-east5-a", "v6e", 16, after=3600)   # 16 v6e chips free in an hour
        ...  # create a FLEX_START queued resource for v6e-16: WAITING_FOR_RESOURCES
        emu.clock.advance(3600)                             # PROVISIONING, then ACTIVE

Routes::

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

Test controls: :meth:`~.models.TpuBackend.add_chips`, :meth:`take_all_chips`,
:meth:`fail_next` (the next request goes ``FAILED`` when accepted), :meth:`fail_next_delete` (the
next delete's operation ends in an error and the request stays), :meth:`lose_answers` (carried
out, answered ``503``), :meth:`remove` (deleted outside Pulumi), :meth:`queued_resource`, and
:attr:`created` (every request really created, for duplicate counts).
"""

from __future__ import annotations

from ..base import Route, bind_lossy_routes
from .models import TpuBackend
from .responses import TpuResponses
from .urls import ROUTES

__all__ = ["TpuBackend", "TpuService"]


class TpuService(TpuBackend):
    """The Cloud TPU backend served at its routes: what the emulator plugs in as ``tpu``."""

    def routes(self) -> list[Route]:
        responses = TpuResponses(self)
        return bind_lossy_routes(
            ROUTES,
            responses,
            lambda request: self.answering(request.method),
            responses.check,
        )
