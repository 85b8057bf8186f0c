"""The advice methods' HTTP side: each handler reads the project, region and body of a request
and answers with what :class:`~.models.AdviceBackend` computes. Their paths come from the
Compute discovery document (``compute.advice.*``); a region that does not exist is the model's
``404``, as Google answers it, so path parameters are not checked against patterns first."""

from __future__ import annotations

from typing import ClassVar

from ..base import Request, Response
from ..routing import Api
from .models import AdviceBackend

__all__ = ["AdviceApi"]


class AdviceApi(Api):
    """``advice``: ``calendarMode`` and ``capacity``, over one backend."""

    resources: ClassVar[tuple[str, ...]] = ("advice",)
    check_paths: ClassVar[bool] = False

    def __init__(self, backend: AdviceBackend) -> None:
        self.backend = backend

    def calendar_mode(self, req: Request) -> Response:
        p = req.params
        return Response(200, self.backend.calendar_mode(p["project"], p["region"], req.body))

    def capacity(self, req: Request) -> Response:
        p = req.params
        return Response(200, self.backend.capacity_advice(p["project"], p["region"], req.body))
