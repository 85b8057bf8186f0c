"""MigResizeRequest under faults, through the fault proxy that damages exchanges before Compute
sees them or *after* it acted (lost, reset, truncated, HTML, empty, non-JSON, string-error, huge,
late and slow answers). Counts come from the emulator's own records; sleeps advance its virtual
clock and the client's deadline is short, so 200 cycles take seconds."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

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
    assert report.cycles == 200
    assert report.orphans == 0, report.lines()
    assert report.duplicates == 0, report.lines()
    # the planned failures (no capacity, FAILED requests) fail cleanly; the faults fail nothing
    assert 20 <= report.failed <= 45 and report.created + report.failed == 200, report.lines()
    # the faults really happened: at least 20% of requests, half of them after the act
    assert report.injected >= 0.2 * report.requests, report.lines()
    assert 0.4 <= report.after_act / report.injected <= 0.6, report.lines()
    assert set(report.faults["after"]) >= {"lose", "reset", "html", "empty", "truncated"}
