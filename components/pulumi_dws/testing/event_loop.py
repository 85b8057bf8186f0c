"""The event loop Pulumi programs run on under the mocks, and settling what a failed run left.

A Pulumi run that fails stops at its first error and leaves the rest behind: registrations
that will never complete (pending tasks) and Outputs that carried the error in futures nobody
awaited. Left alone, each such future reports "exception was never retrieved" from its
finalizer, whenever the garbage collector happens to reach it. That report formats a
traceback, and inside CPython 3.11's AST constructor (any ``compile`` or ``exec`` that a
collection interrupts) it fails the compile in progress with "AST constructor recursion depth
mismatch". Calling ``gc.collect()`` after each failed run avoids that, at the price of a full
collection of the whole heap (about 0.1 s with pulumi-gcp loaded) per run.

:func:`settle_failed_run` settles a failed run explicitly instead: it cancels the pending
tasks and marks every error the run left as seen; the exception handler that
:func:`ensure_event_loop` installs on the loop drops the finalizers' reports of those errors
(the run already raised them) and passes any other report on unchanged.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterable, Iterator
from typing import Any

from pulumi.runtime import settings as _settings

__all__ = ["ensure_event_loop", "fresh_event_loop", "settle_failed_run"]

# Set on an exception once a failed run has raised (or settled) it.
_SETTLED = "_pulumi_dws_settled"
# Set on the exception handler this module installs, so it is installed once per loop.
_QUIETS_SETTLED = "_pulumi_dws_quiets_settled"
_NEVER_RETRIEVED = "exception was never retrieved"

ExceptionHandler = Any  # asyncio's handler type is private to typeshed


def ensure_event_loop() -> asyncio.AbstractEventLoop:
    """The current thread's event loop, made anew if there is none or it is closed (code that
    ran ``asyncio.run`` before, a gRPC client say, leaves none), with the handler that keeps
    settled failures quiet."""
    try:
        loop = asyncio.get_event_loop_policy().get_event_loop()
    except RuntimeError:
        loop = None
    if loop is None or loop.is_closed():
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
    _quiet_settled_failures(loop)
    return loop


def fresh_event_loop() -> asyncio.AbstractEventLoop:
    """Close the current event loop (after cancelling what is pending in it) and install a
    new one: a test that runs several programs starts each on a clean loop."""
    try:
        old = asyncio.get_event_loop_policy().get_event_loop()
    except RuntimeError:
        old = None
    if old is not None and not old.is_closed() and not old.is_running():
        _cancel_pending(old)
        old.close()
    asyncio.set_event_loop(asyncio.new_event_loop())
    return ensure_event_loop()


def settle_failed_run(failure: BaseException | None = None) -> None:
    """Settle, now, what a failed run left in the current event loop and in the SDK's state.

    Pending tasks are cancelled and run to their end; ``failure`` (the run's exception) and
    every error left in the outputs and RPCs the SDK tracks are marked seen, so finalizers do
    not report them later (see the module docstring for why that matters).
    """
    try:
        loop = asyncio.get_event_loop_policy().get_event_loop()
    except RuntimeError:
        loop = None
    if loop is not None and not loop.is_closed() and not loop.is_running():
        _quiet_settled_failures(loop)
        _cancel_pending(loop)
    settings = _settings.SETTINGS
    manager = settings.rpc_manager
    with settings.lock:
        leftovers = [*settings.outputs, *manager.rpcs]
        settings.outputs.clear()
    errors: list[BaseException | None] = [failure, manager.unhandled_exception]
    for future in leftovers:
        if isinstance(future, asyncio.Future) and future.done() and not future.cancelled():
            errors.append(future.exception())  # also marks the future's own error retrieved
    manager.clear()
    for error in _chains(errors):
        _mark_settled(error)


def _cancel_pending(loop: asyncio.AbstractEventLoop) -> None:
    pending = [task for task in asyncio.all_tasks(loop) if not task.done()]
    for task in pending:
        task.cancel()
    if pending:
        loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))


def _chains(errors: Iterable[BaseException | None]) -> Iterator[BaseException]:
    """Each error and those it was raised from or while handling (the graph can loop)."""
    pending = [e for e in errors if e is not None]
    seen: set[int] = set()
    while pending:
        error = pending.pop()
        if id(error) in seen:
            continue
        seen.add(id(error))
        yield error
        pending.extend(e for e in (error.__cause__, error.__context__) if e is not None)


def _mark_settled(error: BaseException) -> None:
    # An exception type with __slots__ cannot be marked: its report stays.
    with contextlib.suppress(AttributeError):
        setattr(error, _SETTLED, True)


def _quiet_settled_failures(loop: asyncio.AbstractEventLoop) -> None:
    """Install (once) a handler on ``loop`` that drops "never retrieved" reports of settled
    errors and hands every other report to the handler the loop had."""
    previous: ExceptionHandler | None = loop.get_exception_handler()
    if getattr(previous, _QUIETS_SETTLED, False):
        return

    def handler(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        error = context.get("exception")
        if (
            _NEVER_RETRIEVED in str(context.get("message", ""))
            and error is not None
            and getattr(error, _SETTLED, False)
        ):
            return
        if previous is None:
            loop.default_exception_handler(context)
        else:
            previous(loop, context)

    setattr(handler, _QUIETS_SETTLED, True)
    loop.set_exception_handler(handler)
