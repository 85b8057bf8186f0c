"""One HTTP exchange with an overall deadline and a cap on the answer's size.

``requests`` only has per-read timeouts: a server that dribbles a byte every few seconds holds a
call for as long as it likes. Here every exchange (connect, send, the answer's headers and body)
ends by its deadline: a watchdog shuts the connection's socket down when the time is up, which
makes the blocked read fail at once. The answer's body is read in chunks and abandoned as soon as
it grows past ``max_bytes``.

The exchange still goes through a ``requests.Session`` (or google-auth's ``AuthorizedSession``),
so the standard proxy and CA settings (``HTTPS_PROXY``, ``HTTP_PROXY``, ``NO_PROXY``,
``REQUESTS_CA_BUNDLE``) apply as usual: only the connection classes of the session's adapter are
replaced, by ones that tell the watchdog which socket to shut.
"""

from __future__ import annotations

import heapq
import socket
import threading
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import requests
from requests.adapters import HTTPAdapter
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool

from . import cancellation

__all__ = ["Answer", "NoAnswer", "exchange", "mount_watched_adapter"]

CONNECT_TIMEOUT_CAP = 20.0  # seconds: a connect never takes more of the deadline than this
_CHUNK = 64 * 1024


class NoAnswer(Exception):
    """No usable HTTP answer arrived: the connection failed or broke, the deadline passed, or the
    answer was larger than allowed. ``sent`` is False only when the request certainly never
    left this machine (the connection could not be made)."""

    def __init__(self, reason: str, *, sent: bool = True) -> None:
        super().__init__(reason)
        self.reason = reason
        self.sent = sent


@dataclass(frozen=True)
class Answer:
    """A complete HTTP answer: status, headers and the whole body."""

    status: int
    headers: Mapping[str, str]
    content: bytes
    reason: str = ""

    @property
    def content_type(self) -> str:
        return str(self.headers.get("Content-Type") or "").split(";")[0].strip().lower()


class _Watch:
    """The watchdog of one exchange: the connections it used, and whether time ran out."""

    def __init__(self, seconds: float) -> None:
        self.due = time.monotonic() + max(seconds, 0.0)
        self._fired = False
        self._lock = threading.Lock()
        self._connections: list[Any] = []
        self._responses: list[Any] = []
        self._entries: list[tuple[float, int, _Watch]] = []
        """Its places in the watchdog's queue (one more each time its deadline is shortened)."""
        self._closed = False

    def track(self, connection: Any) -> None:
        with self._lock:
            self._connections.append(connection)
            if self._fired:  # too late already: stop it at once
                _shut(connection)

    def track_response(self, raw: Any) -> None:
        with self._lock:
            self._responses.append(raw)

    @property
    def expired(self) -> bool:
        """Whether the deadline has passed: by the clock, not only once the watchdog fired (on
        a busy machine a read timeout of the same length can end the exchange first)."""
        return self._fired or time.monotonic() >= self.due

    def shorten(self, due: float) -> None:
        """End the exchange at ``due`` (monotonic) if that is sooner than its deadline."""
        with self._lock:
            if self._closed or due >= self.due:
                return
            self.due = due
            self._entries.append(_WATCHDOG.add(self))

    def close(self) -> None:
        """The exchange is over: the watchdog forgets it (its connections go back to the pool,
        for other exchanges: it must never shut them)."""
        with self._lock:
            self._closed = True
            entries, self._entries = self._entries, []
        for entry in entries:
            _WATCHDOG.cancel(entry)

    def fire(self) -> None:
        with self._lock:
            if self._closed:  # its connections may serve another exchange by now
                return
            self._fired = True
            for connection in self._connections:
                _shut(connection)
            for raw in self._responses:
                with suppress(Exception):  # best effort: the socket may be gone
                    raw.shutdown()


def _shut(connection: Any) -> None:
    sock = getattr(connection, "sock", None)
    if sock is None:
        return
    with suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)


_current = threading.local()


def _watch_connection(connection: Any) -> None:
    watch: _Watch | None = getattr(_current, "watch", None)
    if watch is not None:
        watch.track(connection)


if TYPE_CHECKING:
    _Connection = HTTPConnection
else:
    _Connection = object


class _Watched(_Connection):
    """Tells the watchdog which socket to shut before connecting and before each request."""

    def connect(self) -> None:
        _watch_connection(self)
        super().connect()

    def request(self, *args: Any, **kwargs: Any) -> None:
        _watch_connection(self)
        super().request(*args, **kwargs)


class _WatchedHTTPConnection(_Watched, HTTPConnection):
    pass


class _WatchedHTTPSConnection(_Watched, HTTPSConnection):
    pass


class _WatchedHTTPPool(HTTPConnectionPool):
    ConnectionCls = _WatchedHTTPConnection


class _WatchedHTTPSPool(HTTPSConnectionPool):
    ConnectionCls = _WatchedHTTPSConnection


_POOLS = {"http": _WatchedHTTPPool, "https": _WatchedHTTPSPool}


class _WatchedAdapter(HTTPAdapter):
    """requests' adapter, with connections the watchdog can shut (proxied ones too)."""

    def init_poolmanager(self, *args: Any, **kwargs: Any) -> None:
        super().init_poolmanager(*args, **kwargs)
        self.poolmanager.pool_classes_by_scheme = dict(_POOLS)

    def proxy_manager_for(self, proxy: str, **kwargs: Any) -> Any:
        manager = super().proxy_manager_for(proxy, **kwargs)
        if not proxy.lower().startswith("socks"):
            manager.pool_classes_by_scheme = dict(_POOLS)
        return manager


def mount_watched_adapter(session: requests.Session) -> requests.Session:
    """Give ``session`` connections that :func:`exchange` can stop at its deadline."""
    adapter = _WatchedAdapter()
    session.mount("https://", adapter)
    session.mount("http://", adapter)
    return session


class _Watchdog:
    """One thread for every exchange's deadline (a timer thread per call would cost more than
    a local call): fires each watch whose time has come."""

    def __init__(self) -> None:
        self._lock = threading.Condition()
        self._due: list[tuple[float, int, _Watch]] = []
        self._count = 0
        self._thread: threading.Thread | None = None

    def add(self, watch: _Watch) -> tuple[float, int, _Watch]:
        entry = (watch.due, self._count, watch)
        with self._lock:
            self._count += 1
            heapq.heappush(self._due, entry)
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="dws-deadlines", daemon=True)
                self._thread.start()
            self._lock.notify()
        return entry

    def cancel(self, entry: tuple[float, int, _Watch]) -> None:
        with self._lock:
            try:
                self._due.remove(entry)
                heapq.heapify(self._due)
            except ValueError:
                pass

    def _run(self) -> None:
        while True:
            with self._lock:
                while not self._due or self._due[0][0] > time.monotonic():
                    timeout = self._due[0][0] - time.monotonic() if self._due else None
                    self._lock.wait(timeout)
                _, _, watch = heapq.heappop(self._due)
            watch.fire()


_WATCHDOG = _Watchdog()


@contextmanager
def _watched(seconds: float) -> Iterator[_Watch]:
    watch = _Watch(seconds)
    _current.watch = watch
    watch._entries.append(_WATCHDOG.add(watch))
    try:
        yield watch
    finally:
        watch.close()
        _current.watch = None


def exchange(
    session: requests.Session,
    method: str,
    url: str,
    *,
    body: Any = None,
    params: Mapping[str, Any] | None = None,
    deadline: float,
    max_bytes: int,
) -> Answer:
    """Send one request and read its whole answer within ``deadline`` seconds; raise
    :class:`NoAnswer` when that is not possible."""
    with _watched(deadline) as watch, cancellation.interruptible(watch.fire, watch.shorten):
        try:
            response = session.request(
                method,
                url,
                json=body,
                params=params,
                timeout=(min(deadline, CONNECT_TIMEOUT_CAP), deadline),
                stream=True,
                allow_redirects=False,
            )
        except requests.exceptions.ConnectionError as exc:
            if watch.expired:
                raise NoAnswer(f"no answer within the {deadline:g}s deadline") from None
            sent = not _never_connected(exc)
            raise NoAnswer(f"connection failed: {_short(exc)}", sent=sent) from None
        except requests.exceptions.Timeout as exc:
            sent = not isinstance(exc, requests.exceptions.ConnectTimeout)
            if watch.expired:
                raise NoAnswer(f"no answer within the {deadline:g}s deadline", sent=sent) from None
            raise NoAnswer(f"timed out: {_short(exc)}", sent=sent) from None
        except (requests.exceptions.RequestException, OSError) as exc:
            if watch.expired:
                raise NoAnswer(f"no answer within the {deadline:g}s deadline") from None
            raise NoAnswer(f"the exchange failed: {_short(exc)}") from None
        try:
            watch.track_response(response.raw)
            content = _read_capped(response, max_bytes, watch, deadline)
        finally:
            response.close()
    return Answer(response.status_code, dict(response.headers), content, response.reason or "")


def _read_capped(
    response: requests.Response, max_bytes: int, watch: _Watch, deadline: float
) -> bytes:
    declared = str(response.headers.get("Content-Length") or "").strip()
    if declared.isdigit() and int(declared) > max_bytes:
        raise NoAnswer(f"the answer ({declared} bytes) is larger than the {max_bytes}-byte cap")
    chunks: list[bytes] = []
    total = 0
    try:
        for chunk in response.iter_content(_CHUNK):
            total += len(chunk)
            if total > max_bytes:
                raise NoAnswer(f"the answer is larger than the {max_bytes}-byte cap")
            chunks.append(chunk)
            if watch.expired:
                break
    except NoAnswer:
        raise
    except (requests.exceptions.RequestException, OSError, ValueError) as exc:
        if watch.expired:
            raise NoAnswer(f"the answer did not arrive within the {deadline:g}s deadline") from None
        raise NoAnswer(f"the answer broke off: {_short(exc)}") from None
    if watch.expired:
        raise NoAnswer(f"the answer did not arrive within the {deadline:g}s deadline")
    return b"".join(chunks)


def _never_connected(exc: BaseException) -> bool:
    """True when the connection itself could not be made (nothing was sent)."""
    seen: set[int] = set()
    todo: list[Any] = [exc]
    while todo:
        item = todo.pop()
        if not isinstance(item, BaseException) or id(item) in seen:
            continue
        seen.add(id(item))
        name = type(item).__name__
        if name in ("NewConnectionError", "ConnectTimeoutError", "NameResolutionError"):
            return True
        if isinstance(item, ConnectionRefusedError):
            return True
        todo.extend([getattr(item, "reason", None), item.__cause__, item.__context__])
        todo.extend(a for a in getattr(item, "args", ()) if isinstance(a, BaseException))
    return False


def _short(exc: BaseException) -> str:
    text = str(exc) or type(exc).__name__
    return text if len(text) <= 300 else text[:297] + "..."
