"""The Vertex AI and Cloud Batch request bodies against gcloud's, and, where gcloud has no flag,
field by field against the discovery documents.

* ``gcloud ai custom-jobs create --config``: gcloud has no scheduling flags; the config file
  (``fixtures/gcloud/vertex_custom_job.yaml``) carries ``scheduling`` as a ``CustomJobSpec``.
* ``gcloud beta ai endpoints deploy-model``: no Flex-start flag; ``flexStart`` is checked with
  the discovery document.
* ``gcloud batch jobs submit --config`` (``fixtures/gcloud/batch_job.json``), which takes
  ``provisioningModel: FLEX_START`` as it is.

The bodies gcloud sent are kept in ``fixtures/gcloud_vertex_batch_bodies.json`` (so these
comparisons run without gcloud); the tests marked ``gcloud`` run gcloud itself and check the
kept bodies are still what it sends.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from pulumi_dws import BatchFlexJob, FlexStartDeployment, VertexTrainingJob
from pulumi_dws.kinds.batch.testing import COMPONENT_ARGS as BATCH_ARGS
from pulumi_dws.kinds.vertex_deployment.api import deployed_model_id
from pulumi_dws.kinds.vertex_deployment.testing import COMPONENT_ARGS as DEPLOY_ARGS
from pulumi_dws.kinds.vertex_training.testing import COMPONENT_ARGS as TRAIN_ARGS
from pulumi_dws.providers.rest import wire
from pulumi_dws.testing import GcpMocks
from pulumi_dws.testing.emulator.discovery import DiscoverySchema
from pulumi_dws.testing.gcloud import GcloudCommand, GcloudRuns, gcloud_unavailable_reason

PROJECT = "my-project"
FIXTURES = Path(__file__).resolve().parent / "fixtures"
KEPT = json.loads((FIXTURES / "gcloud_vertex_batch_bodies.json").read_text())["captures"]
_V1BETA1 = "GoogleCloudAiplatformV1beta1"


def registered(make: Any, token: str) -> dict[str, Any]:
    mocks = GcpMocks(project=PROJECT)
    mocks.run(make)
    return dict(mocks.one(f"pulumi-python:dynamic/dws:{token}").inputs)


def training_inputs() -> dict[str, Any]:
    args = {**TRAIN_ARGS, "labels": {"team": "ml"}, "args": ["--epochs=3"]}
    return registered(lambda: VertexTrainingJob("finetune", args), "VertexCustomJob")  # type: ignore[arg-type]


def deployment_inputs() -> dict[str, Any]:
    args = {**DEPLOY_ARGS, "display_name": "llm"}
    return registered(lambda: FlexStartDeployment("llm", args), "FlexStartDeployedModel")  # type: ignore[arg-type]


def batch_inputs() -> dict[str, Any]:
    args = {**BATCH_ARGS, "labels": {"team": "ml"}, "job_id": "render"}  # gcloud's name
    return registered(lambda: BatchFlexJob("render", args), "BatchJob")  # type: ignore[arg-type]


DEPLOYED_ID = "1234567890"
"""The ``--deployed-model-id`` given to gcloud; the provider derives its own from the
ownership key (:func:`deployed_model_id`, 10 digits), which the comparison puts in its place."""


def deployment_body(inputs: dict[str, Any]) -> dict[str, Any]:
    """The ``deployModel`` body as the provider sends it, with :data:`DEPLOYED_ID` for the id
    it derives from its ownership key."""
    model = wire(inputs["body"]["deployedModel"])
    assert re.fullmatch(r"[1-9][0-9]{9}", deployed_model_id("0" * 19 + "1"))
    return {"deployedModel": {**model, "id": DEPLOYED_ID}}


GCLOUD_DEFAULTS = {"spot": False}
"""What gcloud sends of its own that is the field's default (``DedicatedResources.spot``)."""
GCLOUD_MODEL_DEFAULTS = {"enableAccessLogging": False, "enableContainerLogging": False}


# ---------------------------------------------------------------------- against the kept bodies
def test_the_custom_job_is_gclouds() -> None:
    inputs = training_inputs()
    kept = KEPT["custom-job"]
    assert kept["path"] == f"/v1/projects/{PROJECT}/locations/us-central1/customJobs"
    assert wire(inputs["body"]) == kept["body"]


def test_the_deployment_is_gclouds_plus_flex_start() -> None:
    inputs = deployment_inputs()
    sent = deployment_body(inputs)
    kept = KEPT["deploy-model"]
    assert kept["path"].endswith(f"/endpoints/{inputs['endpoint']}:deployModel")
    gcloud = json.loads(json.dumps(kept["body"]))
    model = gcloud["deployedModel"]
    for key, value in GCLOUD_MODEL_DEFAULTS.items():
        assert model.pop(key) == value
    for key, value in GCLOUD_DEFAULTS.items():
        assert model["dedicatedResources"].pop(key) == value
    flex = sent["deployedModel"]["dedicatedResources"].pop("flexStart")
    assert flex == {"maxRuntimeDuration": "259200s"}
    assert sent == gcloud


def test_the_batch_job_is_gclouds_and_its_id_goes_as_the_job_id() -> None:
    inputs = batch_inputs()
    kept = KEPT["batch-job"]
    assert kept["query"]["jobId"] == [inputs["jobId"]] == ["render"]
    assert wire(inputs["body"]) == kept["body"]


# ------------------------------------------------------------- field by field with discovery
def test_flex_start_inference_fields_are_the_discovery_documents() -> None:
    document = DiscoverySchema.load("aiplatform", "v1beta1")
    resources = document.document["schemas"][f"{_V1BETA1}DedicatedResources"]["properties"]
    assert resources["flexStart"]["$ref"] == f"{_V1BETA1}FlexStart"
    flex = document.document["schemas"][f"{_V1BETA1}FlexStart"]["properties"]
    assert flex["maxRuntimeDuration"]["format"] == "google-duration"
    body = deployment_body(deployment_inputs())
    document.require(
        f"{_V1BETA1}DeployModelRequest", body, method="aiplatform.endpoints.deployModel"
    )


def test_the_training_scheduling_fields_are_the_discovery_documents() -> None:
    document = DiscoverySchema.load("aiplatform", "v1beta1").document
    scheduling = document["schemas"][f"{_V1BETA1}Scheduling"]["properties"]
    assert "FLEX_START" in scheduling["strategy"]["enum"]
    assert scheduling["maxWaitDuration"]["format"] == "google-duration"
    assert scheduling["timeout"]["format"] == "google-duration"
    create = document["resources"]["projects"]["resources"]["locations"]["resources"]
    parameters = create["customJobs"]["methods"]["create"]["parameters"]
    assert set(parameters) == {"parent"}  # no id and no requestId: OWNER_SEARCH


def test_the_batch_create_takes_the_job_id_and_a_request_id() -> None:
    document = DiscoverySchema.load("batch", "v1").document
    locations = document["resources"]["projects"]["resources"]["locations"]["resources"]
    parameters = locations["jobs"]["methods"]["create"]["parameters"]
    assert {"jobId", "requestId"} <= set(parameters)
    policy = document["schemas"]["InstancePolicy"]["properties"]
    assert "FLEX_START" in policy["provisioningModel"]["enum"]


# ---------------------------------------------------------------------- gcloud itself
_SKIP = gcloud_unavailable_reason("beta")
_CONFIGS = FIXTURES / "gcloud"
ORACLE: dict[str, GcloudCommand] = {
    "custom-job": GcloudCommand.of(
        ["ai", "custom-jobs", "create", "--region=us-central1", "--display-name=finetune",
         "--labels=team=ml", f"--config={_CONFIGS / 'vertex_custom_job.yaml'}"],
        apis=("aiplatform",), project=PROJECT,
    ),
    "deploy-model": GcloudCommand.of(
        ["beta", "ai", "endpoints", "deploy-model", "1234567", "--region=us-central1",
         "--model=987", "--display-name=llm", "--machine-type=g2-standard-24",
         "--accelerator=type=nvidia-l4,count=2", "--min-replica-count=1",
         "--max-replica-count=2",
         f"--deployed-model-id={DEPLOYED_ID}"],
        apis=("aiplatform",), project=PROJECT,
    ),
    "batch-job": GcloudCommand.of(
        ["batch", "jobs", "submit", "render", "--location=us-central1",
         f"--config={_CONFIGS / 'batch_job.json'}"],
        apis=("batch",), project=PROJECT,
    ),
}  # fmt: skip


def sent_by(capture: Any, case: str) -> Any:
    if case == "deploy-model":
        (found,) = [r for r in capture.requests if r.path.endswith(":deployModel")]
        return found
    return capture.create_request()


@pytest.mark.skipif(_SKIP is not None, reason=_SKIP or "")
@pytest.mark.gcloud(*ORACLE.values())
@pytest.mark.parametrize("case", list(ORACLE))
def test_gcloud_still_sends_the_kept_body(case: str, gcloud_runs: GcloudRuns) -> None:
    command = ORACLE[case]
    capture = gcloud_runs.run(command.args, apis=command.apis, project=command.project)
    assert capture.ok, capture.describe()
    sent = sent_by(capture, case)
    assert sent.path == KEPT[case]["path"]
    assert sent.body == KEPT[case]["body"]
    if case == "batch-job":
        assert sent.query["jobId"] == KEPT[case]["query"]["jobId"]
