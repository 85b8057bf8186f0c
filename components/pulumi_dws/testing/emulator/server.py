"""The emulator's HTTP server: routes requests to services on 127.0.0.1.

    from pulumi_dws.testing.emulator import Emulator

    with Emulator() as emu:               # all built-in services, ephemeral port
        os.environ["DWS_COMPUTE_ENDPOINT"] = emu.url
        ...
        emu.clock.advance(3600)           # an hour passes, instantly

Control endpoints (for processes that only have the URL, e.g. a provider in Pulumi's
dynamic-provider host): ``POST /_emulator/clock:advance {"seconds": N}`` and
``GET /_emulator/clock``.

Every answer carries a ``Date`` header on the virtual clock (so ``Retry-After`` dates and
operation timestamps agree). A malformed request (a ``Content-Length`` that is not a
non-negative number, a body that is not JSON, a clock advance that is not a finite number of
seconds) gets a ``400`` in Google's error shape, and a handler that fails unexpectedly a
``500``: the connection is never dropped or left hanging. Path segments are percent-decoded
before routes see them, as Google does.
"""

from __future__ import annotations

import datetime as dt
import email.utils
import importlib
import json
import logging
import math
import pkgutil
import socket
import threading
from dataclasses import dataclass
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

from ..serving import serve_in_thread, stop_server
from .base import (
    GoogleError,
    Request,
    Response,
    Route,
    Service,
    Unrouted,
    VirtualClock,
    google_error,
)
from .faults import FaultPlan
from .lies import Lie, Lies, Outage

__all__ = ["Answer", "Emulator"]

log = logging.getLogger("pulumi_dws.emulator")
_PACKAGE = __name__.rsplit(".", 1)[0]
MAX_BODY_BYTES = 16 * 1024 * 1024
MAX_ADVANCE_SECONDS = 100 * 365 * 86400  # a century of virtual time in one step is plenty


class Emulator:
    """A local server for the Google APIs pulumi-dws calls, with a virtual clock and faults."""

    def __init__(
        self,
        services: list[Service] | None = None,
        *,
        clock: VirtualClock | None = None,
        host: str = "127.0.0.1",
        port: int = 0,
    ) -> None:
        self.clock = clock or VirtualClock()
        self.faults = FaultPlan()
        self.lies = Lies()
        """Answers that lie and outages (:meth:`lie`, :meth:`outage`)."""
        self.requests: list[Request] = []
        self._seen = threading.Condition()
        self.services: dict[str, Service] = {}
        self._routes: list[Route] = [
            Route.of("POST", r"/_emulator/clock:advance", self._advance),
            Route.of("GET", r"/_emulator/clock", self._clock),
        ]
        self._host, self._port = host, port
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        for service in services if services is not None else default_services(self.clock):
            self.add(service)

    # ------------------------------------------------------------------ composition
    def add(self, service: Service) -> Service:
        """Plug a service in; its routes are tried after those already present."""
        self.services[service.name] = service
        self._routes.extend(service.routes())
        self.clock.subscribe(service.tick)
        return service

    def __getitem__(self, name: str) -> Any:
        return self.services[name]

    # ------------------------------------------------------------------ lifecycle
    @property
    def url(self) -> str:
        """Root URL, e.g. ``http://127.0.0.1:41234/`` (use it as an endpoint override)."""
        assert self._server is not None, "emulator not started"
        host, port = self._server.socket.getsockname()[:2]
        return f"http://{host}:{port}/"

    @property
    def clock_url(self) -> str:
        """Control URL for ``DWS_VIRTUAL_CLOCK_URL``: sleeps advance this clock."""
        return self.url + "_emulator/clock:advance"

    def start(self) -> Emulator:
        handler = _make_handler(self)
        self._server = ThreadingHTTPServer((self._host, self._port), handler)
        self._server.daemon_threads = True
        self._thread = serve_in_thread(self._server, "emulator")
        return self

    def stop(self) -> None:
        if self._server is not None:
            stop_server(self._server, self._thread)
            self._server = None

    def __enter__(self) -> Emulator:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def wait_for_request(self, predicate: Any, timeout: float = 30.0) -> Request:
        """Block until a request for which ``predicate(request)`` is true has been received (it
        may have come already); raise ``TimeoutError`` after ``timeout`` real seconds. A
        synchronisation point for tests that act while another process is mid-call."""
        with self._seen:
            found = self._seen.wait_for(
                lambda: next((r for r in self.requests if predicate(r)), None), timeout
            )
        if found is None:
            raise TimeoutError(f"no matching request within {timeout}s")
        return found

    def wait_for_requests(self, predicate: Any, count: int, timeout: float = 30.0) -> list[Request]:
        """Block until ``count`` requests for which ``predicate(request)`` is true have been
        received; those requests, in order. ``TimeoutError`` after ``timeout`` real seconds."""
        with self._seen:
            found = self._seen.wait_for(
                lambda: len([r for r in self.requests if predicate(r)]) >= count, timeout
            )
            matching = [r for r in self.requests if predicate(r)]
        if not found:
            raise TimeoutError(f"{len(matching)} matching requests within {timeout}s, not {count}")
        return matching

    # ------------------------------------------------------------------ dispatch
    def exchange(
        self, method: str, target: str, headers: dict[str, str], raw: bytes
    ) -> Answer | None:
        """Answer one request (``target`` is the path with its query) as the HTTP server does,
        injected faults included; None for a dropped connection. The HTTP handler calls it, and
        so may a proxy in this process (:class:`~pulumi_dws.testing.fault_proxy.FaultProxy`)
        rather than go through a socket."""
        parts = urlsplit(target)
        fault = self.faults.next(method, parts.path)
        if fault == "drop":
            return None
        if fault in ("429", "503"):
            status = int(fault)
            extra = {}
            if self.faults.retry_after is not None:
                extra["Retry-After"] = str(self.faults.retry_after)
            message = "Quota exceeded" if status == 429 else "The service is unavailable"
            return _encode(Response(status, google_error(status, message), extra), self.clock)
        try:
            body = json.loads(raw) if raw else None
        except (ValueError, UnicodeDecodeError):
            invalid = Response(400, google_error(400, "Invalid JSON payload received."))
            return _encode(invalid, self.clock)
        request = Request(
            method,
            parts.path,
            dict(parse_qsl(parts.query)),
            body,
            headers=headers,
            raw=raw,
            query_string=parts.query,
        )
        return _encode(self.dispatch(request), self.clock)

    # ------------------------------------------------------------------ dispatch
    def lie(
        self,
        match: Any,
        *,
        status: int | None = None,
        transform: Any = None,
        times: int = 1,
        message: str | None = None,
        acted: bool = True,
    ) -> Lie:
        """Answer the next ``times`` requests ``match(request)`` accepts with ``status`` (and
        Google's error, saying ``message``), or with ``transform(true answer's body)``, after
        the service acted (``acted=False``: instead of it; see
        :mod:`~pulumi_dws.testing.emulator.lies`)."""
        told = Lie(match, status=status, transform=transform, times=times, acted=acted)
        if message is not None:
            told.message = message
        self.lies.lies.append(told)
        return told

    def outage(
        self, seconds: float, *, status: int = 401, after: float = 0.0, trigger: Any = None
    ) -> Outage:
        """For ``seconds`` of virtual time, answer every API request with ``status`` (default
        401: the credentials are refused) before the service sees it: from ``after`` virtual
        seconds from now, or (``trigger``) from the first request ``trigger(request)`` accepts
        (a point in a wait, whatever time it comes at)."""
        start = None if trigger is not None else self.clock.now() + dt.timedelta(seconds=after)
        down = Outage(start, seconds, status, trigger=trigger)
        self.lies.outages.append(down)
        return down

    def dispatch(self, request: Request) -> Response:
        with self._seen:
            self.requests.append(request)
            self._seen.notify_all()
        down = self.lies.before(request, self.clock.now()) or self.lies.instead(request)
        if down is not None:
            return down
        return self.lies.after(request, self._route(request))

    def _route(self, request: Request) -> Response:
        unrouted: Unrouted | None = None
        for route in self._routes:
            if route.method != request.method:
                continue
            match = route.pattern.match(request.path)
            if match:
                request.params = {
                    k: unquote(v) for k, v in match.groupdict().items() if v is not None
                }
                try:
                    return route.handler(request)
                except Unrouted as passed:
                    unrouted = unrouted or passed  # not this service's: the next route may be
                    continue
                except GoogleError as err:
                    return err.response()
                except Exception as err:  # noqa: BLE001 - answer, never drop the connection
                    log.exception("emulator handler failed on %s %s", request.method, request.path)
                    return Response(500, google_error(500, f"Internal error: {err!r}"))
        if unrouted is not None:
            return unrouted.error.response()
        return Response(
            404, google_error(404, f"No such API path: {request.method} {request.path}")
        )

    def _advance(self, request: Request) -> Response:
        body = request.body if isinstance(request.body, dict) else {}
        seconds = body.get("seconds", 0)
        if isinstance(seconds, bool):
            raise GoogleError(400, f"seconds must be a number, not {seconds!r}")
        if not isinstance(seconds, (int, float)):
            try:
                seconds = float(seconds)
            except (TypeError, ValueError):
                raise GoogleError(400, f"seconds must be a number, not {seconds!r}") from None
        if not math.isfinite(seconds) or not 0 <= seconds <= MAX_ADVANCE_SECONDS:
            raise GoogleError(
                400, f"seconds must be a finite number from 0 to {MAX_ADVANCE_SECONDS}"
            )
        return Response(200, {"now": self.clock.advance(seconds).isoformat()})

    def _clock(self, request: Request) -> Response:
        return Response(200, {"now": self.clock.now().isoformat()})


def default_services(clock: VirtualClock) -> list[Service]:
    """Every emulated API that ships with pulumi-dws: each package under
    ``testing/emulator/`` that offers ``default_service(clock)`` (a new API's package is found
    so, with nothing to add here), in the order of their names; then the ``advice`` methods
    over the Compute service's capacity model."""
    services: list[Service] = []
    here = str(Path(__file__).parent)
    for info in sorted(pkgutil.iter_modules([here]), key=lambda m: m.name):
        if not info.ispkg:
            continue
        package = importlib.import_module(f"{_PACKAGE}.{info.name}")
        make = getattr(package, "default_service", None)
        if make is not None:
            services.append(make(clock))
    _add_advice(services, clock)
    return services


def _add_advice(services: list[Service], clock: VirtualClock) -> None:
    """Add the ``advice`` methods over the Compute service's capacity model when it is present
    (else a fresh one); their specific routes go before the Compute service's."""
    from .advice import AdviceService
    from .capacity import CapacityModel

    owners = [
        s
        for s in services
        if s.name == "compute" and isinstance(getattr(s, "capacity", None), CapacityModel)
    ]
    if owners:
        at = services.index(owners[0])
        services.insert(at, AdviceService(owners[0].capacity, clock))  # type: ignore[attr-defined]
    else:
        services.append(AdviceService(CapacityModel(clock.now()), clock))


@dataclass(frozen=True)
class Answer:
    """An answer on the wire: status, headers (``Date`` on the virtual clock) and body bytes."""

    status: int
    headers: list[tuple[str, str]]
    body: bytes

    @property
    def reason(self) -> str:
        return HTTPStatus(self.status).phrase if self.status in _KNOWN_STATUSES else ""


_KNOWN_STATUSES = {s.value for s in HTTPStatus}


def _encode(response: Response, clock: VirtualClock) -> Answer:
    payload = b"" if response.body is None else json.dumps(response.body).encode()
    headers = [
        ("Date", email.utils.format_datetime(clock.now(), usegmt=True)),
        ("Content-Type", "application/json; charset=UTF-8"),
        ("Content-Length", str(len(payload))),
        *response.headers.items(),
    ]
    return Answer(response.status, headers, payload)


def _make_handler(emulator: Emulator) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True  # headers and body go in two writes: no 40 ms ACK waits

        def setup(self) -> None:
            super().setup()
            # Headers and body go out in separate writes: without TCP_NODELAY every answer on a
            # kept-alive connection waits ~40 ms for a delayed ACK (Nagle's algorithm).
            self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
            return

        def date_time_string(self, timestamp: float | None = None) -> str:
            """The ``Date`` header, on the virtual clock."""
            return email.utils.format_datetime(emulator.clock.now(), usegmt=True)

        def _bad_request(self, message: str) -> None:
            self.close_connection = True  # the rest of the stream can't be trusted
            self._send(Response(400, google_error(400, message)))

        def _handle(self) -> None:
            declared = (self.headers.get("Content-Length") or "0").strip()
            if not declared.isdigit():
                self._bad_request(f"Invalid Content-Length header: {declared!r}")
                return
            length = int(declared)
            if length > MAX_BODY_BYTES:
                self._bad_request(f"Request body of {length} bytes is too large")
                return
            raw = self.rfile.read(length) if length else b""
            if len(raw) < length:
                self._bad_request("The request body ended before its Content-Length")
                return
            answer = emulator.exchange(self.command, self.path, dict(self.headers.items()), raw)
            if answer is None:  # a dropped connection
                self.connection.shutdown(socket.SHUT_RDWR)
                self.close_connection = True
                return
            self.send_response(answer.status)
            for key, value in answer.headers:
                if key != "Date":  # send_response wrote it (date_time_string)
                    self.send_header(key, value)
            self.end_headers()
            self.wfile.write(answer.body)

        def _send(self, response: Response) -> None:
            answer = _encode(response, emulator.clock)
            self.send_response(answer.status)
            for key, value in answer.headers:
                if key != "Date":
                    self.send_header(key, value)
            self.end_headers()
            self.wfile.write(answer.body)

        do_GET = do_POST = do_DELETE = do_PATCH = do_PUT = _handle  # noqa: N815

    return Handler
