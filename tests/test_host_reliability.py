"""Trust under faults through Pulumi's real dynamic-provider host (``python -m pulumi.dynamic``),
driven the way the engine drives it: a host killed mid-create and a new one adopting what it
left, secrets, previews with unknown values, VM statuses that pass on their own, and numbers
typed as the API types them although they travel as protobuf doubles."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest
from emulator_helpers import MACHINE, PROJECT, ZONE
from emulator_helpers import host_inputs as inputs
from queued_tpu_helpers import PROJECT as TPU_PROJECT
from queued_tpu_helpers import QR
from queued_tpu_helpers import ZONE as TPU_ZONE
from queued_tpu_helpers import props as queued_tpu_inputs
from slurm_helpers import PROJECT as SLURM_PROJECT
from slurm_helpers import REGION, cluster_inputs

from pulumi_dws.kinds.flex_vm.provider import TYPE_TOKEN, FlexStartVmProvider
from pulumi_dws.kinds.queued_tpu.provider import QueuedTpuProvider
from pulumi_dws.kinds.slurm.provider import SlurmClusterProvider
from pulumi_dws.testing.clock_helpers import emulator_env
from pulumi_dws.testing.dynamic_host import (
    UNKNOWN,
    DynamicProviderError,
    DynamicProviderHost,
    is_secret,
    secret,
    unwrap_secrets,
    urn,
)
from pulumi_dws.testing.emulator import Emulator, Request
from pulumi_dws.testing.emulator.aiplatform import AiPlatformService
from pulumi_dws.testing.emulator.tpu import TpuService
from pulumi_dws.testing.fault_proxy import FaultProxy, ProxyFaultPlan

URN = urn(TYPE_TOKEN, "trainer-vm", project="flex", stack="dev")
SLURM_URN = urn("pulumi-python:dynamic/dws:SlurmCluster", "c", project="slurm", stack="dev")
TPU_URN = urn("pulumi-python:dynamic/dws:QueuedTpu", "q", project="tpu", stack="dev")


@pytest.fixture
def emu() -> Iterator[Emulator]:
    with Emulator() as emulator:
        yield emulator


@pytest.fixture(scope="module")
def shared() -> Iterator[tuple[Emulator, DynamicProviderHost]]:
    """One emulator and one host for the tests that each work on a VM of their own, as one
    ``pulumi up`` manages many (starting a host is most of such a test's time)."""
    with Emulator() as emulator, _host(emulator) as host:
        yield emulator, host


def vm_urn(name: str) -> str:
    return urn(TYPE_TOKEN, f"{name}-vm", project="flex", stack="dev")


def _host(emu: Emulator, endpoint: str | None = None, **env: str) -> DynamicProviderHost:
    environment = {**emulator_env(emu), **env}
    if endpoint:
        environment["DWS_COMPUTE_ENDPOINT"] = endpoint
    return DynamicProviderHost(FlexStartVmProvider(), project="flex", stack="dev", env=environment)


def _in_thread(call: Any) -> tuple[threading.Thread, list[BaseException]]:
    errors: list[BaseException] = []

    def run() -> None:
        try:
            call()
        except BaseException as err:  # noqa: BLE001 - handed to the test
            errors.append(err)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, errors


def _is_poll(request: Request) -> bool:
    return request.method == "GET" and "/operations/" in request.path


# ---------------------------------------------------------------------- crash adoption
def test_a_host_killed_mid_create_leaves_a_vm_the_next_up_adopts(emu: Emulator) -> None:
    """The insert reached Compute; then the process running `pulumi up` died. The next
    `pulumi up` (same inputs, a fresh host) adopts that VM: one VM, a successful create, not
    "already exists"."""
    compute = emu["compute"]
    with FaultProxy(emu.url, hold_limit=30) as proxy:
        proxy.plan = ProxyFaultPlan(
            match=lambda m, p: m == "GET" and "/operations/" in p, queue=["slow"]
        )  # the first poll hangs: the host is mid-create
        first = _host(emu, proxy.url)
        with first:
            thread, errors = _in_thread(lambda: first.create(URN, inputs()))
            emu.wait_for_request(_is_poll)
            first.kill()
            thread.join(timeout=30)
        assert errors and isinstance(errors[0], DynamicProviderError)
    assert [vm["status"] for vm in compute.instances()] == ["PENDING"]  # billing soon, untracked
    compute.add_capacity(ZONE, MACHINE, 1, after=600)
    with _host(emu) as second:
        id_, outs = second.create(URN, inputs())
    assert outs["status"] == "RUNNING" and id_.endswith("/instances/trainer")
    assert len(compute.created) == 1 and len(compute.instances()) == 1
    assert outs["observed"]["instanceId"] == compute.created[0]["id"]


def test_a_same_name_vm_that_is_not_ours_is_refused_through_the_host(emu: Emulator) -> None:
    import requests

    emu["compute"].add_capacity(ZONE, MACHINE, 1)
    url = f"{emu.url}compute/v1/projects/{PROJECT}/zones/{ZONE}/instances"
    assert requests.post(url, json=inputs()["body"], timeout=10).status_code == 200
    with _host(emu) as host, pytest.raises(DynamicProviderError) as info:
        host.create(URN, inputs())
    message = info.value.message
    assert "already exists" in message and "not made by pulumi-dws" in message
    assert "pulumi import" not in message
    assert len(emu["compute"].instances()) == 1


def _create_killed_while_polling(
    emu: Emulator, proxy: FaultProxy, first: DynamicProviderHost, urn_: str, props: dict
) -> None:
    """Create through ``first``, a host killed while it polls the create's operation (which
    ``proxy`` holds): the create fails, after the API accepted it."""
    proxy.plan = ProxyFaultPlan(
        match=lambda m, p: m == "GET" and "/operations/" in p, queue=["slow"]
    )
    with first:
        thread, errors = _in_thread(lambda: first.create(urn_, props))
        emu.wait_for_request(_is_poll)
        first.kill()
        thread.join(timeout=30)
    assert errors


def test_a_host_killed_mid_create_leaves_a_cluster_the_next_up_adopts() -> None:
    with Emulator([]) as emu, FaultProxy(emu.url, hold_limit=30) as proxy:
        svc = emu.add(AiPlatformService(emu.clock))

        def host() -> DynamicProviderHost:
            config = {"dws:aiplatformEndpoint": proxy.url}
            env = {"DWS_VIRTUAL_CLOCK_URL": emu.clock_url}
            return DynamicProviderHost(SlurmClusterProvider(), config=config, env=env)

        _create_killed_while_polling(emu, proxy, host(), SLURM_URN, cluster_inputs())
        assert [c.resource["clusterStatus"]["state"] for c in svc.clusters.values()] == [
            "PROVISIONING"
        ]
        with host() as second:
            _, outs = second.create(SLURM_URN, cluster_inputs())
        assert outs["state"] == "RUNNING"
        assert len(svc.created) == 1 and list(svc.clusters) == [(SLURM_PROJECT, REGION, "flexvm")]


def test_a_host_killed_mid_create_leaves_a_queued_tpu_the_next_up_adopts() -> None:
    """The create reached Cloud TPU (its node labelled as ours); the host died while polling
    the operation. The next `pulumi up` adopts the request: one request, ACTIVE."""
    with Emulator([]) as emu, FaultProxy(emu.url, hold_limit=30) as proxy:
        tpu = emu.add(TpuService(emu.clock))

        def host() -> DynamicProviderHost:
            config = {"dws:tpuEndpoint": proxy.url}
            env = {"DWS_VIRTUAL_CLOCK_URL": emu.clock_url}
            return DynamicProviderHost(QueuedTpuProvider(), config=config, env=env)

        _create_killed_while_polling(emu, proxy, host(), TPU_URN, queued_tpu_inputs())
        assert tpu.queued_resources() == [(TPU_PROJECT, TPU_ZONE, QR)]  # queued, untracked
        tpu.add_chips(TPU_ZONE, "v6e", 16, after=600)
        with host() as second:
            _, outs = second.create(TPU_URN, queued_tpu_inputs())
        assert outs["state"] == "ACTIVE"
        assert len(tpu.created) == 1 and tpu.queued_resources() == [(TPU_PROJECT, TPU_ZONE, QR)]


# ---------------------------------------------------------------------- secrets
def test_a_secret_startup_script_stays_secret_in_inputs_and_state(
    shared: tuple[Emulator, DynamicProviderHost],
) -> None:
    emu, host = shared
    emu["compute"].add_capacity(ZONE, MACHINE, 1)
    body = inputs("secretive")["body"]
    body["metadata"] = {"items": [{"key": "startup-script", "value": secret("echo s3cr3t")}]}
    checked, failures = host.check(vm_urn("secretive"), {}, inputs("secretive", body=body))
    assert failures == []
    id_, outs = host.create(vm_urn("secretive"), checked)
    read_id, read_outs, read_inputs = host.read(vm_urn("secretive"), id_, outs, inputs=checked)
    assert "s3cr3t" not in host.stderr and "s3cr3t" not in host.stdout
    for bag in (checked, outs, read_outs, read_inputs):
        items = bag["body"]["metadata"]
        assert (
            is_secret(items) or is_secret(items["items"]) or is_secret(items["items"][0]["value"])
        ), bag["body"]
        assert "s3cr3t" in str(unwrap_secrets(items))
    assert not is_secret(outs["status"])


# ---------------------------------------------------------------------- previews
def test_a_preview_with_unknown_values_inside_the_body_never_fails_check(
    shared: tuple[Emulator, DynamicProviderHost],
) -> None:
    _, host = shared
    body = inputs()["body"]
    body["scheduling"]["maxRunDuration"] = {"seconds": UNKNOWN}
    body["params"] = {"requestValidForDuration": {"seconds": UNKNOWN}}
    body["labels"] = {"team": UNKNOWN}
    _, failures = host.check(URN, {}, inputs(body=body, zone=UNKNOWN, project=UNKNOWN))
    assert failures == []
    _, failures = host.check(
        SLURM_URN, {}, {**cluster_inputs(), "region": UNKNOWN}, provider=SlurmClusterProvider()
    )
    assert failures == []


# ---------------------------------------------------------------------- passing statuses
@pytest.mark.parametrize(
    ("status", "then"),
    [
        ("STOPPING", "TERMINATED"),
        ("PENDING_STOP", "TERMINATED"),
        ("SUSPENDING", "SUSPENDED"),
        ("SUSPENDED", None),
    ],
)
def test_statuses_that_pass_on_their_own_converge_to_running(
    shared: tuple[Emulator, DynamicProviderHost], status: str, then: str | None
) -> None:
    emu, host = shared
    name = f"passing-{status.lower().replace('_', '-')}"
    compute = emu["compute"]
    compute.add_capacity(ZONE, MACHINE, 1)
    id_, outs = host.create(vm_urn(name), inputs(name))
    compute.transition(PROJECT, ZONE, name, status, then=then, after=120)
    relabel = inputs(name, body={**inputs(name)["body"], "labels": {"team": "infra"}})
    updated = host.update(vm_urn(name), id_, outs, relabel)
    assert updated["status"] == "RUNNING"
    assert compute.instance(PROJECT, ZONE, name)["status"] == "RUNNING"


def test_a_suspended_vm_asked_to_stop_ends_terminated(
    shared: tuple[Emulator, DynamicProviderHost],
) -> None:
    emu, host = shared
    compute = emu["compute"]
    compute.add_capacity(ZONE, MACHINE, 1)
    id_, outs = host.create(vm_urn("suspended"), inputs("suspended"))
    compute.set_status(PROJECT, ZONE, "suspended", "SUSPENDED")
    stopped = host.update(
        vm_urn("suspended"), id_, outs, inputs("suspended", desiredStatus="TERMINATED")
    )
    assert stopped["status"] == "TERMINATED"


def test_a_vm_that_never_settles_fails_clearly(
    shared: tuple[Emulator, DynamicProviderHost],
) -> None:
    emu, host = shared
    compute = emu["compute"]
    compute.add_capacity(ZONE, MACHINE, 1)
    id_, outs = host.create(vm_urn("unsettled"), inputs("unsettled"))
    compute.set_status(PROJECT, ZONE, "unsettled", "STOPPING")  # and it stays so
    with pytest.raises(DynamicProviderError) as info:
        host.update(vm_urn("unsettled"), id_, outs, inputs("unsettled", desiredStatus="TERMINATED"))
    assert "still STOPPING" in info.value.message and "Traceback" not in info.value.message


# ---------------------------------------------------------------------- numbers
def test_numbers_reach_google_typed_as_the_api_types_them(
    shared: tuple[Emulator, DynamicProviderHost],
) -> None:
    emu, host = shared
    emu["compute"].add_capacity(ZONE, MACHINE, 1)
    body = inputs("numbers")["body"]
    body["guestAccelerators"] = [
        {
            "acceleratorType": f"zones/{ZONE}/acceleratorTypes/nvidia-h100-80gb",
            "acceleratorCount": 8,
        }
    ]
    body["scheduling"]["maxRunDuration"] = {"seconds": 86400}
    host.create(vm_urn("numbers"), inputs("numbers", body=body))  # protobuf doubles on the wire
    [insert] = [
        r
        for r in emu.requests
        if r.method == "POST" and r.path.endswith("/instances") and r.body["name"] == "numbers"
    ]
    count = insert.body["guestAccelerators"][0]["acceleratorCount"]
    assert count == 8 and type(count) is int  # int32: a JSON integer, not 8.0
    assert insert.body["scheduling"]["maxRunDuration"]["seconds"] == "86400"  # int64: a string
