"""The emulated Cloud TPU API's HTTP side: each handler checks a request (path parameters
against the discovery document's patterns, the body against its ``QueuedResource`` schema),
calls :class:`~.models.TpuBackend` and answers what Cloud TPU answers (errors in Google's
one-platform shape, ``{"error": {"code", "message", "status", "details"}}``)."""

from __future__ import annotations

from collections.abc import Callable

from ..base import GoogleError, Request, Response, ServiceError, page
from ..discovery import DiscoverySchema
from .models import TpuBackend

__all__ = ["TpuResponses"]

Handler = Callable[[Request], Response]


class TpuResponses:
    """Handlers for the routes of ``urls.py``, over one backend."""

    def __init__(self, backend: TpuBackend) -> None:
        self.backend = backend
        self.schema = DiscoverySchema.load("tpu", "v2alpha1")

    def check(self, method_id: str, request: Request) -> None:
        """The path, as the method's ``parent``/``name`` parameter, must match its pattern."""
        p = request.params
        parent = f"projects/{p['project']}/locations/{p['zone']}"
        if "queued_resource" in p:
            params = {"name": f"{parent}/queuedResources/{p['queued_resource']}"}
        elif "op" in p:
            params = {"name": f"{parent}/operations/{p['op']}"}
        else:
            params = {"parent": parent}
        self.schema.check_path(method_id, params, {})

    def answered(self, handler: Handler) -> Handler:
        """``handler``, with the service's errors as answers, and the answers the backend was
        told to lose replaced by a ``503`` after the request was carried out."""

        def run(request: Request) -> Response:
            keep = self.backend.answering(request.method)
            try:
                response = handler(request)
            except (ServiceError, GoogleError) as err:
                response = err.response()
            if keep:
                return response
            lost = ServiceError(503, "The service is currently unavailable.", "UNAVAILABLE")
            return Response(503, lost.response().body, {"Retry-After": "1"})

        return run

    def create(self, req: Request) -> Response:
        if not isinstance(req.body, dict):
            raise ServiceError(400, "Invalid JSON payload received: expected a QueuedResource.")
        self.schema.require(
            "QueuedResource", req.body, method="tpu.projects.locations.queuedResources.create"
        )
        p = req.params
        op = self.backend.create(
            p["project"],
            p["zone"],
            req.query.get("queuedResourceId") or req.query.get("queued_resource_id"),
            req.body,
            req.query.get("requestId") or req.query.get("request_id"),
        )
        return Response(200, op)

    def list(self, req: Request) -> Response:
        items = self.backend.list(req.params["project"], req.params["zone"])
        return Response(200, page(items, req.query, "queuedResources"))

    def get(self, req: Request) -> Response:
        p = req.params
        return Response(200, self.backend.get(p["project"], p["zone"], p["queued_resource"]))

    def delete(self, req: Request) -> Response:
        p = req.params
        force = str(req.query.get("force", "")).lower() == "true"
        op = self.backend.delete(
            p["project"],
            p["zone"],
            p["queued_resource"],
            force=force,
            request_id=req.query.get("requestId"),
        )
        return Response(200, op)

    def operation(self, req: Request) -> Response:
        p = req.params
        return Response(
            200,
            self.backend.get_operation(
                f"projects/{p['project']}/locations/{p['zone']}/operations/{p['op']}"
            ),
        )
