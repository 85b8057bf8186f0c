"""The promises of ``docs/reliability.md`` beyond cancellation, for the dynamic resources the
component provider plugin serves to programs in other languages (``dws:dynamic:<Name>``),
through the plugin over gRPC, as a TypeScript program's ``pulumi up`` drives it:

- two stacks (``dev``, ``prod``) of one program in one Google project: the identity each
  stack's ``Construct`` passes (organization, project, stack) names and marks what the plugin
  creates, so neither stack adopts nor deletes the other's;
- the credential host allow-list set as the package's config (``pulumi config set
  dws:credentialHosts``), as the endpoint overrides are;
- the values that came as secrets are ``[secret]`` in every error the plugin returns.
"""

from __future__ import annotations

import json
import ssl
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_package_cancellation import TPU, served

from pulumi_dws.providers.ownership import stack_mark
from pulumi_dws.testing import GcpMocks
from pulumi_dws.testing.component_host import ComponentProviderHost, ProviderCallError
from pulumi_dws.testing.dynamic_host import secret
from pulumi_dws.testing.emulator import Emulator
from pulumi_dws.testing.fault_proxy import FaultProxy

PROJECT, ZONE = "p", "us-east5-a"
TPU_ARGS: dict[str, Any] = {
    "zone": ZONE,
    "acceleratorType": "v6e-16",
    "maxRunDuration": "1d",
    "requestValidFor": "2h",
}


def _tpu_of(plugin: ComponentProviderHost, stack: str, **args: Any) -> tuple[str, dict[str, Any]]:
    """What ``stack``'s program registers for a ``QueuedTpu`` (name and inputs), through
    ``Construct`` (the engine's request carries the stack)."""
    with plugin.deployment(mocks=GcpMocks(project=PROJECT), stack=stack) as deployment:
        deployment.construct("dws:index:QueuedTpu", "trainer", {**TPU_ARGS, **args})
    return served(deployment, TPU)


@pytest.fixture(scope="module")
def emulated() -> Iterator[tuple[Emulator, ComponentProviderHost]]:
    with (
        Emulator() as emu,
        ComponentProviderHost(env={"DWS_VIRTUAL_CLOCK_URL": emu.clock_url}) as plugin,
    ):
        plugin.configure({"tpuEndpoint": emu.url})
        yield emu, plugin


# ---------------------------------------------------------------------- two stacks
def test_two_stacks_through_the_plugin_make_their_own_and_destroy_only_their_own(
    emulated: tuple[Emulator, ComponentProviderHost],
) -> None:
    emu, plugin = emulated
    emu["tpu"].add_chips(ZONE, "v6e", 32)
    made: dict[str, tuple[str, str, dict[str, Any]]] = {}
    for stack in ("dev", "prod"):
        name, inputs = _tpu_of(plugin, stack)
        assert inputs["owner"]["stack"] == stack
        id_, outs = plugin.create(TPU, name, inputs)
        made[stack] = (name, id_, outs)
    (_, dev_id, dev_outs), (prod_name, prod_id, prod_outs) = made["dev"], made["prod"]
    assert dev_id != prod_id
    assert dev_outs["ownership"]["stack"] == stack_mark("organization/project/dev")
    assert prod_outs["ownership"]["stack"] == stack_mark("organization/project/prod")
    plugin.delete(TPU, prod_name, prod_id, prod_outs)  # prod's `pulumi destroy`
    emu.clock.advance(3600)
    remaining = {key[2] for key in emu["tpu"].queued_resources()}
    assert remaining == {dev_id.rsplit("/", 1)[1]}


def test_a_name_pinned_in_both_stacks_is_refused_in_the_second_naming_the_first(
    emulated: tuple[Emulator, ComponentProviderHost],
) -> None:
    emu, plugin = emulated
    emu["tpu"].add_chips(ZONE, "v6e", 16)
    dev_name, dev_inputs = _tpu_of(plugin, "dev", queuedResourceId="pinned")
    dev_id, _ = plugin.create(TPU, dev_name, dev_inputs)
    prod_name, prod_inputs = _tpu_of(plugin, "prod", queuedResourceId="pinned")
    with pytest.raises(ProviderCallError) as info:
        plugin.create(TPU, prod_name, prod_inputs)
    message = info.value.message
    assert "belongs to another stack" in message
    assert stack_mark("organization/project/dev") in message
    assert "Nothing was created or changed" in message
    assert emu["tpu"].queued_resource(PROJECT, ZONE, "pinned") is not None  # dev's, untouched


# ---------------------------------------------------------------------- secrets
def test_a_secret_input_googles_answer_echoes_is_redacted_in_the_plugins_error(
    emulated: tuple[Emulator, ComponentProviderHost],
) -> None:
    """The plugin knows which inputs came as secrets (a dynamic provider in Pulumi's Python
    host never does): a secret project that Google's refusal quotes is ``[secret]``, in the
    error and on the plugin's stderr."""
    emu, plugin = emulated
    hidden = "hush-project-4711"
    name, inputs = _tpu_of(plugin, "dev", project=secret(hidden), queuedResourceId="quoted")
    emu.lie(
        lambda r: r.method == "POST" and "/queuedResources" in r.path,
        status=400,
        message=f"Project {hidden} has no access to v6e in {ZONE}.",
        acted=False,
    )
    with pytest.raises(ProviderCallError) as info:
        plugin.create(TPU, name, inputs)
    message = info.value.message
    assert "[secret]" in message and "Traceback" not in message
    for text in (message, plugin.stderr):
        assert hidden not in text


# ---------------------------------------------------------------------- credential hosts
OTHER = "tpu.collector.example"
TOKEN = "ya29.served-must-not-leave"


@pytest.fixture
def tls(tmp_path: Path) -> Iterator[tuple[Emulator, dict[str, str]]]:
    """The emulator speaking TLS as :data:`OTHER` through a CONNECT tunnel, and the plugin's
    environment to reach it: the tunnel, the CA, and Application Default Credentials that hold
    :data:`TOKEN` (a user's credentials file with a token valid until 2099: nothing refreshes)."""
    from tls_helpers import certificates

    ca, cert, key = certificates(tmp_path, OTHER)
    credentials = tmp_path / "adc.json"
    credentials.write_text(
        json.dumps(
            {
                "type": "authorized_user",
                "client_id": "id",
                "client_secret": "shh",
                "refresh_token": "never-used",
                "token": TOKEN,
                "expiry": "2099-01-01T00:00:00Z",
            }
        )
    )
    emulator = Emulator()
    emulator.start()
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    assert emulator._server is not None  # noqa: SLF001 - the test wraps its listening socket
    emulator._server.socket = context.wrap_socket(emulator._server.socket, server_side=True)  # noqa: SLF001
    host, port = emulator._server.server_address[:2]  # noqa: SLF001
    try:
        with FaultProxy(emulator.url, tunnel_to=(str(host), int(port))) as tunnel:
            yield (
                emulator,
                {
                    "HTTPS_PROXY": tunnel.url,
                    "NO_PROXY": "127.0.0.1",
                    "DWS_VIRTUAL_CLOCK_URL": f"https://127.0.0.1:{port}/_emulator/clock:advance",
                    "REQUESTS_CA_BUNDLE": str(ca),
                    "GOOGLE_APPLICATION_CREDENTIALS": str(credentials),
                    "CLOUDSDK_CONFIG": str(tmp_path / "no-gcloud"),
                    "NO_GCE_CHECK": "True",
                    "DWS_TPU_ENDPOINT": "",
                    "DWS_CREDENTIAL_HOSTS": "",
                },
            )
    finally:
        emulator.stop()


@pytest.mark.parametrize("named", [False, True], ids=["not-named", "named"])
def test_credential_hosts_reach_the_served_providers_as_the_package_config(
    tls: tuple[Emulator, dict[str, str]], named: bool
) -> None:
    """``dws:tpuEndpoint`` set to a host that is not Google's: the plugin sends it no token,
    unless ``dws:credentialHosts`` (the package's config, as the engine sends it to
    ``Configure``) names it."""
    emu, env = tls
    emu["tpu"].add_chips(ZONE, "v6e", 16)
    config = {"tpuEndpoint": f"https://{OTHER}/"}
    if named:
        config["credentialHosts"] = OTHER
    with ComponentProviderHost(env=env) as plugin:
        plugin.configure(config)
        name, inputs = _tpu_of(plugin, "dev")
        _, outs = plugin.create(TPU, name, inputs)
    assert outs["state"] == "ACTIVE"
    sent = [r for r in emu.requests if not r.path.startswith("/_emulator")]
    tokens = {{k.lower(): v for k, v in r.headers.items()}.get("authorization") for r in sent}
    assert sent and tokens == ({f"Bearer {TOKEN}"} if named else {None})
