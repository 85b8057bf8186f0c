"""The bearer token goes only to Google API hosts (``*.googleapis.com``): an HTTPS endpoint
override naming another host (set by whoever can edit stack config) is called without it,
unless the user names that host (``DWS_CREDENTIAL_HOSTS`` / ``dws:credentialHosts``).

The "other host" is the emulator behind TLS, reached through a CONNECT tunnel as if it were
``tpu.collector.example`` (its certificate signed by a throw-away CA)."""

from __future__ import annotations

import ssl
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from queued_tpu_helpers import props as tpu_inputs
from tls_helpers import certificates

from pulumi_dws.kinds.queued_tpu.provider import QueuedTpuProvider
from pulumi_dws.providers.endpoints import InsecureEndpointError, credentials_for, is_google_host
from pulumi_dws.providers.rest import ApiError, GoogleRestClient, RetryPolicy
from pulumi_dws.testing.dynamic_host import DynamicProviderHost, urn
from pulumi_dws.testing.emulator import Emulator
from pulumi_dws.testing.fault_proxy import FaultProxy

OTHER = "tpu.collector.example"
TOKEN = "ya29.must-not-leave"


@pytest.mark.parametrize(
    ("url", "google"),
    [
        ("https://compute.googleapis.com/", True),
        ("https://us-central1-aiplatform.googleapis.com/", True),
        ("https://tpu.us-east5.rep.googleapis.com/", True),
        ("https://compute.mtls.googleapis.com/", True),
        ("https://compute-myendpoint.p.googleapis.com/", True),
        ("https://restricted.googleapis.com/", True),
        ("https://googleapis.com.collector.example/", False),
        ("https://evilgoogleapis.com/", False),
        ("https://compute.googleapis.com.:443/", True),
        (f"https://{OTHER}/", False),
    ],
)
def test_google_api_hosts_are_told_apart(url: str, google: bool) -> None:
    assert is_google_host(url) is google
    assert credentials_for(url)[0] is google


def test_a_named_host_gets_credentials(monkeypatch: pytest.MonkeyPatch) -> None:
    assert credentials_for(f"https://{OTHER}/", f"other.example, {OTHER}")[0]
    monkeypatch.setenv("DWS_CREDENTIAL_HOSTS", OTHER.upper())
    assert credentials_for(f"https://{OTHER}/")[0]
    assert not credentials_for("http://127.0.0.1:9/", OTHER)[0]  # loopback: never


@pytest.fixture
def tls(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Emulator, Path, str]]:
    """The emulator speaking TLS as ``OTHER``, and a tunnel to it (``HTTPS_PROXY``)."""
    monkeypatch.delenv("DWS_VIRTUAL_CLOCK_URL", raising=False)
    ca, cert, key = certificates(tmp_path, OTHER)
    emulator = Emulator()
    emulator.start()
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    assert emulator._server is not None  # noqa: SLF001 - the test wraps its listening socket
    emulator._server.socket = context.wrap_socket(emulator._server.socket, server_side=True)  # noqa: SLF001
    host, port = emulator._server.server_address[:2]  # noqa: SLF001
    try:
        with FaultProxy(emulator.url, tunnel_to=(str(host), int(port))) as tunnel:
            yield emulator, ca, tunnel.url
    finally:
        emulator.stop()


class Token:
    """Credentials that would put :data:`TOKEN` on every request they authorise."""

    token = TOKEN

    def before_request(self, request: Any, method: str, url: str, headers: dict) -> None:
        headers["authorization"] = f"Bearer {TOKEN}"


def _through(monkeypatch: pytest.MonkeyPatch, ca: Path, tunnel: str) -> None:
    import google.auth

    monkeypatch.setattr(google.auth, "default", lambda **_: (Token(), "p"))
    monkeypatch.setenv("HTTPS_PROXY", tunnel)
    monkeypatch.setenv("NO_PROXY", "")
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", str(ca))


def test_an_endpoint_that_is_not_google_gets_no_token(
    tls: tuple[Emulator, Path, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    emu, ca, tunnel = tls
    _through(monkeypatch, ca, tunnel)
    client = GoogleRestClient(f"https://{OTHER}/v2alpha1/", retry=RetryPolicy(attempts=1))
    with pytest.raises(ApiError) as info:
        client.get("projects/p/locations/us-east5-a/queuedResources/missing")
    assert info.value.not_found  # the request went, and was answered
    [request] = [r for r in emu.requests if r.path.endswith("/missing")]
    assert "authorization" not in {k.lower() for k in request.headers}

    emu.outage(60)  # the host refuses anonymous calls: the error says why none was sent
    with pytest.raises(ApiError) as refused:
        client.get("projects/p/locations/us-east5-a/queuedResources/missing")
    assert refused.value.status == 401
    assert f"no credentials were sent to {OTHER}" in str(refused.value)
    assert "DWS_CREDENTIAL_HOSTS" in str(refused.value)


def test_a_host_the_user_names_gets_the_token(
    tls: tuple[Emulator, Path, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    emu, ca, tunnel = tls
    _through(monkeypatch, ca, tunnel)
    client = GoogleRestClient(
        f"https://{OTHER}/v2alpha1/", retry=RetryPolicy(attempts=1), credential_hosts=OTHER
    )
    with pytest.raises(ApiError):
        client.get("projects/p/locations/us-east5-a/queuedResources/named")
    [request] = [r for r in emu.requests if r.path.endswith("/named")]
    headers = {k.lower(): v for k, v in request.headers.items()}
    assert headers.get("authorization") == f"Bearer {TOKEN}"


def test_a_tpu_endpoint_in_stack_config_that_is_not_google_gets_no_token_through_the_host(
    tls: tuple[Emulator, Path, str], tmp_path: Path
) -> None:
    """Pulumi's real dynamic-provider host, ``dws:tpuEndpoint`` set to ``https://OTHER/``: the
    queued resource is created there (the endpoint is the user's to choose) and no request
    carries a token. The host has no Application Default Credentials: had the provider asked
    for a token, the create would have failed saying so."""
    emu, ca, tunnel = tls
    emu["tpu"].add_chips("us-east5-a", "v6e", 16)
    port = emu.url.rsplit(":", 1)[1].strip("/")
    env = {
        "HTTPS_PROXY": tunnel,
        "NO_PROXY": "127.0.0.1",  # the clock, straight; the API through the tunnel
        "DWS_VIRTUAL_CLOCK_URL": f"https://127.0.0.1:{port}/_emulator/clock:advance",
        "REQUESTS_CA_BUNDLE": str(ca),
        "GOOGLE_APPLICATION_CREDENTIALS": "",
        "CLOUDSDK_CONFIG": str(tmp_path / "no-gcloud"),
        "NO_GCE_CHECK": "True",
        "DWS_TPU_ENDPOINT": "",
    }
    config = {"dws:tpuEndpoint": f"https://{OTHER}/"}
    tpu = urn("pulumi-python:dynamic/dws:QueuedTpu", "q", project="tpu", stack="dev")
    with DynamicProviderHost(QueuedTpuProvider(), env=env, config=config) as host:
        _, outs = host.create(tpu, tpu_inputs())
    assert outs["state"] == "ACTIVE"
    sent = [r for r in emu.requests if not r.path.startswith("/_emulator")]
    assert sent and all("authorization" not in {k.lower() for k in r.headers} for r in sent), (
        "a request carried credentials to a host that is not Google's"
    )


@pytest.mark.parametrize(
    "root",
    [
        f"https://{OTHER}\\.googleapis.com/",  # urllib3 ends the host at the backslash
        f"https://{OTHER}%2f.googleapis.com/",
        f"https://{OTHER};.googleapis.com/",
    ],
    ids=["backslash", "percent", "semicolon"],
)
def test_a_host_spelled_to_end_in_googleapis_gets_no_token(
    tls: tuple[Emulator, Path, str], monkeypatch: pytest.MonkeyPatch, root: str
) -> None:
    """Python's ``urlsplit`` reads ``https://OTHER\\.googleapis.com/`` as a host under
    googleapis.com, while requests (urllib3) connects to ``OTHER``: such an endpoint is refused
    (it is no host name), so the token never reaches ``OTHER``."""
    emu, ca, tunnel = tls
    _through(monkeypatch, ca, tunnel)
    assert not credentials_for_or_refused(root)
    with pytest.raises(InsecureEndpointError, match="not a host name"):
        client = GoogleRestClient(root + "v2alpha1/", retry=RetryPolicy(attempts=1))
        client.get("projects/p/locations/us-east5-a/queuedResources/spelled")
    sent = [r for r in emu.requests if r.path.endswith("/spelled")]
    assert all("authorization" not in {k.lower() for k in r.headers} for r in sent)


def credentials_for_or_refused(url: str) -> bool:
    """Whether ``url`` would get credentials (False when it is refused outright)."""
    try:
        return credentials_for(url)[0]
    except InsecureEndpointError:
        return False
