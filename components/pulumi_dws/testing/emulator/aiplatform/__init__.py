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

Laid out like every emulated service (``docs/emulator-services.md``): ``clusters.py`` holds the
clusters' store (what the virtual clock does to them) and the handlers of their methods,
``rules.py`` the request schema, the methods' paths and Google's checks; operations are the
shared :class:`~pulumi_dws.testing.emulator.operations.LroOperations`. Routes come from the
document (Google's ``operations.get``, the derived cluster methods).

Test controls: :meth:`AiPlatformService.fail_next` (an operation that ends in an error),
:meth:`lose_answers` (the request is carried out but its answer is lost: a ``503`` comes back
instead, as when Google's front end fails after the backend committed), :meth:`mutate` (drift),
:meth:`remove` (deleted outside Pulumi), :meth:`cluster`, and the server's
:class:`~pulumi_dws.testing.emulator.faults.FaultPlan` for 429/503/dropped connections (those
are injected *before* the service sees the request).
"""

from __future__ import annotations

import datetime as dt
import threading
from collections.abc import Callable
from typing import Any

from ..base import Route, VirtualClock, lossy
from ..operations import LostAnswers, LroOperations
from ..routing import discovered_routes
from .clusters import (
    COLLECTION,
    TYPE_PREFIX,
    Cluster,
    ClustersApi,
    ClusterSettings,
    ClusterStore,
    LroFailure,
    OperationsApi,
    project_number,
)
from .rules import cluster_schema

__all__ = [
    "COLLECTION",
    "AiPlatformBackend",
    "AiPlatformService",
    "ClusterSettings",
    "LroFailure",
    "project_number",
]


class AiPlatformService(ClusterSettings):
    """The emulated ``modelDevelopmentClusters`` API: its clusters and operations, served at
    their routes (what the emulator plugs in as ``aiplatform``), and the controls tests call.
    The HTTP side calls the cluster methods of this object, so a subclass can change what one
    of them answers."""

    name = "aiplatform"

    def __init__(
        self,
        clock: VirtualClock,
        *,
        provision_seconds: float = 900.0,
        update_seconds: float = 120.0,
        delete_seconds: float = 300.0,
    ) -> None:
        self.clock = clock
        self.provision_seconds = provision_seconds
        self.update_seconds = update_seconds
        self.delete_seconds = delete_seconds
        self.lock = threading.RLock()
        self.operations = LroOperations(TYPE_PREFIX, pending_done=False)
        self.store = ClusterStore(clock, self.lock, self, self.operations)
        self.losses = LostAnswers()

    # ------------------------------------------------------------------ serving
    def routes(self) -> list[Route]:
        # The clock is read before any lock: it calls tick() under its own lock.
        answering = lossy(lambda request: self.answering(request.method, self.clock.now()))
        return discovered_routes(
            cluster_schema(),
            [ClustersApi(self), OperationsApi(self)],
            versions={"v1beta1": "v1(?:beta1)?"},
            wrap=answering,
        )

    def tick(self, now: dt.datetime) -> None:
        """Finish every operation due by ``now``, in order."""
        self.store.tick(now)

    def answering(self, method: str, now: dt.datetime) -> bool:
        """Note that a request came at ``now``; False when its answer is to be lost (see
        :meth:`lose_answers`), which the caller learns only after carrying it out."""
        self.store.note(now)
        return self.losses.answering(method)

    # ------------------------------------------------------------------ records
    @property
    def clusters(self) -> dict[tuple[str, str, str], Cluster]:
        """Every stored cluster by ``(project, region, id)``."""
        return self.store.clusters

    @property
    def created(self) -> list[dict[str, Any]]:
        """Every cluster really created: ``{"key": (project, region, id), "at": time}``."""
        return self.store.created

    @property
    def failures(self) -> dict[str, list[LroFailure]]:
        """The failures scripted for the next operations, by kind."""
        return self.store.failures

    @property
    def lost(self) -> dict[str, int]:
        """Answers still to lose, by HTTP method."""
        return self.losses.counts

    # ------------------------------------------------------------------ test controls
    def reset(self) -> None:
        """Forget every cluster, operation, queued failure and answer to lose."""
        with self.lock:
            self.store.reset()
            self.operations.reset()
            self.losses.clear()

    def lose_answers(self, method: str, count: int = 1) -> None:
        """Carry out the next ``count`` ``method`` requests (``POST``, ``PATCH``, ``DELETE``...)
        as usual but answer each with ``503 UNAVAILABLE``: the client can't tell whether it
        happened and retries."""
        self.losses.lose(method, count)

    def fail_next(self, kind: str = "create", failure: LroFailure | None = None) -> LroFailure:
        """Make the next ``create``/``update``/``delete`` operation end with an error."""
        failure = failure or LroFailure()
        with self.lock:
            self.store.failures[kind].append(failure)
        return failure

    def cluster(self, project: str, location: str, cluster_id: str) -> dict[str, Any] | None:
        """A copy of a stored cluster (camelCase, as GET returns it), or None."""
        return self.store.cluster(project, location, cluster_id)

    def mutate(
        self, project: str, location: str, cluster_id: str, change: Callable[[dict], None]
    ) -> None:
        """Change a stored cluster behind Pulumi's back (drift), e.g. in the console."""
        self.store.mutate(project, location, cluster_id, change)

    def remove(self, project: str, location: str, cluster_id: str) -> None:
        """Delete a cluster outside Pulumi, at once."""
        self.store.remove(project, location, cluster_id)

    # ------------------------------------------------------------------ the API's methods
    def key(self, project: str, location: str, cluster_id: str) -> tuple[str, str, str]:
        """The key of a cluster whose path may name its project by number."""
        return self.store.key(project, location, cluster_id)

    def create_cluster(
        self, project: str, location: str, cluster_id: str | None, body: Any
    ) -> dict[str, Any]:
        """``create``: the cluster, ``PROVISIONING``; its operation (rendered)."""
        return self.store.create_cluster(project, location, cluster_id, body)

    def list_clusters(self, project: str, location: str) -> list[dict[str, Any]]:
        """Copies of the clusters of ``project`` in ``location``, in id order."""
        return self.store.list_clusters(project, location)

    def get_cluster(self, key: tuple[str, str, str]) -> dict[str, Any]:
        return self.store.get_cluster(key)

    def patch_cluster(
        self, key: tuple[str, str, str], patch_body: Any, mask: str
    ) -> dict[str, Any]:
        """``patch`` with ``updateMask`` ``mask`` (empty: the fields the patch carries)."""
        return self.store.patch_cluster(key, patch_body, mask)

    def delete_cluster(self, key: tuple[str, str, str]) -> dict[str, Any]:
        """``delete``: the cluster is ``STOPPING``; its operation (rendered)."""
        return self.store.delete_cluster(key)

    def get_operation(self, op_id: str) -> dict[str, Any]:
        return self.store.get_operation(op_id)


AiPlatformBackend = AiPlatformService
"""The name this service had when its state was one class."""
