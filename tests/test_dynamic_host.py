"""Drive Pulumi's real ``python -m pulumi.dynamic`` host through DynamicProviderHost.

One host process serves the whole module (as one ``pulumi-python`` plugin serves a whole
deployment); a second, short-lived one checks start-up defaults and clean shutdown.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from collections.abc import Iterator
from typing import Any

import grpc
import pytest

from pulumi_dws.testing._echo_provider import EchoProvider
from pulumi_dws.testing.dynamic_host import (
    UNKNOWN,
    CheckFailure,
    ConfigureResponse,
    DynamicHostError,
    DynamicProviderError,
    DynamicProviderHost,
    is_secret,
    secret,
    serialized_provider_size,
    unwrap_secrets,
    urn,
)

PROJECT = "dws-test"
STACK = "dev"
TYPE = "pulumi-python:dynamic/dws:Thing"
ENDPOINT = "https://compute.example.test/compute/v1"
CONFIG: dict[str, Any] = {
    "dws:computeEndpoint": ENDPOINT,
    f"{PROJECT}:flavor": secret("spicy"),  # secure config, un-namespaced key in the provider
    "gcp:project": "unrelated-but-passed-too",
}
INPUTS: dict[str, Any] = {
    "zone": "us-central1-a",
    "machineType": "a3-highgpu-8g",
    "count": 2,
    "labels": {"team": "ml"},
}


def thing(name: str) -> str:
    return urn(TYPE, name, project=PROJECT, stack=STACK)


@pytest.fixture(scope="module")
def host() -> Iterator[DynamicProviderHost]:
    with DynamicProviderHost(EchoProvider(), project=PROJECT, stack=STACK, config=CONFIG) as h:
        h.configure()
        yield h


def test_urn_helper() -> None:
    assert urn(TYPE, "x", project="p", stack="s") == f"urn:pulumi:s::p::{TYPE}::x"
    assert (
        urn(TYPE, "x", project="p", stack="s", parent_type="dws:index:Pool")
        == f"urn:pulumi:s::p::dws:index:Pool${TYPE}::x"
    )
    with pytest.raises(ValueError):
        urn(TYPE, "bad::name")


def test_host_negotiates_like_the_python_host(host: DynamicProviderHost) -> None:
    assert host.port > 0
    assert host.handshake_supported is False  # the engine falls back to Configure's answer
    assert host.plugin_version == "0.1.0"
    assert host.protocol == ConfigureResponse(
        accept_secrets=False, supports_preview=False, accept_resources=False, accept_outputs=False
    )


def test_check_accepts_inputs_and_keeps_secrets_secret(host: DynamicProviderHost) -> None:
    news = {**INPUTS, "password": secret("hunter2")}
    inputs, failures = host.check(thing("ok"), {}, news)

    assert failures == []
    assert "__provider" not in inputs
    assert inputs["password"] == secret("hunter2")  # re-marked by the engine, same name
    assert inputs["labels"] == {"team": "ml"}
    assert unwrap_secrets(inputs) == {**INPUTS, "password": "hunter2"}


def test_check_rejects_a_bad_zone(host: DynamicProviderHost) -> None:
    _, failures = host.check(thing("bad"), {}, {**INPUTS, "zone": "central"})
    assert failures == [
        CheckFailure("zone", "'central' is not a zone such as 'us-central1-a'"),
    ]
    _, failures = host.check(thing("missing"), {}, {"machineType": "a3-highgpu-8g"})
    assert [f.property for f in failures] == ["zone"]


def test_check_forwards_unknowns_during_preview(host: DynamicProviderHost) -> None:
    inputs, failures = host.check(
        thing("preview"), {}, {**INPUTS, "zone": UNKNOWN, "machineType": UNKNOWN}
    )
    assert failures == []  # the provider saw pulumi.output.Unknown and let it pass
    assert inputs["zone"] == UNKNOWN
    assert inputs["machineType"] == UNKNOWN


def test_lifecycle_through_the_wire(host: DynamicProviderHost) -> None:
    u = thing("lifecycle")
    inputs, failures = host.check(u, {}, {**INPUTS, "password": secret("hunter2")})
    assert failures == []

    id_, outs = host.create(u, inputs)
    # The id is derived from the inputs, as the provider computes it from plain values.
    assert id_ == EchoProvider().resource_id({**INPUTS, "password": "hunter2"})
    assert id_.startswith("echo-us-central1-a-")
    assert host.create(u, inputs)[0] == id_  # deterministic
    assert "__provider" not in outs
    # The provider received the secret as a plain string; the engine re-marks the output.
    assert outs["inputTypes"]["password"] == "str"
    assert outs["password"] == secret("hunter2")
    # Numbers travel as protobuf doubles.
    assert outs["inputTypes"]["count"] == "float"
    assert outs["count"] == 2
    # Configure reached the provider: namespaced key, and a secure project key resolved
    # against PULUMI_PROJECT and unwrapped by the host.
    assert outs["computeEndpoint"] == ENDPOINT
    assert outs["flavor"] == "spicy"
    assert outs["hostProject"] == PROJECT

    read_id, read_outs, read_inputs = host.read(u, id_, outs)
    assert read_id == id_
    assert read_outs == outs
    assert read_inputs is None  # the provider's ReadResult carried no inputs

    news = {**inputs, "machineType": "a3-megagpu-8g"}
    diff = host.diff(u, id_, outs, news)
    assert (diff.changes, diff.replaces, diff.replace) == ("some", [], False)
    new_outs = host.update(u, id_, outs, news)
    assert new_outs["machineType"] == "a3-megagpu-8g"
    assert new_outs["password"] == secret("hunter2")
    assert new_outs["computeEndpoint"] == ENDPOINT
    assert set(new_outs) == set(outs)  # full outputs, not a delta

    host.delete(u, id_, new_outs)


def test_diff_replaces_on_zone_change(host: DynamicProviderHost) -> None:
    u = thing("diff")
    id_, outs = host.create(u, INPUTS)

    same = host.diff(u, id_, outs, INPUTS)
    assert same.changes == "none"
    assert same.replaces == []

    moved = host.diff(u, id_, outs, {**INPUTS, "zone": "us-east1-b"})
    assert moved.changes == "some"
    assert moved.replaces == ["zone"]
    assert moved.delete_before_replace is True
    # The Python host drops DiffResult.stables and never sends a detailed diff.
    assert moved.stables == []
    assert moved.detailed_diff == {}
    assert moved.has_detailed_diff is False

    unknown = host.diff(u, id_, outs, {**INPUTS, "zone": UNKNOWN})
    assert unknown.replaces == ["zone"]


def test_preview_create_and_update_do_not_reach_the_provider(host: DynamicProviderHost) -> None:
    u = thing("planned")
    news = {**INPUTS, "password": secret("hunter2"), "machineType": UNKNOWN}
    id_, planned = host.create(u, news, preview=True)
    assert id_ == ""
    assert planned == news  # the engine plans the inputs as the state
    assert "inputTypes" not in planned  # the provider did not run

    assert host.update(u, "some-id", planned, news, preview=True) == news


def test_forced_preview_create_really_creates(host: DynamicProviderHost) -> None:
    # Sent on the wire anyway, the preview flag is ignored by the Python host.
    id_, outs = host.create(thing("forced"), INPUTS, preview=True, force_rpc=True)
    assert id_.startswith("echo-")
    assert outs["inputTypes"]["zone"] == "str"


def test_unknowns_are_refused_outside_preview(host: DynamicProviderHost) -> None:
    with pytest.raises(ValueError, match="unknown"):
        host.create(thing("unknown"), {**INPUTS, "zone": UNKNOWN})


def test_provider_exception_is_surfaced_with_its_message(host: DynamicProviderHost) -> None:
    message = "quota exhausted for A3 in us-central1-a"
    with pytest.raises(DynamicProviderError) as caught:
        host.create(thing("boom"), {**INPUTS, "failCreate": message})
    err = caught.value
    assert err.method == "Create"
    assert err.code == grpc.StatusCode.UNKNOWN
    assert err.message == message
    assert err.exception_type == "pulumi_dws.testing._echo_provider.EchoProviderError"
    assert message in str(err)
    assert "Traceback" in err.details

    with pytest.raises(DynamicProviderError, match="was not created by this provider") as caught:
        host.delete(thing("foreign"), "projects/p/zones/z/instances/i", INPUTS)
    assert caught.value.method == "Delete"


def test_each_call_can_use_another_provider(host: DynamicProviderHost) -> None:
    id_, outs = host.create(thing("other"), INPUTS, provider=EchoProvider(id_prefix="other"))
    assert id_.startswith("other-")
    assert outs["computeEndpoint"] == ENDPOINT  # configured when first unpickled


def test_serialized_provider_size() -> None:
    small = serialized_provider_size(EchoProvider())
    # The class is pickled by reference (importable module), only instance state by value.
    assert 0 < small < 4096
    assert serialized_provider_size(EchoProvider(id_prefix="x" * 3000)) > small + 3000


@contextlib.contextmanager
def sigint(disposition: Any) -> Iterator[None]:
    """SIGINT handled as ``disposition`` here while a host starts (the host inherits "ignored";
    a handler becomes the default action, which Python turns into KeyboardInterrupt)."""
    previous = signal.signal(signal.SIGINT, disposition)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def test_unconfigured_host_configures_itself_and_shuts_down_cleanly() -> None:
    h = DynamicProviderHost(EchoProvider(), project=PROJECT)
    assert h.pid is None
    with sigint(signal.default_int_handler):
        h.start()
    try:
        assert h.returncode is None
        id_, outs = h.create(thing("fresh"), INPUTS)  # Configure({}) sent first, as the engine
        assert h.protocol is not None
        assert id_.startswith("echo-")
        assert "computeEndpoint" not in outs  # None outputs are not sent
        assert "flavor" not in outs
    finally:
        h.close()
    assert h.returncode == 0  # it stopped on SIGINT, as the engine asks, and was reaped
    h.close()  # idempotent
    assert not is_secret(outs["zone"])


def test_a_host_that_ignores_sigint_is_killed_at_once_not_after_the_grace_period() -> None:
    """A host started from a background job inherits an ignored SIGINT: closing it must not
    wait out the grace period for a signal it will never act on."""
    h = DynamicProviderHost(EchoProvider(), project=PROJECT, shutdown_grace=600)
    with sigint(signal.SIG_IGN):
        h.start()
    h.configure()
    closer = threading.Thread(target=h.close, daemon=True)
    closer.start()
    closer.join(timeout=60)  # a liveness bound ten times below the grace period
    try:
        assert not closer.is_alive(), "close() is waiting for the host to act on SIGINT"
        assert h.returncode == -signal.SIGKILL
    finally:
        h.kill()  # even when the test fails, no host outlives it


@pytest.mark.skipif(not os.path.exists("/bin/false"), reason="needs /bin/false")
def test_a_host_that_dies_before_its_port_line_is_reported() -> None:
    with pytest.raises(DynamicHostError, match="exited with status 1 before writing its port"):
        DynamicProviderHost(EchoProvider(), python="/bin/false").start()
