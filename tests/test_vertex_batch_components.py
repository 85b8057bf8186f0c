"""``VertexTrainingJob``, ``FlexStartDeployment`` and ``BatchFlexJob`` under ``GcpMocks``: what
each registers (its dynamic resource's inputs, the bodies the providers send) and every bad
argument each refuses before anything is registered: one ``DwsValidationError`` naming the
field, the value and what is allowed."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pulumi
import pulumi_gcp as gcp
import pytest
from component_helpers import stack_default

from pulumi_dws import (
    BatchFlexJob,
    DwsValidationError,
    FlexStartDeployment,
    VertexTrainingJob,
)
from pulumi_dws.kinds.batch.testing import COMPONENT_ARGS as BATCH_ARGS
from pulumi_dws.kinds.batch.testing import batch_job_props
from pulumi_dws.kinds.vertex_deployment.testing import COMPONENT_ARGS as DEPLOY_ARGS
from pulumi_dws.kinds.vertex_training.testing import COMPONENT_ARGS as TRAIN_ARGS
from pulumi_dws.kinds.vertex_training.testing import custom_job_props
from pulumi_dws.providers.rest import wire
from pulumi_dws.testing import GcpMocks

CUSTOM_JOB = "pulumi-python:dynamic/dws:VertexCustomJob"
DEPLOYED_MODEL = "pulumi-python:dynamic/dws:FlexStartDeployedModel"
BATCH_JOB = "pulumi-python:dynamic/dws:BatchJob"


def _run(make: Callable[[], Any]) -> GcpMocks:
    mocks = GcpMocks(project="my-project")
    mocks.run(make)
    return mocks


def refused(make: Callable[[], Any]) -> DwsValidationError:
    mocks = GcpMocks(project="my-project")
    with pytest.raises(DwsValidationError) as info:
        mocks.run(make)
    assert [r for r in mocks.registered if r.custom] == []
    return info.value


def train(**over: Any) -> dict[str, Any]:
    return {**TRAIN_ARGS, "labels": {"team": "ml"}, **over}


def deploy(**over: Any) -> dict[str, Any]:
    return {**DEPLOY_ARGS, **over}


def batch(**over: Any) -> dict[str, Any]:
    return {**BATCH_ARGS, "labels": {"team": "ml"}, **over}


# ---------------------------------------------------------------------- what they register
def test_a_training_job_registers_the_body_its_provider_sends() -> None:
    args = train(args=["--epochs=3"])
    mocks = _run(lambda: VertexTrainingJob("finetune", args))  # type: ignore[arg-type]
    job = mocks.one(CUSTOM_JOB)
    assert job.name == "finetune-job" and job.parent_type == "dws:index:VertexTrainingJob"
    expected = custom_job_props()
    owner = {"organization": "organization", "project": "project", "stack": "dev"}
    assert job.inputs["owner"] == {**owner, "name": "finetune-job"}  # the stack's, and its name
    assert job.inputs["waitFor"] == "running"
    assert wire(job.inputs["body"]) == expected["body"]
    assert job.inputs["project"] == "my-project" and job.inputs["region"] == "us-central1"


def test_a_training_job_reports_its_gpus() -> None:
    gpus = GcpMocks().run(lambda: VertexTrainingJob("t", train()).gpus)  # type: ignore[arg-type]
    assert gpus == 32  # (1 + 3 replicas) x 8 H100s


def test_a_deployment_registers_the_deploy_request_on_an_endpoint_name() -> None:
    mocks = _run(lambda: FlexStartDeployment("llm", deploy()))  # type: ignore[arg-type]
    model = mocks.one(DEPLOYED_MODEL)
    assert model.inputs["endpoint"] == "1234567" and model.inputs["region"] == "us-central1"
    resources = model.inputs["body"]["deployedModel"]["dedicatedResources"]
    assert resources["flexStart"] == {"maxRuntimeDuration": "259200s"}
    assert resources["machineSpec"]["acceleratorType"] == "NVIDIA_L4"
    assert (resources["minReplicaCount"], resources["maxReplicaCount"]) == (1, 2)


def test_a_deployment_on_an_ai_endpoint_takes_its_id_region_and_project() -> None:
    def program() -> Any:
        endpoint = gcp.vertex.AiEndpoint(
            "serving",
            name="7654321",
            location="europe-west4",
            region="europe-west4",
            display_name="serving",
            project="other-project",
        )
        return FlexStartDeployment(
            "llm",
            {  # type: ignore[typeddict-item]
                "endpoint": endpoint,
                "model": "987",
                "machine_type": "a3-highgpu-8g",
                "max_runtime_duration": "1d",
            },
        )

    mocks = _run(program)
    model = mocks.one(DEPLOYED_MODEL)
    assert model.inputs["endpoint"] == "7654321" and model.inputs["region"] == "europe-west4"
    assert model.inputs["project"] == "other-project"
    deployed = model.inputs["body"]["deployedModel"]
    assert deployed["model"] == "projects/other-project/locations/europe-west4/models/987"
    assert any("aiEndpoint" in d for d in model.dependencies)


@pytest.mark.parametrize("region", [None, "europe-west4"])
def test_a_deployment_on_an_endpoint_full_name_known_only_at_run_time(region: Any) -> None:
    """``AiEndpoint.id`` is the endpoint's full name, an Output: the deployment reads its id,
    region and project from it once known, as it does from a full name given as text."""
    full = "projects/other-project/locations/europe-west4/endpoints/7654321"
    args = deploy(endpoint=pulumi.Output.from_input(full), model="987")
    if region is not None:
        args["region"] = region
    model = _run(lambda: FlexStartDeployment("llm", args)).one(DEPLOYED_MODEL)  # type: ignore[arg-type]
    assert model.inputs["endpoint"] == "7654321" and model.inputs["region"] == "europe-west4"
    assert model.inputs["project"] == "other-project"
    deployed = model.inputs["body"]["deployedModel"]
    assert deployed["model"] == "projects/other-project/locations/europe-west4/models/987"


def test_a_model_of_another_region_is_deployed_as_named() -> None:
    """The discovery document's ``DeployedModel.model``: "the Model may be in a different
    location than the DeployedModel's Endpoint"."""
    model = "projects/my-project/locations/europe-west4/models/987@2"
    mocks = _run(lambda: FlexStartDeployment("llm", deploy(model=model)))  # type: ignore[arg-type]
    deployed = mocks.one(DEPLOYED_MODEL)
    assert deployed.inputs["region"] == "us-central1"
    assert deployed.inputs["body"]["deployedModel"]["model"] == model


def test_a_batch_job_registers_the_body_its_provider_sends() -> None:
    mocks = _run(lambda: BatchFlexJob("render", batch()))  # type: ignore[arg-type]
    job = mocks.one(BATCH_JOB)
    assert job.inputs["jobId"] == stack_default("render")  # two stacks never name one job
    assert job.inputs["body"] == batch_job_props()["body"]


def test_a_batch_jobs_labels_reach_its_vms() -> None:
    """Job.labels label the job and its logs only; AllocationPolicy.labels label "all the
    Compute Engine resources ... created by this allocation policy" (the batch v1 discovery
    document): the GPU VMs that are billed carry the cost labels the policy requires."""
    body = _run(lambda: BatchFlexJob("render", batch())).one(BATCH_JOB).inputs["body"]  # type: ignore[arg-type]
    assert body["labels"] == {"team": "ml"}
    assert body["allocationPolicy"]["labels"] == {"team": "ml"}


def test_a_batch_job_in_zones_with_a_script_and_a_public_ip() -> None:
    args = batch(zones=["us-central1-b"], public_ip=True, script="nvidia-smi")
    args.pop("image"), args.pop("commands")
    body = _run(lambda: BatchFlexJob("r", args)).one(BATCH_JOB).inputs["body"]  # type: ignore[arg-type]
    allocation = body["allocationPolicy"]
    assert allocation["location"] == {"allowedLocations": ["zones/us-central1-b"]}
    assert allocation["network"]["networkInterfaces"][0]["noExternalIpAddress"] is False
    runnable = body["taskGroups"][0]["taskSpec"]["runnables"][0]
    assert runnable == {"script": {"text": "nvidia-smi"}}


# ---------------------------------------------------------------------- bad input
BAD: list[tuple[str, Callable[[], Any], str, str]] = [
    # (what, component, field, a piece of what is allowed)
    (
        "a machine Vertex AI Flex-start training does not take (GB200)",
        lambda: VertexTrainingJob("t", train(machine_type="a4x-highgpu-4g")),
        "machine_type",
        "A100, B200, H100, H200, L4",
    ),
    (
        "an unknown machine type",
        lambda: VertexTrainingJob("t", train(machine_type="a3-highgpu-9g")),
        "machine_type",
        "not a known GPU machine type",
    ),
    (
        "an accelerator the machine does not carry",
        lambda: VertexTrainingJob("t", train(accelerator_type="NVIDIA_L4")),
        "accelerator_type",
        "carries NVIDIA_H100_80GB",
    ),
    (
        "a GPU count the machine does not carry",
        lambda: VertexTrainingJob("t", train(accelerator_count=4)),
        "accelerator_count",
        "carries 8 GPUs",
    ),
    (
        "a run limit beyond 7 days",
        lambda: VertexTrainingJob("t", train(max_run_duration="8d")),
        "max_run_duration",
        "1m (60s) to 7d",
    ),
    (
        "a negative queue window",
        lambda: VertexTrainingJob("t", train(max_wait=-1)),
        "max_wait",
        "negative",
    ),
    (
        "a first worker pool of more than one replica",
        lambda: VertexTrainingJob("t", train(worker_pools=[{"replica_count": 2}])),
        "worker_pools[0].replica_count",
        "primary replica",
    ),
    (
        "a worker pool of no replica",
        lambda: VertexTrainingJob(
            "t", train(worker_pools=[{"replica_count": 1}, {"replica_count": 0}])
        ),
        "worker_pools[1].replica_count",
        "1 to 1024",
    ),
    (
        "five worker pools",
        lambda: VertexTrainingJob("t", train(worker_pools=[{"replica_count": 1}] * 5)),
        "worker_pools",
        "1 to 4",
    ),
    (
        "a region without Vertex AI",
        lambda: VertexTrainingJob("t", train(region="us-central9")),
        "region",
        "not a region Vertex AI serves",
    ),
    (
        "an Output machine type",
        lambda: VertexTrainingJob(
            "t", train(machine_type=pulumi.Output.from_input("a3-highgpu-8g"))
        ),
        "machine_type",
        "must be known when the program runs",
    ),
    (
        "an environment variable whose value is not a string (Vertex AI refuses a number)",
        lambda: VertexTrainingJob("t", train(env={"EPOCHS": 3})),
        "env[EPOCHS]",
        "must be a string",
    ),
    (
        "an environment variable whose name is not a C identifier",
        lambda: VertexTrainingJob("t", train(env={"MY-FLAG": "1"})),
        "env[MY-FLAG]",
        "C identifier",
    ),
    (
        "a network named by its project id (Vertex AI peers with projects/NUMBER/...)",
        lambda: VertexTrainingJob(
            "t", train(network="projects/my-project/global/networks/default")
        ),
        "network",
        "project number",
    ),
    (
        "a run beyond Flex-start inference's 7 days",
        lambda: FlexStartDeployment("d", deploy(max_runtime_duration="8d")),
        "max_runtime_duration",
        "10m (600s) to 7d",
    ),
    (
        "more GPUs per replica than the machine carries",
        lambda: FlexStartDeployment("d", deploy(machine_type="a3-highgpu-8g", accelerator_count=9)),
        "accelerator_count",
        "1 to 8",
    ),
    (
        "fewer max replicas than min",
        lambda: FlexStartDeployment("d", deploy(min_replicas=3, max_replicas=2)),
        "max_replicas",
        "below min_replicas",
    ),
    (
        "no replica",
        lambda: FlexStartDeployment("d", deploy(min_replicas=0)),
        "min_replicas",
        "1 to 1000",
    ),
    (
        "a TPU machine type",
        lambda: FlexStartDeployment("d", deploy(machine_type="ct6e-standard-4t")),
        "machine_type",
        "TPU machine type",
    ),
    (
        "an endpoint in a region without Vertex AI",
        lambda: FlexStartDeployment(
            "d", deploy(endpoint="projects/p/locations/mars-north1/endpoints/1")
        ),
        "endpoint",
        "not a region Vertex AI serves",
    ),
    (
        "an endpoint that is not one",
        lambda: FlexStartDeployment("d", deploy(endpoint="serving")),
        "endpoint",
        "gcp.vertex.AiEndpoint",
    ),
    (
        "an Output replica count",
        lambda: FlexStartDeployment("d", deploy(min_replicas=pulumi.Output.from_input(1))),
        "min_replicas",
        "must be known when the program runs",
    ),
    (
        "a machine Flex-start VMs do not offer (A4X)",
        lambda: BatchFlexJob("b", batch(machine_type="a4x-highgpu-4g")),
        "machine_type",
        "except A4X and G4",
    ),
    (
        "a task run beyond 7 days",
        lambda: BatchFlexJob("b", batch(max_run_duration="8d")),
        "max_run_duration",
        "10m (600s) to 7d",
    ),
    (
        "a region without Batch",
        lambda: BatchFlexJob("b", batch(region="africa-south1")),
        "region",
        "not a region Batch serves",
    ),
    (
        "more tasks at once than tasks",
        lambda: BatchFlexJob("b", batch(task_count=2, parallelism=4)),
        "parallelism",
        "above task_count",
    ),
    (
        "no task",
        lambda: BatchFlexJob("b", batch(task_count=0)),
        "task_count",
        "1 to 10000",
    ),
    (
        "a zone of another region",
        lambda: BatchFlexJob("b", batch(zones=["us-east1-b"])),
        "zones[0]",
        "not in the job's region",
    ),
    (
        "an accelerator the machine does not carry",
        lambda: BatchFlexJob("b", batch(accelerator_type="nvidia-l4")),
        "accelerator_type",
        "does not match a3-highgpu-8g",
    ),
    (
        "an Output region",
        lambda: BatchFlexJob("b", batch(region=pulumi.Output.from_input("us-central1"))),
        "region",
        "must be known when the program runs",
    ),
]


@pytest.mark.parametrize(("what", "make", "field", "allowed"), BAD, ids=[b[0] for b in BAD])
def test_bad_input_is_one_error_naming_the_field_the_value_and_what_is_allowed(
    what: str, make: Callable[[], Any], field: str, allowed: str
) -> None:
    error = refused(make)
    assert error.field == field, str(error)
    assert allowed in str(error), str(error)
    assert str(error).startswith(f"{field}: ")
