"""SlurmCluster under faults, through the fault proxy: answers lost before and after the API
acted, creates that reach Google after the client gave up, and a fault run counted from the
emulator's own records."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fault_helpers import assert_clean_run
from slurm_helpers import ID, PROJECT, REGION, cluster_inputs, seed_body

from pulumi_dws.kinds.slurm.provider import SlurmClusterError, SlurmClusterProvider
from pulumi_dws.testing.emulator import Emulator
from pulumi_dws.testing.emulator.aiplatform import AiPlatformService
from pulumi_dws.testing.fault_proxy import AFTER_ACT, FaultProxy, ProxyFaultPlan
from pulumi_dws.testing.fault_run import slurm_fault_run


@pytest.fixture
def emu() -> Iterator[Emulator]:
    with Emulator([]) as emulator:  # short operations: fewer polls, the same paths
        emulator.add(
            AiPlatformService(
                emulator.clock, provision_seconds=60, update_seconds=30, delete_seconds=30
            )
        )
        yield emulator


@pytest.fixture
def proxy(emu: Emulator, monkeypatch: pytest.MonkeyPatch) -> Iterator[FaultProxy]:
    with FaultProxy(emu) as running:  # handed each request in-process: no second HTTP hop
        monkeypatch.setenv("DWS_AIPLATFORM_ENDPOINT", running.url)
        monkeypatch.setenv("DWS_VIRTUAL_CLOCK_URL", emu.clock_url)
        monkeypatch.setenv("DWS_HTTP_TIMEOUT", "0.1")
        yield running


def _is_create(method: str, path: str) -> bool:
    return method == "POST" and path.endswith("/modelDevelopmentClusters")


def test_two_hundred_cycles_under_faults_leave_no_orphan_and_no_duplicate(
    emu: Emulator, proxy: FaultProxy
) -> None:
    def body(cluster_id: str) -> dict:
        return seed_body()

    report = slurm_fault_run(emu, proxy, cycles=200, rate=0.25, seed=7, body=body)
    assert_clean_run(report, 200)
    assert report.created >= 150, report.lines()


@pytest.mark.parametrize("kind", AFTER_ACT)
def test_a_create_answer_damaged_after_the_api_acted_is_adopted(
    emu: Emulator, proxy: FaultProxy, kind: str
) -> None:
    svc: AiPlatformService = emu["aiplatform"]
    proxy.plan = ProxyFaultPlan(match=_is_create, queue=[kind])
    result = SlurmClusterProvider().create(cluster_inputs())
    assert result.id == ID and (result.outs or {})["state"] == "RUNNING"
    assert len(svc.created) == 1 and len(svc.clusters) == 1


def test_a_create_that_reached_google_after_the_client_gave_up_is_tracked(
    emu: Emulator, proxy: FaultProxy
) -> None:
    """Create requests held until the client gives up, then delivered: no request id
    marks them, yet the cluster one of them made is found and tracked, never left behind."""
    svc: AiPlatformService = emu["aiplatform"]
    proxy.plan = ProxyFaultPlan(match=_is_create, queue=["late"] * 3)
    result = SlurmClusterProvider().create(cluster_inputs())
    assert (result.outs or {})["state"] == "RUNNING"
    assert len(svc.created) == 1 and list(svc.clusters) == [(PROJECT, REGION, "flexvm")]


def test_a_clean_up_is_verified_after_its_delete_settles(emu: Emulator, proxy: FaultProxy) -> None:
    """The create's operation fails; the clean-up's delete answer is lost; the cluster is read
    again after the delete settles before the error says nothing is left."""
    svc: AiPlatformService = emu["aiplatform"]
    svc.fail_next("create")
    proxy.plan = ProxyFaultPlan(match=lambda m, p: m == "DELETE", queue=["lose"])
    with pytest.raises(SlurmClusterError, match="nothing is left behind|Nothing was left"):
        SlurmClusterProvider().create(cluster_inputs())
    assert svc.clusters == {}
    reads = [e for e in proxy.exchanges if e.method == "GET" and e.path.endswith("/flexvm")]
    assert reads, "the clean-up was not verified by reading the cluster"


def test_a_same_id_cluster_with_other_settings_is_refused_clearly(
    emu: Emulator, proxy: FaultProxy
) -> None:
    other = seed_body()
    other["display_name"] = "someone-elses"
    SlurmClusterProvider().create(cluster_inputs(other))
    with pytest.raises(SlurmClusterError) as info:
        SlurmClusterProvider().create(cluster_inputs())
    message = str(info.value)
    assert "already exists" in message and "display_name" in message
    assert "pulumi import" not in message
