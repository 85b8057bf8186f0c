"""The emulated Vertex AI custom jobs and deployments and the emulated Cloud Batch jobs, over
HTTP: the states each goes through on the virtual clock, the documented rules they refuse with,
the list filter, request ids, and operation names the two APIs share (``v1/projects/.../
operations/...``)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import requests

from pulumi_dws.testing.emulator import Emulator

P, REGION, ZONE = "p", "us-central1", "us-central1-a"
H100 = {"machineType": "a3-highgpu-8g", "acceleratorType": "NVIDIA_H100_80GB",
        "acceleratorCount": 8}  # fmt: skip


@pytest.fixture
def emu() -> Iterator[Emulator]:
    with Emulator() as emulator:
        yield emulator


def call(emu: Emulator, method: str, path: str, body: Any = None, **params: str) -> Any:
    answer = requests.request(method, emu.url + path, json=body, params=params, timeout=30)
    return answer.status_code, answer.json()


# ------------------------------------------------------------------------ custom jobs
def job_body(replicas: int = 2, **scheduling: Any) -> dict[str, Any]:
    pool = {"machineSpec": dict(H100), "replicaCount": str(replicas),
            "containerSpec": {"imageUri": "us-docker.pkg.dev/p/r/i:1"}}  # fmt: skip
    return {
        "displayName": "train",
        "labels": {"dws_create": "k1"},
        "jobSpec": {
            "workerPoolSpecs": [pool],
            "scheduling": {"strategy": "FLEX_START", **scheduling},
        },
    }


JOBS = f"v1beta1/projects/{P}/locations/{REGION}/customJobs"


def test_a_flex_start_job_queues_then_runs_then_ends_at_its_timeout(emu: Emulator) -> None:
    vertex = emu["aiplatform"]
    vertex.job_run_seconds = None  # runs until its timeout
    status, job = call(emu, "POST", JOBS, job_body(2, maxWaitDuration="3600s", timeout="7200s"))
    assert status == 200 and job["state"] == "JOB_STATE_QUEUED"
    vertex.add_capacity(REGION, "a3-highgpu-8g", 2, after=600)  # both replicas at once
    emu.clock.advance(600 + vertex.job_provision_seconds)
    name = job["name"].split("/", 2)[2]
    assert call(emu, "GET", f"v1beta1/projects/{P}/{name}")[1]["state"] == "JOB_STATE_RUNNING"
    assert vertex.capacity.available(REGION, "a3-highgpu-8g") == 0
    emu.clock.advance(7200)
    done = call(emu, "GET", f"v1beta1/projects/{P}/{name}")[1]
    assert done["state"] == "JOB_STATE_FAILED" and done["error"]["code"] == 4
    assert vertex.capacity.available(REGION, "a3-highgpu-8g") == 2  # freed


def test_a_queue_window_that_passes_fails_the_job(emu: Emulator) -> None:
    status, job = call(emu, "POST", JOBS, job_body(1, maxWaitDuration="1800s"))
    emu.clock.advance(1800)
    found = emu["aiplatform"].custom_job(job["name"])
    assert found is not None and found["state"] == "JOB_STATE_FAILED"
    assert found["error"]["code"] == 8 and "startTime" not in found


def test_a_running_job_is_cancelled_before_it_can_be_deleted(emu: Emulator) -> None:
    vertex = emu["aiplatform"]
    vertex.add_capacity(REGION, "a3-highgpu-8g", 1)
    _, job = call(emu, "POST", JOBS, job_body(1))
    path = "v1beta1/" + job["name"]
    status, refused = call(emu, "DELETE", path)
    assert status == 400 and refused["error"]["status"] == "FAILED_PRECONDITION"
    assert call(emu, "POST", path + ":cancel")[0] == 200
    emu.clock.advance(vertex.job_cancel_seconds)
    cancelled = call(emu, "GET", path)[1]
    assert cancelled["state"] == "JOB_STATE_CANCELLED" and cancelled["error"]["code"] == 1
    status, op = call(emu, "DELETE", path)
    assert status == 200 and "/operations/" in op["name"]
    emu.clock.advance(vertex.job_delete_seconds)
    assert call(emu, "GET", "v1beta1/" + op["name"])[1]["done"] is True
    assert call(emu, "GET", path)[0] == 404 and vertex.custom_jobs() == []


def test_the_list_filter_takes_the_documented_forms_only(emu: Emulator) -> None:
    call(emu, "POST", JOBS, job_body(1))
    other = job_body(1)
    other["labels"] = {"dws_create": "k2"}
    call(emu, "POST", JOBS, other)
    status, found = call(emu, "GET", JOBS, filter="labels.dws_create=k2")
    assert status == 200 and [j["labels"] for j in found["customJobs"]] == [other["labels"]]
    assert len(call(emu, "GET", JOBS, filter="labels.dws_create:*")[1]["customJobs"]) == 2
    status, refused = call(emu, "GET", JOBS, filter="labels.dws-create=k2")
    assert status == 400 and "Unsupported filter" in refused["error"]["message"]


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (lambda b: b["jobSpec"]["workerPoolSpecs"][0]["machineSpec"].update(
            acceleratorType="NVIDIA_TESLA_T4"), "accelerator_type"),
        (lambda b: b["jobSpec"]["scheduling"].update(timeout="691200s"), "scheduling.timeout"),
        (lambda b: b["jobSpec"]["workerPoolSpecs"].append(
            {"machineSpec": {**H100, "acceleratorCount": 4}, "replicaCount": "1",
             "containerSpec": {"imageUri": "i"}}), "worker_pool_specs[1].machine_spec"),
        (lambda b: b.pop("displayName"), "display_name"),
        (lambda b: b["jobSpec"].update(network="projects/p/global/networks/vpc"),
         "job_spec.network"),
    ],
    ids=["a GPU Flex-start does not take", "8 days", "two machine configurations", "no name",
         "a network named by project id"],
)  # fmt: skip
def test_a_job_flex_start_refuses_is_a_400_naming_the_field(
    emu: Emulator, change: Any, field: str
) -> None:
    body = job_body(1)
    change(body)
    status, answer = call(emu, "POST", JOBS, body)
    assert status == 400 and field in answer["error"]["message"], answer
    assert emu["aiplatform"].jobs_created == []


# ------------------------------------------------------------------------ deployments
def deploy_body(model_id: str = "42", runtime: str = "7200s") -> dict[str, Any]:
    return {
        "deployedModel": {
            "id": model_id,
            "model": f"projects/{P}/locations/{REGION}/models/m1",
            "dedicatedResources": {
                "machineSpec": dict(H100),
                "minReplicaCount": 1,
                "flexStart": {"maxRuntimeDuration": runtime},
            },
        }
    }


def test_a_deployment_is_listed_at_once_then_served_then_undeployed_at_its_run_limit(
    emu: Emulator,
) -> None:
    vertex = emu["aiplatform"]
    endpoint = vertex.add_endpoint(P, REGION, "77")["name"]
    status, op = call(emu, "POST", f"v1beta1/{endpoint}:deployModel", deploy_body())
    assert status == 200 and op.get("done") is not True
    listed = call(emu, "GET", f"v1beta1/{endpoint}")[1]["deployedModels"]
    assert [m["id"] for m in listed] == ["42"]
    assert listed[0]["status"]["availableReplicaCount"] == 0
    status, again = call(emu, "POST", f"v1beta1/{endpoint}:deployModel", deploy_body())
    assert status == 409 and again["error"]["status"] == "ALREADY_EXISTS"
    vertex.add_capacity(REGION, "a3-highgpu-8g", 1, after=1200)
    emu.clock.advance(1200 + vertex.deploy_seconds)
    assert call(emu, "GET", "v1beta1/" + op["name"])[1]["done"] is True
    served = call(emu, "GET", f"v1beta1/{endpoint}")[1]["deployedModels"][0]
    assert served["status"]["availableReplicaCount"] == 1
    emu.clock.advance(7200)  # counted from the request, not from when it was served
    assert call(emu, "GET", f"v1beta1/{endpoint}")[1].get("deployedModels", []) == []
    assert vertex.capacity.available(REGION, "a3-highgpu-8g") == 1


def test_a_deployment_beyond_seven_days_or_with_a_bad_id_is_refused(emu: Emulator) -> None:
    endpoint = emu["aiplatform"].add_endpoint(P, REGION, "78")["name"]
    status, answer = call(emu, "POST", f"v1beta1/{endpoint}:deployModel",
                          deploy_body(runtime="691200s"))  # fmt: skip
    assert status == 400 and "max_runtime_duration" in answer["error"]["message"]
    status, answer = call(emu, "POST", f"v1beta1/{endpoint}:deployModel", deploy_body("m-1"))
    assert status == 400 and "deployed_model.id" in answer["error"]["message"]
    assert emu["aiplatform"].deployments_started == []


def test_replicas_of_a_few_gpus_share_a_vm_and_no_more_than_the_machines_are_taken(
    emu: Emulator,
) -> None:
    """MachineSpec.acceleratorCount: 1 to N on a machine of N GPUs; at N/2 or fewer, replicas
    are co-scheduled on one VM: 4 replicas of 2 H100s take one a3-highgpu-8g."""
    vertex = emu["aiplatform"]
    vertex.add_capacity(REGION, "a3-highgpu-8g", 2)
    endpoint = vertex.add_endpoint(P, REGION, "80")["name"]
    body = deploy_body()
    resources = body["deployedModel"]["dedicatedResources"]
    resources["machineSpec"]["acceleratorCount"] = 2
    resources["minReplicaCount"] = 4
    status, _ = call(emu, "POST", f"v1beta1/{endpoint}:deployModel", body)
    assert status == 200 and vertex.capacity.available(REGION, "a3-highgpu-8g") == 1
    resources["machineSpec"]["acceleratorCount"] = 9
    body["deployedModel"]["id"] = "43"
    status, answer = call(emu, "POST", f"v1beta1/{endpoint}:deployModel", body)
    assert status == 400 and "accelerator_count" in answer["error"]["message"]


def _split(emu: Emulator, endpoint: str) -> dict[str, int]:
    return dict(call(emu, "GET", f"v1beta1/{endpoint}")[1].get("trafficSplit") or {})


def _deployed(emu: Emulator, endpoint: str, model_id: str, split: Any = None) -> None:
    body = deploy_body(model_id)
    if split is not None:
        body["trafficSplit"] = split
    status, answer = call(emu, "POST", f"v1beta1/{endpoint}:deployModel", body)
    assert status == 200, answer
    emu.clock.advance(emu["aiplatform"].deploy_seconds)


def test_a_deployment_takes_the_traffic_its_request_gives_it_once_deployed(
    emu: Emulator,
) -> None:
    """DeployModelRequest.trafficSplit: "0" names the model being deployed; the endpoint's split
    is overwritten with it; none leaves the split as it is (the new model gets no traffic)."""
    vertex = emu["aiplatform"]
    vertex.add_capacity(REGION, "a3-highgpu-8g", 3)
    endpoint = vertex.add_endpoint(P, REGION, "81")["name"]
    _deployed(emu, endpoint, "1", {"0": 100})
    assert _split(emu, endpoint) == {"1": 100}
    _deployed(emu, endpoint, "2")
    assert _split(emu, endpoint) == {"1": 100}
    _deployed(emu, endpoint, "3", {"1": 70, "0": 30})
    assert _split(emu, endpoint) == {"1": 70, "3": 30}
    status, answer = call(emu, "POST", f"v1beta1/{endpoint}:deployModel",
                          {**deploy_body("4"), "trafficSplit": {"0": 50}})  # fmt: skip
    assert status == 400 and "traffic_split" in answer["error"]["message"]


def test_a_model_with_traffic_is_undeployed_only_when_the_request_moves_it(
    emu: Emulator,
) -> None:
    """UndeployModelRequest.trafficSplit: "A DeployedModel will be successfully undeployed only
    if it doesn't have any traffic assigned to it when this method executes, or if this field
    unassigns any traffic to it"; the last one leaves the split empty."""
    vertex = emu["aiplatform"]
    vertex.add_capacity(REGION, "a3-highgpu-8g", 2)
    endpoint = vertex.add_endpoint(P, REGION, "82")["name"]
    _deployed(emu, endpoint, "1", {"0": 100})
    _deployed(emu, endpoint, "2")
    undeploy = f"v1beta1/{endpoint}:undeployModel"
    status, answer = call(emu, "POST", undeploy, {"deployedModelId": "1"})
    assert status == 400 and answer["error"]["status"] == "FAILED_PRECONDITION"
    status, _ = call(emu, "POST", undeploy, {"deployedModelId": "1", "trafficSplit": {"2": 100}})
    assert status == 200 and _split(emu, endpoint) == {"2": 100}
    emu.clock.advance(vertex.undeploy_seconds)
    status, _ = call(emu, "POST", undeploy, {"deployedModelId": "2"})  # the last one
    assert status == 200
    emu.clock.advance(vertex.undeploy_seconds)
    assert _split(emu, endpoint) == {} and vertex.deployments() == []


def test_an_endpoints_traffic_split_is_patched_whole_or_cleared(emu: Emulator) -> None:
    vertex = emu["aiplatform"]
    vertex.add_capacity(REGION, "a3-highgpu-8g", 2)
    endpoint = vertex.add_endpoint(P, REGION, "83")["name"]
    _deployed(emu, endpoint, "1", {"0": 100})
    _deployed(emu, endpoint, "2")
    path = f"v1beta1/{endpoint}"
    status, answer = call(emu, "PATCH", path, {"trafficSplit": {"1": 50}},
                          updateMask="traffic_split")  # fmt: skip
    assert status == 400 and "traffic_split" in answer["error"]["message"]
    status, patched = call(emu, "PATCH", path, {"trafficSplit": {"1": 50, "2": 50}},
                           updateMask="traffic_split")  # fmt: skip
    assert status == 200 and patched["trafficSplit"] == {"1": 50, "2": 50}
    status, cleared = call(emu, "PATCH", path, {}, updateMask="traffic_split")
    assert status == 200 and "trafficSplit" not in cleared and _split(emu, endpoint) == {}


# ------------------------------------------------------------------------ Batch jobs
BATCH = f"v1/projects/{P}/locations/{REGION}/jobs"


def batch_body(tasks: int = 2, run: str = "3600s") -> dict[str, Any]:
    return {
        "taskGroups": [{
            "taskCount": str(tasks),
            "taskSpec": {"runnables": [{"script": {"text": "echo hi"}}],
                         "maxRunDuration": run},
        }],
        "allocationPolicy": {
            "instances": [{"policy": {"machineType": "a3-highgpu-8g",
                                      "provisioningModel": "FLEX_START"}}],
            "location": {"allowedLocations": [f"zones/{ZONE}"]},
        },
        "labels": {"team": "ml"},
    }  # fmt: skip


def test_a_batch_job_waits_for_all_its_vms_in_one_zone_then_runs_to_its_limit(
    emu: Emulator,
) -> None:
    batch = emu["batch"]
    batch.run_seconds = None  # runs until its maxRunDuration
    status, job = call(emu, "POST", BATCH, batch_body(2), jobId="j1", requestId="r-1")
    assert status == 200 and job["status"]["state"] == "QUEUED"
    batch.add_capacity("us-central1-b", "a3-highgpu-8g", 2)  # not a zone it may use
    batch.add_capacity(ZONE, "a3-highgpu-8g", 1)  # not enough for both tasks
    assert batch.job(P, REGION, "j1")["status"]["state"] == "QUEUED"
    batch.add_capacity(ZONE, "a3-highgpu-8g", 1, after=300)
    emu.clock.advance(300 + batch.schedule_seconds)
    assert batch.job(P, REGION, "j1")["status"]["state"] == "RUNNING"
    emu.clock.advance(3600)
    assert batch.job(P, REGION, "j1")["status"]["state"] == "FAILED"
    assert batch.capacity.available(ZONE, "a3-highgpu-8g") == 2


def test_a_request_id_makes_a_create_once_and_a_taken_job_id_is_409(emu: Emulator) -> None:
    batch = emu["batch"]
    first = call(emu, "POST", BATCH, batch_body(), jobId="j2", requestId="r-2")
    again = call(emu, "POST", BATCH, batch_body(), jobId="j2", requestId="r-2")
    assert first == again and len(batch.created) == 1
    status, answer = call(emu, "POST", BATCH, batch_body(), jobId="j2", requestId="r-3")
    assert status == 409 and answer["error"]["status"] == "ALREADY_EXISTS"


def test_delete_answers_an_operation_under_the_shared_v1_path(emu: Emulator) -> None:
    """Vertex AI's ``v1`` operations and Batch's share a path shape: an operation Vertex AI
    does not know is passed on to Batch (``Unrouted``), and the other way round."""
    batch, vertex = emu["batch"], emu["aiplatform"]
    call(emu, "POST", BATCH, batch_body(), jobId="j3")
    status, op = call(emu, "DELETE", f"{BATCH}/j3", requestId="r-4")
    assert status == 200 and op["name"].startswith(f"projects/{P}/locations/{REGION}/operations/")
    assert batch.job(P, REGION, "j3")["status"]["state"] == "DELETION_IN_PROGRESS"
    emu.clock.advance(batch.delete_seconds)
    assert call(emu, "GET", "v1/" + op["name"])[1]["done"] is True
    assert batch.jobs() == []
    vertex.add_capacity(REGION, "a3-highgpu-8g", 1)
    _, job = call(emu, "POST", JOBS, job_body(1))
    call(emu, "POST", "v1beta1/" + job["name"] + ":cancel")
    emu.clock.advance(vertex.job_cancel_seconds)
    _, vop = call(emu, "DELETE", "v1/" + job["name"])
    assert call(emu, "GET", "v1/" + vop["name"])[0] == 200
    status, _ = call(emu, "GET", f"v1/projects/{P}/locations/{REGION}/operations/nothing")
    assert status == 404


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (lambda b: b["allocationPolicy"]["instances"][0]["policy"].update(
            machineType="a4x-highgpu-4g"), "machine_type"),
        (lambda b: b["taskGroups"][0]["taskSpec"].update(maxRunDuration="691200s"),
         "max_run_duration"),
        (lambda b: b["allocationPolicy"]["location"].update(
            allowedLocations=["zones/europe-west4-a"]), "allowed_locations"),
        (lambda b: b.update(labels={"goog-x": "1"}), "job.labels"),
    ],
    ids=["A4X", "8 days", "a zone of another region", "a reserved label"],
)  # fmt: skip
def test_a_batch_job_flex_start_refuses_is_a_400_naming_the_field(
    emu: Emulator, change: Any, field: str
) -> None:
    body = batch_body()
    change(body)
    status, answer = call(emu, "POST", BATCH, body, jobId="bad")
    assert status == 400 and field in answer["error"]["message"], answer
    assert emu["batch"].created == []


def test_reset_forgets_jobs_deployments_and_request_ids(emu: Emulator) -> None:
    vertex, batch = emu["aiplatform"], emu["batch"]
    call(emu, "POST", JOBS, job_body(1))
    endpoint = vertex.add_endpoint(P, REGION, "79")["name"]
    call(emu, "POST", f"v1beta1/{endpoint}:deployModel", deploy_body())
    call(emu, "POST", BATCH, batch_body(), jobId="j4", requestId="r-5")
    vertex.reset()
    batch.reset()
    assert vertex.custom_jobs() == [] and vertex.jobs_created == []
    assert vertex.deployments() == [] and vertex.deployments_started == []
    assert batch.jobs() == [] and batch.created == []
    status, job = call(emu, "POST", BATCH, batch_body(), jobId="j4", requestId="r-5")
    assert status == 200 and len(batch.created) == 1  # the request id was forgotten
