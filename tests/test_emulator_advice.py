"""The emulated ``advice.calendarMode`` / ``advice.capacity`` methods, over real HTTP."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
import requests

from pulumi_dws.testing.emulator import Emulator, VirtualClock
from pulumi_dws.testing.emulator.advice import AdviceService
from pulumi_dws.testing.emulator.capacity import CapacityModel
from pulumi_dws.testing.emulator.server import _add_advice, default_services

DAY = dt.timedelta(days=1)
H100 = "a3-highgpu-8g"
MEGA = "a3-megagpu-8g"


def fresh_emulator() -> Emulator:
    clock = VirtualClock()
    return Emulator([AdviceService(CapacityModel(clock.now()), clock)], clock=clock)


@pytest.fixture
def emu(advice_emulator: Emulator) -> Emulator:
    """The module's server (never advanced) with a fresh capacity model and no scripted
    failures."""
    advice_emulator["advice"].reset()
    return advice_emulator


def advice(emu: Emulator) -> AdviceService:
    return emu["advice"]


def post(emu: Emulator, method: str, body: Any, project: str = "p1", region: str = "us-central1"):
    url = f"{emu.url}compute/v1/projects/{project}/regions/{region}/advice/{method}"
    return requests.post(url, json=body, timeout=10)


def calendar_body(
    count: int = 2,
    machine_type: str = H100,
    duration: str = "604800s",
    earliest: str | None = "2026-01-06T00:00:00Z",
    latest: str | None = "2026-03-01T00:00:00Z",
    deny: tuple[str, ...] = (),
) -> dict[str, Any]:
    """Shaped like the body ``gcloud beta compute advice calendar-mode`` sends."""
    time_range: dict[str, Any] = {"minDuration": duration, "maxDuration": duration}
    if earliest:
        time_range["startTimeNotEarlierThan"] = earliest
    if latest:
        time_range["startTimeNotLaterThan"] = latest
    spec: dict[str, Any] = {
        "deploymentType": "DENSE",
        "targetResources": {
            "specificSkuResources": {"instanceCount": str(count), "machineType": machine_type}
        },
        "timeRangeSpec": time_range,
    }
    if deny:
        spec["locationPolicy"] = {"locations": {f"zones/{z}": {"preference": "DENY"} for z in deny}}
    return {"futureResourcesSpecs": {"spec": spec}}


def capacity_body(
    size: int = 2,
    machine_types: tuple[str, ...] = (H100,),
    shape: str = "ANY_SINGLE_ZONE",
    zones: tuple[str, ...] = (),
    model: str = "FLEX_START",
) -> dict[str, Any]:
    body: dict[str, Any] = {
        "size": size,
        "instanceProperties": {"scheduling": {"provisioningModel": model}},
        "instanceFlexibilityPolicy": {
            "instanceSelections": {
                f"s{i}": {"machineTypes": [mt], "rank": str(i)}
                for i, mt in enumerate(machine_types)
            }
        },
        "distributionPolicy": {"targetShape": shape},
    }
    if zones:
        body["distributionPolicy"]["zones"] = [{"zone": f"zones/{z}"} for z in zones]
    return body


def blocks(emu: Emulator) -> None:
    cap, t0 = advice(emu).capacity, emu.clock.now()
    cap.offer_calendar("us-central1-a", H100, 4, t0 + 20 * DAY, t0 + 40 * DAY)
    cap.offer_calendar("us-central1-b", H100, 1, t0 + 10 * DAY, t0 + 40 * DAY)
    cap.offer_calendar("us-central1-c", H100, 8, t0 + 30 * DAY, t0 + 33 * DAY)
    cap.offer_calendar("us-central1-c", H100, 8, t0 + 12 * DAY, t0 + 30 * DAY)
    cap.offer_calendar("europe-west4-a", H100, 8, t0 + 2 * DAY, t0 + 30 * DAY)
    cap.add("us-central1-f", MEGA, 3)


def per_spec(body: dict[str, Any]) -> list[dict[str, Any]]:
    return [r["recommendationsPerSpec"]["spec"] for r in body.get("recommendations", [])]


# ------------------------------------------------------------------------------ wiring
def test_default_emulator_serves_advice_over_the_compute_capacity_model() -> None:
    clock = VirtualClock()
    services = {s.name: s for s in default_services(clock)}
    assert "advice" in services
    if "compute" in services:
        assert services["advice"].capacity is services["compute"].capacity


def test_advice_is_added_over_any_service_that_owns_a_capacity_model() -> None:
    clock = VirtualClock()

    class Owner:
        name = "compute"
        capacity = CapacityModel(clock.now())

        def routes(self) -> list:
            return []

        def tick(self, now: dt.datetime) -> None:
            return None

    owner = Owner()
    services: list[Any] = [owner]
    _add_advice(services, clock)
    assert [s.name for s in services] == ["advice", "compute"]  # specific routes first
    assert services[0].capacity is owner.capacity
    alone: list[Any] = []
    _add_advice(alone, clock)
    assert isinstance(alone[0].capacity, CapacityModel)


# ------------------------------------------------------------------------------ calendarMode
def test_calendar_mode_recommends_the_earliest_fitting_window_per_zone(emu: Emulator) -> None:
    blocks(emu)
    answer = post(emu, "calendarMode", calendar_body())
    assert answer.status_code == 200
    specs = per_spec(answer.json())
    assert [(s["location"], s["startTime"], s["endTime"]) for s in specs] == [
        ("zones/us-central1-c", "2026-01-17T00:00:00Z", "2026-01-24T00:00:00Z"),
        ("zones/us-central1-a", "2026-01-25T00:00:00Z", "2026-02-01T00:00:00Z"),
    ]
    first = specs[0]
    assert first["recommendationType"] == "FUTURE_RESERVATION"
    assert first["recommendationId"]
    assert first["otherLocations"]["zones/us-central1-a"]["status"] == "RECOMMENDED"
    assert first["otherLocations"]["zones/us-central1-b"]["status"] == "NO_CAPACITY"
    assert first["otherLocations"]["zones/us-central1-f"]["status"] == "NOT_SUPPORTED"
    assert "europe-west4-a" not in str(answer.json())


def test_calendar_mode_honours_deny_zones_and_the_start_range(emu: Emulator) -> None:
    blocks(emu)
    denied = post(emu, "calendarMode", calendar_body(deny=("us-central1-c",))).json()
    assert [s["location"] for s in per_spec(denied)] == ["zones/us-central1-a"]
    assert "zones/us-central1-c" not in per_spec(denied)[0]["otherLocations"]
    late = post(emu, "calendarMode", calendar_body(earliest="2026-01-31T00:00:00Z")).json()
    # zone a's block runs to day 40 (Feb 14): a 7-day window starting Jan 31 still fits.
    assert [s["startTime"] for s in per_spec(late)] == ["2026-01-31T00:00:00Z"]


def test_calendar_mode_duration_range_takes_the_longest_window_that_fits(emu: Emulator) -> None:
    blocks(emu)
    body = calendar_body(count=8)
    body["futureResourcesSpecs"]["spec"]["timeRangeSpec"]["maxDuration"] = "2592000s"  # 30d
    specs = per_spec(post(emu, "calendarMode", body).json())
    assert [(s["location"], s["startTime"], s["endTime"]) for s in specs] == [
        ("zones/us-central1-c", "2026-01-17T00:00:00Z", "2026-02-04T00:00:00Z")
    ]


def test_calendar_mode_prefers_the_longer_of_two_windows_starting_together(emu: Emulator) -> None:
    cap, t0 = advice(emu).capacity, emu.clock.now()
    cap.offer_calendar("us-central1-a", H100, 2, t0, t0 + 20 * DAY)  # 19 days from Jan 6
    cap.offer_calendar("us-central1-a", H100, 2, t0, t0 + 30 * DAY)  # 29 days from Jan 6
    body = calendar_body()
    body["futureResourcesSpecs"]["spec"]["timeRangeSpec"]["maxDuration"] = "2592000s"  # 30d
    (spec,) = per_spec(post(emu, "calendarMode", body).json())
    assert (spec["startTime"], spec["endTime"]) == ("2026-01-06T00:00:00Z", "2026-02-04T00:00:00Z")


def test_calendar_mode_empty_answer_lists_each_zone_and_why(emu: Emulator) -> None:
    blocks(emu)
    body = post(emu, "calendarMode", calendar_body(count=50)).json()
    (only,) = per_spec(body)
    assert "location" not in only and "startTime" not in only
    statuses = {zone: v["status"] for zone, v in only["otherLocations"].items()}
    assert statuses == {
        "zones/us-central1-a": "NO_CAPACITY",
        "zones/us-central1-b": "NO_CAPACITY",
        "zones/us-central1-c": "NO_CAPACITY",
        "zones/us-central1-f": "NOT_SUPPORTED",
    }
    assert post(emu, "calendarMode", calendar_body(), region="asia-east1").json() == {}


@pytest.mark.parametrize(
    ("mutate", "needle"),
    [
        (lambda b: b["futureResourcesSpecs"].update(other={}), "exactly one"),
        (lambda b: b["futureResourcesSpecs"]["spec"].pop("targetResources"), "machineType"),
        (
            lambda b: b["futureResourcesSpecs"]["spec"]["timeRangeSpec"].update(minDuration="9d"),
            "duration",
        ),
        (
            lambda b: b["futureResourcesSpecs"]["spec"]["timeRangeSpec"].update(maxDuration="60s"),
            "longer than maxDuration",
        ),
        (
            lambda b: b["futureResourcesSpecs"]["spec"]["timeRangeSpec"].update(
                startTimeNotLaterThan="2026-01-01T00:00:00Z"
            ),
            "cannot be matched",
        ),
    ],
)
def test_calendar_mode_rejects_malformed_requests(emu: Emulator, mutate: Any, needle: str) -> None:
    body = calendar_body()
    mutate(body)
    answer = post(emu, "calendarMode", body)
    assert answer.status_code == 400
    assert needle in answer.json()["error"]["message"]
    assert answer.json()["error"]["status"] == "INVALID_ARGUMENT"


# ------------------------------------------------------------------------------ capacity
def test_capacity_single_zone_picks_the_zone_with_most_free(emu: Emulator) -> None:
    cap = advice(emu).capacity
    cap.add("us-central1-a", H100, 1)
    cap.add("us-central1-b", H100, 3)
    answer = post(emu, "capacity", capacity_body(size=2)).json()
    (rec,) = answer["recommendations"]
    assert rec["scores"]["obtainability"] == 1.0
    assert rec["shards"] == [
        {
            "zone": "us-central1-b",
            "machineType": H100,
            "instanceCount": 2,
            "provisioningModel": "FLEX_START",
        }
    ]
    partial = post(emu, "capacity", capacity_body(size=6)).json()["recommendations"][0]
    assert partial["scores"]["obtainability"] == 0.5


def test_capacity_any_and_balanced_spread_over_zones(emu: Emulator) -> None:
    cap = advice(emu).capacity
    cap.add("us-central1-a", H100, 1)
    cap.add("us-central1-b", H100, 3)
    cap.add("us-central1-c", H100, 3)
    spread = post(emu, "capacity", capacity_body(size=5, shape="ANY")).json()
    counts = {s["zone"]: s["instanceCount"] for s in spread["recommendations"][0]["shards"]}
    assert counts == {"us-central1-b": 3, "us-central1-c": 2}
    even = post(emu, "capacity", capacity_body(size=5, shape="BALANCED")).json()
    counts = {s["zone"]: s["instanceCount"] for s in even["recommendations"][0]["shards"]}
    assert counts == {"us-central1-a": 1, "us-central1-b": 2, "us-central1-c": 2}


def test_capacity_ranks_machine_types_and_restricts_zones(emu: Emulator) -> None:
    cap = advice(emu).capacity
    cap.add("us-central1-a", H100, 1)
    cap.add("us-central1-b", MEGA, 4)
    body = capacity_body(size=2, machine_types=(H100, MEGA))
    shard = post(emu, "capacity", body).json()["recommendations"][0]["shards"][0]
    assert (shard["zone"], shard["machineType"]) == ("us-central1-b", MEGA)
    only_a = capacity_body(size=2, machine_types=(H100, MEGA), zones=("us-central1-a",))
    rec = post(emu, "capacity", only_a).json()["recommendations"][0]
    assert rec["shards"][0]["zone"] == "us-central1-a"
    assert rec["scores"]["obtainability"] == 0.5
    wrong = post(emu, "capacity", capacity_body(zones=("europe-west4-a",)))
    assert wrong.status_code == 400
    assert "not in region" in wrong.json()["error"]["message"]


def test_capacity_reads_the_shared_model_live() -> None:
    with fresh_emulator() as emu:  # its own server: this test moves the clock
        _capacity_follows_the_model(emu)


def _capacity_follows_the_model(emu: Emulator) -> None:
    cap = advice(emu).capacity
    assert post(emu, "capacity", capacity_body()).json() == {}  # nothing free: empty answer
    cap.add("us-central1-a", H100, 2, after=3600)
    assert post(emu, "capacity", capacity_body()).json() == {}
    emu.clock.advance(3600)  # the arrival lands
    assert post(emu, "capacity", capacity_body()).json()["recommendations"]
    assert cap.take("us-central1-a", H100, 2)  # a VM placed by the Compute service
    assert post(emu, "capacity", capacity_body()).json() == {}


@pytest.mark.parametrize(
    ("body", "needle"),
    [
        ({"size": 0}, "size"),
        ({"size": "many"}, "size"),
        ({"size": 1}, "machine type"),
        (capacity_body(model="CHEAP"), "provisioningModel"),
        (capacity_body(shape="EVERYWHERE"), "targetShape"),
    ],
)
def test_capacity_rejects_malformed_requests(emu: Emulator, body: Any, needle: str) -> None:
    answer = post(emu, "capacity", body)
    assert answer.status_code == 400
    assert needle in answer.json()["error"]["message"]


# ------------------------------------------------------------------------------ errors
def test_ineligible_projects_and_scripted_failures(emu: Emulator) -> None:
    service = advice(emu)
    service.ineligible.add("no-dws")
    refused = post(emu, "calendarMode", calendar_body(), project="no-dws")
    assert refused.status_code == 403
    assert "not eligible" in refused.json()["error"]["message"]
    service.fail_next(403, "Quota exceeded for quota metric 'Advice requests'", "quotaExceeded")
    failed = post(emu, "capacity", capacity_body())
    assert failed.status_code == 403
    assert failed.json()["error"]["errors"][0]["reason"] == "quotaExceeded"
    assert post(emu, "capacity", capacity_body()).status_code == 200  # one-shot
    assert post(emu, "capacity", capacity_body(), region="us_central1").status_code == 404
    assert [c[0] for c in service.calls][:2] == ["calendarMode", "capacity"]


def test_reset_forgets_capacity_ineligible_projects_calls_and_scripted_failures(
    emu: Emulator,
) -> None:
    service = advice(emu)
    service.capacity.add("us-central1-a", H100, 2)
    service.ineligible.add("no-dws")
    service.fail_next(503, "down", "backendError")
    post(emu, "capacity", capacity_body())
    fresh = service.reset()
    assert fresh is service.capacity and service.calls == [] and not service.ineligible
    assert post(emu, "calendarMode", calendar_body(), project="no-dws").status_code == 200
    assert post(emu, "capacity", capacity_body()).status_code == 200  # no failure left
    assert fresh.available("us-central1-a", H100) == 0
