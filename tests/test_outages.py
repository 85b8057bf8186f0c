"""A 2-minute credential outage in the middle of a queue wait, through Pulumi's real
dynamic-provider host against the emulator, on its virtual clock (``Emulator.outage``: every API
request is answered ``401 UNAUTHENTICATED`` for 120 virtual seconds, from the fourth read of a
wait whose capacity comes after an hour). The outage is waited out: no queued request is
cancelled (its place in the queue is kept), and no create reports success for a resource that
is still waiting."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from emulator_helpers import host_inputs as vm_inputs
from queued_tpu_helpers import QR
from queued_tpu_helpers import ZONE as TPU_ZONE
from queued_tpu_helpers import props as tpu_inputs

from pulumi_dws.kinds.flex_group.provider import MigResizeRequestProvider
from pulumi_dws.kinds.flex_vm.provider import FlexStartVmProvider
from pulumi_dws.kinds.queued_tpu.provider import QueuedTpuProvider
from pulumi_dws.testing.clock_helpers import flex_start_group, mig_resize_props
from pulumi_dws.testing.dynamic_host import DynamicProviderHost, urn
from pulumi_dws.testing.emulator import Emulator, Request

PROJECT, ZONE, MACHINE = "p", "us-central1-a", "a3-highgpu-8g"
HOUR = 3600.0
OUTAGE = 120.0


def _into_the_wait(polls: int = 4) -> Any:
    """The outage's trigger: the ``polls``-th read (GET) of the wait."""
    seen = {"n": 0}

    def trigger(request: Request) -> bool:
        if request.method != "GET":
            return False
        seen["n"] += 1
        return seen["n"] >= polls

    return trigger


@pytest.fixture
def world() -> Iterator[tuple[Emulator, DynamicProviderHost]]:
    with Emulator() as emu:
        env = {
            "DWS_COMPUTE_ENDPOINT": emu.url,
            "DWS_TPU_ENDPOINT": emu.url,
            "DWS_VIRTUAL_CLOCK_URL": emu.clock_url,
        }
        with DynamicProviderHost(FlexStartVmProvider(), env=env) as host:
            yield emu, host


def _undone(emu: Emulator) -> list[str]:
    """Requests that would cost a place in the queue: deletes and cancels."""
    return [
        f"{r.method} {r.path}"
        for r in emu.requests
        if r.method == "DELETE" or r.path.endswith("/cancel")
    ]


def test_a_flex_start_vm_waits_out_a_credential_outage(
    world: tuple[Emulator, DynamicProviderHost],
) -> None:
    emu, host = world
    emu["compute"].add_capacity(ZONE, MACHINE, 1, after=HOUR)
    down = emu.outage(OUTAGE, trigger=_into_the_wait())
    _, outs = host.create(urn("pulumi-python:dynamic/dws:FlexStartVm", "vm"), vm_inputs())
    assert down.answered > 0  # the outage happened during the wait
    assert outs["status"] == "RUNNING"
    assert _undone(emu) == []


def test_a_resize_request_waits_out_a_credential_outage(
    world: tuple[Emulator, DynamicProviderHost],
) -> None:
    emu, host = world
    flex_start_group(emu, "g", project=PROJECT, zone=ZONE)
    emu["compute"].add_capacity(ZONE, MACHINE, 4, after=HOUR)
    down = emu.outage(OUTAGE, trigger=_into_the_wait())
    mig = urn("pulumi-python:dynamic/dws:MigResizeRequest", "g", project="p", stack="dev")
    _, outs = host.create(mig, mig_resize_props("rr", "g"), provider=MigResizeRequestProvider())
    assert down.answered > 0
    assert outs["state"] == "SUCCEEDED" and len(outs["observed"]["instances"]) == 4
    assert _undone(emu) == []


def test_a_queued_tpu_waiting_to_be_active_is_not_reported_active_during_an_outage(
    world: tuple[Emulator, DynamicProviderHost],
) -> None:
    """``waitFor: active``: the outage does not end the wait with a success while the slice
    still waits; the create returns once it is ACTIVE."""
    emu, host = world
    emu["tpu"].add_chips(TPU_ZONE, "v6e", 16, after=HOUR)
    down = emu.outage(OUTAGE, trigger=_into_the_wait())
    tpu = urn("pulumi-python:dynamic/dws:QueuedTpu", "q", project="tpu", stack="dev")
    _, outs = host.create(tpu, tpu_inputs(), provider=QueuedTpuProvider())
    assert down.answered > 0
    assert outs["state"] == "ACTIVE"
    assert outs["observed"].get("note") is None  # a plain success, not a kept wait
    assert _undone(emu) == [] and emu["tpu"].queued_resource("p", TPU_ZONE, QR) is not None
