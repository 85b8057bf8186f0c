"""``DynamicProviderHost``: plays the engine's part against Pulumi's own Python
dynamic-provider host (see ``docs/dynamic-host.md``)."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sys
import threading
import uuid
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future
from types import TracebackType
from typing import Any, TypeVar

import grpc
from google.protobuf import empty_pb2, struct_pb2
from pulumi.dynamic import ResourceProvider
from pulumi.dynamic.dynamic import PROVIDER_KEY
from pulumi.runtime import rpc
from pulumi.runtime.proto import provider_pb2, provider_pb2_grpc

from ...providers.cancellation import CLOSE_CANCEL_DEADLINE
from .process import HostProcess, python_host_args, with_pythonpath
from .responses import (
    CheckFailure,
    ConfigureResponse,
    DiffResponse,
    DynamicHostError,
    DynamicProviderError,
)
from .wire import (
    DEFAULT_PROJECT,
    DEFAULT_STACK,
    PYTHON_DYNAMIC_PACKAGE,
    annotate_secrets,
    check_config,
    config_string,
    contains_unknowns,
    drop_unknowns,
    from_struct,
    serialize_provider_property,
    to_struct,
    unwrap_secrets,
    urn,
    urn_name_and_type,
    without_provider,
)

try:  # The SDK's own channel options (message size limits); private, so tolerate its absence.
    from pulumi.runtime._grpc_settings import _GRPC_CHANNEL_OPTIONS as _CHANNEL_OPTIONS
except ImportError:  # pragma: no cover - depends on the SDK version
    _CHANNEL_OPTIONS = []

__all__ = ["DynamicProviderHost", "ENGINE_KILL_GRACE"]

T = TypeVar("T")
ENGINE_KILL_GRACE = 5.0
"""Seconds between the engine's SIGINT to a plugin and its SIGKILL
(``sdk/go/common/resource/plugin/plugin.go`` in pulumi/pulumi at
1b5949891b3cefcb9974752b24a5ecef0acc86c8: "Give the process 5 seconds to shut down, or kill it
forcibly")."""


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
        shutdown_grace: float = ENGINE_KILL_GRACE,
    ) -> None:
        self._provider = provider
        self.project = project
        self.stack = stack
        self._config: dict[str, Any] = check_config(config or {})
        self._env = dict(env or {})
        self._cwd = os.fspath(cwd) if cwd is not None else os.getcwd()
        self._pythonpath = [os.fspath(p) for p in pythonpath]
        self._python = python or sys.executable
        self._engine_address = engine_address
        self._startup_timeout = startup_timeout
        self._rpc_timeout = rpc_timeout
        self._shutdown_grace = shutdown_grace

        self._process: HostProcess | None = None
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
            key[len(prefix) :]: config_string(unwrap_secrets(value))
            for key, value in self._config.items()
            if key.startswith(prefix)
        }
        environ["PULUMI_CONFIG"] = json.dumps(package_config)
        with_pythonpath(environ, self._pythonpath)
        environ.update(self._env)
        return environ

    def start(self) -> None:
        """Start the host, read its port, connect and probe it (``Handshake``,
        ``GetPluginInfo``) the way the engine does after launching a plugin."""
        if self._process is not None:
            raise DynamicHostError("the host was already started")
        self._process = HostProcess(
            python_host_args(self._python, self._engine_address),
            cwd=self._cwd,
            env=self.host_environment(),
            startup_timeout=self._startup_timeout,
            shutdown_grace=self._shutdown_grace,
        )
        try:
            port = self._process.read_port()
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

    def close(self) -> None:
        """Close the channel and stop the host (SIGINT, then kill); waits for it. Idempotent."""
        if self._channel is not None:
            self._channel.close()
            self._channel = None
            self._stub = None
        if self._process is not None:
            self._process.stop()

    # ---------------------------------------------------------------- cancellation

    def cancel(self, timeout: float | None = None) -> None:
        """Send ``Cancel``, as the engine does to every provider on the first Ctrl-C (or SIGTERM)
        to ``pulumi``, and before it closes a plugin (``pkg/host/host.go``: 30 s and 5 s
        deadlines on that call; ``timeout``: the deadline, by default the harness's own)."""
        self._call("Cancel", self._require_stub().Cancel, empty_pb2.Empty(), timeout)

    def signal(self, signum: int) -> None:
        """Send ``signum`` to the host's process group (SIGINT is what the engine's plugin kill
        sends; SIGTERM is what a CI runner or a container stop sends)."""
        if self._process is not None:
            self._process.signal_group(signum)

    def engine_close(self, grace: float = ENGINE_KILL_GRACE) -> bool:
        """Close the host exactly as the engine closes a plugin when a run ends or is
        terminated: ``Cancel`` with a 5 s deadline (``pkg/host/host.go``), then SIGINT to the
        process group and SIGKILL ``grace`` seconds later if it has not exited
        (``sdk/go/common/resource/plugin/plugin.go``, ``kill``). True when it exited on its
        own within the grace."""
        with contextlib.suppress(DynamicProviderError):  # the engine goes on with the signal
            self.cancel(CLOSE_CANCEL_DEADLINE)
        self.signal(signal.SIGINT)
        exited = self.wait_exit(grace)
        if exited is None:
            self.kill()
        self.close()
        return exited is not None

    def wait_exit(self, timeout: float | None) -> int | None:
        """Wait up to ``timeout`` real seconds for the host to exit; its status, or None."""
        return self._process.wait(timeout) if self._process is not None else None

    def background(self, call: Callable[..., T], *args: Any, **kwargs: Any) -> Future[T]:
        """Run ``call(*args, **kwargs)`` (say ``self.create``) on a thread of its own, as the
        engine has several calls in flight: a test sends ``Cancel`` or a signal meanwhile and
        then takes the result (or the error) from the future."""
        future: Future[T] = Future()

        def run() -> None:
            try:
                future.set_result(call(*args, **kwargs))
            except BaseException as err:  # noqa: BLE001 - handed to the caller
                future.set_exception(err)

        threading.Thread(target=run, name="engine-call", daemon=True).start()
        return future

    def kill(self) -> None:
        """Kill the host at once (SIGKILL), as a crash, an OOM kill or a closed laptop would end
        ``pulumi up``: a call in flight fails (``UNAVAILABLE``) and the provider gets no chance
        to clean up. Then :meth:`close` (or leaving the ``with`` block) reaps it."""
        if self._process is not None:
            self._process.kill()

    @property
    def port(self) -> int:
        """The port the host listens on (127.0.0.1)."""
        if self._port is None:
            raise DynamicHostError("the host is not running")
        return self._port

    @property
    def pid(self) -> int | None:
        """Process id of the host, None before :meth:`start`."""
        return self._process.pid if self._process is not None else None

    @property
    def returncode(self) -> int | None:
        """Exit status of the host, None while it runs."""
        return self._process.returncode if self._process is not None else None

    @property
    def stdout(self) -> str:
        """What the host printed on stdout after its port line (providers' ``print`` output)."""
        return self._process.stdout if self._process is not None else ""

    @property
    def stderr(self) -> str:
        """What the host printed on stderr so far."""
        return self._process.stderr if self._process is not None else ""

    def wait_for_stderr(self, text: str, timeout: float = 60.0) -> bool:
        """Whether the host printed ``text`` on stderr, waiting for it: the pipe is read on a
        thread of its own, so what a call printed may reach :attr:`stderr` just after the call
        returned. Returns as soon as it is there (each chunk read wakes the wait); ``timeout``
        only bounds a text that never comes."""
        if self._process is None:
            return False
        return self._process.wait_for_stderr(text, timeout)

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
        raw = check_config(self._config if config is None else config)
        variables: dict[str, str] = {}
        args: dict[str, Any] = {}
        for key, value in raw.items():
            if rpc.is_rpc_secret(value):
                args[key] = rpc.wrap_rpc_secret(config_string(value["value"]))
            else:
                args[key] = config_string(value)
            # The deprecated ``variables`` map, keyed ``<pkg>:config:<key>`` (secrets removed).
            variables[f"{PYTHON_DYNAMIC_PACKAGE}:config:{key}"] = config_string(
                unwrap_secrets(value)
            )
        provider_type = f"pulumi:providers:{PYTHON_DYNAMIC_PACKAGE}"
        request = provider_pb2.ConfigureRequest(
            variables=variables,
            args=to_struct(args),  # secrets kept: Configure is marshalled with KeepSecrets
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
        name, type_ = urn_name_and_type(urn)
        request = provider_pb2.CheckRequest(
            urn=urn,
            name=name,
            type=type_,
            olds=self._props(olds, provider, keep_unknowns=True),
            news=self._props(news, provider, keep_unknowns=True),
            randomSeed=random_seed or os.urandom(32),
        )
        response = self._call("Check", self._require_stub().Check, request)
        inputs = self._received(response.inputs, news)
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
        name, type_ = urn_name_and_type(urn)
        request = provider_pb2.DiffRequest(
            id=id,
            urn=urn,
            name=name,
            type=type_,
            olds=self._props(olds, provider, keep_unknowns=True),
            news=self._props(news, provider, keep_unknowns=True),
            old_inputs=self._old_inputs(olds, old_inputs, provider, keep_unknowns=True),
            ignoreChanges=list(ignore_changes),
        )
        response = self._call("Diff", self._require_stub().Diff, request)
        return DiffResponse.from_message(response)

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
        if self._planned_without_rpc("Create", props, preview, force_rpc):
            return "", without_provider(props)
        name, type_ = urn_name_and_type(urn)
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
        return response.id, self._received(response.properties, props)

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
        name, type_ = urn_name_and_type(urn)
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
        outs = self._received(response.properties, props)
        new_inputs = None
        if response.HasField("inputs"):
            new_inputs = self._received(response.inputs, inputs)
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
        if self._planned_without_rpc("Update", news, preview, force_rpc):
            return without_provider(news)
        name, type_ = urn_name_and_type(urn)
        request = provider_pb2.UpdateRequest(
            id=id,
            urn=urn,
            name=name,
            type=type_,
            olds=self._props(olds, provider, keep_unknowns=False),
            news=self._props(news, provider, keep_unknowns=preview),
            old_inputs=self._old_inputs(olds, old_inputs, provider, keep_unknowns=False),
            ignoreChanges=list(ignore_changes),
            preview=preview,
            timeout=timeout,
        )
        response = self._call("Update", self._require_stub().Update, request)
        return self._received(response.properties, news)

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
        name, type_ = urn_name_and_type(urn)
        request = provider_pb2.DeleteRequest(
            id=id,
            urn=urn,
            name=name,
            type=type_,
            properties=self._props(props, provider, keep_unknowns=False),
            old_inputs=self._old_inputs(props, old_inputs, provider, keep_unknowns=False),
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

    def _planned_without_rpc(
        self, method: str, props: Mapping[str, Any], preview: bool, force_rpc: bool
    ) -> bool:
        """Whether a ``Create``/``Update`` (``method``) is planned by the engine itself, as for a
        preview against a host that lacks ``supportsPreview``; unknowns are refused outside a
        preview."""
        if preview and not force_rpc and not self._supports_preview():
            return True
        if not preview and contains_unknowns(props):
            raise ValueError(f"{method} outside a preview cannot carry unknown values")
        return False

    def _received(
        self, struct: struct_pb2.Struct, sent: Mapping[str, Any] | None
    ) -> dict[str, Any]:
        """A property bag the host answered with; when the host does not accept secrets, the
        values that were secret in ``sent`` are marked secret again, as the engine does."""
        props = from_struct(struct)
        if sent is not None and not self._accepts_secrets():
            annotate_secrets(props, sent)
        return props

    def _old_inputs(
        self,
        olds: Mapping[str, Any],
        old_inputs: Mapping[str, Any] | None,
        provider: ResourceProvider | None,
        *,
        keep_unknowns: bool,
    ) -> struct_pb2.Struct:
        """The ``old_inputs`` field: ``old_inputs``, or ``olds`` when not given."""
        chosen = olds if old_inputs is None else old_inputs
        return self._props(chosen, provider, keep_unknowns=keep_unknowns)

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
        serialized = serialize_provider_property(chosen)
        bag: dict[str, Any] = dict(props)
        bag[PROVIDER_KEY] = (
            rpc.wrap_rpc_secret(serialized.value) if serialized.secret else serialized.value
        )
        if not protocol.accept_secrets:
            bag = unwrap_secrets(bag)
        if not keep_unknowns:
            bag = drop_unknowns(bag)
        return to_struct(bag)

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
            code: grpc.StatusCode = err.code()
            if code == grpc.StatusCode.UNIMPLEMENTED:
                self.handshake_supported = False  # fall back to Configure, as the engine does
                return
            details: str = err.details() or ""
            raise DynamicProviderError("Handshake", code, details) from None
        self.handshake_supported = True

    def _call(
        self, method: str, rpc_method: Any, request: Any, timeout: float | None = None
    ) -> Any:
        try:
            return rpc_method(request, timeout=timeout or self._rpc_timeout)
        except grpc.RpcError as err:
            code: grpc.StatusCode = err.code()
            details: str = err.details() or ""
            if code in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.CANCELLED):
                details += self._output_suffix()
            raise DynamicProviderError(method, code, details) from None

    def _output_suffix(self) -> str:
        err = self.stderr.strip()
        return f"\n--- host stderr ---\n{err[-4000:]}" if err else ""
