"""KueueQueue on a TPU pool: google.com/tpu managed, quota in chips, the slice's labels and the
TPU taint tolerated; every object valid against both Kueue CRD versions."""

from __future__ import annotations

from typing import Any

import pytest
from kueue_helpers import validate

from pulumi_dws.errors import DwsValidationError
from pulumi_dws.kinds.kueue.component import KueueQueue, kueue_job, kueue_manifests
from pulumi_dws.kinds.node_pool.component import QueuedNodePool
from pulumi_dws.testing import GcpMocks

TPU_POOL: dict[str, Any] = {
    "cluster": "ml-cluster",
    "location": "us-east5",
    "node_locations": ["us-east5-b"],
    "machine_type": "ct6e-standard-4t",
    "tpu_topology": "4x4",
}


def build(
    queue_args: dict[str, Any] | None = None, pool: dict[str, Any] | None = None
) -> tuple[GcpMocks, dict[str, Any]]:
    mocks = GcpMocks()
    made: dict[str, Any] = {}

    def program() -> None:
        made["pool"] = QueuedNodePool("v6e-queued", {**TPU_POOL, **(pool or {})})
        args = {"node_pool": made["pool"], "namespaces": ["default"], **(queue_args or {})}
        made["queue"] = KueueQueue("tpu", args)

    mocks.run(program)
    return mocks, made


def spec_of(mocks: GcpMocks, kind: str, version: str = "v1beta2") -> dict[str, Any]:
    found = mocks.resources(f"kubernetes:kueue.x-k8s.io/{version}:{kind}")
    assert len(found) == 1, kind
    spec: dict[str, Any] = found[0].inputs["spec"]
    return spec


@pytest.mark.parametrize("api_version", ["v1beta2", "v1beta1"])
def test_a_queued_tpu_pool_gets_a_queue_for_its_chips(api_version: str) -> None:
    mocks, made = build({"api_version": api_version})
    flavor = spec_of(mocks, "ResourceFlavor", api_version)
    assert flavor["nodeLabels"] == {
        "cloud.google.com/gke-nodepool": "v6e-queued",
        "cloud.google.com/gke-tpu-accelerator": "tpu-v6e-slice",
        "cloud.google.com/gke-tpu-topology": "4x4",
    }
    assert flavor["tolerations"] == [
        {"key": "google.com/tpu", "operator": "Exists", "effect": "NoSchedule"},
        {"key": "cloud.google.com/gke-queued", "operator": "Exists", "effect": "NoSchedule"},
    ]
    config = spec_of(mocks, "ProvisioningRequestConfig", api_version)
    assert config["managedResources"] == ["google.com/tpu"]
    queue = spec_of(mocks, "ClusterQueue", api_version)
    group = queue["resourceGroups"][0]
    assert "google.com/tpu" in group["coveredResources"]
    assert "nvidia.com/gpu" not in group["coveredResources"]
    quotas = {r["name"]: r["nominalQuota"] for r in group["flavors"][0]["resources"]}
    assert quotas["google.com/tpu"] == 16  # one 4x4 slice: 4 VMs x 4 chips
    for resource in mocks.resources():
        if resource.type.startswith("kubernetes:kueue.x-k8s.io/"):
            validate({k: v for k, v in resource.inputs.items() if k != "__provider"})
    assert made["queue"].spec.resource == "google.com/tpu"


def test_a_flex_start_tpu_pool_tolerates_only_the_tpu_taint() -> None:
    mocks, _ = build(pool={"mode": "flex_start"})
    flavor = spec_of(mocks, "ResourceFlavor")
    assert flavor["tolerations"] == [
        {"key": "google.com/tpu", "operator": "Exists", "effect": "NoSchedule"}
    ]
    assert mocks.resources("kubernetes:kueue.x-k8s.io/v1beta2:ProvisioningRequestConfig") == []


@pytest.mark.parametrize("api_version", ["v1beta2", "v1beta1"])
def test_manifests_for_a_tpu_pool_by_name(api_version: str) -> None:
    objs = kueue_manifests(
        "v6e-queued", ["default"], tpu_quota=32, api_version=api_version, max_run_duration="1d"
    )
    for obj in objs:
        validate(obj)
    queue = next(o for o in objs if o["kind"] == "ClusterQueue")
    quotas = {
        r["name"]: r["nominalQuota"]
        for r in queue["spec"]["resourceGroups"][0]["flavors"][0]["resources"]
    }
    assert quotas["google.com/tpu"] == 32
    flavor = next(o for o in objs if o["kind"] == "ResourceFlavor")
    assert flavor["spec"]["nodeLabels"] == {"cloud.google.com/gke-nodepool": "v6e-queued"}


def test_the_tpu_schema_check_can_fail() -> None:
    objs = kueue_manifests("v6e-queued", ["default"], tpu_quota=16)
    flavor = next(o for o in objs if o["kind"] == "ResourceFlavor")
    flavor["spec"]["tolerations"] = [dict(flavor["spec"]["tolerations"][0])] * 9  # at most 8
    with pytest.raises(AssertionError, match="tolerations"):
        validate(flavor)


@pytest.mark.parametrize(
    ("queue_args", "field", "fragment"),
    [
        ({"gpu_quota": 8}, "gpu_quota", "the pool has TPUs"),
        ({"tpu_quota": 0}, "tpu_quota", "whole number of TPU chips"),
    ],
)
def test_quota_rejections_name_the_field(
    queue_args: dict[str, Any], field: str, fragment: str
) -> None:
    with pytest.raises(DwsValidationError) as info:
        build(queue_args)
    assert info.value.field == field and fragment in str(info.value)


def test_a_tpu_quota_on_a_gpu_pool_is_refused() -> None:
    with pytest.raises(DwsValidationError, match="^tpu_quota: 16 .*the pool has GPUs"):
        build(
            {"tpu_quota": 16},
            pool={"machine_type": "a3-highgpu-8g", "tpu_topology": None, "max_nodes": 2},
        )
    with pytest.raises(DwsValidationError, match="^tpu_quota: .*give gpu_quota .* or tpu_quota"):
        kueue_manifests("p", ["default"], 8, tpu_quota=16)


def test_a_job_on_a_tpu_slice_runs_a_pod_per_vm_with_all_its_chips() -> None:
    _, made = build()
    job = kueue_job("train", queue=made["queue"], image="jax:latest", tpu_chips=4)
    container = job["spec"]["template"]["spec"]["containers"][0]
    assert container["resources"] == {
        "requests": {"google.com/tpu": 4},
        "limits": {"google.com/tpu": 4},
    }
    assert job["spec"]["parallelism"] == job["spec"]["completions"] == 4
    assert job["metadata"]["labels"] == {"kueue.x-k8s.io/queue-name": "tpu-local-queue"}
    with pytest.raises(DwsValidationError, match="^tpu_chips: 8 must be 4, the chips of one"):
        kueue_job("train", queue=made["queue"], image="jax:latest", tpu_chips=8)
    with pytest.raises(DwsValidationError, match="^gpus: 8 does not fit the queue, .*TPU chips"):
        kueue_job("train", queue=made["queue"], image="jax:latest", gpus=8)
    with pytest.raises(DwsValidationError, match="^gpus: .*one of them"):
        kueue_job("train", queue="q", image="jax:latest")
    by_name = kueue_job("train", queue="q", image="jax:latest", tpu_chips=4, parallelism=4)
    assert by_name["spec"]["template"]["spec"]["containers"][0]["resources"]["limits"] == {
        "google.com/tpu": 4
    }


BLUEPRINT: dict[str, Any] = {
    "queued_node_pools": [{"name": "v6e-queued", **TPU_POOL}],
    "kueue_queues": [
        {
            "name": "tpu",
            "node_pool": "v6e-queued",
            "tpu_quota": 16,
            "namespaces": ["default"],
            "cluster": "ml-cluster",
            "location": "us-east5",
        }
    ],
}


def test_the_blueprint_deploys_a_tpu_pool_and_its_queue() -> None:
    from pulumi_dws.blueprint import deploy

    mocks = GcpMocks()
    assert mocks.run(lambda: sorted(deploy(BLUEPRINT))) == [
        "kueue_queues/tpu",
        "queued_node_pools/v6e-queued",
    ]
    assert mocks.one("gcp:container/nodePool:NodePool").inputs["placementPolicy"] == {
        "type": "COMPACT",
        "tpuTopology": "4x4",
    }
    quotas = spec_of(mocks, "ClusterQueue")["resourceGroups"][0]["flavors"][0]["resources"]
    assert {r["name"]: r["nominalQuota"] for r in quotas}["google.com/tpu"] == 16


def test_the_blueprint_refuses_a_gpu_quota_for_a_tpu_pool() -> None:
    from pulumi_dws.blueprint import validate_capacity

    queue = {**BLUEPRINT["kueue_queues"][0], "gpu_quota": 16}
    queue.pop("tpu_quota")
    with pytest.raises(DwsValidationError) as info:
        validate_capacity({**BLUEPRINT, "kueue_queues": [queue]})
    assert info.value.field == "dws:capacity.kueue_queues[0].gpu_quota"
    assert "which has TPUs; give tpu_quota" in str(info.value)


def test_the_tpu_stack_plans_offline() -> None:
    from pathlib import Path

    from pulumi_dws.plan.policy import apply_policies
    from pulumi_dws.plan.runner import run_plan

    stack = Path(__file__).resolve().parent.parent / "stacks" / "tpu-dws"
    plan = run_plan(stack, "dev")
    pool = next(r for r in plan.resources if r.type == "gcp:container/nodePool:NodePool")
    assert pool.inputs["placementPolicy"] == {"type": "COMPACT", "tpuTopology": "4x4"}
    assert pool.inputs["autoscaling"]["maxNodeCount"] == 4
    assert pool.inputs["queuedProvisioning"] == {"enabled": True}
    assert (plan.outputs["tpuChipsTotal"], plan.outputs["tpuTopology"]) == (16, "4x4")
    job = plan.outputs["exampleJob"]
    assert job["spec"]["parallelism"] == 4
    limits = job["spec"]["template"]["spec"]["containers"][0]["resources"]["limits"]
    assert limits == {"google.com/tpu": 4}
    for r in plan.registered:
        if r.type.startswith("kubernetes:kueue"):
            validate({k: v for k, v in r.inputs.items() if k != "__provider"})
    report = apply_policies(plan)
    assert [(v.rule, v.level) for v in report.violations] == [
        ("gke-tpu-queued-flex-start", "advisory")
    ]
    # The pool's slice (its nodes' 7-day limit) and the Flex-start queued v6e-16 for a day.
    assert report.summary["tpu_chips_by_type"] == {"v6e": 32} and report.summary["gpus"] == 0
    assert report.summary["tpu_chip_hours"] == 16 * 168 + 16 * 24
    queued = next(r for r in plan.resources if r.type == "pulumi-python:dynamic/dws:QueuedTpu")
    assert queued.inputs["body"]["provisioningModel"] == "FLEX_START"
    assert queued.inputs["body"]["runDuration"] == {"maxRunDuration": "86400s"}
    assert queued.inputs["zone"] == "us-east5-a"
