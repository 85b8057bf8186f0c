"""The engine's wire form: URNs, secrets, unknowns, ``Struct`` marshalling and the
``__provider`` property, as the engine sends them to a dynamic-provider host."""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import copy
import json
import re
import weakref
from collections.abc import Coroutine, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, TypeVar

from google.protobuf import json_format, struct_pb2
from pulumi.dynamic import ResourceProvider
from pulumi.dynamic.dynamic import PROVIDER_KEY, serialize_provider
from pulumi.runtime import rpc
from pulumi.runtime._serialization import _serialize

__all__ = [
    "ignore_changes",
    "DEFAULT_PROJECT",
    "DEFAULT_STACK",
    "PROVIDER_KEY",
    "PYTHON_DYNAMIC_PACKAGE",
    "UNKNOWN",
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

_T = TypeVar("_T")


def secret(value: Any) -> dict[str, Any]:
    """Mark ``value`` as secret, in the engine's wire form.

    Returns ``{"4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270",
    "value": value}`` (``pulumi.runtime.rpc.wrap_rpc_secret``). Use it in inputs and in
    configuration passed to ``DynamicProviderHost``; secret outputs come back in this form.
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


def urn_name_and_type(urn_: str) -> tuple[str, str]:
    """The resource name and (unqualified) type in a URN."""
    parts = urn_.split("::")
    if len(parts) < 4 or not parts[0].startswith("urn:pulumi:"):
        raise ValueError(f"not a Pulumi URN: {urn_!r}")
    name = "::".join(parts[3:])
    type_ = parts[2].rsplit("$", 1)[-1]
    return name, type_


def _contains_secrets(value: Any) -> bool:
    if rpc.is_rpc_secret(value):
        return True
    if isinstance(value, Mapping):
        return any(_contains_secrets(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return any(_contains_secrets(v) for v in value)
    return False


def contains_unknowns(value: Any) -> bool:
    """Whether ``value`` holds :data:`UNKNOWN` at any depth."""
    if isinstance(value, str):
        return value == UNKNOWN
    if isinstance(value, Mapping):
        return any(contains_unknowns(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return any(contains_unknowns(v) for v in value)
    return False


def drop_unknowns(value: Any) -> Any:
    """``KeepUnknowns: false``: the engine leaves unknown properties out of the message."""
    if isinstance(value, dict):
        return {k: drop_unknowns(v) for k, v in value.items() if v != UNKNOWN}
    if isinstance(value, list):
        return [drop_unknowns(v) for v in value]
    return value


def _is_object(value: Any) -> bool:
    return isinstance(value, dict) and rpc._special_sig_key not in value


def annotate_secrets(outs: dict[str, Any], ins: Mapping[str, Any]) -> None:
    """The engine's ``annotateSecrets``: copy secretness from inputs to same-named outputs.

    Objects present on both sides are walked recursively; otherwise an output becomes secret when
    its input counterpart contains any secret (so a whole list becomes secret).
    """
    for key, in_value in ins.items():
        if key not in outs:
            continue
        out_value = outs[key]
        if _is_object(out_value) and _is_object(in_value):
            annotate_secrets(out_value, in_value)
        elif not rpc.is_rpc_secret(out_value) and _contains_secrets(in_value):
            outs[key] = rpc.wrap_rpc_secret(out_value)


def without_provider(props: Mapping[str, Any]) -> dict[str, Any]:
    """``props`` without the ``__provider`` property."""
    return {k: v for k, v in props.items() if k != PROVIDER_KEY}


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


def to_struct(props: Mapping[str, Any]) -> struct_pb2.Struct:
    """Serialize a property bag with the SDK's own ``rpc.serialize_properties``."""
    return _run(rpc.serialize_properties(dict(props), {}))


def from_struct(struct: struct_pb2.Struct) -> dict[str, Any]:
    """The engine's view of a response ``Struct`` (wire form, ``__provider`` removed)."""
    result: dict[str, Any] = json_format.MessageToDict(struct)
    result.pop(PROVIDER_KEY, None)
    return result


@dataclass(frozen=True)
class ProviderProperty:
    """The ``__provider`` property: the pickled provider, and whether it is sent as a secret."""

    value: str
    secret: bool


_SERIALIZED: weakref.WeakKeyDictionary[Any, tuple[Any, ProviderProperty]] = (
    weakref.WeakKeyDictionary()
)


def serialize_provider_property(provider: ResourceProvider) -> ProviderProperty:
    """Serialize ``provider`` exactly as ``pulumi.dynamic.Resource.__init__`` does, once per
    provider object and state of its attributes (as a program serializes a provider once per
    ``Resource``). Once is also all the SDK's ``serialize_provider`` stands in one process: each
    call wraps ``pickle._Pickler._batch_setitems`` in one more sorting layer that its
    ``finally`` never removes (it restores ``pickle.Pickler`` only; pulumi/pulumi
    ``sdk/python/lib/pulumi/dynamic/dynamic.py`` at 1b5949891b3c), so about a thousand calls
    exceed Python's recursion limit."""
    if not isinstance(provider, ResourceProvider):
        raise TypeError(
            f"expected a pulumi.dynamic.ResourceProvider instance, got {type(provider).__name__}"
        )
    snapshot = dict(vars(provider))
    try:
        kept = _SERIALIZED.get(provider)
    except TypeError:  # an object that can't be weakly referenced: not cached
        kept = None
    if kept is not None and kept[0] == snapshot:
        return kept[1]
    value, contains_secrets = _serialize(True, serialize_provider, provider)
    always = bool(getattr(provider, "serialize_as_secret_always", True))
    made = ProviderProperty(value=value, secret=always or contains_secrets)
    with contextlib.suppress(TypeError):
        _SERIALIZED[provider] = (snapshot, made)
    return made


def serialized_provider_size(provider: ResourceProvider) -> int:
    """Size in bytes of the ``__provider`` property ``pulumi.dynamic.Resource`` would send.

    This is the base64 text of the dill pickle, which travels with every resource call and is
    stored in the stack state for every resource of the provider.
    """
    return len(serialize_provider_property(provider).value.encode("utf-8"))


def config_string(value: Any) -> str:
    """A config value as the engine sends it: strings as they are, anything else as JSON."""
    return value if isinstance(value, str) else json.dumps(value)


def check_config(config: Mapping[str, Any]) -> dict[str, Any]:
    """``config`` as a dict, once every key is namespaced (as stack configuration keys are)."""
    for key in config:
        namespace, sep, name = key.partition(":")
        if not (sep and namespace and name):
            raise ValueError(
                f"config key {key!r} must be namespaced, e.g. 'dws:computeEndpoint' or "
                "'<project>:key' (stack configuration keys always are)"
            )
    return dict(config)


_PATH_PART = re.compile(r"([^.\[\]]+)|\[(\d+)\]")


def _path(text: str) -> list[str | int]:
    return [name if name else int(index) for name, index in _PATH_PART.findall(text)]


def ignore_changes(
    inputs: Mapping[str, Any], old_inputs: Mapping[str, Any], paths: Sequence[str]
) -> dict[str, Any]:
    """What the engine sends a provider for a resource already in the state that has
    ``ignore_changes``: ``inputs`` with the value at each path (``name``, ``body.name``,
    ``body.tpu.nodeSpec[0].nodeId``) put back to the one in ``old_inputs``
    (``pkg/resource/deploy/step_generator.go``, ``processIgnoreChanges``, pulumi/pulumi at
    1b5949891b3cefcb9974752b24a5ecef0acc86c8); a path the old inputs lack keeps the new value,
    as there."""
    result = copy.deepcopy(dict(inputs))
    for text in paths:
        parts = _path(text)
        old: Any = old_inputs
        for part in parts:
            try:
                old = old[part]
            except (KeyError, IndexError, TypeError):
                break
        else:
            target: Any = result
            try:
                for part in parts[:-1]:
                    target = target[part]
                target[parts[-1]] = copy.deepcopy(old)
            except (KeyError, IndexError, TypeError):
                continue
    return result
