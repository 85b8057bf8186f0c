"""A recording service for the emulator: it keeps every request a client sent (method, path,
query, headers, raw and decoded body, the status it answered) and answers just plausibly
enough for the client to finish (see ``responses.py``). The gcloud oracle
(:mod:`pulumi_dws.testing.gcloud`) points gcloud at an emulator serving only this.

Laid out like every emulated service (``docs/emulator-services.md``).
"""

from __future__ import annotations

import dataclasses
from urllib.parse import parse_qs

from ..base import Request, Response, Route, bind_routes, google_error
from .models import CapturedRequest, RecordingBackend
from .responses import Answers, is_create_path
from .urls import ROUTES

__all__ = ["CapturedRequest", "RecordingService", "is_create_path"]


class RecordingService(RecordingBackend):
    """Records each request, then answers it. ``project`` is the project the made-up
    resources belong to."""

    name = "recording"

    def routes(self) -> list[Route]:
        return bind_routes(ROUTES, self)

    def answer(self, request: Request) -> Response:
        captured = CapturedRequest(
            method=request.method,
            path=request.path,
            query=parse_qs(request.query_string, keep_blank_values=True),
            headers={k.lower(): v for k, v in request.headers.items()},
            raw_body=request.raw,
            body=request.body,
        )
        host = captured.headers.get("host", "127.0.0.1")
        try:
            status, payload = Answers(self, f"http://{host}/").respond(captured)
        except Exception as exc:  # noqa: BLE001 - a bug here must not leave the client waiting
            status, payload = 500, google_error(500, f"recording service error: {exc!r}")
        # Recorded before the answer goes out: the client waits for the answer.
        self.record(dataclasses.replace(captured, status=status))
        return Response(status, payload)
