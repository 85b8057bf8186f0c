"""The emulated Vertex AI ``modelDevelopmentClusters`` API, over real HTTP."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

import pytest
import requests
from slurm_helpers import PROJECT, REGION, ZONE, aiplatform_emulator, fresh, seed_body

from pulumi_dws.testing.emulator import Emulator
from pulumi_dws.testing.emulator.aiplatform import AiPlatformService, LroFailure, project_number

PARENT = f"v1beta1/projects/{PROJECT}/locations/{REGION}/modelDevelopmentClusters"


@pytest.fixture(scope="module")
def shared() -> Iterator[Emulator]:
    with aiplatform_emulator() as emulator:
        yield emulator


@pytest.fixture
def emu(shared: Emulator) -> Emulator:
    return fresh(shared)


@pytest.fixture
def svc(emu: Emulator) -> AiPlatformService:
    return emu["aiplatform"]


def post(emu: Emulator, body: Any, cluster_id: str = "flexvm", key: str = "") -> requests.Response:
    params = {key or "model_development_cluster_id": cluster_id} if cluster_id else {}
    return requests.post(emu.url + PARENT, params=params, json=body, timeout=10)


def get(emu: Emulator, path: str) -> requests.Response:
    return requests.get(emu.url + path, timeout=10)


def created(emu: Emulator, body: dict[str, Any] | None = None, cid: str = "flexvm") -> dict:
    response = post(emu, body or seed_body(), cid)
    assert response.status_code == 200, response.text
    emu.clock.advance(1000)
    return get(emu, f"{PARENT}/{cid}").json()


def test_create_runs_an_operation_on_the_virtual_clock(emu: Emulator) -> None:
    op = post(emu, seed_body()).json()
    number = project_number(PROJECT)
    assert op["name"].startswith(f"projects/{number}/locations/{REGION}/operations/")
    assert op["metadata"]["@type"].endswith("CreateModelDevelopmentClusterOperationMetadata")
    assert "done" not in op
    cluster = get(emu, f"{PARENT}/flexvm").json()
    assert cluster["clusterStatus"]["state"] == "PROVISIONING"
    emu.clock.advance(899)
    assert "done" not in get(emu, "v1beta1/" + op["name"]).json()
    emu.clock.advance(1)
    done = get(emu, "v1/" + op["name"]).json()  # Google's docs poll operations on v1
    assert done["done"] is True
    assert done["response"]["@type"].endswith("ModelDevelopmentCluster")
    assert done["response"]["clusterStatus"]["state"] == "RUNNING"


def test_get_answers_camel_case_with_server_defaults(emu: Emulator) -> None:
    cluster = created(emu)
    number = project_number(PROJECT)
    assert (
        cluster["name"] == f"projects/{number}/locations/{REGION}/modelDevelopmentClusters/flexvm"
    )
    login, a3u = cluster["nodePools"]
    assert login["enablePublicIps"] is True  # the seed's "true" parsed as a bool
    assert login["provisioningModel"] == "ON_DEMAND"  # CPU pool default
    assert a3u["machineSpec"] == {
        "machineType": "a3-ultragpu-8g",
        "acceleratorType": "NVIDIA_H200_141GB",
        "acceleratorCount": 8,
    }
    assert a3u["effectiveFlexStartMaxDuration"] == "604800s"
    assert (
        cluster["runtimeSpec"]["serviceAccount"]
        == f"{number}-compute@developer.gserviceaccount.com"
    )
    nodes = cluster["clusterStatus"]["nodesStatus"]
    assert [(n["nodePoolId"], n["nodePoolType"]) for n in nodes] == [
        ("login", "NODE_POOL_TYPE_LOGIN")  # min 0 on a3u: no static GPU node
    ]
    # the project number works in paths too
    assert get(emu, f"v1beta1/projects/{number}/locations/{REGION}/modelDevelopmentClusters/flexvm")
    assert "effectiveFlexStartMaxDuration" not in login


def test_camel_case_request_and_camel_query_parameter(
    emu: Emulator, svc: AiPlatformService
) -> None:
    body = {
        "displayName": "camel",
        "nodePools": [
            {
                "id": "login",
                "machineSpec": {"machineType": "n2-standard-8"},
                "scalingSpec": {"minNodeCount": 1, "maxNodeCount": 1},
            },
            {
                "id": "gpu",
                "machineSpec": {
                    "machineType": "a3-highgpu-8g",
                    "acceleratorType": "NVIDIA_H100_80GB",
                    "acceleratorCount": 8,
                },
                "provisioningModel": "SPOT",
                "scalingSpec": {"maxNodeCount": 1},
            },
        ],
        "orchestratorSpec": {
            "slurmSpec": {
                "homeDirectoryStorage": f"projects/{PROJECT}/locations/{ZONE}/instances/h",
                "loginNodePoolId": "login",
            }
        },
    }
    response = post(emu, body, "camel", key="modelDevelopmentClusterId")
    assert response.status_code == 200, response.text
    stored = svc.cluster(PROJECT, REGION, "camel")
    assert stored is not None
    assert stored["network"]["network"] == f"projects/{PROJECT}/global/networks/default"
    assert stored["nodePools"][1]["bootDisk"] == {"bootDiskType": "pd-ssd", "bootDiskSizeGb": 100}


def _mutated(change: Any) -> dict[str, Any]:
    body = seed_body()
    change(body)
    return body


def _pool(i: int, **fields: Any) -> Any:
    return lambda b: b["node_pools"][i].update(fields)


def _reserved(values: list[str] | None, kind: str = "SPECIFIC_RESERVATION") -> Any:
    """Make pool 1 a RESERVATION pool whose affinity names ``values``."""

    def change(body: dict[str, Any]) -> None:
        pool = body["node_pools"][1]
        pool["provisioning_model"] = "RESERVATION"
        pool.pop("flex_start_max_duration", None)
        affinity: dict[str, Any] = {"reservation_affinity_type": kind}
        if values is not None:
            affinity["values"] = values
        pool["machine_spec"]["reservation_affinity"] = affinity

    return change


RESERVATION = f"projects/{PROJECT}/zones/{ZONE}/reservations/h100-block"

BAD_BODIES = [
    ("no node pools", lambda b: b.pop("node_pools"), "Required field 'nodePools'"),
    ("reservation unnamed", _reserved(None), "must name the reservation"),
    ("reservation not a path", _reserved(["h100-block"]), "is not projects/"),
    (
        "reservation elsewhere",
        _reserved([RESERVATION.replace(ZONE, "us-central1-c")]),
        "not in the node pool's zone",
    ),
    ("reservation values with none", _reserved([RESERVATION], "NO_RESERVATION"), "empty"),
    ("unknown field", lambda b: b.update(colour="blue"), 'Unknown name "colour"'),
    ("bad enum", _pool(1, provisioning_model="CHEAP"), "TYPE_ENUM"),
    ("bad boolean", _pool(1, enable_public_ips="yes"), "TYPE_BOOL"),
    ("bad duration", _pool(1, flex_start_max_duration="7d"), "google.protobuf.Duration"),
    ("flex too long", _pool(1, flex_start_max_duration="604801s"), "between 30s and 604800s"),
    ("flex too short", _pool(1, flex_start_max_duration="29s"), "between 30s and 604800s"),
    ("flex not flex", _pool(1, provisioning_model="SPOT"), "only allowed with FLEX_START"),
    ("gpu without model", lambda b: b["node_pools"][1].pop("provisioning_model"), "explicit"),
    ("min above max", _pool(1, scaling_spec={"min_node_count": 3, "max_node_count": 2}), "min_"),
    ("login not fixed", _pool(0, scaling_spec={"min_node_count": 1, "max_node_count": 2}), "login"),
    ("zone elsewhere", _pool(1, zone="europe-west4-a"), "not in region"),
    ("duplicate pool", _pool(1, id="login"), "used by two"),
    (
        "unknown partition pool",
        lambda b: b["orchestrator_spec"]["slurm_spec"]["partitions"][0].update(
            node_pool_ids=["nope"]
        ),
        "not the id of a compute node pool",
    ),
    (
        "missing login pool",
        lambda b: b["orchestrator_spec"]["slurm_spec"].update(login_node_pool_id="gone"),
        "login_node_pool_id",
    ),
    (
        "bad home",
        lambda b: b["orchestrator_spec"]["slurm_spec"].update(home_directory_storage="nfs:/home"),
        "home_directory_storage",
    ),
    (
        "no machine type",
        lambda b: b["node_pools"][1]["machine_spec"].pop("machine_type"),
        "Required field 'nodePools[1].machineSpec.machineType'",
    ),
]


@pytest.mark.parametrize(
    ("change", "expected"), [c[1:] for c in BAD_BODIES], ids=[c[0] for c in BAD_BODIES]
)
def test_invalid_bodies_are_400_in_googles_shape(
    emu: Emulator, svc: AiPlatformService, change: Any, expected: str
) -> None:
    response = post(emu, _mutated(change))
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert error["code"] == 400 and error["status"] == "INVALID_ARGUMENT"
    assert expected in error["message"]
    assert svc.clusters == {}


def test_a_reservation_pool_and_a_cpu_pool_without_a_model_are_accepted(
    emu: Emulator, svc: AiPlatformService
) -> None:
    """The two pool kinds SlurmCluster now sends: RESERVATION with a specific reservation in
    the pool's zone; a CPU pool whose provisioning model the API defaults to ON_DEMAND."""
    body = _mutated(_reserved([RESERVATION]))
    body["node_pools"].append(
        {
            "id": "cpu",
            "machine_spec": {"machine_type": "n2-standard-8"},
            "scaling_spec": {"min_node_count": 0, "max_node_count": 2},
            "zone": ZONE,
        }
    )
    cluster = created(emu, body)
    pools = {p["id"]: p for p in cluster["nodePools"]}
    assert pools["a3u"]["provisioningModel"] == "RESERVATION"
    assert pools["a3u"]["machineSpec"]["reservationAffinity"]["values"] == [RESERVATION]
    assert pools["cpu"]["provisioningModel"] == "ON_DEMAND"


@pytest.mark.parametrize(
    ("cluster_id", "status"), [("", 400), ("flex-vm", 400), ("abcdefghijk", 400), ("Flex", 400)]
)
def test_cluster_ids(emu: Emulator, cluster_id: str, status: int) -> None:
    assert post(emu, seed_body(), cluster_id).status_code == status


def test_duplicate_is_409_already_exists(emu: Emulator) -> None:
    assert post(emu, seed_body()).status_code == 200
    again = post(emu, seed_body())
    assert again.status_code == 409
    assert again.json()["error"]["status"] == "ALREADY_EXISTS"


def test_list_pages(emu: Emulator) -> None:
    for cid in ("aaa", "bbb", "ccc"):
        body = seed_body()
        assert post(emu, body, cid).status_code == 200
    first = requests.get(emu.url + PARENT, params={"pageSize": 2}, timeout=10).json()
    assert [c["name"].rsplit("/", 1)[-1] for c in first["modelDevelopmentClusters"]] == [
        "aaa",
        "bbb",
    ]
    rest = requests.get(
        emu.url + PARENT, params={"pageSize": 2, "pageToken": first["nextPageToken"]}, timeout=10
    ).json()
    assert [c["name"].rsplit("/", 1)[-1] for c in rest["modelDevelopmentClusters"]] == ["ccc"]
    assert "nextPageToken" not in rest


def test_delete_stops_then_removes(emu: Emulator, svc: AiPlatformService) -> None:
    created(emu)
    op = requests.delete(emu.url + f"{PARENT}/flexvm", timeout=10).json()
    assert op["metadata"]["@type"].endswith("DeleteOperationMetadata")
    assert get(emu, f"{PARENT}/flexvm").json()["clusterStatus"]["state"] == "STOPPING"
    again = requests.delete(emu.url + f"{PARENT}/flexvm", timeout=10)
    assert again.status_code == 400 and again.json()["error"]["status"] == "FAILED_PRECONDITION"
    emu.clock.advance(300)
    assert get(emu, "v1beta1/" + op["name"]).json()["done"] is True
    missing = get(emu, f"{PARENT}/flexvm")
    assert missing.status_code == 404 and missing.json()["error"]["status"] == "NOT_FOUND"
    assert svc.cluster(PROJECT, REGION, "flexvm") is None


def test_delete_while_provisioning_aborts_the_create(emu: Emulator) -> None:
    create = post(emu, seed_body()).json()
    requests.delete(emu.url + f"{PARENT}/flexvm", timeout=10)
    emu.clock.advance(2000)
    op = get(emu, "v1beta1/" + create["name"]).json()
    assert op["done"] is True and op["error"]["code"] == 10


def test_injected_lro_failure_leaves_an_error_cluster(
    emu: Emulator, svc: AiPlatformService
) -> None:
    failure = svc.fail_next("create")
    op = post(emu, seed_body()).json()
    emu.clock.advance(1000)
    done = get(emu, "v1beta1/" + op["name"]).json()
    assert done["error"] == {"code": failure.code, "message": failure.message}
    cluster = svc.cluster(PROJECT, REGION, "flexvm")
    assert cluster is not None and cluster["clusterStatus"]["state"] == "ERROR"


def test_injected_lro_failure_can_remove_the_cluster(emu: Emulator, svc: AiPlatformService) -> None:
    svc.fail_next("create", LroFailure(code=13, message="internal", keep_cluster=False))
    post(emu, seed_body())
    emu.clock.advance(1000)
    assert svc.cluster(PROJECT, REGION, "flexvm") is None


def patch(emu: Emulator, body: Any, mask: str) -> requests.Response:
    return requests.patch(
        emu.url + f"{PARENT}/flexvm", params={"updateMask": mask}, json=body, timeout=10
    )


def test_patch_updates_node_pools_in_place(emu: Emulator, svc: AiPlatformService) -> None:
    created(emu)
    body = seed_body()
    body["node_pools"][1]["scaling_spec"]["max_node_count"] = 4
    op = patch(emu, body, "node_pools").json()
    assert get(emu, f"{PARENT}/flexvm").json()["clusterStatus"]["state"] == "UPDATING"
    emu.clock.advance(120)
    assert get(emu, "v1beta1/" + op["name"]).json()["done"] is True
    cluster = svc.cluster(PROJECT, REGION, "flexvm")
    assert cluster is not None
    assert cluster["nodePools"][1]["scalingSpec"]["maxNodeCount"] == 4
    assert cluster["clusterStatus"]["state"] == "RUNNING"


@pytest.mark.parametrize(
    ("change", "mask", "expected"),
    [
        (
            lambda b: b["network"].update(network="projects/p/global/networks/x"),
            "network",
            "cannot be updated",
        ),
        (
            _pool(
                1,
                machine_spec={
                    "machine_type": "a3-megagpu-8g",
                    "accelerator_type": "NVIDIA_H100_MEGA_80GB",
                    "accelerator_count": 8,
                },
            ),
            "node_pools",
            "immutable",
        ),
        (
            _pool(1, provisioning_model="SPOT", flex_start_max_duration=None),
            "node_pools",
            "immutable",
        ),
    ],
)
def test_patch_refuses_immutable_changes(
    emu: Emulator, change: Any, mask: str, expected: str
) -> None:
    created(emu)
    response = patch(emu, _mutated(change), mask)
    assert response.status_code == 400
    assert expected in response.json()["error"]["message"]


def test_patch_while_provisioning_is_a_failed_precondition(emu: Emulator) -> None:
    post(emu, seed_body())
    response = patch(emu, seed_body(), "node_pools")
    assert response.status_code == 400
    assert response.json()["error"]["status"] == "FAILED_PRECONDITION"


def test_server_faults_come_from_the_fault_plan(emu: Emulator) -> None:
    emu.faults.queue = ["503", "429"]
    assert post(emu, seed_body()).status_code == 503
    assert get(emu, f"{PARENT}/flexvm").status_code == 429
    assert post(emu, copy.deepcopy(seed_body())).status_code == 200


def test_drift_and_removal_controls(emu: Emulator, svc: AiPlatformService) -> None:
    created(emu)
    svc.mutate(PROJECT, REGION, "flexvm", lambda c: c.update(displayName="renamed"))
    assert get(emu, f"{PARENT}/flexvm").json()["displayName"] == "renamed"
    svc.remove(PROJECT, REGION, "flexvm")
    assert get(emu, f"{PARENT}/flexvm").status_code == 404


def test_failed_delete_leaves_an_error_cluster_in_error(
    emu: Emulator, svc: AiPlatformService
) -> None:
    svc.fail_next("create")
    created(emu)
    svc.fail_next("delete", LroFailure(code=13, message="stuck"))
    op = requests.delete(emu.url + f"{PARENT}/flexvm", timeout=10).json()
    emu.clock.advance(300)
    assert get(emu, "v1beta1/" + op["name"]).json()["error"]["code"] == 13
    cluster = svc.cluster(PROJECT, REGION, "flexvm")
    assert cluster is not None and cluster["clusterStatus"]["state"] == "ERROR"


def test_failed_update_returns_the_cluster_to_running(
    emu: Emulator, svc: AiPlatformService
) -> None:
    created(emu)
    svc.fail_next("update", LroFailure(code=9, message="quota"))
    op = patch(emu, _mutated(lambda b: b.update(display_name="x")), "display_name").json()
    emu.clock.advance(120)
    assert get(emu, "v1beta1/" + op["name"]).json()["error"]["code"] == 9
    cluster = svc.cluster(PROJECT, REGION, "flexvm")
    assert cluster is not None and cluster["clusterStatus"]["state"] == "RUNNING"
    assert cluster["displayName"] == "flexvm"


def test_lost_answers_are_carried_out_then_answered_503(
    emu: Emulator, svc: AiPlatformService
) -> None:
    svc.lose_answers("POST")
    lost = post(emu, seed_body())
    assert lost.status_code == 503 and lost.headers["Retry-After"] == "1"
    assert lost.json()["error"]["status"] == "UNAVAILABLE"
    assert svc.cluster(PROJECT, REGION, "flexvm") is not None  # it was created all the same
    assert post(emu, seed_body()).status_code == 409  # the client's retry


def test_patch_accepts_lustre_export_config(emu: Emulator, svc: AiPlatformService) -> None:
    created(emu)
    body = _mutated(lambda b: b.update(lustre_export_config={"destination_bucket": "backups"}))
    response = patch(emu, body, "lustre_export_config")
    assert response.status_code == 200, response.text
    emu.clock.advance(120)
    cluster = svc.cluster(PROJECT, REGION, "flexvm")
    assert cluster is not None
    assert cluster["lustreExportConfig"] == {"destinationBucket": "backups"}


@pytest.mark.parametrize(
    "mask",
    ["network", "runtime_spec", "orchestrator_spec.slurm_spec.home_directory_storage", "name"],
)
def test_patch_refuses_immutable_and_output_only_masks(emu: Emulator, mask: str) -> None:
    created(emu)
    response = patch(emu, seed_body(), mask)
    assert response.status_code == 400
    assert "cannot be updated" in response.json()["error"]["message"]
