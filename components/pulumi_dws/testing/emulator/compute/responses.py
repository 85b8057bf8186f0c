"""The emulated Compute API's HTTP side: each handler checks a request (path parameters and
body against Google's discovery document), calls :class:`~.models.ComputeBackend` and answers
what Compute answers."""

from __future__ import annotations

from typing import Any

from ..base import GoogleError, Request, Response
from ..discovery import DiscoverySchema
from .models import COMPUTE_SELF_LINK_ROOT, ComputeBackend

__all__ = ["ComputeResponses"]


class ComputeResponses:
    """Handlers for the routes of ``urls.py``, over one backend."""

    def __init__(self, backend: ComputeBackend) -> None:
        self.backend = backend
        self.schema = DiscoverySchema.load("compute", "v1")
        self._beta: DiscoverySchema | None = None

    def schema_of(self, request: Request) -> DiscoverySchema:
        """The discovery document of the request's API version (``v1``, or ``beta``: what the
        pulumi-gcp provider calls)."""
        if not request.path.startswith("/compute/beta/"):
            return self.schema
        if self._beta is None:
            self._beta = DiscoverySchema.load("compute", "beta")
        return self._beta

    def check_path(self, method_id: str, request: Request) -> None:
        """Path parameters must match the discovery document's patterns, as Google checks."""
        aliases = {
            "op": "operation",
            "name": "instanceTemplate" if "nstanceTemplates" in method_id else "instance",
            "group": "instanceGroupManager",
            "request": "resizeRequest",
            "policy": "resourcePolicy",
        }
        self.schema_of(request).check_path(method_id, request.params, aliases)

    # ------------------------------------------------------------------ instances
    def insert(self, req: Request) -> Response:
        p = req.params
        if not isinstance(req.body, dict):
            raise GoogleError(400, "Invalid JSON payload received: expected an Instance object.")
        self.schema.require(
            "Instance", req.body, root="instance", method="compute.instances.insert"
        )
        op = self.backend.insert_instance(
            p["project"],
            p["zone"],
            req.body,
            template_url=req.query.get("sourceInstanceTemplate"),
            request_id=_request_id(req),
        )
        return Response(200, op)

    def list(self, req: Request) -> Response:
        project, zone = req.params["project"], req.params["zone"]
        items = self.backend.list_instances(project, zone)
        base = f"{COMPUTE_SELF_LINK_ROOT}projects/{project}/zones/{zone}/instances"
        body: dict[str, Any] = {"kind": "compute#instanceList", "id": base, "selfLink": base}
        if items:
            body["items"] = items
        return Response(200, body)

    def get(self, req: Request) -> Response:
        return Response(200, self.backend.get_instance(*_instance(req)))

    def delete(self, req: Request) -> Response:
        return Response(
            200, self.backend.delete_instance(*_instance(req), request_id=_request_id(req))
        )

    def stop(self, req: Request) -> Response:
        return Response(
            200, self.backend.stop_instance(*_instance(req), request_id=_request_id(req))
        )

    def start(self, req: Request) -> Response:
        return Response(
            200, self.backend.start_instance(*_instance(req), request_id=_request_id(req))
        )

    def suspend(self, req: Request) -> Response:
        op = self.backend.suspend_instance(*_instance(req), request_id=_request_id(req))
        return Response(200, op)

    def resume(self, req: Request) -> Response:
        op = self.backend.resume_instance(*_instance(req), request_id=_request_id(req))
        return Response(200, op)

    def set_labels(self, req: Request) -> Response:
        body = req.body or {}
        self.schema.require("InstancesSetLabelsRequest", body)
        op = self.backend.set_labels(*_instance(req), body, request_id=_request_id(req))
        return Response(200, op)

    def set_metadata(self, req: Request) -> Response:
        body = req.body or {}
        self.schema.require("Metadata", body)
        op = self.backend.set_metadata(*_instance(req), body, request_id=_request_id(req))
        return Response(200, op)

    def set_machine_type(self, req: Request) -> Response:
        body = req.body or {}
        self.schema.require("InstancesSetMachineTypeRequest", body)
        machine = str(body.get("machineType") or "")
        op = self.backend.set_machine_type(*_instance(req), machine, request_id=_request_id(req))
        return Response(200, op)

    # ------------------------------------------------------------------ operations
    def get_op(self, req: Request) -> Response:
        p = req.params
        op = self.backend.get_operation(
            p["project"], p.get("zone"), p["op"], region=p.get("region")
        )
        return Response(200, op)

    # ------------------------------------------------------------------ instance templates
    def insert_template(self, req: Request) -> Response:
        body = req.body or {}
        self.schema.require("InstanceTemplate", body, root="instance_template")
        op = self.backend.insert_template(req.params["project"], body, request_id=_request_id(req))
        return Response(200, op)

    def get_template(self, req: Request) -> Response:
        return Response(200, self.backend.get_template(req.params["project"], req.params["name"]))

    def delete_template(self, req: Request) -> Response:
        p = req.params
        op = self.backend.delete_template(p["project"], p["name"], request_id=_request_id(req))
        return Response(200, op)

    # ------------------------------------------------------------------ regional templates
    def insert_region_template(self, req: Request) -> Response:
        body = req.body or {}
        self.schema.require("InstanceTemplate", body, root="instance_template")
        p = req.params
        op = self.backend.insert_region_template(
            p["project"], p["region"], body, request_id=_request_id(req)
        )
        return Response(200, op)

    def get_region_template(self, req: Request) -> Response:
        p = req.params
        return Response(200, self.backend.get_region_template(p["project"], p["region"], p["name"]))

    def delete_region_template(self, req: Request) -> Response:
        p = req.params
        op = self.backend.delete_region_template(
            p["project"], p["region"], p["name"], request_id=_request_id(req)
        )
        return Response(200, op)

    # ------------------------------------------------------------------ managed instance groups
    def insert_group(self, req: Request) -> Response:
        body = _object(req, "an InstanceGroupManager")
        self.schema_of(req).require("InstanceGroupManager", body, root="instance_group_manager")
        op = self.backend.insert_group(
            req.params["project"], _scope(req), body, request_id=_request_id(req)
        )
        return Response(200, op)

    def get_group(self, req: Request) -> Response:
        return Response(200, self.backend.get_group(*_group(req)))

    def delete_group(self, req: Request) -> Response:
        return Response(200, self.backend.delete_group(*_group(req), request_id=_request_id(req)))

    def list_managed_instances(self, req: Request) -> Response:
        return Response(
            200, {"managedInstances": self.backend.list_managed_instances(*_group(req))}
        )

    def resize_group(self, req: Request) -> Response:
        try:
            size = int(req.query.get("size", ""))
        except ValueError:
            raise GoogleError(
                400, "Required parameter 'size' is missing or not an integer.", "required"
            ) from None
        op = self.backend.resize_group(*_group(req), size, request_id=_request_id(req))
        return Response(200, op)

    def delete_group_instances(self, req: Request) -> Response:
        body = _object(req, "a DeleteInstancesRequest")
        schema = (
            "RegionInstanceGroupManagersDeleteInstancesRequest"
            if "region" in req.params
            else "InstanceGroupManagersDeleteInstancesRequest"
        )
        self.schema.require(schema, body)
        op = self.backend.delete_group_instances(*_group(req), body, request_id=_request_id(req))
        return Response(200, op)

    # ------------------------------------------------------------------ resource policies
    def insert_policy(self, req: Request) -> Response:
        body = _object(req, "a ResourcePolicy")
        self.schema_of(req).require("ResourcePolicy", body, root="resource_policy")
        p = req.params
        op = self.backend.insert_policy(
            p["project"], p["region"], body, request_id=_request_id(req)
        )
        return Response(200, op)

    def get_policy(self, req: Request) -> Response:
        p = req.params
        return Response(200, self.backend.get_policy(p["project"], p["region"], p["policy"]))

    def delete_policy(self, req: Request) -> Response:
        p = req.params
        op = self.backend.delete_policy(
            p["project"], p["region"], p["policy"], request_id=_request_id(req)
        )
        return Response(200, op)

    # ------------------------------------------------------------------ resize requests
    def insert_resize_request(self, req: Request) -> Response:
        body = _object(req, "an InstanceGroupManagerResizeRequest")
        self.schema.require("InstanceGroupManagerResizeRequest", body, root="resize_request")
        op = self.backend.insert_resize_request(*_group(req), body, request_id=_request_id(req))
        return Response(200, op)

    def list_resize_requests(self, req: Request) -> Response:
        items = self.backend.list_resize_requests(*_group(req))
        body: dict[str, Any] = {"kind": "compute#instanceGroupManagerResizeRequestsListResponse"}
        if items:
            body["items"] = items
        return Response(200, body)

    def get_resize_request(self, req: Request) -> Response:
        return Response(200, self.backend.get_resize_request(*_group(req), req.params["request"]))

    def cancel_resize_request(self, req: Request) -> Response:
        op = self.backend.cancel_resize_request(
            *_group(req), req.params["request"], request_id=_request_id(req)
        )
        return Response(200, op)

    def delete_resize_request(self, req: Request) -> Response:
        op = self.backend.delete_resize_request(
            *_group(req), req.params["request"], request_id=_request_id(req)
        )
        return Response(200, op)


def _scope(req: Request) -> str:
    p = req.params
    return f"zones/{p['zone']}" if "zone" in p else f"regions/{p['region']}"


def _group(req: Request) -> tuple[str, str, str]:
    return req.params["project"], _scope(req), req.params["group"]


def _object(req: Request, what: str) -> dict[str, Any]:
    if not isinstance(req.body, dict):
        raise GoogleError(400, f"Invalid JSON payload received: expected {what} object.")
    return req.body


def _instance(req: Request) -> tuple[str, str, str]:
    return req.params["project"], req.params["zone"], req.params["name"]


def _request_id(req: Request) -> str | None:
    return req.query.get("requestId")
