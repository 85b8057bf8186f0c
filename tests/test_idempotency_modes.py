"""The create's idempotency modes, each with an answer lost *after* the API acted (the fault
proxy forwards the create, then loses its answer):

- ``REQUEST_ID`` (FlexStartVm on Compute, QueuedTpu): the REST client sends the create again
  with the same ``requestId``; the API answers with what the first one did;
- ``CALLER_ID`` (SlurmCluster, named by the program): sent again, it meets 409 and the cluster
  is read under its name;
- ``OWNER_SEARCH`` (the fake API of :mod:`pulumi_dws.testing.labelled_jobs`, which names its jobs
  and takes no request id, as Vertex AI ``customJobs.create`` does): the create is never sent
  twice blindly; the job is found by its ownership label, and the create is sent again only
  when none is there.

Every case counts what the API really made from its own records."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fault_helpers import assert_clean_run
from queued_tpu_helpers import props as tpu_props
from slurm_helpers import cluster_inputs

from pulumi_dws.kinds.flex_vm.provider import FlexStartVmProvider
from pulumi_dws.kinds.queued_tpu.provider import QueuedTpuProvider
from pulumi_dws.kinds.slurm.provider import SlurmClusterProvider
from pulumi_dws.providers.create_machine import OWNER_LABEL, Idempotency
from pulumi_dws.testing.clock_helpers import flex_start_vm_props, virtual_sleep
from pulumi_dws.testing.emulator import Emulator
from pulumi_dws.testing.emulator.aiplatform import AiPlatformService
from pulumi_dws.testing.emulator.compute import ComputeService
from pulumi_dws.testing.emulator.tpu import TpuService
from pulumi_dws.testing.fault_proxy import FaultProxy, ProxyFaultPlan
from pulumi_dws.testing.fault_run import labelled_job_fault_run
from pulumi_dws.testing.labelled_jobs import (
    LABELLED_JOB,
    LABELLED_JOBS,
    LabelledJobError,
    LabelledJobProvider,
    LabelledJobsService,
)

JOB = {"project": "p", "region": "us-central1", "displayName": "train", "body": {"a": 1}}


@pytest.fixture
def emu() -> Iterator[Emulator]:
    with Emulator([]) as emulator:
        emulator.add(ComputeService(emulator.clock))
        emulator.add(
            AiPlatformService(
                emulator.clock, provision_seconds=60, update_seconds=30, delete_seconds=30
            )
        )
        emulator.add(TpuService(emulator.clock))
        emulator.add(LabelledJobsService(emulator.clock))
        yield emulator


@pytest.fixture
def proxy(emu: Emulator, monkeypatch: pytest.MonkeyPatch) -> Iterator[FaultProxy]:
    with FaultProxy(emu) as running:  # handed each request in-process: no second HTTP hop
        for var in ("DWS_COMPUTE_ENDPOINT", "DWS_AIPLATFORM_ENDPOINT", "DWS_TPU_ENDPOINT"):
            monkeypatch.setenv(var, running.url)
        monkeypatch.setenv(LABELLED_JOBS.env_var, running.url)
        monkeypatch.setenv("DWS_VIRTUAL_CLOCK_URL", "")
        monkeypatch.setenv("DWS_HTTP_TIMEOUT", "0.5")
        yield running


def _creates(emu: Emulator, proxy: FaultProxy, suffix: str, dropped: int = 0) -> list[Any]:
    """The create POSTs that reached the proxy, once it recorded every exchange (those the API
    saw, and ``dropped`` it never did): a damaged one is recorded when its connection ends."""
    exchanges = proxy.wait_for_exchanges(len(emu.requests) + dropped)
    return [e for e in exchanges if e.method == "POST" and e.path.endswith(suffix)]


def _lose_the_create(proxy: FaultProxy, suffix: str, fault: str = "lose") -> None:
    proxy.plan = ProxyFaultPlan(
        match=lambda method, path: method == "POST" and path.endswith(suffix), queue=[fault]
    )


# ---------------------------------------------------------------------- REQUEST_ID
def test_request_id_a_lost_insert_is_sent_again_and_compute_answers_with_the_first(
    emu: Emulator, proxy: FaultProxy
) -> None:
    compute = emu["compute"]
    compute.add_capacity("us-central1-a", "a3-highgpu-8g", 1)
    _lose_the_create(proxy, "/instances")
    props = flex_start_vm_props(
        "vm-1", project="p", zone="us-central1-a", machine_type="a3-highgpu-8g", max_run=3600
    )
    result = FlexStartVmProvider(sleep=virtual_sleep(emu)).create(props)
    inserts = _creates(emu, proxy, "/instances")
    assert [e.fault for e in inserts].count("lose") == 1 and len(inserts) >= 2  # sent again
    assert all(e.forwarded for e in inserts)  # each reached Compute...
    assert len(compute.created) == 1  # ...which made one VM
    assert (result.outs or {})["status"] == "RUNNING"


def test_request_id_a_lost_queued_resource_create_makes_one_request(
    emu: Emulator, proxy: FaultProxy
) -> None:
    tpu = emu["tpu"]
    tpu.add_chips("us-east5-a", "v6e", 16)
    _lose_the_create(proxy, "/queuedResources")
    result = QueuedTpuProvider(sleep=virtual_sleep(emu)).create(tpu_props())
    creates = _creates(emu, proxy, "/queuedResources")
    assert [e.fault for e in creates].count("lose") == 1 and len(creates) >= 2
    assert len(tpu.created) == 1 and (result.outs or {})["state"] == "ACTIVE"


# ---------------------------------------------------------------------- CALLER_ID
def test_caller_id_a_lost_cluster_create_meets_409_and_the_cluster_is_adopted(
    emu: Emulator, proxy: FaultProxy
) -> None:
    svc = emu["aiplatform"]
    _lose_the_create(proxy, "/modelDevelopmentClusters")
    result = SlurmClusterProvider(sleep=virtual_sleep(emu)).create(cluster_inputs())
    creates = _creates(emu, proxy, "/modelDevelopmentClusters")
    assert [e.fault for e in creates].count("lose") == 1
    assert 409 in [e.upstream_status for e in creates]  # sent again, it met the first's cluster
    assert len(svc.created) == 1 and (result.outs or {})["state"] == "RUNNING"


# ---------------------------------------------------------------------- OWNER_SEARCH
def _order(emu: Emulator, since: int = 0) -> list[str]:
    """The creates and searches that reached the API, in order (a search the client sent again
    after a slow answer counts once; reads of the job itself are left out)."""
    seen: list[str] = []
    for r in emu.requests[since:]:
        step = {"POST": "create", "GET": "search"}.get(r.method)
        if step == "search" and not r.path.endswith("/jobs"):
            continue
        if step is not None and (step == "create" or seen[-1:] != [step]):
            seen.append(step)
    return seen


def test_owner_search_a_lost_create_is_found_by_its_label_and_never_sent_again(
    emu: Emulator, proxy: FaultProxy
) -> None:
    jobs = emu["labelled-jobs"]
    _lose_the_create(proxy, "/jobs")
    result = LabelledJobProvider(sleep=virtual_sleep(emu)).create(dict(JOB))
    assert _order(emu) == ["search", "create", "search"]  # one create: found, not resent
    assert len(jobs.created) == 1 and result.id == jobs.created[0]
    assert (result.outs or {})["state"] == "JOB_STATE_RUNNING"
    assert jobs.jobs()[0]["labels"][OWNER_LABEL]  # the label it was found by


@pytest.mark.parametrize("fault", ["late", "reset", "html", "string_error"])
def test_owner_search_every_answer_damaged_after_the_act_makes_one_job(
    emu: Emulator, proxy: FaultProxy, fault: str
) -> None:
    jobs = emu["labelled-jobs"]
    _lose_the_create(proxy, "/jobs", fault)
    result = LabelledJobProvider(sleep=virtual_sleep(emu)).create(dict(JOB))
    assert len(jobs.created) == 1 and result.id == jobs.created[0]
    assert len(_creates(emu, proxy, "/jobs")) == 1 and _order(emu)[-1] == "search"


@pytest.mark.parametrize("fault", ["drop", "503"])
def test_owner_search_a_create_lost_before_the_act_is_sent_again_after_the_search(
    emu: Emulator, proxy: FaultProxy, fault: str
) -> None:
    """Whether the API acted can't be told from the client: it searches, finds nothing of its
    own, and only then sends the create again."""
    jobs = emu["labelled-jobs"]
    _lose_the_create(proxy, "/jobs", fault)
    result = LabelledJobProvider(sleep=virtual_sleep(emu)).create(dict(JOB))
    assert _order(emu) == ["search", "create"]  # the API saw the second create only...
    creates = _creates(emu, proxy, "/jobs", dropped=1)
    faults = [e.fault for e in creates]  # ...sent again after a search found nothing
    assert faults.count(fault) == 1 and faults.count(None) == 1
    assert len(jobs.created) == 1 and result.id == jobs.created[0]


def test_owner_search_a_job_of_a_crashed_create_is_adopted_without_a_create(
    emu: Emulator, proxy: FaultProxy
) -> None:
    jobs = emu["labelled-jobs"]
    provider = LabelledJobProvider(sleep=virtual_sleep(emu))
    first = provider.create(dict(JOB))
    before = len(emu.requests)
    again = provider.create(dict(JOB))  # the same inputs, run again after a crash
    assert again.id == first.id and _order(emu, before) == ["search"]
    other = provider.create({**JOB, "displayName": "eval"})  # other inputs: another job
    assert other.id != first.id and len(jobs.created) == 2


def test_owner_search_a_job_that_fails_is_deleted_and_reads_nothing_left(
    emu: Emulator, proxy: FaultProxy
) -> None:
    jobs = emu["labelled-jobs"]
    jobs.fail_next()
    with pytest.raises(LabelledJobError, match="JOB_STATE_FAILED.*nothing is left behind"):
        LabelledJobProvider(sleep=virtual_sleep(emu)).create(dict(JOB))
    assert jobs.jobs() == [] and len(jobs.created) == 1


def test_owner_search_is_the_declared_mode_and_the_client_is_told_not_to_resend() -> None:
    assert LABELLED_JOB.idempotency is Idempotency.OWNER_SEARCH
    assert not Idempotency.OWNER_SEARCH.resend
    assert Idempotency.REQUEST_ID.resend and Idempotency.CALLER_ID.resend


def test_owner_search_two_hundred_cycles_under_faults_leave_no_orphan_and_no_duplicate(
    emu: Emulator, proxy: FaultProxy
) -> None:
    report = labelled_job_fault_run(emu, proxy, cycles=200, rate=0.25, seed=3)
    assert_clean_run(report, 200)
    assert report.created >= 150, report.lines()
