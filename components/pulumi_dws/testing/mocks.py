"""``GcpMocks``: Pulumi mocks that behave like Google Cloud instead of echoing inputs.

Use it to unit-test a stack that uses pulumi-dws (or plain pulumi-gcp) without a cloud account::

    from pulumi_dws.testing import GcpMocks

    def test_my_stack():
        mocks = GcpMocks(project="my-project")
        mocks.run(lambda: build_my_stack())            # registers resources, waits for them
        pool = mocks.one("gcp:container/nodePool:NodePool")
        assert pool.inputs["queuedProvisioning"]["enabled"] is True
        assert pool.parent_type == "dws:index:QueuedNodePool"

It keeps state (every registration, with its parent URN and inputs), fills the computed
outputs the real providers return (ids in the provider's import format, ``selfLink``,
auto-names, status fields), answers the invokes this library uses, and lets behaviour for
dynamic-provider resources be plugged in with :func:`dynamic_behaviour`.

How each resource type behaves (a :data:`Fill`) is declared with its capacity kind
(:mod:`pulumi_dws.registry`); the fills themselves are the kinds' test aids
(:mod:`pulumi_dws.testing.kinds`). ``GcpMocks(fills={type: fill})`` replaces one for a test.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import copy
import hashlib
import json
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import pulumi
from pulumi.runtime import mocks as _pmocks
from pulumi.runtime import rpc
from pulumi.runtime import settings as _settings
from pulumi.runtime.config import set_all_config
from pulumi.runtime.stack import run_in_stack, run_pulumi_func
from pulumi.runtime.sync_await import _sync_await

from .. import registry
from ..errors import DwsValidationError
from .event_loop import ensure_event_loop, settle_failed_run

__all__ = [
    "GcpMocks",
    "Registered",
    "Fill",
    "dynamic_behaviour",
    "builtin_fill",
    "compute_zonal",
    "compute_regional",
    "compute_global",
    "short_hash",
    "DYNAMIC_TYPE_PREFIX",
    "PLANNED",
    "MOCK_PROJECT_NUMBER",
    "COMPUTE",
    "COMPUTE_BETA",
    "FAKE_CA",
]

DYNAMIC_TYPE_PREFIX = "pulumi-python:dynamic/"
PLANNED = "planned"
"""The state of a resource in a preview (``GcpMocks(...).run(..., preview=True)``, ``dws
plan``): planned, not made."""
MOCK_PROJECT_NUMBER = "123456789012"
COMPUTE = "https://www.googleapis.com/compute/v1/"
COMPUTE_BETA = "https://www.googleapis.com/compute/beta/"
FAKE_CA = base64.b64encode(
    b"-----BEGIN CERTIFICATE-----\nMOCK\n-----END CERTIFICATE-----\n"
).decode()
"""A made-up CA (base64 of a PEM header) so Kubernetes providers built from a cluster resolve."""

Fill = Callable[["GcpMocks", str, str, dict[str, Any]], str]
"""How a resource type behaves under the mocks: given the mocks, the type token, the logical
name and the resource's state (a copy of its inputs; for pulumi-gcp types with ``project`` and
an auto-name set), complete the state in place with what the provider computes and return the
resource's id."""

DynamicBehaviour = Callable[[dict[str, Any], "GcpMocks", str], tuple[str, dict[str, Any]]]
_DYNAMIC: dict[str, DynamicBehaviour] = {}


def dynamic_behaviour(name: str) -> Callable[[DynamicBehaviour], DynamicBehaviour]:
    """Register how a ``pulumi-python:dynamic/<module>:<name>`` resource of your own behaves
    under the mocks (it replaces a built-in one of that name).

    The function gets the resource inputs (``__provider`` removed), the mocks and the logical
    name, and returns ``(id, outputs)`` as the provider's ``create`` would.
    """

    def register(fn: DynamicBehaviour) -> DynamicBehaviour:
        _DYNAMIC[name] = fn
        return fn

    return register


def builtin_fill(type_: str) -> Fill | None:
    """The behaviour a resource type's capacity kind declares (None: the inputs are echoed,
    with an id made from the name)."""
    entry = registry.resource_type(type_, by_name=False)
    if entry is None or entry.mock is None:
        return None
    fill: Fill = entry.mock.load()
    return fill


@dataclass
class Registered:
    """One resource registration the program made."""

    urn: str
    type: str
    name: str
    inputs: dict[str, Any]
    outputs: dict[str, Any]
    id: str
    parent: str
    custom: bool
    provider: str = ""
    dependencies: list[str] = field(default_factory=list)
    protect: bool = False
    ignore_changes: list[str] = field(default_factory=list)
    replace_on_changes: list[str] = field(default_factory=list)
    delete_before_replace: bool = False
    aliases: list[str] = field(default_factory=list)
    alias_specs: list[dict[str, str]] = field(default_factory=list)
    """The aliases sent as specs (``{"name": ..., "type": ...}``, what each one sets)."""

    @property
    def parent_type(self) -> str:
        """The type token of the parent (``pulumi:pulumi:Stack`` at the top level)."""
        if not self.parent:
            return ""
        return self.parent.split("::")[2].split("$")[-1]

    @property
    def parent_name(self) -> str:
        return self.parent.split("::")[-1] if self.parent else ""


@contextlib.contextmanager
def _validation_errors_surfaced() -> Iterator[None]:
    """Re-raise a DwsValidationError that Pulumi wrapped while serializing an input (a check
    on an Output value) as itself, so the run fails with the check's own message."""
    try:
        yield
    except Exception as exc:
        settle_failed_run(exc)  # now, not from finalizers at some later, bad time
        cause = _find_validation_error(exc)
        if cause is None or cause is exc:
            raise
        raise cause.with_traceback(None) from None


# How the SDK words the exceptions it wraps around one raised while serializing an input
# ("While processing input: ... ValueError has risen: <the original>").
_PULUMI_WRAPPER = "has risen: "


def _find_validation_error(exc: BaseException) -> DwsValidationError | None:
    """The DwsValidationError behind Pulumi's wrapping exceptions (cause/context graph,
    which can loop back onto itself).

    Only Pulumi's own wrappers are looked through: an exception the program raised itself
    (say while handling a DwsValidationError) is the program's error and stays as it is.
    """
    pending: list[BaseException] = [exc]
    seen: set[int] = set()
    while pending:
        current = pending.pop(0)
        if id(current) in seen:
            continue
        seen.add(id(current))
        if isinstance(current, DwsValidationError):
            return current
        if _PULUMI_WRAPPER not in str(current):
            continue
        pending.extend(e for e in (current.__cause__, current.__context__) if e is not None)
    return None


def _options(request: Any) -> dict[str, Any]:
    """The resource options of a RegisterResource request that tests care about."""
    if request is None:
        return {}
    return {
        "protect": bool(getattr(request, "protect", False)),
        "ignore_changes": list(getattr(request, "ignoreChanges", []) or []),
        "replace_on_changes": list(getattr(request, "replaceOnChanges", []) or []),
        "delete_before_replace": bool(getattr(request, "deleteBeforeReplace", False)),
        "aliases": [str(a) for a in (getattr(request, "aliasURNs", []) or [])],
        "alias_specs": [
            {key: str(getattr(a.spec, key)) for key in ("name", "type") if getattr(a.spec, key)}
            for a in (getattr(request, "aliases", []) or [])
            if a.HasField("spec")
        ],
    }


def short_hash(*parts: str, length: int = 7) -> str:
    """A short, stable hex digest of ``parts`` (auto-name suffixes, made-up ids)."""
    return hashlib.sha256("/".join(parts).encode()).hexdigest()[:length]


class _RecordingMonitor(_pmocks.MockMonitor):
    """The SDK's mock monitor, plus the parent/dependencies of each registration and the
    stack outputs (``pulumi.export``)."""

    def __init__(self, mocks: GcpMocks) -> None:
        super().__init__(mocks)
        self._gcp = mocks
        self.stack_outputs: dict[str, Any] = {}

    def RegisterResource(self, request: Any) -> Any:  # noqa: N802 (gRPC name)
        self._gcp._local.request = request
        try:
            response = super().RegisterResource(request)
        finally:
            self._gcp._local.request = None
        if request.type != "pulumi:pulumi:Stack":
            self._gcp._finish_registration(response.urn)
        return response

    def RegisterResourceOutputs(self, request: Any) -> Any:  # noqa: N802
        if request.urn.split("::")[2] == "pulumi:pulumi:Stack":
            from pulumi.runtime import rpc

            self.stack_outputs = rpc.deserialize_properties(request.outputs)
        return super().RegisterResourceOutputs(request)


async def _resolved(value: Any) -> Any:
    """``value`` with every Output in it resolved: an Output (whose value may hold Outputs
    again), and the items of dicts, lists and tuples; anything else as it is."""
    if isinstance(value, pulumi.Output):
        return await _resolved(await value.future())
    if isinstance(value, dict):
        return {key: await _resolved(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        items = [await _resolved(item) for item in value]
        return items if isinstance(value, list) else tuple(items)
    return value


class GcpMocks(pulumi.runtime.Mocks):
    """Stateful Google Cloud mocks for ``pulumi.runtime.set_mocks``.

    Args:
        project: the default project when resources give none (also ``gcp:project`` config).
        region: the default region answered by ``getClientConfig``.
        project_number: the number ``getProject`` returns.
        fills: behaviours that replace the built-in ones, by type token (see :data:`Fill`;
            :func:`builtin_fill` gives the one it replaces).
    """

    def __init__(
        self,
        project: str = "mock-project",
        region: str = "us-central1",
        project_number: str = MOCK_PROJECT_NUMBER,
        fills: Mapping[str, Fill] | None = None,
    ) -> None:
        self.project = project
        self.region = region
        self.project_number = project_number
        self.fills: dict[str, Fill] = dict(fills or {})
        # In the order the program's registrations (and invokes) reached the monitor: the
        # SDK sends them through the loop's default executor, which install() makes a single
        # thread, so that order is the same from one run to the next.
        self.registered: list[Registered] = []
        self.invokes: list[tuple[str, dict[str, Any]]] = []
        self.monitor: _RecordingMonitor | None = None
        self.preview = False
        self._local = threading.local()
        self._lock = threading.Lock()

    # ------------------------------------------------------------------ installing / running
    def install(
        self,
        *,
        project: str = "project",
        stack: str = "dev",
        preview: bool = False,
        config: Mapping[str, Any] | None = None,
        secret_keys: Iterable[str] = (),
    ) -> GcpMocks:
        """Make these mocks the Pulumi runtime's monitor, with stack ``config`` (``ns:key``).

        ``gcp:project`` defaults to the mocks' project, as if the provider were configured.
        """
        ensure_event_loop()
        # One worker: the SDK's RPCs (RegisterResource, Invoke...) reach the mocks one at a
        # time, in the order the program sent them, not in the order racing threads pick them.
        asyncio.get_event_loop_policy().get_event_loop().set_default_executor(
            ThreadPoolExecutor(max_workers=1, thread_name_prefix="gcp-mocks")
        )
        self.monitor = _RecordingMonitor(self)
        self.preview = preview
        _settings.SETTINGS.rpc_manager.clear()  # no failure leaks in from an earlier run
        _settings.SETTINGS.outputs.clear()
        _settings.ROOT.set(None)  # a fresh root Stack for every install
        pulumi.runtime.set_mocks(
            self, project=project, stack=stack, preview=preview, monitor=self.monitor
        )
        values = {
            key: value if isinstance(value, str) else json.dumps(value)
            for key, value in (config or {}).items()
        }
        values.setdefault("gcp:project", self.project)
        set_all_config(values, list(secret_keys))
        return self

    def run(self, program: Callable[[], Any], **install: Any) -> Any:
        """Install the mocks, run ``program`` and wait until every resource and Output settles.

        Returns what ``program`` returned with every Output in it resolved, however deep in
        dicts, lists and tuples (an Output not known, as in a preview, is None where it
        stands); re-raises the program's exception (or the first exception raised inside an
        ``apply``).
        """
        self.install(**install)
        result: dict[str, Any] = {}

        def body() -> None:
            result["value"] = _sync_await(_resolved(program()))

        with _validation_errors_surfaced():
            _sync_await(run_pulumi_func(body))
        return result.get("value")

    def run_program(self, program: Callable[[], Any], **install: Any) -> dict[str, Any]:
        """Like :meth:`run`, but inside a new root Stack (as ``pulumi up`` runs ``__main__``);
        returns the stack outputs the program exported."""
        self.install(**install)
        _settings.ROOT.set(None)  # run_in_stack registers its own root Stack
        with _validation_errors_surfaced():
            _sync_await(run_in_stack(program))
        return dict(self.monitor.stack_outputs) if self.monitor else {}

    def lifecycle(self, state: str) -> str:
        """A lifecycle state a fill reports (``ACTIVE``, ``RUNNING``, ``SUCCEEDED``):
        :data:`PLANNED` in a preview, where nothing has been made (``dws plan`` shows it so,
        not a state the mocks made up)."""
        return PLANNED if self.preview else state

    # ------------------------------------------------------------------ queries for tests
    def resources(
        self, type_: str | None = None, *, custom: bool | None = None
    ) -> list[Registered]:
        """Registrations, optionally of one type token and/or only custom (cloud) resources."""
        return [
            r
            for r in self.registered
            if (type_ is None or r.type == type_) and (custom is None or r.custom == custom)
        ]

    def one(self, type_: str, name: str | None = None) -> Registered:
        """The single registration of ``type_`` (and ``name``); fails loudly otherwise."""
        found = [r for r in self.resources(type_) if name is None or r.name == name]
        if len(found) != 1:
            names = [r.name for r in self.resources(type_)]
            raise AssertionError(f"expected one {type_} named {name!r}, found {names}")
        return found[0]

    def children(self, parent_urn: str) -> list[Registered]:
        """Registrations whose parent is ``parent_urn``."""
        return [r for r in self.registered if r.parent == parent_urn]

    def types(self) -> list[str]:
        """Type tokens in registration order, for quick assertions."""
        return [r.type for r in self.registered]

    # ------------------------------------------------------------------ pulumi.runtime.Mocks
    def new_resource(self, args: _pmocks.MockResourceArgs) -> tuple[str | None, dict[str, Any]]:
        request = getattr(self._local, "request", None)
        parent = request.parent if request is not None else ""
        deps = list(request.dependencies) if request is not None else []
        inputs = dict(args.inputs)
        if args.typ.startswith("pulumi:providers:"):
            rid, outputs = f"{args.name}-provider-id", dict(inputs)
        elif not args.custom and request is not None:
            rid, outputs = "", {}
        elif registry.is_dynamic(args.typ):
            rid, outputs = self._dynamic(args.typ, args.name, inputs)
        else:
            rid, outputs = self._fill(args.typ, args.name, inputs, args.resource_id or "")
        reg = Registered(
            urn="",
            type=args.typ,
            name=args.name,
            inputs=inputs,
            outputs=outputs,
            id=rid,
            parent=parent,
            custom=bool(args.custom),
            provider=args.provider or "",
            dependencies=deps,
            **_options(request),
        )
        # Only a registration is recorded (by RegisterResource, in this thread, once it has
        # its URN); a read (``Resource.get``) is a lookup of something that already exists.
        self._local.last = reg if request is not None else None
        return rid, outputs

    def _finish_registration(self, urn: str) -> None:
        reg: Registered | None = getattr(self._local, "last", None)
        self._local.last = None
        if reg is not None:
            reg.urn = urn
            with self._lock:
                self.registered.append(reg)

    # The SDK's annotation names only the ``(outputs, check failures)`` pair, but its mock monitor
    # takes a plain dict as well (``isinstance(tup, dict)`` in ``MockMonitor.Invoke``); the dict
    # is what subclasses of GcpMocks extend, so it stays.
    def call(self, args: _pmocks.MockCallArgs) -> dict[str, Any]:  # type: ignore[override]
        """An invoke's outputs (see :data:`_INVOKES`); an unknown function echoes its args."""
        self.invokes.append((args.token, dict(args.args)))
        handler = _INVOKES.get(args.token)
        return handler(self, dict(args.args)) if handler else dict(args.args)

    # ------------------------------------------------------------------ behaviour
    def _dynamic(self, typ: str, name: str, inputs: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        # The engine strips secret markers before it calls a dynamic provider (the Python host
        # does not accept secrets); the behaviours see plain values too.
        from .dynamic_host import unwrap_secrets

        props = {k: unwrap_secrets(v) for k, v in inputs.items() if k != "__provider"}
        short = typ.split(":")[-1]  # pulumi-python:dynamic/dws:X, or dws:dynamic:X as served
        behaviour = _DYNAMIC.get(short)
        if behaviour is not None:
            return behaviour(props, self, name)
        fill = self._fill_for(typ) or self._fill_for(f"{DYNAMIC_TYPE_PREFIX}dws:{short}")
        if fill is None:
            return f"{name}-{short_hash(typ, name)}", props
        return fill(self, typ, name, props), props

    def _fill_for(self, typ: str) -> Fill | None:
        return self.fills.get(typ) or builtin_fill(typ)

    def _fill(
        self, typ: str, name: str, inputs: dict[str, Any], given_id: str = ""
    ) -> tuple[str, dict[str, Any]]:
        """Outputs as the provider computes them. ``given_id`` (a ``get`` or an ``import``)
        is the id of an existing resource: it is kept, and names the resource. As Google's
        provider, it reads a secret input as its value; the output of a secret input stays
        secret."""
        from .dynamic_host import unwrap_secrets

        secret = {k for k, v in inputs.items() if _holds_secret(v)}
        # A copy: computed fields must not leak into the recorded inputs.
        state = {k: unwrap_secrets(copy.deepcopy(v)) for k, v in inputs.items()}
        if typ.startswith("gcp:"):
            state.setdefault("project", _segment(given_id, "projects") or self.project)
            for key, collection in (("zone", "zones"), ("region", "regions")):
                if _segment(given_id, collection):
                    state.setdefault(key, _segment(given_id, collection))
            entry = registry.resource_type(typ, by_name=False)
            autonamed = entry is None or entry.autonamed
            if autonamed and not state.get("name"):
                last = given_id.rstrip("/").split("/")[-1] if given_id else ""
                state["name"] = last or f"{name}-{short_hash(typ, name)}"
        fill = self._fill_for(typ)
        if fill is not None:
            rid = fill(self, typ, name, state)
        else:
            rid = state.get("name") or f"{name}-{short_hash(typ, name)}"
        for key in secret & set(state):
            state[key] = rpc.wrap_rpc_secret(state[key])
        return given_id or rid, state


# ---------------------------------------------------------------------- helpers for fills
def _holds_secret(value: Any) -> bool:
    if rpc.is_rpc_secret(value):
        return True
    if isinstance(value, Mapping):
        return any(_holds_secret(v) for v in value.values())
    if isinstance(value, list | tuple):
        return any(_holds_secret(v) for v in value)
    return False


def _segment(resource_id: str, collection: str) -> str:
    """``projects/p/zones/z/...`` -> ``p`` for ``projects`` ("" when absent)."""
    parts = resource_id.split("/")
    for i, part in enumerate(parts[:-1]):
        if part == collection:
            return parts[i + 1]
    return ""


def _compute(
    collection: str, scope: Callable[[GcpMocks, dict[str, Any]], str], base: str, created: bool
) -> Fill:
    """A Compute resource ``projects/P/<scope>/<collection>/NAME`` with its ``selfLink`` (and
    ``creationTimestamp`` when ``created``)."""

    def fill(m: GcpMocks, typ: str, name: str, s: dict[str, Any]) -> str:
        rid = f"projects/{s['project']}/{scope(m, s)}/{collection}/{s['name']}"
        s.setdefault("selfLink", base + rid)
        if created:
            s.setdefault("creationTimestamp", "2026-01-01T00:00:00.000-08:00")
        return rid

    return fill


def compute_zonal(collection: str, base: str = COMPUTE) -> Fill:
    """A zonal Compute resource: ``projects/P/zones/Z/<collection>/NAME``, ``selfLink``,
    ``creationTimestamp``."""
    return _compute(collection, lambda m, s: f"zones/{s.get('zone', m.region + '-a')}", base, True)


def compute_regional(collection: str, base: str = COMPUTE) -> Fill:
    """A regional Compute resource: ``projects/P/regions/R/<collection>/NAME``, ``selfLink``."""
    return _compute(collection, lambda m, s: f"regions/{s.get('region', m.region)}", base, False)


def compute_global(collection: str, base: str = COMPUTE) -> Fill:
    """A global Compute resource: ``projects/P/global/<collection>/NAME``, ``selfLink``."""
    return _compute(collection, lambda m, s: "global", base, False)


# ---------------------------------------------------------------------- invokes
Invoke = Callable[[GcpMocks, dict[str, Any]], dict[str, Any]]


def _get_project(m: GcpMocks, a: dict[str, Any]) -> dict[str, Any]:
    project = a.get("projectId") or m.project
    return {
        "id": f"projects/{project}",
        "projectId": project,
        "number": m.project_number,
        "name": project,
        "labels": {},
    }


def _get_client_config(m: GcpMocks, a: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": "mock-client-config",
        "project": m.project,
        "region": m.region,
        "zone": f"{m.region}-a",
        "accessToken": "mock-access-token",
    }


def _get_cluster(m: GcpMocks, a: dict[str, Any]) -> dict[str, Any]:
    project = a.get("project") or m.project
    location = a.get("location") or m.region
    return {
        "id": f"projects/{project}/locations/{location}/clusters/{a.get('name')}",
        "name": a.get("name"),
        "location": location,
        "project": project,
        "endpoint": "203.0.113.10",
        "masterAuths": [{"clusterCaCertificate": FAKE_CA}],
        "nodePools": [],
    }


def _get_zones(m: GcpMocks, a: dict[str, Any]) -> dict[str, Any]:
    region = a.get("region") or m.region
    return {"id": region, "names": [f"{region}-{z}" for z in "abcf"], "project": m.project}


_INVOKES: dict[str, Invoke] = {
    "gcp:organizations/getProject:getProject": _get_project,
    "gcp:organizations/getClientConfig:getClientConfig": _get_client_config,
    "gcp:container/getCluster:getCluster": _get_cluster,
    "gcp:compute/getZones:getZones": _get_zones,
}
