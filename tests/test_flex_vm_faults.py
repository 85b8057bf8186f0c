"""FlexStartVm under faults, through the fault proxy (``pulumi_dws.testing.fault_proxy``) that
damages exchanges before Compute sees them or *after* it acted: lost, reset, truncated, HTML,
empty, non-JSON, string-error, huge, late and slow answers. Counts come from the emulator's own
records. Sleeps (backoff, Retry-After, polling) advance the emulator's virtual clock; the client's
deadline is short (``DWS_HTTP_TIMEOUT``), so held answers cost milliseconds."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from emulator_helpers import HOUR, MACHINE, PROJECT, ZONE
from fault_helpers import assert_clean_run

from pulumi_dws.kinds.flex_vm.provider import FlexStartError, FlexStartVmProvider
from pulumi_dws.testing.clock_helpers import flex_start_vm_props, virtual_sleep
from pulumi_dws.testing.emulator import Emulator, FaultPlan
from pulumi_dws.testing.fault_proxy import AFTER_ACT, BEFORE_ACT, FaultProxy, ProxyFaultPlan
from pulumi_dws.testing.fault_run import flex_vm_fault_run

DEADLINE = "0.2"


def props(i: int = 0, **changes: Any) -> dict[str, Any]:
    return flex_start_vm_props(
        f"vm-{i}",
        project=PROJECT,
        zone=ZONE,
        machine_type=MACHINE,
        max_run=86400,
        labels={"cycle": str(i)},
        **changes,
    )


@pytest.fixture
def emu() -> Iterator[Emulator]:
    with Emulator() as emulator:
        yield emulator


@pytest.fixture
def proxy(emu: Emulator, monkeypatch: pytest.MonkeyPatch) -> Iterator[FaultProxy]:
    with FaultProxy(emu) as running:  # handed each request in-process: no second HTTP hop
        monkeypatch.setenv("DWS_COMPUTE_ENDPOINT", running.url)
        monkeypatch.setenv("DWS_VIRTUAL_CLOCK_URL", "")
        monkeypatch.setenv("DWS_HTTP_TIMEOUT", DEADLINE)
        yield running


@pytest.fixture
def provider(emu: Emulator, proxy: FaultProxy) -> FlexStartVmProvider:
    return FlexStartVmProvider(sleep=virtual_sleep(emu))


def _is_insert(method: str, path: str) -> bool:
    return method == "POST" and path.endswith("/instances")


def _is_delete(method: str, path: str) -> bool:
    return method == "DELETE"


# ---------------------------------------------------------------------- the fault run
def test_two_hundred_cycles_under_faults_leave_no_orphan_and_no_duplicate(
    emu: Emulator, proxy: FaultProxy
) -> None:
    report = flex_vm_fault_run(emu, proxy, cycles=200, rate=0.25, seed=20260105)
    assert_clean_run(report, 200)
    assert report.created >= 150, report.lines()
    assert set(report.faults["after"]) >= {"lose", "reset", "html", "empty", "truncated"}


# ---------------------------------------------------------------------- one fault at a time
@pytest.mark.parametrize("kind", AFTER_ACT)
def test_an_insert_answer_damaged_after_compute_acted_is_settled_not_orphaned(
    emu: Emulator, proxy: FaultProxy, provider: FlexStartVmProvider, kind: str
) -> None:
    emu["compute"].add_capacity(ZONE, MACHINE, 1)
    proxy.plan = ProxyFaultPlan(match=_is_insert, queue=[kind])
    result = provider.create(props())
    assert result.outs["status"] == "RUNNING"
    created = emu["compute"].created
    assert len(created) == 1  # Compute made the VM once, and the stack has it
    assert str(result.outs["observed"]["instanceId"]) == created[0]["id"]
    # A slow answer is recorded once sent, after the provider gave up on it and read again.
    assert [e.fault for e in proxy.wait_for_faults(1) if e.fault] == [kind]


@pytest.mark.parametrize("kind", BEFORE_ACT)
def test_an_insert_refused_before_compute_saw_it_is_sent_again(
    emu: Emulator, proxy: FaultProxy, provider: FlexStartVmProvider, kind: str
) -> None:
    emu["compute"].add_capacity(ZONE, MACHINE, 1)
    proxy.plan = ProxyFaultPlan(match=_is_insert, queue=[kind])
    assert provider.create(props()).outs["status"] == "RUNNING"
    assert len(emu["compute"].created) == 1


def test_a_string_error_that_looks_like_a_refusal_is_not_believed(
    emu: Emulator, proxy: FaultProxy, provider: FlexStartVmProvider
) -> None:
    """A 400 whose ``error`` is a string is not Google's answer: the insert may have happened."""
    emu["compute"].add_capacity(ZONE, MACHINE, 1)
    proxy.plan = ProxyFaultPlan(match=_is_insert, queue=["string_error"], string_error_status=400)
    assert provider.create(props()).outs["status"] == "RUNNING"
    assert len(emu["compute"].instances()) == 1


def test_every_insert_answer_lost_is_settled_by_reading_what_exists(
    emu: Emulator, proxy: FaultProxy, provider: FlexStartVmProvider
) -> None:
    """Two rounds of seven attempts, every answer lost after Compute acted: the create then
    reads the VM, recognises its own label, and adopts it."""
    emu["compute"].add_capacity(ZONE, MACHINE, 1)
    proxy.plan = ProxyFaultPlan(match=_is_insert, queue=["lose"] * 14)
    result = provider.create(props())
    assert result.outs["status"] == "RUNNING"
    assert len(emu["compute"].created) == 1


def test_an_insert_that_never_reached_compute_says_nothing_was_created(
    emu: Emulator, proxy: FaultProxy, provider: FlexStartVmProvider
) -> None:
    emu["compute"].add_capacity(ZONE, MACHINE, 1)
    proxy.plan = ProxyFaultPlan(match=_is_insert, queue=["503"] * 14)
    with pytest.raises(FlexStartError, match="Nothing was created") as info:
        provider.create(props())
    assert "pulumi import" not in str(info.value)
    assert emu["compute"].instances() == []


def test_a_create_that_cannot_be_settled_says_how_the_next_up_adopts(
    emu: Emulator, proxy: FaultProxy, provider: FlexStartVmProvider
) -> None:
    """Every insert answer lost, and every read too: the error names the ownership label and
    says that running the same create again adopts the VM, which it then does."""
    compute = emu["compute"]
    compute.add_capacity(ZONE, MACHINE, 1)

    def insert_or_read(method: str, path: str) -> bool:
        return _is_insert(method, path) or (method == "GET" and "/instances/" in path)

    proxy.plan = ProxyFaultPlan(match=insert_or_read, queue=["503"] * 7 + ["lose"] * 21)
    with pytest.raises(FlexStartError) as info:
        provider.create(props())
    message = str(info.value)
    assert "dws-create=" in message and "run `pulumi up` again" in message
    assert "pulumi import" not in message
    assert len(compute.instances()) == 1  # made by the insert whose answer was lost
    proxy.plan = ProxyFaultPlan()
    again = provider.create(props())  # the next `pulumi up`
    assert again.outs["status"] == "RUNNING"
    assert len(compute.created) == 1 and len(compute.instances()) == 1


def test_a_clean_up_whose_delete_answers_are_lost_still_reports_what_is_left(
    emu: Emulator, proxy: FaultProxy, provider: FlexStartVmProvider
) -> None:
    compute = emu["compute"]
    compute.keep_failed_instances = True  # the failed request leaves a TERMINATED VM to delete
    proxy.plan = ProxyFaultPlan(match=_is_delete, queue=["lose"] + ["503"] * 6)
    with pytest.raises(FlexStartError) as info:
        provider.create(props())  # no queue, no capacity: a stock-out after about 90 s
    message = str(info.value)
    assert "got no capacity" in message
    assert "Nothing was left behind" in message and "may still exist" not in message, message
    assert compute.instances() == []


def test_a_clean_up_that_cannot_delete_keeps_the_vm_tracked_with_its_true_status(
    emu: Emulator, proxy: FaultProxy, provider: FlexStartVmProvider
) -> None:
    """Never an orphan: the create succeeds with the VM as it is, and its desiredStatus says
    what it is, so the next `pulumi up` sees a difference and converges."""
    compute = emu["compute"]
    compute.keep_failed_instances = True
    proxy.plan = ProxyFaultPlan(match=_is_delete, queue=["503"] * 7)
    result = provider.create(props())
    assert result.outs["status"] == "TERMINATED"
    assert result.outs["desiredStatus"] == "TERMINATED"
    assert len(compute.instances()) == 1
    diff = provider.diff(result.id, result.outs, props())
    assert diff.changes and not diff.replaces  # the next `pulumi up` starts it


def test_a_late_insert_reaches_compute_after_the_client_gave_up(
    emu: Emulator, proxy: FaultProxy, provider: FlexStartVmProvider
) -> None:
    emu["compute"].add_capacity(ZONE, MACHINE, 1)
    proxy.plan = ProxyFaultPlan(match=_is_insert, queue=["late", "late"])
    result = provider.create(props())
    assert result.outs["status"] == "RUNNING"
    assert len(emu["compute"].created) == 1


# ---------------------------------------------------------------------- request-id memory
def test_a_create_after_a_delete_sees_through_the_stale_request_id(
    emu: Emulator, proxy: FaultProxy, provider: FlexStartVmProvider
) -> None:
    """Same inputs, same deterministic request id, within Compute's memory: the insert is
    answered with the old finished operation while no VM exists. The create notices and goes
    on with a fresh id: a new VM."""
    compute = emu["compute"]
    compute.add_capacity(ZONE, MACHINE, 2)
    first = provider.create(props())
    provider.delete(first.id, first.outs)
    second = provider.create(props())
    assert second.outs["status"] == "RUNNING"
    assert len(compute.created) == 2 and len(compute.instances()) == 1
    assert second.outs["observed"]["requestId"] != first.outs["observed"]["requestId"]
    assert second.outs["observed"]["instanceId"] != first.outs["observed"]["instanceId"]


def test_a_create_after_a_failed_one_really_asks_again(
    emu: Emulator, proxy: FaultProxy, provider: FlexStartVmProvider
) -> None:
    """The first create stocks out; the second (same inputs, within the hour) is answered with
    the old failed operation first, and must not report that failure again."""
    compute = emu["compute"]
    with pytest.raises(FlexStartError, match="got no capacity"):
        provider.create(props())
    compute.add_capacity(ZONE, MACHINE, 1)
    assert provider.create(props()).outs["status"] == "RUNNING"
    assert len(compute.created) == 2


def test_compute_forgets_request_ids_after_its_memory_ends(emu: Emulator) -> None:
    import requests

    compute = emu["compute"]
    compute.add_capacity(ZONE, MACHINE, 2)
    url = f"{emu.url}compute/v1/projects/{PROJECT}/zones/{ZONE}/instances"
    rid = "8c1b7c3e-1d7a-4f0e-9a0f-6e0b8f3c2a11"
    body = props()["body"]
    first = requests.post(url, params={"requestId": rid}, json=body, timeout=10).json()
    again = requests.post(url, params={"requestId": rid}, json=body, timeout=10).json()
    assert again["name"] == first["name"]  # deduplicated
    compute.remove_instance(PROJECT, ZONE, "vm-0")
    emu.clock.advance(compute.request_id_ttl + 1)
    later = requests.post(url, params={"requestId": rid}, json=body, timeout=10).json()
    assert later["name"] != first["name"] and len(compute.created) == 2


# ---------------------------------------------------------------------- polls (emulator faults)
def _failing_polls(emu: Emulator, kind: str, when: Any = lambda: True) -> FaultPlan:
    """Every poll of a ``kind`` operation (``insert``, ``start``...) answers 503 while ``when()``."""
    compute = emu["compute"]

    def match(method: str, path: str) -> bool:
        if method != "GET" or "/operations/" not in path:
            return False
        try:
            operation = compute.operation(path.rsplit("/", 1)[-1])
        except KeyError:
            return False
        return operation["operationType"] == kind and when()

    return FaultPlan(rate=1.0, kinds=("503",), match=match)


def test_polls_failing_after_the_vm_got_capacity_report_it_running(
    emu: Emulator, provider: FlexStartVmProvider
) -> None:
    compute = emu["compute"]
    compute.add_capacity(ZONE, MACHINE, 1, after=HOUR)
    start = emu.clock.now()
    emu.faults = _failing_polls(
        emu, "insert", when=lambda: (emu.clock.now() - start).total_seconds() >= HOUR
    )
    result = provider.create(props(1, request_valid_for=7200))
    assert result.outs["status"] == "RUNNING"  # the true status: not deleted after a 1-h wait
    assert compute.instance(PROJECT, ZONE, "vm-1")["status"] == "RUNNING"


def test_polls_failing_while_pending_are_waited_out_not_turned_into_a_cancel(
    emu: Emulator, provider: FlexStartVmProvider
) -> None:
    """Every poll fails (an outage) while the VM queues: the wait goes on to its own end (the
    window plus a margin) instead of cancelling the queued VM at the first failure; then the
    error says the reads were failing, and nothing is left."""
    start = emu.clock.now()
    emu.faults = _failing_polls(emu, "insert")
    with pytest.raises(FlexStartError) as info:
        provider.create(props(1, request_valid_for=7200))
    assert "reads failing: HTTP 503" in str(info.value)
    assert "Nothing was left behind" in str(info.value)
    assert (emu.clock.now() - start).total_seconds() >= 7200
    assert emu["compute"].instances() == []


def test_a_start_that_cannot_be_confirmed_cancels_its_capacity_request(
    emu: Emulator, provider: FlexStartVmProvider
) -> None:
    compute = emu["compute"]
    compute.add_capacity(ZONE, MACHINE, 1)
    running = props(1, request_valid_for=7200)
    created = provider.create(running)
    stopped = provider.update(
        created.id, created.outs, {**running, "desiredStatus": "TERMINATED"}
    ).outs
    compute.capacity.take(ZONE, MACHINE)  # someone else took it: the start queues
    emu.faults = _failing_polls(emu, "start")
    with pytest.raises(FlexStartError) as info:
        provider.update(created.id, stopped, running)
    assert "stays TERMINATED" in str(info.value)
    assert compute.instance(PROJECT, ZONE, "vm-1")["status"] == "TERMINATED"
    compute.add_capacity(ZONE, MACHINE, 1)
    emu.clock.advance(60)
    # no start behind the stack's back once capacity comes
    assert compute.instance(PROJECT, ZONE, "vm-1")["status"] == "TERMINATED"
