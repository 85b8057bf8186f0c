"""The recording service's answers: just plausible enough for a client (gcloud) to finish.

Cloud TPU queued resources (``/v2alpha1/...``, ``/v2/...``) get done operations and their
stored resources back. Vertex AI custom jobs and Cloud Batch jobs (created by a POST that
answers the job) are stored and returned; a Vertex AI model GET answers a model that takes
dedicated resources, and ``deployModel`` a done operation.

Compute inserts, actions and deletes get a ``DONE`` Operation whose ``targetLink`` points at the
resource, and a later GET of a created resource returns what was posted (plus ``selfLink``,
``id``...); GETs of a zone, region or project return a minimal one (the project with a
``defaultServiceAccount``); image-family look-ups return a READY image; GKE node-pool/cluster
changes get a ``DONE`` Operation, GKE cluster GETs a minimal RUNNING cluster. Other GETs get a
minimal resource or an empty list; unknown paths a Google-style 404 error. Links point back at
the server the request came to (its ``Host``).
"""

from __future__ import annotations

import re
import time
import uuid
from typing import Any
from urllib.parse import urlsplit

from .models import CapturedRequest, RecordingBackend

__all__ = ["Answers", "is_create_path"]

_FAKE_USER = "oracle@example.invalid"
_GKE_VERSION = "1.32.4-gke.1000000"


def is_create_path(path: str) -> bool:
    parts = [p for p in path.split("/") if p]
    if len(parts) >= 4 and parts[0] == "compute" and parts[2] == "projects":
        rest = parts[4:]
        if len(rest) == 2 and rest[0] == "global":
            return True
        return len(rest) == 3 and rest[0] in ("zones", "regions")
    return bool(parts) and parts[-1] in (
        "clusters",
        "nodePools",
        "queuedResources",
        "customJobs",
        "jobs",
    )


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S.000-00:00", time.gmtime())


def _numeric_id(text: str) -> str:
    return str(uuid.uuid5(uuid.NAMESPACE_URL, text).int % 10**18)


def _strip_host(url: str) -> str:
    return urlsplit(url).path


_SINGULAR = {
    "futureReservations": "futureReservation",
    "instances": "instance",
    "reservations": "reservation",
    "instanceTemplates": "instanceTemplate",
    "disks": "disk",
    "images": "image",
    "networks": "network",
    "subnetworks": "subnetwork",
    "resourcePolicies": "resourcePolicy",
    "instanceGroupManagers": "instanceGroupManager",
}


_ONE_PLATFORM = ("customJobs", "jobs", "models", "endpoints")
"""Vertex AI and Cloud Batch collections under ``projects/*/locations/*``."""


def _compute_kind(collection: str) -> str:
    return "compute#" + _SINGULAR.get(collection, collection.removesuffix("s"))


def _error(status: int, message: str) -> tuple[int, dict[str, Any]]:
    reason = {404: "notFound", 400: "badRequest"}.get(status, "backendError")
    return status, {
        "error": {
            "code": status,
            "message": message,
            "errors": [{"message": message, "domain": "global", "reason": reason}],
        }
    }


class Answers:
    """Answers to the requests that reached one server (``base_url``, from the ``Host``)."""

    def __init__(self, backend: RecordingBackend, base_url: str) -> None:
        self.backend = backend
        self.base_url = base_url

    def respond(self, req: CapturedRequest) -> tuple[int, Any]:
        """The status and JSON body answering ``req``."""
        parts = [p for p in req.path.split("/") if p]
        if len(parts) >= 2 and parts[0] == "compute":
            return self._compute(req, parts[1], parts[2:])
        if parts and re.fullmatch(r"v1(alpha1|beta1)?", parts[0]):
            return self._container(req, parts[0], parts[1:])
        if parts and parts[0] in ("v2alpha1", "v2"):
            return self._tpu(req, parts[0], parts[1:])
        return _error(404, f"The oracle server does not know {req.method} {req.path}")

    # -- Compute Engine ----------------------------------------------------------------------

    def _compute(self, req: CapturedRequest, version: str, rest: list[str]) -> tuple[int, Any]:
        base = f"{self.base_url}compute/{version}/"
        if len(rest) < 2 or rest[0] != "projects":
            return _error(404, f"unknown Compute path {req.path}")
        project, rest = rest[1], rest[2:]
        proj_url = f"{base}projects/{project}"
        if not rest:
            if req.method == "GET":
                number = _numeric_id(project)[:12]
                return 200, {
                    "kind": "compute#project",
                    "id": number,
                    "name": project,
                    "selfLink": proj_url,
                    # A real project has one; `instances create` reads it to add the default
                    # service account (with default scopes) to the insert body.
                    "defaultServiceAccount": f"{number}-compute@developer.gserviceaccount.com",
                    "commonInstanceMetadata": {"kind": "compute#metadata", "items": []},
                    "quotas": [],
                }
            return self._compute_op(proj_url, None, f"{proj_url}/global", req.method.lower())

        # scope: "global" | "zones/<z>" | "regions/<r>"
        scope: tuple[str, str] | None
        if rest[0] == "global":
            scope, scope_url, tail = None, f"{proj_url}/global", rest[1:]
        elif rest[0] in ("zones", "regions") and len(rest) >= 2:
            scope = (rest[0], rest[1])
            scope_url, tail = f"{proj_url}/{rest[0]}/{rest[1]}", rest[2:]
        else:
            scope, scope_url, tail = None, proj_url, rest

        if scope is not None and not tail:  # the zone / region itself
            is_zone = scope[0] == "zones"
            region = scope[1].rsplit("-", 1)[0] if is_zone else scope[1]
            return 200, {
                "kind": "compute#zone" if is_zone else "compute#region",
                "id": _numeric_id(scope[1]),
                "name": scope[1],
                "status": "UP",
                "selfLink": scope_url,
                "region": f"{proj_url}/regions/{region}",
            }

        if tail and tail[0] == "operations":
            return self._compute_operation(req, scope_url, tail)

        if req.method == "GET":
            return self._compute_get(base, project, scope_url, tail)

        if req.method == "POST" and len(tail) == 1:  # insert
            body = req.body if isinstance(req.body, dict) else {}
            name = str(body.get("name") or f"oracle-{uuid.uuid4().hex[:8]}")
            target = f"{scope_url}/{tail[0]}/{name}"
            resource = dict(body)
            resource.update(
                kind=_compute_kind(tail[0]),
                id=_numeric_id(target),
                name=name,
                selfLink=target,
                creationTimestamp=_now(),
            )
            if scope is not None:
                resource[scope[0].removesuffix("s")] = scope_url
            if tail[0] == "instances":  # other kinds have an object-valued status, or none
                resource.setdefault("status", "RUNNING")
            with self.backend.lock:
                self.backend.resources[_strip_host(target)] = resource
            return self._compute_op(target, scope, scope_url, "insert")

        target = f"{scope_url}/{'/'.join(tail[:2])}"
        if req.method == "DELETE":
            with self.backend.lock:
                self.backend.resources.pop(_strip_host(target), None)
            return self._compute_op(target, scope, scope_url, "delete")
        action = tail[2] if len(tail) >= 3 else req.method.lower()
        return self._compute_op(target, scope, scope_url, action)

    def _compute_get(
        self, base: str, project: str, scope_url: str, tail: list[str]
    ) -> tuple[int, Any]:
        if len(tail) >= 3 and tail[0] in ("images", "imageFamilyViews") and tail[1] == "family":
            family = tail[2]
            name = f"{family}-v20250101"
            image = {
                "kind": "compute#image",
                "id": _numeric_id(f"{project}/{name}"),
                "name": name,
                "family": family,
                "selfLink": f"{base}projects/{project}/global/images/{name}",
                "status": "READY",
                "diskSizeGb": "10",
                "architecture": "X86_64",
                "creationTimestamp": _now(),
            }
            if tail[0] == "imageFamilyViews":
                return 200, {"kind": "compute#imageFamilyView", "image": image}
            return 200, image
        if len(tail) == 1:  # a list
            return 200, {
                "kind": f"{_compute_kind(tail[0])}List",
                "id": f"{scope_url}/{tail[0]}",
                "items": [],
                "selfLink": f"{scope_url}/{tail[0]}",
            }
        url = f"{scope_url}/{'/'.join(tail[:2])}"
        with self.backend.lock:
            stored = self.backend.resources.get(_strip_host(url))
        if stored is not None:
            return 200, stored
        resource: dict[str, Any] = {
            "kind": _compute_kind(tail[0]),
            "id": _numeric_id(url),
            "name": tail[1],
            "selfLink": url,
            "creationTimestamp": _now(),
        }
        if tail[0] == "images":
            resource.update(status="READY", diskSizeGb="10", architecture="X86_64")
        return 200, resource

    def _compute_op(
        self,
        target: str,
        scope: tuple[str, str] | None,
        scope_url: str,
        operation_type: str,
    ) -> tuple[int, Any]:
        name = f"operation-{uuid.uuid4().hex}"
        op_url = f"{scope_url}/operations/{name}"
        op: dict[str, Any] = {
            "kind": "compute#operation",
            "id": _numeric_id(op_url),
            "name": name,
            "operationType": operation_type,
            "targetLink": target,
            "targetId": _numeric_id(target),
            "status": "DONE",
            "progress": 100,
            "user": _FAKE_USER,
            "insertTime": _now(),
            "startTime": _now(),
            "endTime": _now(),
            "selfLink": op_url,
        }
        if scope is not None:
            op[scope[0].removesuffix("s")] = scope_url
        with self.backend.lock:
            self.backend.operations[name] = op
        return 200, op

    def _compute_operation(
        self, req: CapturedRequest, scope_url: str, tail: list[str]
    ) -> tuple[int, Any]:
        """GET (poll) or POST .../wait of an operation: it is always DONE."""
        if len(tail) == 1:
            return 200, {"kind": "compute#operationList", "items": []}
        with self.backend.lock:
            op = self.backend.operations.get(tail[1])
        if op is None:
            return _error(404, f"The resource '{scope_url}/operations/{tail[1]}' was not found")
        return 200, op

    # -- GKE (container.googleapis.com) ------------------------------------------------------

    def _container(self, req: CapturedRequest, version: str, rest: list[str]) -> tuple[int, Any]:
        base = f"{self.base_url}{version}/"
        # projects/{p}/(locations|zones)/{l}/...
        if len(rest) < 4 or rest[0] != "projects":
            return _error(404, f"unknown GKE path {req.path}")
        project, loc_kind, location, tail = rest[1], rest[2], rest[3], rest[4:]
        loc_url = f"{base}projects/{project}/{loc_kind}/{location}"
        if tail and tail[0] in _ONE_PLATFORM:
            return self._one_platform(req, version, "/".join(rest[:4]), tail)

        if tail and tail[0] == "operations":
            if len(tail) == 1:
                return 200, {"operations": []}
            with self.backend.lock:
                op = self.backend.operations.get(tail[1].split(":")[0])
            if op is None:
                return _error(404, f"Operation {tail[1]} not found")
            return 200, op

        if not tail or tail[0] != "clusters":
            if req.method == "GET":
                return 200, {"name": "/".join(rest), "selfLink": f"{base}{'/'.join(rest)}"}
            return _error(404, f"unknown GKE path {req.path}")

        if len(tail) == 1:  # .../clusters
            if req.method == "GET":
                return 200, {"clusters": []}
            body = req.body if isinstance(req.body, dict) else {}
            cluster = body.get("cluster") if isinstance(body.get("cluster"), dict) else {}
            name = str((cluster or {}).get("name", "cluster"))
            return 200, self._container_op(loc_url, location, "CREATE_CLUSTER", f"clusters/{name}")

        cluster_name = tail[1].split(":")[0]
        cluster_url = f"{loc_url}/clusters/{cluster_name}"
        sub = tail[2:]
        if not sub:
            if req.method == "GET":
                return 200, self._cluster(cluster_url, location, cluster_name)
            op_type = "DELETE_CLUSTER" if req.method == "DELETE" else "UPDATE_CLUSTER"
            return 200, self._container_op(loc_url, location, op_type, f"clusters/{cluster_name}")

        if sub[0] != "nodePools":  # other cluster sub-resources and custom verbs
            return 200, self._container_op(
                loc_url, location, "UPDATE_CLUSTER", f"clusters/{cluster_name}"
            )

        if len(sub) == 1:  # .../nodePools
            if req.method == "GET":
                return 200, {"nodePools": []}
            body = req.body if isinstance(req.body, dict) else {}
            pool = dict(body.get("nodePool") or {})
            pool_name = str(pool.get("name", "pool"))
            pool_url = f"{cluster_url}/nodePools/{pool_name}"
            pool.update(selfLink=pool_url, status="RUNNING")
            pool.setdefault("version", _GKE_VERSION)
            with self.backend.lock:
                self.backend.resources[_strip_host(pool_url)] = pool
            return 200, self._container_op(
                loc_url,
                location,
                "CREATE_NODE_POOL",
                f"clusters/{cluster_name}/nodePools/{pool_name}",
            )

        pool_name = sub[1].split(":")[0]
        pool_url = f"{cluster_url}/nodePools/{pool_name}"
        if req.method == "GET":
            with self.backend.lock:
                stored = self.backend.resources.get(_strip_host(pool_url))
            return 200, stored or {
                "name": pool_name,
                "selfLink": pool_url,
                "status": "RUNNING",
                "version": _GKE_VERSION,
            }
        op_type = "DELETE_NODE_POOL" if req.method == "DELETE" else "UPDATE_NODE_POOL"
        return 200, self._container_op(
            loc_url, location, op_type, f"clusters/{cluster_name}/nodePools/{pool_name}"
        )

    def _cluster(self, cluster_url: str, location: str, name: str) -> dict[str, Any]:
        zonal = location.count("-") >= 2
        return {
            "name": name,
            "location": location,
            "zone": location,
            "locations": [location if zonal else f"{location}-a"],
            "status": "RUNNING",
            "selfLink": cluster_url,
            "endpoint": "127.0.0.1",
            "initialClusterVersion": _GKE_VERSION,
            "currentMasterVersion": _GKE_VERSION,
            "currentNodeVersion": _GKE_VERSION,
            "network": "default",
            "subnetwork": "default",
            "nodePools": [],
            "masterAuth": {"clusterCaCertificate": ""},
            "ipAllocationPolicy": {"useIpAliases": True},
        }

    def _container_op(
        self, loc_url: str, location: str, op_type: str, target: str
    ) -> dict[str, Any]:
        name = f"operation-{uuid.uuid4().hex[:16]}"
        op = {
            "name": name,
            "zone": location,
            "location": location,
            "operationType": op_type,
            "status": "DONE",
            "selfLink": f"{loc_url}/operations/{name}",
            "targetLink": f"{loc_url}/{target}",
            "startTime": _now(),
            "endTime": _now(),
        }
        with self.backend.lock:
            self.backend.operations[name] = op
        return op

    # -- Vertex AI and Cloud Batch ----------------------------------------------------------

    def _one_platform(
        self, req: CapturedRequest, version: str, parent: str, tail: list[str]
    ) -> tuple[int, Any]:
        """Custom jobs and Batch jobs: a create stores and answers the job; a model is one
        that takes dedicated resources; ``deployModel`` answers a done operation."""
        collection = tail[0]
        if len(tail) == 1:
            if req.method == "GET":
                return 200, {}
            body = dict(req.body) if isinstance(req.body, dict) else {}
            given = (req.query.get("jobId") or [""])[0]
            name = f"{parent}/{collection}/{given or _numeric_id(uuid.uuid4().hex)}"
            body.update(name=name, createTime=_now())
            with self.backend.lock:
                self.backend.resources[name] = body
            return 200, body
        item, _, verb = tail[1].partition(":")
        name = f"{parent}/{collection}/{item}"
        if verb == "deployModel":
            body = req.body if isinstance(req.body, dict) else {}
            typed = f"type.googleapis.com/google.cloud.aiplatform.{version}.DeployModelResponse"
            response = {"@type": typed, "deployedModel": body.get("deployedModel") or {}}
            return 200, {"name": f"{name}/operations/{_numeric_id(name)}", "done": True,
                         "response": response}  # fmt: skip
        if req.method == "GET":
            with self.backend.lock:
                stored = self.backend.resources.get(name)
            if stored is not None:
                return 200, stored
            found: dict[str, Any] = {"name": name, "displayName": item}
            if collection == "models":
                found["supportedDeploymentResourcesTypes"] = ["DEDICATED_RESOURCES"]
            return 200, found
        return 200, {"name": f"{parent}/operations/{_numeric_id(name)}", "done": True}

    # -- Cloud TPU ---------------------------------------------------------------------------

    def _tpu(self, req: CapturedRequest, version: str, rest: list[str]) -> tuple[int, Any]:
        """Queued resources (``v2alpha1``/``v2``): a create or delete answers a done
        operation (the created resource as its ``response``), GETs the stored resource or
        operation; gcloud's look-ups of accelerator types and runtimes get empty lists."""
        if len(rest) < 4 or rest[0] != "projects" or rest[2] != "locations":
            return _error(404, f"unknown Cloud TPU path {req.path}")
        parent, tail = "/".join(rest[:4]), rest[4:]
        if len(tail) == 1 and req.method == "GET":
            return 200, {}
        if len(tail) == 2 and tail[0] == "operations" and req.method == "GET":
            with self.backend.lock:
                op = self.backend.operations.get(f"{parent}/operations/{tail[1]}")
            return (200, op) if op else _error(404, f"unknown operation {req.path}")
        if not tail or tail[0] != "queuedResources":
            return _error(404, f"unknown Cloud TPU path {req.path}")
        if len(tail) == 1 and req.method == "POST":
            qr_id = (req.query.get("queuedResourceId") or ["qr"])[0]
            name = f"{parent}/queuedResources/{qr_id}"
            resource = dict(req.body) if isinstance(req.body, dict) else {}
            resource.update(name=name, state={"state": "WAITING_FOR_RESOURCES"}, createTime=_now())
            with self.backend.lock:
                self.backend.resources[name] = resource
            typed = f"type.googleapis.com/google.cloud.tpu.{version}.QueuedResource"
            return 200, self._tpu_op(parent, version, "create", name, {"@type": typed, **resource})
        name = f"{parent}/queuedResources/{tail[1].split(':')[0]}" if len(tail) > 1 else parent
        if req.method == "GET":
            with self.backend.lock:
                stored = self.backend.resources.get(name)
            return 200, stored or {"name": name, "state": {"state": "ACTIVE"}}
        if req.method == "DELETE":
            with self.backend.lock:
                self.backend.resources.pop(name, None)
        verb = tail[1].split(":")[1] if len(tail) > 1 and ":" in tail[1] else "delete"
        empty = {"@type": "type.googleapis.com/google.protobuf.Empty"}
        return 200, self._tpu_op(parent, version, verb, name, empty)

    def _tpu_op(
        self, parent: str, version: str, verb: str, target: str, response: dict[str, Any]
    ) -> dict[str, Any]:
        name = f"{parent}/operations/operation-{uuid.uuid4().hex[:16]}"
        op = {
            "name": name,
            "metadata": {
                "@type": f"type.googleapis.com/google.cloud.tpu.{version}.OperationMetadata",
                "createTime": _now(),
                "endTime": _now(),
                "target": target,
                "verb": verb,
                "apiVersion": version,
            },
            "done": True,
            "response": response,
        }
        with self.backend.lock:
            self.backend.operations[name] = op
        return op
