"""The FlexStartVm dynamic provider, in process, over HTTP against the Compute emulator."""

from __future__ import annotations

import base64
import copy
from typing import Any

import pytest
import requests
from emulator_helpers import HOUR, MACHINE, PROJECT, ZONE, props
from pulumi.dynamic import Config, ConfigureRequest
from pulumi.dynamic.dynamic import serialize_provider

from pulumi_dws.kinds.flex_vm.create import create_key
from pulumi_dws.kinds.flex_vm.provider import (
    OWNER_LABEL,
    TYPE_TOKEN,
    FlexStartError,
    FlexStartVm,
    FlexStartVmProvider,
)
from pulumi_dws.testing.dynamic_host import serialized_provider_size
from pulumi_dws.testing.emulator import Emulator
from pulumi_dws.testing.emulator.base import Request, Response
from pulumi_dws.testing.emulator.compute import ComputeService


def without_owner(labels: dict[str, str]) -> dict[str, str]:
    return {k: v for k, v in labels.items() if k != OWNER_LABEL}


def created_label(created: Any) -> str:
    return create_key(created.outs)


def calls(emu: Emulator, start: int) -> list[str]:
    return [f"{r.method} {r.path.rsplit('/', 2)[-2]}" for r in emu.requests[start:]]


# ---------------------------------------------------------------------- create
def test_queued_create_waits_until_running(
    emu: Emulator, compute: ComputeService, provider: FlexStartVmProvider
) -> None:
    compute.add_capacity(ZONE, MACHINE, 1, after=HOUR)
    result = provider.create(props())
    assert result.id == f"projects/{PROJECT}/zones/{ZONE}/instances/vm-1"
    outs = result.outs
    assert outs["status"] == "RUNNING"
    seen = outs["observed"]
    assert seen["internalIp"] and seen["instanceId"] and seen["selfLink"].endswith("/vm-1")
    assert seen["runEndsAt"] == "2026-01-08T01:00:00.000-00:00"  # 3 d after capacity came
    assert seen["lastStartTimestamp"] == "2026-01-05T01:00:00.000-00:00"
    assert outs["body"] == props()["body"]  # full outs include the inputs
    inserts = [r for r in emu.requests if r.method == "POST" and r.path.endswith("/instances")]
    assert len(inserts) == 1
    assert inserts[0].query["requestId"] == seen["requestId"]
    assert inserts[0].body["params"] == {"requestValidForDuration": {"seconds": "7200"}}
    # an hour of waiting costs a logarithmic number of polls
    assert len(emu.requests) <= 16


def test_wait_for_accepted_returns_once_pending(
    emu: Emulator, compute: ComputeService, provider: FlexStartVmProvider
) -> None:
    start = emu.clock.now()
    result = provider.create(props(wait_for="accepted"))
    assert result.outs["status"] == "PENDING"
    assert result.outs["observed"]["runEndsAt"] is None
    assert emu.clock.now() == start  # no waiting at all
    assert len(emu.requests) <= 4  # ownership check, insert, instance get, final get
    compute.add_capacity(ZONE, MACHINE, 1, after=600)
    emu.clock.advance(600)
    read = provider.read(result.id, result.outs)
    assert read.outs["status"] == "RUNNING"
    assert read.outs["observed"]["runEndsAt"]


def test_accepted_request_that_later_expires_is_reported_gone(
    emu: Emulator, provider: FlexStartVmProvider
) -> None:
    result = provider.create(props(window=HOUR, wait_for="accepted"))
    emu.clock.advance(HOUR)
    read = provider.read(result.id, result.outs)
    assert read.id == "" and read.outs == {}


def test_fail_fast_create_runs_when_capacity_is_free(
    compute: ComputeService, provider: FlexStartVmProvider
) -> None:
    compute.add_capacity(ZONE, MACHINE, 1)
    assert provider.create(props(window=None)).outs["status"] == "RUNNING"


def test_stockout_without_queue_is_one_clear_error_and_leaves_nothing(
    compute: ComputeService, provider: FlexStartVmProvider
) -> None:
    with pytest.raises(FlexStartError) as info:
        provider.create(props(window=None))
    message = str(info.value)
    for part in (
        "vm-1",
        MACHINE,
        ZONE,
        "project p",
        "no queue",
        "request_valid_for",
        "90s to 2h",
        "another zone",
        "Nothing was left behind",
    ):
        assert part in message, (part, message)
    assert compute.instances() == []


def test_expired_queue_window_is_one_clear_error_and_leaves_nothing(
    emu: Emulator, compute: ComputeService, provider: FlexStartVmProvider
) -> None:
    compute.add_capacity(ZONE, MACHINE, 1, after=3 * HOUR)  # too late
    with pytest.raises(FlexStartError) as info:
        provider.create(props(window=2 * HOUR))
    message = str(info.value)
    assert "queue window of 2h (7200s)" in message
    assert "Nothing was left behind" in message
    assert compute.instances() == []


def test_a_vm_left_by_a_failed_request_is_deleted_before_the_error(
    compute: ComputeService, provider: FlexStartVmProvider
) -> None:
    compute.keep_failed_instances = True  # Google leaves the failed VM TERMINATED
    with pytest.raises(FlexStartError) as info:
        provider.create(props(window=90))
    assert "the half-created VM was deleted" in str(info.value)
    assert compute.instances() == []


def test_insert_rejected_by_the_api_says_nothing_was_created(
    compute: ComputeService, provider: FlexStartVmProvider
) -> None:
    bad = props()
    bad["body"]["params"]["requestValidForDuration"]["seconds"] = "7201"
    with pytest.raises(FlexStartError) as info:
        provider.create(bad)
    assert "HTTP 400" in str(info.value) and "Nothing was created" in str(info.value)
    compute.add_capacity(ZONE, MACHINE, 1)
    provider.create(props())
    other = props()
    other["body"]["machineType"] = f"zones/{ZONE}/machineTypes/a3-highgpu-4g"
    with pytest.raises(FlexStartError, match="already exists") as info:
        provider.create(other)  # same name, other inputs: not this resource's VM
    assert "pulumi-dws made it from other inputs" in str(info.value)
    assert "pulumi import" not in str(info.value)
    assert len(compute.instances()) == 1  # the existing VM was not touched


def test_create_with_desired_status_terminated_stops_the_vm(
    compute: ComputeService, provider: FlexStartVmProvider
) -> None:
    compute.add_capacity(ZONE, MACHINE, 1)
    assert provider.create(props(desired="TERMINATED")).outs["status"] == "TERMINATED"
    assert compute.capacity.available(ZONE, MACHINE) == 1


def test_retries_reuse_the_request_id_so_there_is_no_duplicate(
    emu: Emulator, compute: ComputeService, provider: FlexStartVmProvider
) -> None:
    compute.add_capacity(ZONE, MACHINE, 1)
    # The insert is answered with a 503, then its connection is dropped after... a 429: the
    # client retries, each time with the same requestId.
    emu.faults.match = lambda method, path: method == "POST"
    emu.faults.queue.extend(["503", "drop", "429"])
    before = emu.clock.now()
    outs = provider.create(props()).outs
    assert outs["status"] == "RUNNING"
    inserts = [r for r in emu.requests if r.method == "POST" and r.path.endswith("/instances")]
    assert {r.query["requestId"] for r in inserts} == {outs["observed"]["requestId"]}
    assert [rid for rid, _ in compute.inserted] == [outs["observed"]["requestId"]]
    assert (emu.clock.now() - before).total_seconds() >= 1  # Retry-After was honoured


# ---------------------------------------------------------------------- read / update / delete
def test_stop_and_start_in_place(
    emu: Emulator, compute: ComputeService, provider: FlexStartVmProvider
) -> None:
    compute.add_capacity(ZONE, MACHINE, 1)
    created = provider.create(props(run=86400))
    first_end = created.outs["observed"]["runEndsAt"]
    emu.clock.advance(HOUR)
    stop = props(run=86400, desired="TERMINATED")
    diff = provider.diff(created.id, created.outs, stop)
    assert diff.changes and not diff.replaces
    stopped = provider.update(created.id, created.outs, stop).outs
    assert stopped["status"] == "TERMINATED"
    assert compute.capacity.available(ZONE, MACHINE) == 1
    emu.clock.advance(HOUR)
    started = provider.update(created.id, stopped, props(run=86400)).outs
    assert started["status"] == "RUNNING"
    assert started["observed"]["runEndsAt"] > first_end  # the run clock restarted
    assert started["observed"]["requestId"] == created.outs["observed"]["requestId"]


def test_start_without_capacity_fails_clearly_and_stays_stopped(
    emu: Emulator, compute: ComputeService, provider: FlexStartVmProvider
) -> None:
    compute.add_capacity(ZONE, MACHINE, 1)
    created = provider.create(props(window=HOUR))
    stopped = provider.update(created.id, created.outs, props(window=HOUR, desired="TERMINATED"))
    compute.capacity.take(ZONE, MACHINE)  # someone else took it
    with pytest.raises(FlexStartError) as info:
        provider.update(created.id, stopped.outs, props(window=HOUR))
    assert "got no capacity" in str(info.value)
    assert "stays TERMINATED" in str(info.value)
    assert compute.instance(PROJECT, ZONE, "vm-1")["status"] == "TERMINATED"


def test_labels_and_metadata_update_in_place(
    compute: ComputeService, provider: FlexStartVmProvider
) -> None:
    compute.add_capacity(ZONE, MACHINE, 1)
    created = provider.create(props(labels={"team": "ml"}))
    news = props(labels={"team": "infra", "cost": "high"})
    news["body"]["metadata"] = {"items": [{"key": "startup-script", "value": "nvidia-smi"}]}
    diff = provider.diff(created.id, created.outs, news)
    assert diff.changes and not diff.replaces
    outs = provider.update(created.id, created.outs, news).outs
    vm = compute.instance(PROJECT, ZONE, "vm-1")
    assert without_owner(vm["labels"]) == {"team": "infra", "cost": "high"}
    assert vm["labels"][OWNER_LABEL] == created_label(created)  # ownership survives setLabels
    assert vm["metadata"]["items"] == [{"key": "startup-script", "value": "nvidia-smi"}]
    assert outs["body"]["labels"] == {"team": "infra", "cost": "high"}
    assert vm["id"] == created.outs["observed"]["instanceId"]  # same VM


def test_external_delete_is_reported_gone_and_delete_tolerates_it(
    compute: ComputeService, provider: FlexStartVmProvider
) -> None:
    compute.add_capacity(ZONE, MACHINE, 1)
    created = provider.create(props())
    compute.remove_instance(PROJECT, ZONE, "vm-1")
    read = provider.read(created.id, created.outs)
    assert read.id == "" and read.outs == {}
    provider.delete(created.id, created.outs)  # already gone: success
    with pytest.raises(FlexStartError, match="pulumi refresh"):
        provider.update(created.id, created.outs, props(desired="TERMINATED"))


def test_delete_removes_the_vm_and_frees_capacity(
    compute: ComputeService, provider: FlexStartVmProvider
) -> None:
    compute.add_capacity(ZONE, MACHINE, 1)
    created = provider.create(props())
    provider.delete(created.id, created.outs)
    assert compute.instances() == []
    assert compute.capacity.available(ZONE, MACHINE) == 1


def test_drift_in_labels_is_read_and_repaired(
    emu: Emulator, compute: ComputeService, provider: FlexStartVmProvider
) -> None:
    compute.add_capacity(ZONE, MACHINE, 1)
    created = provider.create(props(labels={"team": "ml"}))
    vm = compute.instance(PROJECT, ZONE, "vm-1")
    url = f"{emu.url}compute/v1/projects/{PROJECT}/zones/{ZONE}/instances/vm-1/setLabels"
    body = {"labels": {"team": "hacked"}, "labelFingerprint": vm["labelFingerprint"]}
    assert requests.post(url, json=body, timeout=10).status_code == 200
    read = provider.read(created.id, created.outs)
    assert read.outs["body"]["labels"] == {"team": "hacked"}
    assert read.inputs is not None and read.inputs["body"]["labels"] == {"team": "hacked"}
    desired = props(labels={"team": "ml"})
    diff = provider.diff(created.id, read.outs, desired)
    assert diff.changes and not diff.replaces
    provider.update(created.id, read.outs, desired)
    assert without_owner(compute.instance(PROJECT, ZONE, "vm-1")["labels"]) == {"team": "ml"}


def test_run_end_with_stop_is_drift_that_an_update_restarts(
    emu: Emulator, compute: ComputeService, provider: FlexStartVmProvider
) -> None:
    compute.add_capacity(ZONE, MACHINE, 1)
    created = provider.create(props(run=HOUR, action="STOP"))
    emu.clock.advance(HOUR)
    read = provider.read(created.id, created.outs)
    assert read.outs["status"] == "TERMINATED"  # kept, with its disk
    assert read.outs["desiredStatus"] == "TERMINATED"
    diff = provider.diff(created.id, read.outs, props(run=HOUR))
    assert diff.changes and not diff.replaces
    outs = provider.update(created.id, read.outs, props(run=HOUR)).outs
    assert outs["status"] == "RUNNING"


def test_run_end_with_delete_removes_the_vm(
    emu: Emulator, compute: ComputeService, provider: FlexStartVmProvider
) -> None:
    compute.add_capacity(ZONE, MACHINE, 1)
    created = provider.create(props(run=HOUR, action="DELETE"))
    emu.clock.advance(HOUR)
    assert provider.read(created.id, created.outs).id == ""


# ---------------------------------------------------------------------- diff / check
def _changed(path: str, value: Any) -> dict[str, Any]:
    news = copy.deepcopy(props())
    target = news
    *parents, last = path.split(".")
    for key in parents:
        target = target.setdefault(key, {})
    target[last] = value
    return news


@pytest.mark.parametrize(
    ("path", "value", "replaces"),
    [
        ("zone", "us-central1-b", ["zone"]),
        ("name", "vm-2", ["name"]),
        ("project", "other", ["project"]),
        ("sourceInstanceTemplate", "global/instanceTemplates/t2", ["sourceInstanceTemplate"]),
        ("body.scheduling", {"provisioningModel": "FLEX_START"}, ["body"]),
        ("body.machineType", "zones/us-central1-a/machineTypes/a3-highgpu-4g", ["body"]),
        ("body.labels", {"a": "b"}, []),
        ("body.metadata", {"items": [{"key": "k", "value": "v"}]}, []),
        ("body.params", {"requestValidForDuration": {"seconds": "90"}}, []),
        ("desiredStatus", "TERMINATED", []),
        ("waitFor", "accepted", []),
    ],
)
def test_diff_table(path: str, value: Any, replaces: list[str]) -> None:
    olds = {**props(), "status": "RUNNING", "observed": {"requestId": "x"}}
    diff = FlexStartVmProvider().diff("id", olds, _changed(path, value))
    assert diff.changes is True
    assert diff.replaces == replaces
    assert diff.delete_before_replace is True


@pytest.mark.parametrize(
    ("old_shape", "new_shape", "replaces"),
    [
        # The same shape under another template (shared, or recreated): the same VM.
        ("aaaa", "aaaa", []),
        ("aaaa", "bbbb", ["sourceInstanceTemplate"]),
        # State written when each VM had a template of its own: moving to the shared
        # template of its shape keeps the VM.
        (None, "aaaa", []),
        # A shape not known before deployment (no fingerprint): any other template replaces.
        ("aaaa", None, ["sourceInstanceTemplate"]),
        (None, None, ["sourceInstanceTemplate"]),
    ],
)
def test_diff_of_another_template_follows_the_shape_fingerprint(
    old_shape: str | None, new_shape: str | None, replaces: list[str]
) -> None:
    olds = {**props(), "status": "RUNNING", "observed": {"requestId": "x"}}
    olds["sourceInstanceTemplate"] = "global/instanceTemplates/trainer-template-1a2b3c4"
    if old_shape:
        olds["templateShape"] = old_shape
    news = _changed("sourceInstanceTemplate", "global/instanceTemplates/flex-shape-t2")
    if new_shape:
        news["templateShape"] = new_shape
    diff = FlexStartVmProvider().diff("id", olds, news)
    assert diff.changes is True
    assert diff.replaces == replaces


def test_a_new_shape_fingerprint_under_an_unknown_template_replaces() -> None:
    """In a preview the new shared template's link is not known yet; its fingerprint is."""
    from pulumi.output import Unknown

    olds = {**props(), "templateShape": "aaaa", "status": "RUNNING"}
    olds["sourceInstanceTemplate"] = "global/instanceTemplates/flex-shape-aaaa-1a2b3c4"
    same = {**props(), "sourceInstanceTemplate": Unknown(), "templateShape": "aaaa"}
    other = {**props(), "sourceInstanceTemplate": Unknown(), "templateShape": "bbbb"}
    assert FlexStartVmProvider().diff("id", olds, same).replaces == []
    assert FlexStartVmProvider().diff("id", olds, other).replaces == ["sourceInstanceTemplate"]


def test_diff_without_changes_ignores_outputs() -> None:
    olds = {
        **props(),
        "status": "PENDING",
        "observed": {"internalIp": "10.0.0.2"},
        "__provider": "x",
    }
    assert FlexStartVmProvider().diff("id", olds, props()).changes is False


def test_check_reports_bad_inputs() -> None:
    bad = props()
    bad["zone"] = "us-central1"
    bad["body"]["params"]["requestValidForDuration"]["seconds"] = "60"
    bad["body"]["scheduling"]["provisioningModel"] = "SPOT"
    bad["desiredStatus"] = "STOPPED"
    failures = FlexStartVmProvider().check({}, bad).failures
    reasons = " | ".join(f.reason for f in failures)
    assert {f.property for f in failures} == {"zone", "body", "desiredStatus"}
    assert "that is a region" in reasons
    assert "90s to 2h" in reasons
    assert "FLEX_START" in reasons
    assert FlexStartVmProvider().check({}, props()).failures == []
    assert [f.property for f in FlexStartVmProvider().check({}, {}).failures] == [
        "project",
        "zone",
        "name",
        "body",
    ]


# ---------------------------------------------------------------------- endpoint / pickling
def test_endpoint_from_stack_config_through_configure(
    emu: Emulator, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("DWS_COMPUTE_ENDPOINT")
    provider = FlexStartVmProvider(sleep=emu.clock.advance)
    provider.configure(ConfigureRequest(Config({"dws:computeEndpoint": emu.url}, "proj")))
    emu["compute"].add_capacity(ZONE, MACHINE, 1)
    assert provider.create(props()).outs["status"] == "RUNNING"


def test_loopback_endpoints_need_no_credentials(
    emu: Emulator,
    compute: ComputeService,
    provider: FlexStartVmProvider,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import google.auth

    def no_adc(*_: Any, **__: Any) -> Any:
        raise AssertionError("ADC must not be used for a loopback emulator")

    monkeypatch.setattr(google.auth, "default", no_adc)
    compute.add_capacity(ZONE, MACHINE, 1)
    created = provider.create(props())
    provider.delete(created.id, created.outs)


def test_pickled_provider_is_small_and_carries_no_credentials(
    emu: Emulator, compute: ComputeService
) -> None:
    provider = FlexStartVmProvider()
    provider.configure(ConfigureRequest(Config({"dws:computeEndpoint": emu.url}, "proj")))
    compute.add_capacity(ZONE, MACHINE, 1)
    provider.sleep = emu.clock.advance
    created = provider.create(props())
    provider.read(created.id, created.outs)
    del provider.sleep  # what a stack pickles never carries a test's sleep
    fresh = FlexStartVmProvider()
    for candidate in (fresh, provider):
        text = serialize_provider(candidate)
        raw = base64.b64decode(text)
        for needle in (b"token", b"ya29", b"Session", b"credential", b"Bearer"):
            assert needle not in raw
        assert serialized_provider_size(candidate) <= 4096
    assert serialized_provider_size(fresh) <= 512
    assert FlexStartVmProvider.serialize_as_secret_always is False


def test_type_token() -> None:
    assert TYPE_TOKEN == "pulumi-python:dynamic/dws:FlexStartVm"
    assert f"pulumi-python:{FlexStartVm._resource_type_name}" == TYPE_TOKEN


def test_import_reads_an_existing_vm_from_its_id(
    compute: ComputeService, provider: FlexStartVmProvider
) -> None:
    compute.add_capacity(ZONE, MACHINE, 1)
    created = provider.create(props(labels={"team": "ml"}))
    read = provider.read(created.id, {})
    assert read.id == created.id
    assert read.inputs is not None
    assert read.inputs["project"] == PROJECT and read.inputs["zone"] == ZONE
    assert read.inputs["body"]["scheduling"] == props()["body"]["scheduling"]
    assert read.inputs["body"]["labels"] == {"team": "ml"}
    assert read.inputs["desiredStatus"] == "RUNNING"
    assert read.outs["status"] == "RUNNING"
    assert not FlexStartVmProvider().check({}, read.inputs).failures
    missing = provider.read(f"projects/{PROJECT}/zones/{ZONE}/instances/nope", {})
    assert missing.id == ""


# ---------------------------------------------------------------------- failures, drift
def test_labels_changed_under_every_attempt_fail_the_update_instead_of_passing_silently(
    emu: Emulator, compute: ComputeService, provider: FlexStartVmProvider
) -> None:
    compute.add_capacity(ZONE, MACHINE, 1)
    created = provider.create(props(labels={"team": "ml"}))
    dispatch = emu.dispatch
    intruders: list[Request] = []

    def racing(request: Request) -> Response:
        """Someone relabels the VM just before each of our setLabels: the fingerprint is stale."""
        if request.path.endswith("/setLabels") and request not in intruders:
            fingerprint = compute.instance(PROJECT, ZONE, "vm-1")["labelFingerprint"]
            other = {"labels": {"by": f"other-{len(intruders)}"}, "labelFingerprint": fingerprint}
            intruders.append(Request("POST", request.path, {}, other))
            assert dispatch(intruders[-1]).status == 200
        return dispatch(request)

    emu.dispatch = racing  # type: ignore[method-assign]
    with pytest.raises(FlexStartError) as info:
        provider.update(created.id, created.outs, props(labels={"team": "infra"}))
    message = str(info.value)
    assert "vm-1" in message and "could not be updated" in message and "labels" in message
    assert "412" in message


def test_delete_failures_are_one_clear_error(
    emu: Emulator, compute: ComputeService, provider: FlexStartVmProvider
) -> None:
    compute.add_capacity(ZONE, MACHINE, 1)
    created = provider.create(props())
    emu.faults.match = lambda method, path: method == "DELETE"
    emu.faults.queue.extend(["503"] * 7)  # every attempt
    with pytest.raises(FlexStartError) as info:
        provider.delete(created.id, created.outs)
    message = str(info.value)
    assert "vm-1" in message and ZONE in message and "could not be deleted" in message
    assert f"gcloud compute instances delete vm-1 --zone {ZONE} --project {PROJECT}" in message
    provider.delete(created.id, created.outs)  # once Compute answers again
    assert compute.instances() == []


def test_a_machine_type_changed_outside_is_drift_that_replaces_the_vm(
    emu: Emulator, compute: ComputeService, provider: FlexStartVmProvider
) -> None:
    compute.add_capacity(ZONE, MACHINE, 1)
    created = provider.create(props(desired="TERMINATED"))
    url = f"{emu.url}compute/v1/projects/{PROJECT}/zones/{ZONE}/instances/vm-1/setMachineType"
    body = {"machineType": f"zones/{ZONE}/machineTypes/a3-highgpu-4g"}
    assert requests.post(url, json=body, timeout=10).status_code == 200
    read = provider.read(created.id, created.outs)
    assert read.outs["body"]["machineType"] == f"zones/{ZONE}/machineTypes/a3-highgpu-4g"
    diff = provider.diff(created.id, read.outs, props(desired="TERMINATED"))
    assert diff.changes and diff.replaces == ["body"]
    unchanged = provider.read(created.id, provider.read(created.id, created.outs).outs)
    assert unchanged.outs["body"]["machineType"] == read.outs["body"]["machineType"]


@pytest.mark.parametrize("status", ["PENDING_STOP", "DEPROVISIONING", "STOPPING"])
def test_a_vm_shutting_down_reads_as_stopped(
    compute: ComputeService, provider: FlexStartVmProvider, status: str
) -> None:
    compute.add_capacity(ZONE, MACHINE, 1)
    created = provider.create(props())
    compute.set_status(PROJECT, ZONE, "vm-1", status)
    assert provider.read(created.id, created.outs).outs["desiredStatus"] == "TERMINATED"
