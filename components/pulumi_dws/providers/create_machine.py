"""The create of a cloud resource as an explicit state machine, shared by the dynamic providers.

A Python dynamic provider cannot record a partial create: whatever ``create`` returns is all
Pulumi will ever know. So every way a create can go wrong after the cloud may have acted must
end in one of two places: an error that is true ("nothing was created", "what was created was
removed"), or a success that reports the resource as it really is. The machine makes each path
a named transition::

    find ──(ours)──────────────────────────────────────────► ADOPTED ─┐
     │  └─(someone else's)──────────────────────────────────► NOT_OURS (error)
     ▼                                                                │
    REQUESTED ──accepted──► ACCEPTED ──► PENDING / RUNNING (success)  │
     │  │  └──refused─────► REJECTED (error: nothing was created)     │
     │  └──stale answer──► REQUESTED (a fresh request id)             │
     └──answer lost──► ANSWER_LOST ──► settle: REQUESTED again (same  │
                          request id), or ADOPTED, or REJECTED, or    │
                          UNKNOWN (error: it may exist; the next      │
                          create with the same inputs adopts it)      │
    ACCEPTED / ADOPTED ──failed──► FAILED ──► RUNNING (it got there   ◄┘
                                   anyway) / CLEANED_UP (error: nothing left) /
                                   KEPT (success with its true, failed state)
    any step ──interrupted (Cancel, SIGINT, SIGTERM)──► INTERRUPTED ──► withdraw:
                                   WITHDRAWN (error: still queued, so removed) /
                                   KEPT (it has capacity: success, as it is) / UNKNOWN

A provider supplies the steps (:class:`CreateSteps`): find the resource and say whether it is
its own, send the create, follow an accepted create, adopt, check whether a failure reached
the goal anyway, clean up, withdraw after an interruption. The machine owns the order, the
bounds on repeats, and the trace (:attr:`CreateMachine.trace`, also logged on
``pulumi_dws.create``) that tests assert on.

What a lost answer leads to depends on how the API tells a repeated create from a new one: the
machine's :class:`Idempotency` mode, declared once per API (see
:class:`~pulumi_dws.providers.rest_resource.RestResource`):

``REQUEST_ID`` (Compute inserts, Cloud TPU queued resources)
    the create carries a ``requestId`` the API remembers: it is sent again with the same id
    (the API answers with what the first one did), then settled by reading.
``CALLER_ID`` (a Slurm cluster id, Cloud TPU ``queuedResourceId``, Batch ``jobId``)
    the program names the resource: a create sent again meets ``409``, which the machine
    settles by reading the resource under its name.
``OWNER_SEARCH`` (Vertex AI ``customJobs.create``: the API names the job and takes no
    request id)
    nothing is ever sent again blindly. The REST client does not resend the call; the machine
    waits (``settle``), searches for a resource carrying this create's ownership label, adopts
    it when found, and only when none is there sends the create again.
"""

from __future__ import annotations

import enum
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

from .cancellation import Interrupted, shielded

__all__ = [
    "Idempotency",
    "Phase",
    "Transition",
    "Found",
    "Sent",
    "sent_after",
    "Outcome",
    "CleanUp",
    "CreateSteps",
    "CreateMachine",
    "CreateFailed",
    "OWNER_LABEL",
    "found_by_owner",
    "kept_unless_gone",
    "withdrawn",
]

log = logging.getLogger("pulumi_dws.create")
T = TypeVar("T")
H = TypeVar("H")

OWNER_LABEL = "dws-create"
"""The label that marks a resource as made by a create with given inputs: its value is the
inputs' ownership key, so a create run again (after a crash or a lost answer) adopts what it
made and refuses what it did not."""


class Idempotency(str, enum.Enum):
    """How an API tells a create sent again from a new one (see the module docstring)."""

    REQUEST_ID = "request-id"
    CALLER_ID = "caller-id"
    OWNER_SEARCH = "owner-search"

    @property
    def resend(self) -> bool:
        """Whether a create whose answer was lost may be sent again before anything is read
        (and whether the REST client may retry its POST)."""
        return self is not Idempotency.OWNER_SEARCH

    def __str__(self) -> str:
        return self.value


class Phase(str, enum.Enum):
    """Where a create stands."""

    NEW = "new"
    REQUESTED = "requested"  # the create is being sent
    ANSWER_LOST = "answer-lost"  # sent, no trustworthy answer: it may or may not have happened
    ACCEPTED = "accepted"  # the API took it: an operation to follow
    ADOPTED = "adopted"  # a resource of ours was already there (a crash, a lost answer)
    PENDING = "pending"  # queued for capacity: success when that is all that was asked
    RUNNING = "running"  # what was asked for: success
    FAILED = "failed"  # accepted, then failed (an operation error, a timeout, a broken state)
    CLEANED_UP = "cleaned-up"  # the failure's leftovers are gone: error, nothing left
    KEPT = "kept"  # the leftovers could not be removed: success with their true state
    INTERRUPTED = "interrupted"  # Cancel, SIGINT or SIGTERM stopped the create (see withdraw)
    WITHDRAWN = "withdrawn"  # interrupted while queued: the queued request was removed: error
    REJECTED = "rejected"  # refused, or never reached the API: error, nothing was created
    NOT_OURS = "not-ours"  # the name is taken by a resource this create did not make: error
    UNKNOWN = "unknown"  # whether something was created cannot be told now: error

    def __str__(self) -> str:
        return self.value


SUCCESS = frozenset({Phase.PENDING, Phase.RUNNING, Phase.KEPT})
ENDINGS = frozenset(
    {Phase.REJECTED, Phase.NOT_OURS, Phase.CLEANED_UP, Phase.UNKNOWN, Phase.WITHDRAWN}
)


@dataclass(frozen=True)
class Transition:
    """One step of a create: from ``source`` to ``target``, and why."""

    source: Phase
    target: Phase
    why: str

    def __str__(self) -> str:
        return f"{self.source} -> {self.target} ({self.why})"


@dataclass(frozen=True)
class Found(Generic[T]):
    """What a read found: the resource (None: not there) and whether it is this create's own.
    ``unknown`` is set when the read itself failed (then nothing can be said)."""

    resource: T | None = None
    ours: bool = False
    why: str = ""
    unknown: bool = False

    @property
    def exists(self) -> bool:
        return self.resource is not None


@dataclass(frozen=True)
class Sent(Generic[H]):
    """The answer to a create request.

    ``kind``: ``accepted`` (``handle`` is what to follow, e.g. the operation), ``conflict``
    (the name is taken), ``stale`` (the answer belongs to an earlier request with the same id:
    send again with a fresh one), ``rejected`` (refused, nothing was created) or ``lost``.
    """

    kind: str
    handle: H | None = None
    error: Exception | None = None
    why: str = ""


def sent_after(error: Any, what: str = "the create") -> Sent[Any]:
    """How a create request that raised ``error`` (an API error with ``status`` and
    ``ambiguous``) ended: ``conflict`` on 409, ``lost`` when the API may have acted, else
    ``rejected``."""
    if getattr(error, "status", None) == 409:
        return Sent("conflict", error=error)
    if getattr(error, "ambiguous", False):
        return Sent("lost", error=error, why=f"{what} got no usable answer ({error})")
    return Sent("rejected", error=error, why=f"was refused: {error}")


@dataclass(frozen=True)
class Outcome(Generic[T]):
    """How following (or adopting) a create ended: ``phase`` is RUNNING or PENDING with the
    ``resource``, or FAILED with the ``error``. ``note`` is what a success must tell the user
    (a wait that ended with the resource still queued, kept: the create succeeds with its true
    state and the provider warns)."""

    phase: Phase
    resource: T | None = None
    error: Exception | None = None
    note: str = ""


@dataclass(frozen=True)
class CleanUp(Generic[T]):
    """After a failed create: ``gone`` when nothing is left; else ``left`` is the resource as it
    is (then the create succeeds with it, so it stays tracked) or None when unknown."""

    gone: bool
    message: str
    left: T | None = None


def found_by_owner(
    resource: T,
    mark: str | None,
    key: str,
    exists: str,
    holder: str = "it",
    *,
    stack: str | None = None,
    ours: str | None = None,
    label: str = OWNER_LABEL,
) -> Found[T]:
    """What a find that met ``resource`` learnt from its ownership marks: ``mark`` (the value
    of its ownership ``label``, :data:`OWNER_LABEL` unless the resource declares another; None
    when it has none) and ``stack`` (its stack label, None when it has none); ``ours`` is this
    create's stack mark (None: no stack identity). Ours when ``mark`` is this create's ``key``.
    Else someone else's, saying whose: another stack's; this stack's, left by a create of other
    inputs that did not finish (an interrupted or killed ``pulumi up``: a leftover); made by
    pulumi-dws from other inputs; or not by pulumi-dws. ``exists`` says what was met (``"it
    already exists"``), ``holder`` what carries the labels (``"its node"``)."""
    if mark == key:
        return Found(resource, ours=True)
    if stack is not None and ours is not None and stack != ours:
        whose = f"it belongs to another stack (stack label {stack}; this stack is {ours})"
    elif stack is not None and stack == ours:
        whose = (
            f"this stack made it from other inputs in a create that did not finish (an "
            f"interrupted `pulumi up`; label {label}={mark}), and does not track it: "
            "it is a leftover (`dws leftovers --stack STACK` lists what a stack left, `--delete` "
            "removes it)"
        )
    elif mark is None:
        whose = f"{holder} has no {label} label, so it was not made by pulumi-dws"
    else:
        whose = (
            f"pulumi-dws made it from other inputs (label {label}={mark}; these inputs make {key})"
        )
    return Found(resource, ours=False, why=f"{exists}, and {whose}")


def kept_unless_gone(
    what: str,
    why: str,
    path: str,
    read: Callable[[], T | None],
    unreadable: type[Exception],
) -> CleanUp[T]:
    """A failed ``what`` (``"cluster"``) that ``why`` could not be deleted: read again, it is
    gone (nothing left), left as it is (kept in the stack for ``pulumi destroy``) or unknown
    (``read`` raised ``unreadable``: delete it by hand if it exists)."""
    message = f"The failed {what} {why}; it is kept in the stack as it is: delete {path}"
    try:
        live = read()
    except unreadable:
        return CleanUp(False, message + " by hand if it exists.")
    if live is None:
        return CleanUp(True, "Nothing was left behind.")
    return CleanUp(False, message + " with `pulumi destroy`.", left=live)


def withdrawn(
    found: Found[T],
    *,
    queued: Callable[[T], bool],
    remove: Callable[[T], str],
    what: str,
    reason: str,
) -> CleanUp[T]:
    """What an interrupted create (``reason``) leaves, from what a find met (``found``): nothing
    of its own (nothing made, or only someone else's: ``gone``); its own resource while it is
    still ``queued`` (nothing runs yet): ``remove`` it (its message says how it went), so only
    the place in the queue is lost (``gone``); its own resource beyond the queue (capacity found
    or running): returned as it is (``left``), for the stack to track; unknown when it can't be
    read. ``what`` names the resource (``the queued resource``)."""
    interrupted = f"The create was interrupted ({reason})"
    if found.unknown:
        unread = f"whether {what} exists can't be read ({found.why})"
        return CleanUp(False, f"{interrupted}, and {unread}")
    if found.resource is None or not found.ours:
        return CleanUp(True, f"{interrupted} before {what} was made: nothing was created.")
    if not queued(found.resource):
        return CleanUp(
            False,
            f"{interrupted} after {what} got its capacity: it is kept as it is.",
            left=found.resource,
        )
    how = remove(found.resource)
    return CleanUp(
        True,
        f"{interrupted} while {what} was still queued: {how}. Nothing was running: only its "
        "place in the queue is lost.",
    )


class CreateFailed(Exception):
    """A create ended in an error phase. The message says what happened to the resource;
    ``phase`` is REJECTED, NOT_OURS, CLEANED_UP, WITHDRAWN or UNKNOWN."""

    def __init__(self, phase: Phase, message: str) -> None:
        super().__init__(message)
        self.phase = phase


class CreateSteps(Protocol[T, H]):
    """What a provider does at each step (see the module docstring)."""

    def find(self) -> Found[T]:
        """Read the resource by its name; say whether it is this create's own."""
        ...

    def send(self, attempt: int) -> Sent[H]:
        """Send the create (``attempt`` counts fresh request ids: 0, 1, ...)."""
        ...

    def follow(self, handle: H) -> Outcome[T]:
        """Wait for an accepted create until it reaches what was asked, or fails."""
        ...

    def adopt(self, resource: T) -> Outcome[T]:
        """Take over a resource of ours found in place; wait for it like :meth:`follow`."""
        ...

    def reached(self, failure: Exception) -> T | None:
        """After a failure: the resource, if it reached what was asked anyway (e.g. only the
        polling failed); else None."""
        ...

    def clean_up(self, failure: Exception) -> CleanUp[T]:
        """Remove what a failed create left."""
        ...

    def withdraw(self, reason: str) -> CleanUp[T]:
        """The create was interrupted (``reason``): find what it made; remove it while it is
        still queued (``gone``: nothing ran), return it once it has capacity (``left``), or say
        it can't be told (neither). Runs shielded (:func:`~.cancellation.shielded`): within
        the grace the engine gives (see :func:`withdrawn`)."""
        ...

    def message(self, phase: Phase, detail: str, error: Exception | None) -> str:
        """The error message for an error phase."""
        ...


@dataclass
class CreateMachine(Generic[T, H]):
    """Runs one create through its phases (see the module docstring).

    ``fresh_ids`` bounds how many fresh request ids a create may move on to (after stale
    answers); ``lost_rounds`` how many times a create whose answer was lost is sent in all
    before it is settled by reading. ``settle`` (e.g. a short sleep) runs before the read that
    concludes that nothing was created, so a request that arrives late is seen. ``mode`` is the
    API's :class:`Idempotency`: with ``OWNER_SEARCH`` every lost answer is settled by reading
    (``settle``, then ``find``) before the create is sent again.
    """

    steps: CreateSteps[T, H]
    fresh_ids: int = 3
    lost_rounds: int = 2
    settle: Callable[[], None] = lambda: None
    mode: Idempotency = Idempotency.REQUEST_ID
    trace: list[Transition] = field(default_factory=list)
    phase: Phase = Phase.NEW
    note: str = ""
    """What a successful create must tell the user (see :attr:`Outcome.note`)."""

    def move(self, target: Phase, why: str) -> None:
        step = Transition(self.phase, target, why)
        self.trace.append(step)
        log.info("create: %s", step)
        self.phase = target

    def fail(self, target: Phase, detail: str, error: Exception | None = None) -> CreateFailed:
        self.move(target, detail)
        return CreateFailed(target, self.steps.message(target, detail, error))

    # ------------------------------------------------------------------ the run
    def run(self) -> T:
        """Create (or adopt); the resource on success, :class:`CreateFailed` otherwise. An
        interruption (:class:`~.cancellation.Interrupted`: the engine's ``Cancel``, SIGINT or
        SIGTERM) at any step ends in :meth:`CreateSteps.withdraw`."""
        try:
            return self._run()
        except Interrupted as stop:
            return self._interrupted(stop)

    def _interrupted(self, stop: Interrupted) -> T:
        with shielded():
            self.move(Phase.INTERRUPTED, stop.reason)
            try:
                result = self.steps.withdraw(stop.reason)
            except Exception as err:  # noqa: BLE001 - say what is known, never a traceback
                result = CleanUp(False, f"what it made could not be settled ({err})")
        if result.gone:
            raise self.fail(Phase.WITHDRAWN, result.message)
        if result.left is not None:
            self.move(Phase.KEPT, result.message)
            return result.left
        raise self.fail(Phase.UNKNOWN, result.message)

    def _run(self) -> T:
        found = self.steps.find()
        if found.exists:
            return self._found(found, "it was already there")
        attempt = lost = conflicts = 0
        why = "request 0"
        while True:
            self.move(Phase.REQUESTED, why)
            sent = self.steps.send(attempt)
            if sent.kind == "accepted":
                assert sent.handle is not None
                self.move(Phase.ACCEPTED, sent.why or "the API took it")
                return self._settle_outcome(self.steps.follow(sent.handle))
            if sent.kind == "stale":
                attempt += 1
                if attempt >= self.fresh_ids:
                    raise self.fail(Phase.UNKNOWN, f"{sent.why}; no fresh request left")
                why = f"stale answer ({sent.why}): request {attempt}"
                continue
            if sent.kind == "rejected":
                raise self.fail(Phase.REJECTED, sent.why or str(sent.error), sent.error)
            if sent.kind == "conflict":
                found = self.steps.find()
                if found.exists:
                    return self._found(found, "the name was taken when the create arrived")
                conflicts += 1
                if conflicts > 2 or found.unknown:
                    raise self.fail(Phase.UNKNOWN, "the name is taken but cannot be read")
                why = f"the conflicting resource went away: request {attempt} again"
                continue
            assert sent.kind == "lost", sent.kind
            self.move(Phase.ANSWER_LOST, sent.why or str(sent.error))
            lost += 1
            if self.mode.resend and lost < self.lost_rounds:
                why = f"request {attempt} again: the API answers with what it did, if anything"
                continue
            self.settle()
            found = self.steps.find()
            if found.exists:
                return self._found(found, "the lost create had been carried out")
            if found.unknown:
                raise self.fail(Phase.UNKNOWN, f"{sent.error}; and it cannot be read", sent.error)
            if lost < self.lost_rounds:  # OWNER_SEARCH: nothing of ours is there, so send again
                why = f"nothing of ours was found: request {attempt} again"
                continue
            raise self.fail(Phase.REJECTED, f"never confirmed ({sent.error})", sent.error)

    def _found(self, found: Found[T], why: str) -> T:
        assert found.resource is not None
        if not found.ours:
            raise self.fail(Phase.NOT_OURS, found.why or why)
        self.move(Phase.ADOPTED, why)
        return self._settle_outcome(self.steps.adopt(found.resource))

    def _settle_outcome(self, outcome: Outcome[T]) -> T:
        if outcome.phase in (Phase.RUNNING, Phase.PENDING):
            self.note = outcome.note
            self.move(outcome.phase, outcome.note or "what was asked for")
            assert outcome.resource is not None
            return outcome.resource
        error = outcome.error or RuntimeError("the create failed")
        self.move(Phase.FAILED, str(error))
        reached = self.steps.reached(error)
        if reached is not None:
            self.move(Phase.RUNNING, "it reached what was asked anyway")
            return reached
        result = self.steps.clean_up(error)
        if result.gone:
            raise self.fail(Phase.CLEANED_UP, result.message, error)
        if result.left is not None:
            self.move(Phase.KEPT, result.message)
            return result.left
        raise self.fail(Phase.UNKNOWN, result.message, error)

    def phases(self) -> list[str]:
        """The phases the create went through, in order (for tests and logs)."""
        return [str(step.target) for step in self.trace]
