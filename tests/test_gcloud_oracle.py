"""Tests for the gcloud "oracle" (pulumi_dws.testing.gcloud).

The first tests exercise the fake API server and the configuration without gcloud. The others
run the real gcloud CLI (Cloud SDK, with its alpha/beta components) against the recording
server and check the request bodies it sends for the three DWS command lines; each skips with
a reason where gcloud, or the component it needs, is missing.

The gcloud runs are declared with the ``gcloud`` marker and started in the background when the
session starts (gcloud's start-up dominates the runtime); each test then waits for its own.
"""

from __future__ import annotations

import datetime as dt
import json
import urllib.request
from pathlib import Path

import pytest

from pulumi_dws.testing.gcloud import (
    GcloudCapture,
    GcloudCommand,
    GcloudRuns,
    OracleServer,
    endpoint_overrides,
    field_differences,
    gcloud_unavailable_reason,
)

PROJECT = "demo-project"
ZONE = "us-central1-a"
REGION = "us-central1"

# Calendar-mode window: ~30 days ahead, on the hour, 7 days long (computed at test time).
START = dt.datetime.now(dt.timezone.utc).replace(minute=0, second=0, microsecond=0) + dt.timedelta(
    days=30
)
END = START + dt.timedelta(days=7)


def _rfc3339(t: dt.datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


FUTURE_RESERVATION = [
    "alpha", "compute", "future-reservations", "create", "fr-1",
    f"--zone={ZONE}",
    "--reservation-mode=CALENDAR",
    "--machine-type=a3-highgpu-8g",
    "--total-count=2",
    f"--start-time={_rfc3339(START)}",
    f"--end-time={_rfc3339(END)}",
    "--auto-delete-auto-created-reservations",
    "--require-specific-reservation",
    "--deployment-type=DENSE",
    "--planning-status=SUBMITTED",
]  # fmt: skip

# `--request-valid-for-duration` is not accepted by gcloud 528 (any track); see
# test_request_valid_for_duration_flag for what happens with it.
FLEX_START_VM = [
    "alpha", "compute", "instances", "create", "vm-1",
    f"--zone={ZONE}",
    "--machine-type=a3-highgpu-1g",
    "--provisioning-model=FLEX_START",
    "--max-run-duration=3d",
    "--instance-termination-action=STOP",
    "--no-restart-on-failure",
    "--on-host-maintenance=TERMINATE",
    "--image-family=debian-12",
    "--image-project=debian-cloud",
]  # fmt: skip

QUEUED_NODE_POOL = [
    "beta", "container", "node-pools", "create", "dws-pool",
    "--cluster=c1",
    f"--location={REGION}",
    "--machine-type=a3-highgpu-8g",
    "--accelerator=type=nvidia-h100-80gb,count=8,gpu-driver-version=latest",
    "--enable-queued-provisioning",
    "--enable-autoscaling",
    "--num-nodes=0",
    "--total-max-nodes=10",
    "--location-policy=ANY",
    "--reservation-affinity=none",
    "--no-enable-autorepair",
    f"--node-locations={ZONE}",
]  # fmt: skip

FLEX_START_VM_QUEUED = [*FLEX_START_VM[:4], "vm-2", *FLEX_START_VM[5:]] + [
    "--request-valid-for-duration=2h"
]

# name -> (gcloud components needed, arguments)
COMMANDS: dict[str, tuple[tuple[str, ...], list[str]]] = {
    "future_reservation": (("alpha",), FUTURE_RESERVATION),
    "flex_start_vm": (("alpha",), FLEX_START_VM),
    "flex_start_vm_queued": (("alpha",), FLEX_START_VM_QUEUED),
    "queued_node_pool": (("beta",), QUEUED_NODE_POOL),
}


GCLOUD = {name: GcloudCommand.of(args) for name, (_, args) in COMMANDS.items()}


def _capture(runs: GcloudRuns, name: str) -> GcloudCapture:
    reason = gcloud_unavailable_reason(*COMMANDS[name][0])
    if reason:
        pytest.skip(reason)
    return runs.run(GCLOUD[name].args)


def _assert_all_answered(cap: GcloudCapture) -> None:
    assert all(r.status == 200 for r in cap.requests), cap.describe()
    assert all(r.query.get("alt") == ["json"] for r in cap.requests), cap.describe()


# --------------------------------------------------------------------------------------------
# Without gcloud
# --------------------------------------------------------------------------------------------


def test_endpoint_overrides_pick_the_compute_version_path() -> None:
    root = "http://127.0.0.1:1234/"
    assert endpoint_overrides(root, track="alpha") == {
        "compute": "http://127.0.0.1:1234/compute/alpha/",
        "container": root,
    }
    assert endpoint_overrides(root.rstrip("/"), ("compute",), "beta") == {
        "compute": "http://127.0.0.1:1234/compute/beta/"
    }
    assert endpoint_overrides(root, ("compute",))["compute"].endswith("/compute/v1/")


def test_field_differences_name_each_path() -> None:
    ours = {"scheduling": {"maxRunDuration": {"seconds": 259200}}, "name": "vm", "tags": ["a"]}
    theirs = {
        "scheduling": {"maxRunDuration": {"seconds": "259200"}},
        "reservationAffinity": {"consumeReservationType": "NO_RESERVATION"},
        "disks": [{}],
        "tags": ["a", "b"],
    }
    assert field_differences(ours, theirs, allowed={"disks": "from the template"}) == [
        "name: missing from gcloud's (ours: 'vm')",
        "reservationAffinity: missing from ours "
        "(gcloud: {'consumeReservationType': 'NO_RESERVATION'})",
        "scheduling.maxRunDuration.seconds: 259200 != '259200'",
        "tags: 1 items != 2 (ours ['a'], gcloud ['a', 'b'])",
    ]
    assert field_differences(theirs, theirs) == []
    assert field_differences([1, {"a": True}], [1, {"a": 1}]) == ["[1].a: True != 1"]


def test_server_records_and_answers_an_insert_then_serves_the_resource() -> None:
    body = {"name": "fr-x", "reservationMode": "CALENDAR"}
    with OracleServer(PROJECT) as server:
        url = f"{server.base_url}compute/beta/projects/{PROJECT}/zones/{ZONE}/futureReservations"
        post = urllib.request.Request(
            url + "?alt=json",
            data=json.dumps(body).encode(),
            headers={"Content-Type": "application/json"},
            method="POST",
        )
        with urllib.request.urlopen(post, timeout=10) as resp:
            op = json.load(resp)
        with urllib.request.urlopen(op["targetLink"], timeout=10) as resp:
            got = json.load(resp)
        recorded = server.requests

    assert op["status"] == "DONE"
    assert op["operationType"] == "insert"
    assert op["targetLink"] == f"{url}/fr-x"
    assert op["zone"].endswith(f"/zones/{ZONE}")
    assert got["name"] == "fr-x" and got["reservationMode"] == "CALENDAR"
    assert got["selfLink"] == op["targetLink"]
    assert [(r.method, r.status) for r in recorded] == [("POST", 200), ("GET", 200)]
    assert recorded[0].body == body
    assert recorded[0].query == {"alt": ["json"]}
    assert recorded[0].headers["content-type"] == "application/json"


def test_runs_sharing_a_folder_run_each_command_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Processes running parts of one suite (``pytest -n``) share gcloud runs through a
    folder: each command runs once, whoever reaches it first, and all get its capture. (A
    stand-in executable counts the runs; two GcloudRuns stand for two processes.)"""
    log = tmp_path / "runs.log"
    fake = tmp_path / "gcloud"
    fake.write_text(f'#!/bin/sh\necho "$*" >> {log}\necho "ran $*"\n')
    fake.chmod(0o755)
    monkeypatch.setenv("PULUMI_DWS_GCLOUD", str(fake))
    commands = [GcloudCommand.of(["compute", "zones", "list", f"--page-size={n}"]) for n in (1, 2)]
    workers = [GcloudRuns(shared_dir=tmp_path / "shared") for _ in range(2)]
    for runs in workers:
        runs.prefetch(commands)
    captures = [[runs.run(c.args) for c in commands] for runs in workers]
    for runs in workers:
        runs.close()

    assert sorted(log.read_text().splitlines()) == [" ".join(c.args) for c in commands]
    assert captures[0] == captures[1]
    assert [c.stdout for c in captures[0]] == [f"ran {' '.join(c.args)}\n" for c in commands]
    alone = GcloudRuns()  # no shared folder: its own run
    assert alone.run(commands[0].args).stdout == captures[0][0].stdout
    alone.close()
    assert len(log.read_text().splitlines()) == 3


# --------------------------------------------------------------------------------------------
# With gcloud
# --------------------------------------------------------------------------------------------


@pytest.mark.gcloud(GCLOUD["future_reservation"])
def test_future_reservation_calendar_body(gcloud_runs: GcloudRuns) -> None:
    cap = _capture(gcloud_runs, "future_reservation")
    assert cap.ok, cap.describe()
    _assert_all_answered(cap)

    create = cap.create_request()
    assert create.method == "POST"
    assert create.path == f"/compute/alpha/projects/{PROJECT}/zones/{ZONE}/futureReservations"
    assert create.body == {
        "name": "fr-1",
        "reservationMode": "CALENDAR",
        "planningStatus": "SUBMITTED",
        "deploymentType": "DENSE",
        "autoDeleteAutoCreatedReservations": True,
        "specificReservationRequired": True,
        "specificSkuProperties": {
            "instanceProperties": {"machineType": "a3-highgpu-8g"},
            "totalCount": "2",  # int64: a JSON string
        },
        # Sent verbatim as typed on the command line.
        "timeWindow": {"startTime": _rfc3339(START), "endTime": _rfc3339(END)},
    }
    # Only the create changes anything; gcloud then GETs the new resource to print it.
    assert [str(r) for r in cap.mutations] == [str(create)]
    cap.one("GET", r"/futureReservations/fr-1$")


@pytest.mark.gcloud(GCLOUD["flex_start_vm"])
def test_flex_start_vm_body(gcloud_runs: GcloudRuns) -> None:
    cap = _capture(gcloud_runs, "flex_start_vm")
    assert cap.ok, cap.describe()
    _assert_all_answered(cap)

    create = cap.create_request()
    assert create.path == f"/compute/alpha/projects/{PROJECT}/zones/{ZONE}/instances"
    body = create.body
    assert body["name"] == "vm-1"
    assert body["scheduling"] == {
        "provisioningModel": "FLEX_START",
        "maxRunDuration": {"seconds": "259200"},  # 3d; int64 seconds as a JSON string
        "instanceTerminationAction": "STOP",
        "automaticRestart": False,
        "onHostMaintenance": "TERMINATE",
    }
    assert "params" not in body  # no --request-valid-for-duration given
    canonical = cap.canonical(body)
    assert canonical["machineType"] == (
        "https://compute.googleapis.com/compute/alpha/projects/demo-project/zones/"
        "us-central1-a/machineTypes/a3-highgpu-1g"
    )
    [disk] = canonical["disks"]
    assert disk["boot"] is True and disk["autoDelete"] is True
    assert disk["initializeParams"]["sourceImage"] == (
        "https://compute.googleapis.com/compute/alpha/projects/debian-cloud/zones/-/"
        "imageFamilyViews/debian-12"
    )
    # Before the insert gcloud reads the zone and the project (for its default service
    # account); the project answer has one, so the body carries serviceAccounts.
    cap.one("GET", rf"/compute/alpha/projects/{PROJECT}/zones/{ZONE}$")
    cap.one("GET", rf"/compute/alpha/projects/{PROJECT}$")
    assert body["serviceAccounts"][0]["email"] == "default"
    assert [str(r) for r in cap.mutations] == [str(create)]


@pytest.mark.gcloud(GCLOUD["flex_start_vm_queued"])
def test_request_valid_for_duration_flag(gcloud_runs: GcloudRuns) -> None:
    """gcloud 528 rejects the flag; a later gcloud that accepts it must send params."""
    cap = _capture(gcloud_runs, "flex_start_vm_queued")
    if not cap.ok:
        assert "unrecognized arguments: --request-valid-for-duration" in cap.stderr, cap.describe()
        assert cap.requests == ()  # rejected while parsing: nothing was sent
        return
    body = cap.create_request().body
    assert body["params"]["requestValidForDuration"] == {"seconds": "7200"}
    assert body["scheduling"]["provisioningModel"] == "FLEX_START"


@pytest.mark.gcloud(GCLOUD["queued_node_pool"])
def test_queued_provisioning_node_pool_body(
    gcloud_runs: GcloudRuns,
) -> None:
    cap = _capture(gcloud_runs, "queued_node_pool")
    assert cap.ok, cap.describe()
    _assert_all_answered(cap)

    parent = f"projects/{PROJECT}/locations/{REGION}/clusters/c1"
    create = cap.create_request()
    assert create.method == "POST"
    assert create.path == f"/v1beta1/{parent}/nodePools"
    assert create.body["parent"] == parent
    pool = create.body["nodePool"]
    assert pool["name"] == "dws-pool"
    assert pool["queuedProvisioning"] == {"enabled": True}
    assert pool["initialNodeCount"] == 0  # int32: a JSON number
    assert pool["autoscaling"] == {
        "enabled": True,
        "locationPolicy": "ANY",
        "totalMaxNodeCount": 10,
    }
    assert pool["management"]["autoRepair"] is False
    assert pool["locations"] == [ZONE]
    config = pool["config"]
    assert config["machineType"] == "a3-highgpu-8g"
    assert config["reservationAffinity"] == {"consumeReservationType": "NO_RESERVATION"}
    assert config["accelerators"] == [
        {
            "acceleratorType": "nvidia-h100-80gb",
            "acceleratorCount": "8",  # int64: a JSON string
            "gpuDriverInstallationConfig": {"gpuDriverVersion": "LATEST"},
        }
    ]
    # gcloud polls the (already DONE) operation, then reads the new pool to print it.
    assert [r.method for r in cap.requests] == ["POST", "GET", "GET"]
    cap.one("GET", rf"/v1beta1/projects/{PROJECT}/locations/{REGION}/operations/operation-")
    cap.one("GET", r"/nodePools/dws-pool$")
