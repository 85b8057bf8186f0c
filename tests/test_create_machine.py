"""The shared create state machine, driven by scripted steps: every lost-answer, stale-answer,
crash and failure path is a visible transition."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest

from pulumi_dws.providers.create_machine import (
    CleanUp,
    CreateFailed,
    CreateMachine,
    Found,
    Idempotency,
    Outcome,
    Phase,
    Sent,
)

RES = {"name": "r"}


@dataclass
class Script:
    """Steps that answer from lists, in order."""

    finds: list[Found[Any]] = field(default_factory=lambda: [Found()])
    sends: list[Sent[Any]] = field(default_factory=lambda: [Sent("accepted", "op")])
    follows: list[Outcome[Any]] = field(default_factory=lambda: [Outcome(Phase.RUNNING, RES)])
    adopts: list[Outcome[Any]] = field(default_factory=lambda: [Outcome(Phase.RUNNING, RES)])
    reach: Any = None
    cleanup: CleanUp[Any] = field(default_factory=lambda: CleanUp(True, "nothing left"))
    attempts: list[int] = field(default_factory=list)
    order: list[str] = field(default_factory=list)  # "find" and "send", as called

    def find(self) -> Found[Any]:
        self.order.append("find")
        return self.finds.pop(0)

    def send(self, attempt: int) -> Sent[Any]:
        self.order.append("send")
        self.attempts.append(attempt)
        return self.sends.pop(0)

    def follow(self, handle: Any) -> Outcome[Any]:
        return self.follows.pop(0)

    def adopt(self, resource: Any) -> Outcome[Any]:
        return self.adopts.pop(0)

    def reached(self, failure: Exception) -> Any:
        return self.reach

    def clean_up(self, failure: Exception) -> CleanUp[Any]:
        return self.cleanup

    def message(self, phase: Phase, detail: str, error: Exception | None) -> str:
        return f"{phase}: {detail}"


def run(
    script: Script,
    settle: Callable[[], None] = lambda: None,
    mode: Idempotency = Idempotency.REQUEST_ID,
) -> tuple[Any, list[str]]:
    machine = CreateMachine(script, settle=settle, mode=mode)
    try:
        return machine.run(), machine.phases()
    except CreateFailed as err:
        return err, machine.phases()


LOST = Sent("lost", error=RuntimeError("reset"))
FAILED = Outcome(Phase.FAILED, error=RuntimeError("stock-out"))


def test_accepted_then_running() -> None:
    result, phases = run(Script())
    assert result == RES and phases == ["requested", "accepted", "running"]


def test_queued_is_pending() -> None:
    result, phases = run(Script(follows=[Outcome(Phase.PENDING, RES)]))
    assert phases[-1] == "pending" and result == RES


def test_a_resource_of_ours_already_there_is_adopted_without_a_request() -> None:
    script = Script(finds=[Found(RES, ours=True)])
    result, phases = run(script)
    assert phases == ["adopted", "running"] and script.attempts == []


def test_someone_elses_resource_is_refused() -> None:
    result, phases = run(Script(finds=[Found(RES, ours=False, why="no label")]))
    assert isinstance(result, CreateFailed) and result.phase is Phase.NOT_OURS
    assert phases == ["not-ours"] and "no label" in str(result)


def test_a_stale_answer_moves_to_a_fresh_request_id() -> None:
    script = Script(sends=[Sent("stale", why="old op"), Sent("accepted", "op")])
    result, phases = run(script)
    assert script.attempts == [0, 1]
    assert phases == ["requested", "requested", "accepted", "running"]


def test_stale_answers_are_bounded() -> None:
    result, phases = run(Script(sends=[Sent("stale", why="old")] * 3))
    assert isinstance(result, CreateFailed) and result.phase is Phase.UNKNOWN


def test_a_conflict_with_our_own_resource_adopts_it() -> None:
    script = Script(finds=[Found(), Found(RES, ours=True)], sends=[Sent("conflict")])
    assert run(script)[1] == ["requested", "adopted", "running"]


def test_a_conflict_that_went_away_asks_again() -> None:
    script = Script(finds=[Found(), Found()], sends=[Sent("conflict"), Sent("accepted", "op")])
    assert run(script)[1] == ["requested", "requested", "accepted", "running"]


def test_a_lost_answer_is_asked_again_with_the_same_request() -> None:
    script = Script(sends=[LOST, Sent("accepted", "op")])
    result, phases = run(script)
    assert script.attempts == [0, 0]  # the same request id
    assert phases == ["requested", "answer-lost", "requested", "accepted", "running"]


def test_lost_twice_is_settled_by_reading_and_adopts_what_it_made() -> None:
    settled: list[bool] = []
    script = Script(finds=[Found(), Found(RES, ours=True)], sends=[LOST, LOST])
    result, phases = run(script, settle=lambda: settled.append(True))
    assert settled == [True]  # waited before the read that settles it
    assert phases[-3:] == ["answer-lost", "adopted", "running"]


def test_lost_twice_and_nothing_there_says_nothing_was_created() -> None:
    result, phases = run(Script(finds=[Found(), Found()], sends=[LOST, LOST]))
    assert isinstance(result, CreateFailed) and result.phase is Phase.REJECTED
    assert phases[-1] == "rejected"


def test_lost_twice_and_unreadable_is_unknown() -> None:
    result, phases = run(Script(finds=[Found(), Found(unknown=True)], sends=[LOST, LOST]))
    assert isinstance(result, CreateFailed) and result.phase is Phase.UNKNOWN


@pytest.mark.parametrize("mode", [Idempotency.REQUEST_ID, Idempotency.CALLER_ID])
def test_an_api_that_deduplicates_is_sent_again_before_it_is_read(mode: Idempotency) -> None:
    script = Script(finds=[Found()], sends=[LOST, Sent("accepted", "op")])
    assert run(script, mode=mode)[1] == [
        "requested", "answer-lost", "requested", "accepted", "running",
    ]  # fmt: skip
    assert script.order == ["find", "send", "send"]  # one read, before the first request


def test_owner_search_adopts_what_a_lost_create_made_without_sending_it_again() -> None:
    settled: list[bool] = []
    script = Script(finds=[Found(), Found(RES, ours=True)], sends=[LOST])
    result, phases = run(script, lambda: settled.append(True), Idempotency.OWNER_SEARCH)
    assert result == RES and script.attempts == [0] and settled == [True]
    assert phases == ["requested", "answer-lost", "adopted", "running"]


def test_owner_search_sends_again_only_after_finding_nothing_of_its_own() -> None:
    script = Script(finds=[Found(), Found()], sends=[LOST, Sent("accepted", "op")])
    result, phases = run(script, mode=Idempotency.OWNER_SEARCH)
    assert result == RES and script.order == ["find", "send", "find", "send"]
    assert phases == ["requested", "answer-lost", "requested", "accepted", "running"]


def test_owner_search_lost_every_time_is_read_before_each_send_and_then_rejected() -> None:
    script = Script(finds=[Found(), Found(), Found()], sends=[LOST, LOST])
    result, phases = run(script, mode=Idempotency.OWNER_SEARCH)
    assert isinstance(result, CreateFailed) and result.phase is Phase.REJECTED
    assert script.finds == [] and len(script.attempts) == 2


def test_owner_search_lost_and_unreadable_is_unknown_and_not_sent_again() -> None:
    script = Script(finds=[Found(), Found(unknown=True)], sends=[LOST, Sent("accepted", "op")])
    result, _ = run(script, mode=Idempotency.OWNER_SEARCH)
    assert isinstance(result, CreateFailed) and result.phase is Phase.UNKNOWN
    assert script.attempts == [0]


def test_a_refusal_is_rejected_at_once() -> None:
    result, phases = run(Script(sends=[Sent("rejected", why="400 bad body")]))
    assert phases == ["requested", "rejected"] and "400 bad body" in str(result)


def test_a_failure_that_reached_the_goal_anyway_succeeds() -> None:
    result, phases = run(Script(follows=[FAILED], reach=RES))
    assert result == RES and phases == ["requested", "accepted", "failed", "running"]


def test_a_failure_is_cleaned_up_before_the_error() -> None:
    result, phases = run(Script(follows=[FAILED]))
    assert isinstance(result, CreateFailed) and result.phase is Phase.CLEANED_UP
    assert phases == ["requested", "accepted", "failed", "cleaned-up"]


def test_a_failure_that_cannot_be_cleaned_up_is_kept_with_its_true_state() -> None:
    left = {"name": "r", "status": "ERROR"}
    result, phases = run(Script(follows=[FAILED], cleanup=CleanUp(False, "kept", left=left)))
    assert result == left and phases[-1] == "kept"


def test_a_clean_up_that_cannot_tell_what_is_left_is_unknown() -> None:
    result, phases = run(Script(follows=[FAILED], cleanup=CleanUp(False, "may exist")))
    assert isinstance(result, CreateFailed) and result.phase is Phase.UNKNOWN


def test_an_adopted_resource_that_fails_is_cleaned_up() -> None:
    script = Script(finds=[Found(RES, ours=True)], adopts=[FAILED])
    assert run(script)[1] == ["adopted", "failed", "cleaned-up"]


@pytest.mark.parametrize("phase", list(Phase))
def test_every_phase_prints_as_its_name(phase: Phase) -> None:
    assert str(phase) == phase.value
