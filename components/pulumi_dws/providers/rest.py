"""The REST client every dynamic provider and ``pulumi_dws.advice`` share.

- Credentials: Application Default Credentials (``google.auth.default``) fetched at call time,
  never stored in inputs, outputs or the pickled provider; anonymous for loopback endpoints.
- Every call has a timeout.
- 429, 5xx and dropped connections are retried with capped exponential backoff and jitter,
  honouring ``Retry-After``. Callers make creates idempotent with a ``requestId``.
- Long-running operations are polled until done with growing intervals, so the number of calls
  grows logarithmically with the wait.
"""

from __future__ import annotations

import datetime
import email.utils
import logging
import os
import random
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import requests

from .endpoints import is_loopback

__all__ = [
    "ApiError",
    "OperationError",
    "RetryPolicy",
    "PollPolicy",
    "GoogleRestClient",
    "virtual_sleep_from_env",
]

log = logging.getLogger("pulumi_dws.rest")
SCOPES = ("https://www.googleapis.com/auth/cloud-platform",)
RETRYABLE_STATUS = frozenset({429, 500, 502, 503, 504})
VIRTUAL_CLOCK_ENV = "DWS_VIRTUAL_CLOCK_URL"


class ApiError(Exception):
    """A Google API answered with an error (after retries, if it was retryable)."""

    def __init__(self, status: int, message: str, reason: str = "", body: Any = None) -> None:
        self.status = status
        self.reason = reason  # e.g. "ZONE_RESOURCE_POOL_EXHAUSTED" or "RESOURCE_EXHAUSTED"
        self.message = message
        self.body = body
        head = f"HTTP {status} {reason}" if reason else f"HTTP {status}"
        super().__init__(f"{head}: {message}")

    @classmethod
    def from_response(cls, response: requests.Response) -> ApiError:
        try:
            body = response.json()
        except ValueError:
            return cls(response.status_code, response.text[:500] or response.reason)
        err = body.get("error", {}) if isinstance(body, dict) else {}
        errors = err.get("errors") or [{}]
        reason = errors[0].get("reason") or err.get("status", "")
        return cls(response.status_code, err.get("message", str(body)[:500]), reason, body)

    @property
    def not_found(self) -> bool:
        return self.status == 404


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


def _retry_after(response: requests.Response | None) -> float | None:
    """Seconds asked for by a ``Retry-After`` header (delta-seconds or an HTTP-date); None when
    there is none or it cannot be read (then the usual backoff applies)."""
    if response is None:
        return None
    value = (response.headers.get("Retry-After") or "").strip()
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        parsed = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if parsed.tzinfo is None:  # "-0000": UTC, per RFC 5322
        parsed = parsed.replace(tzinfo=datetime.timezone.utc)
    return max(0.0, parsed.timestamp() - time.time())


def virtual_sleep_from_env() -> Callable[[float], None] | None:
    """A sleep that advances a local emulator's virtual clock, when ``DWS_VIRTUAL_CLOCK_URL``
    names a loopback control URL (used by tests and ``dws emulator``); else ``None``."""
    url = os.environ.get(VIRTUAL_CLOCK_ENV)
    if not url or not is_loopback(url):
        return None

    def sleep(seconds: float) -> None:
        requests.post(url, json={"seconds": seconds}, timeout=10).raise_for_status()

    return sleep


@dataclass
class GoogleRestClient:
    """JSON-over-HTTP client for one API base URL (e.g. ``https://compute.googleapis.com/compute/v1/``)."""

    base_url: str
    timeout: float = 60.0
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    poll: PollPolicy = field(default_factory=PollPolicy)
    sleep: Callable[[float], None] | None = None
    seed: int | None = None
    calls: int = 0
    _session: requests.Session | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if not self.base_url.endswith("/"):
            self.base_url += "/"
        self._default_sleep = self.sleep is None
        if self.sleep is None:
            self.sleep = virtual_sleep_from_env() or time.sleep
        self._rng = random.Random(self.seed)

    # ------------------------------------------------------------------ session
    def session(self) -> requests.Session:
        """An authorised session: ADC for Google, anonymous for loopback servers."""
        if self._session is None:
            if is_loopback(self.base_url):
                self._session = requests.Session()
            else:
                import google.auth
                from google.auth.transport.requests import AuthorizedSession

                credentials, _ = google.auth.default(scopes=list(SCOPES))
                self._session = AuthorizedSession(credentials)
        return self._session

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

    # ------------------------------------------------------------------ requests
    def url(self, path: str) -> str:
        if path.startswith(("http://", "https://")):
            return path
        return self.base_url + path.lstrip("/")

    def request(
        self,
        method: str,
        path: str,
        *,
        body: Any = None,
        params: Mapping[str, Any] | None = None,
    ) -> dict[str, Any]:
        """One API call with retries; returns the JSON body (``{}`` when empty)."""
        assert self.retry.attempts >= 1
        url = self.url(path)
        last: Exception | None = None
        for attempt in range(self.retry.attempts):
            response: requests.Response | None = None
            try:
                self.calls += 1
                response = self.session().request(
                    method, url, json=body, params=params, timeout=self.timeout
                )
            except (requests.ConnectionError, requests.Timeout) as exc:
                last = exc
                log.info("%s %s: %s (attempt %d)", method, url, exc, attempt + 1)
            else:
                if response.status_code < 400:
                    return response.json() if response.content else {}
                error = ApiError.from_response(response)
                if response.status_code not in RETRYABLE_STATUS:
                    raise error
                last = error
                log.info("%s %s: %s (attempt %d)", method, url, error, attempt + 1)
            if attempt + 1 < self.retry.attempts:
                assert self.sleep is not None
                self.sleep(self.retry.delay(attempt, _retry_after(response), self._rng))
        assert last is not None
        if isinstance(last, ApiError):
            raise last
        raise ApiError(0, f"{method} {url} failed after {self.retry.attempts} attempts: {last}")

    def get(self, path: str, **params: Any) -> dict[str, Any]:
        return self.request("GET", path, params=params or None)

    def post(self, path: str, body: Any = None, **params: Any) -> dict[str, Any]:
        return self.request("POST", path, body=body, params=params or None)

    def patch(self, path: str, body: Any = None, **params: Any) -> dict[str, Any]:
        return self.request("PATCH", path, body=body, params=params or None)

    def delete(self, path: str, **params: Any) -> dict[str, Any]:
        return self.request("DELETE", path, params=params or None)

    # ------------------------------------------------------------------ operations
    def wait(
        self,
        operation: dict[str, Any],
        poll_path: str,
        *,
        is_done: Callable[[dict[str, Any]], bool],
        timeout: float = 3600.0,
    ) -> dict[str, Any]:
        """Poll ``poll_path`` until ``is_done``; intervals grow per :class:`PollPolicy`.

        ``timeout`` counts the seconds slept (virtual seconds under an emulator clock).
        """
        waited, interval = 0.0, self.poll.initial
        while not is_done(operation):
            if waited >= timeout:
                raise TimeoutError(f"operation {poll_path} not done after {waited:.0f}s")
            assert self.sleep is not None
            step = min(interval, timeout - waited)
            self.sleep(step)
            waited += step
            interval = min(self.poll.cap, interval * self.poll.factor)
            operation = self.get(poll_path)
        return operation
