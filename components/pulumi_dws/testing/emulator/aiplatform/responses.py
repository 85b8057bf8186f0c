"""The emulated ``modelDevelopmentClusters`` API's HTTP side: each handler reads a request's
path, query and body, calls :class:`~.models.AiPlatformBackend` and answers what Vertex AI
answers (errors in Google's shape, with ``BadRequest`` details)."""

from __future__ import annotations

from collections.abc import Callable

from ..base import Request, Response, page
from .models import AiPlatformBackend
from .rules import ServiceError

__all__ = ["AiPlatformResponses"]

Handler = Callable[[Request], Response]


class AiPlatformResponses:
    """Handlers for the routes of ``urls.py``, over one backend."""

    def __init__(self, backend: AiPlatformBackend) -> None:
        self.backend = backend

    def answered(self, handler: Handler) -> Handler:
        """``handler``, with the service's errors as answers and the answers the backend was
        told to lose replaced by a ``503`` after the request was carried out."""

        def run(request: Request) -> Response:
            # The clock is read before any lock: it calls tick() under its own lock.
            keep = self.backend.answering(request.method, self.backend.clock.now())
            try:
                response = handler(request)
            except ServiceError as err:
                response = err.response()
            if keep:
                return response
            lost = ServiceError(503, "The service is currently unavailable.", "UNAVAILABLE")
            return Response(503, lost.response().body, {"Retry-After": "1"})

        return run

    def create(self, req: Request) -> Response:
        cluster_id = req.query.get("model_development_cluster_id") or req.query.get(
            "modelDevelopmentClusterId"
        )
        p = req.params
        return Response(
            200, self.backend.create_cluster(p["project"], p["location"], cluster_id, req.body)
        )

    def list(self, req: Request) -> Response:
        items = self.backend.list_clusters(req.params["project"], req.params["location"])
        return Response(200, page(items, req.query, "modelDevelopmentClusters"))

    def get(self, req: Request) -> Response:
        return Response(200, self.backend.get_cluster(_key(self.backend, req)))

    def patch(self, req: Request) -> Response:
        mask = req.query.get("updateMask") or req.query.get("update_mask") or ""
        return Response(200, self.backend.patch_cluster(_key(self.backend, req), req.body, mask))

    def delete(self, req: Request) -> Response:
        return Response(200, self.backend.delete_cluster(_key(self.backend, req)))

    def operation(self, req: Request) -> Response:
        return Response(200, self.backend.get_operation(req.params["op"]))


def _key(backend: AiPlatformBackend, req: Request) -> tuple[str, str, str]:
    p = req.params
    return backend.key(p["project"], p["location"], p["cluster"])
