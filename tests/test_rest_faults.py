"""The REST client against damaged exchanges (through the fault proxy), endpoints that must
never receive a token, and the standard proxy and CA settings over real TLS."""

from __future__ import annotations

import ssl
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tls_helpers import certificates as _certificates

from pulumi_dws.providers import transport
from pulumi_dws.providers.compute_ops import is_operation
from pulumi_dws.providers.endpoints import AIPLATFORM, COMPUTE, InsecureEndpointError, is_loopback
from pulumi_dws.providers.rest import ApiError, GoogleRestClient, RetryPolicy
from pulumi_dws.testing.emulator import Emulator
from pulumi_dws.testing.fault_proxy import FaultProxy, ProxyFaultPlan

VM = "projects/p/zones/us-central1-a/instances"


@pytest.fixture
def emu(monkeypatch: pytest.MonkeyPatch) -> Iterator[Emulator]:
    monkeypatch.delenv("DWS_VIRTUAL_CLOCK_URL", raising=False)
    with Emulator() as emulator:
        yield emulator


@pytest.fixture
def proxy(emu: Emulator) -> Iterator[FaultProxy]:
    with FaultProxy(emu.url) as running:
        yield running


def client(root: str, *, attempts: int = 1, timeout: float = 5.0) -> GoogleRestClient:
    """A client whose calls end at ``timeout`` seconds: long enough for a busy machine, except
    where a test is about the deadline itself."""
    return GoogleRestClient(
        root + "compute/v1/",
        timeout=timeout,
        retry=RetryPolicy(attempts=attempts),
        sleep=lambda _: None,
    )


# ---------------------------------------------------------------------- damaged answers
@pytest.mark.parametrize(
    ("kind", "words"),
    [
        ("lose", "connection"),
        ("reset", "broke off"),
        ("html", "not JSON"),
        ("non_json", "not JSON"),
        ("empty", "is empty"),
        ("truncated", "not JSON"),
        ("string_error", "not Google's error object"),
        ("huge", "cap"),
        ("slow", "deadline"),
        ("dribble", "deadline"),
    ],
)
def test_every_damaged_answer_is_a_lost_answer_not_a_raw_exception(
    emu: Emulator, proxy: FaultProxy, kind: str, words: str
) -> None:
    emu["compute"].add_capacity("us-central1-a", "a3-highgpu-8g", 1)
    proxy.plan = ProxyFaultPlan(queue=[kind])
    c = client(proxy.url, timeout=0.3 if words == "deadline" else 5.0)
    c.max_answer_bytes = 1 << 20
    with pytest.raises(ApiError) as info:
        c.get(f"{VM}/missing")  # a 404 whose answer the proxy damages
    assert info.value.lost and info.value.status == 0 and info.value.ambiguous
    assert words in str(info.value), str(info.value)


def test_a_dribbling_server_cannot_hold_a_call_past_its_deadline(
    emu: Emulator, proxy: FaultProxy
) -> None:
    """One byte every 20 ms never trips a per-read timeout; the overall deadline ends it."""
    proxy.plan = ProxyFaultPlan(queue=["dribble"])
    with pytest.raises(ApiError, match="deadline"):
        client(proxy.url, timeout=0.3).get(f"{VM}/missing")
    [exchange] = proxy.wait_for_exchanges(1)
    assert exchange.fault == "dribble" and exchange.upstream_status == 404


def test_a_damaged_answer_is_retried_and_then_believed(emu: Emulator, proxy: FaultProxy) -> None:
    proxy.plan = ProxyFaultPlan(queue=["html", "reset", "empty"])
    with pytest.raises(ApiError) as info:
        client(proxy.url, attempts=4).get(f"{VM}/missing")
    assert info.value.not_found  # the fourth answer is Google's own 404
    assert len(proxy.wait_for_exchanges(4)) == 4


def test_a_200_whose_error_is_a_string_is_not_an_operation(
    emu: Emulator, proxy: FaultProxy
) -> None:
    proxy.plan = ProxyFaultPlan(queue=["string_error"], string_error_status=200)
    with pytest.raises(ApiError, match="unexpected shape") as info:
        client(proxy.url).get(f"{VM}/missing", expect=is_operation)
    assert info.value.lost


def test_nothing_sent_when_no_connection_could_be_made() -> None:
    with pytest.raises(ApiError) as info:
        client("http://127.0.0.1:9/", attempts=2).get("x")  # the discard port: refused
    assert info.value.lost and not info.value.sent and not info.value.ambiguous


# ---------------------------------------------------------------------- credentials
@pytest.mark.parametrize(
    "root",
    [
        "http://127.0.0.1:{port}/",
        "http://127.1:{port}/",
        "http://localhost:{port}/",
        "http://LOCALHOST:{port}/",
        "http://[::ffff:127.0.0.1]:{port}/",
        "http://2130706433:{port}/",
    ],
)
def test_loopback_in_any_spelling_is_called_without_credentials(
    emu: Emulator, monkeypatch: pytest.MonkeyPatch, root: str
) -> None:
    import google.auth

    def no_adc(*_: Any, **__: Any) -> Any:
        raise AssertionError("ADC must not be used for a loopback endpoint")

    monkeypatch.setattr(google.auth, "default", no_adc)
    port = emu.url.rsplit(":", 1)[1].strip("/")
    url = root.format(port=port)
    assert is_loopback(url)
    with pytest.raises(ApiError) as info:
        client(url).get(f"{VM}/missing")
    assert info.value.not_found  # it reached the emulator, anonymously


def test_loopback_spellings_that_need_no_lookup() -> None:
    for url in ("http://localhost./", "http://0x7f.1/", "http://[::1]:80/", "http://a.localhost/"):
        assert is_loopback(url), url


@pytest.mark.parametrize(
    "root",
    [
        "http://compute.example.com/",
        "http://10.0.0.7:8080/",
        "http://127.0.0.1.evil.example/",
        "http://0.0.0.0:8765/",
        "http://[::2]/",
    ],
)
def test_plain_http_off_this_machine_is_refused_before_any_token_is_fetched(
    monkeypatch: pytest.MonkeyPatch, root: str
) -> None:
    import google.auth

    monkeypatch.setattr(google.auth, "default", lambda **_: pytest.fail("ADC fetched"))
    assert not is_loopback(root)
    with pytest.raises(InsecureEndpointError, match="never sent over plain HTTP"):
        GoogleRestClient(root + "compute/v1/")
    monkeypatch.setenv("DWS_COMPUTE_ENDPOINT", root)
    with pytest.raises(InsecureEndpointError):
        COMPUTE.base()


@pytest.mark.parametrize("region", ["evil.example#", "us-central1\n", "us-central1.evil.com/x"])
def test_a_region_never_becomes_part_of_a_host_name(
    monkeypatch: pytest.MonkeyPatch, region: str
) -> None:
    monkeypatch.delenv("DWS_AIPLATFORM_ENDPOINT", raising=False)
    with pytest.raises(ValueError, match="region"):
        AIPLATFORM.base(region)


def test_a_token_is_never_sent_to_another_host(emu: Emulator) -> None:
    with pytest.raises(InsecureEndpointError):
        client(emu.url).get("https://attacker.example/steal")


# ---------------------------------------------------------------------- TLS, proxies, CA
@pytest.fixture
def tls_emulator(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[Emulator, Path]]:
    monkeypatch.delenv("DWS_VIRTUAL_CLOCK_URL", raising=False)
    ca, cert, key = _certificates(tmp_path, "compute.googleapis.com")
    emulator = Emulator()
    emulator.start()
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    assert emulator._server is not None  # noqa: SLF001 - the test wraps its listening socket
    emulator._server.socket = context.wrap_socket(emulator._server.socket, server_side=True)  # noqa: SLF001
    try:
        yield emulator, ca
    finally:
        emulator.stop()


class FlakyCredentials:
    """Credentials whose token refresh fails ``blips`` times as a metadata-server blip does
    (google-auth ``RefreshError`` caused by a ``TransportError``), then works."""

    def __init__(self, blips: int) -> None:
        self.blips = blips
        self.token = None

    def before_request(self, request: Any, method: str, url: str, headers: dict) -> None:
        from google.auth.exceptions import RefreshError, TransportError

        if self.blips:
            self.blips -= 1
            try:
                raise TransportError("metadata server did not answer")
            except TransportError as cause:
                raise RefreshError("could not refresh the access token") from cause
        self.token = "ya29.test-token"
        headers["authorization"] = f"Bearer {self.token}"


def test_google_over_https_proxy_and_ca_bundle_with_a_token_refresh_blip(
    tls_emulator: tuple[Emulator, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``HTTPS_PROXY`` (a CONNECT tunnel) and ``REQUESTS_CA_BUNDLE`` are honoured with the
    deadline-keeping transport; the token goes only over TLS; a transient refresh failure is
    retried like any transient error."""
    import google.auth

    emu, ca = tls_emulator
    host, port = emu._server.server_address[:2]  # type: ignore[union-attr]  # noqa: SLF001
    credentials = FlakyCredentials(blips=2)
    monkeypatch.setattr(google.auth, "default", lambda **_: (credentials, "p"))
    with FaultProxy(emu.url, tunnel_to=(host, port)) as tunnel:
        monkeypatch.setenv("HTTPS_PROXY", tunnel.url)
        monkeypatch.setenv("NO_PROXY", "")
        monkeypatch.setenv("REQUESTS_CA_BUNDLE", str(ca))
        c = GoogleRestClient(
            "https://compute.googleapis.com/compute/v1/",
            retry=RetryPolicy(attempts=4),
            sleep=lambda _: None,
        )
        with pytest.raises(ApiError) as info:
            c.get(f"{VM}/missing")
        assert info.value.not_found  # Google's answer, through the tunnel, after two blips
        assert tunnel.tunnels >= 1 and credentials.blips == 0
    [request] = [r for r in emu.requests if r.path.endswith("/missing")]
    assert request.headers.get("authorization") == "Bearer ya29.test-token"


def test_no_proxy_lets_a_loopback_emulator_be_called_directly(
    emu: Emulator, proxy: FaultProxy, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HTTP_PROXY", proxy.url)
    with pytest.raises(ApiError) as info:
        client(emu.url).get(f"{VM}/missing-1")
    assert info.value.not_found  # through HTTP_PROXY
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    with pytest.raises(ApiError):
        client(emu.url).get(f"{VM}/missing-2")  # NO_PROXY: straight to the emulator
    monkeypatch.delenv("NO_PROXY")
    with pytest.raises(ApiError):
        client(emu.url).get(f"{VM}/missing-3")
    # The proxy records an exchange once it has answered: wait for the two it should see.
    seen = [ex.path.rsplit("/", 1)[-1] for ex in proxy.wait_for_exchanges(2)]
    assert seen == ["missing-1", "missing-3"]


@pytest.mark.parametrize("kind", ["slow", "dribble"])
def test_a_deadline_is_a_deadline_when_a_read_timeout_ends_the_exchange_first(
    emu: Emulator, proxy: FaultProxy, monkeypatch: pytest.MonkeyPatch, kind: str
) -> None:
    """On a busy machine the watchdog thread may not run before requests' own read timeout
    (as long as the deadline) ends the exchange: the deadline has still passed, and the error
    says so. Here the watchdog never fires at all."""
    monkeypatch.setattr(transport._WATCHDOG, "add", lambda watch: (watch.due, 0, watch))
    monkeypatch.setattr(transport._WATCHDOG, "cancel", lambda entry: None)
    proxy.plan = ProxyFaultPlan(queue=[kind])
    with pytest.raises(ApiError, match="deadline") as info:
        client(proxy.url, timeout=0.3).get(f"{VM}/missing")
    assert info.value.lost and info.value.ambiguous
