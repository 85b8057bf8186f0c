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

from ..base import Route, ServiceError, Unrouted, VirtualClock, lossy
from ..capacity import CapacityModel
from ..operations import LostAnswers, LroOperations
from ..routing import discovered_routes
from ..store import Clockwork, Moment
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
from .custom_jobs import CustomJobsApi, CustomJobSettings, CustomJobStore
from .endpoints import EndpointOperationsApi, EndpointsApi, EndpointSettings, EndpointStore
from .projects import ProjectNumbers
from .rules import cluster_schema

__all__ = [
    "COLLECTION",
    "AiPlatformBackend",
    "AiPlatformService",
    "ClusterSettings",
    "LroFailure",
    "project_number",
]


SCHEMA_TARGETS: dict[str, dict[str, tuple[str, ...]]] = {
    # The modelDevelopmentClusters schemas and methods are the emulator's own
    # (aiplatform/rules.py); they reuse these two schemas of Google's, and its operations.
    # Custom jobs and endpoints (deployModel with Flex-start: v1beta1 only) are Google's.
    "aiplatform.v1beta1": {
        "methods": (
            "aiplatform.projects.locations.operations.get",
            "aiplatform.projects.locations.customJobs.create",
            "aiplatform.projects.locations.customJobs.get",
            "aiplatform.projects.locations.customJobs.list",
            "aiplatform.projects.locations.customJobs.cancel",
            "aiplatform.projects.locations.customJobs.delete",
            "aiplatform.projects.locations.endpoints.create",
            "aiplatform.projects.locations.endpoints.get",
            "aiplatform.projects.locations.endpoints.delete",
            "aiplatform.projects.locations.endpoints.patch",
            "aiplatform.projects.locations.endpoints.deployModel",
            "aiplatform.projects.locations.endpoints.undeployModel",
            "aiplatform.projects.locations.endpoints.operations.get",
        ),
        "schemas": (
            "GoogleCloudAiplatformV1beta1MachineSpec",
            "GoogleCloudAiplatformV1beta1DiskSpec",
        ),
    },
}  # fmt: skip
"""What this API validates: the methods it serves and the schemas they reach
(``scripts/generate_emulator_schemas.py`` cuts the packaged document to them)."""


class AiPlatformService(ClusterSettings, CustomJobSettings, EndpointSettings):
    """The emulated Vertex AI API: managed Slurm clusters, custom jobs, endpoints and their
    deployed models, and the operations of all of them, served at their routes (what the
    emulator plugs in as ``aiplatform``), and the controls tests call. The HTTP side calls the
    cluster methods of this object, so a subclass can change what one of them answers.

    Custom jobs (``custom_jobs.py``) and deployments (``endpoints.py``) take their VMs from the
    region's free capacity (:attr:`capacity`, by region and machine type:
    :meth:`add_capacity`), moved through time by one :class:`~..store.Clockwork`."""

    name = "aiplatform"

    def __init__(
        self,
        clock: VirtualClock,
        *,
        provision_seconds: float = 900.0,
        update_seconds: float = 120.0,
        delete_seconds: float = 300.0,
        capacity: CapacityModel | None = None,
    ) -> None:
        self.clock = clock
        self.provision_seconds = provision_seconds
        self.update_seconds = update_seconds
        self.delete_seconds = delete_seconds
        self.lock = threading.RLock()
        self.operations = LroOperations(TYPE_PREFIX, pending_done=False)
        self.store = ClusterStore(clock, self.lock, self, self.operations)
        self.losses = LostAnswers()
        self.capacity = capacity if capacity is not None else CapacityModel(now=clock.now())
        self.projects = ProjectNumbers()
        self.job_operations = LroOperations(TYPE_PREFIX, pending_done=False)
        schema = cluster_schema()
        self.jobs = CustomJobStore(
            clock, self.lock, self, self.capacity, self.job_operations, self.projects, schema
        )
        self.endpoints = EndpointStore(
            clock, self.lock, self, self.capacity, self.job_operations, self.projects, schema
        )
        self.clockwork = Clockwork(
            [self.capacity, self.jobs, self.endpoints], Moment(clock.now()), self.lock
        )

    # ------------------------------------------------------------------ serving
    def routes(self) -> list[Route]:
        # The clock is read before any lock: it calls tick() under its own lock.
        answering = lossy(lambda request: self.answering(request.method, self.clock.now()))
        return discovered_routes(
            cluster_schema(),
            [
                ClustersApi(self),
                OperationsApi(self),
                CustomJobsApi(self.jobs, self._operation_name),
                EndpointsApi(self.endpoints),
                EndpointOperationsApi(self.endpoints),
            ],
            versions={"v1beta1": "v1(?:beta1)?"},
            wrap=answering,
        )

    def _operation_name(self, key: tuple[str, str, str]) -> str:
        number = self.projects.number(key[0])
        return f"projects/{number}/locations/{key[1]}/operations/{next(self.jobs._ids)}"

    def tick(self, now: dt.datetime) -> None:
        """Finish every operation due by ``now``, in order; move jobs and deployments on."""
        self.store.tick(now)
        self.clockwork.tick(now)

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
        """Forget every cluster, job, endpoint, operation, free capacity, queued failure and
        answer to lose."""
        with self.lock:
            self.store.reset()
            self.operations.reset()
            self.losses.clear()
            self.jobs.reset()
            self.endpoints.reset()
            self.job_operations.reset()
            self.capacity.reset()

    def add_capacity(self, region: str, machine_type: str, count: int, *, after: float = 0) -> None:
        """Make ``count`` VMs of ``machine_type`` free in ``region`` for custom jobs and
        deployments, now or ``after`` virtual seconds from now."""
        self.capacity.add(region, machine_type, count, after=after)
        self.tick(self.clock.now())

    def take_all_capacity(self, region: str, machine_type: str) -> None:
        """Make every free VM of ``machine_type`` in ``region`` unavailable (a stock-out)."""
        while self.capacity.take(region, machine_type):
            pass

    def fail_next_job(
        self, message: str = "The replica workerpool0-0 exited with a non-zero status of 1."
    ) -> None:
        """The next custom job created fails once provisioned, with ``message``."""
        with self.lock:
            self.jobs.fail_next.append(message)

    def fail_next_deployment(self, message: str = "Model server never became ready.") -> None:
        """The next deployment fails once provisioned, with ``message``."""
        with self.lock:
            self.endpoints.fail_next.append(message)

    @property
    def jobs_created(self) -> list[str]:
        """The name of every custom job really created, in order."""
        return self.jobs.created

    def custom_jobs(self) -> list[str]:
        """The names of every stored custom job."""
        return self.jobs.names()

    def custom_job(self, name: str) -> dict[str, Any] | None:
        """A copy of a stored custom job (its full name, project by number or id), or None."""
        parts = name.split("/")
        try:
            return self.jobs.get(self.jobs.key(parts[1], parts[3], parts[5]))
        except (IndexError, ServiceError):
            return None

    def remove_custom_job(self, name: str) -> None:
        """Delete a custom job outside Pulumi, at once."""
        self.jobs.remove(name)

    def add_endpoint(self, project: str, region: str, endpoint_id: str) -> dict[str, Any]:
        """An endpoint made outside Pulumi (a pulumi-gcp ``AiEndpoint``)."""
        return self.endpoints.add(project, region, endpoint_id)

    @property
    def deployments_started(self) -> list[tuple[str, str]]:
        """``(endpoint name, deployed model id)`` of every deployment really started."""
        return self.endpoints.deployed

    def deployments(self) -> list[tuple[str, str]]:
        """``(endpoint name, deployed model id)`` of every deployment on every endpoint."""
        return self.endpoints.deployments()

    def remove_deployment(self, endpoint_name: str, model_id: str) -> None:
        """Undeploy a model outside Pulumi, at once."""
        self.endpoints.remove_deployment(endpoint_name, model_id)

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
        """A cluster's operation, or a custom job's or an endpoint's (by id); an operation it
        does not know is left to the routes after it (Cloud Batch's share the ``v1`` path)."""
        try:
            return self.store.get_operation(op_id)
        except ServiceError as err:
            with self.lock:
                op = self.job_operations.find(op_id)
                if op is None:
                    raise Unrouted(err) from None
                return self.job_operations.render(op)


AiPlatformBackend = AiPlatformService
"""The name this service had when its state was one class."""


def default_service(clock: VirtualClock) -> AiPlatformService:
    """The service ``Emulator()`` plugs in by default (see
    :func:`~pulumi_dws.testing.emulator.server.default_services`)."""
    return AiPlatformService(clock)
