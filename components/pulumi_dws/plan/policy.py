"""Applying the DWS policy rules to a plan: violations and a capacity summary."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from .runner import Plan

__all__ = ["PolicyReport", "apply_policies"]


@dataclass
class PolicyReport:
    """Violations (rule, resource, message, level) and the capacity summary of a plan."""

    violations: list[Any] = field(default_factory=list)
    summary: dict[str, Any] = field(default_factory=dict)
    enabled: bool = True

    @property
    def mandatory_failed(self) -> bool:
        return any(getattr(v, "level", "") == "mandatory" for v in self.violations)

    def _rows(self) -> list[dict[str, Any]]:
        return [
            {
                "rule": v.rule,
                "resource": v.resource,
                "level": v.level,
                "message": v.message,
            }
            for v in self.violations
        ]

    def document(self) -> dict[str, Any]:
        return {
            "policy": {"enabled": self.enabled, "violations": self._rows()},
            "capacity": self.summary,
        }

    def text(self) -> list[str]:
        if not self.enabled:
            return ["Policies: skipped (--no-policy)"]
        lines = ["Capacity:"]
        for key, value in self.summary.items():
            lines.append(f"  {key}: {json.dumps(value, default=str, sort_keys=True)}")
        if not self.violations:
            lines.append("Policies: no violations")
        else:
            lines.append(f"Policies: {len(self.violations)} violation(s)")
            for row in self._rows():
                lines.append(
                    f"  [{row['level']}] {row['rule']} on {row['resource']}: {row['message']}"
                )
        return lines

    def markdown(self) -> list[str]:
        lines = ["", "**Capacity:** " + ", ".join(f"{k}: {v}" for k, v in self.summary.items())]
        if self.violations:
            lines += ["", "| level | rule | resource | message |", "| --- | --- | --- | --- |"]
            lines += [
                f"| {r['level']} | `{r['rule']}` | `{r['resource']}` | {r['message']} |"
                for r in self._rows()
            ]
        else:
            lines += ["", "No policy violations."]
        return lines


def _load_config(path: str | None) -> dict[str, Any] | None:
    if not path:
        return None
    return yaml.safe_load(Path(path).read_text()) or {}


def apply_policies(
    plan: Plan, config_path: str | None = None, *, enabled: bool = True
) -> PolicyReport:
    """Run every rule of :mod:`pulumi_dws.policy` over the planned resources."""
    if not enabled:
        return PolicyReport(enabled=False)
    from ..policy import ResourceView, capacity_summary, evaluate

    views = [
        ResourceView(
            type=r.type,
            name=r.name,
            urn=r.urn,
            props=r.inputs,
            parent_type=r.parent.split("::")[2].split("$")[-1] if r.parent else None,
        )
        for r in plan.resources
        if r.custom
    ]
    config = _load_config(config_path)
    return PolicyReport(evaluate(views, config, None), capacity_summary(views))
