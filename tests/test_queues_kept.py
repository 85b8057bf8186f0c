"""Queues that are kept, through Pulumi's real dynamic-provider host against the emulator on its
virtual clock: every provider that waits in a DWS queue (MigResizeRequest, QueuedTpu,
FlexStartVm inside its own window, VertexCustomJob, FlexStartDeployedModel, BatchJob) waits up
to ``waitTimeout``; when it passes with the request still queued, by default the create
succeeds with the request's true state, a warning says so (on the host's stderr, which the
engine shows, and in ``observed.note``), nothing is cancelled, and a read (``pulumi refresh``)
follows it once capacity comes. ``onTimeout: cancel`` restores cancel-and-delete. No capacity
ever comes during the wait: the emulator is given none until the create returned."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
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

ZONE, MACHINE, REGION = "us-central1-a", "a3-highgpu-8g", "us-central1"
WAIT = 3600  # the waitTimeout every case sets (shorter than each queue window)


@dataclass(frozen=True)
class Queue:
    """One provider that waits in a DWS queue: how to make it (``provider``, ``urn``,
    ``inputs``, after ``setup`` of the emulator), the state it reads while queued, where
    ``state`` is in its outputs, how to give it capacity, and whether the emulator still holds
    it."""

    name: str
    provider: Callable[[], Any]
    urn: str
    inputs: Callable[[], dict[str, Any]]
    setup: Callable[[Emulator], None]
    queued: str
    capacity: Callable[[Emulator], None]
    ready: str
    held: Callable[[Emulator], bool]
    state_key: str = "state"


def _mig_setup(emu: Emulator) -> None:
    flex_start_group(emu, "g", project="p", zone=ZONE)


def _deployment_setup(emu: Emulator) -> None:
    emu["aiplatform"].add_endpoint("my-project", REGION, ENDPOINT_ID)


def _job_inputs() -> dict[str, Any]:
    inputs = custom_job_props()
    inputs["body"]["jobSpec"]["scheduling"]["maxWaitDuration"] = "7200s"
    return inputs


def _batch_job_held(emu: Emulator) -> bool:
    return bool(emu["batch"].jobs())


QUEUES = [
    Queue(
        "MigResizeRequest",
        MigResizeRequestProvider,
        urn("pulumi-python:dynamic/dws:MigResizeRequest", "g-request", project="p"),
        lambda: mig_resize_props("rr", "g"),
        _mig_setup,
        "ACCEPTED",
        lambda emu: emu["compute"].add_capacity(ZONE, MACHINE, 4),
        "SUCCEEDED",
        lambda emu: bool(emu["compute"].resize_requests()),
    ),
    Queue(
        "QueuedTpu",
        QueuedTpuProvider,
        urn("pulumi-python:dynamic/dws:QueuedTpu", "q-queued-resource", project="tpu"),
        tpu_inputs,
        lambda emu: None,
        "WAITING_FOR_RESOURCES",
        lambda emu: emu["tpu"].add_chips(TPU_ZONE, "v6e", 16),
        "ACTIVE",
        lambda emu: emu["tpu"].queued_resource("p", TPU_ZONE, QR) is not None,
    ),
    Queue(
        "FlexStartVm",
        FlexStartVmProvider,
        urn("pulumi-python:dynamic/dws:FlexStartVm", "trainer-vm"),
        vm_inputs,  # a 2-hour queue window: the wait ends inside it
        lambda emu: None,
        "PENDING",
        lambda emu: emu["compute"].add_capacity(ZONE, MACHINE, 1),
        "RUNNING",
        lambda emu: bool(emu["compute"].instances()),
        state_key="status",
    ),
    Queue(
        "VertexCustomJob",
        VertexCustomJobProvider,
        urn(CUSTOM_JOB, "finetune-job", parent_type="dws:index:VertexTrainingJob"),
        _job_inputs,
        lambda emu: None,
        "JOB_STATE_QUEUED",
        lambda emu: emu["aiplatform"].add_capacity(REGION, MACHINE, 4),
        "JOB_STATE_RUNNING",
        lambda emu: bool(emu["aiplatform"].custom_jobs()),
    ),
    Queue(
        "FlexStartDeployedModel",
        FlexStartDeployedModelProvider,
        urn(DEPLOYED_MODEL, "llm-deployment", parent_type="dws:index:FlexStartDeployment"),
        deployed_model_props,
        _deployment_setup,
        "DEPLOYING",
        lambda emu: emu["aiplatform"].add_capacity(REGION, "g2-standard-24", 1),
        "DEPLOYED",
        lambda emu: bool(emu["aiplatform"].deployments()),
    ),
    Queue(
        "BatchJob",
        BatchJobProvider,
        urn(BATCH_JOB, "render-job", parent_type="dws:index:BatchFlexJob"),
        batch_job_props,
        lambda emu: None,
        "QUEUED",
        lambda emu: emu["batch"].add_capacity(ZONE, MACHINE, 2),
        "RUNNING",
        _batch_job_held,
    ),
]


@pytest.fixture(params=QUEUES, ids=lambda queue: queue.name)
def queue(request: pytest.FixtureRequest) -> Queue:
    return request.param  # type: ignore[no-any-return]


@pytest.fixture
def world(queue: Queue) -> Iterator[tuple[Emulator, DynamicProviderHost]]:
    with Emulator() as emu:
        env = {
            "DWS_COMPUTE_ENDPOINT": emu.url,
            "DWS_TPU_ENDPOINT": emu.url,
            "DWS_AIPLATFORM_ENDPOINT": emu.url,
            "DWS_BATCH_ENDPOINT": emu.url,
            "DWS_VIRTUAL_CLOCK_URL": emu.clock_url,
        }
        queue.setup(emu)
        with DynamicProviderHost(queue.provider(), env=env) as host:
            yield emu, host


def _undone(emu: Emulator) -> list[str]:
    """Requests that would cost a place in the queue: deletes, cancels, undeploys."""
    return [
        f"{r.method} {r.path}"
        for r in emu.requests
        if r.method == "DELETE" or r.path.endswith((":cancel", "/cancel", ":undeployModel"))
    ]


def test_still_queued_when_the_wait_timeout_passes_is_kept_warned_and_followed(
    queue: Queue, world: tuple[Emulator, DynamicProviderHost]
) -> None:
    emu, host = world
    start = emu.clock.now()
    rid, outs = host.create(queue.urn, {**queue.inputs(), "waitTimeout": WAIT})
    assert (emu.clock.now() - start).total_seconds() >= WAIT  # it waited the whole timeout
    assert outs[queue.state_key] == queue.queued  # its true state: still queued
    note = outs["observed"]["note"]
    assert "kept" in note and "on_timeout='cancel'" in note and "pulumi refresh" in note
    assert host.wait_for_stderr(note)  # the warning the engine shows
    assert _undone(emu) == [] and queue.held(emu)  # its place in the queue is kept
    queue.capacity(emu)
    emu.clock.advance(3600)
    read_id, read_outs, _ = host.read(queue.urn, rid, outs)  # `pulumi refresh`
    assert read_id == rid and read_outs[queue.state_key] == queue.ready
    host.delete(queue.urn, rid, read_outs)
    assert not queue.held(emu)


def test_on_timeout_cancel_removes_what_is_still_queued_and_says_so(
    queue: Queue, world: tuple[Emulator, DynamicProviderHost]
) -> None:
    emu, host = world
    with pytest.raises(DynamicProviderError) as info:
        host.create(queue.urn, {**queue.inputs(), "waitTimeout": WAIT, "onTimeout": "cancel"})
    assert info.value.method == "Create"
    assert f"still {queue.queued}" in info.value.message
    assert "left behind" in info.value.message
    assert not queue.held(emu) and _undone(emu) != []
