"""Ctrl-C, SIGTERM and SIGKILL in the middle of a queue wait, through Pulumi's real
dynamic-provider host (``python -m pulumi.dynamic``), driven as the engine drives it
(``docs/dynamic-host.md``): the engine's ``Cancel`` (first Ctrl-C or SIGTERM to ``pulumi``), the
plugin close of a terminated run (``Cancel``, SIGINT to the process group, SIGKILL 5 s later),
SIGTERM to the host itself, and SIGKILL.

Every test holds the provider at a known point of its wait: the fault proxy keeps one poll of
the wait unanswered (``slow``, released only when the client hangs up) and the test waits for
that request to arrive (an event, not a sleep). The interruption must then end the held
exchange: nothing else would within the test's time.
"""

from __future__ import annotations

import signal
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from emulator_helpers import MACHINE, PROJECT, ZONE
from emulator_helpers import host_inputs as vm_inputs
from queued_tpu_helpers import QR
from queued_tpu_helpers import ZONE as TPU_ZONE
from queued_tpu_helpers import props as tpu_inputs

from pulumi_dws.kinds.batch.provider import TYPE_TOKEN as BATCH_JOB
from pulumi_dws.kinds.batch.provider import BatchJobProvider
from pulumi_dws.kinds.batch.testing import batch_job_props
from pulumi_dws.kinds.flex_group.provider import MigResizeRequestProvider
from pulumi_dws.kinds.flex_vm.provider import FlexStartVmProvider
from pulumi_dws.kinds.queued_tpu.provider import QueuedTpuProvider
from pulumi_dws.kinds.vertex_deployment.provider import TYPE_TOKEN as DEPLOYED_MODEL
from pulumi_dws.kinds.vertex_deployment.provider import FlexStartDeployedModelProvider
from pulumi_dws.kinds.vertex_deployment.testing import ENDPOINT_ID, deployed_model_props
from pulumi_dws.kinds.vertex_training.provider import TYPE_TOKEN as CUSTOM_JOB
from pulumi_dws.kinds.vertex_training.provider import VertexCustomJobProvider
from pulumi_dws.kinds.vertex_training.testing import custom_job_props
from pulumi_dws.testing.clock_helpers import flex_start_group, mig_resize_props
from pulumi_dws.testing.dynamic_host import DynamicProviderError, DynamicProviderHost, urn
from pulumi_dws.testing.emulator import Emulator
from pulumi_dws.testing.fault_proxy import FaultProxy, ProxyFaultPlan

HELD = 120.0
"""Real seconds the proxy holds the chosen poll, and the host's HTTP deadline: far beyond what a
test waits for; only an interruption ends the hold sooner."""
VM_URN = urn("pulumi-python:dynamic/dws:FlexStartVm", "trainer-vm", project="flex", stack="dev")
TPU_URN = urn("pulumi-python:dynamic/dws:QueuedTpu", "q", project="tpu", stack="dev")
MIG_URN = urn("pulumi-python:dynamic/dws:MigResizeRequest", "g", project="mig", stack="dev")


def _operation_poll(method: str, path: str) -> bool:
    return method == "GET" and "/operations/" in path


def _resource_poll(fragment: str) -> Callable[[str, str], bool]:
    return lambda method, path: method == "GET" and path.endswith(fragment)


@contextmanager
def _held(
    emu: Emulator, provider: Any, match: Callable[[str, str], bool], *, skip: int = 0
) -> Iterator[tuple[DynamicProviderHost, Callable[[], None]]]:
    """A host whose endpoints go through a proxy that holds the answer to the ``skip``-th
    request matching ``match`` (0: the first) until the client hangs up, and a function that
    blocks until that request reached the emulator."""
    with FaultProxy(emu.url, hold_limit=HELD) as proxy:
        seen = {"n": 0}

        def chosen(method: str, path: str) -> bool:
            if not match(method, path):
                return False
            seen["n"] += 1
            return seen["n"] == skip + 1

        proxy.plan = ProxyFaultPlan(match=chosen, queue=["slow"])
        env = {
            "DWS_COMPUTE_ENDPOINT": proxy.url,
            "DWS_TPU_ENDPOINT": proxy.url,
            "DWS_AIPLATFORM_ENDPOINT": proxy.url,
            "DWS_BATCH_ENDPOINT": proxy.url,
            "DWS_VIRTUAL_CLOCK_URL": emu.clock_url,
            "DWS_HTTP_TIMEOUT": str(HELD),
        }
        with DynamicProviderHost(provider, project="flex", stack="dev", env=env) as host:
            yield host, lambda: _held_request(emu, match, skip)


def _held_request(emu: Emulator, match: Callable[[str, str], bool], skip: int) -> None:
    """Block until the chosen request reached the emulator (the proxy forwards it, then holds
    its answer)."""
    emu.wait_for_requests(lambda r: match(r.method, r.path), skip + 1, timeout=60)


def _deleted(emu: Emulator, fragment: str) -> bool:
    return any(r.method == "DELETE" and fragment in r.path for r in emu.requests)


def _vm_queued(emu: Emulator) -> list[str]:
    return [vm["status"] for vm in emu["compute"].instances()]


# ---------------------------------------------------------------------- FlexStartVm
@pytest.mark.parametrize("how", ["cancel", "sigint", "sigterm", "engine-close"])
def test_a_flex_start_vm_interrupted_in_the_queue_is_removed(how: str) -> None:
    """No capacity, a 2-hour window: the VM waits in the queue (PENDING). Whatever interrupts
    the wait, the queued VM is deleted (nothing ran: only the place in the queue is lost), and
    the create says so when it can still answer."""
    with (
        Emulator() as emu,
        _held(emu, FlexStartVmProvider(), _operation_poll, skip=1) as (
            host,
            held,
        ),
    ):
        call = host.background(host.create, VM_URN, vm_inputs())
        held()
        assert _vm_queued(emu) == ["PENDING"]
        if how == "cancel":
            host.cancel()
            with pytest.raises(DynamicProviderError) as info:
                call.result(timeout=60)
            message = info.value.message
            assert "was not created" in message and "still queued" in message
            assert "the VM was deleted" in message and "place in the queue" in message
        elif how == "engine-close":
            assert host.engine_close(), "the host did not exit within the engine's 5 s grace"
        else:
            host.signal(signal.SIGINT if how == "sigint" else signal.SIGTERM)
            assert host.wait_exit(5.0) is not None, "the host did not exit within 5 s"
        assert _vm_queued(emu) == []
        assert _deleted(emu, "/instances/trainer"), "the queued VM was not deleted"


def test_a_second_ctrl_c_while_the_clean_up_waits_for_google_exits_within_the_grace() -> None:
    """The first Ctrl-C (``Cancel``) starts the clean-up: the queued VM's delete is sent and its
    answer does not come (held). The second Ctrl-C closes the plugin (``Cancel``, SIGINT, SIGKILL
    5 s later): the clean-up's exchange, begun with the 300 s grace of a ``Cancel``, ends at the
    signal's shorter grace and the host exits on its own, within the engine's 5 s. (It waited
    for its HTTP deadline and was SIGKILLed.)"""
    deletes = _deleting("/instances/trainer")
    with Emulator() as emu, _held(emu, FlexStartVmProvider(), deletes) as (host, held):
        call = host.background(host.create, VM_URN, vm_inputs())
        emu.wait_for_requests(lambda r: _operation_poll(r.method, r.path), 2, timeout=60)
        host.cancel()  # the first Ctrl-C, during the queue wait
        held()  # the clean-up's delete reached Google; its answer is held
        assert host.engine_close(), "the host did not exit within the engine's 5 s grace"
        with pytest.raises(DynamicProviderError):
            call.result(timeout=60)
        assert _vm_queued(emu) == []


def _deleting(fragment: str) -> Callable[[str, str], bool]:
    return lambda method, path: method == "DELETE" and path.endswith(fragment)


def test_a_flex_start_vm_that_runs_when_cancelled_is_returned() -> None:
    """Capacity found and the VM started: a Cancel after that returns the VM (the engine records
    it), it is never deleted."""
    with Emulator() as emu:
        emu["compute"].add_capacity(ZONE, MACHINE, 1)
        with _held(emu, FlexStartVmProvider(), _resource_poll("/instances/trainer"), skip=1) as (
            host,
            held,
        ):
            call = host.background(host.create, VM_URN, vm_inputs())
            held()
            host.cancel()
            id_, outs = call.result(timeout=60)
        assert outs["status"] == "RUNNING" and id_.endswith("/instances/trainer")
        assert _vm_queued(emu) == ["RUNNING"]


def test_sigkill_mid_wait_leaves_a_vm_the_next_up_adopts() -> None:
    """SIGKILL gives no chance to clean up: the queued VM stays, marked, and the next
    `pulumi up` with the same inputs (a fresh host) adopts it: one VM."""
    with Emulator() as emu:
        with _held(emu, FlexStartVmProvider(), _operation_poll, skip=1) as (host, held):
            call = host.background(host.create, VM_URN, vm_inputs())
            held()
            host.kill()
            with pytest.raises(DynamicProviderError):
                call.result(timeout=60)
        assert _vm_queued(emu) == ["PENDING"]
        emu["compute"].add_capacity(ZONE, MACHINE, 1, after=600)
        env = {"DWS_COMPUTE_ENDPOINT": emu.url, "DWS_VIRTUAL_CLOCK_URL": emu.clock_url}
        with DynamicProviderHost(FlexStartVmProvider(), env=env) as second:
            _, outs = second.create(VM_URN, vm_inputs())
        assert outs["status"] == "RUNNING"
        assert len(emu["compute"].created) == 1 and _vm_queued(emu) == ["RUNNING"]


# ---------------------------------------------------------------------- QueuedTpu
@pytest.mark.parametrize("how", ["cancel", "sigint", "sigterm"])
def test_a_queued_tpu_interrupted_while_waiting_for_resources_is_removed(how: str) -> None:
    with Emulator() as emu:
        path = f"/queuedResources/{QR}"
        with _held(emu, QueuedTpuProvider(), _resource_poll(path), skip=2) as (host, held):
            call = host.background(host.create, TPU_URN, tpu_inputs())
            held()
            tpu = emu["tpu"]
            queued = tpu.queued_resource("p", TPU_ZONE, QR)
            assert queued is not None and queued["state"]["state"] == "WAITING_FOR_RESOURCES"
            if how == "cancel":
                host.cancel()
                with pytest.raises(DynamicProviderError) as info:
                    call.result(timeout=60)
                assert "still queued" in info.value.message
                assert "it was deleted" in info.value.message
            else:
                host.signal(signal.SIGINT if how == "sigint" else signal.SIGTERM)
                assert host.wait_exit(5.0) is not None
        emu.clock.advance(600)  # a delete in flight finishes
        assert tpu.queued_resources() == []


# ---------------------------------------------------------------------- MigResizeRequest
@pytest.mark.parametrize("how", ["cancel", "sigint"])
def test_a_resize_request_interrupted_while_accepted_is_cancelled_and_deleted(how: str) -> None:
    with Emulator() as emu:
        flex_start_group(emu, "g", project=PROJECT, zone=ZONE)
        props = mig_resize_props("rr", "g", count=2, run=86400, project=PROJECT, zone=ZONE)
        with _held(
            emu, MigResizeRequestProvider(), _resource_poll("/resizeRequests/rr"), skip=2
        ) as (
            host,
            held,
        ):
            call = host.background(host.create, MIG_URN, props)
            held()
            compute = emu["compute"]
            assert [r["state"] for r in compute.resize_requests()] == ["ACCEPTED"]
            if how == "cancel":
                host.cancel()
                with pytest.raises(DynamicProviderError) as info:
                    call.result(timeout=60)
                assert "cancelled and deleted" in info.value.message
            else:
                host.signal(signal.SIGINT)
                assert host.wait_exit(5.0) is not None
        assert compute.resize_requests() == [] and compute.instances() == []


# ---------------------------------------------------------------------- jobs and deployments
JOBS = {
    # name: (provider, URN, inputs, the wait's poll, what the emulator holds of it, the poll held:
    # the second of the wait's, after those that match before the create)
    "VertexCustomJob": (
        VertexCustomJobProvider,
        urn(CUSTOM_JOB, "finetune-job", project="vertex", stack="dev"),
        custom_job_props,
        lambda method, path: method == "GET" and "/customJobs/" in path,
        lambda emu: len(emu["aiplatform"].custom_jobs()),
        1,
    ),
    "FlexStartDeployedModel": (
        FlexStartDeployedModelProvider,
        urn(DEPLOYED_MODEL, "llm-deployment", project="vertex", stack="dev"),
        deployed_model_props,
        _resource_poll(f"/endpoints/{ENDPOINT_ID}"),
        lambda emu: len(emu["aiplatform"].deployments()),
        3,  # the endpoint is read twice before deployModel: whose model it is, and its traffic
    ),
    "BatchJob": (
        BatchJobProvider,
        urn(BATCH_JOB, "render-job", project="batch", stack="dev"),
        batch_job_props,
        lambda method, path: method == "GET" and "/jobs/" in path,
        lambda emu: len(emu["batch"].jobs()),
        1,
    ),
}


@pytest.mark.parametrize("how", ["cancel", "sigterm"])
@pytest.mark.parametrize("kind", sorted(JOBS))
def test_a_job_or_deployment_interrupted_while_queued_is_removed(kind: str, how: str) -> None:
    """No capacity: the job (or deployment) queues. The engine's Cancel, or SIGTERM to the
    host, removes it (cancelled and deleted, or undeployed) and the create says so when it can
    still answer."""
    make, resource_urn, inputs, poll, held_count, skip = JOBS[kind]
    with Emulator() as emu:
        emu["aiplatform"].add_endpoint("my-project", "us-central1", ENDPOINT_ID)
        with _held(emu, make(), poll, skip=skip) as (host, held):
            call = host.background(host.create, resource_urn, inputs())
            held()
            assert held_count(emu) == 1  # queued, waiting for capacity
            if how == "cancel":
                host.cancel()
                with pytest.raises(DynamicProviderError) as info:
                    call.result(timeout=60)
                assert "still queued" in info.value.message
            else:
                host.signal(signal.SIGTERM)
                assert host.wait_exit(5.0) is not None, "the host did not exit within 5 s"
        emu.clock.advance(3600)  # a cancel or delete in flight finishes
        assert held_count(emu) == 0
