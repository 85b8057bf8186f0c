"""The pieces every emulated Google API shares: requests, responses, Google's error shape,
the virtual clock, and the interface a service implements to plug into the server."""

from __future__ import annotations

import datetime as dt
import re
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

__all__ = [
    "Request",
    "Response",
    "Route",
    "RouteSpec",
    "bind_routes",
    "bind_lossy_routes",
    "lossy",
    "Service",
    "VirtualClock",
    "GoogleError",
    "ServiceError",
    "Unrouted",
    "google_error",
    "page",
]

# Google's canonical status names for HTTP codes, as in its error JSON.
STATUS_NAMES = {
    400: "INVALID_ARGUMENT",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    409: "ALREADY_EXISTS",
    412: "FAILED_PRECONDITION",
    429: "RESOURCE_EXHAUSTED",
    500: "INTERNAL",
    503: "UNAVAILABLE",
}


@dataclass
class Request:
    """One HTTP request as a service sees it."""

    method: str
    path: str
    query: dict[str, str]
    body: Any
    params: dict[str, str] = field(default_factory=dict)  # named groups of the route, decoded
    headers: dict[str, str] = field(default_factory=dict)
    raw: bytes = b""  # the body as received
    query_string: str = ""  # the query as received (``query`` keeps one value per name)


@dataclass
class Response:
    """What a service answers: a status, a JSON body and optional headers."""

    status: int = 200
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)


class Unrouted(Exception):
    """Raise inside a handler when the request is not this service's after all (an operation
    it does not know, on a path two APIs share: Vertex AI's ``v1`` operations and Cloud
    Batch's): the server tries the routes after it, and answers ``error`` (what this service
    would have answered) when none of them takes it."""

    def __init__(self, error: GoogleError | ServiceError) -> None:
        super().__init__(str(error))
        self.error = error


class GoogleError(Exception):
    """Raise inside a handler to answer with Google's error JSON."""

    def __init__(
        self, status: int, message: str, reason: str = "", headers: Mapping[str, str] | None = None
    ):
        super().__init__(message)
        self.status = status
        self.message = message
        self.reason = reason or STATUS_NAMES.get(status, "UNKNOWN").lower()
        self.headers = dict(headers or {})

    def response(self) -> Response:
        return Response(
            self.status, google_error(self.status, self.message, self.reason), self.headers
        )


def google_error(status: int, message: str, reason: str = "") -> dict[str, Any]:
    """Google's error body: ``{"error": {"code", "message", "status", "errors": [...]}}``."""
    return {
        "error": {
            "code": status,
            "message": message,
            "status": STATUS_NAMES.get(status, "UNKNOWN"),
            "errors": [{"message": message, "domain": "global", "reason": reason or "invalid"}],
        }
    }


Handler = Callable[[Request], Response]


def page(items: list[Any], query: Mapping[str, str], key: str) -> dict[str, Any]:
    """One page of a list answer, as one-platform APIs page: ``pageSize`` (default 50) items
    from ``pageToken`` under ``key``, and ``nextPageToken`` when more follow."""
    size = int(query.get("pageSize") or 50)
    start = int(query.get("pageToken") or 0)
    body: dict[str, Any] = {}
    if items[start : start + size]:
        body[key] = items[start : start + size]
    if start + size < len(items):
        body["nextPageToken"] = str(start + size)
    return body


@dataclass(frozen=True)
class Route:
    """``method`` + a path regex with named groups, matched against the *whole* path (without
    query): a trailing newline does not slip through as it would with ``$``."""

    method: str
    pattern: re.Pattern[str]
    handler: Handler

    @classmethod
    def of(cls, method: str, pattern: str, handler: Handler) -> Route:
        return cls(method, re.compile(r"\A" + pattern + r"\Z"), handler)


@dataclass(frozen=True)
class RouteSpec:
    """One row of a service's route table (its ``urls.py``): ``handler`` names a method of the
    service's responses object; ``method_id`` is the API method it implements (its discovery
    id, e.g. ``compute.instances.insert``), or empty."""

    method: str
    pattern: str
    handler: str
    method_id: str = ""


def bind_routes(
    table: list[RouteSpec],
    responses: object,
    check: Callable[[str, Request], None] | None = None,
) -> list[Route]:
    """The routes of ``table``, each answered by its handler on ``responses`` (after
    ``check(method_id, request)``, when given: path parameter checks, say)."""

    def bound(spec: RouteSpec) -> Handler:
        handler: Handler = getattr(responses, spec.handler)
        if check is None:
            return handler

        def run(request: Request) -> Response:
            check(spec.method_id, request)
            return handler(request)

        return run

    return [Route.of(spec.method, spec.pattern, bound(spec)) for spec in table]


def lossy(answering: Callable[[Request], bool]) -> Callable[[Handler], Handler]:
    """Wrap a handler so that the service's errors (:class:`ServiceError`,
    :class:`GoogleError`) are answers, and each answer ``answering(request)`` says is lost is
    replaced by a ``503`` (``Retry-After: 1``) after the request was carried out.
    ``answering`` is asked before the handler runs."""

    def wrap(handler: Handler) -> Handler:
        def run(request: Request) -> Response:
            keep = answering(request)
            try:
                response = handler(request)
            except (ServiceError, GoogleError) as err:
                response = err.response()
            if keep:
                return response
            lost = ServiceError(503, "The service is currently unavailable.", "UNAVAILABLE")
            return Response(503, lost.response().body, {"Retry-After": "1"})

        return run

    return wrap


def bind_lossy_routes(
    table: list[RouteSpec],
    responses: object,
    answering: Callable[[Request], bool],
    check: Callable[[str, Request], None] | None = None,
) -> list[Route]:
    """:func:`bind_routes`, each handler wrapped by :func:`lossy`."""
    wrap = lossy(answering)
    return [
        Route(r.method, r.pattern, wrap(r.handler)) for r in bind_routes(table, responses, check)
    ]


class Service(Protocol):
    """An emulated API. ``routes`` are matched in order; ``tick`` is called whenever the virtual
    clock moves, so time-driven state (capacity arriving, windows expiring, runs ending) is
    applied."""

    name: str

    def routes(self) -> list[Route]: ...

    def tick(self, now: dt.datetime) -> None: ...


class VirtualClock:
    """Time that only moves when told to: a 3-day run takes no wall time in a test."""

    def __init__(self, start: dt.datetime | None = None) -> None:
        self._now = start or dt.datetime(2026, 1, 5, tzinfo=dt.timezone.utc)
        self._lock = threading.RLock()
        self._listeners: list[Callable[[dt.datetime], None]] = []

    def now(self) -> dt.datetime:
        with self._lock:
            return self._now

    def rfc3339(self) -> str:
        return self.now().strftime("%Y-%m-%dT%H:%M:%S.000-00:00")

    def subscribe(self, listener: Callable[[dt.datetime], None]) -> None:
        self._listeners.append(listener)

    def advance(self, seconds: float) -> dt.datetime:
        """Move time forward and let every service apply what happened meanwhile."""
        with self._lock:
            self._now += dt.timedelta(seconds=seconds)
            now = self._now
            for listener in self._listeners:
                listener(now)
        return now


class ServiceError(Exception):
    """A Google error answer of a one-platform API (Vertex AI, Cloud TPU): the canonical status
    name may differ from the HTTP code's (``FAILED_PRECONDITION`` is 400 there), and
    ``violations`` become ``BadRequest`` details."""

    def __init__(
        self,
        http: int,
        message: str,
        status: str | None = None,
        violations: list[tuple[str, str]] | None = None,
    ) -> None:
        super().__init__(message)
        self.http, self.message = http, message
        self.status = status or STATUS_NAMES.get(http, "UNKNOWN")
        self.violations = violations or []

    def response(self) -> Response:
        error: dict[str, Any] = {
            "code": self.http,
            "message": self.message,
            "status": self.status,
            "errors": [{"message": self.message, "domain": "global", "reason": self.status}],
        }
        if self.violations:
            error["details"] = [
                {
                    "@type": "type.googleapis.com/google.rpc.BadRequest",
                    "fieldViolations": [{"field": f, "description": d} for f, d in self.violations],
                }
            ]
        return Response(self.http, {"error": error})
