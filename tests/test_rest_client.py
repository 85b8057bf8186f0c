"""The shared REST client (``pulumi_dws.providers.rest``) over real HTTP against the emulator with
a tiny scripted service: retries, ``Retry-After``, errors, operation polling, credentials and
pickling. Sleeps are recorded, never slept."""

from __future__ import annotations

import email.utils
import pickle
import time
from collections.abc import Iterator
from typing import Any

import pytest

from pulumi_dws.providers.rest import (
    ApiError,
    GoogleRestClient,
    PollPolicy,
    RetryPolicy,
)
from pulumi_dws.testing.clock_helpers import virtual_sleep
from pulumi_dws.testing.emulator import Emulator, GoogleError, Request, Response, Route
from pulumi_dws.testing.emulator.base import google_error


class Scripted:
    """``GET/POST /api/things``: answers from ``script`` (then 200); ``GET /api/ops/<n>``: an
    operation that is ``DONE`` from the ``done_after``-th poll on."""

    name = "scripted"

    def __init__(self) -> None:
        self.script: list[Response | GoogleError] = []
        self.calls: list[Request] = []
        self.polls = 0
        self.done_after = 1

    def routes(self) -> list[Route]:
        return [
            Route.of("GET", r"/api/things", self._thing),
            Route.of("POST", r"/api/things", self._thing),
            Route.of("GET", r"/api/ops/(?P<op>[^/]+)", self._op),
        ]

    def tick(self, now: Any) -> None:
        return None

    def _thing(self, request: Request) -> Response:
        self.calls.append(request)
        answer = self.script.pop(0) if self.script else Response(200, {"ok": len(self.calls)})
        if isinstance(answer, GoogleError):
            raise answer
        return answer

    def _op(self, request: Request) -> Response:
        self.polls += 1
        status = "DONE" if self.polls >= self.done_after else "RUNNING"
        return Response(200, {"name": request.params["op"], "status": status})


@pytest.fixture
def service() -> Scripted:
    return Scripted()


@pytest.fixture
def emu(service: Scripted, monkeypatch: pytest.MonkeyPatch) -> Iterator[Emulator]:
    monkeypatch.delenv("DWS_VIRTUAL_CLOCK_URL", raising=False)
    with Emulator([service]) as emulator:
        yield emulator


class Sleeps(list[float]):
    """An injected sleep that records the delays asked for."""

    def __call__(self, seconds: float) -> None:
        self.append(seconds)


def client(emu: Emulator, sleeps: Sleeps, **kwargs: Any) -> GoogleRestClient:
    return GoogleRestClient(emu.url + "api/", sleep=sleeps, seed=1, **kwargs)


def error(status: int, reason: str = "", **headers: str) -> Response:
    return Response(status, google_error(status, f"status {status}", reason), dict(headers))


# ---------------------------------------------------------------------- retries
def test_429_503_and_a_dropped_connection_are_retried(emu: Emulator, service: Scripted) -> None:
    emu.faults.queue.extend(["429", "drop"])
    service.script.append(error(503))
    sleeps = Sleeps()
    c = client(emu, sleeps, retry=RetryPolicy(attempts=5, initial=0.5, cap=30.0))
    assert c.get("things") == {"ok": 2}  # the scripted 503, then the answer
    assert c.calls == 4
    assert len(sleeps) == 3
    assert sleeps[0] == 1  # the injected 429 carries Retry-After: 1
    assert 0 <= sleeps[1] <= 1.0 and 0 <= sleeps[2] <= 2.0  # full jitter, doubling


@pytest.mark.parametrize("fault", ["drop", "503"])
def test_a_post_the_api_does_not_deduplicate_is_never_sent_twice(
    emu: Emulator, service: Scripted, fault: str
) -> None:
    """A dropped connection or a 503 may come after the API acted: a POST with no request id
    is raised at once (its caller reads what exists before it sends anything again)."""
    if fault == "drop":
        emu.faults.queue.append(fault)
    else:
        service.script.append(error(503))
    sleeps = Sleeps()
    c = client(emu, sleeps)
    with pytest.raises(ApiError) as info:
        c.post("things", {"a": 1})
    assert c.calls == 1 and sleeps == [] and info.value.ambiguous
    assert len(service.calls) == (0 if fault == "drop" else 1)
    if fault == "drop":
        assert info.value.lost and "not sent again" in str(info.value)


@pytest.mark.parametrize(
    "call",
    [
        lambda c: c.post("things", {"a": 1}, requestId="r-1"),  # deduplicated by the API
        lambda c: c.post("things", {"a": 1}, idempotent=True),  # declared safe by its caller
        lambda c: c.get("things"),
    ],
)
def test_an_idempotent_call_is_sent_again(emu: Emulator, service: Scripted, call: Any) -> None:
    emu.faults.queue.append("drop")
    service.script.append(error(503))
    c = client(emu, Sleeps())
    assert call(c) == {"ok": 2}
    assert c.calls == 3


def test_a_post_that_never_left_this_machine_is_retried() -> None:
    """Nothing reached the API (the connection was refused): sending again is safe."""
    c = GoogleRestClient("http://127.0.0.1:9/", sleep=Sleeps(), retry=RetryPolicy(attempts=3))
    with pytest.raises(ApiError) as info:
        c.post("things", {"a": 1})
    assert c.calls == 3 and not info.value.sent and not info.value.ambiguous


def test_retry_after_in_seconds_is_honoured_and_capped(emu: Emulator, service: Scripted) -> None:
    service.script += [error(429, **{"Retry-After": "7"}), error(503, **{"Retry-After": "900"})]
    sleeps = Sleeps()
    c = client(emu, sleeps, retry=RetryPolicy(retry_after_cap=120.0))
    c.get("things")
    assert sleeps == [7.0, 120.0]


def test_retry_after_as_an_http_date_is_honoured(emu: Emulator, service: Scripted) -> None:
    """An HTTP-date counts from the answer's own ``Date`` (the emulator's virtual clock), so a
    server on another clock is read on its own terms."""
    now = emu.clock.now().timestamp()
    when = email.utils.formatdate(now + 30, usegmt=True)
    past = email.utils.formatdate(now - 30, usegmt=True)
    service.script += [error(503, **{"Retry-After": when}), error(503, **{"Retry-After": past})]
    sleeps = Sleeps()
    client(emu, sleeps).get("things")
    assert sleeps == [30.0, 0.0]


def test_an_unreadable_retry_after_falls_back_to_backoff(emu: Emulator, service: Scripted) -> None:
    service.script.append(error(503, **{"Retry-After": "soon, probably"}))
    sleeps = Sleeps()
    assert client(emu, sleeps, retry=RetryPolicy(initial=0.5)).get("things") == {"ok": 2}
    assert len(sleeps) == 1 and 0 <= sleeps[0] <= 0.5


def test_a_non_retryable_error_is_raised_at_once_with_its_reason(
    emu: Emulator, service: Scripted
) -> None:
    service.script.append(error(403, "forbidden"))
    sleeps = Sleeps()
    c = client(emu, sleeps)
    with pytest.raises(ApiError) as info:
        c.post("things", {"a": 1})
    assert info.value.status == 403 and info.value.reason == "forbidden"
    assert info.value.body["error"]["code"] == 403
    assert "HTTP 403 forbidden: status 403" in str(info.value)
    assert c.calls == 1 and sleeps == []
    service.script.append(GoogleError(404, "gone", "notFound"))
    with pytest.raises(ApiError) as info:
        c.get("things")
    assert info.value.not_found


def test_attempts_are_exhausted_with_the_last_error(emu: Emulator, service: Scripted) -> None:
    service.script += [error(503, "backendError")] * 3
    sleeps = Sleeps()
    c = client(emu, sleeps, retry=RetryPolicy(attempts=3))
    with pytest.raises(ApiError) as info:
        c.get("things")
    assert info.value.status == 503 and info.value.reason == "backendError"
    assert c.calls == 3 and len(sleeps) == 2
    emu.faults.queue.extend(["drop"] * 2)
    with pytest.raises(ApiError) as dropped:
        client(emu, sleeps, retry=RetryPolicy(attempts=2)).get("things")
    assert dropped.value.status == 0 and dropped.value.lost
    assert "no usable answer after 2 attempts" in str(dropped.value)


def test_every_call_has_a_timeout(emu: Emulator, monkeypatch: pytest.MonkeyPatch) -> None:
    c = client(emu, Sleeps(), timeout=12.5)
    seen: list[Any] = []
    real = c.session().request

    def spy(*args: Any, **kwargs: Any) -> Any:
        seen.append(kwargs.get("timeout"))
        return real(*args, **kwargs)

    monkeypatch.setattr(c.session(), "request", spy)
    c.get("things")
    c.post("things", {})
    assert seen == [(12.5, 12.5), (12.5, 12.5)]  # (connect, read): the deadline bounds both


# ---------------------------------------------------------------------- operations
def test_wait_polls_with_doubling_capped_intervals(emu: Emulator, service: Scripted) -> None:
    service.done_after = 6
    sleeps = Sleeps()
    c = client(emu, sleeps, poll=PollPolicy(initial=1.0, factor=2.0, cap=5.0))
    done = c.wait({"name": "op-1", "status": "RUNNING"}, "ops/op-1", is_done=_done)
    assert done["status"] == "DONE"
    assert sleeps == [1.0, 2.0, 4.0, 5.0, 5.0, 5.0]
    assert service.polls == 6


def test_wait_returns_at_once_when_already_done(emu: Emulator, service: Scripted) -> None:
    sleeps = Sleeps()
    c = client(emu, sleeps)
    assert c.wait({"status": "DONE"}, "ops/op-1", is_done=_done) == {"status": "DONE"}
    assert sleeps == [] and service.polls == 0


def test_wait_times_out_after_the_seconds_slept(emu: Emulator, service: Scripted) -> None:
    service.done_after = 1000
    sleeps = Sleeps()
    c = client(emu, sleeps, poll=PollPolicy(initial=1.0, factor=2.0, cap=60.0))
    with pytest.raises(TimeoutError, match="not done after 10s"):
        c.wait({"name": "op-1", "status": "RUNNING"}, "ops/op-1", is_done=_done, timeout=10)
    assert sleeps == [1.0, 2.0, 4.0, 3.0]  # the last step stops at the timeout


def test_waits_advance_an_emulator_clock(emu: Emulator, service: Scripted) -> None:
    service.done_after = 3
    start = emu.clock.now()
    c = GoogleRestClient(emu.url + "api/", sleep=virtual_sleep(emu))
    c.wait({"name": "op-1", "status": "RUNNING"}, "ops/op-1", is_done=_done)
    assert (emu.clock.now() - start).total_seconds() == 1 + 2 + 4


def test_the_virtual_clock_url_makes_sleeps_advance_the_emulator(
    emu: Emulator, service: Scripted, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DWS_VIRTUAL_CLOCK_URL", emu.clock_url)
    service.done_after = 2
    start = emu.clock.now()
    GoogleRestClient(emu.url + "api/").wait({"name": "o"}, "ops/o", is_done=_done)
    assert (emu.clock.now() - start).total_seconds() == 1 + 2
    monkeypatch.setenv("DWS_VIRTUAL_CLOCK_URL", "https://example.com/_emulator/clock:advance")
    assert GoogleRestClient(emu.url + "api/").sleep is time.sleep  # only loopback URLs


def _done(operation: dict[str, Any]) -> bool:
    return operation.get("status") == "DONE"


# ---------------------------------------------------------------------- credentials, pickling
def test_loopback_endpoints_never_ask_for_credentials(
    emu: Emulator, monkeypatch: pytest.MonkeyPatch
) -> None:
    import google.auth

    def no_adc(*_: Any, **__: Any) -> Any:
        raise AssertionError("ADC must not be used for a loopback endpoint")

    monkeypatch.setattr(google.auth, "default", no_adc)
    for root in (emu.url, emu.url.replace("127.0.0.1", "localhost")):
        assert GoogleRestClient(root + "api/", sleep=Sleeps()).get("things")["ok"] >= 1


def test_google_endpoints_use_application_default_credentials_at_call_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import google.auth
    from google.auth.credentials import AnonymousCredentials
    from google.auth.transport.requests import AuthorizedSession

    asked: list[Any] = []

    def adc(scopes: Any = None, **_: Any) -> Any:
        asked.append(scopes)
        return AnonymousCredentials(), "proj"

    monkeypatch.setattr(google.auth, "default", adc)
    c = GoogleRestClient("https://compute.googleapis.com/compute/v1/", sleep=Sleeps())
    assert asked == []  # nothing at construction
    assert isinstance(c.session(), AuthorizedSession)
    assert asked == [["https://www.googleapis.com/auth/cloud-platform"]]


def test_pickling_drops_the_session_and_its_credentials(
    emu: Emulator, monkeypatch: pytest.MonkeyPatch
) -> None:
    import google.auth
    from google.oauth2.credentials import Credentials

    monkeypatch.setattr(
        google.auth, "default", lambda **_: (Credentials(token="ya29.secret-token"), "proj")
    )
    c = GoogleRestClient("https://compute.googleapis.com/compute/v1/", sleep=time.sleep)
    c.session()
    raw = pickle.dumps(c)
    for needle in (b"ya29", b"secret-token", b"Session", b"Credentials"):
        assert needle not in raw
    copy = pickle.loads(raw)
    assert copy._session is None and copy.base_url == c.base_url  # noqa: SLF001
    assert c._session is not None  # noqa: SLF001 - the original keeps its own


def test_a_client_with_the_virtual_clock_sleep_pickles_and_rechooses_it(
    emu: Emulator, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DWS_VIRTUAL_CLOCK_URL", emu.clock_url)
    c = GoogleRestClient(emu.url + "api/")
    assert c.sleep is not time.sleep
    monkeypatch.delenv("DWS_VIRTUAL_CLOCK_URL")
    copy = pickle.loads(pickle.dumps(c))  # a closure: it is not carried, but chosen again
    assert copy.sleep is time.sleep
    given = GoogleRestClient(emu.url + "api/", sleep=time.sleep)
    assert pickle.loads(pickle.dumps(given)).sleep is time.sleep
