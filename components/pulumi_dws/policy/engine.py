"""Run every rule over a set of resources, with a Pulumi-style policy config."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from .. import limits
from ..errors import DwsValidationError
from .rules import Rule, all_rules
from .view import LEVELS, Context, Level, ResourceView, Violation

__all__ = ["evaluate", "level_for", "rule_config", "check_config", "load_config", "stack_limits"]


def _entry(config: Mapping[str, Any] | None, name: str) -> Any:
    return (config or {}).get(name)


def _level(value: Any, where: str) -> str:
    if not isinstance(value, str) or value.lower() not in (*LEVELS, "remediate"):
        raise DwsValidationError(where, value, f"is not an enforcement level; use {LEVELS}")
    value = value.lower()
    return "mandatory" if value == "remediate" else value


def level_for(rule: Rule, config: Mapping[str, Any] | None) -> str:
    """The level in force: the rule's entry, else ``all``, else the rule's default. May be
    ``disabled``."""
    entry = _entry(config, rule.name)
    if isinstance(entry, str):
        return _level(entry, f"policy config {rule.name}")
    if isinstance(entry, Mapping) and entry.get("enforcementLevel") is not None:
        return _level(entry["enforcementLevel"], f"policy config {rule.name}.enforcementLevel")
    if (config or {}).get("all") is not None:
        return _level(config["all"], "policy config all")  # type: ignore[index]
    return rule.level


def rule_config(rule: Rule, config: Mapping[str, Any] | None) -> dict[str, Any]:
    """The rule's options: defaults overlaid with its config entry."""
    entry = _entry(config, rule.name)
    return rule.resolve(entry if isinstance(entry, Mapping) else None)


def check_config(config: Mapping[str, Any] | None) -> None:
    """Raise :class:`DwsValidationError` for an unknown rule, level or option."""
    rules = all_rules()
    names = {r.name for r in rules}
    for key in config or {}:
        if key != "all" and key not in names:
            raise DwsValidationError(
                "policy config", key, f"is not a rule; rules: {', '.join(sorted(names))}"
            )
    for rule in rules:
        level_for(rule, config)
        rule_config(rule, config)


def load_config(path: str | Path) -> dict[str, Any]:
    """Read a ``--policy-pack-config`` JSON file (the same file ``dws plan`` takes)."""
    data = json.loads(Path(path).read_text())
    if not isinstance(data, dict):
        raise DwsValidationError("policy config", str(path), "must hold a JSON object")
    check_config(data)
    return data


@contextlib.contextmanager
def stack_limits(config: Mapping[str, Any] | str | None) -> Iterator[None]:
    """Apply a ``dws:limits`` stack config object for the duration of a ``with`` block.

    Accepts the object or its JSON text (how Pulumi passes object config). Only public
    ``pulumi_dws.limits`` calls are used; the previous rows come back on exit.
    """
    if isinstance(config, str):
        config = json.loads(config) if config.strip() else None
    with contextlib.ExitStack() as stack:
        for key, fields in (config or {}).items():
            if key == "profile":
                if fields == "seed":
                    for row, values in limits.seed_profile().items():
                        stack.enter_context(limits.overridden(row, **values))
                elif fields != "current":
                    raise DwsValidationError("dws:limits.profile", fields, "use current or seed")
                continue
            if not isinstance(fields, Mapping):
                raise DwsValidationError(f"dws:limits.{key}", fields, "must be a mapping")
            stack.enter_context(limits.overridden(key, **dict(fields)))
        yield


def evaluate(
    resources: Iterable[Any],
    config: Mapping[str, Any] | None = None,
    operations: Mapping[str, Any] | None = None,
) -> list[Violation]:
    """Apply every rule to ``resources`` and the stack they form.

    Args:
        resources: :class:`ResourceView` objects (or ``pulumi_dws.testing.Registered``
            registrations, converted with :meth:`ResourceView.from_registered`).
        config: a policy-pack config object, as in ``--policy-pack-config`` files:
            ``{"all": "advisory", "<rule>": "disabled" | {"enforcementLevel": ..., <option>:
            ...}}``.
        operations: planned operation per URN (or name): create, update, replace, delete,
            same (Pulumi's step names such as ``create-replacement`` are understood). Enables
            ``calendar-delete-or-replace`` and the full Calendar look-ahead check.

    Returns:
        Violations ordered by rule, then resource, with the level in force.
    """
    check_config(config)
    views = [ResourceView.coerce(r) for r in resources]
    ctx = Context(stack=views, operations=operations)
    out: list[Violation] = []
    for rule in all_rules():
        level = level_for(rule, config)
        if level == "disabled":
            continue
        cfg = rule_config(rule, config)
        lvl: Level = level  # type: ignore[assignment]
        if rule.scope == "resource":
            for view in views:
                out.extend(rule(view, cfg, ctx, lvl))
        elif rule.scope == "stack" or operations:
            out.extend(rule(views, cfg, ctx, lvl))
    return out
