"""Every fault run a kind declares in its test aids (``FAULT_RUN``: Vertex AI custom jobs and
deployments, Cloud Batch jobs), through the fault proxy: 25% of the exchanges damaged, about
half of them after the API acted; counted from the emulator's own records, no orphan and no
duplicate."""

from __future__ import annotations

import pytest
from fault_helpers import assert_clean_run

from pulumi_dws.testing.emulator import Emulator, VirtualClock
from pulumi_dws.testing.fault_proxy import FaultProxy
from pulumi_dws.testing.fault_run import KindFaultRun, kind_fault_runs

RUNS = kind_fault_runs()


def test_the_new_kinds_declare_their_fault_runs() -> None:
    assert {run.provider for run in RUNS} >= {
        "VertexCustomJob",
        "FlexStartDeployedModel",
        "BatchJob",
    }


@pytest.mark.parametrize("declared", RUNS, ids=lambda run: run.provider)
def test_a_hundred_and_fifty_cycles_under_faults_leave_no_orphan_and_no_duplicate(
    declared: KindFaultRun, monkeypatch: pytest.MonkeyPatch
) -> None:
    clock = VirtualClock()
    with Emulator(declared.services(clock), clock=clock) as emu, FaultProxy(emu) as proxy:
        report = declared.run(emu, proxy, cycles=150, rate=0.25, seed=11)
    assert_clean_run(report, 150)
    assert report.created >= 100, report.lines()
    assert report.failed >= 10, report.lines()  # the clean-up paths ran too
