"""Stopping a wait: the engine's ``Cancel`` RPC, ``SIGINT``/``SIGTERM`` to the provider host,
or the end of the call the engine was waiting for.

What the engine does (pulumi/pulumi at commit 1b5949891b3cefcb9974752b24a5ecef0acc86c8):

- **First Ctrl-C or SIGTERM to ``pulumi``** (``pkg/backend/cancellation_scope.go``): the
  deployment is *cancelled*: the engine sends ``Cancel`` to every resource provider
  (``pkg/resource/deploy/deployment_executor.go`` -> ``pkg/host/host.go``
  ``SignalCancellation``, a 30 s deadline on that RPC), starts no new step, and **waits for the
  steps in flight** to return: a create that returns after ``Cancel`` is recorded.
- **Second Ctrl-C or SIGTERM**: the deployment is *terminated*: ``pulumi`` stops waiting, the
  in-flight calls are cancelled on the client side, and each provider plugin is closed
  (``pkg/host/host.go`` ``Close``): ``Cancel`` again (5 s deadline), then
  ``sdk/go/common/resource/plugin/plugin.go`` ``kill``: **SIGINT to the plugin's process group,
  then SIGKILL 5 seconds later** (:data:`ENGINE_KILL_GRACE`). The same close ends every run.

What Pulumi's Python host (``python -m pulumi.dynamic``, ``pulumi/dynamic/__main__.py``) does
on its own: ``Cancel`` is a no-op; on SIGINT its main thread stops the gRPC server at once
(``server.stop(0)``: the calls in flight are cancelled, their answers never reach the engine)
and the process then waits for the provider code still running in the server's worker threads;
SIGTERM has Python's default action: the process dies at once. So without help a wait in a
provider never learns that the engine gave up on it. :mod:`~.host_hooks` gives the host what it
lacks (``Cancel`` and the end of a call reach the waits; SIGTERM acts as SIGINT), and this
module is what the waits consult:

- a *token* per source: :data:`PROCESS` (the engine's ``Cancel``: every call of the process) and
  one per call (:func:`call_scope`: the engine ended this call, SIGINT or SIGTERM);
- :func:`check` raises :class:`Interrupted` (a ``BaseException``, like ``KeyboardInterrupt``:
  no ``except Exception`` of a wait swallows it) once a token that covers this thread is set;
- :func:`pause` is the only sleep a wait uses: it ends as soon as a token is set;
- :func:`shielded` runs the clean-up of an interrupted create (remove what is still queued):
  there, checks pass and sleeps are bounded by the *grace* left: after ``Cancel``
  :data:`CANCEL_BUDGET` seconds (the engine waits for the step), after a signal or the end of
  the call :data:`SIGNAL_BUDGET` of the engine's 5 s (the rest is the host's own exit).

HTTP exchanges in flight register with :func:`interruptible`, so a token set while a call
waits for an answer ends that exchange too; one of a clean-up is not ended, but a signal that
shortens the grace (the engine's close after a second Ctrl-C) brings its deadline forward.

What every server of pulumi-dws's providers does with the engine's signals is here too, so
Pulumi's Python host (through :mod:`~.host_hooks`) and the component provider plugin
(:mod:`pulumi_dws.package.calls`) behave alike: :func:`engine_cancel` is the engine's
``Cancel`` (its deadline tells the first Ctrl-C from the close that kills the plugin next),
:func:`call_token` and :func:`call_scope` a call the server can end, :func:`wait_for_calls`
how a server lets the clean-ups it started finish before it answers or exits.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "CANCEL_BUDGET",
    "CLOSE_CANCEL_DEADLINE",
    "ENGINE_CANCEL_REASON",
    "ENGINE_KILL_GRACE",
    "GraceExpired",
    "Interrupted",
    "PROCESS",
    "SIGNAL_BUDGET",
    "Token",
    "bind_calls_with",
    "call_scope",
    "call_token",
    "cancelled",
    "check",
    "current_call",
    "deadline_of",
    "engine_cancel",
    "interruptible",
    "open_calls",
    "pause",
    "remaining",
    "shielded",
    "wait_for_calls",
]

ENGINE_KILL_GRACE = 5.0
"""Seconds between the engine's SIGINT to a plugin's process group and its SIGKILL
(``sdk/go/common/resource/plugin/plugin.go``, ``kill``: "Give the process 5 seconds to shut
down, or kill it forcibly"; pulumi/pulumi 1b5949891b3cefcb9974752b24a5ecef0acc86c8)."""
SIGNAL_BUDGET = 3.0
"""Of :data:`ENGINE_KILL_GRACE`, what the clean-up of an interrupted call may use (send the
delete or cancel of what is still queued); the rest is left for the host's own exit."""
CANCEL_BUDGET = 300.0
"""After the engine's ``Cancel`` (which waits for the steps in flight), how long the clean-up of
an interrupted create may wait for its delete or cancel to be confirmed."""
CLOSE_CANCEL_DEADLINE = 5.0
"""The deadline the engine gives the ``Cancel`` it sends just before it kills a plugin
(``pkg/host/host.go``, ``Close``: ``context.WithTimeout(host.hostCtx, 5*time.Second)``, then
``plugin.Close()``); the ``Cancel`` of the first Ctrl-C gets 30 s (``SignalCancellation``).
pulumi/pulumi 1b5949891b3cefcb9974752b24a5ecef0acc86c8."""
ENGINE_CANCEL_REASON = "the engine sent Cancel (Ctrl-C or SIGTERM to `pulumi`)"
NOBODY = -1
"""The thread of a call's token before the call runs (:func:`call_token`): it covers none."""


class Interrupted(BaseException):
    """A wait was stopped: the engine sent ``Cancel``, the host got SIGINT or SIGTERM, or the
    engine ended the call. A ``BaseException`` (as ``KeyboardInterrupt`` and
    ``asyncio.CancelledError`` are): a wait's ``except Exception`` does not swallow it; the
    provider's entry points turn it into the kind's error."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class GraceExpired(TimeoutError):
    """The clean-up of an interrupted call ran out of the grace it had (see :func:`shielded`)."""


_changed = threading.Condition()
"""Notified whenever a token is set: sleeping waits wake up and look."""


@dataclass
class Token:
    """One source of cancellation: set once, with why, when (monotonic) and how long the
    clean-up may take after it (``budget`` seconds)."""

    thread: int | None = None
    """The thread the token covers (a call's); None: every thread (the process's)."""
    reason: str = ""
    at: float | None = None
    budget: float = CANCEL_BUDGET
    closed: bool = False
    """The call the token covered has returned: setting it later does nothing (the thread now
    serves another call)."""
    _on_cancel: list[Callable[[], None]] = field(default_factory=list, repr=False)

    @property
    def set(self) -> bool:
        return self.at is not None

    def covers(self, thread: int) -> bool:
        return self.thread is None or self.thread == thread

    def cancel(self, reason: str, budget: float = CANCEL_BUDGET) -> None:
        """Set the token (a second set only shortens the grace); wake every wait it covers and
        end its HTTP exchanges in flight."""
        now = time.monotonic()
        with _changed:
            if self.closed:
                return
            if self.at is None:
                self.at, self.reason, self.budget = now, reason, budget
            elif now + budget < self.at + self.budget:
                self.budget = now + budget - self.at
            callbacks = list(self._on_cancel)
            _changed.notify_all()
        for callback in callbacks:
            callback()
        _interrupt_exchanges(self)

    def deadline(self) -> float | None:
        """When (monotonic) the clean-up's grace ends; None while the token is not set."""
        return None if self.at is None else self.at + self.budget

    def reset(self) -> None:
        """Clear the token (tests that run many cancellations in one process)."""
        with _changed:
            self.at, self.reason, self.budget = None, "", CANCEL_BUDGET

    def on_cancel(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` when the token is set (at once if it is)."""
        with _changed:
            already = self.at is not None
            if not already:
                self._on_cancel.append(callback)
        if already:
            callback()


PROCESS = Token()
"""The process's token: the engine's ``Cancel`` (see :mod:`~.host_hooks`); every call of the
host stops."""

_local = threading.local()
_exchanges: dict[int, Callable[[], None]] = {}
_shielded_exchanges: dict[int, Callable[[float], None]] = {}
_exchanges_lock = threading.Lock()


def current_call() -> Token | None:
    """The token of the call this thread serves (:func:`call_scope`), if any."""
    token: Token | None = getattr(_local, "call", None)
    return token


def _tokens() -> list[Token]:
    call = current_call()
    return [PROCESS, call] if call is not None else [PROCESS]


def cancelled() -> Token | None:
    """The first set token that covers this thread, or None."""
    me = threading.get_ident()
    for token in _tokens():
        if token.set and token.covers(me):
            return token
    return None


def _shield_depth() -> int:
    depth: int = getattr(_local, "shield", 0)
    return depth


def remaining() -> float | None:
    """Inside :func:`shielded`: the real seconds of grace left (never below 0); else None."""
    if not _shield_depth():
        return None
    deadlines = [d for d in (t.deadline() for t in _tokens()) if d is not None]
    if not deadlines:
        return None
    return max(0.0, min(deadlines) - time.monotonic())


def check() -> None:
    """Raise :class:`Interrupted` when a token covering this thread is set (outside
    :func:`shielded`); inside it, :class:`GraceExpired` once the grace is spent."""
    if _shield_depth():
        left = remaining()
        if left is not None and left <= 0:
            raise GraceExpired("the grace the engine gives an interrupted call ran out")
        return
    token = cancelled()
    if token is not None:
        raise Interrupted(token.reason)


def pause(seconds: float, sleeper: Callable[[float], None] | None = None) -> None:
    """Sleep ``seconds`` unless interrupted (see :func:`check`, before and after). With
    ``sleeper`` None or ``time.sleep`` this is a real wait that ends at once when a token is
    set; any other ``sleeper`` (an emulator's virtual clock) is called as it is. Inside
    :func:`shielded` a real wait is cut to the grace left, then :class:`GraceExpired`."""
    check()
    if sleeper is not None and sleeper is not time.sleep:
        sleeper(seconds)
        check()
        return
    left = remaining()
    if left is not None and left < seconds:
        _wait_real(left)
        raise GraceExpired("the grace the engine gives an interrupted call ran out")
    _wait_real(seconds)
    check()


def _wait_real(seconds: float) -> None:
    end = time.monotonic() + max(0.0, seconds)
    with _changed:
        while True:
            if not _shield_depth() and cancelled() is not None:
                return
            left = end - time.monotonic()
            if left <= 0:
                return
            _changed.wait(left)


_binders: list[Callable[[Token], None]] = []


def bind_calls_with(bind: Callable[[Token], None]) -> None:
    """Have ``bind(token)`` called at the start of every call scope (:mod:`~.host_hooks`
    binds a call's token to its gRPC context)."""
    if bind not in _binders:
        _binders.append(bind)


_open: set[int] = set()
"""The call scopes open now (ids of their tokens): the calls in flight."""


def call_token() -> Token:
    """The token of a call a server is about to run on another thread (:func:`call_scope`
    gives it that thread): the server sets it when the engine ends the call, before or while it
    runs; it covers no thread until then."""
    return Token(thread=NOBODY, budget=SIGNAL_BUDGET)


@contextmanager
def call_scope(token: Token | None = None) -> Iterator[Token]:
    """One provider call (``create``, ``read``, ``update``, ``delete``): a token of its own
    (``token``, from :func:`call_token`, or a new one), which the server sets when the engine
    ends the call (or the host is signalled). Nested scopes reuse the outer call's token. Open
    scopes are the calls in flight (:func:`wait_for_calls`); a token is closed with its scope."""
    outer = current_call()
    if outer is not None:
        yield outer
        return
    if token is None:
        token = Token(budget=SIGNAL_BUDGET)
    token.thread = threading.get_ident()
    _local.call = token
    with _changed:
        _open.add(id(token))
    try:
        for bind in list(_binders):  # the host's gRPC context, when there is one
            bind(token)
        yield token
    finally:
        _local.call = None
        with _changed:
            token.closed = True
            _open.discard(id(token))
            _changed.notify_all()


def open_calls() -> int:
    """How many calls are in flight (open :func:`call_scope` s)."""
    with _changed:
        return len(_open)


def wait_for_calls(timeout: float) -> bool:
    """Block until no call is in flight, at most ``timeout`` real seconds (an event: each call
    that returns wakes the wait); whether none is."""
    with _changed:
        return _changed.wait_for(lambda: not _open, max(0.0, timeout))


def deadline_of(context: Any) -> float | None:
    """The seconds the engine gave the gRPC call of ``context`` (sync or asyncio servicer
    context), None when it set no deadline or the context cannot say."""
    try:
        left = context.time_remaining()
    except Exception:  # noqa: BLE001 - a context of another shape: no deadline known
        return None
    return float(left) if isinstance(left, int | float) else None


def engine_cancel(deadline: float | None = None) -> float:
    """The engine's ``Cancel``: stop every wait of the process (:data:`PROCESS`). ``deadline``:
    the seconds the engine gives the call (None: unknown).

    The engine sends ``Cancel`` twice (pulumi/pulumi 1b5949891b3c, ``pkg/host/host.go``): on the
    first Ctrl-C with a 30 s deadline, then waits for the steps in flight (the clean-ups get
    :data:`CANCEL_BUDGET`); and when it closes the plugin, with a 5 s deadline
    (:data:`CLOSE_CANCEL_DEADLINE`), after which it kills it: a plugin run by a language host
    (``runtime: python`` in ``PulumiPlugin.yaml``) is killed at once, with no signal first
    (``sdk/go/common/resource/plugin/plugin.go``, ``ExecPlugin``: its ``Kill`` cancels the
    ``RunPlugin`` call, whose process ``sdk/python/cmd/pulumi-language-python/main.go`` started
    with ``exec.CommandContext``, which kills on cancel). Before that close the clean-ups get
    what is left of the deadline, at most :data:`SIGNAL_BUDGET`.

    Returns how long the caller should wait for the calls in flight (:func:`wait_for_calls`)
    before it answers: 0 after the first, the clean-ups' grace and a margin before a close."""
    closing = deadline is not None and deadline <= 2 * CLOSE_CANCEL_DEADLINE
    if not closing:
        PROCESS.cancel(ENGINE_CANCEL_REASON, CANCEL_BUDGET)
        return 0.0
    assert deadline is not None
    margin = min(1.0, deadline / 5)  # the answer's way back to the engine
    budget = max(0.0, min(SIGNAL_BUDGET, deadline - 2 * margin))
    PROCESS.cancel(ENGINE_CANCEL_REASON, budget)
    return max(0.0, min(budget + margin, deadline - margin))


@contextmanager
def shielded() -> Iterator[None]:
    """The clean-up of an interrupted call: :func:`check` no longer raises
    :class:`Interrupted`, and sleeps and HTTP deadlines are bounded by the grace left
    (:func:`remaining`)."""
    _local.shield = _shield_depth() + 1
    try:
        yield
    finally:
        _local.shield = _shield_depth() - 1


@contextmanager
def interruptible(
    stop: Callable[[], None], shorten: Callable[[float], None] | None = None
) -> Iterator[None]:
    """An HTTP exchange in flight on this thread: ``stop()`` ends it when a token covering the
    thread is set. An exchange of a shielded clean-up is not stopped, but when a later signal
    shortens the grace (a second Ctrl-C: the engine's SIGKILL follows in 5 s) ``shorten(when)``
    moves its deadline to the grace's new end (``when``, monotonic): it was set from the grace
    left when it began."""
    if _shield_depth():
        if shorten is None:
            yield
            return
        me = threading.get_ident()
        with _exchanges_lock:
            _shielded_exchanges[me] = shorten
        try:
            yield
        finally:
            with _exchanges_lock:
                _shielded_exchanges.pop(me, None)
        return
    me = threading.get_ident()
    with _exchanges_lock:
        _exchanges[me] = stop
    try:
        if cancelled() is not None:
            stop()
        yield
    finally:
        with _exchanges_lock:
            _exchanges.pop(me, None)


def _interrupt_exchanges(token: Token) -> None:
    if token.closed:
        return
    with _exchanges_lock:
        chosen = [stop for thread, stop in _exchanges.items() if token.covers(thread)]
        shortened = [f for thread, f in _shielded_exchanges.items() if token.covers(thread)]
    for stop in chosen:
        stop()
    deadline = token.deadline()
    if deadline is not None:
        for shorten in shortened:
            shorten(deadline)
