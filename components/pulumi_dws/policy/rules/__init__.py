"""Every rule: the general rules here (:data:`RULES`), each checking the facts any kind's
reader yields (:mod:`pulumi_dws.policy.facts`), and each capacity kind's own rules
(``kinds/<kind>/rules.py``, declared with the kind: :attr:`pulumi_dws.registry.CapacityKind.rules`).

:func:`all_rules` gathers them in the order they are reported: the general rules, then each
kind's in the order kinds are declared.
"""

from __future__ import annotations

from ... import registry
from .base import Finding, Option, Rule, Scope
from .budget import GPU_BUDGET, TPU_BUDGET
from .flex_start import MAX_RUN_DURATION, QUEUE_WINDOW
from .frontier import MACHINE_FIT
from .iam import NO_BASIC_ROLES
from .labels import REQUIRED_LABELS
from .network import NO_PUBLIC_IP

__all__ = [
    "RULES",
    "Finding",
    "Option",
    "Rule",
    "Scope",
    "all_rules",
    "markdown_table",
    "owners",
    "rule",
]

RULES: tuple[Rule, ...] = (
    MAX_RUN_DURATION,
    QUEUE_WINDOW,
    MACHINE_FIT,
    NO_PUBLIC_IP,
    NO_BASIC_ROLES,
    REQUIRED_LABELS,
    GPU_BUDGET,
    TPU_BUDGET,
)
"""The rules no kind owns: each checks a fact, or the capacity, of every kind."""


def owners() -> list[tuple[Rule, str | None]]:
    """Every rule with the kind that owns it (its class name; None for a general rule)."""
    found: list[tuple[Rule, str | None]] = [(r, None) for r in RULES]
    for kind in registry.kinds():
        found.extend((r, kind.name) for r in kind.rules)
    seen: dict[str, str | None] = {}
    for candidate, owner in found:
        if candidate.name in seen:
            raise ValueError(
                f"rule {candidate.name} is declared twice ({seen[candidate.name] or 'general'}, "
                f"{owner or 'general'})"
            )
        seen[candidate.name] = owner
    return found


def all_rules() -> tuple[Rule, ...]:
    """Every rule, in the order they are reported: the general ones, then each kind's."""
    return tuple(r for r, _ in owners())


def rule(name: str) -> Rule:
    """The rule called ``name``."""
    rules = all_rules()
    for candidate in rules:
        if candidate.name == name:
            return candidate
    raise KeyError(f"no rule {name!r}; rules: {', '.join(r.name for r in rules)}")


def markdown_table() -> str:
    """The rule table of docs/policy.md: every rule, what it checks, its level and options."""
    lines = [
        "| rule | checks | level | config keys |",
        "| --- | --- | --- | --- |",
    ]
    for candidate, owner in owners():
        scope = "" if candidate.scope == "resource" else f" ({candidate.scope})"
        checks = f"`{owner}`" if owner else "every kind"
        keys = ", ".join(f"`{o.name}`" for o in candidate.options) or "-"
        keys += f" ({candidate.note})" if candidate.note else ""
        lines.append(f"| `{candidate.name}`{scope} | {checks} | {candidate.level} | {keys} |")
    return "\n".join(lines)
