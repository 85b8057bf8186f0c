"""Applying the DWS policy rules to a plan: violations and a capacity summary."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from .. import limits
from ..errors import DwsValidationError
from .project import load_yaml
from .render import as_text
from .runner import Plan

__all__ = ["PolicyReport", "apply_policies"]

# What the text and Markdown forms show; JSON carries the whole summary.
SUMMARY_KEYS = ("gpus", "gpus_by_type", "gpu_hours", "gpu_hours_by_type", "unbounded", "unknown")
# TPU chips are shown apart, and only when the plan asks for some.
TPU_SUMMARY_KEYS = ("tpu_chips", "tpu_chips_by_type", "tpu_chip_hours", "tpu_chip_hours_by_type")


@dataclass
class PolicyReport:
    """Violations (rule, resource, message, level) and the capacity summary of a plan."""

    violations: list[Any] = field(default_factory=list)
    summary: dict[str, Any] = field(default_factory=dict)
    enabled: bool = True

    @property
    def mandatory_failed(self) -> bool:
        return any(getattr(v, "level", "") == "mandatory" for v in self.violations)

    def _shown_keys(self) -> tuple[str, ...]:
        """The summary keys text and Markdown show: GPUs, then TPU chips if any are asked."""
        if not self.summary.get("tpu_chips_by_type"):
            return SUMMARY_KEYS
        return (*SUMMARY_KEYS[:4], *TPU_SUMMARY_KEYS, *SUMMARY_KEYS[4:])

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
        for key in self._shown_keys():
            if key in self.summary:
                value = self.summary[key]
                lines.append(f"  {key}: {as_text(value)}")
        if not self.violations:
            lines.append("Policies: no violations")
        else:
            lines.append(f"Policies: {len(self.violations)} violation(s)")
            for v in self.violations:
                lines.append(f"  [{v.level}] {v.rule}: {v.message}")
        return lines

    def markdown(self) -> list[str]:
        shown = ", ".join(
            f"{k}: {as_text(self.summary[k])}" for k in self._shown_keys() if k in self.summary
        )
        lines = ["", f"**Capacity:** {shown}"]
        if self.violations:
            lines += ["", "| level | rule | resource | message |", "| --- | --- | --- | --- |"]
            lines += [
                f"| {r['level']} | `{r['rule']}` | `{r['resource']}` | {r['message']} |"
                for r in self._rows()
            ]
        else:
            lines += ["", "No policy violations."]
        return lines


def _load_config(path: str | None, plan: Plan) -> dict[str, Any] | None:
    """``--policy-config FILE`` if given, else the stack's ``dws:policy`` config object."""
    if path:
        try:
            data = load_yaml(Path(path).read_text())
        except yaml.YAMLError as exc:
            problem = " ".join(str(exc).split())
            raise DwsValidationError(
                "--policy-config", path, f"is not JSON or YAML: {problem}"
            ) from None
        if data is None:
            return {}
        if not isinstance(data, dict):
            raise DwsValidationError(
                "--policy-config", path, f"must hold an object of rules, not {type(data).__name__}"
            )
        return data
    return stack_object(plan, "dws:policy")


def stack_object(plan: Plan, key: str) -> dict[str, Any] | None:
    """A stack config object (``dws:policy``, ``dws:limits``) as the program would get it."""
    raw = plan.stack.values.get(key)
    if not raw:
        return None
    if key in plan.stack.secret_keys:
        raise DwsValidationError(key, "[secret]", "is secret; dws plan never decrypts config")
    try:
        data = json.loads(raw)
    except ValueError:
        data = raw
    if not isinstance(data, dict):
        raise DwsValidationError(key, data, "must be an object (a mapping in the stack file)")
    return data


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
            props=r.raw_inputs or r.inputs,
            parent_type=r.parent.split("::")[2].split("$")[-1] if r.parent else None,
            parent=r.parent or "",
        )
        for r in plan.resources
        if r.custom
    ]
    config = _load_config(config_path, plan)
    # Offline, every resource of the program is new: a plan is a first deploy.
    operations = {view.urn: "create" for view in views}
    # The rules read the limits table: with the stack's dws:limits, as the program saw it.
    with limits.applied(stack_object(plan, "dws:limits")):
        return PolicyReport(evaluate(views, config, operations), capacity_summary(views))
