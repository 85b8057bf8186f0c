"""What pulumi-dws adds to Pulumi's Python dynamic-provider host (``python -m pulumi.dynamic``)
so that the engine's cancellation reaches a provider's waits (see :mod:`~.cancellation` for what
the engine and the host do, with sources).

Installed once per host process, the first time a pulumi-dws provider is configured there
(:func:`install`; a no-op anywhere else, e.g. in a program or a test process):

1. ``Cancel``: the host's ``DynamicResourceProviderServicer.Cancel`` returns at once and does
   nothing. Its code is wrapped so that it first does what every pulumi-dws server does on
   ``Cancel`` (:func:`~.cancellation.engine_cancel`: every wait of the process stops; before a
   close, the answer waits for the clean-ups), then runs the SDK's own ``Cancel``. The gRPC
   server keeps the bound method it was given at start, so the function's code is replaced in
   place.
2. Room for ``Cancel``: the host's gRPC server runs every call on a
   ``ThreadPoolExecutor(max_workers=4)``; with four creates waiting, a ``Cancel`` would queue
   behind them and never run. The executor may start up to :data:`WORKERS` threads.
3. SIGTERM: Python leaves SIGTERM at its default action (the host dies at once, mid-call).
   When nothing else handles it, its C handler becomes ``PyErr_SetInterrupt`` (documented
   async-signal-safe: "It can be called ... from a C signal handler"), so SIGTERM does what
   SIGINT does: the main thread stops the server, and the calls in flight learn it (4).
4. The end of a call: :func:`bind_call` registers a callback on the call's gRPC context
   (``ServicerContext.add_callback``): the engine cancelling the call, or the server stopping
   on SIGINT/SIGTERM, sets the call's token with the signal budget
   (:data:`~.cancellation.SIGNAL_BUDGET` of the engine's 5 s).

Each step checks what it relies on and skips (with a log line) when a future SDK changed it.
"""

from __future__ import annotations

import gc
import logging
import signal
import sys
import threading
import types
from typing import Any

from . import cancellation

__all__ = ["WORKERS", "bind_call", "in_dynamic_host", "install", "installed"]

log = logging.getLogger("pulumi_dws.host")
WORKERS = 64
"""The host's gRPC workers once :func:`install` ran (the SDK starts it with 4)."""
HOST_MODULE = "pulumi.dynamic.__main__"

_lock = threading.Lock()
_done: dict[str, bool] = {}
_original_cancel: list[Any] = []


def in_dynamic_host() -> bool:
    """Whether this process is Pulumi's Python dynamic-provider host."""
    main = sys.modules.get("__main__")
    spec = getattr(main, "__spec__", None)
    return getattr(spec, "name", None) == HOST_MODULE and hasattr(
        main, "DynamicResourceProviderServicer"
    )


def installed() -> dict[str, bool]:
    """Which hooks are in place (``cancel``, ``workers``, ``sigterm``)."""
    with _lock:
        return dict(_done)


def install() -> None:
    """Install the hooks (see the module docstring) once, inside the dynamic-provider host."""
    if not in_dynamic_host():
        return
    with _lock:
        if _done:
            return
        main = sys.modules["__main__"]
        cancellation.bind_calls_with(bind_call)
        _done["cancel"] = _hook_cancel(main)
        _done["workers"] = _widen_workers()
        _done["sigterm"] = _sigterm_as_sigint()


def _engine_cancel(servicer: Any, request: Any, context: Any) -> Any:
    """The host's ``Cancel``: stop every wait of the process (:func:`~.cancellation.engine_cancel`;
    before a close, answer once the clean-ups ended or their grace passed), then the SDK's own
    ``Cancel``."""
    wait = cancellation.engine_cancel(cancellation.deadline_of(context))
    if wait:
        cancellation.wait_for_calls(wait)
    original = _original_cancel[0] if _original_cancel else None
    if original is not None:
        return original(servicer, request, context)
    from google.protobuf import empty_pb2

    return empty_pb2.Empty()


def _cancel_template(self: Any, request: Any, context: Any) -> Any:  # pragma: no cover - moved
    import pulumi_dws.providers.host_hooks as hooks

    return hooks._engine_cancel(self, request, context)


def _hook_cancel(main: Any) -> bool:
    servicer = getattr(main, "DynamicResourceProviderServicer", None)
    function = getattr(servicer, "Cancel", None)
    if not isinstance(function, types.FunctionType):
        log.info("the host has no Cancel function to hook")
        return False
    if function.__code__.co_freevars:
        log.info("the host's Cancel is a closure; not hooked")
        return False
    _original_cancel.append(
        types.FunctionType(
            function.__code__, function.__globals__, "Cancel", function.__defaults__, None
        )
    )
    function.__code__ = _cancel_template.__code__
    return True


def _widen_workers() -> bool:
    from concurrent.futures import ThreadPoolExecutor

    me = threading.current_thread()
    for candidate in gc.get_objects():
        if isinstance(candidate, ThreadPoolExecutor) and me in getattr(candidate, "_threads", ()):
            if not isinstance(getattr(candidate, "_max_workers", None), int):
                return False
            candidate._max_workers = max(candidate._max_workers, WORKERS)
            queue = getattr(candidate, "_work_queue", None)
            adjust = getattr(candidate, "_adjust_thread_count", None)
            if queue is not None and adjust is not None:
                for _ in range(queue.qsize()):  # calls queued already get a thread now
                    adjust()
            return True
    log.info("the host's gRPC thread pool was not found")
    return False


def _sigterm_as_sigint() -> bool:
    if sys.platform == "win32" or sys.implementation.name != "cpython":
        return False
    if signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        return False  # SIGINT is ignored or handled elsewhere: SIGTERM keeps its own action
    if signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL:
        return False  # someone handles SIGTERM already
    import ctypes

    api = ctypes.pythonapi
    setsig = api.PyOS_setsig
    setsig.restype = ctypes.c_void_p
    setsig.argtypes = [ctypes.c_int, ctypes.c_void_p]
    handler = ctypes.cast(api.PyErr_SetInterrupt, ctypes.c_void_p).value
    previous = setsig(signal.SIGTERM, handler)
    if previous:  # not SIG_DFL after all (a C library set one): put it back
        setsig(signal.SIGTERM, previous)
        return False
    return True


def bind_call(token: cancellation.Token) -> None:
    """Set ``token`` (with the signal budget) when the gRPC call this thread serves ends before
    it answered: the engine cancelled it, or SIGINT/SIGTERM stopped the host's server."""
    context = _grpc_context()
    if context is None:
        return

    def ended() -> None:
        token.cancel(
            "the engine ended the call, or the host got SIGINT or SIGTERM",
            cancellation.SIGNAL_BUDGET,
        )

    try:
        registered = context.add_callback(ended)
    except Exception:  # noqa: BLE001 - an SDK that changed: no binding, as before
        return
    if registered is False or not context.is_active():
        ended()


def _grpc_context() -> Any:
    """The gRPC ``ServicerContext`` of the host call running on this thread, if any."""
    if not in_dynamic_host():
        return None
    frame: types.FrameType | None = sys._getframe(1)
    while frame is not None:
        if frame.f_code.co_filename.endswith(("dynamic/__main__.py", "dynamic\\__main__.py")):
            context = frame.f_locals.get("context")
            if context is not None and hasattr(context, "add_callback"):
                return context
        frame = frame.f_back
    return None
