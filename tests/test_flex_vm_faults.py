"""Fault injection: 120 create/delete cycles of Flex-start VMs with 20% of requests failing
(429 with Retry-After, 503, dropped connections; seeded) plus some responses lost *after* the
emulator did the work. Every cycle must end with the VM gone; the run must end with zero VMs
in the emulator and exactly one VM really created per ``requestId``.

Sleeps (backoff, Retry-After, operation polling) advance the emulator's virtual clock, so the
whole run takes seconds."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest
from emulator_helpers import HOUR, MACHINE, PROJECT, ZONE

from pulumi_dws.providers.flex_vm import FlexStartError, FlexStartVmProvider
from pulumi_dws.testing.clock_helpers import flex_start_vm_props, virtual_sleep
from pulumi_dws.testing.emulator import Emulator, FaultPlan
from pulumi_dws.testing.emulator.base import Request, Response

pytest_plugins = ["emulator_helpers"]  # fixtures: emu

CYCLES = 120
FAULT_RATE = 0.2
LOST_RATE = 0.05


class ResponseLost(ConnectionAbortedError):
    """Raised after a request was processed: the server closes the connection unanswered."""


def props(i: int) -> dict[str, Any]:
    return flex_start_vm_props(
        f"vm-{i}",
        project=PROJECT,
        zone=ZONE,
        machine_type=MACHINE,
        max_run=86400,
        termination_action="DELETE",
        labels={"cycle": str(i)},
        request_valid_for=7200 if i % 4 else None,
        wait_for="accepted" if i % 4 == 3 else "running",
    )


def _lose_responses(emu: Emulator, lose: Callable[[Request], bool]) -> Counter[str]:
    """After the emulator handles a mutation, drop the connection unanswered when ``lose``
    says so."""
    lost: Counter[str] = Counter()
    dispatch = emu.dispatch
    server = emu._server  # noqa: SLF001 - test-only: silence the handler's traceback
    assert server is not None
    server.handle_error = lambda request, address: None  # type: ignore[method-assign]

    def lossy(request: Request) -> Response:
        response = dispatch(request)
        mutation = request.method in ("POST", "DELETE") and not request.path.startswith(
            "/_emulator"
        )
        if mutation and response.status == 200 and lose(request):
            lost[request.method] += 1
            raise ResponseLost("response lost after the work was done")
        return response

    emu.dispatch = lossy  # type: ignore[method-assign]
    return lost


def test_create_delete_cycles_under_faults_leave_nothing_and_never_duplicate(
    emu: Emulator,
) -> None:
    compute = emu["compute"]
    emu.faults = FaultPlan(rate=FAULT_RATE, seed=20260105, retry_after=1)
    rng = random.Random(7)
    lost = _lose_responses(emu, lambda _request: rng.random() < LOST_RATE)
    provider = FlexStartVmProvider(sleep=virtual_sleep(emu))

    created = failed = 0
    request_ids: list[str] = []
    for i in range(CYCLES):
        while compute.capacity.take(ZONE, MACHINE):  # start each cycle with none free
            pass
        if i % 4 == 2:
            compute.add_capacity(ZONE, MACHINE, 1, after=1800)  # queue for 30 min
        else:
            compute.add_capacity(ZONE, MACHINE, 1)
        try:
            result = provider.create(props(i))
        except FlexStartError as err:  # retries exhausted: must have cleaned up
            failed += 1
            assert "left behind" in str(err) or "Nothing was created" in str(err)
            assert compute.instance(PROJECT, ZONE, f"vm-{i}") is None
            continue
        created += 1
        request_ids.append(result.outs["observed"]["requestId"])
        assert result.outs["status"] in ("RUNNING", "PENDING")
        assert compute.instance(PROJECT, ZONE, f"vm-{i}") is not None
        provider.delete(result.id, result.outs)
        assert compute.instance(PROJECT, ZONE, f"vm-{i}") is None, f"cycle {i} left its VM"

    injected = sum(emu.faults.counts.values())
    total = len([r for r in emu.requests if not r.path.startswith("/_emulator")]) + injected
    assert CYCLES >= 100
    assert created + failed == CYCLES and created >= CYCLES - 2
    assert compute.instances() == []
    per_request_id = Counter(rid for rid, _ in compute.inserted)
    assert per_request_id and max(per_request_id.values()) == 1, per_request_id.most_common(3)
    assert None not in per_request_id
    assert all(per_request_id[rid] == 1 for rid in request_ids)  # one VM per successful create
    assert created <= len(compute.inserted) <= created + failed
    # the faults really happened, at about the rate asked for
    assert set(emu.faults.counts) == {"429", "503", "drop"}
    assert 0.15 < injected / total < 0.25, (injected, total)
    assert sum(lost.values()) > 5


# ---------------------------------------------------------------------- single scenarios
def _is_insert(method: str, path: str) -> bool:
    return method == "POST" and path.endswith("/instances")


def _first_lost(emu: Emulator, target: Callable[[str, str], bool]) -> Counter[str]:
    """Compute carries out the first ``target`` request, but its answer never arrives."""
    seen: list[Request] = []

    def lose(request: Request) -> bool:
        if target(request.method, request.path) and not seen:
            seen.append(request)
            return True
        return False

    return _lose_responses(emu, lose)


def _refuse_after_loss(
    emu: Emulator, lost: Counter[str], target: Callable[[str, str], bool], refusals: int
) -> None:
    """After the lost answer, the next ``refusals`` ``target`` requests get a 503."""
    emu.faults = FaultPlan(
        match=lambda method, path: target(method, path) and bool(lost),
        queue=["503"] * refusals,
    )


def _failing_polls(emu: Emulator, kind: str, when: Callable[[], bool] = lambda: True) -> FaultPlan:
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


def test_an_accepted_insert_whose_answers_are_all_lost_is_settled_by_its_request_id(
    emu: Emulator,
) -> None:
    compute = emu["compute"]
    compute.add_capacity(ZONE, MACHINE, 1)
    # The first insert is carried out but its answer is lost, and the 6 retries are refused: the
    # client gives up while the VM exists. Asked again with the same requestId, Compute answers
    # the operation it started: the create goes on, and the VM is in the stack, created once.
    _refuse_after_loss(emu, _first_lost(emu, _is_insert), _is_insert, refusals=6)
    provider = FlexStartVmProvider(sleep=virtual_sleep(emu))
    result = provider.create(props(0))
    assert result.outs["status"] == "RUNNING"
    request_id = result.outs["observed"]["requestId"]
    inserts = [r for r in emu.requests if _is_insert(r.method, r.path)]
    assert {r.query["requestId"] for r in inserts} == {request_id}
    assert [rid for rid, _ in compute.inserted] == [request_id]


def test_an_insert_never_confirmed_says_which_vm_it_may_have_left(emu: Emulator) -> None:
    compute = emu["compute"]
    compute.add_capacity(ZONE, MACHINE, 1)
    _refuse_after_loss(emu, _first_lost(emu, _is_insert), _is_insert, refusals=13)  # 2 rounds
    provider = FlexStartVmProvider(sleep=virtual_sleep(emu))
    with pytest.raises(FlexStartError) as info:
        provider.create(props(0))
    message = str(info.value)
    for part in (
        "vm-0",
        ZONE,
        "did not confirm the insert",
        "a VM of that name now exists",
        f"gcloud compute instances delete vm-0 --zone {ZONE} --project {PROJECT}",
    ):
        assert part in message, (part, message)
    assert "Nothing was created" not in message
    assert compute.instance(PROJECT, ZONE, "vm-0") is not None  # reported, as it is


def test_an_insert_that_never_reached_compute_says_nothing_was_created(emu: Emulator) -> None:
    emu["compute"].add_capacity(ZONE, MACHINE, 1)
    emu.faults = FaultPlan(match=_is_insert, queue=["503"] * 14)
    provider = FlexStartVmProvider(sleep=virtual_sleep(emu))
    with pytest.raises(FlexStartError, match="Nothing was created"):
        provider.create(props(0))
    assert emu["compute"].instances() == []


def test_polls_failing_after_the_vm_got_capacity_report_it_running(emu: Emulator) -> None:
    compute = emu["compute"]
    compute.add_capacity(ZONE, MACHINE, 1, after=HOUR)
    start = emu.clock.now()
    emu.faults = _failing_polls(
        emu, "insert", when=lambda: (emu.clock.now() - start).total_seconds() >= HOUR
    )
    provider = FlexStartVmProvider(sleep=virtual_sleep(emu))
    result = provider.create(props(1))  # queued for up to 2 h, waits until RUNNING
    assert result.outs["status"] == "RUNNING"  # the true status: not deleted after a 1-h wait
    assert compute.instance(PROJECT, ZONE, "vm-1")["status"] == "RUNNING"


def test_polls_failing_while_pending_clean_up(emu: Emulator) -> None:
    emu.faults = _failing_polls(emu, "insert")
    provider = FlexStartVmProvider(sleep=virtual_sleep(emu))
    with pytest.raises(FlexStartError, match="the half-created VM was deleted"):
        provider.create(props(1))
    assert emu["compute"].instances() == []


def test_a_clean_up_whose_answers_are_lost_still_reports_what_is_left(emu: Emulator) -> None:
    compute = emu["compute"]
    compute.keep_failed_instances = True  # the failed request leaves a TERMINATED VM to delete

    def is_delete(method: str, path: str) -> bool:
        return method == "DELETE"

    # the clean-up's delete is carried out, but its answer is lost and every retry refused
    _refuse_after_loss(emu, _first_lost(emu, is_delete), is_delete, refusals=6)
    provider = FlexStartVmProvider(sleep=virtual_sleep(emu))
    with pytest.raises(FlexStartError) as info:
        provider.create(props(0))  # no queue, no capacity: a stock-out after about 90 s
    message = str(info.value)
    assert "got no capacity" in message
    assert "Nothing was left behind" in message and "may still exist" not in message, message
    assert compute.instances() == []


def test_a_start_that_cannot_be_confirmed_cancels_its_capacity_request(emu: Emulator) -> None:
    compute = emu["compute"]
    compute.add_capacity(ZONE, MACHINE, 1)
    provider = FlexStartVmProvider(sleep=virtual_sleep(emu))
    running = props(1)
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
