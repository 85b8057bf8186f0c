"""The emulated Vertex AI ``modelDevelopmentClusters``' state: clusters, their long-running
operations and what the virtual clock does to them, and the controls tests call. No HTTP here:
``responses.py`` turns requests into calls of :class:`AiPlatformBackend`."""

from __future__ import annotations

import copy
import datetime as dt
import hashlib
import itertools
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..base import VirtualClock
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

__all__ = ["COLLECTION", "AiPlatformBackend", "LroFailure", "project_number"]

COLLECTION = "modelDevelopmentClusters"
_COLLECTION = COLLECTION
TYPE_PREFIX = "type.googleapis.com/google.cloud.aiplatform.v1beta1."


def project_number(project: str) -> str:
    """The (made-up, stable) project number the emulator uses for ``project``."""
    if project.isdigit():
        return project
    digest = int(hashlib.sha256(project.encode()).hexdigest()[:12], 16)
    return str(100000000000 + digest % 900000000000)


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
class _Operation:
    name: str
    kind: str  # create | update | delete
    key: tuple[str, str, str]
    due: dt.datetime
    created: str
    done: bool = False
    response: dict[str, Any] | None = None
    error: dict[str, Any] | None = None
    staged: dict[str, Any] | None = None  # update: the resource after the update
    prior_state: str = "RUNNING"  # update/delete: the state a failure returns the cluster to

    def render(self) -> dict[str, Any]:
        verb = {"create": "Create", "update": "Update", "delete": "Delete"}[self.kind]
        meta_type = (
            "DeleteOperationMetadata"
            if self.kind == "delete"
            else (f"{verb}ModelDevelopmentClusterOperationMetadata")
        )
        body: dict[str, Any] = {
            "name": self.name,
            "metadata": {
                "@type": TYPE_PREFIX + meta_type,
                "genericMetadata": {"createTime": self.created, "updateTime": self.created},
            },
        }
        if self.kind == "create":
            body["metadata"]["progressMessage"] = (
                "Create Model Development Cluster request received, provisioning..."
            )
        if self.done:
            body["done"] = True
            if self.error is not None:
                body["error"] = self.error
            else:
                body["response"] = self.response or {}
        return body


@dataclass
class _Cluster:
    key: tuple[str, str, str]
    resource: dict[str, Any]
    operation: _Operation | None = None
    history: list[str] = field(default_factory=list)


class AiPlatformBackend:
    """The clusters and operations of the emulated ``modelDevelopmentClusters`` API (see the
    package doc), and the controls tests call."""

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
        self.clusters: dict[tuple[str, str, str], _Cluster] = {}
        self.operations: dict[str, _Operation] = {}
        self.failures: dict[str, list[LroFailure]] = {"create": [], "update": [], "delete": []}
        self.lost: dict[str, int] = {}  # method -> answers still to lose
        self.created: list[dict[str, Any]] = []
        """Every cluster really created: ``{"key": (project, region, id), "at": time}``."""
        self._numbers: dict[str, str] = {}
        self._ids = itertools.count(2995239222190800896)
        self._lock = threading.RLock()
        self._at = clock.now()

    # ------------------------------------------------------------------ requests
    def answering(self, method: str, now: dt.datetime) -> bool:
        """Note that a request came at ``now``; False when its answer is to be lost (see
        :meth:`lose_answers`), which the caller learns only after carrying it out."""
        with self._lock:
            self._at = max(self._at, now)
            if self.lost.get(method, 0) > 0:
                self.lost[method] -= 1
                return False
            return True

    # ------------------------------------------------------------------ test controls
    def reset(self) -> None:
        """Forget every cluster, operation, queued failure and answer to lose."""
        with self._lock:
            self.clusters.clear()
            self.operations.clear()
            self.created.clear()
            self.lost.clear()
            for queued in self.failures.values():
                queued.clear()

    def lose_answers(self, method: str, count: int = 1) -> None:
        """Carry out the next ``count`` ``method`` requests (``POST``, ``PATCH``, ``DELETE``...)
        as usual but answer each with ``503 UNAVAILABLE``: the client can't tell whether it
        happened and retries."""
        with self._lock:
            self.lost[method] = self.lost.get(method, 0) + count

    def fail_next(self, kind: str = "create", failure: LroFailure | None = None) -> LroFailure:
        """Make the next ``create``/``update``/``delete`` operation end with an error."""
        failure = failure or LroFailure()
        with self._lock:
            self.failures[kind].append(failure)
        return failure

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

    def _found(self, key: tuple[str, str, str]) -> _Cluster:
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

    def _start_op(self, kind: str, key: tuple[str, str, str], seconds: float) -> _Operation:
        op_id = str(next(self._ids))
        op = _Operation(
            name=f"projects/{self._number(key[0])}/locations/{key[1]}/operations/{op_id}",
            kind=kind,
            key=key,
            due=self._at + dt.timedelta(seconds=seconds),
            created=self._now(),
        )
        self.operations[op_id] = op
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
        op = self._start_op("create", key, self.provision_seconds)
        self.clusters[key] = _Cluster(key, resource, op, ["PROVISIONING"])
        self.created.append({"key": key, "at": self._at})
        return op.render()

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
        op = self._start_op("update", key, self.update_seconds)
        op.staged, op.prior_state = staged, state
        cluster.operation = op
        cluster.resource["clusterStatus"]["state"] = "UPDATING"
        cluster.history.append("UPDATING")
        return op.render()

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
        if pending is not None and pending.kind == "create" and not pending.done:
            pending.done, pending.error = (
                True,
                {
                    "code": 10,
                    "message": "The cluster was deleted while it was being provisioned.",
                },
            )
        op = self._start_op("delete", key, self.delete_seconds)
        op.prior_state = "ERROR" if state == "ERROR" else "RUNNING"
        cluster.operation = op
        cluster.resource["clusterStatus"]["state"] = "STOPPING"
        cluster.history.append("STOPPING")
        return op.render()

    def get_operation(self, op_id: str) -> dict[str, Any]:
        with self._lock:
            op = self.operations.get(op_id)
            if op is None:
                raise ServiceError(404, f"Operation {op_id} not found.")
            return op.render()

    # ------------------------------------------------------------------ the clock
    def tick(self, now: dt.datetime) -> None:
        """Finish every operation due by ``now``, in order."""
        with self._lock:
            self._at = max(self._at, now)
            due = sorted(
                (op for op in self.operations.values() if not op.done and op.due <= now),
                key=lambda op: op.due,
            )
            for op in due:
                self._finish(op)

    def _finish(self, op: _Operation) -> None:
        cluster = self.clusters.get(op.key)
        op.done = True
        if cluster is None or cluster.operation is not op:
            op.error = {"code": 10, "message": "The cluster changed while the operation ran."}
            return
        failure = self.failures[op.kind].pop(0) if self.failures[op.kind] else None
        cluster.operation = None
        status = cluster.resource["clusterStatus"]
        if failure is not None:
            op.error = {"code": failure.code, "message": failure.message}
            if op.kind == "create" and not failure.keep_cluster:
                del self.clusters[op.key]
            elif op.kind == "create":
                status.update(state="ERROR", error=dict(op.error), detail=failure.message)
                cluster.history.append("ERROR")
            else:
                status["state"] = op.prior_state  # an ERROR cluster stays in ERROR
                cluster.history.append(op.prior_state)
            return
        if op.kind == "delete":
            del self.clusters[op.key]
            op.response = {"@type": "type.googleapis.com/google.protobuf.Empty"}
            return
        if op.kind == "update" and op.staged is not None:
            cluster.resource = op.staged
            status = cluster.resource["clusterStatus"]
        cluster.resource["updateTime"] = self._now()
        cluster.resource.setdefault("startTime", self._now())
        status["state"] = "RUNNING"
        status["detail"] = "The cluster is running."
        status["nodesStatus"] = self._nodes(cluster.resource, op.key[2])
        cluster.history.append("RUNNING")
        op.response = {"@type": TYPE_PREFIX + "ModelDevelopmentCluster", **cluster.resource}

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
