"""Answers that lie, through Pulumi's real dynamic-provider host against the emulator
(``Emulator.lie``: after the API acted, the client hears something else): a provider never
concludes from one read. Absence right after a create, an unknown state and an empty list are
confirmed by the resource's own record before anything is deleted, recorded as ended, or said
to be left behind. Also: a resize request's "not ours" advice leaves nothing running, lists of
a PAGINATED group are followed to their last page, and a request whose run ended reads as
ended though no refresh saw it succeed."""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator
from typing import Any

import pytest
import requests
from queued_tpu_helpers import PROJECT as TPU_PROJECT
from queued_tpu_helpers import QR
from queued_tpu_helpers import ZONE as TPU_ZONE
from queued_tpu_helpers import props as tpu_inputs

from pulumi_dws.kinds.flex_group.provider import MigResizeRequestProvider
from pulumi_dws.kinds.queued_tpu.provider import QueuedTpuProvider
from pulumi_dws.testing.clock_helpers import (
    flex_start_group,
    flex_start_group_body,
    mig_resize_props,
)
from pulumi_dws.testing.dynamic_host import DynamicProviderError, DynamicProviderHost, urn
from pulumi_dws.testing.emulator import Emulator, Request

PROJECT, ZONE, MACHINE = "p", "us-central1-a", "a3-highgpu-8g"
TPU_URN = urn("pulumi-python:dynamic/dws:QueuedTpu", "q", project="tpu", stack="dev")


def mig_urn(name: str) -> str:
    return urn("pulumi-python:dynamic/dws:MigResizeRequest", name, project="mig", stack="dev")


@pytest.fixture
def world() -> Iterator[tuple[Emulator, DynamicProviderHost]]:
    with Emulator() as emu:
        env = {
            "DWS_COMPUTE_ENDPOINT": emu.url,
            "DWS_TPU_ENDPOINT": emu.url,
            "DWS_VIRTUAL_CLOCK_URL": emu.clock_url,
        }
        with DynamicProviderHost(QueuedTpuProvider(), env=env) as host:
            yield emu, host


def _get(path: str) -> Any:
    return lambda r: r.method == "GET" and r.path.endswith(path)


def _deletes(emu: Emulator, fragment: str) -> list[Request]:
    return [r for r in emu.requests if r.method == "DELETE" and fragment in r.path]


# ---------------------------------------------------------------------- QueuedTpu
def test_a_queued_tpu_that_reads_404_right_after_its_create_is_not_given_up(
    world: tuple[Emulator, DynamicProviderHost],
) -> None:
    """Three 404s right after the create's operation finished (eventual consistency): the
    request exists, later gets its chips; the create is not reported gone, nothing deletes
    it."""
    emu, host = world
    tpu = emu["tpu"]
    tpu.add_chips(TPU_ZONE, "v6e", 16, after=3600)
    lie = emu.lie(_get(f"/queuedResources/{QR}"), status=404, times=3)
    _, outs = host.create(TPU_URN, tpu_inputs())
    assert lie.told == 3
    assert outs["state"] == "ACTIVE"
    assert tpu.queued_resources() == [(TPU_PROJECT, TPU_ZONE, QR)]
    assert _deletes(emu, "/queuedResources/") == []


def test_one_state_unspecified_read_deletes_nothing(
    world: tuple[Emulator, DynamicProviderHost],
) -> None:
    """``STATE_UNSPECIFIED`` is no state the provider gives a meaning to: it ends no wait, and
    the healthy request goes on to ACTIVE."""
    emu, host = world
    emu["tpu"].add_chips(TPU_ZONE, "v6e", 16, after=3600)

    def unspecified(body: dict[str, Any]) -> dict[str, Any]:
        body["state"]["state"] = "STATE_UNSPECIFIED"
        return body

    lie = emu.lie(_get(f"/queuedResources/{QR}"), transform=unspecified, times=1)
    _, outs = host.create(TPU_URN, tpu_inputs(wait_for="accepted"))
    assert lie.told == 1
    assert outs["state"] == "WAITING_FOR_RESOURCES"
    assert _deletes(emu, "/queuedResources/") == []


def test_absence_after_a_failed_create_is_confirmed_by_a_delete_by_name(
    world: tuple[Emulator, DynamicProviderHost],
) -> None:
    """A request that FAILED is cleaned up; when every read then says 404 although it exists,
    the clean-up deletes it by name before it says nothing is left: nothing is."""
    emu, host = world
    tpu = emu["tpu"]
    tpu.fail_next()
    emu.lie(_get(f"/queuedResources/{QR}"), status=404, times=1000)
    with pytest.raises(DynamicProviderError) as info:
        host.create(TPU_URN, tpu_inputs())
    emu.clock.advance(3600)
    assert tpu.queued_resources() == []
    assert _deletes(emu, f"/queuedResources/{QR}"), "no delete by name confirmed the absence"
    assert "left behind" in info.value.message


# ---------------------------------------------------------------------- MigResizeRequest
@pytest.fixture
def group(world: tuple[Emulator, DynamicProviderHost]) -> str:
    emu, _ = world
    return flex_start_group(emu, "g", project=PROJECT, zone=ZONE)


def test_an_empty_vm_list_right_after_succeeded_is_not_expired(
    world: tuple[Emulator, DynamicProviderHost], group: str
) -> None:
    emu, host = world
    compute = emu["compute"]
    compute.add_capacity(ZONE, MACHINE, 4)
    lie = emu.lie(
        lambda r: r.path.endswith("/listManagedInstances"),
        transform=lambda body: {**body, "managedInstances": []},
        times=1,
    )
    provider = MigResizeRequestProvider()
    _, outs = host.create(mig_urn("rr"), mig_resize_props("rr", "g"), provider=provider)
    assert lie.told == 1
    assert outs["state"] == "SUCCEEDED" and outs["observed"]["derived"] is None
    assert len(outs["observed"]["instances"]) == 4 == len(compute.instances())


def test_a_request_whose_run_ended_reads_as_ended_though_no_refresh_saw_it_succeed(
    world: tuple[Emulator, DynamicProviderHost], group: str
) -> None:
    """``waitFor: accepted``: the stack records ACCEPTED; the set runs its day and Google
    deletes it, then removes the finished request. A refresh reads it as ended (``EXPIRED``,
    derived, and saying so), so the next `pulumi up` buys nothing again."""
    emu, host = world
    compute = emu["compute"]
    provider = MigResizeRequestProvider()
    inputs = mig_resize_props("rr", "g", run=86400, wait_for="accepted")
    id_, outs = host.create(mig_urn("rr"), inputs, provider=provider)
    assert outs["state"] == "ACCEPTED" and outs["observed"]["createdAt"]
    compute.add_capacity(ZONE, MACHINE, 4)
    emu.clock.advance(2 * 86400)  # the set ran its day; its VMs are gone
    compute.remove_resize_request(PROJECT, "g", "rr", zone=ZONE)  # Google's housekeeping
    read_id, read_outs, _ = host.read(mig_urn("rr"), id_, outs, provider=provider)
    assert read_id == id_ and read_outs["state"] == "EXPIRED"
    assert "derived by pulumi-dws" in read_outs["observed"]["derived"]
    diff = host.diff(mig_urn("rr"), id_, read_outs, inputs, provider=provider)
    assert diff.changes == "none" and not diff.replaces


def test_deleted_outside_before_its_run_could_end_is_gone(
    world: tuple[Emulator, DynamicProviderHost], group: str
) -> None:
    emu, host = world
    provider = MigResizeRequestProvider()
    inputs = mig_resize_props("rr", "g", run=86400, wait_for="accepted")
    id_, outs = host.create(mig_urn("rr"), inputs, provider=provider)
    emu["compute"].remove_resize_request(PROJECT, "g", "rr", zone=ZONE)
    read_id, _, _ = host.read(mig_urn("rr"), id_, outs, provider=provider)
    assert read_id == ""  # the next `pulumi up` asks again


def test_a_paginated_groups_vms_are_all_deleted(
    world: tuple[Emulator, DynamicProviderHost],
) -> None:
    """A group set to ``listManagedInstancesResults: PAGINATED`` lists its VMs a page at a
    time: the delete follows every page, and no VM beyond the first keeps running."""
    emu, host = world
    compute = emu["compute"]
    compute.mig_page_size = 2
    flex_start_group(emu, "template-only", project=PROJECT, zone=ZONE)  # its template
    groups = f"{emu.url}compute/v1/projects/{PROJECT}/zones/{ZONE}/instanceGroupManagers"
    template = f"projects/{PROJECT}/global/instanceTemplates/template-only-template"
    body = {**flex_start_group_body("paged", template), "listManagedInstancesResults": "PAGINATED"}
    requests.post(groups, json=body, timeout=10).raise_for_status()
    group_url = f"{groups}/paged"
    compute.add_capacity(ZONE, MACHINE, 5)
    provider = MigResizeRequestProvider()
    inputs = mig_resize_props("rr", "paged", count=5)
    id_, outs = host.create(mig_urn("paged"), inputs, provider=provider)
    page = requests.post(f"{group_url}/listManagedInstances", timeout=10).json()
    assert len(page["managedInstances"]) == 2 and "nextPageToken" in page  # the group pages
    assert len(outs["observed"]["instances"]) == 5
    host.delete(mig_urn("paged"), id_, outs, provider=provider)
    assert compute.instances() == []


def _run_gcloud_advice(emu: Emulator, message: str) -> int:
    """Carry out the gcloud commands a message advises (the three shapes the resize-request
    advice uses), as the REST calls gcloud makes; how many were run."""
    commands = re.findall(r"`(gcloud [^`]+)`", message)
    base = f"{emu.url}compute/v1/projects"
    for command in commands:
        words = shlex.split(command)
        flags = dict(w.lstrip("-").split("=", 1) for w in words if w.startswith("--") and "=" in w)
        pairs = {words[i].lstrip("-"): words[i + 1] for i, w in enumerate(words[:-1])}
        where = f"zones/{pairs['zone']}" if "zone" in pairs else f"regions/{pairs['region']}"
        if "resize-requests" in words:
            verb, group = words[words.index("resize-requests") + 1 :][:2]
            path = (
                f"{base}/{pairs['project']}/{where}/instanceGroupManagers/{group}/resizeRequests/"
                f"{flags['resize-requests']}"
            )
            if verb == "cancel":
                requests.post(f"{path}/cancel", timeout=10)
            else:
                requests.delete(path, timeout=10)
        else:
            group = words[words.index("resize") + 1]
            url = f"{base}/{pairs['project']}/{where}/instanceGroupManagers/{group}/resize"
            requests.post(url, params={"size": flags["size"]}, timeout=10)
        emu.clock.advance(60)
    return len(commands)


def test_the_not_ours_advice_leaves_no_vm_running(
    world: tuple[Emulator, DynamicProviderHost], group: str
) -> None:
    """A request of that name with another body (8 VMs that run) holds the name: the error's
    advice, followed, removes the request *and* its VMs, and the create then makes its own
    set: as many VMs as it asks for, not 12 for a request of 8."""
    emu, host = world
    compute = emu["compute"]
    compute.add_capacity(ZONE, MACHINE, 12)
    collection = (
        f"{emu.url}compute/v1/projects/{PROJECT}/zones/{ZONE}/instanceGroupManagers/g/"
        "resizeRequests"
    )
    requests.post(collection, json={"name": "rr", "resizeBy": 4}, timeout=10).raise_for_status()
    emu.clock.advance(60)
    assert len(compute.instances()) == 4
    provider = MigResizeRequestProvider()
    inputs = mig_resize_props("rr", "g", count=8)
    with pytest.raises(DynamicProviderError) as info:
        host.create(mig_urn("rr"), inputs, provider=provider)
    assert _run_gcloud_advice(emu, info.value.message) == 3
    assert compute.instances() == [] and compute.resize_requests() == []
    _, outs = host.create(mig_urn("rr"), inputs, provider=provider)
    assert len(outs["observed"]["instances"]) == 8 == len(compute.instances())


def test_a_page_token_that_comes_again_ends_the_delete_saying_so(
    world: tuple[Emulator, DynamicProviderHost],
) -> None:
    """Every ``listManagedInstances`` page answers with the token it was asked for (a list that
    would never end): the delete stops, saying so, and never concludes from it; it looped for
    ever, holding each page again in memory."""
    emu, host = world
    compute = emu["compute"]
    flex_start_group(emu, "g", project=PROJECT, zone=ZONE)
    compute.add_capacity(ZONE, MACHINE, 2)
    provider = MigResizeRequestProvider()
    id_, outs = host.create(mig_urn("g"), mig_resize_props("rr", "g", count=2), provider=provider)
    emu.lie(
        lambda r: r.path.endswith("/listManagedInstances"),
        transform=lambda body: {**body, "nextPageToken": "again"},
        times=10_000,
    )
    call = host.background(host.delete, mig_urn("g"), id_, outs, provider=provider)
    with pytest.raises(DynamicProviderError) as info:
        call.result(timeout=60)
    listed = [r for r in emu.requests if r.path.endswith("/listManagedInstances")]
    assert len(listed) < 100, f"{len(listed)} pages listed"
    assert "page token" in info.value.message and "again" in info.value.message
