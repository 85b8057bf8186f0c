"""The BatchJob provider against the emulated Cloud Batch API: a Flex-start job queues for its
VMs, runs, succeeds or fails; a create whose answer was lost (before or after the API acted) is
sent again with the same request id and makes one job; a job of the id made elsewhere is refused,
one this program made is adopted. Counts come from the emulator's own records."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

import pytest

from pulumi_dws.kinds.batch.provider import BatchJobError, BatchJobProvider
from pulumi_dws.kinds.batch.testing import batch_job_props
from pulumi_dws.testing.clock_helpers import virtual_sleep
from pulumi_dws.testing.emulator import Emulator
from pulumi_dws.testing.emulator.batch import BatchService
from pulumi_dws.testing.fault_proxy import AFTER_ACT, BEFORE_ACT, FaultProxy, ProxyFaultPlan

PROJECT, REGION, ZONE, MACHINE = "my-project", "us-central1", "us-central1-a", "a3-highgpu-8g"
JOB = "projects/my-project/locations/us-central1/jobs/render"


@pytest.fixture
def emu() -> Iterator[Emulator]:
    with Emulator([]) as emulator:
        emulator.add(BatchService(emulator.clock))
        yield emulator


@pytest.fixture
def batch(emu: Emulator) -> BatchService:
    return emu["batch"]


@pytest.fixture
def direct(emu: Emulator, monkeypatch: pytest.MonkeyPatch) -> BatchJobProvider:
    monkeypatch.setenv("DWS_BATCH_ENDPOINT", emu.url)
    monkeypatch.setenv("DWS_VIRTUAL_CLOCK_URL", "")
    return BatchJobProvider(sleep=virtual_sleep(emu), timeout=7200)


@pytest.fixture
def proxy(emu: Emulator, monkeypatch: pytest.MonkeyPatch) -> Iterator[FaultProxy]:
    with FaultProxy(emu) as running:
        monkeypatch.setenv("DWS_BATCH_ENDPOINT", running.url)
        monkeypatch.setenv("DWS_VIRTUAL_CLOCK_URL", "")
        monkeypatch.setenv("DWS_HTTP_TIMEOUT", "0.5")
        yield running


def props(**changes: Any) -> dict[str, Any]:
    return {**batch_job_props(), **changes}


def _creates(emu: Emulator) -> list[Any]:
    return [r for r in emu.requests if r.method == "POST" and r.path.endswith("/jobs")]


def test_a_job_queues_for_its_vms_then_runs_and_its_delete_frees_them(
    batch: BatchService, direct: BatchJobProvider
) -> None:
    batch.add_capacity(ZONE, MACHINE, 2, after=1800)
    result = direct.create(props())
    assert result.id == JOB and (result.outs or {})["state"] == "RUNNING"
    job = batch.job(PROJECT, REGION, "render")
    assert job is not None and "dws-create" in job["labels"]
    create = batch.created[0]
    assert create["requestId"]  # each create carries a request id
    assert direct.read(JOB, result.outs or {}).outs["state"] == "RUNNING"
    direct.delete(JOB, result.outs or {})  # Batch stops a running job by deleting it
    assert batch.jobs() == [] and batch.capacity.available(ZONE, MACHINE) == 2


def test_wait_for_succeeded_and_queued(batch: BatchService, direct: BatchJobProvider) -> None:
    batch.run_seconds = 1800
    batch.add_capacity(ZONE, MACHINE, 2)
    done = direct.create(props(waitFor="succeeded"))
    assert (done.outs or {})["state"] == "SUCCEEDED"
    direct.delete(JOB, done.outs or {})
    batch.take_all_capacity(ZONE, MACHINE)
    queued = direct.create(props(waitFor="queued", jobId="later"))
    assert (queued.outs or {})["state"] == "QUEUED"


def test_a_job_still_queued_when_the_wait_ends_is_kept_and_said(
    batch: BatchService, direct: BatchJobProvider
) -> None:
    """A DWS queue is kept (docs/reliability.md): the create succeeds with the job QUEUED."""
    created = direct.create(props())
    outs = created.outs or {}
    assert outs["state"] == "QUEUED" and "kept" in outs["observed"]["note"]
    assert len(batch.jobs()) == 1


def test_a_job_that_finds_no_vms_before_the_wait_ends_leaves_nothing_with_on_timeout_cancel(
    batch: BatchService, direct: BatchJobProvider
) -> None:
    with pytest.raises(BatchJobError) as info:
        direct.create(props(onTimeout="cancel"))
    assert "still QUEUED" in str(info.value) and "nothing is left behind" in str(info.value)
    assert batch.jobs() == []


def test_a_failed_job_is_deleted_and_the_error_says_why(
    batch: BatchService, direct: BatchJobProvider
) -> None:
    batch.add_capacity(ZONE, MACHINE, 2)
    batch.fail_next("Task exited with a non-zero exit code 3.")
    with pytest.raises(BatchJobError, match="exit code 3"):
        direct.create(props())
    assert batch.jobs() == []


def test_a_job_of_the_id_made_elsewhere_is_refused_one_of_ours_adopted(
    emu: Emulator, batch: BatchService, direct: BatchJobProvider
) -> None:
    batch.add_capacity(ZONE, MACHINE, 2)
    client = direct.client()
    elsewhere = props()["body"]
    client.post(f"projects/{PROJECT}/locations/{REGION}/jobs", elsewhere, jobId="render")
    with pytest.raises(BatchJobError, match="no dws-create label"):
        direct.create(props())
    batch.remove(PROJECT, REGION, "render")
    first = direct.create(props())
    again = direct.create(props())  # a crash after the act: the next up adopts
    assert again.id == first.id and len(batch.jobs()) == 1


def test_a_create_carried_out_but_answered_503_is_sent_again_with_its_request_id(
    emu: Emulator, batch: BatchService, direct: BatchJobProvider
) -> None:
    batch.add_capacity(ZONE, MACHINE, 2)
    batch.lose_answers("POST")
    result = direct.create(props())
    creates = _creates(emu)
    assert len(creates) == 2 and creates[0].query["requestId"] == creates[1].query["requestId"]
    assert len(batch.created) == 1 and (result.outs or {})["state"] == "RUNNING"


@pytest.mark.parametrize("fault", (*BEFORE_ACT, *AFTER_ACT))
def test_a_damaged_create_exchange_makes_one_job(
    emu: Emulator, batch: BatchService, proxy: FaultProxy, fault: str
) -> None:
    batch.add_capacity(ZONE, MACHINE, 2)
    proxy.plan = ProxyFaultPlan(
        match=lambda method, path: method == "POST" and path.endswith("/jobs"), queue=[fault]
    )
    result = BatchJobProvider(sleep=virtual_sleep(emu), timeout=7200).create(props())
    assert (result.outs or {})["state"] == "RUNNING"
    assert len(batch.created) == 1 and batch.jobs() == [(PROJECT, REGION, "render")]


def test_a_lost_delete_answer_still_deletes(
    emu: Emulator, batch: BatchService, proxy: FaultProxy
) -> None:
    batch.add_capacity(ZONE, MACHINE, 2)
    provider = BatchJobProvider(sleep=virtual_sleep(emu), timeout=7200)
    result = provider.create(props())
    proxy.plan = ProxyFaultPlan(match=lambda method, path: method == "DELETE", queue=["lose"])
    provider.delete(result.id, result.outs or {})
    assert batch.jobs() == []


def test_check_and_diff(direct: BatchJobProvider) -> None:
    bad = props(jobId="Render_1", waitFor="later")
    reasons = " / ".join(f.reason for f in direct.check({}, bad).failures)
    assert "jobId" in reasons and "waitFor: one of queued, running, succeeded" in reasons
    labelled = props()
    labelled["body"]["labels"]["dws-create"] = "x"
    assert direct.check({}, labelled).failures
    changed = props()
    changed["body"]["taskGroups"][0]["taskCount"] = "16"
    diff = direct.diff(JOB, props(), changed)
    assert diff.replaces == ["body"] and diff.delete_before_replace
    assert direct.diff(JOB, props(), props(jobId="other")).replaces == ["jobId"]


def test_a_job_made_before_its_vms_were_labelled_is_not_replaced(
    direct: BatchJobProvider,
) -> None:
    """An older release sent the labels on the job only: its state's body lacks
    allocationPolicy.labels. The same job now sends them there too; that alone is no change
    (a replacement would run the job again), while a change of the labels still is."""
    new = props()
    old = copy.deepcopy(new)
    del old["body"]["allocationPolicy"]["labels"]
    assert new["body"]["allocationPolicy"]["labels"] == new["body"]["labels"]
    assert direct.diff(JOB, old, new).changes is False
    relabelled = copy.deepcopy(new)
    relabelled["body"]["labels"] = relabelled["body"]["allocationPolicy"]["labels"] = {"t": "x"}
    assert direct.diff(JOB, old, relabelled).replaces == ["body"]
