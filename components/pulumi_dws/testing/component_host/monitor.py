"""The engine's side of a deployment, for a component provider under test: a resource monitor
and an engine service on 127.0.0.1, as gRPC servers.

The monitor answers as :class:`~pulumi_dws.testing.GcpMocks` does (its ``MockMonitor``): the
registrations a component provider makes are recorded, with the outputs Google Cloud would
give, exactly as a Python program's registrations are under the same mocks. The engine service
keeps the provider's log messages.
"""

from __future__ import annotations

import contextvars
import threading
from collections.abc import Callable
from concurrent import futures
from typing import Any, TypeVar

import grpc
from google.protobuf import empty_pb2
from pulumi.runtime.proto import engine_pb2, engine_pb2_grpc, resource_pb2, resource_pb2_grpc

from ..event_loop import ensure_event_loop
from ..mocks import GcpMocks

__all__ = ["FakeMonitor", "FakeEngine", "LogRecord"]

T = TypeVar("T")


class _Monitor(resource_pb2_grpc.ResourceMonitorServicer):
    def __init__(self, mocks: GcpMocks, context: contextvars.Context) -> None:
        self._mocks = mocks
        self._context = context
        self.requests: list[Any] = []
        self._lock = threading.Lock()

    def _call(self, fn: Callable[..., T], *args: Any) -> T:
        # The mock monitor reads the project and stack of the Pulumi settings it was installed
        # with; a server thread starts with none, so each call runs in a copy of that context.
        def run() -> T:
            ensure_event_loop()
            return fn(*args)

        return self._context.copy().run(run)

    @property
    def _backend(self) -> Any:
        monitor = self._mocks.monitor
        assert monitor is not None  # installed in FakeMonitor.__init__
        return monitor

    def SupportsFeature(self, request: Any, context: Any) -> Any:  # noqa: N802
        answer = self._call(self._backend.SupportsFeature, request)
        return resource_pb2.SupportsFeatureResponse(hasSupport=bool(answer.hasSupport))

    def GetDeploymentInfo(self, request: Any, context: Any) -> Any:  # noqa: N802
        return self._call(self._backend.GetDeploymentInfo, request)

    def RegisterResource(self, request: Any, context: Any) -> Any:  # noqa: N802
        with self._lock:
            self.requests.append(request)
        return self._call(self._backend.RegisterResource, request)

    def RegisterResourceOutputs(self, request: Any, context: Any) -> Any:  # noqa: N802
        return self._call(self._backend.RegisterResourceOutputs, request)

    def Invoke(self, request: Any, context: Any) -> Any:  # noqa: N802
        return self._call(self._backend.Invoke, request)

    def ReadResource(self, request: Any, context: Any) -> Any:  # noqa: N802
        return self._call(self._backend.ReadResource, request)

    def RegisterStackTransform(self, request: Any, context: Any) -> Any:  # noqa: N802
        return self._call(self._backend.RegisterStackTransform, request)

    def RegisterPackage(self, request: Any, context: Any) -> Any:  # noqa: N802
        return self._call(self._backend.RegisterPackage, request)

    def SignalAndWaitForShutdown(self, request: Any, context: Any) -> Any:  # noqa: N802
        return empty_pb2.Empty()


class FakeMonitor:
    """A resource monitor on 127.0.0.1 backed by ``mocks`` (a fresh :class:`GcpMocks` by
    default), which it installs: ``mocks.registered`` then lists what a provider registered.

    One monitor is one deployment: a component provider keeps what a program shares (the
    Flex-start VMs' templates) per monitor, so start a new one for each program.
    """

    def __init__(
        self, mocks: GcpMocks | None = None, *, project: str = "project", stack: str = "dev"
    ) -> None:
        self.mocks = mocks or GcpMocks()
        self.project = project
        self.stack = stack
        self.mocks.install(project=project, stack=stack)
        self._servicer = _Monitor(self.mocks, contextvars.copy_context())
        self._server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
        resource_pb2_grpc.add_ResourceMonitorServicer_to_server(self._servicer, self._server)
        port = self._server.add_insecure_port("127.0.0.1:0")
        self._server.start()
        self.address = f"127.0.0.1:{port}"

    @property
    def requests(self) -> list[Any]:
        """Every ``RegisterResourceRequest`` received, in order (the wire form)."""
        return list(self._servicer.requests)

    def stop(self) -> None:
        """Stop serving (idempotent)."""
        self._server.stop(grace=None)


class LogRecord:
    """One message a provider logged through the engine."""

    def __init__(self, severity: int, message: str, urn: str) -> None:
        self.severity = severity
        self.message = message
        self.urn = urn

    def __repr__(self) -> str:
        severity = engine_pb2.LogSeverity.Name(self.severity)  # type: ignore[arg-type]
        return f"LogRecord({severity}, {self.message!r})"


class _Engine(engine_pb2_grpc.EngineServicer):
    def __init__(self) -> None:
        self.logs: list[LogRecord] = []
        self.root = ""

    def Log(self, request: Any, context: Any) -> Any:  # noqa: N802
        self.logs.append(LogRecord(request.severity, request.message, request.urn))
        return empty_pb2.Empty()

    def GetRootResource(self, request: Any, context: Any) -> Any:  # noqa: N802
        return engine_pb2.GetRootResourceResponse(urn=self.root)

    def SetRootResource(self, request: Any, context: Any) -> Any:  # noqa: N802
        self.root = request.urn
        return engine_pb2.SetRootResourceResponse()


class FakeEngine:
    """The engine service a provider logs to (its address is the plugin's first argument)."""

    def __init__(self) -> None:
        self._servicer = _Engine()
        self._server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
        engine_pb2_grpc.add_EngineServicer_to_server(self._servicer, self._server)
        port = self._server.add_insecure_port("127.0.0.1:0")
        self._server.start()
        self.address = f"127.0.0.1:{port}"

    @property
    def logs(self) -> list[LogRecord]:
        """What the provider logged, in order."""
        return list(self._servicer.logs)

    def errors(self) -> list[str]:
        """The messages logged at ERROR severity."""
        return [r.message for r in self.logs if r.severity == engine_pb2.ERROR]

    def stop(self) -> None:
        """Stop serving (idempotent)."""
        self._server.stop(grace=None)
