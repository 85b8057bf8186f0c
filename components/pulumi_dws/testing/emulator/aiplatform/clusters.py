"""Vertex AI ``modelDevelopmentClusters``: the clusters, the changes their long-running
operations apply on the virtual clock, and the handlers of their methods (and of the
operations'). The rules Google applies to a cluster are in ``rules.py``."""

from __future__ import annotations

import copy
import datetime as dt
import hashlib
import itertools
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol

from ..base import Request, Response, VirtualClock, page
from ..operations import Lro, LroOperations
from ..routing import Api
from ..store import Store
from .projects import project_number
from .rules import (
    CLUSTER_SCHEMA,
    CREATE_METHOD,
    FLEX_START_MAX,
    UPDATABLE_PATHS,
    ServiceError,
    canonical,
    check_cluster_id,
    check_immutable_pools,
    check_semantics,
    cluster_schema,
    has_path,
    invalid,
    put_path,
    snake_path,
    take_path,
)

__all__ = [
    "COLLECTION",
    "TYPE_PREFIX",
    "Cluster",
    "ClusterSettings",
    "ClusterStore",
    "ClustersApi",
    "LroFailure",
    "OperationsApi",
    "project_number",
]

COLLECTION = "modelDevelopmentClusters"
_COLLECTION = COLLECTION
TYPE_PREFIX = "type.googleapis.com/google.cloud.aiplatform.v1beta1."


# ---------------------------------------------------------------------------- state
@dataclass
class LroFailure:
    """How the next operation of a kind ends: ``google.rpc.Status`` ``code`` and ``message``.

    ``keep_cluster`` (create only): the cluster stays behind in state ``ERROR`` (what a real
    failed provisioning tends to leave) instead of disappearing.
    """

    code: int = 8
    message: str = (
        "Failed to provision node pool a3u: ZONE_RESOURCE_POOL_EXHAUSTED: there is not enough "
        "capacity for a3-ultragpu-8g in the zone"
    )
    keep_cluster: bool = True


@dataclass
class Cluster:
    """One cluster: its API resource, the operation changing it, and the states it went
    through."""

    key: tuple[str, str, str]
    resource: dict[str, Any]
    operation: Lro | None = None
    history: list[str] = field(default_factory=list)


class ClusterSettings:
    """The knobs of the emulated clusters API (on the service: ``svc.update_seconds = 10``).

    Attributes:
        provision_seconds: how long a create runs (``PROVISIONING``).
        update_seconds: how long an update runs (``UPDATING``).
        delete_seconds: how long a delete runs (``STOPPING``).
    """

    provision_seconds: float = 900.0
    update_seconds: float = 120.0
    delete_seconds: float = 300.0


_VERBS = {"create": "Create", "update": "Update", "delete": "Delete"}


class ClusterStore(Store):
    """The clusters of the emulated ``modelDevelopmentClusters`` API and what their operations
    do to them (see the package doc)."""

    def __init__(
        self,
        clock: VirtualClock,
        lock: threading.RLock,
        settings: ClusterSettings,
        operations: LroOperations,
    ) -> None:
        self.clock = clock
        self._lock = lock
        self.settings = settings
        self.operations = operations
        self.clusters: dict[tuple[str, str, str], Cluster] = {}
        self.failures: dict[str, list[LroFailure]] = {"create": [], "update": [], "delete": []}
        self.created: list[dict[str, Any]] = []
        """Every cluster really created: ``{"key": (project, region, id), "at": time}``."""
        self._numbers: dict[str, str] = {}
        self._ids = itertools.count(2995239222190800896)
        self._at = clock.now()

    def note(self, now: dt.datetime) -> None:
        """A request came at ``now``: the service stands there (timestamps, due times)."""
        with self._lock:
            self._at = max(self._at, now)

    # ------------------------------------------------------------------ test controls
    def cluster(self, project: str, location: str, cluster_id: str) -> dict[str, Any] | None:
        """A copy of a stored cluster (camelCase, as GET returns it), or None."""
        with self._lock:
            found = self.clusters.get((self._project(project), location, cluster_id))
            return copy.deepcopy(found.resource) if found else None

    def mutate(
        self, project: str, location: str, cluster_id: str, change: Callable[[dict], None]
    ) -> None:
        """Change a stored cluster behind Pulumi's back (drift), e.g. in the console."""
        with self._lock:
            change(self.clusters[(self._project(project), location, cluster_id)].resource)

    def remove(self, project: str, location: str, cluster_id: str) -> None:
        """Delete a cluster outside Pulumi, at once."""
        with self._lock:
            self.clusters.pop((self._project(project), location, cluster_id), None)

    # ------------------------------------------------------------------ helpers
    def _project(self, segment: str) -> str:
        """Project id for a path segment that may be the project number."""
        if segment.isdigit():
            for project, number in self._numbers.items():
                if number == segment:
                    return project
        return segment

    def _number(self, project: str) -> str:
        return self._numbers.setdefault(project, project_number(project))

    def key(self, project: str, location: str, cluster_id: str) -> tuple[str, str, str]:
        """The key of a cluster whose path may name its project by number."""
        return self._project(project), location, cluster_id

    def _found(self, key: tuple[str, str, str]) -> Cluster:
        found = self.clusters.get(key)
        if found is None:
            raise ServiceError(
                404,
                f"ModelDevelopmentCluster projects/{key[0]}/locations/{key[1]}/"
                f"{_COLLECTION}/{key[2]} not found.",
            )
        return found

    def _now(self) -> str:
        return self._at.strftime("%Y-%m-%dT%H:%M:%S.%fZ")

    def _start_op(self, kind: str, key: tuple[str, str, str], seconds: float) -> Lro:
        op_id = str(next(self._ids))
        name = f"projects/{self._number(key[0])}/locations/{key[1]}/operations/{op_id}"
        metadata_type = (
            "DeleteOperationMetadata"
            if kind == "delete"
            else f"{_VERBS[kind]}ModelDevelopmentClusterOperationMetadata"
        )
        extra: dict[str, Any] = {}
        if kind == "create":
            extra["progressMessage"] = (
                "Create Model Development Cluster request received, provisioning..."
            )
        created = self._now()
        op = self.operations.start(
            name,
            metadata_type,
            genericMetadata={"createTime": created, "updateTime": created},
            **extra,
        )
        op.details.update(
            kind=kind,
            key=key,
            due=self._at + dt.timedelta(seconds=seconds),
            staged=None,  # update: the resource after the update
            prior_state="RUNNING",  # update/delete: the state a failure returns the cluster to
        )
        return op

    # ------------------------------------------------------------------ handlers
    def create_cluster(
        self, project: str, location: str, cluster_id: str | None, body: Any
    ) -> dict[str, Any]:
        """``create``: the cluster, ``PROVISIONING``; its operation (rendered)."""
        with self._lock:
            return self._create(self._project(project), location, cluster_id, body)

    def _create(
        self, project: str, location: str, cluster_id: str | None, body: Any
    ) -> dict[str, Any]:
        if not cluster_id:
            raise invalid("model_development_cluster_id", "is required.")
        check_cluster_id(cluster_id, location)
        resource = self._validated(body, location, method=CREATE_METHOD)
        key = (project, location, cluster_id)
        if key in self.clusters:
            raise ServiceError(
                409,
                f"ModelDevelopmentCluster projects/{project}/locations/{location}/"
                f"{_COLLECTION}/{cluster_id} already exists.",
            )
        self._fill_defaults(resource, project, location, cluster_id)
        op = self._start_op("create", key, self.settings.provision_seconds)
        self.clusters[key] = Cluster(key, resource, op, ["PROVISIONING"])
        self.created.append({"key": key, "at": self._at})
        return self.operations.render(op)

    def list_clusters(self, project: str, location: str) -> list[dict[str, Any]]:
        """Copies of the clusters of ``project`` in ``location``, in id order."""
        project = self._project(project)
        with self._lock:
            return [
                copy.deepcopy(c.resource)
                for k, c in sorted(self.clusters.items())
                if k[0] == project and k[1] == location
            ]

    def get_cluster(self, key: tuple[str, str, str]) -> dict[str, Any]:
        with self._lock:
            return copy.deepcopy(self._found(key).resource)

    def patch_cluster(
        self, key: tuple[str, str, str], patch_body: Any, mask: str
    ) -> dict[str, Any]:
        """``patch`` with ``updateMask`` ``mask`` (empty: the fields the patch carries)."""
        with self._lock:
            return self._patch(key, patch_body, mask)

    def _patch(self, key: tuple[str, str, str], patch_body: Any, mask: str) -> dict[str, Any]:
        cluster = self._found(key)
        state = cluster.resource["clusterStatus"]["state"]
        if state not in ("RUNNING", "ERROR"):
            raise ServiceError(
                400, f"The cluster is {state}; wait for it to be RUNNING.", "FAILED_PRECONDITION"
            )
        schema = cluster_schema()
        patch = canonical(schema, {"$ref": CLUSTER_SCHEMA}, patch_body or {})
        errors = schema.validate(CLUSTER_SCHEMA, patch)
        if errors:
            raise ServiceError(400, "Invalid JSON payload received. " + " ".join(errors))
        paths = [snake_path(p) for p in mask.split(",") if p.strip()]
        if not paths:
            paths = [p for p in sorted(UPDATABLE_PATHS) if has_path(patch, p)]
        staged = copy.deepcopy(cluster.resource)
        for path in paths:
            if path not in UPDATABLE_PATHS:
                raise invalid(
                    "update_mask",
                    f"{path!r} cannot be updated; updatable: " + ", ".join(sorted(UPDATABLE_PATHS)),
                )
            put_path(staged, path, take_path(patch, path))
        check_immutable_pools(cluster.resource, staged)
        check_semantics(staged, key[1])
        self._fill_pool_defaults(staged)
        op = self._start_op("update", key, self.settings.update_seconds)
        op.details.update(staged=staged, prior_state=state)
        cluster.operation = op
        cluster.resource["clusterStatus"]["state"] = "UPDATING"
        cluster.history.append("UPDATING")
        return self.operations.render(op)

    def delete_cluster(self, key: tuple[str, str, str]) -> dict[str, Any]:
        """``delete``: the cluster is ``STOPPING``; its operation (rendered)."""
        with self._lock:
            return self._delete(key)

    def _delete(self, key: tuple[str, str, str]) -> dict[str, Any]:
        cluster = self._found(key)
        state = cluster.resource["clusterStatus"]["state"]
        if state == "STOPPING":
            raise ServiceError(400, "The cluster is already being deleted.", "FAILED_PRECONDITION")
        pending = cluster.operation
        if pending is not None and pending.details["kind"] == "create":
            message = "The cluster was deleted while it was being provisioned."
            self.operations.finish(pending, error={"code": 10, "message": message})
        op = self._start_op("delete", key, self.settings.delete_seconds)
        op.details["prior_state"] = "ERROR" if state == "ERROR" else "RUNNING"
        cluster.operation = op
        cluster.resource["clusterStatus"]["state"] = "STOPPING"
        cluster.history.append("STOPPING")
        return self.operations.render(op)

    def get_operation(self, op_id: str) -> dict[str, Any]:
        with self._lock:
            op = self.operations.find(op_id)
            if op is None:
                raise ServiceError(404, f"Operation {op_id} not found.")
            return self.operations.render(op)

    # ------------------------------------------------------------------ the clock
    def tick(self, now: dt.datetime) -> None:
        """Finish every operation due by ``now``, in order."""
        with self._lock:
            self._at = max(self._at, now)
            due = sorted(
                (
                    op
                    for op in self.operations.operations.values()
                    if not op.done and op.details["due"] <= now
                ),
                key=lambda op: op.details["due"],
            )
            for op in due:
                self._finish(op)

    def _finish(self, op: Lro) -> None:
        kind, key = op.details["kind"], op.details["key"]
        cluster = self.clusters.get(key)
        if cluster is None or cluster.operation is not op:
            message = "The cluster changed while the operation ran."
            self.operations.finish(op, error={"code": 10, "message": message})
            return
        failure = self.failures[kind].pop(0) if self.failures[kind] else None
        cluster.operation = None
        status = cluster.resource["clusterStatus"]
        if failure is not None:
            error = {"code": failure.code, "message": failure.message}
            self.operations.finish(op, error=error)
            if kind == "create" and not failure.keep_cluster:
                del self.clusters[key]
            elif kind == "create":
                status.update(state="ERROR", error=dict(error), detail=failure.message)
                cluster.history.append("ERROR")
            else:
                status["state"] = op.details["prior_state"]  # an ERROR cluster stays in ERROR
                cluster.history.append(op.details["prior_state"])
            return
        if kind == "delete":
            del self.clusters[key]
            self.operations.finish(op)
            return
        if kind == "update" and op.details["staged"] is not None:
            cluster.resource = op.details["staged"]
            status = cluster.resource["clusterStatus"]
        cluster.resource["updateTime"] = self._now()
        cluster.resource.setdefault("startTime", self._now())
        status["state"] = "RUNNING"
        status["detail"] = "The cluster is running."
        status["nodesStatus"] = self._nodes(cluster.resource, key[2])
        cluster.history.append("RUNNING")
        self.operations.finish(
            op, resource=cluster.resource, resource_type="ModelDevelopmentCluster"
        )

    # ------------------------------------------------------------------ validation
    def _validated(self, body: Any, location: str, method: str) -> dict[str, Any]:
        if not isinstance(body, dict):
            raise ServiceError(400, "Invalid JSON payload received. Expected a JSON object.")
        schema = cluster_schema()
        errors = schema.validate(
            CLUSTER_SCHEMA, canonical(schema, {"$ref": CLUSTER_SCHEMA}, body), method=method
        )
        if errors:
            raise ServiceError(400, "Invalid JSON payload received. " + " ".join(errors))
        resource = canonical(schema, {"$ref": CLUSTER_SCHEMA}, copy.deepcopy(body))
        for output_only in (
            "name",
            "clusterStatus",
            "clusterEvents",
            "runtime",
            "createTime",
            "updateTime",
            "startTime",
        ):
            resource.pop(output_only, None)
        for pool in resource.get("nodePools", []):
            pool.pop("effectiveFlexStartMaxDuration", None)
        check_semantics(resource, location)
        return resource

    # ------------------------------------------------------------------ defaults
    def _fill_defaults(
        self, resource: dict[str, Any], project: str, location: str, cluster_id: str
    ) -> None:
        number = self._number(project)
        now = self._now()
        resource["name"] = f"projects/{number}/locations/{location}/{_COLLECTION}/{cluster_id}"
        network = resource.setdefault("network", {})
        network.setdefault("network", f"projects/{project}/global/networks/default")
        network.setdefault(
            "subnetwork", f"projects/{project}/regions/{location}/subnetworks/default"
        )
        resource.setdefault("runtimeSpec", {}).setdefault(
            "serviceAccount", f"{number}-compute@developer.gserviceaccount.com"
        )
        self._fill_pool_defaults(resource)
        resource["createTime"] = resource["updateTime"] = now
        resource["clusterStatus"] = {
            "state": "PROVISIONING",
            "detail": "Create Model Development Cluster request received, provisioning...",
        }

    @staticmethod
    def _fill_pool_defaults(resource: dict[str, Any]) -> None:
        for pool in resource.get("nodePools", []):
            spec = pool.get("machineSpec", {})
            pool.setdefault("provisioningModel", "ON_DEMAND")
            if pool["provisioningModel"] == "FLEX_START":
                pool["effectiveFlexStartMaxDuration"] = pool.get(
                    "flexStartMaxDuration", f"{FLEX_START_MAX}s"
                )
            disk = pool.setdefault("bootDisk", {})
            a3u = spec.get("machineType", "").startswith("a3-ultragpu")
            disk.setdefault("bootDiskType", "hyperdisk-balanced" if a3u else "pd-ssd")
            disk.setdefault("bootDiskSizeGb", 100)
            pool.setdefault("enablePublicIps", False)

    def _nodes(self, resource: dict[str, Any], cluster_id: str) -> list[dict[str, Any]]:
        login = resource["orchestratorSpec"]["slurmSpec"]["loginNodePoolId"]
        nodes = []
        for pool in resource["nodePools"]:
            count = (pool.get("scalingSpec") or {}).get("minNodeCount", 0)
            for i in range(count):
                name = f"{cluster_id}-{pool['id']}-{i}"
                nodes.append(
                    {
                        "instanceName": name,
                        "instanceId": str(int(hashlib.sha256(name.encode()).hexdigest()[:12], 16)),
                        "nodePoolId": pool["id"],
                        "nodePoolType": "NODE_POOL_TYPE_LOGIN"
                        if pool["id"] == login
                        else "NODE_POOL_TYPE_COMPUTE",
                        "nodeState": "RUNNING",
                        "createTime": self._now(),
                    }
                )
        return nodes


class ClusterMethods(Protocol):
    """The cluster methods the HTTP side calls (a store, or a service in front of one)."""

    def key(self, project: str, location: str, cluster_id: str) -> tuple[str, str, str]: ...

    def create_cluster(
        self, project: str, location: str, cluster_id: str | None, body: Any
    ) -> dict[str, Any]: ...

    def list_clusters(self, project: str, location: str) -> list[dict[str, Any]]: ...

    def get_cluster(self, key: tuple[str, str, str]) -> dict[str, Any]: ...

    def patch_cluster(
        self, key: tuple[str, str, str], patch_body: Any, mask: str
    ) -> dict[str, Any]: ...

    def delete_cluster(self, key: tuple[str, str, str]) -> dict[str, Any]: ...

    def get_operation(self, op_id: str) -> dict[str, Any]: ...


class ClustersApi(Api):
    """``projects.locations.modelDevelopmentClusters``: each handler reads a request's path,
    query and body and calls the cluster methods."""

    resources: ClassVar[tuple[str, ...]] = (f"projects.locations.{COLLECTION}",)

    def __init__(self, methods: ClusterMethods) -> None:
        self.methods = methods

    def _key(self, req: Request) -> tuple[str, str, str]:
        p = req.params
        return self.methods.key(p["project"], p["location"], p["modelDevelopmentCluster"])

    def create(self, req: Request) -> Response:
        cluster_id = req.query.get("model_development_cluster_id") or req.query.get(
            "modelDevelopmentClusterId"
        )
        p = req.params
        return Response(
            200, self.methods.create_cluster(p["project"], p["location"], cluster_id, req.body)
        )

    def list(self, req: Request) -> Response:
        items = self.methods.list_clusters(req.params["project"], req.params["location"])
        return Response(200, page(items, req.query, COLLECTION))

    def get(self, req: Request) -> Response:
        return Response(200, self.methods.get_cluster(self._key(req)))

    def patch(self, req: Request) -> Response:
        mask = req.query.get("updateMask") or req.query.get("update_mask") or ""
        return Response(200, self.methods.patch_cluster(self._key(req), req.body, mask))

    def delete(self, req: Request) -> Response:
        return Response(200, self.methods.delete_cluster(self._key(req)))


class OperationsApi(Api):
    """``projects.locations.operations``: ``get`` (by the operation's id)."""

    resources: ClassVar[tuple[str, ...]] = ("projects.locations.operations",)

    def __init__(self, methods: ClusterMethods) -> None:
        self.methods = methods

    def get(self, req: Request) -> Response:
        return Response(200, self.methods.get_operation(req.params["operation"]))
