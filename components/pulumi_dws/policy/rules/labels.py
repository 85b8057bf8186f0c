"""Required labels on capacity resources: every :class:`~pulumi_dws.policy.facts.Labels` a
kind's reader yields."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..facts import Labels, facts
from ..values import UNKNOWN
from ..view import Context, ResourceView
from .base import Finding, Option, Rule

__all__ = ["REQUIRED_LABELS"]


def _required_labels(view: ResourceView, cfg: dict[str, Any], ctx: Context) -> Iterator[Finding]:
    required = cfg.get("requiredLabels") or []
    if not required:
        return
    for fact in facts(view, Labels):
        field, labels = fact.field, fact.value
        if labels is UNKNOWN:
            continue
        labels = labels if isinstance(labels, dict) else {}
        missing = [key for key in required if key not in labels]
        if missing:
            yield Finding(
                f"{view.label}: {field} lacks required label(s) {', '.join(missing)} "
                f"(required: {', '.join(required)})"
            )
        for key in required:
            if key in labels and labels[key] == "":
                yield Finding(f"{view.label}: {field}[{key}] is empty")


REQUIRED_LABELS = Rule(
    name="required-labels",
    description="GPU, TPU and DWS capacity resources must carry the required labels.",
    level="advisory",
    scope="resource",
    check=_required_labels,
    options=(
        Option.strings("requiredLabels", "Label keys every capacity resource must have.", ["team"]),
    ),
    remediation="Add the labels (pulumi_dws components take labels=...).",
    note='default `["team"]`; GPU, TPU and DWS capacity',
)
