"""The ``dws`` component provider: the plugin ``pulumi package add ./provider`` runs.

It serves, over the Pulumi provider protocol (``pulumi.provider``'s gRPC server):

* ``GetSchema``: :func:`pulumi_dws.package.schema.schema_json`.
* ``Construct`` of every component the package serves (:mod:`.components`: the kind
  registry's, and those that hold no capacity): the inputs become the Python API's
  args (:mod:`.construct`) and the component is built by the same code a Python program runs,
  so it registers the same children with the same inputs. A bad input is refused with
  ``INVALID_ARGUMENT``: the Python API's message, the property path as the caller spells it,
  ``[secret]`` for a secret value. Values that came as outputs (a secret, a value another
  resource gives) are checked before anything is registered, those known then (in a preview
  some are not: they are checked once known); a check that fails once a value is known is
  refused the same way.
* ``Check`` of a component's inputs (the same checks, as failures), for tools: the engine does
  not check components.
* The components' dynamic resources as custom resources ``dws:dynamic:<Name>`` (:mod:`.served`):
  ``Check``, ``Diff``, ``Create``, ``Read``, ``Update``, ``Delete``, ``Configure``.

``provider/__main__.py`` calls :func:`main`.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

import grpc
from google.protobuf import empty_pb2
from pulumi.dynamic import ResourceProvider
from pulumi.provider import ConstructResult, Provider
from pulumi.provider.server import ProviderServicer
from pulumi.runtime import config as runtime_config
from pulumi.runtime import proto, rpc, settings
from pulumi.runtime._grpc_settings import _GRPC_CHANNEL_OPTIONS
from pulumi.runtime.proto import engine_pb2_grpc, resource_pb2_grpc
from pulumi.runtime.stack import wait_for_rpcs

from ..defaults import type_token
from ..errors import DwsValidationError, redact
from ..models import parse_args
from ..outputs import is_output
from . import PACKAGE_NAME
from .calls import ServedCalls
from .component_outputs import component_outputs
from .components import ServedComponent, served_components
from .construct import (
    PropertyProblem,
    is_unknown,
    problem_of,
    python_args,
    secret_fields,
)
from .introspect import describe
from .names import camel
from .references import checkable, install, remember
from .schema import package_version, schema_json
from .served import (
    COMPONENT_PROVIDER,
    PROVIDER_KEY,
    ServedProviderError,
    ServedResources,
    dynamic_type,
    serving_monitor,
)

__all__ = ["DwsProvider", "DwsServicer", "main", "component_kinds", "SERVED_WORKERS"]


@cache
def component_kinds() -> dict[str, ServedComponent]:
    """Every served component by its type token (``dws:index:QueuedTpu``): the registry's
    kinds and the components that hold no capacity (``dws:index:GpuNetwork``)."""
    return {type_token(kind.name): kind for kind in served_components()}


class InvalidInputs(Exception):
    """Inputs refused: what the caller reads of them."""

    def __init__(self, problem: PropertyProblem) -> None:
        super().__init__(problem.message)
        self.problem = problem


class DwsProvider(Provider):
    """The ``dws`` package's provider: ``Construct`` of the served components."""

    def __init__(self) -> None:
        super().__init__(package_version(), None)
        self.served = ServedResources()
        install()  # references to the components it builds (references.py)

    @property
    def schema(self) -> str:
        """The package schema (built once, when first asked)."""
        return schema_json()

    @schema.setter
    def schema(self, _value: str | None) -> None:  # the base class sets None
        pass

    def construct(
        self,
        name: str,
        resource_type: str,
        inputs: Mapping[str, Any],
        options: Any = None,
    ) -> ConstructResult:
        """Build component ``resource_type`` named ``name`` from ``inputs`` (schema spelling);
        its state is its outputs (schema spelling)."""
        kind = component_kinds().get(resource_type)
        if kind is None:
            raise ValueError(f"unknown resource type {resource_type}")
        model = describe(kind.spec)
        try:
            args = python_args(model, inputs)
        except DwsValidationError as err:
            raise _input_error(problem_of(err, rename=False)) from None
        try:
            component = kind.component(name, args, options)
        except DwsValidationError as err:
            secret = list(secret_fields(model))
            raise _input_error(problem_of(err, secret_paths=secret)) from None
        remember(component)
        state = {
            camel(output.name): getattr(component, output.name)
            for output in component_outputs(_component_class(kind))
        }
        return ConstructResult(urn=component.urn, state=state)


def _component_class(kind: ServedComponent) -> type:
    component = kind.component
    if not isinstance(component, type):
        raise TypeError(f"{kind.name}: its component is not a class")
    return component


def _input_error(problem: PropertyProblem) -> Exception:
    from pulumi.errors import InputPropertiesError

    errors: list[Any] = []
    if problem.path:
        errors.append({"property_path": problem.path, "reason": problem.reason})
    return InputPropertiesError(problem.message, errors)


# ---------------------------------------------------------------------------- inputs
async def _resolved(value: Any) -> tuple[Any, bool, bool]:
    """``value`` with every known Output replaced by its value (a secret one wrapped as a
    secret); whether it held an Output or a secret, and whether anything is unknown."""
    if is_output(value):
        known = await value.is_known()
        if not known:
            return value, True, True
        inner, _, unknown = await _resolved(await value.future())
        if await value.is_secret():
            inner = rpc.wrap_rpc_secret(inner)
        return inner, True, unknown
    if rpc.is_rpc_secret(value):
        inner, _, unknown = await _resolved(rpc.unwrap_rpc_secret(value))
        return rpc.wrap_rpc_secret(inner), True, unknown
    if is_unknown(value):
        return value, False, True
    if isinstance(value, Mapping):
        items = {k: await _resolved(v) for k, v in value.items()}
        return (
            {k: v[0] for k, v in items.items()},
            any(v[1] for v in items.values()),
            any(v[2] for v in items.values()),
        )
    if isinstance(value, list):
        resolved = [await _resolved(v) for v in value]
        return (
            [v[0] for v in resolved],
            any(v[1] for v in resolved),
            any(v[2] for v in resolved),
        )
    return value, False, False


def _unwrap_secrets(value: Any, path: str, found: dict[str, Any]) -> Any:
    """``value`` without secret wrappers; ``found`` gets each secret's Python path and value."""
    if rpc.is_rpc_secret(value):
        inner = _unwrap_secrets(rpc.unwrap_rpc_secret(value), path, {})
        found[path] = inner
        return inner
    if isinstance(value, Mapping):
        return {
            k: _unwrap_secrets(v, f"{path}[{k}]" if path else k, found) for k, v in value.items()
        }
    if isinstance(value, list):
        return [_unwrap_secrets(v, f"{path}[{i}]", found) for i, v in enumerate(value)]
    return value


@dataclass(frozen=True)
class _Secrets:
    """What came as a secret in a component's inputs: the Python paths of the values (and of
    the fields marked :class:`~pulumi_dws.fields.Secret`), and the text of each value."""

    paths: tuple[str, ...] = ()
    values: tuple[str, ...] = ()


def _secrets(kind: ServedComponent, inputs: Mapping[str, Any]) -> _Secrets:
    """The secrets of resolved ``inputs`` (secrets as wrappers; nothing for inputs the
    schema does not have, which are refused before anything could quote them)."""
    model = describe(kind.spec)
    try:
        args = python_args(model, inputs)
    except DwsValidationError:
        return _Secrets(tuple(secret_fields(model)))
    found: dict[str, Any] = {}
    _unwrap_secrets(args, "", found)
    values = [v for v in _leaves(list(found.values())) if isinstance(v, str) and v]
    return _Secrets((*found, *secret_fields(model)), tuple(values))


def _validate(kind: ServedComponent, inputs: Mapping[str, Any]) -> None:
    """The Python API's checks on ``inputs`` (known values resolved, secrets as wrappers; a
    value not known yet as an unknown Output, checked once known); raises
    :class:`InvalidInputs`."""
    model = describe(kind.spec)
    try:
        args = python_args(model, inputs)
    except DwsValidationError as err:
        raise InvalidInputs(problem_of(err, rename=False)) from None
    plain = _unwrap_secrets(args, "", {})
    try:
        parse_args(kind.spec, plain)
    except DwsValidationError as err:
        secrets = _secrets(kind, inputs)
        raise InvalidInputs(
            problem_of(err, secret_paths=secrets.paths, secret_values=secrets.values)
        ) from None


def _once_known_error(err: Exception, kind: ServedComponent | None, secrets: _Secrets) -> Exception:
    """What a ``Construct`` that failed after its checks raises: a check that failed on a
    value once it was known (inside an ``apply``, however the SDK wrapped it) is refused as
    an input error, as one that fails at once; any other failure as it is, without the text
    of a secret."""
    from pulumi.errors import InputPropertiesError

    if isinstance(err, InputPropertiesError):
        return err
    cause: BaseException | None = err
    seen: set[int] = set()
    while cause is not None and id(cause) not in seen:
        seen.add(id(cause))
        if isinstance(cause, DwsValidationError) and kind is not None:
            problem = problem_of(cause, secret_paths=secrets.paths, secret_values=secrets.values)
            return _input_error(problem)
        cause = cause.__cause__ or cause.__context__
    text = redact(str(err), secrets.values)
    return err if text == str(err) else Exception(text).with_traceback(err.__traceback__)


def _holds_unknown(value: Any) -> bool:
    """A plain value (not an Output) with the engine's unknown in it."""
    return not is_output(value) and rpc.contains_unknowns(value)


def _unknown_output(value: Any) -> Any:
    """An Output of ``value``, which holds an unknown: what the SDK makes of an unknown that
    comes with a dependency, made of one that comes without (so a component sees an unknown
    Output, never the engine's marker)."""
    from pulumi.output import Output, _OutputData

    data: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
    data.set_result(_OutputData(resources=set(), value=value, is_known=True, is_secret=False))
    return Output._from_data(data)  # noqa: SLF001 - as the SDK's _select_value does


def _leaves(values: list[Any]) -> list[Any]:
    found: list[Any] = []
    for value in values:
        if isinstance(value, Mapping):
            found += _leaves(list(value.values()))
        elif isinstance(value, list):
            found += _leaves(value)
        else:
            found.append(value)
    return found


# ---------------------------------------------------------------------------- the server
_SIGNATURE = rpc._special_sig_key.encode()  # noqa: SLF001 - how the wire marks a secret, an output


def _may_hold_outputs(request: Any) -> bool:
    """Whether a ``Construct``'s inputs may hold a secret, an output or an unknown (what the
    checks before it are for): an input with dependencies, or a value the wire marks."""
    if any(deps.urns for deps in request.inputDependencies.values()):
        return True
    raw = request.inputs.SerializeToString()
    return _SIGNATURE in raw or rpc.UNKNOWN.encode() in raw


SERVED_WORKERS = 64
"""The most operations of served resources at once (each a thread: a create may wait hours in
a queue, and a program may have as many as it has slices or VMs)."""


@dataclass(frozen=True)
class _Connection:
    """The provider's connection to one engine's resource monitor."""

    monitor: Any
    features: frozenset[int]


class DwsServicer(ProviderServicer):
    """``pulumi.provider``'s servicer (``Construct``, ``GetSchema``...) plus the checks before
    a ``Construct``, ``Check`` of components and the ``dws:dynamic:*`` resources."""

    provider: DwsProvider

    def __init__(self, provider: DwsProvider, args: list[str], engine_address: str) -> None:
        super().__init__(provider, args, engine_address)
        self._connections: dict[str, _Connection] = {}
        self._engine_stub: Any = None
        # The served resources' operations block (HTTP calls, waits of hours in a queue):
        # threads of their own, so that many waits never hold the loop's default executor,
        # which the SDK's registrations (Construct) run on, nor each other; each a call the
        # engine's Cancel, the end of its gRPC call, SIGINT and SIGTERM stop (.calls).
        self.calls = ServedCalls(SERVED_WORKERS)

    async def Cancel(self, request: Any, context: Any) -> Any:  # noqa: N802
        """Stop every served resource's wait (:meth:`.calls.ServedCalls.cancel`)."""
        self.provider.cancel()
        await self.calls.cancel(context)
        return empty_pb2.Empty()

    # -------------------------------------------------------------- components
    async def _construct(self, request: Any, context: Any) -> Any:
        """As ``pulumi.provider.server.ProviderServicer._construct``, but for the settings
        (every ``Construct`` of a deployment shares one connection to its engine's monitor, a
        :class:`~.served.ServingMonitor` that also keeps what the program shares, and asks the
        monitor's features once, where the SDK opens new connections and asks again for each
        component) and for the checks: inputs that came as outputs are checked before the
        component registers anything (those not known yet once they are), and a check that
        fails once a value is known is refused as one that fails at once, ``[secret]`` for a
        value that came as a secret."""
        connection = await self._connection(request.monitorEndpoint)
        settings.configure(
            settings.Settings(
                project=request.project or None,
                stack=request.stack or None,
                monitor=connection.monitor,
                engine=self._engine(),
                parallel=request.parallel or None,
                dry_run=request.dryRun,
                organization=request.organization or "organization",
            )
        )
        settings.ROOT.set(None)
        settings.SETTINGS.monitor_features = set(connection.features)
        runtime_config.set_all_config(dict(request.config), list(request.configSecretKeys))
        COMPONENT_PROVIDER.set(request.providers.get(PACKAGE_NAME, ""))
        inputs = await self._construct_inputs(request.inputs, request.inputDependencies)
        inputs = {k: _unknown_output(v) if _holds_unknown(v) else v for k, v in inputs.items()}
        kind = component_kinds().get(request.type)
        secrets = _Secrets()
        if kind is not None and _may_hold_outputs(request):
            resolved, held_outputs, _ = await _resolved(inputs)
            secrets = _secrets(kind, resolved)
            if held_outputs:
                try:
                    _validate(kind, resolved)
                except InvalidInputs as refused:
                    raise _input_error(refused.problem) from None
        try:
            result = self.provider.construct(
                name=request.name,
                resource_type=request.type,
                inputs=inputs,
                options=self._construct_options(request),
            )
            response = await self._construct_response(result)
            # As the SDK: wait for what the component started without awaiting it.
            await wait_for_rpcs(await_all_outstanding_tasks=False)
        except Exception as err:  # noqa: BLE001 - told apart below
            raise _once_known_error(err, kind, secrets) from None
        return response

    async def _connection(self, endpoint: str) -> _Connection:
        found = self._connections.get(endpoint)
        if found is None:
            stub = resource_pb2_grpc.ResourceMonitorStub(
                grpc.insecure_channel(endpoint, options=_GRPC_CHANNEL_OPTIONS)
            )
            monitor = serving_monitor(endpoint, stub, self.provider.version or "")
            settings.configure(settings.Settings(project=None, stack=None, monitor=monitor))
            await settings._load_monitor_feature_support()
            found = _Connection(monitor, frozenset(settings.SETTINGS.monitor_features))
            self._connections[endpoint] = found
        return found

    def _engine(self) -> Any:
        if self._engine_stub is None and self.engine_address:
            self._engine_stub = engine_pb2_grpc.EngineStub(
                grpc.insecure_channel(self.engine_address, options=_GRPC_CHANNEL_OPTIONS)
            )
        return self._engine_stub

    async def _refuse(self, context: Any, problem: PropertyProblem) -> None:
        errors: list[Any] = []
        if problem.path:
            errors.append({"property_path": problem.path, "reason": problem.reason})
        status = self.create_grpc_invalid_properties_status(problem.message, errors)
        await context.abort_with_status(status)

    async def Check(self, request: Any, context: Any) -> Any:  # noqa: N802
        if dynamic_type(request.type) is not None:
            return await self._served_check(request, context)
        kind = component_kinds().get(request.type)
        if kind is None:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, f"unknown type {request.type}")
            raise AssertionError("abort raises")
        failures: list[Any] = []
        news = checkable(rpc.deserialize_properties(request.news, keep_unknowns=True))
        resolved, _, unknown = await _resolved(news)
        if not unknown:  # an unknown value is checked once known (Construct)
            try:
                _validate(kind, resolved)
            except InvalidInputs as refused:
                failures.append(
                    proto.CheckFailure(property=refused.problem.path, reason=refused.problem.reason)
                )
        return proto.CheckResponse(inputs=request.news, failures=failures)

    # -------------------------------------------------------------- configuration
    async def Configure(self, request: Any, context: Any) -> Any:  # noqa: N802
        config = rpc.deserialize_properties(request.args, keep_unknowns=False)
        self.provider.served.configure(config or {})
        return proto.ConfigureResponse(acceptSecrets=True, acceptResources=True, acceptOutputs=True)

    # -------------------------------------------------------------- dws:dynamic:*
    async def _served_check(self, request: Any, context: Any) -> Any:
        olds, _ = _props(request.olds, keep_unknowns=True)
        news, secret = _props(request.news, keep_unknowns=True)
        provider = await self._served(context, news, olds)
        hidden = _secret_texts(request.olds, request.news)
        result = await self.calls.run(context, hidden, provider.check, olds, news)
        inputs = dict(result.inputs)
        inputs[PROVIDER_KEY] = news.get(PROVIDER_KEY, olds.get(PROVIDER_KEY))
        failures = [
            proto.CheckFailure(property=f.property, reason=f.reason) for f in result.failures
        ]
        return proto.CheckResponse(inputs=await _struct(inputs, secret), failures=failures)

    async def Diff(self, request: Any, context: Any) -> Any:  # noqa: N802
        if dynamic_type(request.type) is None:
            await context.abort(grpc.StatusCode.UNIMPLEMENTED, f"Diff of {request.type}")
        olds, _ = _props(request.olds, keep_unknowns=True)
        news, _ = _props(request.news, keep_unknowns=True)
        provider = await self._served(context, news, olds)
        hidden = _secret_texts(request.olds, request.news)
        result = await self.calls.run(context, hidden, provider.diff, request.id, olds, news)
        fields: dict[str, Any] = {}
        if result.changes is None:
            fields["changes"] = proto.DiffResponse.DIFF_UNKNOWN
        else:
            some = proto.DiffResponse.DIFF_SOME
            fields["changes"] = some if result.changes else proto.DiffResponse.DIFF_NONE
        if result.replaces is not None:
            fields["replaces"] = result.replaces
        if result.stables is not None:
            fields["stables"] = result.stables
        if result.delete_before_replace is not None:
            fields["deleteBeforeReplace"] = result.delete_before_replace
        return proto.DiffResponse(**fields)

    async def Create(self, request: Any, context: Any) -> Any:  # noqa: N802
        if dynamic_type(request.type) is None:
            await context.abort(grpc.StatusCode.UNIMPLEMENTED, f"Create of {request.type}")
        props, secret = _props(request.properties)
        provider = await self._served(context, props)
        hidden = _secret_texts(request.properties)
        result = await self.calls.run(context, hidden, provider.create, props)
        outs = dict(result.outs or {})
        outs[PROVIDER_KEY] = props[PROVIDER_KEY]
        return proto.CreateResponse(id=result.id, properties=await _struct(outs, secret))

    async def Read(self, request: Any, context: Any) -> Any:  # noqa: N802
        if dynamic_type(request.type) is None:
            await context.abort(grpc.StatusCode.UNIMPLEMENTED, f"Read of {request.type}")
        props, secret = _props(request.properties)
        inputs, input_secret = _props(request.inputs)
        if not props:
            props, secret = inputs, input_secret
        provider = await self._served(context, props, inputs)
        hidden = _secret_texts(request.properties, request.inputs)
        result = await self.calls.run(context, hidden, provider.read, request.id, props)
        outs = dict(result.outs or {})
        outs[PROVIDER_KEY] = props.get(PROVIDER_KEY, inputs.get(PROVIDER_KEY))
        fields: dict[str, Any] = {"id": result.id, "properties": await _struct(outs, secret)}
        if result.inputs is not None:
            new_inputs = dict(result.inputs)
            new_inputs[PROVIDER_KEY] = outs[PROVIDER_KEY]
            fields["inputs"] = await _struct(new_inputs, secret | input_secret)
        return proto.ReadResponse(**fields)

    async def Update(self, request: Any, context: Any) -> Any:  # noqa: N802
        if dynamic_type(request.type) is None:
            await context.abort(grpc.StatusCode.UNIMPLEMENTED, f"Update of {request.type}")
        olds, _ = _props(request.olds)
        news, secret = _props(request.news)
        provider = await self._served(context, news, olds)
        hidden = _secret_texts(request.olds, request.news)
        result = await self.calls.run(context, hidden, provider.update, request.id, olds, news)
        outs = dict(result.outs or {})
        outs[PROVIDER_KEY] = news[PROVIDER_KEY]
        return proto.UpdateResponse(properties=await _struct(outs, secret))

    async def Delete(self, request: Any, context: Any) -> Any:  # noqa: N802
        if dynamic_type(request.type) is None:
            await context.abort(grpc.StatusCode.UNIMPLEMENTED, f"Delete of {request.type}")
        props, _ = _props(request.properties)
        provider = await self._served(context, props)
        hidden = _secret_texts(request.properties)
        await self.calls.run(context, hidden, provider.delete, request.id, props)
        return empty_pb2.Empty()

    async def _served(self, context: Any, *bags: Mapping[str, Any]) -> ResourceProvider:
        try:
            return self.provider.served.provider(*bags)
        except ServedProviderError as err:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(err))
            raise AssertionError("abort raises") from None


def _props(struct: Any, *, keep_unknowns: bool = False) -> tuple[dict[str, Any], set[str]]:
    """A property bag without secret wrappers (a dynamic provider never gets a secret), and
    the keys that held one."""
    props = rpc.deserialize_properties(struct, keep_unknowns=keep_unknowns) if struct else {}
    secret = {key for key, value in (props or {}).items() if _holds_secret(value)}
    return {k: _strip(v) for k, v in (props or {}).items()}, secret


def _secret_texts(*structs: Any) -> list[str]:
    """The text of every value that came as a secret in the property bags ``structs`` (what an
    error of the call must show as ``[secret]``: the engine knows which inputs are secret, the
    provider does not)."""
    found: dict[str, Any] = {}
    for struct in structs:
        props = rpc.deserialize_properties(struct, keep_unknowns=True) if struct else {}
        _unwrap_secrets(props or {}, "", found)
    values = _leaves(list(found.values()))
    return [str(v) for v in values if isinstance(v, str | int | float) and not isinstance(v, bool)]


def _holds_secret(value: Any) -> bool:
    if rpc.is_rpc_secret(value):
        return True
    if isinstance(value, Mapping):
        return any(_holds_secret(v) for v in value.values())
    if isinstance(value, list):
        return any(_holds_secret(v) for v in value)
    return False


def _strip(value: Any) -> Any:
    if rpc.is_rpc_secret(value):
        return _strip(rpc.unwrap_rpc_secret(value))
    if isinstance(value, Mapping):
        return {k: _strip(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_strip(v) for v in value]
    return value


async def _struct(props: Mapping[str, Any], secret: set[str]) -> Any:
    """``props`` serialized, the keys that held a secret marked secret again."""
    marked = {k: rpc.wrap_rpc_secret(v) if k in secret else v for k, v in props.items()}
    return await rpc.serialize_properties(marked, {})


def main(argv: list[str] | None = None) -> None:
    """Serve the ``dws`` provider: print the port, serve until the engine stops it."""
    import argparse

    import grpc.aio
    from pulumi.runtime.proto import provider_pb2_grpc

    parser = argparse.ArgumentParser(description="pulumi-dws component provider")
    parser.add_argument("engine", help="the Pulumi engine's address")
    parser.add_argument("--logflow", action="store_true", help="ignored")
    parser.add_argument("--logtostderr", action="store_true", help="ignored")
    known, _ = parser.parse_known_args(argv if argv is not None else sys.argv[1:])
    provider = DwsProvider()

    async def serve() -> None:
        server = grpc.aio.server(options=_GRPC_CHANNEL_OPTIONS)
        servicer = DwsServicer(provider, [], engine_address=known.engine)
        provider_pb2_grpc.add_ResourceProviderServicer_to_server(servicer, server)
        port = server.add_insecure_port("127.0.0.1:0")
        await server.start()
        servicer.calls.stop_on_signals(server)
        sys.stdout.buffer.write(f"{port}\n".encode())
        sys.stdout.buffer.flush()
        await server.wait_for_termination()

    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(serve())
