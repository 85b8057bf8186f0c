"""The VertexCustomJob, FlexStartDeployedModel and BatchJob providers through Pulumi's own
dynamic-provider host (``python -m pulumi.dynamic``) over gRPC, as ``pulumi up`` drives them,
against the emulator. The endpoint comes from stack config (``dws:aiplatformEndpoint``,
``dws:batchEndpoint``) through ``Configure``, pointed at a fault proxy in front of the
emulator; the host's sleeps advance the emulator's virtual clock. Each provider's create is
damaged once before the API sees it and once after it acted: one resource either way."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from pulumi_dws.kinds.batch.provider import TYPE_TOKEN as BATCH_JOB
from pulumi_dws.kinds.batch.provider import BatchJobProvider
from pulumi_dws.kinds.batch.testing import batch_job_props
from pulumi_dws.kinds.vertex_deployment.provider import TYPE_TOKEN as DEPLOYED_MODEL
from pulumi_dws.kinds.vertex_deployment.provider import FlexStartDeployedModelProvider
from pulumi_dws.kinds.vertex_deployment.testing import ENDPOINT_ID, deployed_model_props
from pulumi_dws.kinds.vertex_training.provider import TYPE_TOKEN as CUSTOM_JOB
from pulumi_dws.kinds.vertex_training.provider import VertexCustomJobProvider
from pulumi_dws.kinds.vertex_training.testing import custom_job_props
from pulumi_dws.providers.lro import LroProvider
from pulumi_dws.testing.dynamic_host import DynamicProviderError, DynamicProviderHost, urn
from pulumi_dws.testing.emulator import Emulator
from pulumi_dws.testing.emulator.aiplatform import AiPlatformService
from pulumi_dws.testing.emulator.batch import BatchService
from pulumi_dws.testing.fault_proxy import FaultProxy, ProxyFaultPlan

REGION = "us-central1"


@dataclass(frozen=True)
class Door:
    """One provider as the engine drives it: its resource's URN and inputs, the config key of
    its endpoint, how to give the emulator capacity for it, what its create POSTs to, and how
    many of its resources the emulator made and holds."""

    name: str
    provider: Callable[[], LroProvider]
    urn: str
    inputs: Callable[[], dict[str, Any]]
    config_key: str
    capacity: Callable[[Emulator], None]
    create_path: str
    made: Callable[[Emulator], int]
    held: Callable[[Emulator], int]


def _vertex_capacity(machine: str, count: int) -> Callable[[Emulator], None]:
    def add(emu: Emulator) -> None:
        emu["aiplatform"].add_capacity(REGION, machine, count)

    return add


DOORS = [
    Door(
        "VertexCustomJob",
        VertexCustomJobProvider,
        urn(CUSTOM_JOB, "finetune-job", parent_type="dws:index:VertexTrainingJob"),
        custom_job_props,
        "dws:aiplatformEndpoint",
        _vertex_capacity("a3-highgpu-8g", 4),
        "/customJobs",
        lambda emu: len(emu["aiplatform"].jobs_created),
        lambda emu: len(emu["aiplatform"].custom_jobs()),
    ),
    Door(
        "FlexStartDeployedModel",
        FlexStartDeployedModelProvider,
        urn(DEPLOYED_MODEL, "llm-deployment", parent_type="dws:index:FlexStartDeployment"),
        deployed_model_props,
        "dws:aiplatformEndpoint",
        _vertex_capacity("g2-standard-24", 1),
        ":deployModel",
        lambda emu: len(emu["aiplatform"].deployments_started),
        lambda emu: len(emu["aiplatform"].deployments()),
    ),
    Door(
        "BatchJob",
        BatchJobProvider,
        urn(BATCH_JOB, "render-job", parent_type="dws:index:BatchFlexJob"),
        batch_job_props,
        "dws:batchEndpoint",
        lambda emu: emu["batch"].add_capacity("us-central1-a", "a3-highgpu-8g", 2),
        "/jobs",
        lambda emu: len(emu["batch"].created),
        lambda emu: len(emu["batch"].jobs()),
    ),
]


@pytest.fixture(scope="module")
def emulator() -> Iterator[Emulator]:
    with Emulator([]) as emu:
        emu.add(AiPlatformService(emu.clock))
        emu.add(BatchService(emu.clock))
        yield emu


@pytest.fixture(scope="module")
def proxy(emulator: Emulator) -> Iterator[FaultProxy]:
    with FaultProxy(emulator) as running:
        yield running


@pytest.fixture(scope="module", params=DOORS, ids=lambda door: door.name)
def door(request: pytest.FixtureRequest) -> Door:
    return request.param  # type: ignore[no-any-return]


@pytest.fixture(scope="module")
def host(emulator: Emulator, proxy: FaultProxy, door: Door) -> Iterator[DynamicProviderHost]:
    with DynamicProviderHost(
        door.provider(),
        config={door.config_key: proxy.url},
        env={"DWS_VIRTUAL_CLOCK_URL": emulator.clock_url, "DWS_HTTP_TIMEOUT": "1"},
    ) as running:
        running.configure()
        yield running


@pytest.fixture
def fresh(emulator: Emulator, proxy: FaultProxy) -> Iterator[Emulator]:
    emulator["aiplatform"].reset()
    emulator["aiplatform"].add_endpoint("my-project", REGION, ENDPOINT_ID)
    emulator["batch"].reset()
    proxy.plan = ProxyFaultPlan()
    yield emulator
    proxy.plan = ProxyFaultPlan()


def test_lifecycle_over_grpc(host: DynamicProviderHost, door: Door, fresh: Emulator) -> None:
    checked, failures = host.check(door.urn, {}, door.inputs())
    assert failures == []
    door.capacity(fresh)
    rid, outs = host.create(door.urn, checked)
    assert outs["state"] in ("JOB_STATE_RUNNING", "DEPLOYED", "RUNNING")
    assert host.diff(door.urn, rid, outs, door.inputs()).changes == "none"
    read_id, read_outs, _ = host.read(door.urn, rid, outs)
    assert read_id == rid and read_outs["state"] == outs["state"]
    host.delete(door.urn, rid, outs)
    assert door.held(fresh) == 0
    gone_id, _, _ = host.read(door.urn, rid, outs)
    assert gone_id == ""


def test_a_create_with_no_capacity_fails_cleanly_over_grpc(
    host: DynamicProviderHost, door: Door, fresh: Emulator
) -> None:
    inputs = door.inputs()
    if door.name == "VertexCustomJob":
        inputs["body"]["jobSpec"]["scheduling"]["maxWaitDuration"] = "3600s"
    if door.name == "BatchJob":
        inputs["onTimeout"] = "cancel"  # Batch has no queue window: the wait ends it here
    with pytest.raises(DynamicProviderError) as info:
        host.create(door.urn, inputs)
    assert info.value.method == "Create"
    assert "left behind" in info.value.message
    assert door.held(fresh) == 0


@pytest.mark.parametrize("fault", ["503", "drop", "lose", "truncated", "late"])
def test_a_create_damaged_before_or_after_the_act_makes_one_resource_over_grpc(
    host: DynamicProviderHost, door: Door, fresh: Emulator, proxy: FaultProxy, fault: str
) -> None:
    door.capacity(fresh)
    path = door.create_path
    proxy.plan = ProxyFaultPlan(
        match=lambda method, p: method == "POST" and p.endswith(path), queue=[fault]
    )
    rid, outs = host.create(door.urn, door.inputs())
    assert outs["state"] in ("JOB_STATE_RUNNING", "DEPLOYED", "RUNNING")
    assert door.made(fresh) == 1 and door.held(fresh) == 1
    proxy.plan = ProxyFaultPlan()
    host.delete(door.urn, rid, outs)
    assert door.held(fresh) == 0
