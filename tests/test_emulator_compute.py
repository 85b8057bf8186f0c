"""The emulated Compute Engine API: DWS Flex-start behaviour on a virtual clock, over HTTP."""

from __future__ import annotations

import copy
import uuid
from typing import Any

import pytest
import requests
from emulator_helpers import HOUR, MACHINE, ZONE
from emulator_helpers import body as instance_body

from pulumi_dws.testing.emulator import Emulator
from pulumi_dws.testing.emulator.compute import STOCKOUT_CODE, ComputeService


class Api:
    """Thin HTTP client for the emulator's Compute paths (project ``p``, zone ``ZONE``)."""

    def __init__(self, emu: Emulator) -> None:
        self.emu = emu
        self.base = f"{emu.url}compute/v1/projects/p/zones/{ZONE}/"

    def call(self, method: str, path: str, body: Any = None, **query: str) -> requests.Response:
        return requests.request(method, self.base + path, json=body, params=query, timeout=10)

    def ok(self, method: str, path: str, body: Any = None, **query: str) -> dict[str, Any]:
        response = self.call(method, path, body, **query)
        assert response.status_code == 200, response.text
        return response.json()

    def insert(self, body: dict[str, Any], **query: str) -> dict[str, Any]:
        return self.ok("POST", "instances", body, **query)

    def instance(self, name: str = "vm-1") -> dict[str, Any]:
        return self.ok("GET", f"instances/{name}")

    def op(self, op: dict[str, Any]) -> dict[str, Any]:
        return self.ok("GET", f"operations/{op['name']}")


def flex_body(name: str = "vm-1", **changes: Any) -> dict[str, Any]:
    return instance_body(name, public_ip=True, **changes)


@pytest.fixture
def api(emu: Emulator) -> Api:
    return Api(emu)


def test_default_services_share_the_capacity_model(emu: Emulator, compute: ComputeService) -> None:
    assert isinstance(compute, ComputeService)
    if "advice" in emu.services:
        assert emu["advice"].capacity is compute.capacity


def test_queued_request_waits_pending_then_runs_when_capacity_arrives(
    emu: Emulator, api: Api, compute: ComputeService
) -> None:
    compute.add_capacity(ZONE, MACHINE, 1, after=HOUR)
    op = api.insert(flex_body())
    assert op["status"] == "RUNNING" and op["operationType"] == "insert"
    assert api.instance()["status"] == "PENDING"
    emu.clock.advance(HOUR - 1)
    assert api.instance()["status"] == "PENDING"
    assert api.op(op)["status"] == "RUNNING"
    emu.clock.advance(1)
    vm = api.instance()
    assert vm["status"] == "RUNNING"
    assert vm["lastStartTimestamp"] == "2026-01-05T01:00:00.000-00:00"
    assert vm["resourceStatus"]["scheduling"]["terminationTimestamp"] == (
        "2026-01-08T01:00:00.000-00:00"
    )
    assert vm["networkInterfaces"][0]["networkIP"]
    assert vm["networkInterfaces"][0]["accessConfigs"][0]["natIP"]
    assert "params" not in vm  # input only
    done = api.op(op)
    assert done["status"] == "DONE" and "error" not in done
    assert compute.capacity.available(ZONE, MACHINE) == 0


def test_queue_window_expiry_fails_the_operation_and_removes_the_vm(
    emu: Emulator, api: Api, compute: ComputeService
) -> None:
    op = api.insert(flex_body(window=90))
    emu.clock.advance(89)
    assert api.instance()["status"] == "PENDING"
    emu.clock.advance(1)
    done = api.op(op)
    assert done["status"] == "DONE"
    assert done["error"]["errors"][0]["code"] == STOCKOUT_CODE
    assert done["httpErrorStatusCode"] == 503
    missing = api.call("GET", "instances/vm-1")
    assert missing.status_code == 404
    assert missing.json()["error"]["errors"][0]["reason"] == "notFound"
    # capacity that arrives later is not consumed by the expired request
    compute.add_capacity(ZONE, MACHINE, 1)
    assert compute.capacity.available(ZONE, MACHINE) == 1


def test_expired_request_can_leave_a_terminated_vm(emu: Emulator) -> None:
    emu["compute"].keep_failed_instances = True
    api = Api(emu)
    api.insert(flex_body(window=90))
    emu.clock.advance(90)
    assert api.instance()["status"] == "TERMINATED"


def test_fail_fast_runs_now_when_capacity_is_free(api: Api, compute: ComputeService) -> None:
    compute.add_capacity(ZONE, MACHINE, 1)
    op = api.insert(flex_body(window=None))
    assert op["status"] == "DONE" and "error" not in op
    assert api.instance()["status"] == "RUNNING"


def test_fail_fast_stockout_errors_after_about_90_seconds(emu: Emulator, api: Api) -> None:
    op = api.insert(flex_body(window=None))
    assert api.instance()["status"] == "PROVISIONING"
    emu.clock.advance(89)
    assert api.op(op)["status"] == "RUNNING"
    emu.clock.advance(1)
    done = api.op(op)
    assert done["error"]["errors"][0]["code"] == STOCKOUT_CODE
    assert "not queued" in done["error"]["errors"][0]["message"]
    assert api.call("GET", "instances/vm-1").status_code == 404


def test_fail_fast_succeeds_if_capacity_arrives_while_trying(
    emu: Emulator, api: Api, compute: ComputeService
) -> None:
    compute.add_capacity(ZONE, MACHINE, 1, after=30)
    op = api.insert(flex_body(window=None))
    emu.clock.advance(60)
    assert api.op(op)["status"] == "DONE" and "error" not in api.op(op)
    assert api.instance()["status"] == "RUNNING"


@pytest.mark.parametrize("action", ["STOP", "DELETE"])
def test_max_run_duration_ends_in_stop_or_delete(
    emu: Emulator, api: Api, compute: ComputeService, action: str
) -> None:
    compute.add_capacity(ZONE, MACHINE, 1)
    api.insert(flex_body(run=HOUR, action=action))
    emu.clock.advance(HOUR - 1)
    assert api.instance()["status"] == "RUNNING"
    emu.clock.advance(1)
    if action == "STOP":
        vm = api.instance()
        assert vm["status"] == "TERMINATED"
        assert vm["lastStopTimestamp"] == "2026-01-05T01:00:00.000-00:00"
        assert "resourceStatus" not in vm
    else:
        assert api.call("GET", "instances/vm-1").status_code == 404
    assert compute.capacity.available(ZONE, MACHINE) == 1


def test_a_three_day_run_in_one_advance_keeps_events_in_time_order(
    emu: Emulator, api: Api, compute: ComputeService
) -> None:
    compute.add_capacity(ZONE, MACHINE, 1, after=HOUR)
    api.insert(flex_body(window=2 * HOUR, run=3 * 86400))
    emu.clock.advance(5 * 86400)
    vm = api.instance()
    assert vm["status"] == "TERMINATED"
    assert vm["lastStartTimestamp"] == "2026-01-05T01:00:00.000-00:00"
    assert vm["lastStopTimestamp"] == "2026-01-08T01:00:00.000-00:00"


def test_stop_releases_capacity_and_start_restarts_the_clock(
    emu: Emulator, api: Api, compute: ComputeService
) -> None:
    compute.add_capacity(ZONE, MACHINE, 1)
    api.insert(flex_body(run=86400))
    emu.clock.advance(HOUR)
    stop = api.ok("POST", "instances/vm-1/stop", requestId=str(uuid.uuid4()))
    assert stop["status"] == "DONE"
    assert api.instance()["status"] == "TERMINATED"
    assert compute.capacity.available(ZONE, MACHINE) == 1
    emu.clock.advance(HOUR)
    start = api.ok("POST", "instances/vm-1/start")
    assert start["status"] == "DONE"
    vm = api.instance()
    assert vm["status"] == "RUNNING"
    assert vm["lastStartTimestamp"] == "2026-01-05T02:00:00.000-00:00"
    assert vm["resourceStatus"]["scheduling"]["terminationTimestamp"] == (
        "2026-01-06T02:00:00.000-00:00"
    )


def test_start_places_a_new_queued_request(
    emu: Emulator, api: Api, compute: ComputeService
) -> None:
    compute.add_capacity(ZONE, MACHINE, 1)
    api.insert(flex_body(window=HOUR))
    api.ok("POST", "instances/vm-1/stop")
    compute.capacity.take(ZONE, MACHINE)  # someone else got the capacity
    start = api.ok("POST", "instances/vm-1/start")
    assert start["status"] == "RUNNING"
    assert api.instance()["status"] == "PENDING"
    emu.clock.advance(HOUR)
    assert api.op(start)["error"]["errors"][0]["code"] == STOCKOUT_CODE
    assert api.instance()["status"] == "TERMINATED"  # kept: it existed before the start


def test_pending_requests_are_served_oldest_first(
    emu: Emulator, api: Api, compute: ComputeService
) -> None:
    api.insert(flex_body("vm-1"))
    api.insert(flex_body("vm-2"))
    compute.add_capacity(ZONE, MACHINE, 1, after=60)
    emu.clock.advance(60)
    assert api.instance("vm-1")["status"] == "RUNNING"
    assert api.instance("vm-2")["status"] == "PENDING"


def test_delete_gives_back_capacity_and_cancels_a_pending_request(
    api: Api, compute: ComputeService
) -> None:
    compute.add_capacity(ZONE, MACHINE, 1)
    api.insert(flex_body("vm-1"))
    op2 = api.insert(flex_body("vm-2"))
    assert api.ok("DELETE", "instances/vm-2")["operationType"] == "delete"
    assert api.op(op2)["error"]["errors"][0]["code"] == "RESOURCE_OPERATION_CANCELLED"
    api.ok("DELETE", "instances/vm-1")
    assert compute.capacity.available(ZONE, MACHINE) == 1
    assert compute.instances() == []
    gone = api.call("DELETE", "instances/vm-1")
    assert gone.status_code == 404


def test_request_id_makes_insert_idempotent(api: Api, compute: ComputeService) -> None:
    request_id = str(uuid.uuid4())
    first = api.insert(flex_body(), requestId=request_id)
    again = api.insert(flex_body(), requestId=request_id)
    assert again["name"] == first["name"]
    assert len(compute.instances()) == 1
    assert [rid for rid, _ in compute.inserted] == [request_id]
    other = api.call("POST", "instances", flex_body(), requestId=str(uuid.uuid4()))
    assert other.status_code == 409
    assert other.json()["error"]["errors"][0]["reason"] == "alreadyExists"


@pytest.mark.parametrize("bad", ["not-a-uuid", "00000000-0000-0000-0000-000000000000"])
def test_request_id_must_be_a_nonzero_uuid(api: Api, bad: str) -> None:
    response = api.call("POST", "instances", flex_body(), requestId=bad)
    assert response.status_code == 400


def test_request_id_dedups_deletes(api: Api, compute: ComputeService) -> None:
    compute.add_capacity(ZONE, MACHINE, 1)
    api.insert(flex_body())
    request_id = str(uuid.uuid4())
    first = api.ok("DELETE", "instances/vm-1", requestId=request_id)
    again = api.ok("DELETE", "instances/vm-1", requestId=request_id)
    assert first["name"] == again["name"]


def test_body_must_fit_the_discovery_schema(api: Api) -> None:
    body = flex_body()
    body["params"] = {"requestValidFor": {"seconds": "7200"}}
    response = api.call("POST", "instances", body)
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["status"] == "INVALID_ARGUMENT" and error["code"] == 400
    assert 'Unknown name "requestValidFor"' in error["message"]
    body = flex_body()
    body["scheduling"]["maxRunDuration"]["seconds"] = "1.5"
    response = api.call("POST", "instances", body)
    assert response.status_code == 400 and "TYPE_INT64" in response.json()["error"]["message"]


@pytest.mark.parametrize(
    ("change", "text"),
    [
        (lambda b: b["params"]["requestValidForDuration"].update(seconds="60"), "90s to 2h"),
        (lambda b: b["params"]["requestValidForDuration"].update(seconds="7201"), "90s to 2h"),
        (lambda b: b["scheduling"]["maxRunDuration"].update(seconds="700000"), "10m (600s) to 7d"),
        (lambda b: b["scheduling"].update(onHostMaintenance="MIGRATE"), "TERMINATE"),
        (lambda b: b["scheduling"].update(automaticRestart=True), "automaticRestart"),
        (lambda b: b["scheduling"].pop("maxRunDuration"), "maxRunDuration"),
        (lambda b: b["scheduling"].update(provisioningModel="STANDARD"), "FLEX_START"),
        (lambda b: b.update(machineType="zones/us-east1-b/machineTypes/a3-highgpu-8g"), "zone"),
    ],
)
def test_flex_start_rules(api: Api, change: Any, text: str) -> None:
    body = copy.deepcopy(flex_body())
    change(body)
    response = api.call("POST", "instances", body)
    assert response.status_code == 400, response.text
    assert text in response.json()["error"]["message"]


def test_set_labels_and_metadata_check_fingerprints(api: Api, compute: ComputeService) -> None:
    compute.add_capacity(ZONE, MACHINE, 1)
    api.insert({**flex_body(), "labels": {"team": "ml"}})
    vm = api.instance()
    stale = api.call(
        "POST",
        "instances/vm-1/setLabels",
        {"labels": {"a": "b"}, "labelFingerprint": "AAAAAAAAAAA="},
    )
    assert stale.status_code == 412
    assert stale.json()["error"]["errors"][0]["reason"] == "conditionNotMet"
    api.ok(
        "POST",
        "instances/vm-1/setLabels",
        {"labels": {"team": "infra"}, "labelFingerprint": vm["labelFingerprint"]},
    )
    after = api.instance()
    assert after["labels"] == {"team": "infra"}
    assert after["labelFingerprint"] != vm["labelFingerprint"]
    items = [{"key": "startup-script", "value": "echo hi"}]
    missing = api.call("POST", "instances/vm-1/setMetadata", {"items": items})
    assert missing.status_code == 412
    api.ok(
        "POST",
        "instances/vm-1/setMetadata",
        {"items": items, "fingerprint": after["metadata"]["fingerprint"]},
    )
    assert api.instance()["metadata"]["items"] == items


def test_instance_templates_and_source_instance_template(
    emu: Emulator, api: Api, compute: ComputeService
) -> None:
    template = {
        "name": "shape",
        "properties": {
            "machineType": MACHINE,
            "disks": [{"boot": True, "initializeParams": {"diskSizeGb": "100"}}],
            "networkInterfaces": [{"network": "global/networks/default"}],
            "scheduling": {"provisioningModel": "FLEX_START", "preemptible": False},
        },
    }
    root = f"{emu.url}compute/v1/projects/p/global/"
    op = requests.post(root + "instanceTemplates", json=template, timeout=10).json()
    assert op["status"] == "DONE"
    assert requests.get(root + f"operations/{op['name']}", timeout=10).json()["status"] == "DONE"
    link = requests.get(root + "instanceTemplates/shape", timeout=10).json()["selfLink"]
    compute.add_capacity(ZONE, MACHINE, 1)
    body = {"name": "vm-1", "scheduling": flex_body()["scheduling"]}
    api.insert(body, sourceInstanceTemplate=link)
    vm = api.instance()
    assert vm["status"] == "RUNNING"
    assert vm["machineType"].endswith(f"zones/{ZONE}/machineTypes/{MACHINE}")
    assert vm["disks"][0]["boot"] is True
    assert vm["scheduling"]["maxRunDuration"] == {"seconds": "259200"}
    assert vm["scheduling"]["preemptible"] is False  # merged from the template
    missing = api.call(
        "POST", "instances", {"name": "vm-2"}, sourceInstanceTemplate="global/instanceTemplates/x"
    )
    assert missing.status_code == 404


def test_list_get_and_operation_paths(api: Api, compute: ComputeService) -> None:
    assert "items" not in api.ok("GET", "instances")
    compute.add_capacity(ZONE, MACHINE, 2)
    op = api.insert(flex_body("vm-1"))
    api.insert(flex_body("vm-2"))
    names = sorted(i["name"] for i in api.ok("GET", "instances")["items"])
    assert names == ["vm-1", "vm-2"]
    assert api.ok("POST", f"operations/{op['name']}/wait")["status"] == "DONE"
    other_zone = requests.get(
        api.base.replace(ZONE, "us-east1-b") + f"operations/{op['name']}", timeout=10
    )
    assert other_zone.status_code == 404
    assert api.call("GET", "operations/nope").status_code == 404


def test_injected_faults_answer_like_google(emu: Emulator, api: Api) -> None:
    emu.faults.queue.extend(["429", "503"])
    first = api.call("GET", "instances")
    assert first.status_code == 429 and first.headers["Retry-After"] == "1"
    assert first.json()["error"]["status"] == "RESOURCE_EXHAUSTED"
    assert api.call("GET", "instances").status_code == 503
    assert api.call("GET", "instances").status_code == 200


def test_set_machine_type_needs_a_stopped_vm(api: Api, compute: ComputeService) -> None:
    compute.add_capacity(ZONE, MACHINE, 1)
    api.insert(flex_body())
    other = {"machineType": f"zones/{ZONE}/machineTypes/a3-highgpu-4g"}
    running = api.call("POST", "instances/vm-1/setMachineType", other)
    assert running.status_code == 400 and "stop the instance" in running.json()["error"]["message"]
    api.ok("POST", "instances/vm-1/stop")
    op = api.ok("POST", "instances/vm-1/setMachineType", other, requestId=str(uuid.uuid4()))
    assert op["operationType"] == "setMachineType" and op["status"] == "DONE"
    assert api.instance()["machineType"].endswith(f"zones/{ZONE}/machineTypes/a3-highgpu-4g")
    assert compute.capacity.available(ZONE, MACHINE) == 1  # the old shape's capacity is free
    compute.add_capacity(ZONE, "a3-highgpu-4g", 1)
    api.ok("POST", "instances/vm-1/start")
    assert api.instance()["status"] == "RUNNING"
    assert compute.capacity.available(ZONE, "a3-highgpu-4g") == 0  # it runs as the new shape
    bad = api.call("POST", "instances/vm-1/setMachineType", {"machineType": 8})
    assert bad.status_code == 400
