"""The VertexCustomJob provider against the emulated Vertex AI ``customJobs`` API: a job queues
for Flex-start capacity, runs, succeeds or fails; a create whose answer was lost (before or
after the API acted) makes one job, found by its ``dws_create`` label and never sent again
blindly; a job still queued or running is cancelled before it is deleted. Every count comes from
the emulator's own records."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

import pytest

from pulumi_dws.kinds.vertex_training.api import OWNER_LABEL
from pulumi_dws.kinds.vertex_training.provider import (
    VertexCustomJobProvider,
    VertexTrainingError,
)
from pulumi_dws.kinds.vertex_training.testing import custom_job_props
from pulumi_dws.testing.clock_helpers import virtual_sleep
from pulumi_dws.testing.emulator import Emulator
from pulumi_dws.testing.emulator.aiplatform import AiPlatformService
from pulumi_dws.testing.fault_proxy import AFTER_ACT, BEFORE_ACT, FaultProxy, ProxyFaultPlan

REGION, MACHINE = "us-central1", "a3-highgpu-8g"
JOBS = "/customJobs"


@pytest.fixture
def emu() -> Iterator[Emulator]:
    with Emulator([]) as emulator:
        emulator.add(AiPlatformService(emulator.clock))
        yield emulator


@pytest.fixture
def svc(emu: Emulator) -> AiPlatformService:
    return emu["aiplatform"]


@pytest.fixture
def direct(emu: Emulator, monkeypatch: pytest.MonkeyPatch) -> VertexCustomJobProvider:
    monkeypatch.setenv("DWS_AIPLATFORM_ENDPOINT", emu.url)
    monkeypatch.setenv("DWS_VIRTUAL_CLOCK_URL", "")
    return VertexCustomJobProvider(sleep=virtual_sleep(emu))


@pytest.fixture
def proxy(emu: Emulator, monkeypatch: pytest.MonkeyPatch) -> Iterator[FaultProxy]:
    with FaultProxy(emu) as running:
        monkeypatch.setenv("DWS_AIPLATFORM_ENDPOINT", running.url)
        monkeypatch.setenv("DWS_VIRTUAL_CLOCK_URL", "")
        monkeypatch.setenv("DWS_HTTP_TIMEOUT", "0.5")
        yield running


def props(**changes: Any) -> dict[str, Any]:
    out = custom_job_props()
    scheduling = out["body"]["jobSpec"]["scheduling"]
    for key, value in changes.items():
        if key in ("maxWaitDuration", "timeout"):
            scheduling[key] = value
        else:
            out[key] = value
    return out


def _creates(emu: Emulator) -> list[Any]:
    return [r for r in emu.requests if r.method == "POST" and r.path.endswith(JOBS)]


# ---------------------------------------------------------------------- the lifecycle
def test_a_job_queues_for_capacity_then_runs_and_its_delete_frees_it(
    emu: Emulator, svc: AiPlatformService, direct: VertexCustomJobProvider
) -> None:
    svc.add_capacity(REGION, MACHINE, 4, after=1800)
    result = direct.create(props())
    assert result.id.startswith("projects/my-project/locations/us-central1/customJobs/")
    outs = result.outs or {}
    assert outs["state"] == "JOB_STATE_RUNNING" and outs["name"] == result.id
    assert outs["observed"]["startTime"] > outs["observed"]["createTime"]  # it queued first
    job = svc.custom_job(result.id)
    assert job is not None and OWNER_LABEL in job["labels"] and job["labels"]["team"] == "ml"
    assert svc.capacity.available(REGION, MACHINE) == 0  # all 4 replicas at once
    assert direct.read(result.id, outs).outs["state"] == "JOB_STATE_RUNNING"
    direct.delete(result.id, outs)
    assert svc.custom_jobs() == [] and svc.capacity.available(REGION, MACHINE) == 4
    assert direct.read(result.id, outs).id in (None, "")


def test_wait_for_queued_returns_while_the_job_waits(
    svc: AiPlatformService, direct: VertexCustomJobProvider
) -> None:
    result = direct.create(props(waitFor="queued"))
    assert (result.outs or {})["state"] == "JOB_STATE_QUEUED"
    assert len(svc.jobs_created) == 1


def test_wait_for_succeeded_follows_the_job_to_its_end(
    svc: AiPlatformService, direct: VertexCustomJobProvider
) -> None:
    svc.job_run_seconds = 5400
    svc.add_capacity(REGION, MACHINE, 4)
    result = direct.create(props(waitFor="succeeded"))
    assert (result.outs or {})["state"] == "JOB_STATE_SUCCEEDED"
    assert (result.outs or {})["observed"]["endTime"]


def test_a_queue_window_that_passes_leaves_nothing_and_says_so(
    svc: AiPlatformService, direct: VertexCustomJobProvider
) -> None:
    with pytest.raises(VertexTrainingError) as info:
        direct.create(props(maxWaitDuration="7200s"))
    message = str(info.value)
    assert "JOB_STATE_FAILED" in message and "maxWaitDuration" in message
    assert "nothing is left behind" in message
    assert len(svc.jobs_created) == 1 and svc.custom_jobs() == []


def test_a_job_told_to_wait_indefinitely_stays_queued_when_the_up_stops_waiting(
    emu: Emulator, svc: AiPlatformService, direct: VertexCustomJobProvider
) -> None:
    """``maxWaitDuration: 0`` waits for capacity indefinitely (the discovery document): a
    ``pulumi up`` can't wait that long, but it must not cancel the job and lose its place in
    the queue: it returns the job as it is, queued, and the job runs when capacity comes."""
    result = direct.create(props(maxWaitDuration="0s"))
    outs = result.outs or {}
    assert outs["state"] == "JOB_STATE_QUEUED"
    assert svc.custom_jobs() == [svc.jobs_created[0]]
    svc.add_capacity(REGION, MACHINE, 4)
    emu.clock.advance(600)
    assert direct.read(result.id, outs).outs["state"] == "JOB_STATE_RUNNING"


def test_a_job_told_to_wait_indefinitely_is_cancelled_when_the_program_asks_on_timeout_cancel(
    svc: AiPlatformService, direct: VertexCustomJobProvider
) -> None:
    """``onTimeout: cancel`` is the program's explicit choice: it wins over the keep that an
    indefinite queue window (``maxWaitDuration: 0``) gets by default; nothing is left."""
    with pytest.raises(VertexTrainingError, match="JOB_STATE_QUEUED"):
        direct.create(props(maxWaitDuration="0s", waitTimeout=600, onTimeout="cancel"))
    assert len(svc.jobs_created) == 1 and svc.custom_jobs() == []


def test_a_job_that_fails_once_running_is_deleted_and_the_error_says_why(
    svc: AiPlatformService, direct: VertexCustomJobProvider
) -> None:
    svc.add_capacity(REGION, MACHINE, 4)
    svc.fail_next_job("The replica workerpool1-2 exited with a non-zero status of 137.")
    with pytest.raises(VertexTrainingError, match="status of 137"):
        direct.create(props())
    assert svc.custom_jobs() == [] and svc.capacity.available(REGION, MACHINE) == 4


def test_deleting_a_running_job_cancels_it_first(
    emu: Emulator, svc: AiPlatformService, direct: VertexCustomJobProvider
) -> None:
    """Vertex AI refuses to delete a job still running (the emulator, as Google's own samples
    treat it: cancel, wait for JOB_STATE_CANCELLED, delete)."""
    svc.add_capacity(REGION, MACHINE, 4)
    result = direct.create(props())
    since = len(emu.requests)
    direct.delete(result.id, result.outs or {})
    calls = [(r.method, r.path.rsplit("/", 1)[-1]) for r in emu.requests[since:]]
    cancel = next(i for i, c in enumerate(calls) if c[1].endswith(":cancel"))
    delete = next(i for i, c in enumerate(calls) if c[0] == "DELETE")
    assert cancel < delete and svc.custom_jobs() == []


def test_the_emulator_refuses_to_delete_a_job_that_still_runs(
    emu: Emulator, svc: AiPlatformService, direct: VertexCustomJobProvider
) -> None:
    svc.add_capacity(REGION, MACHINE, 4)
    result = direct.create(props())
    client = direct.client(REGION)
    with pytest.raises(Exception, match="FAILED_PRECONDITION|cancel it"):
        client.delete(result.id)


def test_two_identical_jobs_of_one_program_are_two_jobs(
    svc: AiPlatformService, direct: VertexCustomJobProvider
) -> None:
    """The ownership key covers the resource's own name: the second create does not adopt
    the first job (same body, same project), it makes its own."""
    svc.add_capacity(REGION, MACHINE, 8)
    first = direct.create(props(owner="a-job"))
    second = direct.create(props(owner="b-job"))
    assert first.id != second.id and len(svc.jobs_created) == 2


def test_a_second_up_with_the_same_inputs_adopts_the_job(
    svc: AiPlatformService, direct: VertexCustomJobProvider
) -> None:
    """A crash after the create reached Vertex AI: the next `pulumi up` finds the job by its
    label and adopts it, making no second one."""
    svc.add_capacity(REGION, MACHINE, 4)
    first = direct.create(props())
    again = direct.create(props())
    assert again.id == first.id and len(svc.jobs_created) == 1


def test_a_read_of_a_job_deleted_outside_pulumi_is_gone(
    svc: AiPlatformService, direct: VertexCustomJobProvider
) -> None:
    svc.add_capacity(REGION, MACHINE, 4)
    result = direct.create(props())
    svc.remove_custom_job(svc.custom_jobs()[0])
    assert direct.read(result.id, result.outs or {}).id in (None, "")
    direct.delete(result.id, result.outs or {})  # nothing to delete: success


# ---------------------------------------------------------------------- lost answers
def test_a_create_carried_out_but_answered_503_is_found_by_its_label(
    emu: Emulator, svc: AiPlatformService, direct: VertexCustomJobProvider
) -> None:
    svc.add_capacity(REGION, MACHINE, 4)
    svc.lose_answers("POST")
    result = direct.create(props())
    assert len(_creates(emu)) == 1  # never sent again: the search found it
    assert len(svc.jobs_created) == 1 and result.id.endswith(svc.jobs_created[0].rsplit("/")[-1])
    searches = [r for r in emu.requests if r.method == "GET" and r.path.endswith(JOBS)]
    assert searches and all(f'labels.{OWNER_LABEL}="' in r.query["filter"] for r in searches)


@pytest.mark.parametrize("fault", BEFORE_ACT)
def test_a_create_that_never_reached_the_api_is_sent_again_once(
    emu: Emulator, svc: AiPlatformService, proxy: FaultProxy, fault: str
) -> None:
    svc.add_capacity(REGION, MACHINE, 4)
    proxy.plan = ProxyFaultPlan(
        match=lambda method, path: method == "POST" and path.endswith(JOBS), queue=[fault]
    )
    result = VertexCustomJobProvider(sleep=virtual_sleep(emu)).create(props())
    assert (result.outs or {})["state"] == "JOB_STATE_RUNNING"
    assert len(svc.jobs_created) == 1 and len(svc.custom_jobs()) == 1


@pytest.mark.parametrize("fault", AFTER_ACT)
def test_a_create_answer_damaged_after_the_api_acted_makes_one_job(
    emu: Emulator, svc: AiPlatformService, proxy: FaultProxy, fault: str
) -> None:
    svc.add_capacity(REGION, MACHINE, 4)
    proxy.plan = ProxyFaultPlan(
        match=lambda method, path: method == "POST" and path.endswith(JOBS), queue=[fault]
    )
    result = VertexCustomJobProvider(sleep=virtual_sleep(emu)).create(props())
    assert (result.outs or {})["state"] == "JOB_STATE_RUNNING"
    assert len(svc.jobs_created) == 1 and len(svc.custom_jobs()) == 1
    assert result.id.rsplit("/", 1)[-1] == svc.jobs_created[0].rsplit("/", 1)[-1]


def test_lost_cancel_and_delete_answers_still_remove_the_job(
    emu: Emulator, svc: AiPlatformService, proxy: FaultProxy
) -> None:
    svc.add_capacity(REGION, MACHINE, 4)
    provider = VertexCustomJobProvider(sleep=virtual_sleep(emu))
    result = provider.create(props())
    proxy.plan = ProxyFaultPlan(
        match=lambda method, path: path.endswith(":cancel") or method == "DELETE",
        queue=["lose", "lose"],
    )
    provider.delete(result.id, result.outs or {})
    assert svc.custom_jobs() == []


# ---------------------------------------------------------------------- check and diff
def test_check_refuses_what_the_api_or_the_ownership_label_would_refuse(
    direct: VertexCustomJobProvider,
) -> None:
    bad = props(waitFor="done")
    bad["body"]["labels"][OWNER_LABEL] = "mine"
    failures = direct.check({}, bad).failures
    reasons = " / ".join(f.reason for f in failures)
    assert "waitFor: one of queued, running, succeeded" in reasons
    assert f"{OWNER_LABEL} is set by pulumi-dws itself" in reasons
    assert direct.check({}, props(region="us central1")).failures  # not a region segment


def test_a_changed_body_replaces_the_job_and_wait_for_updates_in_place(
    direct: VertexCustomJobProvider,
) -> None:
    old, new = props(), props(timeout="86400s")
    assert direct.diff("id", old, new).replaces == ["body"]
    waited = direct.diff("id", old, props(waitFor="queued"))
    assert waited.changes and not waited.replaces
    assert direct.update("id", copy.deepcopy(old), props(waitFor="queued")).outs is not None
