"""Ctrl-C, SIGTERM and the engine's close in the middle of a queue wait, for the dynamic resources
the component provider plugin serves to programs in other languages (``dws:dynamic:<Name>``),
driven over gRPC as the engine drives it (``docs/dynamic-host.md``):

- the engine's ``Cancel`` on the first Ctrl-C (or SIGTERM) to ``pulumi`` (a 30 s deadline; the
  engine then waits for the step);
- the engine's close of a terminated run: ``Cancel`` with a 5 s deadline, then the connection
  closed and the plugin killed at once (the Python language host runs this plugin and kills it
  with no signal first): whatever the clean-up sends must be sent before ``Cancel`` answers;
- SIGTERM (and SIGINT) to the plugin itself: it must exit within the 5 s the engine gives a
  plugin it runs as a binary, having removed what is still queued.

Each test holds the provider at a known point of its wait (the fault proxy keeps one poll's
answer until the client hangs up; the test waits for that request to reach the emulator: an
event, not a sleep); only the interruption can end the hold within the test's time. The inputs
are those ``Construct`` registers for the component, as a TypeScript program's would be.
"""

from __future__ import annotations

import signal
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
import requests
from queued_tpu_helpers import QR
from queued_tpu_helpers import ZONE as TPU_ZONE

from pulumi_dws.package.provider import component_kinds
from pulumi_dws.testing import GcpMocks
from pulumi_dws.testing.clock_helpers import flex_start_group
from pulumi_dws.testing.component_host import (
    COMPONENT_ARGS,
    ComponentProviderHost,
    Deployment,
    ProviderCallError,
    schema_inputs,
)
from pulumi_dws.testing.emulator import Emulator
from pulumi_dws.testing.fault_proxy import FaultProxy, ProxyFaultPlan
from pulumi_dws.testing.gcp_rest import template_body

HELD = 120.0
"""Real seconds the proxy holds the chosen poll, and the plugin's HTTP deadline: far beyond
what a test waits for; only an interruption ends the hold sooner."""
PROJECT, ZONE, MACHINE = "p", "us-central1-a", "a3-highgpu-8g"
VM = "dws:dynamic:FlexStartVm"
TPU = "dws:dynamic:QueuedTpu"
TEMPLATE = "gcp:compute/instanceTemplate:InstanceTemplate"
ENGINE_GRACE = 5.0
"""SIGINT to SIGKILL, when the engine kills a plugin it runs as a binary
(``sdk/go/common/resource/plugin/plugin.go``, ``ExecPlugin``'s ``kill``)."""


def _operation_poll(method: str, path: str) -> bool:
    return method == "GET" and "/operations/" in path


def _resource_poll(fragment: str) -> Callable[[str, str], bool]:
    return lambda method, path: method == "GET" and path.endswith(fragment)


@contextmanager
def _held(
    emu: Emulator, match: Callable[[str, str], bool], *, skip: int = 0
) -> Iterator[tuple[ComponentProviderHost, Callable[[], None]]]:
    """A plugin whose endpoints (the package's config, as ``pulumi config set
    dws:computeEndpoint``) go through a proxy that holds the answer to the ``skip``-th request
    matching ``match`` until the client hangs up, and a function that blocks until that
    request reached the emulator."""
    with FaultProxy(emu.url, hold_limit=HELD) as proxy:
        seen = {"n": 0}

        def chosen(method: str, path: str) -> bool:
            if not match(method, path):
                return False
            seen["n"] += 1
            return seen["n"] == skip + 1

        proxy.plan = ProxyFaultPlan(match=chosen, queue=["slow"])
        env = {"DWS_VIRTUAL_CLOCK_URL": emu.clock_url, "DWS_HTTP_TIMEOUT": str(HELD)}
        with ComponentProviderHost(env=env, rpc_timeout=HELD) as plugin:
            plugin.configure(
                {f"{api}Endpoint": proxy.url for api in ("compute", "tpu", "aiplatform", "batch")}
            )
            yield plugin, lambda: _held_request(emu, match, skip)


def _held_request(emu: Emulator, match: Callable[[str, str], bool], skip: int) -> None:
    emu.wait_for_requests(lambda r: match(r.method, r.path), skip + 1, timeout=60)


def served(deployment: Deployment, type_: str) -> tuple[str, dict[str, Any]]:
    """The served resource ``Construct`` registered in ``deployment``: its name and inputs."""
    [resource] = [r for r in deployment.registered if r.type == type_]
    return resource.name, {k: v for k, v in resource.inputs.items() if v is not None}


def flex_start_vm(plugin: ComponentProviderHost, emu: Emulator) -> tuple[str, dict[str, Any]]:
    """A ``FlexStartInstance`` with a 2-hour queue window, built through ``Construct``; its
    instance template (pulumi-gcp's) made in the emulator."""
    with plugin.deployment(mocks=GcpMocks(project=PROJECT)) as deployment:
        deployment.construct(
            "dws:index:FlexStartInstance",
            "trainer",
            {"zone": ZONE, "machineType": MACHINE, "maxRunDuration": "1d", "requestValidFor": "2h"},
        )
    for template in [r for r in deployment.registered if r.type == TEMPLATE]:
        body = template_body(template.outputs["name"], template.outputs)
        url = f"{emu.url}compute/v1/projects/{PROJECT}/global/instanceTemplates"
        requests.post(url, json=body, timeout=30)
    return served(deployment, VM)


def queued_tpu(plugin: ComponentProviderHost) -> tuple[str, dict[str, Any]]:
    """A ``QueuedTpu`` (v6e-16, a 2-hour window) built through ``Construct``."""
    with plugin.deployment(mocks=GcpMocks(project=PROJECT)) as deployment:
        deployment.construct(
            "dws:index:QueuedTpu",
            "trainer",
            {
                "zone": TPU_ZONE,
                "acceleratorType": "v6e-16",
                "maxRunDuration": "1d",
                "requestValidFor": "2h",
                "queuedResourceId": QR,
            },
        )
    return served(deployment, TPU)


def _vms(emu: Emulator) -> list[str]:
    return [vm["status"] for vm in emu["compute"].instances()]


def _deleted(emu: Emulator, fragment: str) -> bool:
    return any(r.method == "DELETE" and fragment in r.path for r in emu.requests)


def _interrupt(plugin: ComponentProviderHost, how: str) -> None:
    """Interrupt the wait ``how``; for those after which the plugin is gone, check it was gone
    within the engine's grace."""
    if how == "cancel":
        plugin.cancel()
    elif how == "engine-close":
        assert plugin.engine_close(), "Cancel did not answer within the engine's 5 s deadline"
    else:
        plugin.signal(signal.SIGINT if how == "sigint" else signal.SIGTERM)
        assert plugin.wait_exit(ENGINE_GRACE) is not None, "the plugin did not exit within 5 s"


# ---------------------------------------------------------------------- FlexStartVm
@pytest.mark.parametrize("how", ["cancel", "engine-close", "sigterm", "sigint"])
def test_a_served_flex_start_vm_interrupted_in_the_queue_is_removed(how: str) -> None:
    """No capacity: the VM waits in the queue (PENDING). Whatever interrupts the wait, the
    queued VM is deleted before the plugin is gone, and the create says so when it can still
    answer."""
    with Emulator() as emu, _held(emu, _operation_poll, skip=1) as (plugin, held):
        name, inputs = flex_start_vm(plugin, emu)
        call = plugin.background(plugin.create, VM, name, inputs)
        held()
        assert _vms(emu) == ["PENDING"]
        _interrupt(plugin, how)
        if how == "cancel":
            with pytest.raises(ProviderCallError) as info:
                call.result(timeout=60)
            message = info.value.message
            assert "was not created" in message and "still queued" in message
            assert "the VM was deleted" in message and "place in the queue" in message
            assert "Traceback" not in message
        assert _deleted(emu, "/instances/trainer-"), "the queued VM was not deleted"
        assert _vms(emu) == []


def test_a_served_flex_start_vm_that_runs_when_cancelled_is_returned() -> None:
    """Capacity found and the VM started: a Cancel then returns the VM (the engine records it);
    it is never deleted."""
    with Emulator() as emu:
        emu["compute"].add_capacity(ZONE, MACHINE, 1)
        vm_read = _resource_poll("/instances/trainer-f177ed")  # dev's default name
        with _held(emu, vm_read, skip=1) as (plugin, held):
            name, inputs = flex_start_vm(plugin, emu)
            call = plugin.background(plugin.create, VM, name, inputs)
            held()
            plugin.cancel()
            id_, outs = call.result(timeout=60)
        assert outs["status"] == "RUNNING" and "/instances/trainer-" in id_
        assert _vms(emu) == ["RUNNING"] and not _deleted(emu, "/instances/")


# ---------------------------------------------------------------------- QueuedTpu
@pytest.mark.parametrize("how", ["cancel", "engine-close", "sigterm"])
def test_a_served_queued_tpu_interrupted_while_waiting_for_resources_is_removed(how: str) -> None:
    with (
        Emulator() as emu,
        _held(emu, _resource_poll(f"/queuedResources/{QR}"), skip=2) as (
            plugin,
            held,
        ),
    ):
        name, inputs = queued_tpu(plugin)
        call = plugin.background(plugin.create, TPU, name, inputs)
        held()
        tpu = emu["tpu"]
        queued = tpu.queued_resource(PROJECT, TPU_ZONE, QR)
        assert queued is not None and queued["state"]["state"] == "WAITING_FOR_RESOURCES"
        _interrupt(plugin, how)
        if how == "cancel":
            with pytest.raises(ProviderCallError) as info:
                call.result(timeout=60)
            assert "still queued" in info.value.message
            assert "it was deleted" in info.value.message
        assert _deleted(emu, f"/queuedResources/{QR}"), "the queued request was not deleted"
        emu.clock.advance(600)  # a delete in flight finishes
        assert tpu.queued_resources() == []


# ---------------------------------------------------------------------- MigResizeRequest
MIG = "dws:dynamic:MigResizeRequest"


def resize_request(plugin: ComponentProviderHost, emu: Emulator) -> tuple[str, dict[str, Any]]:
    """A ``FlexStartGroup`` of 2 VMs for a day built through ``Construct``: its resize request
    (name and inputs); its group (pulumi-gcp's) made in the emulator."""
    with plugin.deployment(mocks=GcpMocks(project=PROJECT)) as deployment:
        deployment.construct(
            "dws:index:FlexStartGroup",
            "g",
            {"zone": ZONE, "machineType": MACHINE, "count": 2, "runDuration": "1d"},
        )
    name, inputs = served(deployment, MIG)
    flex_start_group(emu, inputs["group"], project=PROJECT, zone=ZONE)
    return name, inputs


@pytest.mark.parametrize("how", ["cancel", "engine-close", "sigterm"])
def test_a_served_resize_request_interrupted_while_accepted_is_cancelled_and_deleted(
    how: str,
) -> None:
    """A FlexStartGroup's resize request, served to another language, accepted and waiting for
    capacity: whatever interrupts the wait, the request is cancelled and deleted (nothing runs
    yet: only its place in the queue is lost) before the plugin is gone, and no VM is left."""
    with (
        Emulator() as emu,
        _held(emu, _resource_poll("/resizeRequests/g-f177ed"), skip=2) as (
            plugin,
            held,
        ),
    ):
        name, inputs = resize_request(plugin, emu)
        call = plugin.background(plugin.create, MIG, name, inputs)
        held()
        compute = emu["compute"]
        assert [r["state"] for r in compute.resize_requests()] == ["ACCEPTED"]
        _interrupt(plugin, how)
        if how == "cancel":
            with pytest.raises(ProviderCallError) as info:
                call.result(timeout=60)
            assert "cancelled and deleted" in info.value.message
            assert "Traceback" not in info.value.message
        assert compute.resize_requests() == [] and compute.instances() == []


# ---------------------------------------------------------------------- jobs
JOBS = {
    # component: (its served resource, the wait's poll, how many the emulator holds)
    "VertexTrainingJob": (
        "dws:dynamic:VertexCustomJob",
        lambda method, path: method == "GET" and "/customJobs/" in path,
        lambda emu: len(emu["aiplatform"].custom_jobs()),
    ),
    "BatchFlexJob": (
        "dws:dynamic:BatchJob",
        lambda method, path: method == "GET" and "/jobs/" in path,
        lambda emu: len(emu["batch"].jobs()),
    ),
}


@pytest.mark.parametrize("how", ["cancel", "engine-close", "sigterm"])
@pytest.mark.parametrize("component", sorted(JOBS))
def test_a_served_job_interrupted_while_queued_is_removed(component: str, how: str) -> None:
    """A Vertex AI training job or a Batch job, served to another language, queued for
    capacity: whatever interrupts the wait, the job is cancelled and deleted before the plugin
    is gone, and the create says so when it can still answer."""
    type_, poll, held_count = JOBS[component]
    with Emulator() as emu, _held(emu, poll, skip=1) as (plugin, held):
        with plugin.deployment(mocks=GcpMocks(project=PROJECT)) as deployment:
            kind = component_kinds()[f"dws:index:{component}"]
            args = COMPONENT_ARGS[component]
            deployment.construct(f"dws:index:{component}", "job", schema_inputs(kind, args))
        name, inputs = served(deployment, type_)
        call = plugin.background(plugin.create, type_, name, inputs)
        held()
        assert held_count(emu) == 1  # queued, waiting for capacity
        _interrupt(plugin, how)
        if how == "cancel":
            with pytest.raises(ProviderCallError) as info:
                call.result(timeout=60)
            assert "still queued" in info.value.message
            assert "Traceback" not in info.value.message
        emu.clock.advance(3600)  # a cancel or delete in flight finishes
        assert held_count(emu) == 0


def test_a_plugin_with_nothing_in_flight_answers_cancel_and_exits_on_sigterm_at_once() -> None:
    """The close that ends every run: nothing waits, so ``Cancel`` answers and SIGTERM ends
    the plugin without the clean-ups' grace."""
    with Emulator() as emu, _held(emu, _operation_poll) as (plugin, _):
        plugin.cancel(5.0)
        plugin.signal(signal.SIGTERM)
        assert plugin.wait_exit(ENGINE_GRACE) == 0
