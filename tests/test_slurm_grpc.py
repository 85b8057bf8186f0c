"""The Slurm cluster provider through Pulumi's own dynamic-provider host (``python -m
pulumi.dynamic``) over gRPC, as ``pulumi up`` drives it, against the emulator.

The endpoint comes from stack config (``dws:aiplatformEndpoint``) through ``Configure``; the host
process advances the emulator's virtual clock instead of sleeping (``DWS_VIRTUAL_CLOCK_URL``).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator

import pytest
from slurm_helpers import ID, PROJECT, REGION, ZONE, aiplatform_emulator, fresh, seed_body
from slurm_helpers import cluster_inputs as inputs

from pulumi_dws.kinds.slurm.provider import SlurmClusterProvider
from pulumi_dws.testing.dynamic_host import (
    DynamicProviderError,
    DynamicProviderHost,
    serialized_provider_size,
    urn,
)
from pulumi_dws.testing.emulator import Emulator, FaultPlan
from pulumi_dws.testing.emulator.aiplatform import AiPlatformService

TYPE = "pulumi-python:dynamic/dws:SlurmCluster"
URN = urn(
    TYPE, "flexvm-cluster", project="slurm-flex", stack="dev", parent_type="dws:index:SlurmCluster"
)


@pytest.fixture(scope="module")
def emulator() -> Iterator[Emulator]:
    with aiplatform_emulator() as emu:
        yield emu


@pytest.fixture(scope="module")
def host(emulator: Emulator) -> Iterator[DynamicProviderHost]:
    env = {"DWS_VIRTUAL_CLOCK_URL": emulator.clock_url}
    assert "DWS_AIPLATFORM_ENDPOINT" not in os.environ
    with DynamicProviderHost(
        SlurmClusterProvider(),
        project="slurm-flex",
        stack="dev",
        config={"dws:aiplatformEndpoint": emulator.url, "gcp:project": PROJECT},
        env=env,
    ) as h:
        h.configure()
        yield h


@pytest.fixture
def emu(emulator: Emulator) -> Emulator:
    return fresh(emulator)


def test_lifecycle_over_grpc(host: DynamicProviderHost, emu: Emulator) -> None:
    svc: AiPlatformService = emu["aiplatform"]
    checked, failures = host.check(URN, {}, inputs())
    assert failures == []

    rid, outs = host.create(URN, checked)
    assert rid == ID
    assert outs["state"] == "RUNNING"
    assert outs["login_address"] == f"flexvm-login-0.{ZONE}.c.{PROJECT}.internal"
    [post] = [r for r in emu.requests if r.method == "POST" and r.path.endswith("Clusters")]
    # Struct numbers travel as doubles; the provider still sends the seed's JSON exactly (with
    # the ownership label it adds).
    sent = dict(post.body)
    assert set(sent.pop("labels")) == {"dws-create"}
    assert json.dumps(sent, sort_keys=True) == json.dumps(seed_body(), sort_keys=True)
    assert post.query == {"model_development_cluster_id": "flexvm"}

    same = host.diff(URN, rid, outs, inputs())
    assert same.changes == "none"

    bigger = seed_body()
    bigger["node_pools"][1]["scaling_spec"]["max_node_count"] = 4
    grow = host.diff(URN, rid, outs, inputs(bigger))
    assert grow.changes == "some" and grow.replaces == []
    outs = host.update(URN, rid, outs, inputs(bigger))
    assert outs["state"] == "RUNNING"
    live = svc.cluster(PROJECT, REGION, "flexvm")
    assert live is not None and live["nodePools"][1]["scalingSpec"]["maxNodeCount"] == 4

    other = seed_body()
    other["node_pools"][1]["machine_spec"]["machine_type"] = "a3-megagpu-8g"
    swap = host.diff(URN, rid, outs, inputs(other))
    assert swap.replaces == ["body.node_pools[1].machine_spec"]
    assert swap.delete_before_replace is True

    read_id, read_outs, _ = host.read(URN, rid, outs)
    assert read_id == rid and read_outs["drift"] == []

    host.delete(URN, rid, outs)
    assert svc.cluster(PROJECT, REGION, "flexvm") is None
    gone_id, gone_outs, _ = host.read(URN, rid, outs)
    assert gone_id == "" and gone_outs == {}


def test_lro_failure_over_grpc(host: DynamicProviderHost, emu: Emulator) -> None:
    emu["aiplatform"].fail_next("create")
    with pytest.raises(DynamicProviderError) as info:
        host.create(URN, inputs())
    assert info.value.method == "Create"
    assert info.value.exception_type is not None
    assert info.value.exception_type.endswith("SlurmClusterError")
    assert "RESOURCE_EXHAUSTED" in info.value.message
    assert "nothing is left behind" in info.value.message
    assert emu["aiplatform"].cluster(PROJECT, REGION, "flexvm") is None


def test_drift_and_external_deletion_over_grpc(host: DynamicProviderHost, emu: Emulator) -> None:
    svc: AiPlatformService = emu["aiplatform"]
    rid, outs = host.create(URN, inputs())
    svc.mutate(PROJECT, REGION, "flexvm", lambda c: c.update(displayName="console-edit"))
    read_id, drifted, _ = host.read(URN, rid, outs)
    assert read_id == rid
    assert drifted["drift"] == ["display_name"]
    assert drifted["body"]["display_name"] == "console-edit"
    repair = host.diff(URN, rid, drifted, inputs())
    assert repair.changes == "some" and repair.replaces == []
    svc.remove(PROJECT, REGION, "flexvm")
    gone_id, _, _ = host.read(URN, rid, drifted)
    assert gone_id == ""


def test_retries_inside_the_host(host: DynamicProviderHost, emu: Emulator) -> None:
    emu.faults = FaultPlan(queue=["503", "429", "drop"], retry_after=5)
    rid, outs = host.create(URN, inputs())
    assert outs["state"] == "RUNNING" and emu.faults.counts == {"503": 1, "429": 1, "drop": 1}
    host.delete(URN, rid, outs)


def test_check_reports_bad_inputs(host: DynamicProviderHost) -> None:
    _, failures = host.check(URN, {}, {**inputs(), "cluster_id": "flex-vm"})
    assert [f.property for f in failures] == ["cluster_id"]


def test_serialized_provider_is_small() -> None:
    assert serialized_provider_size(SlurmClusterProvider()) < 1500
