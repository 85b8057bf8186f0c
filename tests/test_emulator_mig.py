"""The Compute emulator's managed instance groups, instance templates and resize requests, over
HTTP as a client sees them."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import requests

from pulumi_dws.testing.clock_helpers import flex_start_group_body, flex_start_group_template
from pulumi_dws.testing.emulator import Emulator
from pulumi_dws.testing.emulator.compute import ComputeService

PROJECT, ZONE, REGION, MACHINE = "p", "us-central1-a", "us-central1", "a3-highgpu-8g"
FLEX_PROPERTIES = flex_start_group_template(MACHINE)
RID = "0b4c1b7e-2a53-4f61-9c1a-8f0e1d2c3b4a"


@pytest.fixture
def emu() -> Iterator[Emulator]:
    with Emulator() as emulator:
        yield emulator


@pytest.fixture
def compute(emu: Emulator) -> ComputeService:
    return emu["compute"]


class Api:
    """Calls on the emulated Compute v1 API of project ``p``."""

    def __init__(self, emu: Emulator) -> None:
        self.base = f"{emu.url}compute/v1/projects/{PROJECT}/"

    def call(self, method: str, path: str, body: Any = None, **query: Any) -> requests.Response:
        return requests.request(method, self.base + path, json=body, params=query, timeout=10)

    def ok(self, method: str, path: str, body: Any = None, **query: Any) -> dict[str, Any]:
        answer = self.call(method, path, body, **query)
        assert answer.status_code == 200, answer.text
        return answer.json()

    def error(self, status: int, method: str, path: str, body: Any = None, **query: Any) -> str:
        answer = self.call(method, path, body, **query)
        assert answer.status_code == status, answer.text
        error = answer.json()["error"]
        assert error["code"] == status and error["errors"][0]["message"] == error["message"]
        return str(error["message"])


@pytest.fixture
def api(emu: Emulator) -> Api:
    return Api(emu)


ZONAL = f"zones/{ZONE}/instanceGroupManagers"
REGIONAL = f"regions/{REGION}/instanceGroupManagers"


def make_group(api: Api, *, regional: bool = False, name: str = "g", **extra: Any) -> None:
    template = f"projects/{PROJECT}/global/instanceTemplates/t-flex"
    body = flex_start_group_body(name, template, regional=regional, **extra)
    op = api.ok("POST", REGIONAL if regional else ZONAL, body)
    assert op["status"] == "DONE" and op["targetLink"].endswith(f"/instanceGroupManagers/{name}")
    assert ("region" if regional else "zone") in op


@pytest.fixture
def template(api: Api) -> None:
    api.ok("POST", "global/instanceTemplates", {"name": "t-flex", "properties": FLEX_PROPERTIES})


def request_body(name: str = "rr-1", count: int = 4, run: int | None = 259200) -> dict[str, Any]:
    body: dict[str, Any] = {"name": name, "resizeBy": count}
    if run is not None:
        body["requestedRunDuration"] = {"seconds": str(run)}
    return body


def state(api: Api, name: str = "rr-1", base: str = ZONAL, group: str = "g") -> str:
    return str(api.ok("GET", f"{base}/{group}/resizeRequests/{name}")["state"])


def members(api: Api, base: str = ZONAL, group: str = "g") -> list[dict[str, Any]]:
    answer = api.ok("POST", f"{base}/{group}/listManagedInstances")
    return list(answer.get("managedInstances") or [])


# ---------------------------------------------------------------------- templates and groups
def test_regional_templates_insert_get_delete(api: Api) -> None:
    path = f"regions/{REGION}/instanceTemplates"
    op = api.ok("POST", path, {"name": "t-r", "region": REGION, "properties": FLEX_PROPERTIES})
    assert op["region"].endswith(f"/regions/{REGION}")
    got = api.ok("GET", f"{path}/t-r")
    assert got["selfLink"].endswith(f"/regions/{REGION}/instanceTemplates/t-r")
    assert got["properties"]["scheduling"]["provisioningModel"] == "FLEX_START"
    assert "already exists" in api.error(409, "POST", path, {"name": "t-r", "properties": {}})
    api.ok("DELETE", f"{path}/t-r")
    api.error(404, "GET", f"{path}/t-r")
    # the body is checked against the discovery schema
    assert "bogus" in api.error(400, "POST", path, {"name": "t-x", "bogus": 1})


def test_a_regional_group_can_use_a_regional_template(api: Api) -> None:
    path = f"regions/{REGION}/instanceTemplates"
    api.ok("POST", path, {"name": "t-r", "properties": FLEX_PROPERTIES})
    body = {
        "name": "g",
        "instanceTemplate": f"projects/{PROJECT}/regions/{REGION}/instanceTemplates/t-r",
        "distributionPolicy": {"targetShape": "ANY_SINGLE_ZONE"},
        "updatePolicy": {"instanceRedistributionType": "NONE"},
    }
    api.ok("POST", REGIONAL, body)
    assert api.ok("GET", f"{REGIONAL}/g")["targetSize"] == 0
    body["name"], body["instanceTemplate"] = (
        "h",
        "projects/p/regions/us-central1/instanceTemplates/no",
    )
    assert "was not found" in api.error(404, "POST", REGIONAL, body)


@pytest.mark.usefixtures("template")
def test_groups_insert_get_delete_zonal_and_regional(api: Api) -> None:
    make_group(api)
    make_group(api, regional=True)
    zonal = api.ok("GET", f"{ZONAL}/g")
    assert zonal["targetSize"] == 0 and zonal["baseInstanceName"] == "g"
    assert zonal["zone"].endswith(f"/zones/{ZONE}")
    regional = api.ok("GET", f"{REGIONAL}/g")
    assert regional["region"].endswith(f"/regions/{REGION}")
    assert regional["distributionPolicy"]["targetShape"] == "ANY_SINGLE_ZONE"
    assert "already exists" in api.error(409, "POST", ZONAL, {"name": "g", "instanceTemplate": "x"})
    assert members(api) == []
    api.ok("DELETE", f"{ZONAL}/g")
    api.error(404, "GET", f"{ZONAL}/g")
    api.ok("GET", f"{REGIONAL}/g")  # the regional one of the same name is another group


@pytest.mark.usefixtures("template")
def test_group_bodies_and_paths_are_checked_as_google_checks_them(api: Api) -> None:
    body = {"name": "g", "instanceTemplate": "global/instanceTemplates/t-flex", "targetSiz": 0}
    assert "targetSiz" in api.error(400, "POST", ZONAL, body)
    # path parameters with a pattern in the discovery document are checked (the project)
    bad = f"{api.base}".replace("/p/", "/Bad_Project/") + f"{ZONAL}/g/resizeRequests"
    assert requests.post(bad, json=request_body(), timeout=10).status_code == 400
    # a Flex-start group starts empty and grows through resize requests only
    flex = {"name": "g", "instanceTemplate": "global/instanceTemplates/t-flex", "targetSize": 2}
    assert "targetSize 0" in api.error(400, "POST", ZONAL, flex)


# ---------------------------------------------------------------------- resize requests
@pytest.mark.usefixtures("template")
@pytest.mark.parametrize("regional", [False, True])
def test_request_waits_accepted_then_gets_the_whole_set_at_once(
    api: Api, emu: Emulator, compute: ComputeService, regional: bool
) -> None:
    base = REGIONAL if regional else ZONAL
    make_group(api, regional=regional)
    compute.mig_accept_seconds = 30
    op = api.ok("POST", f"{base}/g/resizeRequests", request_body(), requestId=RID)
    assert op["status"] == "RUNNING" and op["targetLink"].endswith("/resizeRequests/rr-1")
    assert state(api, base=base) == "CREATING"
    emu.clock.advance(30)
    assert state(api, base=base) == "ACCEPTED"
    where = "region" if regional else "zone"
    op_path = f"{where}s/{REGION if regional else ZONE}/operations/{op['name']}"
    assert api.ok("GET", op_path)["status"] == "DONE"
    assert api.ok("GET", f"{base}/g")["targetSize"] == 4  # raised on acceptance
    compute.add_capacity(ZONE, MACHINE, 3)  # not enough for the set: nothing is created
    emu.clock.advance(600)
    assert state(api, base=base) == "ACCEPTED" and members(api, base) == []
    compute.add_capacity(ZONE, MACHINE, 1, after=3600)
    emu.clock.advance(3600)
    assert state(api, base=base) == "SUCCEEDED"
    found = members(api, base)
    assert len(found) == 4 and {m["instanceStatus"] for m in found} == {"RUNNING"}
    assert {m["scheduling"]["terminationTimestamp"] for m in found} == {
        "2026-01-08T01:10:30.000-00:00"  # 3 days after the set was placed
    }
    # the group's VMs are ordinary instances, named after the group
    names = {i["name"] for i in api.ok("GET", f"zones/{ZONE}/instances")["items"]}
    assert names == {m["name"] for m in found} and all(n.startswith("g-") for n in names)
    assert compute.capacity.available(ZONE, MACHINE) == 0


@pytest.mark.usefixtures("template")
def test_the_run_end_deletes_the_vms_and_the_request_stays_succeeded(
    api: Api, emu: Emulator, compute: ComputeService
) -> None:
    make_group(api)
    compute.add_capacity(ZONE, MACHINE, 2)
    api.ok("POST", f"{ZONAL}/g/resizeRequests", request_body(count=2, run=600))
    assert state(api) == "SUCCEEDED" and len(members(api)) == 2
    emu.clock.advance(599)
    assert len(members(api)) == 2
    emu.clock.advance(1)
    assert members(api) == [] and compute.instances() == []
    assert state(api) == "SUCCEEDED"
    assert api.ok("GET", f"{ZONAL}/g")["targetSize"] == 0
    assert compute.capacity.available(ZONE, MACHINE) == 2  # given back


@pytest.mark.usefixtures("template")
def test_failed_request_rolls_back_the_vms_it_was_creating(
    api: Api, emu: Emulator, compute: ComputeService
) -> None:
    make_group(api)
    compute.mig_boot_seconds = 120
    compute.add_capacity(ZONE, MACHINE, 4)
    api.ok("POST", f"{ZONAL}/g/resizeRequests", request_body())
    assert state(api) == "ACCEPTED"  # VMs created, still STAGING
    assert {m["instanceStatus"] for m in members(api)} == {"STAGING"}
    compute.fail_resize_request(PROJECT, "g", "rr-1", zone=ZONE, code="QUOTA", message="no quota")
    got = api.ok("GET", f"{ZONAL}/g/resizeRequests/rr-1")
    assert got["state"] == "FAILED"
    assert got["status"]["error"]["errors"] == [{"code": "QUOTA", "message": "no quota"}]
    assert members(api) == [] and compute.instances() == []
    assert api.ok("GET", f"{ZONAL}/g")["targetSize"] == 0
    assert compute.capacity.available(ZONE, MACHINE) == 4


@pytest.mark.usefixtures("template")
def test_scripted_end_of_the_next_request(api: Api, emu: Emulator, compute: ComputeService) -> None:
    make_group(api, regional=True)
    compute.fail_next_resize_request(state="CANCELLED", after=600)
    api.ok("POST", f"{REGIONAL}/g/resizeRequests", request_body())
    emu.clock.advance(599)
    assert state(api, base=REGIONAL) == "ACCEPTED"
    emu.clock.advance(1)
    assert state(api, base=REGIONAL) == "CANCELLED"
    api.ok("POST", f"{REGIONAL}/g/resizeRequests", request_body("rr-2"))
    emu.clock.advance(3600)
    assert state(api, "rr-2", base=REGIONAL) == "ACCEPTED"  # only the next one was doomed


@pytest.mark.usefixtures("template")
def test_cancel_only_accepted_delete_only_finished(api: Api, compute: ComputeService) -> None:
    make_group(api)
    api.ok("POST", f"{ZONAL}/g/resizeRequests", request_body())
    path = f"{ZONAL}/g/resizeRequests/rr-1"
    assert "cancel it first" in api.error(400, "DELETE", path)
    api.ok("POST", f"{path}/cancel", requestId=RID)
    assert state(api) == "CANCELLED"
    assert api.ok("GET", f"{ZONAL}/g")["targetSize"] == 0
    # the same request id answers the same operation; a new one is refused now
    api.ok("POST", f"{path}/cancel", requestId=RID)
    assert "only an ACCEPTED request" in api.error(400, "POST", f"{path}/cancel")
    api.ok("DELETE", path)
    api.error(404, "GET", path)


@pytest.mark.usefixtures("template")
def test_deleting_a_request_leaves_its_vms_deleting_the_group_removes_them(
    api: Api, compute: ComputeService
) -> None:
    make_group(api)
    compute.add_capacity(ZONE, MACHINE, 2)
    api.ok("POST", f"{ZONAL}/g/resizeRequests", request_body(count=2))
    api.ok("DELETE", f"{ZONAL}/g/resizeRequests/rr-1")
    assert len(members(api)) == 2 and len(compute.instances()) == 2
    api.ok("DELETE", f"{ZONAL}/g")
    assert compute.instances() == [] and compute.resize_requests() == []
    assert compute.capacity.available(ZONE, MACHINE) == 2


@pytest.mark.usefixtures("template")
def test_names_are_unique_per_group_and_request_ids_deduplicate(
    api: Api, compute: ComputeService
) -> None:
    make_group(api)
    make_group(api, name="h")
    first = api.ok("POST", f"{ZONAL}/g/resizeRequests", request_body(), requestId=RID)
    again = api.ok("POST", f"{ZONAL}/g/resizeRequests", request_body(), requestId=RID)
    assert again["name"] == first["name"] and len(compute.resize_inserted) == 1
    assert "already exists" in api.error(409, "POST", f"{ZONAL}/g/resizeRequests", request_body())
    api.ok("POST", f"{ZONAL}/h/resizeRequests", request_body())  # another group: fine
    listed = api.ok("GET", f"{ZONAL}/g/resizeRequests")["items"]
    assert [r["name"] for r in listed] == ["rr-1"]


@pytest.mark.usefixtures("template")
@pytest.mark.parametrize(
    ("body", "words"),
    [
        (request_body(count=0), "resizeBy"),
        ({"name": "rr-1"}, "resizeBy"),
        (request_body(run=599), "requestedRunDuration"),
        (request_body(run=8 * 86400), "requestedRunDuration"),
        ({**request_body(), "resizeBy": "four"}, "resizeBy"),
        ({**request_body(), "queuingPolicy": {}}, "queuingPolicy"),
        ({"name": "rr-1", "instances": [{"name": "vm-a"}]}, "resizeBy only"),
    ],
)
def test_bad_request_bodies_are_refused_and_nothing_is_made(
    api: Api, compute: ComputeService, body: dict[str, Any], words: str
) -> None:
    make_group(api)
    assert words in api.error(400, "POST", f"{ZONAL}/g/resizeRequests", body)
    assert compute.resize_requests() == []


@pytest.mark.usefixtures("template")
def test_a_request_on_a_missing_group_is_not_found(api: Api) -> None:
    assert "was not found" in api.error(404, "POST", f"{ZONAL}/nope/resizeRequests", request_body())
    assert "was not found" in api.error(404, "GET", f"{ZONAL}/nope/resizeRequests/rr-1")


@pytest.mark.usefixtures("template")
def test_group_resize_and_delete_instances(
    api: Api, emu: Emulator, compute: ComputeService
) -> None:
    make_group(api)
    compute.add_capacity(ZONE, MACHINE, 3)
    api.ok("POST", f"{ZONAL}/g/resizeRequests", request_body(count=3))
    vms = members(api)
    api.ok("POST", f"{ZONAL}/g/resize", size=2)
    assert len(members(api)) == 2
    assert "FLEX_START" in api.error(400, "POST", f"{ZONAL}/g/resize", size=5)
    keep = members(api)
    body = {"instances": [keep[0]["instance"], "zones/x/instances/unknown"]}
    assert "not managed" in api.error(400, "POST", f"{ZONAL}/g/deleteInstances", body)
    api.ok("POST", f"{ZONAL}/g/deleteInstances", {**body, "skipInstancesOnValidationError": True})
    assert [m["name"] for m in members(api)] == [keep[1]["name"]]
    assert api.ok("GET", f"{ZONAL}/g")["targetSize"] == 1
    assert len(vms) == 3


@pytest.mark.usefixtures("template")
def test_the_target_size_cannot_change_while_a_request_is_accepted(api: Api) -> None:
    make_group(api)
    api.ok("POST", f"{ZONAL}/g/resizeRequests", request_body())
    assert "accepted resize requests" in api.error(400, "POST", f"{ZONAL}/g/resize", size=0)


@pytest.mark.usefixtures("template")
def test_groups_that_repair_or_spread_evenly_take_no_resize_requests(api: Api) -> None:
    make_group(api, name="repairs", instanceLifecyclePolicy={"defaultActionOnFailure": "REPAIR"})
    words = api.error(400, "POST", f"{ZONAL}/repairs/resizeRequests", request_body())
    assert "turn repairs off" in words
    even = {"name": "even", "instanceTemplate": "global/instanceTemplates/t-flex"}
    api.ok(
        "POST",
        REGIONAL,
        {**even, "instanceLifecyclePolicy": {"defaultActionOnFailure": "DO_NOTHING"}},
    )
    words = api.error(400, "POST", f"{REGIONAL}/even/resizeRequests", request_body())
    assert "targetShape EVEN" in words and "ANY_SINGLE_ZONE" in words
