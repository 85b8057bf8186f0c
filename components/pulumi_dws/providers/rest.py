"""The REST client every dynamic provider and ``pulumi_dws.advice`` share.

- Credentials: Application Default Credentials (``google.auth.default``) fetched at call time,
  never stored in inputs, outputs or the pickled provider, and only ever sent over HTTPS.
  Loopback endpoints (a local emulator: ``127.0.0.0/8``, ``::1``, ``localhost`` in any
  spelling) are called without credentials; any other ``http://`` endpoint is refused.
- Every attempt has an overall deadline (connect, send and the whole answer: a server
  dribbling bytes cannot hold a call) and a cap on the answer's size; see
  :mod:`~pulumi_dws.providers.transport`. ``HTTPS_PROXY``/``NO_PROXY``/``REQUESTS_CA_BUNDLE``
  apply as with plain ``requests``.
- Only a well-formed answer is believed: a 2xx whose body is a JSON object (that the caller's
  ``expect`` accepts), or an error in Google's error shape. Anything else (a dropped or reset
  connection, a deadline passed, an HTML page, an empty, truncated or non-JSON body, an
  ``error`` that is a string) means the answer was *lost*: the API may or may not have acted.
  Lost answers, 429 and 5xx, and transient failures to refresh the access token are retried
  with capped exponential backoff and jitter, honouring ``Retry-After``; when the retries run
  out the :class:`ApiError` says ``lost=True`` (and ``sent=False`` when no attempt left this
  machine).
- Only an idempotent call is sent again once it may have reached the API: a GET, PUT or DELETE,
  or a POST or PATCH that carries a ``requestId`` (the API deduplicates it), or one the caller
  declares ``idempotent=True`` (a read-only POST; a create whose resource the caller names, so a
  second one meets ``409``). Any other POST or PATCH is sent again only when it certainly never
  left this machine; otherwise its failure is raised at once (``lost`` or its 429/5xx), and the
  caller settles it by reading what exists before it sends anything again (see
  :class:`~pulumi_dws.providers.create_machine.Idempotency`).
- Long-running operations are polled until done with growing intervals, so the number of calls
  grows logarithmically with the wait. Every sleep (backoff, ``Retry-After``, polling) goes
  through ``sleep``, which follows an emulator's virtual clock when one is configured.
"""

from __future__ import annotations

import datetime
import email.utils
import json
import logging
import math
import os
import random
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar
from urllib.parse import urlsplit

import google.auth
import requests
from google.auth.exceptions import GoogleAuthError, RefreshError, TransportError

from . import cancellation
from .endpoints import InsecureEndpointError, check_endpoint, credentials_for, is_loopback
from .transport import Answer, NoAnswer, exchange, mount_watched_adapter

__all__ = [
    "ApiError",
    "CredentialsError",
    "InsecureEndpointError",
    "OperationError",
    "RetryPolicy",
    "PollPolicy",
    "Waited",
    "GoogleRestClient",
    "RETRYABLE_STATUS",
    "virtual_sleep_from_env",
    "idempotent_by_default",
    "is_lro",
    "pages",
    "wire",
]

log = logging.getLogger("pulumi_dws.rest")
SCOPES = ("https://www.googleapis.com/auth/cloud-platform",)
RETRYABLE_STATUS = frozenset({429, 500, 502, 503, 504})
IDEMPOTENT_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "PUT", "DELETE"})
"""RFC 9110 §9.2.2: the methods whose repeats have the effect of one request."""
VIRTUAL_CLOCK_ENV = "DWS_VIRTUAL_CLOCK_URL"
TIMEOUT_ENV = "DWS_HTTP_TIMEOUT"
"""Seconds: the overall deadline of one HTTP attempt (default 60). Tests shorten it."""
DEFAULT_TIMEOUT = 60.0
DEFAULT_MAX_ANSWER_BYTES = 32 * 1024 * 1024


class ApiError(Exception):
    """A Google API call failed (after retries, if it was retryable).

    ``status`` is the HTTP status of Google's error answer, or 0 when no trustworthy answer came
    back (``lost``): then the API may have carried the request out. ``sent`` is False only when
    no attempt left this machine (nothing can have happened).
    """

    def __init__(
        self,
        status: int,
        message: str,
        reason: str = "",
        body: Any = None,
        *,
        lost: bool = False,
        sent: bool = True,
    ) -> None:
        self.status = status
        self.reason = reason  # e.g. "ZONE_RESOURCE_POOL_EXHAUSTED" or "RESOURCE_EXHAUSTED"
        self.message = message
        self.body = body
        self.lost = lost
        self.sent = sent
        head = f"HTTP {status} {reason}" if reason else f"HTTP {status}"
        super().__init__(f"{head}: {message}" if status else message)

    @classmethod
    def from_body(cls, status: int, body: Mapping[str, Any]) -> ApiError:
        """The error of a Google error answer ``{"error": {"code", "message", ...}}``."""
        err = body.get("error")
        assert isinstance(err, Mapping)
        errors = err.get("errors") if isinstance(err.get("errors"), list) else []
        first = errors[0] if errors and isinstance(errors[0], Mapping) else {}
        reason = str(first.get("reason") or err.get("status") or "")
        return cls(status, str(err.get("message") or "")[:1000], reason, dict(body))

    @property
    def not_found(self) -> bool:
        return self.status == 404

    @property
    def transient(self) -> bool:
        """True when the failure says nothing about the resource and may pass: no usable answer
        (or nothing sent), 429/5xx, 401 (credentials refused: a token that could not be
        refreshed) or no credentials at all. A wait reads again; it never concludes from it."""
        return (
            self.lost
            or self.status in RETRYABLE_STATUS
            or self.status == 401
            or (self.reason == "CREDENTIALS")
        )

    @property
    def ambiguous(self) -> bool:
        """True when the API may have carried the request out: the answer was lost, or it was a
        429/5xx until the retries ran out (a 5xx can come after the backend committed)."""
        return (self.lost and self.sent) or self.status in RETRYABLE_STATUS


class CredentialsError(ApiError):
    """Application Default Credentials could not be had (nothing was sent)."""

    def __init__(self, message: str) -> None:
        super().__init__(0, message, "CREDENTIALS", sent=False)


class OperationError(Exception):
    """A long-running operation finished with an error."""

    def __init__(self, operation: Mapping[str, Any], errors: list[dict[str, Any]]) -> None:
        self.operation = dict(operation)
        self.errors = errors
        self.codes = [str(e.get("code", "")) for e in errors]
        text = "; ".join(f"{e.get('code', '')}: {e.get('message', '')}" for e in errors)
        super().__init__(text or "operation failed")


@dataclass(frozen=True)
class RetryPolicy:
    """Capped exponential backoff with full jitter for retryable failures."""

    attempts: int = 7
    initial: float = 0.5
    cap: float = 30.0
    retry_after_cap: float = 120.0

    def delay(self, attempt: int, retry_after: float | None, rng: random.Random) -> float:
        if retry_after is not None:
            return min(retry_after, self.retry_after_cap)
        return rng.uniform(0, min(self.cap, self.initial * (2**attempt)))


@dataclass(frozen=True)
class PollPolicy:
    """Operation polling: the interval doubles from ``initial`` up to ``cap`` seconds.

    With the default cap (30 min) a 2-hour wait takes about 13 polls.
    """

    initial: float = 1.0
    factor: float = 2.0
    cap: float = 1800.0


T = TypeVar("T")
_UNREAD: Any = object()


@dataclass(frozen=True)
class Waited(Generic[T]):
    """How a wait (:meth:`GoogleRestClient.wait_until`) ended: the last ``value`` read (None when
    none could be read), the seconds ``waited``, whether ``done``, and the error the reads met
    when the wait ended during an outage (``outage``; None when the last read worked)."""

    value: T | None
    waited: float
    done: bool
    outage: ApiError | None = None
    seen: bool = True
    """False when no read worked (and no value was given): ``value`` is then no answer."""


def _header_time(value: str) -> float | None:
    try:
        parsed = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if parsed.tzinfo is None:  # "-0000": UTC, per RFC 5322
        parsed = parsed.replace(tzinfo=datetime.timezone.utc)
    return parsed.timestamp()


def _retry_after(headers: Mapping[str, str] | None) -> float | None:
    """Seconds asked for by a ``Retry-After`` header (delta-seconds, or an HTTP-date counted from
    the answer's own ``Date``, so a server on a virtual clock is read on its own clock); None
    when there is none or it cannot be read (then the usual backoff applies)."""
    if not headers:
        return None
    value = str(headers.get("Retry-After") or "").strip()
    if not value:
        return None
    try:
        seconds = float(value)
    except ValueError:
        pass
    else:
        return max(0.0, seconds) if math.isfinite(seconds) else None
    when = _header_time(value)
    if when is None:
        return None
    now = _header_time(str(headers.get("Date") or "")) or time.time()
    return max(0.0, when - now)


def virtual_sleep_from_env() -> Callable[[float], None] | None:
    """A sleep that advances a local emulator's virtual clock, when ``DWS_VIRTUAL_CLOCK_URL``
    names a loopback control URL (used by tests and ``dws emulator``); else ``None``."""
    url = os.environ.get(VIRTUAL_CLOCK_ENV)
    if not url or not is_loopback(url):
        return None

    def sleep(seconds: float) -> None:
        requests.post(url, json={"seconds": seconds}, timeout=10).raise_for_status()

    return sleep


def _timeout_from_env() -> float:
    text = os.environ.get(TIMEOUT_ENV, "").strip()
    if not text:
        return DEFAULT_TIMEOUT
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"{TIMEOUT_ENV}={text!r} is not a number of seconds") from None
    if not math.isfinite(value) or value <= 0:
        raise ValueError(f"{TIMEOUT_ENV}={text!r} must be a positive number of seconds")
    return value


def idempotent_by_default(method: str, params: Mapping[str, Any] | None) -> bool:
    """Whether a call may be sent again after it may have reached the API, when its caller
    says nothing: an idempotent method (:data:`IDEMPOTENT_METHODS`), or a POST/PATCH carrying
    a ``requestId`` (Compute and Cloud TPU answer a repeated id with the first request's
    operation)."""
    return method.upper() in IDEMPOTENT_METHODS or bool((params or {}).get("requestId"))


def _json_object(content: bytes) -> tuple[dict[str, Any] | None, str]:
    """The answer's body as a JSON object, or ``(None, what is wrong with it)``."""
    if not content.strip():
        return None, "is empty"
    try:
        parsed = json.loads(content)
    except (ValueError, UnicodeDecodeError):
        snippet = content[:60].decode("utf-8", "replace").replace("\n", " ")
        return None, f"is not JSON ({snippet!r}...)"
    if not isinstance(parsed, dict):
        return None, f"is JSON but not an object ({type(parsed).__name__})"
    return parsed, ""


def _google_error(body: Mapping[str, Any] | None) -> bool:
    error = (body or {}).get("error")
    return isinstance(error, Mapping) and ("code" in error or "message" in error)


@dataclass
class GoogleRestClient:
    """JSON-over-HTTP client for one API base URL (e.g. ``https://compute.googleapis.com/compute/v1/``).

    ``timeout`` is the overall deadline of one attempt in seconds (default: ``DWS_HTTP_TIMEOUT``
    or 60); ``max_answer_bytes`` caps an answer's size.
    """

    base_url: str
    timeout: float | None = None
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    poll: PollPolicy = field(default_factory=PollPolicy)
    sleep: Callable[[float], None] | None = None
    seed: int | None = None
    max_answer_bytes: int = DEFAULT_MAX_ANSWER_BYTES
    calls: int = 0
    server_time: float | None = None
    """The ``Date`` of the last answer (the server's clock, POSIX seconds), if it had one."""
    credential_hosts: str | None = None
    """Hosts other than Google's that get credentials (the stack config
    ``dws:credentialHosts``; ``DWS_CREDENTIAL_HOSTS`` too)."""
    anonymous: str = ""
    """Why the session carries no credentials, for a host that is not a loopback one."""
    _session: requests.Session | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if not self.base_url.endswith("/"):
            self.base_url += "/"
        check_endpoint(self.base_url)
        if self.timeout is None:
            self.timeout = _timeout_from_env()
        self._default_sleep = self.sleep is None
        if self.sleep is None:
            self.sleep = virtual_sleep_from_env() or time.sleep
        self._rng = random.Random(self.seed)

    # ------------------------------------------------------------------ session
    def session(self) -> requests.Session:
        """A session: with Application Default Credentials for a Google API host (or a host the
        user named, see :func:`~.endpoints.credentials_for`), anonymous for any other."""
        if self._session is None:
            authorised, why = credentials_for(self.base_url, self.credential_hosts)
            self.anonymous = "" if authorised else why
            session = self._authorised_session() if authorised else requests.Session()
            self._session = mount_watched_adapter(session)
        return self._session

    def _authorised_session(self) -> requests.Session:
        # google-auth's requests transport takes ~40 ms to import: only a call to Google needs it
        from google.auth.transport.requests import AuthorizedSession

        try:
            credentials, _ = google.auth.default(scopes=list(SCOPES))
        except GoogleAuthError as err:
            raise CredentialsError(f"no Application Default Credentials ({err}).") from None
        return AuthorizedSession(credentials)

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["_session"] = None  # never pickle a session or its credentials
        if state.get("_default_sleep"):
            state["sleep"] = None  # chosen where it runs (a virtual-clock sleep is a closure)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        if self.sleep is None:
            self.sleep = virtual_sleep_from_env() or time.sleep

    def pause(self, seconds: float) -> None:
        """Sleep between polls or retries: on the virtual clock when there is one, and never past
        a cancellation (see :mod:`~pulumi_dws.providers.cancellation`: the engine's ``Cancel``,
        SIGINT or SIGTERM to the host end it at once, with :class:`~.cancellation.Interrupted`).
        Every wait of a provider sleeps through here."""
        cancellation.pause(seconds, self.sleep)

    # ------------------------------------------------------------------ requests
    def url(self, path: str) -> str:
        """``path`` under the base URL; an absolute URL only on the base URL's own origin (a
        token is never sent to another host)."""
        if path.startswith(("http://", "https://")):
            base, there = urlsplit(self.base_url), urlsplit(path)
            if (there.scheme, there.netloc) != (base.scheme, base.netloc):
                raise InsecureEndpointError(
                    f"refusing to call {there.scheme}://{there.netloc}: this client only calls "
                    f"{base.scheme}://{base.netloc}"
                )
            return path
        return self.base_url + path.lstrip("/")

    def request(
        self,
        method: str,
        path: str,
        *,
        body: Any = None,
        params: Mapping[str, Any] | None = None,
        expect: Callable[[dict[str, Any]], bool] | None = None,
        idempotent: bool | None = None,
    ) -> dict[str, Any]:
        """One API call with retries; returns the answer's JSON object.

        ``expect`` checks the shape of a 2xx answer (e.g. "an operation with a name"); an answer
        it rejects counts as lost, like a truncated one. ``idempotent`` says whether the call
        may be sent again once it may have reached the API (default:
        :func:`idempotent_by_default`); a call that may not is retried only while no attempt
        left this machine.
        """
        assert self.retry.attempts >= 1
        url = self.url(path)
        resend = idempotent_by_default(method, params) if idempotent is None else idempotent
        last: ApiError | None = None
        sent = False
        for attempt in range(self.retry.attempts):
            headers: Mapping[str, str] | None = None
            cancellation.check()  # a wait the engine gave up on sends nothing more
            self.calls += 1
            try:
                answer = self._exchange(method, url, body, params)
            except NoAnswer as exc:
                cancellation.check()  # the exchange was ended by a cancellation
                last = ApiError(0, f"{method} {url}: {exc.reason}", lost=True, sent=exc.sent)
            else:
                headers = answer.headers
                self.server_time = _header_time(str(headers.get("Date") or "")) or self.server_time
                judged = self._judge(method, url, answer, expect)
                if isinstance(judged, dict):
                    return judged
                if judged.status in (401, 403) and self.anonymous and not is_loopback(url):
                    judged = ApiError(
                        judged.status,
                        f"{judged.message} ({self.anonymous})",
                        judged.reason,
                        judged.body,
                    )
                last = judged
                if not judged.ambiguous and not judged.lost:
                    raise judged
            sent = sent or last.sent
            log.info("%s %s: %s (attempt %d)", method, url, last, attempt + 1)
            if last.sent and not resend:
                raise _not_resent(last)
            if attempt + 1 < self.retry.attempts:
                self.pause(self.retry.delay(attempt, _retry_after(headers), self._rng))
        assert last is not None
        if last.lost:
            raise ApiError(
                0,
                f"{last.message} (no usable answer after {self.retry.attempts} attempts)",
                lost=True,
                sent=sent,
            )
        last.sent = sent
        raise last

    def _exchange(
        self, method: str, url: str, body: Any, params: Mapping[str, Any] | None
    ) -> Answer:
        assert self.timeout is not None
        deadline = self.timeout
        left = cancellation.remaining()  # the clean-up of an interrupted call: its grace
        if left is not None:
            if left <= 0:
                raise NoAnswer("the grace of an interrupted call ran out", sent=False)
            deadline = min(deadline, left)
        try:
            return exchange(
                self.session(),
                method,
                url,
                body=body,
                params=params,
                deadline=deadline,
                max_bytes=self.max_answer_bytes,
            )
        except (RefreshError, TransportError) as exc:
            if _transient_auth_failure(exc):
                raise NoAnswer(f"refreshing the access token failed: {exc}", sent=False) from None
            raise CredentialsError(f"the access token could not be refreshed: {exc}") from None
        except GoogleAuthError as exc:
            raise CredentialsError(f"credentials failed: {exc}") from None

    @staticmethod
    def _judge(
        method: str,
        url: str,
        answer: Answer,
        expect: Callable[[dict[str, Any]], bool] | None,
    ) -> dict[str, Any] | ApiError:
        """The answer's JSON object, or the error it stands for (raised by the caller unless
        it may be retried)."""
        parsed, problem = _json_object(answer.content)
        where = f"{method} {url}: HTTP {answer.status}"
        if 200 <= answer.status < 300:
            if parsed is None:
                return ApiError(0, f"{where} answer {problem}", lost=True)
            if expect is not None and not expect(parsed):
                shown = json.dumps(parsed)[:120]
                return ApiError(0, f"{where} answer has an unexpected shape: {shown}", lost=True)
            return parsed
        if parsed is None or not _google_error(parsed):
            what = problem or f"is not Google's error object: {json.dumps(parsed)[:120]}"
            return ApiError(0, f"{where} answer {what}", lost=True)
        return ApiError.from_body(answer.status, parsed)

    def get(
        self, path: str, *, expect: Callable[[dict[str, Any]], bool] | None = None, **params: Any
    ) -> dict[str, Any]:
        return self.request("GET", path, params=params or None, expect=expect)

    def find(
        self, path: str, *, expect: Callable[[dict[str, Any]], bool] | None = None, **params: Any
    ) -> dict[str, Any] | None:
        """GET ``path``, or None when it does not exist (404); any other error is raised."""
        try:
            return self.get(path, expect=expect, **params)
        except ApiError as err:
            if err.not_found:
                return None
            raise

    def post(
        self,
        path: str,
        body: Any = None,
        *,
        expect: Callable[[dict[str, Any]], bool] | None = None,
        idempotent: bool | None = None,
        **params: Any,
    ) -> dict[str, Any]:
        """POST; sent again after it may have reached the API only with a ``requestId`` or
        ``idempotent=True`` (see :meth:`request`)."""
        return self.request(
            "POST", path, body=body, params=params or None, expect=expect, idempotent=idempotent
        )

    def patch(
        self,
        path: str,
        body: Any = None,
        *,
        expect: Callable[[dict[str, Any]], bool] | None = None,
        idempotent: bool | None = None,
        **params: Any,
    ) -> dict[str, Any]:
        """PATCH; sent again as :meth:`post` is."""
        return self.request(
            "PATCH", path, body=body, params=params or None, expect=expect, idempotent=idempotent
        )

    def delete(
        self, path: str, *, expect: Callable[[dict[str, Any]], bool] | None = None, **params: Any
    ) -> dict[str, Any]:
        return self.request("DELETE", path, params=params or None, expect=expect)

    # ------------------------------------------------------------------ waits
    def wait_until(
        self,
        read: Callable[[], T],
        done: Callable[[T], bool],
        budget: float,
        *,
        initial: Any = _UNREAD,
    ) -> Waited[T]:
        """Call ``read`` with growing intervals (:class:`PollPolicy`) until ``done(value)`` or
        ``budget`` seconds were slept (virtual under an emulator clock); ``initial`` is a value
        already read (else the first read happens at once).

        Every wait of a provider is this loop, so every wait is:

        - *outage-tolerant*: a read that fails for a reason that says nothing about the resource
          (:attr:`ApiError.transient`: no usable answer, 429/5xx, 401, no credentials) is not a
          conclusion: the wait goes on, bounded by its own budget, and :attr:`Waited.outage`
          says what the reads met when it ended during one;
        - *cancellable*: its sleeps are :meth:`pause`.
        """
        waited, interval = 0.0, self.poll.initial
        outage: ApiError | None = None
        value: Any = initial
        if value is _UNREAD:
            value, outage = self._read_through(read, _UNREAD)
        while True:
            if value is not _UNREAD and outage is None and done(value):
                return Waited(value, waited, True, None)
            if waited >= budget:
                if value is _UNREAD:
                    return Waited(None, waited, False, outage, seen=False)
                return Waited(value, waited, False, outage)
            step = min(interval, budget - waited)
            self.pause(step)
            waited += step
            interval = min(self.poll.cap, interval * self.poll.factor)
            fresh, outage = self._read_through(read, value)
            value = fresh

    @staticmethod
    def _read_through(read: Callable[[], T], last: Any) -> tuple[Any, ApiError | None]:
        """``(read(), None)``, or ``(last, error)`` when the read failed transiently."""
        try:
            return read(), None
        except ApiError as err:
            if not err.transient:
                raise
            log.info("a read during a wait failed; waiting on: %s", err)
            return last, err

    # ------------------------------------------------------------------ operations
    def wait(
        self,
        operation: dict[str, Any],
        poll_path: str,
        *,
        is_done: Callable[[dict[str, Any]], bool],
        timeout: float = 3600.0,
        expect: Callable[[dict[str, Any]], bool] | None = None,
    ) -> dict[str, Any]:
        """Poll ``poll_path`` until ``is_done`` (:meth:`wait_until`: an outage is waited out);
        ``TimeoutError`` after ``timeout`` seconds slept (virtual under an emulator clock)."""
        result = self.wait_until(
            lambda: self.get(poll_path, expect=expect), is_done, timeout, initial=operation
        )
        if not result.done:
            during = f" (reads failing: {result.outage})" if result.outage else ""
            raise TimeoutError(f"operation {poll_path} not done after {result.waited:.0f}s{during}")
        assert result.value is not None
        return result.value

    def poll_resource(
        self,
        path: str,
        until: Callable[[dict[str, Any] | None], bool],
        *,
        timeout: float,
        expect: Callable[[dict[str, Any]], bool] | None = None,
    ) -> dict[str, Any] | None:
        """GET ``path`` (:meth:`wait_until`) until ``until(resource or None)`` (None: 404) or
        ``timeout`` seconds were slept; returns the last read. A wait during which no read
        worked raises the error the reads met."""
        return self.poll_until(lambda: self.find(path, expect=expect), until, timeout=timeout)

    def poll_until(
        self,
        read: Callable[[], dict[str, Any] | None],
        until: Callable[[dict[str, Any] | None], bool],
        *,
        timeout: float,
    ) -> dict[str, Any] | None:
        """Call ``read`` (a resource, or None when there is none) with growing intervals
        (:meth:`wait_until`: cancellable, an outage waited out) until ``until(what it read)`` or
        ``timeout`` seconds were slept; returns the last read. For a resource read otherwise
        than by a GET of its path (a deployed model, an entry of its endpoint). A wait during
        which no read worked raises the error the reads met."""
        result = self.wait_until(read, until, timeout)
        if not result.seen and result.outage is not None:
            raise result.outage
        return result.value


def _not_resent(error: ApiError) -> ApiError:
    """The failure of a call that may not be sent again, as raised: its own 429/5xx answer, or
    a lost answer that says why it was not sent again."""
    if not error.lost:
        return error
    note = "not sent again: the API may have acted, and it does not deduplicate this call"
    return ApiError(0, f"{error.message} ({note})", lost=True, sent=True)


def wire(value: Any) -> Any:
    """A JSON body as sent: whole floats back to ints (the engine hands every number to a
    dynamic provider as a float), everything else as declared."""
    if isinstance(value, Mapping):
        return {k: wire(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [wire(v) for v in value]
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def is_lro(answer: Mapping[str, Any]) -> bool:
    """A ``google.longrunning.Operation`` (Vertex AI, Cloud TPU): a ``name``; ``done`` a
    boolean and ``error`` an object when present."""
    error = answer.get("error")
    return (
        isinstance(answer.get("name"), str)
        and isinstance(answer.get("done", False), bool)
        and (error is None or isinstance(error, Mapping))
    )


def _transient_auth_failure(exc: BaseException) -> bool:
    """A token refresh that failed for a reason that may pass (the metadata server or the token
    endpoint did not answer), as opposed to revoked or missing credentials."""
    if isinstance(exc, TransportError) or getattr(exc, "retryable", False):
        return True
    cause = exc.__cause__ or exc.__context__
    while cause is not None:
        if isinstance(cause, (TransportError, requests.exceptions.ConnectionError)):
            return True
        cause = cause.__cause__ or cause.__context__
    return False


def pages(
    fetch: Callable[[str | None], Mapping[str, Any]], what: str
) -> Iterator[Mapping[str, Any]]:
    """Every page of a list (AIP-158): ``fetch(None)``, then ``fetch(token)`` for each
    ``nextPageToken`` until one is missing or empty. A token that comes again would make the
    list endless: that answer is not believed (:class:`ApiError`, ``lost``: a wait reads again,
    nothing concludes from it) and ``what`` (the list) is named."""
    seen: set[str] = set()
    token: str | None = None
    while True:
        page = fetch(token)
        yield page
        following = page.get("nextPageToken")
        if not isinstance(following, str) or not following:
            return
        if following in seen:
            raise ApiError(
                0,
                f"{what}: the page token {following[:60]!r} came again (the list would never "
                "end); the answer is not believed",
                lost=True,
            )
        seen.add(following)
        token = following
