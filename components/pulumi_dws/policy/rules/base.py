"""What a rule is: a named pure function with a default level and a config schema."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from ...duration import Duration
from ...errors import DwsValidationError, show
from ..view import Context, Level, ResourceView, Violation

__all__ = ["DURATION_PATTERN", "Finding", "Option", "Rule", "Scope"]

Scope = Literal["resource", "stack", "plan"]

DURATION_PATTERN = r"^([0-9]+[wdhms])+$|^[0-9]+$"
"""JSON-schema pattern of a duration option (``3d``, ``1d12h``, ``86400``), checked by the
Pulumi CLI against ``--policy-pack-config`` and here with :class:`~pulumi_dws.duration.Duration`."""


@dataclass(frozen=True)
class Finding:
    """What a check reports: a message about one resource (``view``) or the whole stack."""

    message: str
    view: ResourceView | None = None


@dataclass(frozen=True)
class Option:
    """One config property of a rule: its JSON schema (``type``, ``description``, ...) and
    its default (``None``: not set)."""

    name: str
    schema: Mapping[str, Any]
    default: Any = None

    @classmethod
    def strings(cls, name: str, description: str, default: Sequence[str] = ()) -> Option:
        """An option holding a list of strings (names, globs, label keys)."""
        schema = {"type": "array", "items": {"type": "string"}, "description": description}
        return cls(name, schema, list(default))

    def json_schema(self) -> dict[str, Any]:
        out = dict(self.schema)
        if self.default is not None:
            out["default"] = self.default
        return out

    def coerce(self, rule: str, value: Any) -> Any:
        """Check ``value`` against the schema (numbers from protobuf come as floats)."""
        where = f"{rule}.{self.name}"
        kind = self.schema.get("type")
        if value is None:
            return None
        if kind == "boolean" and isinstance(value, bool):
            return value
        if kind in ("integer", "number") and not isinstance(value, bool):
            if isinstance(value, float) and value.is_integer() and kind == "integer":
                value = int(value)
            if isinstance(value, int) or (kind == "number" and isinstance(value, float)):
                if value < self.schema.get("minimum", value):
                    raise DwsValidationError(where, value, f"is below {self.schema['minimum']}")
                return value
        if kind == "string" and isinstance(value, str):
            if self.schema.get("pattern") == DURATION_PATTERN:
                Duration.parse(value, where)
            return value
        if (
            kind == "array"
            and isinstance(value, (list, tuple))
            and all(isinstance(v, str) for v in value)
        ):
            return list(value)
        if kind == "object" and isinstance(value, Mapping):
            return {
                str(k): Option(
                    f"{self.name}[{k}]", self.schema.get("additionalProperties", {})
                ).coerce(rule, v)
                for k, v in value.items()
            }
        raise DwsValidationError(where, show(value), f"must be of type {kind}")


Check = Callable[..., Iterable[Finding]]


@dataclass(frozen=True)
class Rule:
    """A policy rule.

    Attributes:
        name: stable kebab-case name (the policy name in the pack and in config files).
        description: one line, shown with each violation.
        level: default enforcement level, ``mandatory`` or ``advisory``.
        scope: ``resource`` (``check(view, config, context)``), ``stack``
            (``check(views, config, context)``) or ``plan`` (like stack, needs
            ``context.operations``; not part of the policy pack).
        check: the pure function; yields :class:`Finding`.
        options: config properties with defaults.
        remediation: what to do about a violation.
    """

    name: str
    description: str
    level: Level
    scope: Scope
    check: Check = field(repr=False)
    options: tuple[Option, ...] = ()
    remediation: str = ""

    def config_schema(self) -> dict[str, dict[str, Any]]:
        """JSON schema properties of this rule's config (for ``PolicyConfigSchema``)."""
        return {option.name: option.json_schema() for option in self.options}

    def resolve(self, given: Mapping[str, Any] | None) -> dict[str, Any]:
        """Defaults overlaid with ``given`` (``enforcementLevel`` ignored), type-checked."""
        known = {option.name: option for option in self.options}
        out = {name: option.default for name, option in known.items()}
        for key, value in (given or {}).items():
            if key == "enforcementLevel":
                continue
            if key not in known:
                allowed = ", ".join(known) or "no options"
                raise DwsValidationError(
                    f"policy config {self.name}", key, f"is not an option; use {allowed}"
                )
            out[key] = known[key].coerce(self.name, value)
        return out

    def __call__(
        self,
        subject: ResourceView | Sequence[ResourceView],
        config: Mapping[str, Any] | None = None,
        context: Context | None = None,
        level: Level | None = None,
    ) -> list[Violation]:
        """Run the rule: ``subject`` is a view (resource rules) or all views (stack/plan rules).

        ``config`` is this rule's config (defaults filled in); ``level`` overrides the default.
        """
        cfg = self.resolve(config)
        if self.scope == "resource":
            assert isinstance(subject, ResourceView)
            ctx = context or Context()
            findings = self.check(subject, cfg, ctx)
            default_view: ResourceView | None = subject
        else:
            views = list(subject) if not isinstance(subject, ResourceView) else [subject]
            ctx = context or Context(stack=views)
            findings = self.check(views, cfg, ctx)
            default_view = None
        out = []
        for finding in findings:
            view = finding.view or default_view
            out.append(
                Violation(
                    rule=self.name,
                    urn=view.urn if view else "",
                    name=view.name if view else "",
                    message=finding.message,
                    level=level or self.level,
                    resource_type=view.type if view else "",
                )
            )
        return out
