"""The FlexStartVm provider driven through Pulumi's own dynamic-provider gRPC host
(``python -m pulumi.dynamic``), with the serialized provider, as the engine does, against the
Compute emulator. The host finds the emulator through stack config (``Configure``) or the
``DWS_COMPUTE_ENDPOINT`` environment variable; its sleeps advance the emulator's virtual clock
(``DWS_VIRTUAL_CLOCK_URL``), so a 2-hour queue takes milliseconds."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from emulator_helpers import MACHINE, PROJECT, ZONE
from emulator_helpers import host_inputs as inputs

from pulumi_dws.kinds.flex_vm.provider import TYPE_TOKEN, FlexStartVmProvider
from pulumi_dws.testing.clock_helpers import emulator_env
from pulumi_dws.testing.dynamic_host import (
    DynamicProviderError,
    DynamicProviderHost,
    serialized_provider_size,
    urn,
)
from pulumi_dws.testing.emulator import Emulator

URN = urn(
    TYPE_TOKEN,
    "trainer-vm",
    project="flex-start-vm",
    stack="dev",
    parent_type="dws:index:FlexStartInstance",
)


@pytest.fixture
def emu() -> Iterator[Emulator]:
    with Emulator() as emulator:
        yield emulator


def _host(emu: Emulator, *, via: str) -> DynamicProviderHost:
    env = emulator_env(emu)  # the host's sleeps advance the emulator's virtual clock
    config = {"gcp:project": PROJECT}
    if via == "config":  # the endpoint comes from stack config only
        config["dws:computeEndpoint"] = emu.url
        env["DWS_COMPUTE_ENDPOINT"] = ""
    return DynamicProviderHost(
        FlexStartVmProvider(),
        project="flex-start-vm",
        stack="dev",
        config=config,
        env=env,
        rpc_timeout=120,
    )


@pytest.fixture
def host(emu: Emulator) -> Iterator[DynamicProviderHost]:
    with _host(emu, via="config") as running:
        running.configure()
        yield running


def test_full_lifecycle_through_the_engine_protocol(
    emu: Emulator, host: DynamicProviderHost
) -> None:
    compute = emu["compute"]
    compute.add_capacity(ZONE, MACHINE, 1, after=3600)  # capacity in 1 h: the VM queues
    checked, failures = host.check(URN, {}, inputs())
    assert failures == []
    id_, outs = host.create(URN, checked)
    assert id_ == f"projects/{PROJECT}/zones/{ZONE}/instances/trainer"
    assert outs["status"] == "RUNNING"
    assert outs["observed"]["runEndsAt"] == "2026-01-08T01:00:00.000-00:00"
    inserts = [r for r in emu.requests if r.method == "POST" and r.path.endswith("/instances")]
    assert len(inserts) == 1
    assert inserts[0].body["params"] == {"requestValidForDuration": {"seconds": "7200"}}
    assert inserts[0].body["scheduling"]["provisioningModel"] == "FLEX_START"

    read_id, read_outs, read_inputs = host.read(URN, id_, outs)
    assert read_id == id_ and read_outs["status"] == "RUNNING"
    assert read_inputs is not None and read_inputs["body"]["labels"] == {"team": "ml"}

    # labels: an in-place update
    relabel = inputs(body={**inputs()["body"], "labels": {"team": "infra"}})
    diff = host.diff(URN, id_, outs, relabel)
    assert diff.changes == "some" and diff.replaces == []
    outs = host.update(URN, id_, outs, relabel)
    labels = compute.instance(PROJECT, ZONE, "trainer")["labels"]
    assert {k: v for k, v in labels.items() if k != "dws-create"} == {"team": "infra"}

    # stop, then start: a new capacity request
    stopped = host.update(URN, id_, outs, {**relabel, "desiredStatus": "TERMINATED"})
    assert stopped["status"] == "TERMINATED"
    assert compute.capacity.available(ZONE, MACHINE) == 1
    started = host.update(URN, id_, stopped, relabel)
    assert started["status"] == "RUNNING"

    # zone: a replacement, deleting first (the name is reused, capacity released)
    moved = inputs(zone="us-central1-b")
    diff = host.diff(URN, id_, started, moved)
    assert diff.replaces == ["zone"] and diff.delete_before_replace

    host.delete(URN, id_, started)
    assert compute.instances() == []
    host.delete(URN, id_, started)  # already gone: success
    gone_id, gone_outs, _ = host.read(URN, id_, started)
    assert gone_id == "" and gone_outs == {}


def test_stockout_is_one_clear_error_and_nothing_is_left(
    emu: Emulator, host: DynamicProviderHost
) -> None:
    no_queue = inputs()
    del no_queue["body"]["params"]
    with pytest.raises(DynamicProviderError) as info:
        host.create(URN, no_queue)
    assert info.value.method == "Create"
    assert info.value.exception_type.endswith("FlexStartError")
    message = info.value.message
    assert "trainer" in message and ZONE in message and MACHINE in message
    assert "request_valid_for" in message and "Nothing was left behind" in message
    assert emu["compute"].instances() == []


def test_queue_window_expiry_through_the_host(emu: Emulator, host: DynamicProviderHost) -> None:
    start = emu.clock.now()
    with pytest.raises(DynamicProviderError, match="queue window of 2h"):
        host.create(URN, inputs())
    assert emu["compute"].instances() == []
    assert (emu.clock.now() - start).total_seconds() >= 7200  # virtual: the host's sleeps


def test_check_failures_come_back_per_property(host: DynamicProviderHost) -> None:
    bad = inputs(zone="us-central1", desiredStatus="PAUSED")
    _, failures = host.check(URN, {}, bad)
    assert {f.property for f in failures} == {"zone", "desiredStatus"}


def test_endpoint_from_the_environment(emu: Emulator) -> None:
    emu["compute"].add_capacity(ZONE, MACHINE, 1)
    with _host(emu, via="env") as host:
        id_, outs = host.create(URN, inputs(waitFor="accepted"))
        assert outs["status"] == "RUNNING"
        host.delete(URN, id_, outs)
    assert emu["compute"].instances() == []


def test_serialized_provider_is_small() -> None:
    assert serialized_provider_size(FlexStartVmProvider()) <= 4096
