"""Run policies without the Pulumi CLI, exactly as the pulumi-policy runtime would.

Two levels, both usable for your own policies:

* :func:`validate_resource` / :func:`validate_stack` build real
  ``pulumi_policy.ResourceValidationArgs`` / ``StackValidationArgs``: props go through the
  engine's wire form (a protobuf ``Struct``: numbers become floats, unknowns become the
  engine's sentinel strings, secrets the secret signature), are deserialized by
  ``pulumi_policy.deserialize`` and wrapped in its unknown-checking proxy; config goes
  through the same ``Struct`` round trip; ``report_violation`` composes the message like the
  runtime (description, newline, message); an ``UnknownValueError`` becomes the runtime's
  advisory "can't run policy ... during preview" diagnostic.
* :class:`Analyzer` drives the runtime's own gRPC servicer (or a stub connected to a running
  pack, see ``tests/test_policy_pack.py``) with the requests the engine sends: ``Configure``,
  ``Analyze``, ``AnalyzeStack``, ``GetAnalyzerInfo``.

Example::

    from pulumi_dws.testing.policy import UNKNOWN, find_policy, validate_resource

    found = validate_resource(
        find_policy("flex-start-max-run-duration"),
        "gcp:compute/instance:Instance",
        {"machineType": "a3-highgpu-8g",
         "scheduling": {"provisioningModel": "FLEX_START", "maxRunDuration": UNKNOWN}},
    )
    assert found == []
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from google.protobuf import empty_pb2, json_format, struct_pb2
from pulumi.runtime import proto
from pulumi_policy import (
    EnforcementLevel,
    Policy,
    PolicyCustomTimeouts,
    PolicyResource,
    PolicyResourceOptions,
    ResourceValidationArgs,
    ResourceValidationPolicy,
    Secret,
    StackValidationArgs,
    StackValidationPolicy,
)
from pulumi_policy.deserialize import deserialize_properties
from pulumi_policy.proxy import UnknownValueError, unknown_checking_proxy

from ..policy.values import UNKNOWN as _UNKNOWN
from ..policy.values import Unknown
from ..policy.view import ResourceView

__all__ = [
    "UNKNOWN",
    "UNKNOWN_BOOL",
    "UNKNOWN_NUMBER",
    "UNKNOWN_ARRAY",
    "UNKNOWN_OBJECT",
    "Reported",
    "Analyzer",
    "make_urn",
    "wire_props",
    "resource_args",
    "stack_args",
    "validate_resource",
    "validate_stack",
    "find_policy",
    "dws_policies",
]

# The engine's sentinels (plugin.Unknown*Value), as pulumi_policy.proxy knows them.
UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9"  # a string value not known during preview
UNKNOWN_BOOL = "1c4a061d-8072-4f0a-a4cb-0ff528b18fe7"
UNKNOWN_NUMBER = "3eeb2bf0-c639-47a8-9e75-3b44932eb421"
UNKNOWN_ARRAY = "6a19a0b0-7e62-4c92-b797-7f8e31da9cc2"
UNKNOWN_OBJECT = "dd056dcd-154b-4c76-9bd3-c8f88648b5ff"

_SIG_KEY = "4dabf18193072939515e22adb298388d"
_SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270"
_LEVELS = {
    "advisory": EnforcementLevel.ADVISORY,
    "mandatory": EnforcementLevel.MANDATORY,
    "remediate": EnforcementLevel.REMEDIATE,
    "disabled": EnforcementLevel.DISABLED,
}
_PROTO_LEVELS = {
    EnforcementLevel.ADVISORY: proto.ADVISORY,
    EnforcementLevel.MANDATORY: proto.MANDATORY,
    EnforcementLevel.REMEDIATE: proto.REMEDIATE,
    EnforcementLevel.DISABLED: proto.DISABLED,
}


@dataclass(frozen=True)
class Reported:
    """One diagnostic as the runtime would send it to the engine.

    ``message`` is the full text Pulumi prints (policy description, newline, detail);
    ``detail`` what the policy passed to ``report_violation``; ``preview_unknown`` marks the
    runtime's own advisory for a policy that tripped over an unknown value.
    """

    policy: str
    message: str
    detail: str
    urn: str
    level: str
    preview_unknown: bool = False


def make_urn(
    resource_type: str,
    name: str,
    *,
    stack: str = "dev",
    project: str = "project",
    parent_type: str | None = None,
) -> str:
    """A URN the way the engine spells it."""
    qualified = f"{parent_type}${resource_type}" if parent_type else resource_type
    return f"urn:pulumi:{stack}::{project}::{qualified}::{name}"


def _encode(value: Any) -> Any:
    if isinstance(value, Unknown):
        return UNKNOWN
    if isinstance(value, Secret):
        return {_SIG_KEY: _SECRET_SIG, "value": _encode(value.value)}
    if isinstance(value, Mapping):
        return {str(k): _encode(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_encode(v) for v in value]
    return value


def _struct(value: Mapping[str, Any] | None) -> struct_pb2.Struct:
    struct = struct_pb2.Struct()
    struct.update(_encode(dict(value or {})))
    return struct


def wire_props(props: Mapping[str, Any]) -> dict[str, Any]:
    """``props`` after the engine -> policy-pack trip, before the unknown-checking proxy."""
    return deserialize_properties(json_format.MessageToDict(_struct(props)))


def _wire_config(config: Mapping[str, Any] | None) -> dict[str, Any] | None:
    if not config:
        return None
    props = {k: v for k, v in config.items() if k != "enforcementLevel"}
    out = json_format.MessageToDict(_struct(props))
    return out or None


def _options(parent: str | None = None) -> PolicyResourceOptions:
    return PolicyResourceOptions(
        False, [], None, [], PolicyCustomTimeouts(0, 0, 0), [], parent or None
    )


def resource_args(
    resource_type: str,
    props: Mapping[str, Any],
    *,
    name: str = "test",
    urn: str | None = None,
    config: Mapping[str, Any] | None = None,
    parent: str | None = None,
    stack_tags: Mapping[str, str] | None = None,
) -> ResourceValidationArgs:
    """Real ``ResourceValidationArgs`` for ``props`` (camelCase, as the provider receives them;
    put :data:`UNKNOWN` (or ``pulumi_dws.policy.UNKNOWN``) where a value is unknown)."""
    return ResourceValidationArgs(
        resource_type,
        unknown_checking_proxy(wire_props(props)),
        urn or make_urn(resource_type, name),
        name,
        _options(parent),
        None,
        _wire_config(config),
        stack_tags or {},
    )


def _as_triple(resource: Any) -> tuple[str, str, Mapping[str, Any], str, str | None]:
    if isinstance(resource, ResourceView):
        return resource.type, resource.name, resource.props, resource.urn, resource.parent or None
    if isinstance(resource, Mapping):
        rtype, name = resource["type"], resource.get("name", "test")
        return (
            rtype,
            name,
            resource.get("props", {}),
            resource.get("urn", ""),
            resource.get("parent"),
        )
    rtype, name, props = resource
    return rtype, name, props, "", None


def stack_args(
    resources: Iterable[Any],
    *,
    config: Mapping[str, Any] | None = None,
    stack_tags: Mapping[str, str] | None = None,
) -> StackValidationArgs:
    """Real ``StackValidationArgs``: ``resources`` are ``(type, name, props)`` tuples,
    ``{"type", "name", "props", "urn"?, "parent"?}`` dicts or :class:`ResourceView` objects."""
    built: list[tuple[PolicyResource, str | None]] = []
    for resource in resources:
        rtype, name, props, urn, parent = _as_triple(resource)
        urn = urn or make_urn(rtype, name)
        policy_resource = PolicyResource(
            rtype,
            unknown_checking_proxy(wire_props(_encode_view_props(props))),
            urn,
            name,
            _options(parent),
            None,
            None,
            [],
            {},
        )
        built.append((policy_resource, parent))
    by_urn = {r.urn: r for r, _ in built}
    for policy_resource, parent in built:
        if parent and parent in by_urn:
            policy_resource.parent = by_urn[parent]
    return StackValidationArgs([r for r, _ in built], _wire_config(config), stack_tags or {})


def _encode_view_props(props: Mapping[str, Any]) -> Mapping[str, Any]:
    return {k: (UNKNOWN if v is _UNKNOWN else v) for k, v in props.items()}


def _run(result: Any) -> None:
    if inspect.isawaitable(result):
        loop = asyncio.new_event_loop()
        try:
            loop.run_until_complete(result)
        finally:
            loop.close()


def _level(policy: Policy, level: str | None) -> EnforcementLevel:
    if level is not None:
        return _LEVELS[level]
    return policy.enforcement_level or EnforcementLevel.ADVISORY


def _invoke(policy: Policy, args: Any, level: str | None) -> list[Reported]:
    enforcement = _level(policy, level)
    if enforcement == EnforcementLevel.DISABLED:
        return []
    if enforcement == EnforcementLevel.REMEDIATE:
        enforcement = EnforcementLevel.MANDATORY
    found: list[Reported] = []

    def report_violation(message: str, urn: str | None = None) -> None:
        if message and not isinstance(message, str):
            raise TypeError("Expected message to be a string")
        if urn is not None and not isinstance(urn, str):
            raise TypeError("Expected urn to be a string")
        text = policy.description + (f"\n{message}" if message else "")
        found.append(Reported(policy.name, text, message or "", urn or "", enforcement.value))

    try:
        _run(policy.validate(args, report_violation))  # type: ignore[attr-defined]
    except UnknownValueError as err:
        found.append(
            Reported(
                policy.name,
                f"can't run policy '{policy.name}' during preview: {err.message}",
                err.message,
                "",
                EnforcementLevel.ADVISORY.value,
                preview_unknown=True,
            )
        )
    return found


def validate_resource(
    policy: Policy,
    resource_type: str,
    props: Mapping[str, Any],
    *,
    name: str = "test",
    urn: str | None = None,
    config: Mapping[str, Any] | None = None,
    level: str | None = None,
    parent: str | None = None,
) -> list[Reported]:
    """Run a ``ResourceValidationPolicy`` on one resource the way ``Analyze`` does.

    ``config`` is the policy's entry of a ``--policy-pack-config`` file; ``level`` an
    enforcement level override (as the config's ``enforcementLevel`` would set).
    """
    if not isinstance(policy, ResourceValidationPolicy):
        raise TypeError(f"{policy.name} is not a ResourceValidationPolicy")
    if level is None and config and "enforcementLevel" in config:
        level = str(config["enforcementLevel"])
    args = resource_args(resource_type, props, name=name, urn=urn, config=config, parent=parent)
    return _invoke(policy, args, level)


def validate_stack(
    policy: Policy,
    resources: Iterable[Any],
    *,
    config: Mapping[str, Any] | None = None,
    level: str | None = None,
) -> list[Reported]:
    """Run a ``StackValidationPolicy`` on ``resources`` the way ``AnalyzeStack`` does."""
    if not isinstance(policy, StackValidationPolicy):
        raise TypeError(f"{policy.name} is not a StackValidationPolicy")
    if level is None and config and "enforcementLevel" in config:
        level = str(config["enforcementLevel"])
    return _invoke(policy, stack_args(resources, config=config), level)


def dws_policies() -> list[Policy]:
    """The policies of this library's pack (``pulumi_dws.policy.pack.policies()``)."""
    from ..policy.pack import policies

    return policies()


def find_policy(name: str, policies: Sequence[Policy] | None = None) -> Policy:
    """The policy called ``name`` (from this library's pack by default)."""
    for policy in policies if policies is not None else dws_policies():
        if policy.name == name:
            return policy
    raise KeyError(name)


class Analyzer:
    """The engine's side of the analyzer protocol, against the runtime's servicer.

    ``Analyzer.in_process(policies)`` uses ``pulumi_policy``'s own servicer (what
    ``PolicyPack`` serves over gRPC); ``Analyzer(stub)`` talks to a running pack through
    ``proto.AnalyzerStub``. Methods send the engine's requests and return plain data.
    """

    def __init__(self, target: Any, in_process: bool = False) -> None:
        self._target = target
        self._in_process = in_process

    @classmethod
    def in_process(cls, policies: list[Policy], name: str = "dws-policies") -> Analyzer:
        from pulumi_policy.policy import _PolicyAnalyzerServicer

        servicer = _PolicyAnalyzerServicer(name, "0.0.1", policies, EnforcementLevel.ADVISORY)
        return cls(servicer, in_process=True)

    def _call(self, method: str, request: Any) -> Any:
        fn = getattr(self._target, method)
        return fn(request, None) if self._in_process else fn(request)

    def info(self) -> dict[str, Any]:
        """``GetAnalyzerInfo`` as a dict (policy names, levels, config schemas)."""
        return json_format.MessageToDict(self._call("GetAnalyzerInfo", empty_pb2.Empty()))

    def configure(self, config: Mapping[str, Any]) -> None:
        """``Configure`` from a ``--policy-pack-config`` object (``all`` expanded per policy,
        as the engine does)."""
        policies = self.info().get("policies", [])
        defaults = {p["name"]: p.get("enforcementLevel", "ADVISORY") for p in policies}
        entries: dict[str, Any] = {}
        for name, default in defaults.items():
            entry = config.get(name)
            level = config.get("all")
            props: Mapping[str, Any] = {}
            if isinstance(entry, str):
                level = entry
            elif isinstance(entry, Mapping):
                level = entry.get("enforcementLevel", level)
                props = {k: v for k, v in entry.items() if k != "enforcementLevel"}
            if level is None and not props:
                continue
            enum = (
                proto.EnforcementLevel.Value(default)
                if level is None
                else _PROTO_LEVELS[_LEVELS[str(level)]]
            )
            entries[name] = proto.PolicyConfig(enforcementLevel=enum, properties=_struct(props))
        self._call("Configure", proto.ConfigureAnalyzerRequest(policyConfig=entries))

    def analyze(
        self,
        resource_type: str,
        props: Mapping[str, Any],
        *,
        name: str = "test",
        urn: str | None = None,
        parent: str = "",
    ) -> list[dict[str, Any]]:
        """``Analyze`` one resource; returns the diagnostics as dicts."""
        request = proto.AnalyzeRequest(
            type=resource_type,
            properties=_struct(props),
            urn=urn or make_urn(resource_type, name),
            name=name,
            options=proto.AnalyzerResourceOptions(parent=parent),
        )
        return _diagnostics(self._call("Analyze", request))

    def analyze_stack(self, resources: Iterable[Any]) -> list[dict[str, Any]]:
        """``AnalyzeStack`` over ``(type, name, props)`` tuples, dicts or views."""
        items = []
        for resource in resources:
            rtype, name, props, urn, parent = _as_triple(resource)
            items.append(
                proto.AnalyzerResource(
                    type=rtype,
                    properties=_struct(_encode_view_props(props)),
                    urn=urn or make_urn(rtype, name),
                    name=name,
                    options=proto.AnalyzerResourceOptions(parent=parent or ""),
                    parent=parent or "",
                )
            )
        return _diagnostics(self._call("AnalyzeStack", proto.AnalyzeStackRequest(resources=items)))


def _diagnostics(response: Any) -> list[dict[str, Any]]:
    """An ``AnalyzeResponse``'s diagnostics: policy, level (lowercase), urn, message."""
    return [
        {
            "policy": d.policyName,
            "pack": d.policyPackName,
            "level": proto.EnforcementLevel.Name(d.enforcementLevel).lower(),
            "urn": d.urn,
            "description": d.description,
            "message": d.message,
        }
        for d in response.diagnostics
    ]
