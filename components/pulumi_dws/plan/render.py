"""Rendering a :class:`~pulumi_dws.plan.runner.Plan`: a text tree, JSON, or Markdown."""

from __future__ import annotations

import json
from typing import Any

from .runner import Plan, PlannedResource

__all__ = ["render_text", "render_json", "render_markdown", "plan_document", "integral", "as_text"]


def integral(value: Any) -> Any:
    """``value`` with whole floats as ints, at any depth (Pulumi hands numbers back as floats:
    ``gpusTotal`` is 32, not 32.0)."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {k: integral(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [integral(v) for v in value]
    return value


def as_text(value: Any) -> str:
    """A value as a reader expects it in text or Markdown: strings bare, ``true``/``false``,
    whole numbers without ``.0``, mappings and lists as JSON (never a Python repr)."""
    if isinstance(value, str):
        return value
    return json.dumps(integral(value), default=str, sort_keys=True)


def _props(resource: PlannedResource) -> str:
    parts = [f"{k}={as_text(v)}" for k, v in resource.properties.items()]
    if resource.protect:
        parts.append("protected")
    return "  ".join(parts)


def _children(plan: Plan) -> dict[str, list[PlannedResource]]:
    known = {r.urn for r in plan.resources}
    tree: dict[str, list[PlannedResource]] = {}
    for r in plan.resources:
        tree.setdefault(r.parent if r.parent in known else "", []).append(r)
    return tree


def render_text(plan: Plan, extra: list[str] | None = None) -> str:
    """The resource tree with key properties, then the stack outputs."""
    tree = _children(plan)
    custom = sum(1 for r in plan.resources if r.custom)
    lines = [
        f"Plan of {plan.project.name} (stack {plan.stack.stack}), offline: "
        f"{len(plan.resources)} resources, {custom} of them cloud resources",
        f"+ pulumi:pulumi:Stack {plan.project.name}-{plan.stack.stack}",
    ]

    def walk(parent: str, indent: str) -> None:
        items = tree.get(parent, [])
        for i, r in enumerate(items):
            last = i == len(items) - 1
            props = _props(r)
            lines.append(f"{indent}{'└─' if last else '├─'} + {r.type} {r.name}")
            if props:
                lines.append(f"{indent}{'   ' if last else '│  '}    {props}")
            walk(r.urn, indent + ("   " if last else "│  "))

    walk("", "")
    if plan.outputs:
        lines.append("Outputs:")
        for key, value in sorted(plan.outputs.items()):
            lines.append(f"  {key}: {_show(value)}")
    lines.extend(extra or [])
    return "\n".join(lines)


def _show(value: Any) -> str:
    return as_text(value)


def plan_document(plan: Plan, extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """The plan as plain data (the ``--format json`` document)."""
    return {
        "project": plan.project.name,
        "stack": plan.stack.stack,
        "resources": [
            {
                "urn": r.urn,
                "type": r.type,
                "name": r.name,
                "parent": r.parent,
                "custom": r.custom,
                "protect": r.protect,
                "properties": integral(r.properties),
                "inputs": r.inputs,
            }
            for r in plan.resources
        ],
        "outputs": integral(plan.outputs),
        **integral(extra or {}),
    }


def render_json(plan: Plan, extra: dict[str, Any] | None = None) -> str:
    return json.dumps(plan_document(plan, extra), indent=2, default=str, sort_keys=False)


def render_markdown(plan: Plan, extra: list[str] | None = None) -> str:
    """A pull-request comment: a table of cloud resources."""
    lines = [
        f"### `dws plan`: {plan.project.name} / {plan.stack.stack}",
        "",
        "| resource | type | key properties |",
        "| --- | --- | --- |",
    ]
    for r in plan.resources:
        if r.custom:
            props = ", ".join(f"{k}={_cell(v)}" for k, v in r.properties.items()) or "-"
            lines.append(f"| `{r.name}` | `{r.type}` | {props} |")
    if plan.outputs:
        lines += ["", "| output | value |", "| --- | --- |"]
        lines += [f"| `{k}` | {_cell(v)} |" for k, v in sorted(plan.outputs.items())]
    lines.extend(extra or [])
    return "\n".join(lines)


def _cell(value: Any) -> str:
    """A value inside a Markdown table cell (a ``|`` would end the cell)."""
    return as_text(value).replace("|", "\\|")
