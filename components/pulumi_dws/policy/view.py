"""The neutral views rules work on: a resource, a violation, and the context of a run."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from .values import normalize

__all__ = [
    "Level",
    "LEVELS",
    "ResourceView",
    "Violation",
    "Context",
    "type_of_urn",
    "name_of_urn",
    "normalize_operation",
]

Level = Literal["mandatory", "advisory"]
LEVELS: tuple[str, ...] = ("mandatory", "advisory", "disabled")

# What a plan may say will happen to a resource, as Pulumi's preview names it.
_OPERATIONS = {
    "create": "create",
    "update": "update",
    "same": "same",
    "read": "read",
    "import": "create",
    "delete": "delete",
    "replace": "replace",
    "create-replacement": "replace",
    "delete-replaced": "replace",
    "create-before-replace": "replace",
    "delete-before-replace": "replace",
    "discard": "delete",
    "discard-replaced": "replace",
}


def type_of_urn(urn: str) -> str:
    """``urn:pulumi:dev::proj::parent$gcp:compute/instance:Instance::vm`` -> the type token."""
    parts = urn.split("::")
    return parts[2].split("$")[-1] if len(parts) >= 4 else ""


def name_of_urn(urn: str) -> str:
    """The logical name at the end of a URN."""
    parts = urn.split("::")
    return parts[-1] if len(parts) >= 4 else ""


def normalize_operation(op: Any) -> str:
    """One of create, update, replace, delete, same, read (unknown spellings kept lowercased)."""
    if isinstance(op, Mapping):
        op = op.get("op") or op.get("operation") or ""
    if isinstance(op, (list, tuple)):
        found = [normalize_operation(o) for o in op]
        for strongest in ("delete", "replace", "update", "create"):
            if strongest in found:
                return strongest
        return found[0] if found else ""
    text = str(op).strip().lower().replace("_", "-")
    return _OPERATIONS.get(text, text)


@dataclass(frozen=True)
class ResourceView:
    """One resource as rules see it, whatever ran the program.

    Attributes:
        type: the type token (``gcp:compute/instance:Instance``,
            ``pulumi-python:dynamic/dws:FlexStartVm``).
        name: the logical name.
        urn: the URN (may be empty in hand-built views).
        props: the properties as the provider receives them (camelCase for pulumi-gcp; a
            dynamic resource's own keys). Normalized on construction: plain dicts and lists,
            every unknown value as :data:`~pulumi_dws.policy.values.UNKNOWN`.
        parent_type: the parent's type token (``dws:index:QueuedNodePool``), if known.
        parent: the parent's URN, if known: resources of one component share it (a resize
            request finds its group's template so).
    """

    type: str
    name: str
    urn: str = ""
    props: Mapping[str, Any] = field(default_factory=dict)
    parent_type: str | None = None
    parent: str = ""

    def __post_init__(self) -> None:
        props = normalize(self.props)
        object.__setattr__(self, "props", props if isinstance(props, dict) else {})

    @property
    def label(self) -> str:
        """How messages name the resource: ``gcp:compute/instance:Instance "vm"``."""
        return f'{self.type} "{self.name}"'

    @classmethod
    def from_registered(cls, reg: Any) -> ResourceView:
        """From a :class:`pulumi_dws.testing.Registered` (or anything with ``type``, ``name``,
        ``urn``, ``inputs`` and ``parent_type``), e.g. every registration under ``GcpMocks``."""
        inputs = {k: v for k, v in dict(reg.inputs or {}).items() if k != "__provider"}
        parent = getattr(reg, "parent_type", None) or None
        urn = getattr(reg, "urn", "") or ""
        return cls(reg.type, reg.name, urn, inputs, parent, getattr(reg, "parent", "") or "")

    @classmethod
    def from_policy_args(cls, args: Any) -> ResourceView:
        """From ``pulumi_policy.ResourceValidationArgs`` (props still behind the runtime's
        unknown-checking proxy: unwrapped here without tripping it)."""
        parent = getattr(getattr(args, "opts", None), "parent", None)
        return cls(
            args.resource_type,
            args.name,
            args.urn,
            args.props,
            type_of_urn(parent) if parent else None,
            parent or "",
        )

    @classmethod
    def from_policy_resource(cls, resource: Any) -> ResourceView:
        """From a ``pulumi_policy.PolicyResource`` of ``StackValidationArgs.resources``."""
        parent = getattr(resource, "parent", None)
        parent_type = getattr(parent, "resource_type", None)
        urn = getattr(getattr(resource, "opts", None), "parent", None) or getattr(
            parent, "urn", None
        )
        if parent_type is None:
            parent_type = type_of_urn(urn) if urn else None
        return cls(
            resource.resource_type,
            resource.name,
            resource.urn,
            resource.props,
            parent_type,
            urn or "",
        )

    @classmethod
    def coerce(cls, value: Any) -> ResourceView:
        """A view from a view, a ``Registered``, or a policy resource."""
        if isinstance(value, ResourceView):
            return value
        if hasattr(value, "inputs"):
            return cls.from_registered(value)
        if hasattr(value, "resource_type"):
            return cls.from_policy_resource(value)
        raise TypeError(f"can't make a ResourceView from {type(value).__name__}")


@dataclass(frozen=True)
class Violation:
    """One finding of one rule.

    ``urn`` and ``name`` are empty for a finding about the whole stack (the GPU budget).
    ``level`` is the level in force for the run (the rule's default unless configured).
    """

    rule: str
    urn: str
    name: str
    message: str
    level: Level
    resource_type: str = ""

    @property
    def resource(self) -> str:
        """The resource it is about: its URN, else its name, else ``stack``."""
        return self.urn or self.name or "stack"

    def to_dict(self) -> dict[str, str]:
        """JSON-ready form (for ``dws plan --format json``)."""
        return {
            "rule": self.rule,
            "level": self.level,
            "urn": self.urn,
            "name": self.name,
            "type": self.resource_type,
            "message": self.message,
        }


@dataclass(frozen=True)
class Context:
    """What a rule may know beyond one resource.

    Attributes:
        stack: every resource of the stack (empty when a policy pack validates one resource).
        operations: planned operation per URN (or name), when a plan supplies them:
            create, update, replace, delete, same. ``None`` when not known (policy pack).
    """

    stack: Sequence[ResourceView] = ()
    operations: Mapping[str, str] | None = None

    def operation_for(self, view: ResourceView) -> str | None:
        """The planned operation on ``view``, or None when the plan doesn't say."""
        if self.operations is None:
            return None
        for key in (view.urn, view.name):
            if key and key in self.operations:
                return normalize_operation(self.operations[key])
        return None
