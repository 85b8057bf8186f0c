"""The MigResizeRequest dynamic provider, in process, over HTTP against the Compute emulator
(directly, or through the fault proxy for answers lost after Compute acted)."""

from __future__ import annotations

import base64
from typing import Any

import pytest
from pulumi.dynamic.dynamic import serialize_provider

from pulumi_dws.kinds.flex_group.create import create_key
from pulumi_dws.kinds.flex_group.provider import (
    RUNNING_WAIT_SECONDS,
    TYPE_TOKEN,
    MigResizeError,
    MigResizeRequest,
    MigResizeRequestProvider,
    resize_request_body,
)
from pulumi_dws.testing.clock_helpers import flex_start_group, mig_resize_props, virtual_sleep
from pulumi_dws.testing.dynamic_host import serialized_provider_size
from pulumi_dws.testing.emulator import Emulator
from pulumi_dws.testing.emulator.compute import ComputeService
from pulumi_dws.testing.fault_proxy import FaultProxy, ProxyFaultPlan

PROJECT, ZONE, REGION, MACHINE = "p", "us-central1-a", "us-central1", "a3-highgpu-8g"
HOUR = 3600
ID = f"projects/{PROJECT}/zones/{ZONE}/instanceGroupManagers/g/resizeRequests/rr-1"


@pytest.fixture
def group(emu: Emulator) -> str:
    return flex_start_group(emu, "g")


@pytest.fixture
def mig(emu: Emulator) -> MigResizeRequestProvider:
    """Sleeps advance the emulator's virtual clock: waiting hours takes milliseconds."""
    return MigResizeRequestProvider(sleep=virtual_sleep(emu))


def props(**changes: Any) -> dict[str, Any]:
    return {**mig_resize_props("rr-1", "g"), **changes}


def inserts(emu: Emulator) -> list[Any]:
    return [r for r in emu.requests if r.method == "POST" and r.path.endswith("/resizeRequests")]


def left(compute: ComputeService) -> tuple[list[Any], list[Any]]:
    return compute.instances(), compute.resize_requests()


# ---------------------------------------------------------------------- create
@pytest.mark.usefixtures("group")
def test_queued_request_waits_until_the_whole_set_runs(
    emu: Emulator, compute: ComputeService, mig: MigResizeRequestProvider
) -> None:
    compute.mig_boot_seconds = 90
    compute.add_capacity(ZONE, MACHINE, 4, after=HOUR)
    start = len(emu.requests)
    created = mig.create(props())
    assert created.id == ID
    outs = created.outs
    assert outs["state"] == "SUCCEEDED"
    seen = outs["observed"]
    assert len(seen["instances"]) == 4 and all(n.startswith("g-") for n in seen["instances"])
    assert {vm["status"] for vm in compute.instances()} == {"RUNNING"}
    assert seen["runEndsAt"] == "2026-01-08T01:01:30.000-00:00"  # 3 d after placement + boot
    assert seen["selfLink"].endswith("/resizeRequests/rr-1") and seen["error"] is None
    assert outs["body"] == props()["body"]  # the inputs are in the outputs
    [insert] = inserts(emu)
    assert insert.body == resize_request_body("rr-1", 4, 3 * 86400)
    assert insert.query["requestId"] == seen["requestId"]
    assert len(emu.requests) - start <= 24  # an hour of polling: a logarithmic number of calls


@pytest.mark.usefixtures("group")
def test_wait_for_accepted_returns_once_queued_and_read_follows_it(
    emu: Emulator, compute: ComputeService, mig: MigResizeRequestProvider
) -> None:
    start = emu.clock.now()
    created = mig.create(props(waitFor="accepted"))
    assert created.outs["state"] == "ACCEPTED" and emu.clock.now() == start
    assert created.outs["observed"]["instances"] == []
    assert created.outs["observed"]["runEndsAt"] is None
    compute.add_capacity(ZONE, MACHINE, 4, after=600)
    emu.clock.advance(600)
    read = mig.read(created.id, created.outs)
    assert read.outs["state"] == "SUCCEEDED" and len(read.outs["observed"]["instances"]) == 4
    assert read.outs["observed"]["runEndsAt"] == "2026-01-08T00:10:00.000-00:00"


def test_regional_request(emu: Emulator, compute: ComputeService, mig: MigResizeRequestProvider):
    flex_start_group(emu, "g", zone=None, region=REGION)
    compute.add_capacity("us-central1-b", MACHINE, 2, after=HOUR)  # one zone of the region
    created = mig.create(mig_resize_props("rr-1", "g", count=2, zone=None, region=REGION))
    assert (
        created.id
        == f"projects/{PROJECT}/regions/{REGION}/instanceGroupManagers/g/resizeRequests/rr-1"
    )
    assert created.outs["state"] == "SUCCEEDED"
    assert {vm["zone"].rsplit("/", 1)[-1] for vm in compute.instances()} == {"us-central1-b"}
    [insert] = inserts(emu)
    assert f"/regions/{REGION}/instanceGroupManagers/g/resizeRequests" in insert.path
    mig.delete(created.id, created.outs)
    assert left(compute) == ([], [])


@pytest.mark.usefixtures("group")
@pytest.mark.parametrize("state", ["FAILED", "CANCELLED"])
def test_a_request_google_ends_is_reported_and_leaves_nothing(
    emu: Emulator, compute: ComputeService, mig: MigResizeRequestProvider, state: str
) -> None:
    compute.fail_next_resize_request(
        state=state, code="ZONE_RESOURCE_POOL_EXHAUSTED", message="no a3 left", after=HOUR
    )
    with pytest.raises(MigResizeError) as err:
        mig.create(props())
    text = str(err.value)
    assert f"Resize request 'rr-1' (+4 VMs, run 3d, group g in {ZONE}, project p)" in text
    assert f"ended {state}" in text
    if state == "FAILED":
        assert "ZONE_RESOURCE_POOL_EXHAUSTED: no a3 left" in text
    assert "Nothing was left behind" in text
    assert left(compute) == ([], [])


@pytest.mark.usefixtures("group")
def test_the_failure_message_reads_as_plain_sentences(
    compute: ComputeService, mig: MigResizeRequestProvider
) -> None:
    compute.fail_next_resize_request(after=300)  # Google's message ends with a full stop
    with pytest.raises(MigResizeError) as err:
        mig.create(props())
    text = str(err.value)
    assert ".." not in text, text
    assert text.endswith("Nothing was left behind: the request was deleted."), text


@pytest.mark.usefixtures("group")
def test_a_failure_while_the_vms_boot_rolls_them_back_and_leaves_nothing(
    compute: ComputeService, mig: MigResizeRequestProvider
) -> None:
    compute.mig_boot_seconds = 600
    compute.add_capacity(ZONE, MACHINE, 4)
    compute.fail_next_resize_request(after=300)  # the VMs exist, STAGING
    with pytest.raises(MigResizeError, match="ended FAILED"):
        mig.create(props())
    assert left(compute) == ([], [])
    assert compute.capacity.available(ZONE, MACHINE) == 4


@pytest.mark.usefixtures("group")
def test_still_queued_when_the_wait_runs_out_is_kept_and_said(
    emu: Emulator,
    compute: ComputeService,
    mig: MigResizeRequestProvider,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """DWS keeps a resize request queued until capacity and quota exist: when the wait_timeout
    (default 2 h 10 min) passes, the create succeeds with the request's true state (ACCEPTED),
    says so, and nothing is cancelled; a later refresh follows it."""
    warned: list[str] = []
    monkeypatch.setattr(mig, "warn", warned.append)
    start = emu.clock.now()
    created = mig.create(props())
    assert (emu.clock.now() - start).total_seconds() >= RUNNING_WAIT_SECONDS
    outs = created.outs or {}
    assert outs["state"] == "ACCEPTED"
    note = outs["observed"]["note"]
    assert "wait_timeout" in note and "kept" in note and "on_timeout='cancel'" in note
    assert len(warned) == 1 and note in warned[0]  # the warning the engine shows
    assert [r["state"] for r in compute.resize_requests()] == ["ACCEPTED"]
    assert not any(r.path.endswith("/rr-1/cancel") for r in emu.requests)
    compute.add_capacity(ZONE, MACHINE, 4)
    emu.clock.advance(60)
    assert mig.read(created.id, outs).outs["state"] == "SUCCEEDED"  # `pulumi refresh`
    mig.delete(created.id, outs)
    assert left(compute) == ([], [])


@pytest.mark.usefixtures("group")
def test_still_queued_at_the_wait_timeout_with_on_timeout_cancel_is_cancelled_and_said(
    emu: Emulator, compute: ComputeService, mig: MigResizeRequestProvider
) -> None:
    start = emu.clock.now()
    with pytest.raises(MigResizeError) as err:
        mig.create(props(waitTimeout=3600, onTimeout="cancel"))
    assert 3600 <= (emu.clock.now() - start).total_seconds() < RUNNING_WAIT_SECONDS
    assert "still ACCEPTED" in str(err.value) and "wait_for='accepted'" in str(err.value)
    assert "Nothing was left behind" in str(err.value)
    assert left(compute) == ([], [])
    assert any(r.path.endswith("/rr-1/cancel") for r in emu.requests)


def test_a_missing_group_is_rejected_and_nothing_is_made(
    compute: ComputeService, mig: MigResizeRequestProvider
) -> None:
    with pytest.raises(MigResizeError, match="rejected by Compute Engine.*was not found"):
        mig.create(props())
    assert left(compute) == ([], [])


# ---------------------------------------------------------------------- adoption
@pytest.mark.usefixtures("group")
def test_crash_mid_create_then_up_again_adopts_the_request(
    emu: Emulator, compute: ComputeService, mig: MigResizeRequestProvider
) -> None:
    # the first `pulumi up` sent the insert and died: the request exists, the state has nothing
    compute.insert_resize_request(
        PROJECT, f"zones/{ZONE}", "g", resize_request_body("rr-1", 4, 3 * 86400)
    )
    compute.add_capacity(ZONE, MACHINE, 4, after=HOUR)
    created = mig.create(props())
    assert created.outs["state"] == "SUCCEEDED" and len(created.outs["observed"]["instances"]) == 4
    assert inserts(emu) == []  # nothing sent again: adopted
    assert len(compute.resize_inserted) == 1 and len(compute.instances()) == 4


@pytest.mark.usefixtures("group")
@pytest.mark.parametrize("state", ["FAILED", "CANCELLED"])
def test_a_crashed_ups_request_that_ended_is_replaced_by_a_fresh_one(
    emu: Emulator, compute: ComputeService, mig: MigResizeRequestProvider, state: str
) -> None:
    # the first `pulumi up` sent its insert and died while it waited (or while it cleaned up):
    # its request ended, and Compute still remembers the request id of its insert
    first = mig.create(props(waitFor="accepted")).outs["observed"]["requestId"]
    compute.fail_resize_request(PROJECT, "g", "rr-1", zone=ZONE, state=state)
    compute.add_capacity(ZONE, MACHINE, 4)
    created = mig.create(props())
    assert created.outs["state"] == "SUCCEEDED" and len(created.outs["observed"]["instances"]) == 4
    assert created.outs["observed"]["requestId"] != first
    assert [r["state"] for r in compute.resize_requests()] == ["SUCCEEDED"]
    assert len(compute.resize_inserted) == 2


@pytest.mark.usefixtures("group")
def test_a_request_of_that_name_asking_for_something_else_is_refused(
    emu: Emulator, compute: ComputeService, mig: MigResizeRequestProvider
) -> None:
    compute.insert_resize_request(
        PROJECT, f"zones/{ZONE}", "g", resize_request_body("rr-1", 2, 600)
    )
    with pytest.raises(MigResizeError) as err:
        mig.create(props())
    text = str(err.value)
    assert "already exists in group g and asks for something else" in text
    assert '"resizeBy": 2' in text and '"resizeBy": 4' in text
    assert "Nothing was created or changed" in text
    assert [r["resizeBy"] for r in compute.resize_requests()] == [2]  # untouched


@pytest.mark.usefixtures("group")
def test_a_second_request_on_a_group_whose_vms_run_is_refused(
    emu: Emulator, compute: ComputeService, mig: MigResizeRequestProvider
) -> None:
    # the VMs of a group can't be told apart by request: deleting one request deletes them all
    compute.add_capacity(ZONE, MACHINE, 4)
    first = mig.create(mig_resize_props("rr-1", "g", count=2))
    vms = sorted(vm["name"] for vm in compute.instances())
    with pytest.raises(MigResizeError) as err:
        mig.create(mig_resize_props("rr-2", "g", count=2))
    text = str(err.value)
    assert "group g already has resize request rr-1 (SUCCEEDED)" in text, text
    assert "Nothing was created or changed" in text and "another group" in text
    assert len(inserts(emu)) == 1 and sorted(vm["name"] for vm in compute.instances()) == vms
    # once it is gone, the group takes a new request
    mig.delete(first.id, first.outs)
    assert mig.create(mig_resize_props("rr-2", "g", count=2)).outs["state"] == "SUCCEEDED"


@pytest.mark.usefixtures("group")
def test_lost_insert_answers_are_settled_without_a_second_request(
    emu: Emulator, compute: ComputeService, monkeypatch: pytest.MonkeyPatch
) -> None:
    with FaultProxy(emu) as proxy:
        monkeypatch.setenv("DWS_COMPUTE_ENDPOINT", proxy.url)
        monkeypatch.setenv("DWS_HTTP_TIMEOUT", "0.2")
        proxy.plan = ProxyFaultPlan(
            queue=["lose"] * 14,
            match=lambda method, path: method == "POST" and path.endswith("/resizeRequests"),
        )
        compute.add_capacity(ZONE, MACHINE, 4)
        provider = MigResizeRequestProvider(sleep=virtual_sleep(emu))
        created = provider.create(props())
    assert created.outs["state"] == "SUCCEEDED"
    assert len(compute.resize_inserted) == 1  # every repeat carried the same request id
    assert len({r["requestId"] for r in compute.resize_inserted}) == 1


@pytest.mark.usefixtures("group")
@pytest.mark.parametrize("lost", [14, 21, 22, 60])
def test_a_clean_up_cut_short_reports_the_vms_it_left_running(
    emu: Emulator, compute: ComputeService, monkeypatch: pytest.MonkeyPatch, lost: int
) -> None:
    # the answers of the first `lost` listings of the group's VMs are lost: the create gives up
    # on a set that SUCCEEDED, and its clean-up may delete the request but not its VMs
    compute.add_capacity(ZONE, MACHINE, 4, after=600)
    with FaultProxy(emu) as proxy:
        monkeypatch.setenv("DWS_COMPUTE_ENDPOINT", proxy.url)
        monkeypatch.setenv("DWS_HTTP_TIMEOUT", "0.2")
        proxy.plan = ProxyFaultPlan(
            queue=["lose"] * lost,
            match=lambda _method, path: path.endswith("/listManagedInstances"),
        )
        provider = MigResizeRequestProvider(sleep=virtual_sleep(emu))
        try:
            outs = provider.create(props()).outs
        except MigResizeError as err:
            assert left(compute) == ([], []), err
            return
        proxy.plan = ProxyFaultPlan()
        running = sorted(vm["name"] for vm in compute.instances())
        assert running, "a create that succeeded brought its VMs"
        assert outs["state"] == "SUCCEEDED", outs  # not ACCEPTED, nor EXPIRED: the VMs run
        assert set(outs["observed"]["instances"]) <= set(running)
        read = provider.read(ID, outs)  # the next refresh finds every VM
        assert read.outs["observed"]["instances"] == running
        provider.delete(ID, read.outs)
    assert left(compute) == ([], [])


@pytest.mark.usefixtures("group")
@pytest.mark.parametrize("fault", ["lose", "html", "string_error"])
def test_a_clean_up_whose_delete_answers_are_lost_still_says_nothing_is_left(
    emu: Emulator, compute: ComputeService, monkeypatch: pytest.MonkeyPatch, fault: str
) -> None:
    compute.fail_next_resize_request(after=60)
    with FaultProxy(emu) as proxy:
        monkeypatch.setenv("DWS_COMPUTE_ENDPOINT", proxy.url)
        monkeypatch.setenv("DWS_HTTP_TIMEOUT", "0.2")
        proxy.plan = ProxyFaultPlan(
            queue=[fault] * 20, match=lambda method, _path: method == "DELETE"
        )
        provider = MigResizeRequestProvider(sleep=virtual_sleep(emu))
        with pytest.raises(MigResizeError) as err:  # not a success for a request that is gone
            provider.create(props())
    assert "ended FAILED" in str(err.value) and "Nothing was left behind" in str(err.value)
    assert left(compute) == ([], [])


@pytest.mark.usefixtures("group")
def test_429_and_5xx_are_retried_after_retry_after_with_the_same_request_id(
    emu: Emulator, compute: ComputeService, mig: MigResizeRequestProvider
) -> None:
    compute.add_capacity(ZONE, MACHINE, 4)
    emu.faults.match = lambda method, path: path.endswith(("/resizeRequests", "/cancel", "/rr-1"))
    emu.faults.retry_after = 30
    emu.faults.queue.extend(["429", "503", "drop", "429"])
    before = emu.clock.now()
    outs = mig.create(props()).outs
    assert outs["state"] == "SUCCEEDED"
    assert (emu.clock.now() - before).total_seconds() >= 60  # two 30 s Retry-Afters honoured
    sent = {r.query.get("requestId") for r in inserts(emu)}
    assert sent == {outs["observed"]["requestId"]} and len(compute.resize_inserted) == 1


@pytest.mark.usefixtures("group")
def test_recreate_after_delete_is_not_fooled_by_the_replayed_request_id(
    emu: Emulator, compute: ComputeService, mig: MigResizeRequestProvider
) -> None:
    compute.add_capacity(ZONE, MACHINE, 4)
    first = mig.create(props())
    mig.delete(first.id, first.outs)
    second = mig.create(props())  # same inputs, same first request id: Compute replays it
    assert second.outs["state"] == "SUCCEEDED" and len(compute.resize_requests()) == 1
    assert second.outs["observed"]["requestId"] != first.outs["observed"]["requestId"]


# ---------------------------------------------------------------------- read
@pytest.mark.usefixtures("group")
def test_read_reports_expired_once_the_run_ended(
    emu: Emulator, compute: ComputeService, mig: MigResizeRequestProvider
) -> None:
    compute.add_capacity(ZONE, MACHINE, 4)
    created = mig.create(props(body=resize_request_body("rr-1", 4, 600)))
    emu.clock.advance(600)
    read = mig.read(created.id, created.outs)
    assert read.id == ID and read.outs["state"] == "EXPIRED"
    assert read.outs["observed"]["instances"] == [] and compute.instances() == []
    # Google deletes finished requests after a while: still EXPIRED, not "gone, ask again"
    compute.remove_resize_request(PROJECT, "g", "rr-1", zone=ZONE)
    again = mig.read(read.id, read.outs)
    assert again.id == ID and again.outs["state"] == "EXPIRED"


@pytest.mark.usefixtures("group")
def test_a_request_deleted_outside_pulumi_is_gone(
    compute: ComputeService, mig: MigResizeRequestProvider
) -> None:
    created = mig.create(props(waitFor="accepted"))
    compute.fail_resize_request(PROJECT, "g", "rr-1", zone=ZONE, state="CANCELLED")
    compute.remove_resize_request(PROJECT, "g", "rr-1", zone=ZONE)
    read = mig.read(created.id, created.outs)
    assert read.id == "" and read.outs == {}


@pytest.mark.usefixtures("group")
def test_a_request_deleted_while_its_vms_run_keeps_them_in_the_stack(
    compute: ComputeService, mig: MigResizeRequestProvider
) -> None:
    # deleting a SUCCEEDED request (outside Pulumi, or a clean-up cut short) leaves its VMs
    compute.add_capacity(ZONE, MACHINE, 4)
    created = mig.create(props())
    compute.remove_resize_request(PROJECT, "g", "rr-1", zone=ZONE)
    read = mig.read(created.id, {**created.outs, "observed": {}})  # no run end known
    assert read.id == ID and read.outs["state"] == "SUCCEEDED"
    assert sorted(read.outs["observed"]["instances"]) == sorted(
        vm["name"] for vm in compute.instances()
    )
    mig.delete(read.id, read.outs)
    assert left(compute) == ([], [])


@pytest.mark.usefixtures("group")
def test_read_by_id_alone_imports_the_request(
    compute: ComputeService, mig: MigResizeRequestProvider
) -> None:
    compute.insert_resize_request(
        PROJECT, f"zones/{ZONE}", "g", resize_request_body("rr-1", 3, 900)
    )
    read = mig.read(ID, {})
    assert read.outs["state"] == "ACCEPTED"
    assert read.inputs is not None and read.inputs["body"] == resize_request_body("rr-1", 3, 900)
    assert read.inputs["zone"] == ZONE and read.inputs["region"] is None
    with pytest.raises(MigResizeError, match="is not a resize request id"):
        mig.read("projects/p/zones/z/instances/x", {})


# ---------------------------------------------------------------------- delete
@pytest.mark.usefixtures("group")
def test_delete_cancels_a_queued_request_and_is_idempotent(
    emu: Emulator, compute: ComputeService, mig: MigResizeRequestProvider
) -> None:
    created = mig.create(props(waitFor="accepted"))
    mig.delete(created.id, created.outs)
    assert left(compute) == ([], [])
    paths = [f"{r.method} {r.path.rsplit('/', 1)[-1]}" for r in emu.requests]
    assert "POST cancel" in paths and "DELETE rr-1" in paths
    mig.delete(created.id, created.outs)  # already gone: success


@pytest.mark.usefixtures("group")
def test_delete_removes_the_vms_a_succeeded_request_brought(
    compute: ComputeService, mig: MigResizeRequestProvider
) -> None:
    compute.add_capacity(ZONE, MACHINE, 4)
    created = mig.create(props())
    assert len(compute.instances()) == 4
    mig.delete(created.id, created.outs)
    assert left(compute) == ([], [])
    assert compute.capacity.available(ZONE, MACHINE) == 4
    [group] = compute.groups(PROJECT)
    assert group["targetSize"] == 0  # the group stays, empty


@pytest.mark.usefixtures("group")
def test_delete_leaves_the_vms_of_another_request_of_the_group_alone(
    emu: Emulator, compute: ComputeService, mig: MigResizeRequestProvider
) -> None:
    compute.add_capacity(ZONE, MACHINE, 4)
    created = mig.create(mig_resize_props("rr-1", "g", count=2))
    # another request on the same group, made outside Pulumi
    compute.insert_resize_request(
        PROJECT, f"zones/{ZONE}", "g", resize_request_body("rr-2", 2, 3 * 86400)
    )
    emu.clock.advance(60)
    assert len(compute.instances()) == 4
    with pytest.raises(MigResizeError) as err:
        mig.delete(created.id, created.outs)
    assert "resize request rr-2" in str(err.value) and "none were deleted" in str(err.value)
    assert len(compute.instances()) == 4  # the other request's VMs still run


# ---------------------------------------------------------------------- check / diff / update
def test_check_names_each_bad_input(mig: MigResizeRequestProvider) -> None:
    def failures(**changes: Any) -> dict[str, str]:
        found: dict[str, str] = {}
        for failure in mig.check({}, props(**changes)).failures:
            found[failure.property] = f"{found.get(failure.property, '')} {failure.reason}"
        return found

    assert failures() == {}
    assert "exactly one of zone and region" in failures(region=REGION)["zone"]
    assert "exactly one of zone and region" in failures(zone=None)["zone"]
    assert "body.resizeBy" in failures(body=resize_request_body("rr-1", 0, 600))["body"]
    assert "1001" in failures(body=resize_request_body("rr-1", 1001, 600))["body"]
    assert "requestedRunDuration" in failures(body=resize_request_body("rr-1", 4, 599))["body"]
    assert "8d" in failures(body=resize_request_body("rr-1", 4, 8 * 86400))["body"]
    assert "same as name" in failures(body=resize_request_body("rr-2", 4, 600))["body"]
    assert (
        "instances not supported"
        in failures(body={"name": "rr-1", "instances": [{"name": "a"}]})["body"]
    )
    assert "waitFor" in failures(waitFor="soon")
    assert "name" in failures(name="Bad_Name", body=resize_request_body("Bad_Name", 4, 600))
    assert "group" in failures(group="")


@pytest.mark.parametrize(
    "duration", [{}, "3d", {"seconds": "259200.5"}, {"seconds": "3d"}, {"seconds": None}]
)
def test_a_malformed_run_duration_gets_one_clear_sentence(
    mig: MigResizeRequestProvider, duration: Any
) -> None:
    body = {"name": "rr-1", "resizeBy": 4, "requestedRunDuration": duration}
    [failure] = mig.check({}, props(body=body)).failures
    assert failure.property == "body"
    assert failure.reason.startswith("body.requestedRunDuration: ")
    assert failure.reason.endswith('must be {"seconds": N}, N a whole number of seconds')


def test_every_input_but_wait_for_replaces_deleting_first(mig: MigResizeRequestProvider) -> None:
    old = {**props(), "state": "SUCCEEDED", "observed": {}}
    assert not mig.diff(ID, old, props()).changes
    # protobuf Struct numbers come back as doubles: the same request
    doubles = {**props(), "body": {**props()["body"], "resizeBy": 4.0}}
    assert not mig.diff(ID, old, doubles).changes
    for changes, key in [
        ({"body": resize_request_body("rr-1", 5, 3 * 86400)}, "body"),
        ({"body": resize_request_body("rr-1", 4, 86400)}, "body"),
        ({"group": "h"}, "group"),
        ({"zone": "us-central1-b"}, "zone"),
        ({"zone": None, "region": REGION}, "zone"),
    ]:
        diff = mig.diff(ID, old, props(**changes))
        assert key in diff.replaces and diff.delete_before_replace, changes
    diff = mig.diff(ID, old, props(waitFor="accepted"))
    assert diff.changes and diff.replaces == []
    updated = mig.update(ID, old, props(waitFor="accepted"))
    assert updated.outs["waitFor"] == "accepted" and updated.outs["state"] == "SUCCEEDED"


def test_the_key_follows_what_the_request_asks() -> None:
    assert create_key(props()) == create_key({**props(), "waitFor": "accepted"})
    assert create_key(props()) != create_key(props(body=resize_request_body("rr-1", 5, 600)))


# ---------------------------------------------------------------------- the resource
def test_the_provider_pickles_small_and_by_reference() -> None:
    assert TYPE_TOKEN == "pulumi-python:dynamic/dws:MigResizeRequest"
    assert issubclass(MigResizeRequest, object)
    assert serialized_provider_size(MigResizeRequestProvider()) < 1024
    pickled = base64.b64decode(serialize_provider(MigResizeRequestProvider()))
    assert b"pulumi_dws.kinds.flex_group.provider" in pickled
