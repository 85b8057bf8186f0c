"""Emulated Vertex AI ``v1beta1`` ``modelDevelopmentClusters``: managed Slurm clusters.

Routes (``{v}`` is ``v1beta1``, or ``v1`` for operations, as Google's docs poll them)::

    POST   /{v}/projects/{p}/locations/{r}/modelDevelopmentClusters?model_development_cluster_id=ID
    GET    /{v}/projects/{p}/locations/{r}/modelDevelopmentClusters[?pageSize=&pageToken=]
    GET    /{v}/projects/{p}/locations/{r}/modelDevelopmentClusters/{id}
    PATCH  /{v}/projects/{p}/locations/{r}/modelDevelopmentClusters/{id}?updateMask=a,b
    DELETE /{v}/projects/{p}/locations/{r}/modelDevelopmentClusters/{id}
    GET    /{v}/projects/{p}/locations/{r}/operations/{op}

Behaviour, as Google documents it (seed 002, the training-cluster docs and the
``ModelDevelopmentCluster`` resource definition of magic-modules,
``GoogleCloudPlatform/magic-modules`` ``mmv1/products/vertexai/ModelDevelopmentCluster.yaml`` at
commit ``0ab2d4ad24041037ac85442d680f48ba57dfdcfb``, from which terraform-provider-google-beta's
``google_vertex_ai_model_development_cluster`` is generated):

* Request bodies are validated before anything happens: the schema in :mod:`.rules`
  (derived, because the ``aiplatform.v1beta1`` discovery document shipped with
  google-api-python-client has no ``ModelDevelopmentCluster``; it reuses that document's
  ``MachineSpec`` and ``DiskSpec``) through
  :class:`~pulumi_dws.testing.emulator.discovery.DiscoverySchema` (unknown fields, types, enums,
  required fields; ``snake_case`` or ``camelCase`` names), then the service's own
  rules (pool and partition references, node counts, Flex-start limits). Booleans also accept
  the strings ``"true"``/``"false"``, as Google's proto JSON parser does (the seed sends them).
  Failures are ``400 INVALID_ARGUMENT`` in Google's error shape with ``BadRequest`` details.
* Create, update and delete answer a long-running operation. On the virtual clock a cluster is
  ``PROVISIONING`` for ``provision_seconds`` and then ``RUNNING`` (create done); ``UPDATING``
  for ``update_seconds``; ``STOPPING`` for ``delete_seconds`` and then gone.
* Resources come back in ``camelCase`` with server-side defaults filled in (provisioning model of
  CPU pools, boot disks, ``effectiveFlexStartMaxDuration``, network, service account) and names
  carrying the project *number*, as Vertex AI returns them.

Laid out like every emulated service (``docs/emulator-services.md``): ``models.py`` holds the
clusters, operations and what the virtual clock does to them (:class:`AiPlatformBackend`, whose
controls tests call), ``responses.py`` the HTTP handlers, ``urls.py`` the route table and
``rules.py`` the request schema and Google's checks.

Test controls: :meth:`AiPlatformService.fail_next` (an operation that ends in an error),
:meth:`lose_answers` (the request is carried out but its answer is lost: a ``503`` comes back
instead, as when Google's front end fails after the backend committed), :meth:`mutate` (drift),
:meth:`remove` (deleted outside Pulumi), :meth:`cluster`, and the server's
:class:`~pulumi_dws.testing.emulator.faults.FaultPlan` for 429/503/dropped connections (those
are injected *before* the service sees the request).
"""

from __future__ import annotations

from ..base import Route, bind_lossy_routes
from .models import AiPlatformBackend, LroFailure, project_number
from .responses import AiPlatformResponses
from .urls import ROUTES

__all__ = ["AiPlatformBackend", "AiPlatformService", "LroFailure", "project_number"]


class AiPlatformService(AiPlatformBackend):
    """The clusters backend served at its routes: what the emulator plugs in as
    ``aiplatform``."""

    def routes(self) -> list[Route]:
        responses = AiPlatformResponses(self)
        # The clock is read before any lock: it calls tick() under its own lock.
        return bind_lossy_routes(
            ROUTES, responses, lambda request: self.answering(request.method, self.clock.now())
        )
