"""A fault-injecting HTTP proxy for tests: it sits between a client and a local server (the
emulator) on 127.0.0.1 and, per request, damages the exchange *before* the server sees the
request or *after* the server acted on it.

    from pulumi_dws.testing.emulator import Emulator
    from pulumi_dws.testing.fault_proxy import FaultProxy, ProxyFaultPlan

    with Emulator() as emu, FaultProxy(emu) as proxy:           # or FaultProxy(emu.url)
        os.environ["DWS_COMPUTE_ENDPOINT"] = proxy.url          # the client talks to the proxy
        proxy.plan = ProxyFaultPlan(rate=0.2, seed=7)           # 20% of requests damaged
        proxy.plan.queue.append("lose")                         # ...and the next one for sure
        ...
        proxy.counts()   # {"before": Counter({"503": 3, ...}), "after": Counter({...})}

Before the act (the server never sees the request):

``429``, ``503``
    Google's error JSON with ``Retry-After``.
``drop``
    the connection is closed without an answer.
``delay``
    no answer until the client gives up (its deadline), then the connection is closed.

After the act (the request is forwarded and carried out; the client cannot tell):

``lose``
    the connection is closed without an answer.
``reset``
    status and headers arrive, the body breaks off half-way (``ChunkedEncodingError``).
``late``
    held until the client gives up, *then* forwarded: the act happens after the client stopped
    waiting (and before any later request of that client reaches the server).
``slow``
    the answer is held until the client gives up.
``dribble``
    the answer comes one byte at a time, slower than any deadline allows.
``html``, ``non_json``, ``empty``, ``truncated``
    a ``200`` whose body is an HTML page, plain text, nothing, or the first half of the JSON.
``string_error``
    an error whose ``error`` is a string, not Google's error object (status
    ``string_error_status``, 400 by default: it looks like a refusal, yet the server acted).
``huge``
    a ``200`` whose body never ends (until the client hangs up).

Nothing here sleeps to pass time: a held exchange waits for the client to hang up (bounded by
``hold_limit`` real seconds), so tests pair it with a short client deadline
(``DWS_HTTP_TIMEOUT``). The proxy only listens on, and forwards to, loopback addresses. With
``tunnel_to`` it also serves ``CONNECT`` (as an ``HTTPS_PROXY``), relaying the encrypted bytes to
that address untouched.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import random
import select
import socket
import threading
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Protocol
from urllib.parse import urlsplit

from ..providers.endpoints import is_loopback
from .serving import serve_in_thread, stop_server

__all__ = [
    "AFTER_ACT",
    "BEFORE_ACT",
    "Exchange",
    "FaultProxy",
    "InProcessServer",
    "ProxyFaultPlan",
]

BEFORE_ACT = ("429", "503", "drop", "delay")
AFTER_ACT = (
    "lose",
    "reset",
    "late",
    "slow",
    "dribble",
    "html",
    "non_json",
    "empty",
    "truncated",
    "string_error",
    "huge",
)
HELD = frozenset({"delay", "late", "slow", "dribble", "huge"})
"""Kinds that cost the client its whole deadline (real time)."""
_HOP_BY_HOP = {
    "connection",
    "keep-alive",
    "proxy-authorization",
    "proxy-connection",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
    "host",
}


def _everything(method: str, path: str) -> bool:
    return True


@dataclass
class ProxyFaultPlan:
    """Which requests the proxy damages, and how.

    ``queue`` faults come first, one per matching request; then, with probability ``rate``, a
    random fault (seeded: a run is repeatable): before or after the act with equal odds
    (``after_share``), then one of that side's ``kinds`` (``held_weight`` scales how often the
    kinds in :data:`HELD`, which cost the client its deadline, are drawn).
    """

    rate: float = 0.0
    kinds: tuple[str, ...] = BEFORE_ACT + AFTER_ACT
    seed: int = 0
    after_share: float = 0.5
    held_weight: float = 1.0
    retry_after: int | None = 1
    string_error_status: int = 400
    match: Callable[[str, str], bool] = _everything
    queue: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        unknown = [k for k in [*self.kinds, *self.queue] if k not in BEFORE_ACT + AFTER_ACT]
        if unknown:
            raise ValueError(f"unknown fault kinds {unknown}; known: {BEFORE_ACT + AFTER_ACT}")
        self._rng = random.Random(self.seed)
        self._lock = threading.Lock()

    def next(self, method: str, path: str) -> str | None:
        """The fault for this request, if any."""
        if path.startswith("/_emulator") or not self.match(method, path):
            return None
        with self._lock:
            if self.queue:
                return self.queue.pop(0)
            if not self.rate or self._rng.random() >= self.rate:
                return None
            after = self._rng.random() < self.after_share
            side = [k for k in self.kinds if (k in AFTER_ACT) == after] or list(self.kinds)
            weights = [self.held_weight if k in HELD else 1.0 for k in side]
            return self._rng.choices(side, weights)[0]


@dataclass(frozen=True)
class Exchange:
    """One request through the proxy: what was asked, which fault hit it, and whether the
    server saw it (``forwarded``) and what it answered (``upstream_status``)."""

    method: str
    path: str
    fault: str | None
    forwarded: bool
    upstream_status: int | None

    @property
    def phase(self) -> str | None:
        if self.fault is None:
            return None
        return "after" if self.fault in AFTER_ACT else "before"


class InProcessAnswer(Protocol):
    """An answer handed over in-process: status, reason, headers and body bytes."""

    @property
    def status(self) -> int: ...

    @property
    def reason(self) -> str: ...

    @property
    def headers(self) -> Sequence[tuple[str, str]]: ...

    @property
    def body(self) -> bytes: ...


class InProcessServer(Protocol):
    """A server running in this process that can answer a request without a socket (the
    emulator: :meth:`~pulumi_dws.testing.emulator.Emulator.exchange`)."""

    @property
    def url(self) -> str: ...

    def exchange(
        self, method: str, target: str, headers: dict[str, str], raw: bytes
    ) -> InProcessAnswer | None: ...


class FaultProxy:
    """The proxy (see the module docstring). ``upstream`` is the server's root URL, or a server
    in this process (an :class:`~pulumi_dws.testing.emulator.Emulator`), which is then handed
    each request directly: the same exchanges, without a second HTTP round trip."""

    def __init__(
        self,
        upstream: str | InProcessServer,
        plan: ProxyFaultPlan | None = None,
        *,
        port: int = 0,
        hold_limit: float = 5.0,
        tunnel_to: tuple[str, int] | None = None,
    ) -> None:
        self._in_process: InProcessServer | None = None
        if not isinstance(upstream, str):
            self._in_process, upstream = upstream, upstream.url
        if not is_loopback(upstream):
            raise ValueError(f"the fault proxy only forwards to this machine, not {upstream}")
        parts = urlsplit(upstream)
        self.upstream = (parts.hostname or "127.0.0.1", parts.port or 80)
        if tunnel_to is not None and not is_loopback(f"http://{tunnel_to[0]}/"):
            raise ValueError(f"the fault proxy only tunnels to this machine, not {tunnel_to}")
        self.tunnel_to = tunnel_to
        self.plan = plan or ProxyFaultPlan()
        self.hold_limit = hold_limit
        self.exchanges: list[Exchange] = []
        self.tunnels = 0
        self._lock = threading.RLock()
        self._recorded = threading.Condition(self._lock)
        self._order = threading.Lock()  # a held request reaches the server before later ones
        self._upstream = threading.local()
        self._port = port
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # ------------------------------------------------------------------ lifecycle
    @property
    def url(self) -> str:
        assert self._server is not None, "proxy not started"
        host, port = self._server.socket.getsockname()[:2]
        return f"http://{host}:{port}/"

    def start(self) -> FaultProxy:
        self._server = ThreadingHTTPServer(("127.0.0.1", self._port), _handler(self))
        self._server.daemon_threads = True
        self._server.handle_error = lambda request, client_address: None  # type: ignore[method-assign]
        self._thread = serve_in_thread(self._server, "fault-proxy")
        return self

    def stop(self) -> None:
        if self._server is not None:
            stop_server(self._server, self._thread)
            self._server = None

    def __enter__(self) -> FaultProxy:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # ------------------------------------------------------------------ records
    def record(self, exchange: Exchange) -> None:
        with self._recorded:
            self.exchanges.append(exchange)
            self._recorded.notify_all()

    def wait_for_exchanges(self, count: int, timeout: float = 30.0) -> list[Exchange]:
        """Block until ``count`` exchanges are recorded (a held one is recorded once the client
        hung up); raise ``TimeoutError`` after ``timeout`` real seconds."""
        with self._recorded:
            if not self._recorded.wait_for(lambda: len(self.exchanges) >= count, timeout):
                raise TimeoutError(f"{len(self.exchanges)} exchanges, not {count}")
            return list(self.exchanges)

    def wait_for_faults(self, count: int, timeout: float = 30.0) -> list[Exchange]:
        """Block until ``count`` exchanges with a fault are recorded (a slow or held answer is
        recorded only once it was sent, after the client may have given up and gone on); the
        exchanges so far. Raise ``TimeoutError`` after ``timeout`` real seconds."""

        def faulted() -> bool:
            return sum(1 for ex in self.exchanges if ex.fault) >= count

        with self._recorded:
            if not self._recorded.wait_for(faulted, timeout):
                raise TimeoutError(f"fewer than {count} faulted exchanges recorded")
            return list(self.exchanges)

    def counts(self) -> dict[str, Counter[str]]:
        """Faults injected so far, by phase (``before``/``after`` the act) and kind."""
        found: dict[str, Counter[str]] = {"before": Counter(), "after": Counter()}
        with self._lock:
            for ex in self.exchanges:
                if ex.phase is not None:
                    found[ex.phase][ex.fault or ""] += 1
        return found

    def requests(self) -> int:
        """Requests that reached the proxy (control paths excluded)."""
        with self._lock:
            return sum(1 for ex in self.exchanges if not ex.path.startswith("/_emulator"))

    # ------------------------------------------------------------------ forwarding
    def forward(
        self, method: str, target: str, headers: dict[str, str], body: bytes
    ) -> tuple[int, str, list[tuple[str, str]], bytes]:
        """Send the request to the server (on a kept-alive connection of this thread, or
        straight to an in-process server); its answer (status, reason, headers, body)."""
        sent = {k: v for k, v in headers.items() if k.lower() not in _HOP_BY_HOP}
        if self._in_process is not None:
            answer = self._in_process.exchange(method, target, sent, body)
            if answer is None:
                raise ConnectionResetError("the server dropped the connection")
            return answer.status, answer.reason, list(answer.headers), answer.body
        for attempt in range(2):
            connection = getattr(self._upstream, "connection", None)
            if connection is None:
                connection = http.client.HTTPConnection(*self.upstream, timeout=60)
                self._upstream.connection = connection
            try:
                connection.request(method, target, body=body or None, headers=sent)
                response = connection.getresponse()
                return response.status, response.reason, response.getheaders(), response.read()
            except (http.client.HTTPException, OSError):
                connection.close()
                self._upstream.connection = None
                if attempt:
                    raise
        raise AssertionError("unreachable")


def _google_error(status: int, message: str) -> bytes:
    names = {429: "RESOURCE_EXHAUSTED", 503: "UNAVAILABLE"}
    return json.dumps(
        {
            "error": {
                "code": status,
                "message": message,
                "status": names.get(status, "UNKNOWN"),
                "errors": [{"message": message, "domain": "global", "reason": "backendError"}],
            }
        }
    ).encode()


_HTML = (
    b"<!DOCTYPE html><html lang=en><meta charset=utf-8><title>Error 502 (Server Error)!!1"
    b"</title><p><b>502.</b> That\xe2\x80\x99s an error.<p>The server encountered a temporary "
    b"error and could not complete your request.</html>"
)


def _handler(proxy: FaultProxy) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
            return

        # -------------------------------------------------------------- helpers
        def _hung_up(self, limit: float) -> bool:
            """Wait (at most ``limit`` real seconds) for the client to hang up."""
            end = time.monotonic() + limit
            while True:
                remaining = end - time.monotonic()
                if remaining <= 0:
                    return False
                readable, _, _ = select.select([self.connection], [], [], remaining)
                if readable:  # EOF, a reset, or (against the protocol) more bytes: it is done
                    return True

        def _close(self) -> None:
            self.close_connection = True
            with contextlib.suppress(OSError):
                self.connection.shutdown(socket.SHUT_RDWR)

        def _answer(
            self,
            status: int,
            body: bytes,
            content_type: str = "application/json; charset=UTF-8",
            headers: list[tuple[str, str]] | None = None,
            length: int | None = None,
        ) -> None:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            for key, value in headers or []:
                self.send_header(key, value)
            self.send_header("Content-Length", str(len(body) if length is None else length))
            self.end_headers()
            self.wfile.write(body)
            self.wfile.flush()

        # -------------------------------------------------------------- requests
        def do_CONNECT(self) -> None:  # noqa: N802 - http.server's naming
            if proxy.tunnel_to is None:
                self._answer(405, b"{}")
                return
            upstream = socket.create_connection(proxy.tunnel_to, timeout=10)
            self.send_response(200, "Connection established")
            self.end_headers()
            self.wfile.flush()
            proxy.tunnels += 1
            sockets = [self.connection, upstream]
            try:
                while True:
                    readable, _, _ = select.select(sockets, [], [], proxy.hold_limit)
                    if not readable:
                        break
                    for sock in readable:
                        data = sock.recv(65536)
                        if not data:
                            return
                        (upstream if sock is self.connection else self.connection).sendall(data)
            finally:
                upstream.close()
                self._close()

        def _handle(self) -> None:
            target = self.path
            if target.startswith(("http://", "https://")):  # absolute form: used as HTTP_PROXY
                parts = urlsplit(target)
                target = parts.path + (f"?{parts.query}" if parts.query else "")
            path = urlsplit(target).path
            length = self.headers.get("Content-Length") or "0"
            body = self.rfile.read(int(length)) if length.isdigit() and int(length) else b""
            headers = {k: v for k, v in self.headers.items()}
            fault = proxy.plan.next(self.command, path)
            status, answer, forwarded = 0, b"", False
            answer_headers: list[tuple[str, str]] = []
            try:
                with proxy._order:  # noqa: SLF001 - see FaultProxy.__init__
                    if fault == "late":
                        self._hung_up(proxy.hold_limit)
                    if fault not in BEFORE_ACT:
                        status, _, answer_headers, answer = proxy.forward(
                            self.command, target, headers, body
                        )
                        forwarded = True
                self._respond(fault, status, answer_headers, answer)
            finally:
                upstream = status if forwarded else None
                proxy.record(Exchange(self.command, path, fault, forwarded, upstream))

        def _respond(
            self, fault: str | None, status: int, headers: list[tuple[str, str]], body: bytes
        ) -> None:
            plan = proxy.plan
            kept = [
                (k, v)
                for k, v in headers
                if k.lower() not in _HOP_BY_HOP | {"content-length", "content-type"}
            ]
            content_type = next(
                (v for k, v in headers if k.lower() == "content-type"), "application/json"
            )
            if fault is None:
                self._answer(status, body, content_type, kept)
            elif fault in ("429", "503"):
                extra = [("Retry-After", str(plan.retry_after))] if plan.retry_after else []
                self._answer(
                    int(fault), _google_error(int(fault), f"injected {fault}"), headers=extra
                )
            elif fault in ("drop", "lose"):
                self._close()
            elif fault in ("delay", "late", "slow"):
                self._hung_up(proxy.hold_limit)
                self._close()
            elif fault == "reset":
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(body) + 10))
                self.end_headers()
                self.wfile.write(body[: len(body) // 2])
                self.wfile.flush()
                self._close()
            elif fault == "dribble":
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.flush()
                for i in range(len(body)):
                    self.wfile.write(body[i : i + 1])
                    self.wfile.flush()
                    if self._hung_up(0.02):
                        break
                self._close()
            elif fault == "html":
                self._answer(200, _HTML, "text/html; charset=UTF-8")
            elif fault == "non_json":
                self._answer(
                    200, b"upstream connect error or disconnect/reset before headers", "text/plain"
                )
            elif fault == "empty":
                self._answer(200, b"")
            elif fault == "truncated":
                self._answer(200, body[: len(body) // 2], content_type)
            elif fault == "string_error":
                self._answer(plan.string_error_status, b'{"error": "Backend Error"}')
            elif fault == "huge":
                self._huge()
            else:  # pragma: no cover - ProxyFaultPlan checks the kinds
                raise ValueError(fault)

        def _huge(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            chunk = b'"' + b"x" * 65530 + b'",'
            framed = f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n"
            head = b'{"items": ['
            try:
                self.wfile.write(f"{len(head):x}\r\n".encode() + head + b"\r\n")
                for _ in range(4096):  # 256 MiB at most
                    self.wfile.write(framed)
                    self.wfile.flush()
            except OSError:
                pass
            self._close()

        do_GET = do_POST = do_DELETE = do_PATCH = do_PUT = _handle  # noqa: N815

    return Handler
