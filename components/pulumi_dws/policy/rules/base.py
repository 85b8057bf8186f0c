"""What a rule is: a named pure function with a default level and a config schema."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from jsonschema import Draft7Validator

from ...duration import Duration
from ...errors import DwsValidationError, show
from ..view import Context, Level, ResourceView, Violation

__all__ = ["DURATION_PATTERN", "Finding", "Option", "Rule", "Scope"]

Scope = Literal["resource", "stack", "plan"]

DURATION_PATTERN = r"^([0-9]+[wdhms])+$|^[0-9]+$"
"""JSON-schema pattern of a duration option (``3d``, ``1d12h``, ``86400``), checked by the
Pulumi CLI against ``--policy-pack-config`` and here, with the same schema."""


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
        """Check ``value`` against the option's JSON schema (as the Pulumi CLI checks a
        ``--policy-pack-config``); integral floats, as numbers come through protobuf, are
        whole numbers."""
        where = f"{rule}.{self.name}"
        if value is None:
            return None
        if isinstance(value, tuple):
            value = list(value)
        problem = next(iter(sorted(_validator(self.schema).iter_errors(value), key=_depth)), None)
        if problem is not None:
            at = where + "".join(f"[{part}]" for part in problem.path)
            if problem.validator == "minimum":
                raise DwsValidationError(
                    at, problem.instance, f"is below {problem.validator_value}"
                )
            if problem.validator == "pattern" and self.schema.get("pattern") == DURATION_PATTERN:
                Duration.parse(problem.instance, at)  # says what a duration looks like
                raise DwsValidationError(
                    at, problem.instance, "must be whole units such as 3d, 1d12h or 86400"
                )
            kind = problem.schema.get("type", self.schema.get("type"))
            raise DwsValidationError(at, show(problem.instance), f"must be of type {kind}")
        return _whole(value, self.schema)


def _validator(schema: Mapping[str, Any]) -> Draft7Validator:
    return Draft7Validator(dict(schema))


def _depth(error: Any) -> int:
    return len(error.path)


def _whole(value: Any, schema: Mapping[str, Any]) -> Any:
    """``value`` with the integral floats an ``integer`` schema accepts as ints."""
    kind = schema.get("type")
    if kind == "integer" and isinstance(value, float):
        return int(value)
    if kind == "object" and isinstance(value, Mapping):
        inner = schema.get("additionalProperties") or {}
        return {str(k): _whole(v, inner) for k, v in value.items()}
    if kind == "array":
        return list(value)
    return value


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
        note: a few words for the rule table of docs/policy.md (what it reads, what its options
            mean).
    """

    name: str
    description: str
    level: Level
    scope: Scope
    check: Check = field(repr=False)
    options: tuple[Option, ...] = ()
    remediation: str = ""
    note: str = ""

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
