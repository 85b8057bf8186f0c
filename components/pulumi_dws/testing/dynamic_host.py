"""Drive Pulumi's own Python dynamic-provider host over gRPC, the way the engine does.

``pulumi up`` runs every Python dynamic provider (``pulumi.dynamic.ResourceProvider``) inside a
separate process started with ``python -u -m pulumi.dynamic``. That process is a gRPC
``ResourceProvider`` server; the engine reads its port from the first line of stdout and then calls
``Configure``, ``Check``, ``Diff``, ``Create``, ``Read``, ``Update`` and ``Delete``, sending
properties as protobuf ``Struct`` values that carry the provider itself, dill-pickled and base64
encoded, in the reserved ``__provider`` property.

:class:`DynamicProviderHost` starts that exact process (from the interpreter running the tests) and
plays the engine's part, so a provider is exercised through the real pickling, the real wire
format and the real host code rather than by calling its methods directly::

    from pulumi_dws.testing.dynamic_host import DynamicProviderHost, secret, urn

    with DynamicProviderHost(MyProvider(), project="my-project") as host:
        host.configure({"dws:computeEndpoint": "https://compute.example"})
        u = urn("pulumi-python:dynamic:Resource", "thing", project="my-project")
        inputs, failures = host.check(u, {}, {"zone": "us-central1-a", "token": secret("t")})
        assert not failures
        id_, outs = host.create(u, inputs)
        diff = host.diff(u, id_, outs, {**inputs, "zone": "us-east1-b"})
        assert diff.replaces == ["zone"]
        host.delete(u, id_, outs)

What the harness does on the engine's behalf (each point mirrors the engine's Go code in
``sdk/go/common/resource/plugin/provider_plugin.go`` and ``plugin.go``):

* **Process.** ``python -u -m pulumi.dynamic`` with the caller's environment plus
  ``PULUMI_PROJECT`` (the host's ``Config`` resolves un-namespaced keys against it) and
  ``PULUMI_CONFIG`` (config of the ``pulumi-python`` package only, which is why
  ``pulumi.Config`` does not see stack config inside a dynamic provider). ``-u`` matters: the host
  writes its port with an unflushed ``sys.stdout.buffer.write``, so without ``-u`` (or
  ``PYTHONUNBUFFERED``) the port line never arrives. The working directory is put on
  ``sys.path`` by ``-m``, just as the engine runs the plugin from the program directory.
  ``__main__.main()`` ignores ``argv``; the engine's address argument is only passed when
  ``engine_address`` is given. Shutdown is SIGINT (the host stops its server on
  ``KeyboardInterrupt``), then a kill after a grace period, then ``wait``.
* **Provider property.** The provider is serialized with the SDK's own
  ``pulumi.dynamic.dynamic.serialize_provider`` under ``_serialize(True, ...)``, exactly as
  ``pulumi.dynamic.Resource`` does. dill pickles classes from importable modules *by reference*
  and classes defined in ``__main__`` *by value*: a provider class must be importable in the host
  process (put it in a package, keep ``PYTHONPATH``, or pass ``pythonpath=``).
* **Secrets.** The host answers ``Configure`` with ``acceptSecrets=False``, so the engine strips
  secret markers before every resource call and the provider only ever sees plain values; on the
  way back the engine re-marks an output as secret when the input of the same name was secret
  (``annotateSecrets``). The harness does the same. Returned values therefore carry secrets in
  the wire form produced by :func:`secret`. Configuration is the exception: ``Configure`` keeps
  secret markers and the host unwraps them. (Were markers sent to a resource call, the provider
  would receive the wrapper dicts, and a secret ``__provider`` makes the host fail with
  ``TypeError: unhashable type: 'dict'``.) ``__provider`` itself is secret unless the provider
  sets ``serialize_as_secret_always = False``; providers see it in their property dicts.
* **Crashes.** :meth:`DynamicProviderHost.kill` ends the host mid-call (SIGKILL), so a test can
  check what a later ``pulumi up`` in a fresh host makes of what the dead one left.
* **Previews.** The host does not advertise ``supportsPreview``, so during ``pulumi preview`` the
  engine never sends ``Create``/``Update`` to it: it uses the inputs as the planned state. The
  harness does the same for ``preview=True`` unless ``force_rpc=True``, which sends the request
  anyway and shows that the Python host ignores the preview flag (it really creates).
* **Unknowns.** Values not known during a preview are the string :data:`UNKNOWN` on the wire.
  ``Check`` and ``Diff`` forward them (the provider receives ``pulumi.output.Unknown``
  instances); a non-preview ``Create``/``Update`` with unknowns is refused, as the engine would.

Returned property bags are the engine's view of the response: the ``__provider`` property is
removed, numbers are floats (protobuf ``Struct`` numbers are doubles), unknowns are
:data:`UNKNOWN`, secrets are :func:`secret` wrappers. Errors raised by the provider come back as
gRPC errors carrying a Python traceback and are raised as :class:`DynamicProviderError`.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import os
import queue
import signal
import subprocess
import sys
import threading
import uuid
import weakref
from collections.abc import Coroutine, Mapping, Sequence
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, Final, Literal, TypeVar

import grpc
from google.protobuf import empty_pb2, json_format, struct_pb2
from pulumi.dynamic import ResourceProvider
from pulumi.dynamic.dynamic import PROVIDER_KEY, serialize_provider
from pulumi.runtime import rpc
from pulumi.runtime._serialization import _serialize
from pulumi.runtime.proto import provider_pb2, provider_pb2_grpc

try:  # The SDK's own channel options (message size limits); private, so tolerate its absence.
    from pulumi.runtime._grpc_settings import _GRPC_CHANNEL_OPTIONS as _CHANNEL_OPTIONS
except ImportError:  # pragma: no cover - depends on the SDK version
    _CHANNEL_OPTIONS = []

__all__ = [
    "DEFAULT_PROJECT",
    "DEFAULT_STACK",
    "PROVIDER_KEY",
    "UNKNOWN",
    "CheckFailure",
    "ConfigureResponse",
    "DiffChanges",
    "DiffResponse",
    "DynamicHostError",
    "DynamicProviderError",
    "DynamicProviderHost",
    "PropertyDiff",
    "is_secret",
    "secret",
    "serialized_provider_size",
    "unwrap_secrets",
    "urn",
]

UNKNOWN: Final[str] = rpc.UNKNOWN
"""The wire value of a property that is not known yet (during a preview)."""

DEFAULT_PROJECT: Final[str] = "project"
"""Project name used when none is given (also the host's own fallback for ``PULUMI_PROJECT``)."""

DEFAULT_STACK: Final[str] = "stack"
"""Stack name used when none is given (the host itself always believes the stack is ``stack``)."""

PYTHON_DYNAMIC_PACKAGE: Final[str] = "pulumi-python"
"""Package name under which the engine loads Python dynamic providers."""

DiffChanges = Literal["unknown", "none", "some"]
"""``DiffResponse.changes``: ``DIFF_UNKNOWN``, ``DIFF_NONE`` or ``DIFF_SOME``."""

_CHANGES: Final[dict[int, DiffChanges]] = {
    provider_pb2.DiffResponse.DIFF_UNKNOWN: "unknown",
    provider_pb2.DiffResponse.DIFF_NONE: "none",
    provider_pb2.DiffResponse.DIFF_SOME: "some",
}

_DIFF_KINDS: Final[dict[int, str]] = {
    provider_pb2.PropertyDiff.ADD: "add",
    provider_pb2.PropertyDiff.ADD_REPLACE: "add-replace",
    provider_pb2.PropertyDiff.DELETE: "delete",
    provider_pb2.PropertyDiff.DELETE_REPLACE: "delete-replace",
    provider_pb2.PropertyDiff.UPDATE: "update",
    provider_pb2.PropertyDiff.UPDATE_REPLACE: "update-replace",
}

_T = TypeVar("_T")


# --------------------------------------------------------------------------------------------
# Wire-format helpers
# --------------------------------------------------------------------------------------------


def secret(value: Any) -> dict[str, Any]:
    """Mark ``value`` as secret, in the engine's wire form.

    Returns ``{"4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270",
    "value": value}`` (``pulumi.runtime.rpc.wrap_rpc_secret``). Use it in inputs and in
    configuration passed to :class:`DynamicProviderHost`; secret outputs come back in this form.
    """
    return rpc.wrap_rpc_secret(value)


def is_secret(value: Any) -> bool:
    """Return True if ``value`` is a secret in wire form (see :func:`secret`)."""
    return rpc.is_rpc_secret(value)


def unwrap_secrets(value: Any) -> Any:
    """Return ``value`` with every secret wrapper (at any depth) replaced by its plain value."""
    if rpc.is_rpc_secret(value):
        return unwrap_secrets(value["value"])
    if isinstance(value, Mapping):
        return {k: unwrap_secrets(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [unwrap_secrets(v) for v in value]
    return value


def urn(
    type_: str = "pulumi-python:dynamic:Resource",
    name: str = "resource",
    project: str = DEFAULT_PROJECT,
    stack: str = DEFAULT_STACK,
    parent_type: str | None = None,
) -> str:
    """Build a resource URN: ``urn:pulumi:<stack>::<project>::[<parent_type>$]<type_>::<name>``.

    ``pulumi.dynamic.Resource`` subclasses have types ``pulumi-python:dynamic:Resource`` or, when
    declared with ``module=``/``name=``, ``pulumi-python:dynamic/<module>:<name>``.
    ``parent_type`` is the qualified type of the parent (for a resource inside a component).
    """
    for label, part in (("type_", type_), ("name", name), ("project", project), ("stack", stack)):
        if not part or "::" in part:
            raise ValueError(f"{label} must be non-empty and must not contain '::': {part!r}")
    qualified = f"{parent_type}${type_}" if parent_type else type_
    return f"urn:pulumi:{stack}::{project}::{qualified}::{name}"


def _urn_name_and_type(urn_: str) -> tuple[str, str]:
    parts = urn_.split("::")
    if len(parts) < 4 or not parts[0].startswith("urn:pulumi:"):
        raise ValueError(f"not a Pulumi URN: {urn_!r}")
    name = "::".join(parts[3:])
    type_ = parts[2].rsplit("$", 1)[-1]
    return name, type_


def _strip_secrets(value: Any) -> Any:
    """What the engine sends when the provider does not accept secrets (``KeepSecrets: false``)."""
    return unwrap_secrets(value)


def _contains_secrets(value: Any) -> bool:
    if rpc.is_rpc_secret(value):
        return True
    if isinstance(value, Mapping):
        return any(_contains_secrets(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return any(_contains_secrets(v) for v in value)
    return False


def _contains_unknowns(value: Any) -> bool:
    if isinstance(value, str):
        return value == UNKNOWN
    if isinstance(value, Mapping):
        return any(_contains_unknowns(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return any(_contains_unknowns(v) for v in value)
    return False


def _is_object(value: Any) -> bool:
    return isinstance(value, dict) and rpc._special_sig_key not in value


def _annotate_secrets(outs: dict[str, Any], ins: Mapping[str, Any]) -> None:
    """The engine's ``annotateSecrets``: copy secretness from inputs to same-named outputs.

    Objects present on both sides are walked recursively; otherwise an output becomes secret when
    its input counterpart contains any secret (so a whole list becomes secret).
    """
    for key, in_value in ins.items():
        if key not in outs:
            continue
        out_value = outs[key]
        if _is_object(out_value) and _is_object(in_value):
            _annotate_secrets(out_value, in_value)
        elif not rpc.is_rpc_secret(out_value) and _contains_secrets(in_value):
            outs[key] = rpc.wrap_rpc_secret(out_value)


def _run(coro: Coroutine[Any, Any, _T]) -> _T:
    """Run ``coro`` to completion on a private event loop, even if the caller is inside one.

    ``asyncio.run`` is not used in the caller's thread: it leaves the thread without a current
    event loop, which breaks Pulumi's mocks (``GcpMocks``) run afterwards in the same process.
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        loop = asyncio.new_event_loop()
        try:
            return loop.run_until_complete(coro)
        finally:
            loop.close()
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coro).result()


def _to_struct(props: Mapping[str, Any]) -> struct_pb2.Struct:
    """Serialize a property bag with the SDK's own ``rpc.serialize_properties``."""
    return _run(rpc.serialize_properties(dict(props), {}))


def _from_struct(struct: struct_pb2.Struct) -> dict[str, Any]:
    """The engine's view of a response ``Struct`` (wire form, ``__provider`` removed)."""
    result: dict[str, Any] = json_format.MessageToDict(struct)
    result.pop(PROVIDER_KEY, None)
    return result


@dataclass(frozen=True)
class _ProviderProperty:
    value: str
    secret: bool


def _serialize_provider(provider: ResourceProvider) -> _ProviderProperty:
    """Serialize ``provider`` exactly as ``pulumi.dynamic.Resource.__init__`` does."""
    if not isinstance(provider, ResourceProvider):
        raise TypeError(
            f"expected a pulumi.dynamic.ResourceProvider instance, got {type(provider).__name__}"
        )
    value, contains_secrets = _serialize(True, serialize_provider, provider)
    always = bool(getattr(provider, "serialize_as_secret_always", True))
    return _ProviderProperty(value=value, secret=always or contains_secrets)


def serialized_provider_size(provider: ResourceProvider) -> int:
    """Size in bytes of the ``__provider`` property ``pulumi.dynamic.Resource`` would send.

    This is the base64 text of the dill pickle, which travels with every resource call and is
    stored in the stack state for every resource of the provider.
    """
    return len(_serialize_provider(provider).value.encode("utf-8"))


# --------------------------------------------------------------------------------------------
# Results and errors
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CheckFailure:
    """One validation failure returned by ``Check`` (a ``pulumi.dynamic.CheckFailure``)."""

    property: str
    reason: str


@dataclass(frozen=True)
class PropertyDiff:
    """One entry of a detailed diff: ``kind`` is ``add``, ``update``, ``delete-replace``, ..."""

    kind: str
    input_diff: bool


@dataclass(frozen=True)
class DiffResponse:
    """What the host answered to ``Diff``.

    The Python host only ever fills ``changes``, ``replaces`` and ``delete_before_replace``:
    ``stables`` from a ``pulumi.dynamic.DiffResult`` are dropped, and it never sends ``diffs`` or
    a detailed diff (the engine then diffs the inputs itself to show what changed).
    """

    changes: DiffChanges
    replaces: list[str] = field(default_factory=list)
    stables: list[str] = field(default_factory=list)
    delete_before_replace: bool = False
    diffs: list[str] = field(default_factory=list)
    detailed_diff: dict[str, PropertyDiff] = field(default_factory=dict)
    has_detailed_diff: bool = False

    @property
    def replace(self) -> bool:
        """True if the engine would replace the resource (some property forces replacement)."""
        return bool(self.replaces)


@dataclass(frozen=True)
class ConfigureResponse:
    """Protocol options the host negotiated in its ``Configure`` answer."""

    accept_secrets: bool
    supports_preview: bool
    accept_resources: bool
    accept_outputs: bool


class DynamicHostError(Exception):
    """The host process could not be started, or it broke the protocol."""


class DynamicProviderError(Exception):
    """A gRPC call to the host failed, usually because the provider raised.

    The Python host aborts the call with ``StatusCode.UNKNOWN`` and the full Python traceback as
    details. ``message`` is the final exception line(s) of that traceback without the type
    (``"zone must be set"``), ``exception_type`` the exception's (possibly dotted) type name
    (``"ValueError"``), ``details`` the raw details, ``code`` the gRPC status code and ``method``
    the RPC that failed (``"Create"``).
    """

    def __init__(self, method: str, code: grpc.StatusCode, details: str) -> None:
        self.method = method
        self.code = code
        self.details = details
        self.exception_type, self.message = _parse_traceback(details)
        shown = f"{self.exception_type}: {self.message}" if self.exception_type else self.message
        super().__init__(f"{method} failed ({code.name}): {shown}")


def _parse_traceback(details: str) -> tuple[str | None, str]:
    """Split the last exception of a formatted traceback into (type, message)."""
    lines = details.rstrip().splitlines()
    if not lines:
        return None, ""
    start = 0
    if lines[0].startswith("Traceback"):
        # The final exception block starts after the last indented (frame/source/caret) line.
        for index, line in enumerate(lines):
            if line.startswith((" ", "\t")):
                start = index + 1
        start = min(start, len(lines) - 1)
    block = "\n".join(lines[start:])
    head, sep, rest = block.partition(": ")
    if sep and head and " " not in head and head.replace(".", "").replace("_", "").isalnum():
        return head, rest
    if " " not in block and block.replace(".", "").replace("_", "").isalnum():
        return block, ""  # ``raise SomeError()`` without a message
    return None, block


# --------------------------------------------------------------------------------------------
# The host
# --------------------------------------------------------------------------------------------


def _reap(proc: subprocess.Popen[bytes], grace: float) -> None:
    """Stop the host like the engine does: SIGINT, wait ``grace`` seconds, then kill."""
    if proc.poll() is None:
        try:
            if sys.platform == "win32":  # pragma: no cover - no SIGINT for a child on Windows
                proc.terminate()
            else:
                proc.send_signal(signal.SIGINT)
            proc.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            proc.kill()
        except ProcessLookupError:  # pragma: no cover - exited between poll() and the signal
            pass
    proc.wait()


class _Drain(threading.Thread):
    """Reads one pipe of the host to EOF so it never blocks on a full pipe; keeps the text."""

    def __init__(self, stream: Any, name: str, first_line: queue.Queue[bytes] | None) -> None:
        super().__init__(name=name, daemon=True)
        self._stream = stream
        self._first_line = first_line
        self._chunks: list[bytes] = []
        self._lock = threading.Lock()

    def run(self) -> None:
        if self._first_line is not None:
            # The engine reads the port from the first line; everything after it is plain output.
            line = self._stream.readline()
            self._first_line.put(line)
        while True:
            chunk = self._stream.read1(65536)
            if not chunk:
                break
            with self._lock:
                self._chunks.append(chunk)
        if self._first_line is not None:
            self._first_line.put(b"")

    def text(self) -> str:
        with self._lock:
            return b"".join(self._chunks).decode("utf-8", errors="replace")


class DynamicProviderHost:
    """Run ``python -m pulumi.dynamic`` and talk to it like the Pulumi engine does.

    Use it as a context manager (or call :meth:`start` and :meth:`close`). One host process can
    serve any number of providers and resources, as in a real deployment; ``provider`` is the
    default for every call and each call can name another one.

    :param provider: the ``pulumi.dynamic.ResourceProvider`` instance sent in ``__provider``
        (default for every call; may be None if every call passes ``provider=``).
    :param project: the Pulumi project name (``PULUMI_PROJECT``; un-namespaced keys in the
        provider's ``ConfigureRequest.config`` resolve against it).
    :param stack: stack name used for the default provider's URN. The host itself always
        reports ``pulumi.get_stack() == "stack"`` to the provider.
    :param config: the stack configuration, ``{"namespace:key": value}``; the default for
        :meth:`configure` (and the source of ``PULUMI_CONFIG``).
    :param env: extra environment variables for the host (on top of ``os.environ``).
    :param cwd: working directory of the host; it is put on the host's ``sys.path`` (the
        engine uses the program directory). Defaults to the current directory.
    :param pythonpath: extra ``sys.path`` entries for the host, prepended to ``PYTHONPATH``.
    :param python: interpreter to run; defaults to ``sys.executable`` (same venv as the tests).
    :param engine_address: passed as the first argument like the engine does; the Python host
        ignores its arguments, so this is only for fidelity.
    :param startup_timeout: seconds to wait for the port line and the gRPC channel.
    :param rpc_timeout: deadline in seconds for each call (None: no deadline).
    :param shutdown_grace: seconds between SIGINT and kill when closing.
    """

    def __init__(
        self,
        provider: ResourceProvider | None = None,
        *,
        project: str = DEFAULT_PROJECT,
        stack: str = DEFAULT_STACK,
        config: Mapping[str, Any] | None = None,
        env: Mapping[str, str] | None = None,
        cwd: str | os.PathLike[str] | None = None,
        pythonpath: Sequence[str | os.PathLike[str]] = (),
        python: str | None = None,
        engine_address: str | None = None,
        startup_timeout: float = 60.0,
        rpc_timeout: float | None = 60.0,
        shutdown_grace: float = 5.0,
    ) -> None:
        self._provider = provider
        self.project = project
        self.stack = stack
        self._config: dict[str, Any] = _check_config(config or {})
        self._env = dict(env or {})
        self._cwd = os.fspath(cwd) if cwd is not None else os.getcwd()
        self._pythonpath = [os.fspath(p) for p in pythonpath]
        self._python = python or sys.executable
        self._engine_address = engine_address
        self._startup_timeout = startup_timeout
        self._rpc_timeout = rpc_timeout
        self._shutdown_grace = shutdown_grace

        self._proc: subprocess.Popen[bytes] | None = None
        self._finalizer: weakref.finalize | None = None
        self._stdout: _Drain | None = None
        self._stderr: _Drain | None = None
        self._channel: grpc.Channel | None = None
        self._stub: provider_pb2_grpc.ResourceProviderStub | None = None
        self._port: int | None = None
        self._protocol: ConfigureResponse | None = None
        self.handshake_supported: bool | None = None
        """Whether the host implements ``Handshake`` (the Python host does not: the engine then
        learns the protocol options from ``Configure``)."""
        self.plugin_version: str | None = None
        """Version reported by ``GetPluginInfo`` (the Python host says ``0.1.0``)."""

    # ---------------------------------------------------------------- lifecycle

    def __enter__(self) -> DynamicProviderHost:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def host_environment(self) -> dict[str, str]:
        """The environment the host process is started with."""
        environ = dict(os.environ)
        environ["PULUMI_PROJECT"] = self.project
        prefix = f"{PYTHON_DYNAMIC_PACKAGE}:"
        package_config = {
            key[len(prefix) :]: _config_string(unwrap_secrets(value))
            for key, value in self._config.items()
            if key.startswith(prefix)
        }
        environ["PULUMI_CONFIG"] = json.dumps(package_config)
        paths = [*self._pythonpath]
        if environ.get("PYTHONPATH"):
            paths.append(environ["PYTHONPATH"])
        if paths:
            environ["PYTHONPATH"] = os.pathsep.join(paths)
        environ.update(self._env)
        return environ

    def start(self) -> None:
        """Start the host, read its port, connect and probe it (``Handshake``,
        ``GetPluginInfo``) the way the engine does after launching a plugin."""
        if self._proc is not None:
            raise DynamicHostError("the host was already started")
        args = [self._python, "-u", "-m", "pulumi.dynamic"]
        if self._engine_address is not None:
            args.append(self._engine_address)
        proc = subprocess.Popen(  # noqa: S603 - our own interpreter
            args,
            cwd=self._cwd,
            env=self.host_environment(),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=sys.platform != "win32",
        )
        self._proc = proc
        self._finalizer = weakref.finalize(self, _reap, proc, self._shutdown_grace)
        first_line: queue.Queue[bytes] = queue.Queue()
        self._stdout = _Drain(proc.stdout, f"dynamic-host-{proc.pid}-stdout", first_line)
        self._stderr = _Drain(proc.stderr, f"dynamic-host-{proc.pid}-stderr", None)
        self._stdout.start()
        self._stderr.start()
        try:
            port = self._read_port(proc, first_line)
            self._port = port
            self._channel = grpc.insecure_channel(f"127.0.0.1:{port}", options=_CHANNEL_OPTIONS)
            try:
                grpc.channel_ready_future(self._channel).result(timeout=self._startup_timeout)
            except grpc.FutureTimeoutError:
                raise DynamicHostError(
                    f"the host did not accept connections on port {port}"
                ) from None
            self._stub = provider_pb2_grpc.ResourceProviderStub(self._channel)
            self._handshake()
            info = self._call("GetPluginInfo", self._stub.GetPluginInfo, empty_pb2.Empty())
            self.plugin_version = info.version
        except DynamicHostError as err:
            self.close()  # reaps the process and drains its output first
            raise DynamicHostError(f"{err}{self._output_suffix()}") from None
        except BaseException:
            self.close()
            raise

    def _read_port(self, proc: subprocess.Popen[bytes], first_line: queue.Queue[bytes]) -> int:
        """The engine's ``parsePort``: the first stdout line, trimmed, is the port number."""
        try:
            line = first_line.get(timeout=self._startup_timeout)
        except queue.Empty:
            raise DynamicHostError(
                f"the host wrote no port within {self._startup_timeout}s"
            ) from None
        if not line:
            raise DynamicHostError(
                f"the host exited with status {proc.wait()} before writing its port"
            )
        text = line.decode("utf-8", errors="replace").strip()
        if not text.isdigit() or not 0 < int(text) < 65536:
            raise DynamicHostError(f"the host wrote an invalid port: {text!r}")
        return int(text)

    def close(self) -> None:
        """Close the channel and stop the host (SIGINT, then kill); waits for it. Idempotent."""
        if self._channel is not None:
            self._channel.close()
            self._channel = None
            self._stub = None
        if self._finalizer is not None:
            self._finalizer()  # runs _reap once
        for drain in (self._stdout, self._stderr):
            if drain is not None:
                drain.join(timeout=self._shutdown_grace)

    def kill(self) -> None:
        """Kill the host at once (SIGKILL), as a crash, an OOM kill or a closed laptop would end
        ``pulumi up``: a call in flight fails (``UNAVAILABLE``) and the provider gets no chance
        to clean up. Then :meth:`close` (or leaving the ``with`` block) reaps it."""
        if self._proc is not None and self._proc.poll() is None:
            self._proc.kill()
            self._proc.wait()

    @property
    def port(self) -> int:
        """The port the host listens on (127.0.0.1)."""
        if self._port is None:
            raise DynamicHostError("the host is not running")
        return self._port

    @property
    def pid(self) -> int | None:
        """Process id of the host, None before :meth:`start`."""
        return self._proc.pid if self._proc is not None else None

    @property
    def returncode(self) -> int | None:
        """Exit status of the host, None while it runs."""
        return self._proc.poll() if self._proc is not None else None

    @property
    def stdout(self) -> str:
        """What the host printed on stdout after its port line (providers' ``print`` output)."""
        return self._stdout.text() if self._stdout is not None else ""

    @property
    def stderr(self) -> str:
        """What the host printed on stderr so far."""
        return self._stderr.text() if self._stderr is not None else ""

    @property
    def protocol(self) -> ConfigureResponse | None:
        """Protocol options from the last ``Configure`` answer, None before configuring."""
        return self._protocol

    # ---------------------------------------------------------------- engine calls

    def configure(self, config: Mapping[str, Any] | None = None) -> ConfigureResponse:
        """Send ``Configure`` as the engine does for the default ``pulumi-python`` provider.

        ``config`` is the stack configuration, keys namespaced (``"dws:computeEndpoint"``,
        ``"<project>:key"``), values strings (other values are JSON-encoded, as the engine does
        for structured config) or :func:`secret` wrappers for secure values. Defaults to the
        ``config`` given to the constructor. Dynamic providers get *all* of the stack's config,
        namespaces kept; the host hands it to each provider's ``configure(ConfigureRequest)``.

        The host calls a provider's ``configure`` once, when it first unpickles that provider, and
        caches the instance per ``__provider`` string: configure before the first resource call
        (the harness does it for you with the constructor's config if you do not).
        Reconfiguring later does not reach providers already unpickled.
        """
        raw = _check_config(self._config if config is None else config)
        variables: dict[str, str] = {}
        args: dict[str, Any] = {}
        for key, value in raw.items():
            if rpc.is_rpc_secret(value):
                args[key] = rpc.wrap_rpc_secret(_config_string(value["value"]))
            else:
                args[key] = _config_string(value)
            # The deprecated ``variables`` map, keyed ``<pkg>:config:<key>`` (secrets removed).
            variables[f"{PYTHON_DYNAMIC_PACKAGE}:config:{key}"] = _config_string(
                unwrap_secrets(value)
            )
        provider_type = f"pulumi:providers:{PYTHON_DYNAMIC_PACKAGE}"
        request = provider_pb2.ConfigureRequest(
            variables=variables,
            args=_to_struct(args),  # secrets kept: Configure is marshalled with KeepSecrets
            acceptSecrets=True,
            acceptResources=True,
            sends_old_inputs=True,
            sends_old_inputs_to_delete=True,
            urn=urn(provider_type, "default", self.project, self.stack),
            name="default",
            type=provider_type,
            id=str(uuid.uuid4()),
        )
        response = self._call("Configure", self._require_stub().Configure, request)
        self._protocol = ConfigureResponse(
            accept_secrets=response.acceptSecrets,
            supports_preview=response.supportsPreview,
            accept_resources=response.acceptResources,
            accept_outputs=response.acceptOutputs,
        )
        return self._protocol

    def check(
        self,
        urn: str,
        olds: Mapping[str, Any],
        news: Mapping[str, Any],
        *,
        provider: ResourceProvider | None = None,
        random_seed: bytes = b"",
    ) -> tuple[dict[str, Any], list[CheckFailure]]:
        """``Check``: validate new inputs against old ones; returns (inputs, failures).

        ``olds`` are the previous inputs (``{}`` for a resource being created). Unknowns are
        forwarded (the engine allows them at ``Check`` during a preview).
        """
        name, type_ = _urn_name_and_type(urn)
        request = provider_pb2.CheckRequest(
            urn=urn,
            name=name,
            type=type_,
            olds=self._props(olds, provider, keep_unknowns=True),
            news=self._props(news, provider, keep_unknowns=True),
            randomSeed=random_seed or os.urandom(32),
        )
        response = self._call("Check", self._require_stub().Check, request)
        inputs = _from_struct(response.inputs)
        if not self._accepts_secrets():
            _annotate_secrets(inputs, news)
        failures = [CheckFailure(f.property, f.reason) for f in response.failures]
        return inputs, failures

    def diff(
        self,
        urn: str,
        id: str,  # noqa: A002 - the engine's field name
        olds: Mapping[str, Any],
        news: Mapping[str, Any],
        *,
        old_inputs: Mapping[str, Any] | None = None,
        ignore_changes: Sequence[str] = (),
        provider: ResourceProvider | None = None,
    ) -> DiffResponse:
        """``Diff``: ``olds`` are the resource's current outputs (state), ``news`` the new
        inputs. ``old_inputs`` (the previous inputs; default: ``olds``) is sent too but the
        Python host ignores it, as it ignores ``ignore_changes``."""
        name, type_ = _urn_name_and_type(urn)
        request = provider_pb2.DiffRequest(
            id=id,
            urn=urn,
            name=name,
            type=type_,
            olds=self._props(olds, provider, keep_unknowns=True),
            news=self._props(news, provider, keep_unknowns=True),
            old_inputs=self._props(
                olds if old_inputs is None else old_inputs, provider, keep_unknowns=True
            ),
            ignoreChanges=list(ignore_changes),
        )
        response = self._call("Diff", self._require_stub().Diff, request)
        return DiffResponse(
            changes=_CHANGES.get(response.changes, "unknown"),
            replaces=list(response.replaces),
            stables=list(response.stables),
            delete_before_replace=response.deleteBeforeReplace,
            diffs=list(response.diffs),
            detailed_diff={
                key: PropertyDiff(_DIFF_KINDS.get(d.kind, str(d.kind)), d.inputDiff)
                for key, d in response.detailedDiff.items()
            },
            has_detailed_diff=response.hasDetailedDiff,
        )

    def create(
        self,
        urn: str,
        props: Mapping[str, Any],
        preview: bool = False,
        *,
        provider: ResourceProvider | None = None,
        timeout: float = 0.0,
        force_rpc: bool = False,
    ) -> tuple[str, dict[str, Any]]:
        """``Create``: returns (id, outputs).

        With ``preview=True`` the engine does not call a host that lacks ``supportsPreview`` (the
        Python host): it plans the inputs as the state and an empty id. The harness does the same
        and returns ``("", inputs)`` without calling the provider, unless ``force_rpc=True``,
        which sends ``preview=True`` on the wire (the Python host ignores the flag and creates).
        """
        if preview and not force_rpc and not self._supports_preview():
            return "", _without_provider(props)
        if not preview and _contains_unknowns(props):
            raise ValueError("Create outside a preview cannot carry unknown values")
        name, type_ = _urn_name_and_type(urn)
        request = provider_pb2.CreateRequest(
            urn=urn,
            name=name,
            type=type_,
            properties=self._props(props, provider, keep_unknowns=preview),
            timeout=timeout,
            preview=preview,
        )
        response = self._call("Create", self._require_stub().Create, request)
        if not response.id and not preview:
            raise DynamicHostError(f"the host returned an empty resource ID from Create of {urn}")
        outs = _from_struct(response.properties)
        if not self._accepts_secrets():
            _annotate_secrets(outs, props)
        return response.id, outs

    def read(
        self,
        urn: str,
        id: str,  # noqa: A002 - the engine's field name
        props: Mapping[str, Any],
        *,
        inputs: Mapping[str, Any] | None = None,
        provider: ResourceProvider | None = None,
    ) -> tuple[str, dict[str, Any], dict[str, Any] | None]:
        """``Read`` (refresh/import): ``props`` is the current state, ``inputs`` the inputs if
        known. Returns (id, outputs, inputs); inputs are None unless the provider returned some
        in its ``ReadResult``. An empty id means the resource no longer exists."""
        name, type_ = _urn_name_and_type(urn)
        request = provider_pb2.ReadRequest(
            id=id,
            urn=urn,
            name=name,
            type=type_,
            properties=self._props(props, provider, keep_unknowns=False),
        )
        if inputs is not None:
            request.inputs.CopyFrom(self._props(inputs, provider, keep_unknowns=False))
        response = self._call("Read", self._require_stub().Read, request)
        outs = _from_struct(response.properties)
        new_inputs = _from_struct(response.inputs) if response.HasField("inputs") else None
        if not self._accepts_secrets():
            _annotate_secrets(outs, props)
            if new_inputs is not None and inputs is not None:
                _annotate_secrets(new_inputs, inputs)
        return response.id, outs, new_inputs

    def update(
        self,
        urn: str,
        id: str,  # noqa: A002 - the engine's field name
        olds: Mapping[str, Any],
        news: Mapping[str, Any],
        preview: bool = False,
        *,
        old_inputs: Mapping[str, Any] | None = None,
        ignore_changes: Sequence[str] = (),
        provider: ResourceProvider | None = None,
        timeout: float = 0.0,
        force_rpc: bool = False,
    ) -> dict[str, Any]:
        """``Update``: ``olds`` are the current outputs, ``news`` the new inputs; returns the new
        outputs. ``preview`` behaves as in :meth:`create` (the planned state is ``news``)."""
        if preview and not force_rpc and not self._supports_preview():
            return _without_provider(news)
        if not preview and _contains_unknowns(news):
            raise ValueError("Update outside a preview cannot carry unknown values")
        name, type_ = _urn_name_and_type(urn)
        request = provider_pb2.UpdateRequest(
            id=id,
            urn=urn,
            name=name,
            type=type_,
            olds=self._props(olds, provider, keep_unknowns=False),
            news=self._props(news, provider, keep_unknowns=preview),
            old_inputs=self._props(
                olds if old_inputs is None else old_inputs, provider, keep_unknowns=False
            ),
            ignoreChanges=list(ignore_changes),
            preview=preview,
            timeout=timeout,
        )
        response = self._call("Update", self._require_stub().Update, request)
        outs = _from_struct(response.properties)
        if not self._accepts_secrets():
            _annotate_secrets(outs, news)
        return outs

    def delete(
        self,
        urn: str,
        id: str,  # noqa: A002 - the engine's field name
        props: Mapping[str, Any],
        *,
        old_inputs: Mapping[str, Any] | None = None,
        provider: ResourceProvider | None = None,
        timeout: float = 0.0,
    ) -> None:
        """``Delete``: ``props`` are the resource's outputs (state); ``old_inputs`` (default:
        ``props``) is sent too, the Python host ignores it."""
        name, type_ = _urn_name_and_type(urn)
        request = provider_pb2.DeleteRequest(
            id=id,
            urn=urn,
            name=name,
            type=type_,
            properties=self._props(props, provider, keep_unknowns=False),
            old_inputs=self._props(
                props if old_inputs is None else old_inputs, provider, keep_unknowns=False
            ),
            timeout=timeout,
        )
        self._call("Delete", self._require_stub().Delete, request)

    # ---------------------------------------------------------------- internals

    def _require_stub(self) -> provider_pb2_grpc.ResourceProviderStub:
        if self._stub is None:
            raise DynamicHostError("the host is not running (use it as a context manager)")
        return self._stub

    def _ensure_configured(self) -> ConfigureResponse:
        # The engine never calls a provider before its Configure call has completed.
        if self._protocol is None:
            return self.configure()
        return self._protocol

    def _accepts_secrets(self) -> bool:
        return self._ensure_configured().accept_secrets

    def _supports_preview(self) -> bool:
        return self._ensure_configured().supports_preview

    def _props(
        self,
        props: Mapping[str, Any],
        provider: ResourceProvider | None,
        *,
        keep_unknowns: bool,
    ) -> struct_pb2.Struct:
        """Marshal a property bag with ``__provider`` added, as the engine would send it."""
        protocol = self._ensure_configured()
        if PROVIDER_KEY in props:
            raise ValueError(f"the harness sets {PROVIDER_KEY!r} itself; do not pass it")
        chosen = provider if provider is not None else self._provider
        if chosen is None:
            raise ValueError("no provider: pass one to DynamicProviderHost(...) or provider=")
        serialized = _serialize_provider(chosen)
        bag: dict[str, Any] = dict(props)
        bag[PROVIDER_KEY] = (
            rpc.wrap_rpc_secret(serialized.value) if serialized.secret else serialized.value
        )
        if not protocol.accept_secrets:
            bag = _strip_secrets(bag)
        if not keep_unknowns:
            bag = _drop_unknowns(bag)
        return _to_struct(bag)

    def _handshake(self) -> None:
        request = provider_pb2.ProviderHandshakeRequest(
            engine_address=self._engine_address or "",
            root_directory=self._cwd,
            program_directory=self._cwd,
            configure_with_urn=True,
            supports_views=True,
            supports_refresh_before_update=True,
            invoke_with_preview=True,
        )
        try:
            self._require_stub().Handshake(
                request, timeout=self._startup_timeout, wait_for_ready=True
            )
        except grpc.RpcError as err:
            code: grpc.StatusCode = err.code()  # type: ignore[attr-defined]
            if code == grpc.StatusCode.UNIMPLEMENTED:
                self.handshake_supported = False  # fall back to Configure, as the engine does
                return
            details: str = err.details() or ""  # type: ignore[attr-defined]
            raise DynamicProviderError("Handshake", code, details) from None
        self.handshake_supported = True

    def _call(self, method: str, rpc_method: Any, request: Any) -> Any:
        try:
            return rpc_method(request, timeout=self._rpc_timeout)
        except grpc.RpcError as err:
            code: grpc.StatusCode = err.code()  # type: ignore[attr-defined]
            details: str = err.details() or ""  # type: ignore[attr-defined]
            if code in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.CANCELLED):
                details += self._output_suffix()
            raise DynamicProviderError(method, code, details) from None

    def _output_suffix(self) -> str:
        err = self.stderr.strip()
        return f"\n--- host stderr ---\n{err[-4000:]}" if err else ""


def _without_provider(props: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in props.items() if k != PROVIDER_KEY}


def _drop_unknowns(value: Any) -> Any:
    """``KeepUnknowns: false``: the engine leaves unknown properties out of the message."""
    if isinstance(value, dict):
        return {k: _drop_unknowns(v) for k, v in value.items() if v != UNKNOWN}
    if isinstance(value, list):
        return [_drop_unknowns(v) for v in value]
    return value


def _config_string(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def _check_config(config: Mapping[str, Any]) -> dict[str, Any]:
    for key in config:
        namespace, sep, name = key.partition(":")
        if not (sep and namespace and name):
            raise ValueError(
                f"config key {key!r} must be namespaced, e.g. 'dws:computeEndpoint' or "
                "'<project>:key' (stack configuration keys always are)"
            )
    return dict(config)
