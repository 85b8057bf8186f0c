"""The QueuedTpu provider through Pulumi's own dynamic-provider host (``python -m
pulumi.dynamic``) over gRPC, as ``pulumi up`` drives it, against the emulated Cloud TPU API. The
endpoint comes from stack config (``dws:tpuEndpoint``) through ``Configure``; the host's sleeps
advance the emulator's virtual clock (``DWS_VIRTUAL_CLOCK_URL``)."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from queued_tpu_helpers import PATH, PROJECT, QR, ZONE, props

from pulumi_dws.kinds.queued_tpu.provider import TYPE_TOKEN, QueuedTpuProvider
from pulumi_dws.testing.dynamic_host import (
    UNKNOWN,
    DynamicProviderError,
    DynamicProviderHost,
    urn,
)
from pulumi_dws.testing.emulator import Emulator
from pulumi_dws.testing.emulator.tpu import TpuService

URN = urn(
    TYPE_TOKEN,
    "trainer-queued-resource",
    project="tpu",
    stack="dev",
    parent_type="dws:index:QueuedTpu",
)


@pytest.fixture(scope="module")
def emulator() -> Iterator[Emulator]:
    with Emulator([]) as emu:
        emu.add(TpuService(emu.clock))
        yield emu


@pytest.fixture(scope="module")
def host(emulator: Emulator) -> Iterator[DynamicProviderHost]:
    assert "DWS_TPU_ENDPOINT" not in os.environ
    with DynamicProviderHost(
        QueuedTpuProvider(),
        project="tpu",
        stack="dev",
        config={"dws:tpuEndpoint": emulator.url, "gcp:project": PROJECT},
        env={"DWS_VIRTUAL_CLOCK_URL": emulator.clock_url},
    ) as h:
        h.configure()
        yield h


@pytest.fixture
def tpu(emulator: Emulator) -> Iterator[TpuService]:
    service: TpuService = emulator["tpu"]
    yield service
    for key in service.queued_resources():
        service.remove(*key)
    service.take_all_chips(ZONE, "v6e")


def test_lifecycle_over_grpc(host: DynamicProviderHost, tpu: TpuService) -> None:
    checked, failures = host.check(URN, {}, props())
    assert failures == []
    tpu.add_chips(ZONE, "v6e", 16, after=1800)
    rid, outs = host.create(URN, checked)
    assert rid == PATH and outs["state"] == "ACTIVE"
    assert host.diff(URN, rid, outs, props()).changes == "none"
    swap = host.diff(URN, rid, outs, props(provisioningModel="SPOT", runDuration=None))
    assert swap.replaces == ["body"] and swap.delete_before_replace is True
    read_id, read_outs, _ = host.read(URN, rid, outs)
    assert read_id == rid and read_outs["state"] == "ACTIVE"
    host.delete(URN, rid, outs)
    assert tpu.queued_resource(PROJECT, ZONE, QR) is None
    gone_id, gone_outs, _ = host.read(URN, rid, outs)
    assert gone_id == "" and gone_outs == {}


def test_an_expired_request_fails_over_grpc_and_leaves_nothing(
    host: DynamicProviderHost, tpu: TpuService
) -> None:
    with pytest.raises(DynamicProviderError) as info:
        host.create(URN, props())
    assert info.value.method == "Create"
    assert (info.value.exception_type or "").endswith("QueuedTpuError")
    assert "expired" in info.value.message and "nothing is left behind" in info.value.message
    assert tpu.queued_resources() == []


def test_a_preview_with_unknown_values_never_fails_check(host: DynamicProviderHost) -> None:
    inputs = props()
    inputs["body"]["queueingPolicy"]["validUntilDuration"] = UNKNOWN
    inputs["body"]["tpu"]["nodeSpec"][0]["node"]["labels"] = {"team": UNKNOWN}
    for key in ("project", "zone", "queuedResourceId", "waitFor", "body"):
        _, failures = host.check(URN, {}, {**inputs, key: UNKNOWN})
        assert failures == [], key


def test_check_refuses_labels_the_ownership_label_would_clash_with(
    host: DynamicProviderHost,
) -> None:
    """The provider adds ``dws-create`` and ``dws-stack`` to the node's labels: a body that sets
    one itself, or already has 63 labels (Google's most is 64), would lose the user's label or
    be refused."""
    own = props()
    own["body"]["tpu"]["nodeSpec"][0]["node"]["labels"] = {"dws-create": "mine"}
    _, failures = host.check(URN, {}, own)
    assert [f.property for f in failures] == ["body"]
    assert "dws-create is set by pulumi-dws itself" in failures[0].reason
    full = props()
    full["body"]["tpu"]["nodeSpec"][0]["node"]["labels"] = {f"k{i}": "v" for i in range(64)}
    _, failures = host.check(URN, {}, full)
    assert [f.property for f in failures] == ["body"]
    assert "64 labels; at most 62" in failures[0].reason
    stack = props()
    stack["body"]["tpu"]["nodeSpec"][0]["node"]["labels"] = {"dws-stack": "mine"}
    _, failures = host.check(URN, {}, stack)
    assert "dws-stack is set by pulumi-dws itself" in failures[0].reason
    fits = props()
    fits["body"]["tpu"]["nodeSpec"][0]["node"]["labels"] = {f"k{i}": "v" for i in range(62)}
    assert host.check(URN, {}, fits)[1] == []


@pytest.mark.parametrize(
    "tpu_field",
    [
        "v6e-16",
        {"nodeSpec": "v6e-16"},
        {"nodeSpec": ["v6e-16"]},
        {"nodeSpec": [{"node": "v6e-16", "nodeId": QR}]},
        {"nodeSpec": [{"node": {"labels": ["team"]}, "nodeId": QR}]},
    ],
)
def test_check_refuses_a_body_whose_node_spec_is_not_a_list_of_objects(
    host: DynamicProviderHost, tpu_field: object
) -> None:
    inputs = props()
    inputs["body"]["tpu"] = tpu_field
    _, failures = host.check(URN, {}, inputs)
    assert [f.property for f in failures] == ["body"]
    assert failures[0].reason.startswith("body.tpu"), failures[0].reason


def test_a_body_with_unknown_node_parts_passes_check(host: DynamicProviderHost) -> None:
    for tpu_field in (UNKNOWN, {"nodeSpec": UNKNOWN}, {"nodeSpec": [UNKNOWN]}):
        inputs = props()
        inputs["body"]["tpu"] = tpu_field
        assert host.check(URN, {}, inputs)[1] == [], tpu_field
