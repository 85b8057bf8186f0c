"""The served resources' operations as calls the engine can end: the component provider's half
of what :mod:`pulumi_dws.providers.host_hooks` adds to Pulumi's Python host.

A ``dws:dynamic:*`` operation runs on a thread of its own (a create may wait hours in a queue),
in a call scope (:func:`~pulumi_dws.providers.cancellation.call_scope`) whose token is set when
the engine ends the call (its gRPC call is cancelled: a terminated run closes the connection).
The plugin then keeps the promises the Python host keeps (see ``docs/dynamic-host.md``):

- ``Cancel``: every wait stops (:func:`~pulumi_dws.providers.cancellation.engine_cancel`); a
  create still queued removes what it queued and fails saying so; one whose resource runs
  returns it. Before the close that kills the plugin (a 5 s deadline) the answer waits for those
  clean-ups, since the kill comes at once, with no signal first: the engine runs this plugin
  through the Python language host (``runtime: python``), which kills it on its ``RunPlugin``
  call's end.
- SIGINT and SIGTERM (a CI runner, a container stop, a plugin run as a binary: the engine's
  SIGINT, then SIGKILL 5 s later): the same, with :data:`SIGNAL_BUDGET` of the 5 s, then the
  server stops and the process exits.
- An error of an operation reaches the engine as its message (never a Python traceback), the
  values that came as secrets shown ``[secret]``.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from collections.abc import Callable, Collection
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

import grpc

from ..errors import redact
from ..providers import cancellation
from ..providers.cancellation import SIGNAL_BUDGET

__all__ = ["ServedCalls", "SIGNAL_REASON", "ENDED_REASON"]

T = TypeVar("T")

SIGNAL_REASON = "the provider plugin got SIGINT or SIGTERM"
ENDED_REASON = "the engine ended the call (the run was terminated)"
EXIT_MARGIN = 1.0
"""Seconds, beyond :data:`SIGNAL_BUDGET`, that the exit after a signal waits for the calls in
flight (their answers' way back) before it gives up on them."""


class ServedCalls:
    """The served resources' calls in flight: up to ``workers`` at once, each on a thread of
    its own, each one the engine can end (see the module docstring)."""

    def __init__(self, workers: int) -> None:
        self._executor = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="dws-served")

    async def run(
        self, context: Any, secrets: Collection[str], fn: Callable[..., T], *args: Any
    ) -> T:
        """``fn(*args)`` on a thread of its own, in a call scope the end of the gRPC call
        ``context`` reaches; an error it raises aborts the call with its message, each of
        ``secrets`` (the values that came as secrets) shown ``[secret]``."""
        token = cancellation.call_token()

        def ended(done: Any) -> None:
            if done.cancelled():
                token.cancel(ENDED_REASON, SIGNAL_BUDGET)

        context.add_done_callback(ended)

        def call() -> T:
            with cancellation.call_scope(token):
                return fn(*args)

        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(self._executor, call)
        except Exception as err:  # noqa: BLE001 - the engine gets the message, never a traceback
            message = redact(str(err) or type(err).__name__, list(secrets))
        await context.abort(grpc.StatusCode.UNKNOWN, message)
        raise AssertionError("abort raises")

    async def cancel(self, context: Any) -> None:
        """The engine's ``Cancel``: stop every wait; before a close, answer once the clean-ups
        ended (or their grace passed)."""
        wait = cancellation.engine_cancel(cancellation.deadline_of(context))
        if wait:
            await asyncio.to_thread(cancellation.wait_for_calls, wait)

    def stop_on_signals(self, server: Any) -> None:
        """On SIGINT or SIGTERM: stop every wait with :data:`SIGNAL_BUDGET`, let the calls in
        flight end (their clean-ups, their answers), then stop ``server``: the plugin exits.
        Call it on the server's event loop."""
        loop = asyncio.get_running_loop()
        stopping: list[asyncio.Task[None]] = []

        def signalled() -> None:
            cancellation.PROCESS.cancel(SIGNAL_REASON, SIGNAL_BUDGET)
            if not stopping:
                stopping.append(loop.create_task(self._stop(server)))

        for signum in (signal.SIGINT, signal.SIGTERM):
            try:
                loop.add_signal_handler(signum, signalled)
            except (NotImplementedError, RuntimeError):  # pragma: no cover - Windows
                return

    async def _stop(self, server: Any) -> None:
        ended = await asyncio.to_thread(cancellation.wait_for_calls, SIGNAL_BUDGET + EXIT_MARGIN)
        await server.stop(0)
        self._executor.shutdown(wait=False, cancel_futures=True)
        if not ended:  # a call that outlived its grace must not hold the exit
            sys.stderr.write("pulumi-dws: calls still running at exit were abandoned\n")
            sys.stderr.flush()
            os._exit(1)
