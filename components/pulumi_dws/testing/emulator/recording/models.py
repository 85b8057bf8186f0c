"""What the recording service keeps: every request it received (with the status it answered),
and the resources and operations its plausible answers made up."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["CapturedRequest", "RecordingBackend"]


@dataclass(frozen=True)
class CapturedRequest:
    """One HTTP request received by the oracle server.

    Attributes:
        method: HTTP method, upper case (``"POST"``).
        path: URL path without the query string
            (``"/compute/alpha/projects/p/zones/z/instances"``).
        query: Decoded query parameters, each mapped to the list of its values
            (gcloud adds ``alt=json`` to every call).
        headers: Request headers, names lower-cased.
        raw_body: The request body exactly as received.
        body: The body decoded as JSON, or ``None`` if it was empty or not JSON.
        status: The HTTP status the oracle answered with (404 means the oracle did not
            know the path, which usually makes gcloud fail).
    """

    method: str
    path: str
    query: Mapping[str, list[str]]
    headers: Mapping[str, str]
    raw_body: bytes
    body: Any
    status: int = 0

    @property
    def is_mutation(self) -> bool:
        """True for anything other than GET/HEAD (the requests that change state)."""
        return self.method not in ("GET", "HEAD")

    def __str__(self) -> str:
        return f"{self.method} {self.path}"


class RecordingBackend:
    """Requests seen, and resources and operations "created", by one recording service."""

    def __init__(self, project: str) -> None:
        self.project = project
        self.lock = threading.Lock()
        self.requests: list[CapturedRequest] = []
        self.resources: dict[str, dict[str, Any]] = {}
        self.operations: dict[str, dict[str, Any]] = {}

    def record(self, request: CapturedRequest) -> None:
        with self.lock:
            self.requests.append(request)

    def recorded(self) -> list[CapturedRequest]:
        """A snapshot of the requests received so far, in arrival order."""
        with self.lock:
            return list(self.requests)

    def tick(self, now: Any) -> None:
        """Nothing here moves with time: every operation is done at once."""
