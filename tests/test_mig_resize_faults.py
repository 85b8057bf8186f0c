"""MigResizeRequest under faults, through the fault proxy that damages exchanges before Compute
sees them or *after* it acted (lost, reset, truncated, HTML, empty, non-JSON, string-error, huge,
late and slow answers). Counts come from the emulator's own records; sleeps advance its virtual
clock and the client's deadline is short, so 200 cycles take seconds."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fault_helpers import assert_clean_run

from pulumi_dws.testing.emulator import Emulator
from pulumi_dws.testing.fault_proxy import FaultProxy
from pulumi_dws.testing.fault_run import mig_resize_fault_run


@pytest.fixture
def emu() -> Iterator[Emulator]:
    with Emulator() as emulator:
        yield emulator


def test_two_hundred_cycles_under_faults_leave_no_orphan_and_no_duplicate(emu: Emulator) -> None:
    with FaultProxy(emu) as proxy:
        report = mig_resize_fault_run(emu, proxy, cycles=200, rate=0.25, seed=20260105)
    assert_clean_run(report, 200)
    # the planned failures (no capacity, FAILED requests) fail cleanly; the faults fail nothing
    assert 20 <= report.failed <= 45, report.lines()
    assert set(report.faults["after"]) >= {"lose", "reset", "html", "empty", "truncated"}
    # every tenth cycle starts with no capacity free; where none comes back from the VMs the
    # cycles before deleted, its request is kept at the wait's end (on_timeout keep, the
    # default) and deleted by the cycle's destroy, leaving nothing (4 in this run)
    assert report.kept >= 3, report.lines()
