"""What the fault-run tests check of every provider's run (``pulumi_dws.testing.fault_run``)."""

from __future__ import annotations

from pulumi_dws.testing.fault_run import FaultRunReport


def assert_clean_run(report: FaultRunReport, cycles: int) -> None:
    """``report`` ran ``cycles`` cycles, each created or failed cleanly, leaving no orphan and
    no duplicate; and the faults really happened: at least 20% of requests, about half of them
    after the API acted; creates were interrupted mid-wait (Cancel, the end of the call), and
    another stack went for the same resources, never taking or damaging them."""
    assert report.cycles == cycles
    assert report.orphans == 0, report.lines()
    assert report.duplicates == 0, report.lines()
    assert report.created + report.failed == cycles, report.lines()
    assert report.injected >= 0.2 * report.requests, report.lines()
    assert 0.4 <= report.after_act / report.injected <= 0.6, report.lines()
    # cancellation and a second stack were part of the run, and never crossed the stacks
    assert report.interrupted >= cycles // 20, report.lines()
    assert report.two_stack >= cycles // 10 and report.cross_stack == 0, report.lines()
