"""``ComponentProviderHost``: runs the ``dws`` component provider plugin as the engine does
and plays the engine's part over gRPC."""

from __future__ import annotations

import os
import sys
import threading
import uuid
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any, TypeVar

import grpc
from google.protobuf import empty_pb2, struct_pb2
from pulumi.runtime import rpc
from pulumi.runtime.proto import errors_pb2, provider_pb2, provider_pb2_grpc, status_pb2

from ...providers.cancellation import CLOSE_CANCEL_DEADLINE
from ..dynamic_host.process import HostProcess
from ..dynamic_host.responses import DynamicHostError
from ..dynamic_host.wire import to_struct, urn
from ..mocks import GcpMocks, Registered
from .monitor import FakeEngine, FakeMonitor

try:  # The SDK's own channel options (message size limits); private, so tolerate its absence.
    from pulumi.runtime._grpc_settings import _GRPC_CHANNEL_OPTIONS as _CHANNEL_OPTIONS
except ImportError:  # pragma: no cover - depends on the SDK version
    _CHANNEL_OPTIONS = []

T = TypeVar("T")

__all__ = [
    "CLOSE_CANCEL_DEADLINE",
    "PLUGIN_DIR",
    "ComponentProviderHost",
    "Deployment",
    "Constructed",
    "ProviderCallError",
    "PropertyError",
]

PLUGIN_DIR = Path(__file__).resolve().parents[4] / "provider"
"""The repository's plugin folder (``provider/``: ``PulumiPlugin.yaml``, ``__main__.py``)."""


@dataclass(frozen=True)
class PropertyError:
    """One property a refusal names (``InputPropertiesError`` details)."""

    path: str
    reason: str


class ProviderCallError(Exception):
    """A call the provider refused: its gRPC code, message and property errors."""

    def __init__(
        self, method: str, code: grpc.StatusCode, message: str, errors: Sequence[PropertyError]
    ) -> None:
        super().__init__(f"{method}: {code.name}: {message}")
        self.method = method
        self.code = code
        self.message = message
        self.errors = list(errors)


@dataclass
class Constructed:
    """What ``Construct`` answered: the component's URN and its state (outputs)."""

    urn: str
    state: dict[str, Any]
    state_dependencies: dict[str, list[str]] = field(default_factory=dict)


class Deployment:
    """One program's deployment against the provider: its own fake resource monitor (fresh
    :class:`~pulumi_dws.testing.GcpMocks` unless given), the stack's config, and the
    ``Construct`` calls made in it."""

    def __init__(
        self,
        host: ComponentProviderHost,
        *,
        mocks: GcpMocks | None = None,
        project: str = "project",
        stack: str = "dev",
        config: Mapping[str, str] | None = None,
        secret_keys: Sequence[str] = (),
        preview: bool = False,
    ) -> None:
        self.host = host
        self.monitor = FakeMonitor(mocks, project=project, stack=stack)
        self.mocks = self.monitor.mocks
        self.project = project
        self.stack = stack
        self.config = {"gcp:project": self.mocks.project, **dict(config or {})}
        self.secret_keys = list(secret_keys)
        self.preview = preview

    @property
    def registered(self) -> list[Registered]:
        """What the provider registered in this deployment (as the mocks recorded it)."""
        return list(self.mocks.registered)

    def construct(
        self,
        type_: str,
        name: str,
        inputs: Mapping[str, Any],
        *,
        dependencies: Mapping[str, Sequence[str]] | None = None,
        parent: str = "",
        protect: bool = False,
    ) -> Constructed:
        """``Construct`` component ``type_`` named ``name``; ``inputs`` in wire form (use
        :func:`~pulumi_dws.testing.dynamic_host.secret` for a secret), ``dependencies`` the
        URNs an input depends on (the provider then gets it as an Output)."""
        request = self.construct_request(
            type_, name, inputs, dependencies=dependencies, parent=parent, protect=protect
        )
        response = self.host.call("Construct", request)
        deps = {k: list(v.urns) for k, v in response.stateDependencies.items()}
        return Constructed(response.urn, _wire(response.state), deps)

    def construct_request(
        self,
        type_: str,
        name: str,
        inputs: Mapping[str, Any],
        *,
        dependencies: Mapping[str, Sequence[str]] | None = None,
        parent: str = "",
        protect: bool = False,
    ) -> provider_pb2.ConstructRequest:
        """The ``ConstructRequest`` :meth:`construct` sends (to send it yourself with
        ``host.call("Construct", request)``, as a benchmark does)."""
        request = provider_pb2.ConstructRequest(
            project=self.project,
            stack=self.stack,
            config=dict(self.config),
            configSecretKeys=self.secret_keys,
            dryRun=self.preview,
            monitorEndpoint=self.monitor.address,
            type=type_,
            name=name,
            parent=parent,
            inputs=to_struct(dict(inputs)),
            protect=protect,
            organization="organization",
        )
        for key, urns in (dependencies or {}).items():
            request.inputDependencies[key].urns.extend(urns)
        return request

    def close(self) -> None:
        """Stop the deployment's monitor."""
        self.monitor.stop()

    def __enter__(self) -> Deployment:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()


class ComponentProviderHost:
    """Run the ``dws`` provider plugin (``python -u <plugin dir> <engine address>``, as the
    Python language host runs a plugin) and call it as the engine does::

        with ComponentProviderHost() as host:
            schema = host.get_schema()
            with host.deployment() as deployment:
                out = deployment.construct("dws:index:QueuedTpu", "tpu", {"zone": ...})
                deployment.registered   # what it registered, under GcpMocks

    :param plugin_dir: the plugin folder (default: the repository's ``provider/``).
    :param python: the interpreter (default: this one; the plugin needs ``pulumi_dws``).
    :param rpc_timeout: deadline in seconds of each call.
    """

    def __init__(
        self,
        *,
        plugin_dir: str | os.PathLike[str] | None = None,
        python: str | None = None,
        env: Mapping[str, str] | None = None,
        startup_timeout: float = 60.0,
        rpc_timeout: float | None = 120.0,
        shutdown_grace: float = 5.0,
    ) -> None:
        self.plugin_dir = Path(plugin_dir) if plugin_dir is not None else PLUGIN_DIR
        self._python = python or sys.executable
        self._env = dict(env or {})
        self._startup_timeout = startup_timeout
        self._rpc_timeout = rpc_timeout
        self._shutdown_grace = shutdown_grace
        self.engine: FakeEngine | None = None
        self._process: HostProcess | None = None
        self._channel: grpc.Channel | None = None
        self._stub: provider_pb2_grpc.ResourceProviderStub | None = None
        self.plugin_version: str | None = None

    # ---------------------------------------------------------------- lifecycle
    def __enter__(self) -> ComponentProviderHost:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def start(self) -> None:
        """Start the plugin, read its port, connect, ask its version."""
        self.engine = FakeEngine()
        environ = {**os.environ, **self._env}
        self._process = HostProcess(
            [self._python, "-u", str(self.plugin_dir), self.engine.address],
            cwd=str(self.plugin_dir),
            env=environ,
            startup_timeout=self._startup_timeout,
            shutdown_grace=self._shutdown_grace,
        )
        try:
            port = self._process.read_port()
            self._channel = grpc.insecure_channel(f"127.0.0.1:{port}", options=_CHANNEL_OPTIONS)
            grpc.channel_ready_future(self._channel).result(timeout=self._startup_timeout)
            self._stub = provider_pb2_grpc.ResourceProviderStub(self._channel)
            info = self.call("GetPluginInfo", empty_pb2.Empty())
            self.plugin_version = info.version
        except BaseException as err:
            self.close()
            if isinstance(err, DynamicHostError | grpc.FutureTimeoutError):
                raise DynamicHostError(f"the plugin did not start: {err}{self._stderr()}") from None
            raise

    def close(self) -> None:
        """Close the channel, stop the plugin and the fake engine (idempotent)."""
        if self._channel is not None:
            self._channel.close()
            self._channel = None
            self._stub = None
        if self._process is not None:
            self._process.stop()
        if self.engine is not None:
            self.engine.stop()

    @property
    def stderr(self) -> str:
        """What the plugin printed on stderr so far."""
        return self._process.stderr if self._process is not None else ""

    @property
    def pid(self) -> int | None:
        """The plugin's process id, None before :meth:`start`."""
        return self._process.pid if self._process is not None else None

    @property
    def returncode(self) -> int | None:
        """The plugin's exit status, None while it runs."""
        return self._process.returncode if self._process is not None else None

    # ---------------------------------------------------------------- cancellation
    def cancel(self, timeout: float | None = None) -> None:
        """``Cancel``, as the engine sends it on the first Ctrl-C (or SIGTERM) to ``pulumi``
        (a 30 s deadline; ``timeout``: another one, e.g. :data:`CLOSE_CANCEL_DEADLINE`)."""
        self.call("Cancel", empty_pb2.Empty(), timeout=timeout or 30.0)

    def engine_close(self) -> bool:
        """Close the plugin exactly as the engine closes one the Python language host runs
        (``runtime: python``): ``Cancel`` with a 5 s deadline (``pkg/host/host.go``, ``Close``),
        then the connection closed and the process killed at once (the plugin's ``Kill``
        cancels the language host's ``RunPlugin`` call, whose ``exec.CommandContext`` kills the
        process: ``sdk/go/common/resource/plugin/plugin.go`` ``ExecPlugin``,
        ``sdk/python/cmd/pulumi-language-python/main.go`` ``RunPlugin``). True when ``Cancel``
        answered within its deadline."""
        try:
            self.cancel(CLOSE_CANCEL_DEADLINE)
            answered = True
        except ProviderCallError:
            answered = False
        if self._channel is not None:
            self._channel.close()
            self._channel = None
            self._stub = None
        self.kill()
        return answered

    def signal(self, signum: int) -> None:
        """Send ``signum`` to the plugin's process group (a CI runner's or a container's
        SIGTERM; the engine's SIGINT to a plugin it runs as a binary)."""
        if self._process is not None:
            self._process.signal_group(signum)

    def wait_exit(self, timeout: float | None) -> int | None:
        """Wait up to ``timeout`` real seconds for the plugin to exit; its status, or None."""
        return self._process.wait(timeout) if self._process is not None else None

    def kill(self) -> None:
        """SIGKILL the plugin now."""
        if self._process is not None:
            self._process.kill()

    def background(self, call: Callable[..., T], *args: Any, **kwargs: Any) -> Future[T]:
        """Run ``call(*args, **kwargs)`` (say ``self.create``) on a thread of its own, as the
        engine has several calls in flight: send ``Cancel`` or a signal meanwhile, then take the
        result (or the error) from the future."""
        future: Future[T] = Future()

        def run() -> None:
            try:
                future.set_result(call(*args, **kwargs))
            except BaseException as err:  # noqa: BLE001 - handed to the caller
                future.set_exception(err)

        threading.Thread(target=run, name="engine-call", daemon=True).start()
        return future

    def wait_for_stderr(self, text: str, timeout: float = 60.0) -> bool:
        """Whether the plugin printed ``text`` on stderr, waiting for it (an event)."""
        return self._process.wait_for_stderr(text, timeout) if self._process else False

    def _stderr(self) -> str:
        text = self.stderr.strip()
        return f"\n--- plugin stderr ---\n{text[-4000:]}" if text else ""

    # ---------------------------------------------------------------- calls
    def deployment(self, **kwargs: Any) -> Deployment:
        """A new deployment (its own monitor; see :class:`Deployment`)."""
        return Deployment(self, **kwargs)

    def get_schema(self) -> str:
        """``GetSchema``: the package schema's JSON text."""
        response = self.call("GetSchema", provider_pb2.GetSchemaRequest(version=0))
        return str(response.schema)

    def configure(self, config: Mapping[str, Any]) -> provider_pb2.ConfigureResponse:
        """``Configure`` the default ``dws`` provider with the package's config (keys without
        the ``dws:`` namespace, as the engine sends them)."""
        provider_type = "pulumi:providers:dws"
        request = provider_pb2.ConfigureRequest(
            args=to_struct(dict(config)),
            acceptSecrets=True,
            acceptResources=True,
            urn=urn(provider_type, "default"),
            name="default",
            type=provider_type,
            id=str(uuid.uuid4()),
        )
        response: provider_pb2.ConfigureResponse = self.call("Configure", request)
        return response

    def check(
        self, type_: str, name: str, olds: Mapping[str, Any], news: Mapping[str, Any]
    ) -> tuple[dict[str, Any], list[PropertyError]]:
        """``Check`` ``news`` (wire form) of a resource of ``type_``; returns the inputs and
        the failures."""
        request = provider_pb2.CheckRequest(
            urn=urn(type_, name),
            name=name,
            type=type_,
            olds=to_struct(dict(olds)),
            news=to_struct(dict(news)),
        )
        response = self.call("Check", request)
        failures = [PropertyError(f.property, f.reason) for f in response.failures]
        return _wire(response.inputs), failures

    # ---------------------------------------------------------------- served resources
    def create(self, type_: str, name: str, props: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
        """``Create`` a resource the provider serves (``dws:dynamic:*``); returns (id, outputs),
        the outputs in wire form."""
        request = provider_pb2.CreateRequest(
            urn=urn(type_, name), name=name, type=type_, properties=to_struct(dict(props))
        )
        response = self.call("Create", request)
        return response.id, _wire(response.properties)

    def read(
        self, type_: str, name: str, id_: str, props: Mapping[str, Any]
    ) -> tuple[str, dict[str, Any]]:
        """``Read`` (refresh): returns (id, outputs); an empty id means the resource is gone."""
        request = provider_pb2.ReadRequest(
            id=id_, urn=urn(type_, name), name=name, type=type_, properties=to_struct(dict(props))
        )
        response = self.call("Read", request)
        return response.id, _wire(response.properties)

    def diff(
        self, type_: str, name: str, id_: str, olds: Mapping[str, Any], news: Mapping[str, Any]
    ) -> provider_pb2.DiffResponse:
        """``Diff`` the state ``olds`` against new inputs ``news``."""
        request = provider_pb2.DiffRequest(
            id=id_,
            urn=urn(type_, name),
            name=name,
            type=type_,
            olds=to_struct(dict(olds)),
            news=to_struct(dict(news)),
        )
        response: provider_pb2.DiffResponse = self.call("Diff", request)
        return response

    def delete(self, type_: str, name: str, id_: str, props: Mapping[str, Any]) -> None:
        """``Delete`` a served resource whose state is ``props``."""
        request = provider_pb2.DeleteRequest(
            id=id_, urn=urn(type_, name), name=name, type=type_, properties=to_struct(dict(props))
        )
        self.call("Delete", request)

    def call(self, method: str, request: Any, timeout: float | None = None) -> Any:
        """Call ``method`` (deadline: ``timeout``, else the host's); a refusal raises
        :class:`ProviderCallError` (with the property errors of an ``INVALID_ARGUMENT``)."""
        stub = self._stub
        if stub is None:
            raise DynamicHostError("the plugin is not running (use the host as a context manager)")
        try:
            return getattr(stub, method)(request, timeout=timeout or self._rpc_timeout)
        except grpc.RpcError as err:
            code: grpc.StatusCode = err.code()
            details: str = err.details() or ""
            if code in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.CANCELLED):
                details += self._stderr()
            raise ProviderCallError(method, code, details, _property_errors(err)) from None


def _property_errors(err: grpc.RpcError) -> list[PropertyError]:
    """The ``InputPropertiesError`` details of a refusal (``grpc-status-details-bin``)."""
    trailers: Any = err.trailing_metadata() if hasattr(err, "trailing_metadata") else None
    for key, value in trailers or ():
        if key != "grpc-status-details-bin":
            continue
        status = status_pb2.Status.FromString(value)
        found: list[PropertyError] = []
        for detail in status.details:
            errors = errors_pb2.InputPropertiesError()
            if detail.Unpack(errors):
                found += [PropertyError(e.property_path, e.reason) for e in errors.errors]
        return found
    return []


def _wire(struct: struct_pb2.Struct) -> dict[str, Any]:
    """A response's properties as the SDK reads them (secrets wrapped, unknowns kept)."""
    props: dict[str, Any] = rpc.deserialize_properties(struct, keep_unknowns=True)
    return props
