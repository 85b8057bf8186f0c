"""The MigResizeRequest provider driven through Pulumi's own dynamic-provider gRPC host
(``python -m pulumi.dynamic``), with the serialized provider, as the engine does, against the
Compute emulator; the host's sleeps advance the emulator's virtual clock."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest

from pulumi_dws.kinds.flex_group.provider import TYPE_TOKEN, MigResizeRequestProvider
from pulumi_dws.testing.clock_helpers import emulator_env, flex_start_group, mig_resize_props
from pulumi_dws.testing.dynamic_host import DynamicProviderError, DynamicProviderHost, urn
from pulumi_dws.testing.emulator import Emulator, Request
from pulumi_dws.testing.fault_proxy import FaultProxy, ProxyFaultPlan

PROJECT, ZONE, MACHINE = "p", "us-central1-a", "a3-highgpu-8g"
HOUR = 3600


def request_urn(name: str) -> str:
    return urn(
        TYPE_TOKEN, f"{name}-request", project="group", stack="dev",
        parent_type="dws:index:FlexStartGroup",
    )  # fmt: skip


def _host(emu: Emulator, endpoint: str | None = None) -> DynamicProviderHost:
    env = emulator_env(emu)  # the host's sleeps advance the emulator's virtual clock
    config = {"dws:computeEndpoint": endpoint or emu.url}
    env["DWS_COMPUTE_ENDPOINT"] = ""  # from stack config only
    return DynamicProviderHost(
        MigResizeRequestProvider(), project="group", stack="dev", config=config, env=env,
        rpc_timeout=120,
    )  # fmt: skip


@pytest.fixture(scope="module")
def shared() -> Iterator[tuple[Emulator, DynamicProviderHost]]:
    """One emulator and one host for the tests that each work on a group of their own, as one
    ``pulumi up`` manages many (starting a host is most of such a test's time)."""
    with Emulator() as emulator, _host(emulator) as host:
        host.configure()
        yield emulator, host


def test_lifecycle_through_the_engine_protocol(shared: tuple[Emulator, DynamicProviderHost]):
    emu, host = shared
    compute = emu["compute"]
    flex_start_group(emu, "life")
    compute.add_capacity(ZONE, MACHINE, 4, after=HOUR)  # the set queues for an hour
    inputs = mig_resize_props("rr-1", "life")
    checked, failures = host.check(request_urn("life"), {}, inputs)
    assert failures == []
    id_, outs = host.create(request_urn("life"), checked)
    assert id_.endswith("/instanceGroupManagers/life/resizeRequests/rr-1")
    assert outs["state"] == "SUCCEEDED" and len(outs["observed"]["instances"]) == 4
    [insert] = [
        r for r in emu.requests if r.method == "POST" and r.path.endswith("/life/resizeRequests")
    ]
    assert insert.body == {
        "name": "rr-1",
        "resizeBy": 4,
        "requestedRunDuration": {"seconds": "259200"},
    }

    read_id, read_outs, read_inputs = host.read(request_urn("life"), id_, outs)
    assert read_id == id_ and read_outs["state"] == "SUCCEEDED"
    assert read_inputs is not None and read_inputs["body"] == inputs["body"]

    diff = host.diff(request_urn("life"), id_, outs, {**inputs, "waitFor": "accepted"})
    assert diff.changes == "some" and diff.replaces == []
    more = mig_resize_props("rr-1", "life", count=5)
    diff = host.diff(request_urn("life"), id_, outs, more)
    assert diff.replaces == ["body"] and diff.delete_before_replace

    host.delete(request_urn("life"), id_, outs)
    assert compute.instances(PROJECT) == [] and compute.resize_requests(PROJECT) == []
    host.delete(request_urn("life"), id_, outs)  # already gone: success
    gone_id, gone_outs, _ = host.read(request_urn("life"), id_, outs)
    assert gone_id == "" and gone_outs == {}


def test_a_failed_request_is_one_clear_error_and_nothing_is_left(
    shared: tuple[Emulator, DynamicProviderHost],
) -> None:
    emu, host = shared
    compute = emu["compute"]
    flex_start_group(emu, "fails")
    compute.fail_next_resize_request(code="ZONE_RESOURCE_POOL_EXHAUSTED", message="none left")
    with pytest.raises(DynamicProviderError) as info:
        host.create(request_urn("fails"), mig_resize_props("rr-1", "fails"))
    message = info.value.message
    assert "Resize request 'rr-1' (+4 VMs, run 3d, group fails in us-central1-a" in message
    assert "ended FAILED: ZONE_RESOURCE_POOL_EXHAUSTED: none left" in message
    assert "Nothing was left behind" in message
    assert [r for r in compute.resize_requests(PROJECT) if "/fails/" in r["selfLink"]] == []


def test_expiry_and_external_delete_through_the_host(
    shared: tuple[Emulator, DynamicProviderHost],
) -> None:
    emu, host = shared
    compute = emu["compute"]
    flex_start_group(emu, "short")
    compute.add_capacity(ZONE, MACHINE, 2)
    short = mig_resize_props("rr-1", "short", count=2, run=600)
    id_, outs = host.create(request_urn("short"), short)
    emu.clock.advance(600)
    _, expired, _ = host.read(request_urn("short"), id_, outs)
    assert expired["state"] == "EXPIRED" and expired["observed"]["instances"] == []

    flex_start_group(emu, "ext")
    while compute.capacity.take(ZONE, MACHINE):  # none free: the request queues
        pass
    queued = mig_resize_props("rr-1", "ext", wait_for="accepted")
    id_, outs = host.create(request_urn("ext"), queued)
    assert outs["state"] == "ACCEPTED"
    compute.fail_resize_request(PROJECT, "ext", "rr-1", zone=ZONE, state="CANCELLED")
    compute.remove_resize_request(PROJECT, "ext", "rr-1", zone=ZONE)
    gone_id, gone_outs, _ = host.read(request_urn("ext"), id_, outs)
    assert gone_id == "" and gone_outs == {}


def test_check_failures_come_back_per_property(shared: tuple[Emulator, DynamicProviderHost]):
    _, host = shared
    bad = {**mig_resize_props("rr-1", "g"), "region": "us-central1", "waitFor": "soon"}
    _, failures = host.check(request_urn("bad"), {}, bad)
    assert {f.property for f in failures} == {"zone", "waitFor"}


def _is_op_poll(request: Request) -> bool:
    return request.method == "GET" and "/operations/" in request.path


def test_a_host_killed_mid_create_leaves_a_request_the_next_up_adopts() -> None:
    """The insert reached Compute; then the process running `pulumi up` died. The next
    `pulumi up` (same inputs, a fresh host) adopts the request: one request, one set of VMs."""
    with Emulator() as emu, FaultProxy(emu.url, hold_limit=30) as proxy:
        compute = emu["compute"]
        compute.mig_accept_seconds = 60  # the insert's operation runs for a minute
        flex_start_group(emu, "g")
        proxy.plan = ProxyFaultPlan(match=_is_op_poll_path, queue=["slow"])
        errors: list[BaseException] = []
        first = _host(emu, proxy.url)
        with first:

            def create() -> None:
                try:
                    first.create(request_urn("g"), mig_resize_props("rr-1", "g"))
                except BaseException as err:  # noqa: BLE001 - handed to the test
                    errors.append(err)

            thread = threading.Thread(target=create, daemon=True)
            thread.start()
            emu.wait_for_request(_is_op_poll)
            first.kill()
            thread.join(timeout=30)
        assert errors and isinstance(errors[0], DynamicProviderError)
        assert [r["name"] for r in compute.resize_requests(PROJECT)] == ["rr-1"]  # untracked
        compute.add_capacity(ZONE, MACHINE, 4, after=600)
        with _host(emu) as second:
            _, outs = second.create(request_urn("g"), mig_resize_props("rr-1", "g"))
        assert outs["state"] == "SUCCEEDED" and len(outs["observed"]["instances"]) == 4
        assert len(compute.resize_inserted) == 1 and len(compute.instances(PROJECT)) == 4


def _is_op_poll_path(method: str, path: str) -> bool:
    return method == "GET" and "/operations/" in path
