"""The ``python -u -m pulumi.dynamic`` process: start it, read its port line, keep its output,
stop it the way the engine does."""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import sys
import threading
import weakref
from collections.abc import Sequence
from typing import IO

from .responses import DynamicHostError

__all__ = ["HostProcess"]


class _Drain(threading.Thread):
    """Reads one pipe of the host to EOF so it never blocks on a full pipe; keeps the text."""

    def __init__(self, stream: IO[bytes], name: str, first_line: queue.Queue[bytes] | None) -> None:
        super().__init__(name=name, daemon=True)
        self._stream = stream
        self._first_line = first_line
        self._ended = False
        self._chunks: list[bytes] = []
        self._lock = threading.Condition()

    def run(self) -> None:
        if self._first_line is not None:
            # The engine reads the port from the first line; everything after it is plain output.
            line = self._stream.readline()
            self._first_line.put(line)
        while True:
            chunk = self._stream.read1(65536)  # type: ignore[attr-defined]  # a BufferedReader
            if not chunk:
                break
            with self._lock:
                self._chunks.append(chunk)
                self._lock.notify_all()
        with self._lock:
            self._ended = True
            self._lock.notify_all()
        if self._first_line is not None:
            self._first_line.put(b"")

    def text(self) -> str:
        with self._lock:
            return self._text()

    def _text(self) -> str:
        return b"".join(self._chunks).decode("utf-8", errors="replace")

    def wait_for(self, needle: str, timeout: float) -> bool:
        """Block until the text read so far holds ``needle`` (an event: each chunk read wakes
        the wait), the pipe ended, or ``timeout`` seconds passed; whether it holds it."""
        with self._lock:
            self._lock.wait_for(lambda: needle in self._text() or self._ended, timeout)
            return needle in self._text()


def _ignores_sigint(pid: int) -> bool:
    """Whether process ``pid`` ignores SIGINT, so that SIGINT cannot stop it.

    A process inherits an ignored SIGINT from its parent (a background job of a
    non-interactive shell has one, and so do the processes it starts), and Python then keeps
    it ignored instead of raising ``KeyboardInterrupt``. Linux says so in ``/proc``; elsewhere
    the host is assumed to have inherited this process's own disposition.
    """
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("SigIgn:"):
                    return bool(int(line.split()[1], 16) >> (signal.SIGINT - 1) & 1)
    except (OSError, ValueError, IndexError):
        pass
    return signal.getsignal(signal.SIGINT) is signal.SIG_IGN


def _reap(proc: subprocess.Popen[bytes], grace: float) -> None:
    """Stop the host like the engine does: SIGINT, then a kill if it has not exited after
    ``grace`` seconds. A host that ignores SIGINT is killed at once: waiting could only end
    in the same kill."""
    if proc.poll() is None:
        try:
            if sys.platform == "win32":  # pragma: no cover - no SIGINT for a child on Windows
                proc.terminate()
            elif _ignores_sigint(proc.pid):
                proc.kill()
            else:
                proc.send_signal(signal.SIGINT)
            proc.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            proc.kill()
        except ProcessLookupError:  # pragma: no cover - exited between poll() and the signal
            pass
    proc.wait()


class HostProcess:
    """One running ``python -u -m pulumi.dynamic``, with its output kept.

    The process is reaped when :meth:`stop` is called or, failing that, when this object is
    garbage-collected.
    """

    def __init__(
        self,
        args: Sequence[str],
        *,
        cwd: str,
        env: dict[str, str],
        startup_timeout: float,
        shutdown_grace: float,
    ) -> None:
        self._startup_timeout = startup_timeout
        self._shutdown_grace = shutdown_grace
        self.proc = subprocess.Popen(  # noqa: S603 - our own interpreter
            list(args),
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=sys.platform != "win32",
        )
        self._finalizer = weakref.finalize(self, _reap, self.proc, shutdown_grace)
        self._first_line: queue.Queue[bytes] = queue.Queue()
        assert self.proc.stdout is not None and self.proc.stderr is not None  # both PIPE
        pid = self.proc.pid
        self._stdout = _Drain(self.proc.stdout, f"dynamic-host-{pid}-stdout", self._first_line)
        self._stderr = _Drain(self.proc.stderr, f"dynamic-host-{pid}-stderr", None)
        self._stdout.start()
        self._stderr.start()

    def read_port(self) -> int:
        """The engine's ``parsePort``: the first stdout line, trimmed, is the port number."""
        try:
            line = self._first_line.get(timeout=self._startup_timeout)
        except queue.Empty:
            raise DynamicHostError(
                f"the host wrote no port within {self._startup_timeout}s"
            ) from None
        if not line:
            raise DynamicHostError(
                f"the host exited with status {self.proc.wait()} before writing its port"
            )
        text = line.decode("utf-8", errors="replace").strip()
        if not text.isdigit() or not 0 < int(text) < 65536:
            raise DynamicHostError(f"the host wrote an invalid port: {text!r}")
        return int(text)

    def stop(self) -> None:
        """Stop the host (see :func:`_reap`), wait for it and for its output. Idempotent."""
        self._finalizer()  # runs _reap once
        for drain in (self._stdout, self._stderr):
            drain.join(timeout=self._shutdown_grace)

    def signal_group(self, signum: int) -> None:
        """Send ``signum`` to the host's process group, as the engine does (the host runs in a
        group of its own: ``Setpgid`` in the engine, ``start_new_session`` here)."""
        if self.proc.poll() is not None:
            return
        try:
            if sys.platform == "win32":  # pragma: no cover - no process groups
                self.proc.send_signal(signum)
            else:
                os.killpg(self.proc.pid, signum)
        except ProcessLookupError:  # pragma: no cover - exited meanwhile
            pass

    def wait(self, timeout: float | None) -> int | None:
        """Wait up to ``timeout`` real seconds for the host to exit; its status, or None."""
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return None

    def kill(self) -> None:
        """SIGKILL the host, now, and wait for it."""
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    @property
    def pid(self) -> int:
        return self.proc.pid

    @property
    def returncode(self) -> int | None:
        return self.proc.poll()

    @property
    def stdout(self) -> str:
        return self._stdout.text()

    @property
    def stderr(self) -> str:
        return self._stderr.text()

    def wait_for_stderr(self, needle: str, timeout: float) -> bool:
        return self._stderr.wait_for(needle, timeout)


def python_host_args(python: str, engine_address: str | None) -> list[str]:
    """The command line: ``python -u -m pulumi.dynamic [engine address]``."""
    args = [python, "-u", "-m", "pulumi.dynamic"]
    if engine_address is not None:
        args.append(engine_address)
    return args


def with_pythonpath(environ: dict[str, str], extra: Sequence[str]) -> dict[str, str]:
    """``environ`` with ``extra`` prepended to ``PYTHONPATH``."""
    paths = [*extra]
    if environ.get("PYTHONPATH"):
        paths.append(environ["PYTHONPATH"])
    if paths:
        environ["PYTHONPATH"] = os.pathsep.join(paths)
    return environ
