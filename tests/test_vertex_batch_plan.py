"""``VertexTrainingJob``, ``FlexStartDeployment`` and ``BatchFlexJob`` in ``dws plan``, the
blueprint and the GPU budget: their rows with GPUs and GPU-hours, their ``dws:capacity`` keys,
and the stack budget counting them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from component_helpers import stack_default

from pulumi_dws import BatchFlexJob, FlexStartDeployment, VertexTrainingJob
from pulumi_dws.blueprint import deploy
from pulumi_dws.cli import main
from pulumi_dws.errors import DwsValidationError
from pulumi_dws.kinds.batch.testing import COMPONENT_ARGS as BATCH_ARGS
from pulumi_dws.kinds.vertex_deployment.testing import COMPONENT_ARGS as DEPLOY_ARGS
from pulumi_dws.kinds.vertex_training.testing import COMPONENT_ARGS as TRAIN_ARGS
from pulumi_dws.policy import ResourceView
from pulumi_dws.policy.pack import policies
from pulumi_dws.testing import GcpMocks
from pulumi_dws.testing.policy import find_policy, validate_stack

REPO = Path(__file__).resolve().parents[1]


def plan(project: str, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    assert main(["plan", str(REPO / project), "--format", "json"]) == 0
    doc: dict[str, Any] = json.loads(capsys.readouterr().out)
    return doc


def row(doc: dict[str, Any], type_token: str) -> dict[str, Any]:
    [found] = [r for r in doc["resources"] if r["type"] == type_token]
    props: dict[str, Any] = found["properties"]
    return props


def test_the_vertex_stack_plans_the_job_and_the_deployment_with_their_gpu_hours(
    capsys: pytest.CaptureFixture[str],
) -> None:
    doc = plan("stacks/vertex-dws", capsys)
    job = row(doc, "pulumi-python:dynamic/dws:VertexCustomJob")
    assert job["strategy"] == "FLEX_START" and job["max_wait"] == "6h"
    assert (job["replicas"], job["gpus"], job["gpu_hours"]) == (3, 24, 24 * 48)
    served = row(doc, "pulumi-python:dynamic/dws:FlexStartDeployedModel")
    assert (served["gpus"], served["gpu_hours"]) == (4, 4 * 72)  # 2 replicas x 2 L4s, 3 days
    capacity = doc["capacity"]
    assert capacity["gpus_by_type"] == {"nvidia-h100-80gb": 24, "nvidia-l4": 4}
    assert capacity["gpu_hours"] == 24 * 48 + 4 * 72 and capacity["unbounded"] == []
    assert doc["policy"]["violations"] == []


def test_the_batch_stack_counts_the_vms_at_a_time_for_every_wave(
    capsys: pytest.CaptureFixture[str],
) -> None:
    doc = plan("stacks/batch-dws", capsys)
    job = row(doc, "pulumi-python:dynamic/dws:BatchJob")
    assert job["provisioning_model"] == "FLEX_START" and (job["tasks"], job["vms"]) == (8, 2)
    assert (job["gpus"], job["gpu_hours"]) == (16, 16 * 24)  # 4 waves of 6 hours
    assert doc["policy"]["violations"] == []


def test_each_kind_is_declared_under_its_blueprint_key() -> None:
    mocks = GcpMocks(project="my-project")
    capacity = {
        "vertex_training_jobs": [{"name": "finetune", **TRAIN_ARGS}],
        "flex_start_deployments": [{"name": "llm", **DEPLOY_ARGS}],
        "batch_flex_jobs": [{"name": "render", **BATCH_ARGS}],
    }
    built = mocks.run(lambda: deploy(capacity))
    assert sorted(built) == [
        "batch_flex_jobs/render",
        "flex_start_deployments/llm",
        "vertex_training_jobs/finetune",
    ]
    assert mocks.one("pulumi-python:dynamic/dws:BatchJob").inputs["jobId"] == stack_default(
        "render"
    )
    bad = {"vertex_training_jobs": [{"name": "t", **TRAIN_ARGS, "max_run_duration": "8d"}]}
    with pytest.raises(DwsValidationError, match=r"vertex_training_jobs\[0\].max_run_duration"):
        GcpMocks().run(lambda: deploy(bad))


def test_the_gpu_budget_counts_all_three() -> None:
    mocks = GcpMocks(project="my-project")

    def program() -> None:
        VertexTrainingJob("finetune", TRAIN_ARGS)  # type: ignore[arg-type]
        FlexStartDeployment("llm", DEPLOY_ARGS)  # type: ignore[arg-type]
        BatchFlexJob("render", BATCH_ARGS)  # type: ignore[arg-type]

    mocks.run(program)
    views = [ResourceView.from_registered(r) for r in mocks.registered if r.custom]
    budget = find_policy("gpu-budget", policies())
    gpus = 32 + 4 + 16  # 4 x 8 H100s, 2 x 2 L4s, 2 VMs x 8 H100s at a time
    hours = 32 * 48 + 4 * 72 + 16 * 24
    assert validate_stack(budget, views, config={"maxGpus": gpus, "maxGpuHours": hours}) == []
    over = validate_stack(budget, views, config={"maxGpus": gpus - 1})
    assert len(over) == 1 and f"asks for {gpus} GPUs" in over[0].detail
    over = validate_stack(budget, views, config={"maxGpuHours": hours - 1})
    assert len(over) == 1


def test_a_deployment_of_fewer_gpus_than_its_machine_counts_the_vms_it_holds() -> None:
    """MachineSpec.acceleratorCount of a deployed model may be 1 to the machine's N GPUs; at N/2
    or fewer, Vertex AI puts N // count replicas on one VM (the discovery document): 4 replicas
    of 2 H100s are one a3-highgpu-8g, 8 GPUs held; 3 replicas of 5 are 3 VMs, 24 GPUs."""
    mocks = GcpMocks(project="my-project")
    args = {**DEPLOY_ARGS, "machine_type": "a3-highgpu-8g", "min_replicas": 1}

    def program() -> Any:
        small = FlexStartDeployment("small", {**args, "accelerator_count": 2, "max_replicas": 4})  # type: ignore[typeddict-item]
        big = FlexStartDeployment("big", {**args, "accelerator_count": 5, "max_replicas": 3})  # type: ignore[typeddict-item]
        return [small.gpus, big.gpus]

    assert mocks.run(program) == [8, 24]
    views = [ResourceView.from_registered(r) for r in mocks.registered if r.custom]
    sent = [v.props["body"]["deployedModel"]["dedicatedResources"]["machineSpec"] for v in views]
    assert sorted(s["acceleratorCount"] for s in sent) == [2, 5]
    budget = find_policy("gpu-budget", policies())
    over = validate_stack(budget, views, config={"maxGpus": 31})
    assert len(over) == 1 and "asks for 32 GPUs" in over[0].detail
    assert validate_stack(budget, views, config={"maxGpus": 32}) == []
