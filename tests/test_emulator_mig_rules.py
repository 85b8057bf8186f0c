"""The rules Google documents for a managed instance group's create, as the Compute emulator
enforces them over HTTP (v1 and beta, the version the pulumi-gcp provider calls): update
policy, redistribution, target shape and zones (AI zones only when listed), workload policies
and A4X groups. Each refusal is Google's 400 (404 for a missing policy) and makes nothing."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import requests

from pulumi_dws.testing.clock_helpers import flex_start_group_template
from pulumi_dws.testing.emulator import Emulator
from pulumi_dws.testing.emulator.compute import ComputeService

PROJECT, REGION = "p", "us-central1"
TEMPLATE = f"projects/{PROJECT}/global/instanceTemplates/"


class Api:
    def __init__(self, emu: Emulator, version: str = "beta") -> None:
        self.base = f"{emu.url}compute/{version}/projects/{PROJECT}/"

    def call(self, method: str, path: str, body: Any = None) -> requests.Response:
        return requests.request(method, self.base + path, json=body, timeout=10)

    def ok(self, method: str, path: str, body: Any = None) -> dict[str, Any]:
        answer = self.call(method, path, body)
        assert answer.status_code == 200, answer.text
        return answer.json()

    def error(self, status: int, method: str, path: str, body: Any = None) -> str:
        answer = self.call(method, path, body)
        assert answer.status_code == status, answer.text
        return str(answer.json()["error"]["message"])


@pytest.fixture
def emu() -> Iterator[Emulator]:
    with Emulator() as emulator:
        yield emulator


@pytest.fixture
def api(emu: Emulator) -> Api:
    v1 = Api(emu, "v1")
    for name, machine in (
        ("a3", "a3-highgpu-8g"),
        ("a4", "a4-highgpu-8g"),
        ("g2", "g2-standard-8"),
    ):
        v1.ok("POST", "global/instanceTemplates", {
            "name": name, "properties": flex_start_group_template(machine),
        })  # fmt: skip
    bound = flex_start_group_template("a4x-highgpu-4g")
    bound["scheduling"] = {"provisioningModel": "RESERVATION_BOUND"}
    v1.ok("POST", "global/instanceTemplates", {"name": "a4x", "properties": bound})
    flex_a4x = flex_start_group_template("a4x-highgpu-4g")
    v1.ok("POST", "global/instanceTemplates", {"name": "a4x-flex", "properties": flex_a4x})
    return Api(emu)


def regional(name: str = "g", template: str = "a3", **extra: Any) -> dict[str, Any]:
    """A regional Flex-start group as gcloud makes it (Google's defaults for the rest)."""
    return {
        "name": name,
        "instanceTemplate": TEMPLATE + template,
        "targetSize": 0,
        "instanceLifecyclePolicy": {"defaultActionOnFailure": "DO_NOTHING"},
        "distributionPolicy": {"targetShape": "ANY_SINGLE_ZONE"},
        "updatePolicy": {"instanceRedistributionType": "NONE"},
        **extra,
    }


GROUPS = f"regions/{REGION}/instanceGroupManagers"
ZONAL = f"zones/{REGION}-a/instanceGroupManagers"


def surge(fixed_surge: int | None, fixed_unavailable: int | None) -> dict[str, Any]:
    policy: dict[str, Any] = {"instanceRedistributionType": "NONE", "type": "OPPORTUNISTIC"}
    if fixed_surge is not None:
        policy["maxSurge"] = {"fixed": fixed_surge, "percent": None}
    if fixed_unavailable is not None:
        policy["maxUnavailable"] = {"fixed": fixed_unavailable, "percent": None}
    return policy


@pytest.mark.parametrize(
    ("policy", "problem"),
    [
        (surge(0, 0), "maxSurge and maxUnavailable both 0"),
        (surge(0, 2), "at least its 3 zones"),  # a regional fixed value: 0 or >= zones
        (surge(1, None), "at least its 3 zones"),
        (
            {"instanceRedistributionType": "NONE", "maxUnavailable": {"percent": 50}},
            "10 or more instances",
        ),
    ],
    ids=["both-0", "unavailable-below-zones", "surge-below-zones", "percent-of-an-empty-group"],
)
def test_update_policies_google_refuses(api: Api, policy: dict[str, Any], problem: str) -> None:
    assert problem in api.error(400, "POST", GROUPS, regional(updatePolicy=policy))
    assert "was not found" in api.error(404, "GET", f"{GROUPS}/g")


@pytest.mark.parametrize(
    "policy",
    [surge(0, 3), surge(3, 0), surge(None, None), {"instanceRedistributionType": "NONE"}],
    ids=["unavailable-3", "surge-3", "defaults", "gcloud"],
)
def test_update_policies_google_accepts(api: Api, policy: dict[str, Any]) -> None:
    api.ok("POST", GROUPS, regional(updatePolicy=policy))


def test_one_zone_listed_lets_one_vm_be_unavailable(api: Api) -> None:
    zones = {"targetShape": "ANY_SINGLE_ZONE", "zones": [{"zone": f"zones/{REGION}-b"}]}
    api.ok("POST", GROUPS, regional(distributionPolicy=zones, updatePolicy=surge(0, 1)))


@pytest.mark.parametrize("shape", ["ANY_SINGLE_ZONE", "BALANCED"])
def test_these_shapes_need_redistribution_off(api: Api, shape: str) -> None:
    body = regional(distributionPolicy={"targetShape": shape}, updatePolicy={})
    assert "proactive redistribution off" in api.error(400, "POST", GROUPS, body)
    body["updatePolicy"] = {"instanceRedistributionType": "PROACTIVE"}
    assert "proactive redistribution off" in api.error(400, "POST", GROUPS, body)
    api.ok("POST", GROUPS, {**body, "updatePolicy": {"instanceRedistributionType": "NONE"}})


@pytest.mark.parametrize(
    ("zone", "problem"),
    [
        ("us-east1-b", "not in the group's region us-central1"),
        ("us-central1-z", "Unknown zone"),
        ("us-central1-ai9z", "Unknown zone"),  # an AI zone Google does not document
    ],
)
def test_listed_zones_are_known_zones_of_the_region(api: Api, zone: str, problem: str) -> None:
    policy = {"targetShape": "ANY_SINGLE_ZONE", "zones": [{"zone": f"zones/{zone}"}]}
    assert problem in api.error(400, "POST", GROUPS, regional(distributionPolicy=policy))


def test_a_zonal_group_has_no_distribution_policy(api: Api) -> None:
    body = regional()
    del body["updatePolicy"]
    assert "regional groups" in api.error(400, "POST", ZONAL, body)


def test_a_regional_group_reaches_an_ai_zone_only_when_it_is_listed(
    api: Api, emu: Emulator
) -> None:
    compute: ComputeService = emu["compute"]
    compute.add_capacity(f"{REGION}-ai1a", "a3-highgpu-8g", 4)  # free only in the AI zone
    api.ok("POST", GROUPS, regional("standard"))
    listed = {"targetShape": "ANY_SINGLE_ZONE", "zones": [
        {"zone": f"zones/{REGION}-a"}, {"zone": f"zones/{REGION}-ai1a"},
    ]}  # fmt: skip
    api.ok("POST", GROUPS, regional("ai", distributionPolicy=listed, updatePolicy=surge(0, 2)))
    request = {"name": "rr", "resizeBy": 4, "requestedRunDuration": {"seconds": "86400"}}
    v1 = Api(emu, "v1")
    v1.ok("POST", f"{GROUPS}/standard/resizeRequests", request)
    assert v1.ok("GET", f"{GROUPS}/standard/resizeRequests/rr")["state"] == "ACCEPTED"
    v1.ok("POST", f"{GROUPS}/ai/resizeRequests", request)
    assert v1.ok("GET", f"{GROUPS}/ai/resizeRequests/rr")["state"] == "SUCCEEDED"
    zones = {vm["zone"].rsplit("/", 1)[-1] for vm in compute.instances(PROJECT)}
    assert zones == {f"{REGION}-ai1a"}


# ---------------------------------------------------------------------- workload policies
POLICIES = f"regions/{REGION}/resourcePolicies"


def policy(name: str, **workload: Any) -> dict[str, Any]:
    return {
        "name": name,
        "region": REGION,
        "workloadPolicy": {"type": "HIGH_THROUGHPUT", **workload},
    }


def test_a_group_names_a_workload_policy_of_its_region(api: Api) -> None:
    api.ok("POST", POLICIES, policy("block", maxTopologyDistance="BLOCK"))
    link = {"workloadPolicy": f"projects/{PROJECT}/{POLICIES}/block"}
    api.ok("POST", GROUPS, regional("a4", "a4", resourcePolicies=link))
    assert "already being used" in api.error(400, "DELETE", f"{POLICIES}/block")
    missing = {"workloadPolicy": f"projects/{PROJECT}/{POLICIES}/nope"}
    assert "was not found" in api.error(
        404, "POST", GROUPS, regional("b", "a4", resourcePolicies=missing)
    )
    elsewhere = {"workloadPolicy": f"projects/{PROJECT}/regions/us-east1/resourcePolicies/block"}
    body = regional("c", "a4", resourcePolicies=elsewhere)
    assert "was not found" in api.error(404, "POST", GROUPS, body)
    api.ok("DELETE", f"{GROUPS}/a4")
    api.ok("DELETE", f"{POLICIES}/block")


@pytest.mark.parametrize(
    ("template", "workload", "problem"),
    [
        ("g2", {"maxTopologyDistance": "BLOCK"}, "can't be used with machine type g2-standard-8"),
        ("a4", {"acceleratorTopology": "1x72"}, "A4 VMs take maxTopologyDistance"),
        ("a4x", {"maxTopologyDistance": "BLOCK"}, "A4X VMs take acceleratorTopology"),
    ],
)
def test_workload_policies_only_for_their_series(
    api: Api, template: str, workload: dict[str, Any], problem: str
) -> None:
    api.ok("POST", POLICIES, policy("wp", **workload))
    link = {"workloadPolicy": f"{POLICIES}/wp"}
    body = regional(template=template, resourcePolicies=link)
    assert problem in api.error(400, "POST", GROUPS, body)


def test_a_workload_policy_takes_one_property_with_high_throughput(api: Api) -> None:
    both = policy("x", maxTopologyDistance="BLOCK", acceleratorTopology="1x72")
    assert "can't both be set" in api.error(400, "POST", POLICIES, both)
    available = {**policy("y", maxTopologyDistance="BLOCK")}
    available["workloadPolicy"]["type"] = "HIGH_AVAILABILITY"
    assert "need type HIGH_THROUGHPUT" in api.error(400, "POST", POLICIES, available)
    assert "NEAR" in api.error(400, "POST", POLICIES, policy("z", maxTopologyDistance="NEAR"))


def test_a4x_groups_are_reservation_bound_sized_with_a_workload_policy(
    api: Api, emu: Emulator
) -> None:
    zonal = f"zones/{REGION}-a/instanceGroupManagers"
    body = {
        "name": "a4x", "instanceTemplate": TEMPLATE + "a4x", "targetSize": 18,
        "instanceLifecyclePolicy": {"defaultActionOnFailure": "DO_NOTHING"},
    }  # fmt: skip
    assert "needs a workload policy" in api.error(400, "POST", zonal, body)
    flex = {**body, "name": "flex", "instanceTemplate": TEMPLATE + "a4x-flex", "targetSize": 0}
    assert "RESERVATION_BOUND provisioning model only" in api.error(400, "POST", zonal, flex)
    api.ok("POST", POLICIES, policy("slice", acceleratorTopology="1x72"))
    sliced = {**body, "resourcePolicies": {"workloadPolicy": f"{POLICIES}/slice"}}
    assert "does not have enough resources" in api.error(503, "POST", zonal, sliced)
    emu["compute"].add_capacity(f"{REGION}-a", "a4x-highgpu-4g", 18)  # the reservation's block
    api.ok("POST", zonal, sliced)
    assert len(emu["compute"].instances(PROJECT)) == 18
    single = {**body, "name": "one", "targetSize": 0}
    api.ok("POST", zonal, single)
    request = {"name": "rr", "resizeBy": 1}
    words = Api(emu, "v1").error(400, "POST", f"{zonal}/one/resizeRequests", request)
    assert "not with a resize request" in words
