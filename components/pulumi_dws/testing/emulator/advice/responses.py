"""The advice methods' HTTP side: each handler reads the project, region and body of a request
and answers with what :class:`~.models.AdviceBackend` computes."""

from __future__ import annotations

from ..base import Request, Response
from .models import AdviceBackend

__all__ = ["AdviceResponses"]


class AdviceResponses:
    """Handlers for the routes of ``urls.py``, over one backend."""

    def __init__(self, backend: AdviceBackend) -> None:
        self.backend = backend

    def calendar_mode(self, req: Request) -> Response:
        p = req.params
        return Response(200, self.backend.calendar_mode(p["project"], p["region"], req.body))

    def capacity(self, req: Request) -> Response:
        p = req.params
        return Response(200, self.backend.capacity_advice(p["project"], p["region"], req.body))
