"""Vertex AI ``endpoints`` (``v1beta1``) and the models deployed on them, on the virtual clock.
The rules Vertex AI applies to a deployment are in ``deployment_rules.py``.

* ``endpoints.create`` / ``get`` / ``delete``: an endpoint (named by ``endpointId`` or a number
  the service picks) holds its deployed models; a delete answers an operation; an endpoint that
  still holds deployed models is refused (``400 FAILED_PRECONDITION``: undeploy them first).
* ``deployModel`` answers an operation. The deployed model is listed on the endpoint at once,
  with ``status.availableReplicaCount`` 0 (a ``DeployedModelStatus``), while it waits for
  capacity: a Flex-start deployment takes the VMs of its ``minReplicaCount`` replicas (several
  share one when each takes half of the machine's GPUs or fewer) in the region when they are
  free, all at once; then it provisions for ``deploy_seconds`` and is
  deployed (``availableReplicaCount`` = ``minReplicaCount``; the operation done with a
  ``DeployModelResponse``). A second deployment of an id the endpoint holds is
  ``409 ALREADY_EXISTS`` (the AIP-133 convention for an id already taken; Vertex AI's reference
  says nothing of it).
* Flex-start's run ends ``maxRuntimeDuration`` after the request was *submitted*
  (https://docs.cloud.google.com/vertex-ai/docs/predictions/use-flex-start-vms, "Automatic
  undeployment": "the model is automatically undeployed five hours after submission"): the
  deployed model leaves the endpoint and its VMs are freed; one still waiting then ends its
  operation with ``DEADLINE_EXCEEDED``.
* ``undeployModel`` answers an operation; the deployed model leaves after
  ``undeploy_seconds`` (one still waiting for capacity at once, its deploy operation cancelled).
* Traffic (``traffic.py``): the endpoint's ``trafficSplit`` is overwritten by a deployment's
  (once it is deployed, ``"0"`` standing for it), by an undeploy's, or by ``endpoints.patch``
  (``updateMask=traffic_split``; an empty map clears it); a model that still has traffic is
  undeployed only when the request gives its traffic to others or it is the last one.

Every deployment really started is recorded (:attr:`EndpointStore.deployed`), for duplicate
counts.
"""

from __future__ import annotations

import copy
import datetime as dt
import itertools
import threading
from dataclasses import dataclass, field
from typing import Any, ClassVar

from ..base import Request, Response, ServiceError, VirtualClock
from ..capacity import CapacityModel
from ..discovery import DiscoverySchema
from ..operations import Lro, LroOperations
from ..routing import Api
from ..store import Store, earliest
from .custom_job_rules import seconds
from .deployment_rules import DEPLOY_RULES, NewDeployment
from .projects import ProjectNumbers
from .traffic import NEW_MODEL, has_traffic_refusal, split_of, without

__all__ = [
    "Deployment",
    "Endpoint",
    "EndpointOperationsApi",
    "EndpointSettings",
    "EndpointStore",
    "EndpointsApi",
]

TYPE_PREFIX = "type.googleapis.com/google.cloud.aiplatform.v1beta1."
_ENDPOINT_OUTPUT_ONLY = ("name", "deployedModels", "createTime", "updateTime", "etag")


def _ts(moment: dt.datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


class EndpointSettings:
    """The knobs of the emulated deployments (on the service: ``svc.deploy_seconds = 0``).

    Attributes:
        deploy_seconds: provisioning time once capacity is found.
        undeploy_seconds: how long an undeploy's operation runs.
    """

    deploy_seconds: float = 300.0
    undeploy_seconds: float = 60.0


@dataclass
class Deployment:
    """One deployed model: its API form and what the service keeps to itself."""

    model: dict[str, Any]
    machine_type: str
    replicas: int
    submitted: dt.datetime
    ends_at: dt.datetime | None
    operation: Lro
    ready_at: dt.datetime | None = None
    deployed: bool = False
    holds: bool = False
    undeploy_at: dt.datetime | None = None
    undeploy_op: Lro | None = None
    fail_with: str | None = None
    traffic: dict[str, int] | None = None
    """The traffic split its request gave (``"0"``: this model), applied once it is deployed."""
    vms: int = 0
    """The VMs its replicas take (several replicas share one when each takes half of its GPUs
    or fewer); 0: one per replica."""

    @property
    def held(self) -> int:
        return self.vms or self.replicas

    def due(self) -> dt.datetime | None:
        return earliest(
            [self.undeploy_at, self.ready_at if not self.deployed else None, self.ends_at]
        )


@dataclass
class Endpoint:
    """One endpoint and its deployments (by deployed model id)."""

    key: tuple[str, str, str]
    resource: dict[str, Any]
    deployments: dict[str, Deployment] = field(default_factory=dict)
    traffic: dict[str, int] = field(default_factory=dict)

    def rendered(self) -> dict[str, Any]:
        out = copy.deepcopy(self.resource)
        if self.deployments:
            out["deployedModels"] = [copy.deepcopy(d.model) for d in self.deployments.values()]
        if self.traffic:
            out["trafficSplit"] = dict(self.traffic)
        return out

    def forget(self, model_id: str) -> None:
        """``model_id`` left: it leaves the traffic split too."""
        self.deployments.pop(model_id, None)
        self.traffic = without(self.traffic, model_id, self.deployments)


class EndpointStore(Store):
    """Every endpoint, its deployments, the capacity they hold, and their clock (see the module
    doc)."""

    def __init__(
        self,
        clock: VirtualClock,
        lock: threading.RLock,
        settings: EndpointSettings,
        capacity: CapacityModel,
        operations: LroOperations,
        projects: ProjectNumbers,
        schema: DiscoverySchema,
    ) -> None:
        self.clock = clock
        self.lock = lock
        self.settings = settings
        self.capacity = capacity
        self.operations = operations
        self.projects = projects
        self.schema = schema
        self.endpoints: dict[tuple[str, str, str], Endpoint] = {}
        self.deployed: list[tuple[str, str]] = []
        """``(endpoint name, deployed model id)`` of every deployment really started."""
        self.fail_next: list[str] = []
        self._ids = itertools.count(4_000_000_000_000_000_000)
        self._at = clock.now()

    # ------------------------------------------------------------------ helpers
    def key(self, project: str, location: str, endpoint_id: str) -> tuple[str, str, str]:
        return self.projects.project(project), location, endpoint_id

    def _now(self) -> dt.datetime:
        self._at = max(self._at, self.clock.now())
        return self._at

    def _found(self, key: tuple[str, str, str]) -> Endpoint:
        found = self.endpoints.get(key)
        if found is None:
            raise ServiceError(
                404, f"Endpoint projects/{key[0]}/locations/{key[1]}/endpoints/{key[2]} not found."
            )
        return found

    def _operation(
        self, key: tuple[str, str, str], metadata: str, now: dt.datetime, *, nested: bool = False
    ) -> Lro:
        """A new operation: a deployment's is named under its endpoint (as Vertex AI names
        them: ``projects/N/locations/L/endpoints/E/operations/ID``), others under the
        location."""
        number = self.projects.number(key[0])
        scope = f"projects/{number}/locations/{key[1]}"
        if nested:
            scope += f"/endpoints/{key[2]}"
        name = f"{scope}/operations/{next(self._ids)}"
        stamp = {"createTime": _ts(now), "updateTime": _ts(now)}
        return self.operations.start(name, metadata, genericMetadata=stamp)

    # ------------------------------------------------------------------ test controls
    def add(self, project: str, location: str, endpoint_id: str) -> dict[str, Any]:
        """An endpoint made outside Pulumi (as a pulumi-gcp ``AiEndpoint`` would make it)."""
        with self.lock:
            return self._make(
                self.projects.project(project), location, endpoint_id, {}, self._now()
            )

    def deployments(self) -> list[tuple[str, str]]:
        """``(endpoint name, deployed model id)`` of every deployment on every endpoint."""
        with self.lock:
            return [
                (str(e.resource["name"]), model_id)
                for e in self.endpoints.values()
                for model_id in e.deployments
            ]

    def remove_deployment(self, endpoint_name: str, model_id: str) -> None:
        """Undeploy a model outside Pulumi, at once (its VMs are freed)."""
        with self.lock:
            for endpoint in self.endpoints.values():
                if endpoint.resource["name"] == endpoint_name:
                    found = endpoint.deployments.get(model_id)
                    if found is not None:
                        endpoint.forget(model_id)
                        self._release(endpoint, found)

    # ------------------------------------------------------------------ endpoints
    def _make(
        self,
        project: str,
        location: str,
        endpoint_id: str,
        body: dict[str, Any],
        now: dt.datetime,
    ) -> dict[str, Any]:
        key = (project, location, endpoint_id)
        if key in self.endpoints:
            raise ServiceError(409, f"Endpoint {endpoint_id} already exists.", "ALREADY_EXISTS")
        number = self.projects.number(project)
        resource = {k: copy.deepcopy(v) for k, v in body.items() if k not in _ENDPOINT_OUTPUT_ONLY}
        resource.setdefault("displayName", endpoint_id)
        resource.update(
            name=f"projects/{number}/locations/{location}/endpoints/{endpoint_id}",
            createTime=_ts(now),
            updateTime=_ts(now),
        )
        traffic = split_of(resource.pop("trafficSplit", None), "endpoint.traffic_split", ())
        self.endpoints[key] = Endpoint(key, resource, traffic=traffic)
        return self.endpoints[key].rendered()

    def create(
        self, project: str, location: str, endpoint_id: str | None, body: Any
    ) -> dict[str, Any]:
        if not isinstance(body, dict):
            raise ServiceError(400, "Invalid JSON payload received. Expected an Endpoint.")
        self.schema.require("GoogleCloudAiplatformV1beta1Endpoint", body)
        with self.lock:
            now = self._now()
            project = self.projects.project(project)
            made = self._make(project, location, endpoint_id or str(next(self._ids)), body, now)
            key = (project, location, made["name"].rsplit("/", 1)[-1])
            op = self._operation(key, "CreateEndpointOperationMetadata", now)
            self.operations.finish(op, resource=made, resource_type="Endpoint")
            return self.operations.render(op)

    def get(self, key: tuple[str, str, str]) -> dict[str, Any]:
        with self.lock:
            return self._found(key).rendered()

    def delete(self, key: tuple[str, str, str]) -> dict[str, Any]:
        with self.lock:
            endpoint = self._found(key)
            if endpoint.deployments:
                raise ServiceError(
                    400,
                    f"Endpoint {endpoint.resource['name']} has deployed models: undeploy them "
                    "before deleting it.",
                    "FAILED_PRECONDITION",
                )
            op = self._operation(key, "DeleteOperationMetadata", self._now())
            del self.endpoints[key]
            self.operations.finish(op)
            return self.operations.render(op)

    def patch(self, key: tuple[str, str, str], body: Any, mask: str | None) -> dict[str, Any]:
        """``endpoints.patch``: the fields of ``updateMask`` (those the body carries when it
        has none) are set from the body; the traffic split whole, or cleared."""
        if not isinstance(body, dict):
            raise ServiceError(400, "Invalid JSON payload received. Expected an Endpoint.")
        self.schema.require("GoogleCloudAiplatformV1beta1Endpoint", body)
        fields = [f.strip() for f in (mask or "").split(",") if f.strip()] or list(body)
        with self.lock:
            endpoint = self._found(key)
            for name in fields:
                if name in ("traffic_split", "trafficSplit"):
                    endpoint.traffic = split_of(
                        body.get("trafficSplit"), "endpoint.traffic_split", endpoint.deployments
                    )
                elif name in ("display_name", "displayName", "description", "labels"):
                    camel = "displayName" if name == "display_name" else name
                    endpoint.resource[camel] = copy.deepcopy(body.get(camel))
                else:
                    raise ServiceError(400, f"update_mask: {name} can't be updated.")
            endpoint.resource["updateTime"] = _ts(self._now())
            return endpoint.rendered()

    # ------------------------------------------------------------------ deployments
    def deploy(self, key: tuple[str, str, str], body: Any) -> dict[str, Any]:
        if not isinstance(body, dict):
            raise ServiceError(400, "Invalid JSON payload received. Expected a DeployModelRequest.")
        self.schema.require("GoogleCloudAiplatformV1beta1DeployModelRequest", body)
        new = NewDeployment(body)
        DEPLOY_RULES.check(new)
        with self.lock:
            endpoint = self._found(key)
            now = self._now()
            model = copy.deepcopy(dict(new.model))
            model_id = str(model.get("id") or next(self._ids) % 10**10)
            if model_id in endpoint.deployments:
                raise ServiceError(
                    409,
                    f"DeployedModel {model_id} already exists in {endpoint.resource['name']}.",
                    "ALREADY_EXISTS",
                )
            traffic = split_of(
                body.get("trafficSplit"), "traffic_split", {*endpoint.deployments, NEW_MODEL}
            )
            op = self._operation(key, "DeployModelOperationMetadata", now, nested=True)
            model.update(id=model_id, createTime=_ts(now))
            model["status"] = {"availableReplicaCount": 0, "lastUpdateTime": _ts(now)}
            flex = new.flex_start
            runtime = seconds(flex.get("maxRuntimeDuration"), 0) if flex is not None else 0
            deployment = Deployment(
                model,
                str(new.machine.get("machineType") or "n1-standard-2"),
                int(new.resources.get("minReplicaCount") or 1),
                now,
                now + dt.timedelta(seconds=runtime) if runtime else None,
                op,
                fail_with=self.fail_next.pop(0) if self.fail_next else None,
                traffic=traffic or None,
                vms=new.vms(int(new.resources.get("minReplicaCount") or 1)),
            )
            endpoint.deployments[model_id] = deployment
            self.deployed.append((str(endpoint.resource["name"]), model_id))
            self._advance(endpoint, deployment, now)
            return self.operations.render(op)

    def undeploy(self, key: tuple[str, str, str], body: Any) -> dict[str, Any]:
        model_id = body.get("deployedModelId") if isinstance(body, dict) else None
        if not isinstance(model_id, str) or not model_id:
            raise ServiceError(400, "deployed_model_id: is required.")
        with self.lock:
            endpoint = self._found(key)
            found = endpoint.deployments.get(model_id)
            if found is None:
                raise ServiceError(
                    404, f"DeployedModel {model_id} not found in {endpoint.resource['name']}."
                )
            if found.undeploy_op is not None:
                return self.operations.render(found.undeploy_op)
            given = split_of(body.get("trafficSplit"), "traffic_split", endpoint.deployments)
            share = (given or endpoint.traffic).get(model_id, 0)
            if share and len(endpoint.deployments) > 1:
                raise has_traffic_refusal(str(endpoint.resource["name"]), model_id, share)
            if given:
                endpoint.traffic = given
            now = self._now()
            op = self._operation(key, "UndeployModelOperationMetadata", now, nested=True)
            found.undeploy_op = op
            if not found.deployed:  # still waiting: its deployment ends now
                self.operations.finish(
                    found.operation, error={"code": 1, "message": "The deployment was cancelled."}
                )
                found.undeploy_at = now
            else:
                found.undeploy_at = now + dt.timedelta(seconds=self.settings.undeploy_seconds)
            self._advance(endpoint, found, now)
            return self.operations.render(op)

    # ------------------------------------------------------------------ the clock
    def next_event(self) -> dt.datetime | None:
        with self.lock:
            return earliest(
                d.due() for e in self.endpoints.values() for d in e.deployments.values()
            )

    def tick(self, now: dt.datetime) -> None:
        with self.lock:
            self._at = max(self._at, now)
            for endpoint in list(self.endpoints.values()):
                for deployment in list(endpoint.deployments.values()):
                    self._advance(endpoint, deployment, now)

    def _advance(self, endpoint: Endpoint, d: Deployment, now: dt.datetime) -> None:
        model_id = str(d.model["id"])
        if d.undeploy_at is not None:
            if now >= d.undeploy_at:
                self._release(endpoint, d)
                endpoint.forget(model_id)
                self.operations.finish(
                    d.undeploy_op, resource={}, resource_type="UndeployModelResponse"
                )
            return
        if d.ends_at is not None and now >= d.ends_at:  # Flex-start's run ended
            self._release(endpoint, d)
            endpoint.forget(model_id)
            error = {"code": 4, "message": "The Flex-start deployment reached maxRuntimeDuration."}
            self.operations.finish(d.operation, error=error)
            return
        if d.ready_at is None and self.capacity.take(endpoint.key[1], d.machine_type, d.held):
            d.holds = True
            d.ready_at = now + dt.timedelta(seconds=self.settings.deploy_seconds)
        if not d.deployed and d.ready_at is not None and now >= d.ready_at:
            if d.fail_with is not None:
                self._release(endpoint, d)
                endpoint.forget(model_id)
                self.operations.finish(d.operation, error={"code": 13, "message": d.fail_with})
                return
            d.deployed = True
            if d.traffic:
                live = {*endpoint.deployments, model_id}
                endpoint.traffic = {
                    (model_id if key == NEW_MODEL else key): share
                    for key, share in d.traffic.items()
                    if key == NEW_MODEL or key in live
                }
            d.model["status"] = {
                "availableReplicaCount": d.replicas,
                "lastUpdateTime": _ts(d.ready_at),
            }
            self.operations.finish(
                d.operation,
                resource={"deployedModel": copy.deepcopy(d.model)},
                resource_type="DeployModelResponse",
            )

    def _release(self, endpoint: Endpoint, d: Deployment) -> None:
        if d.holds:
            self.capacity.give_back(endpoint.key[1], d.machine_type, d.held)
            d.holds = False


class EndpointsApi(Api):
    """``projects.locations.endpoints``: each handler reads a request and calls the store."""

    resources: ClassVar[tuple[str, ...]] = ("projects.locations.endpoints",)

    def __init__(self, store: EndpointStore) -> None:
        self.store = store

    def _key(self, req: Request) -> tuple[str, str, str]:
        p = req.params
        return self.store.key(p["project"], p["location"], p["endpoint"])

    def create(self, req: Request) -> Response:
        p = req.params
        endpoint_id = req.query.get("endpointId") or req.query.get("endpoint_id")
        return Response(200, self.store.create(p["project"], p["location"], endpoint_id, req.body))

    def get(self, req: Request) -> Response:
        return Response(200, self.store.get(self._key(req)))

    def delete(self, req: Request) -> Response:
        return Response(200, self.store.delete(self._key(req)))

    def deploy_model(self, req: Request) -> Response:
        return Response(200, self.store.deploy(self._key(req), req.body))

    def undeploy_model(self, req: Request) -> Response:
        return Response(200, self.store.undeploy(self._key(req), req.body))

    def patch(self, req: Request) -> Response:
        mask = req.query.get("updateMask") or req.query.get("update_mask")
        return Response(200, self.store.patch(self._key(req), req.body, mask))


class EndpointOperationsApi(Api):
    """``projects.locations.endpoints.operations``: ``get`` (a deployment's operation)."""

    resources: ClassVar[tuple[str, ...]] = ("projects.locations.endpoints.operations",)

    def __init__(self, store: EndpointStore) -> None:
        self.store = store

    def get(self, req: Request) -> Response:
        p = req.params
        with self.store.lock:
            number = self.store.projects.number(self.store.projects.project(p["project"]))
        name = (
            f"projects/{number}/locations/{p['location']}/endpoints/{p['endpoint']}/"
            f"operations/{p['operation']}"
        )
        op = self.store.operations.find(name)
        if op is None:
            raise ServiceError(404, f"Operation {name} not found.")
        return Response(200, self.store.operations.render(op))
