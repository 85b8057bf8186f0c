"""Every rule, in the order they are reported: the general ones (:data:`RULES`), then each
capacity kind's own (:attr:`~pulumi_dws.registry.CapacityKind.rules`)."""

from __future__ import annotations

from ... import registry
from .base import Finding, Option, Rule, Scope
from .budget import GPU_BUDGET, TPU_BUDGET
from .calendar import AUTO_DELETE, DELETE_OR_REPLACE, WINDOW
from .flex_start import MAX_RUN_DURATION, QUEUE_WINDOW
from .gke import AUTO_UPGRADE, QUEUED_POOL
from .iam import NO_BASIC_ROLES
from .labels import REQUIRED_LABELS
from .mig import RESIZE_REQUEST_GROUP
from .network import NO_PUBLIC_IP
from .tpu import CALENDAR_TPU, TPU_QUEUED_FLEX_START, TPU_SLICE

__all__ = ["RULES", "Finding", "Option", "Rule", "Scope", "all_rules", "rule"]

RULES: tuple[Rule, ...] = (
    MAX_RUN_DURATION,
    QUEUE_WINDOW,
    QUEUED_POOL,
    AUTO_UPGRADE,
    RESIZE_REQUEST_GROUP,
    TPU_SLICE,
    TPU_QUEUED_FLEX_START,
    NO_PUBLIC_IP,
    NO_BASIC_ROLES,
    AUTO_DELETE,
    WINDOW,
    DELETE_OR_REPLACE,
    CALENDAR_TPU,
    REQUIRED_LABELS,
    GPU_BUDGET,
    TPU_BUDGET,
)


def all_rules() -> tuple[Rule, ...]:
    """The general rules, then the rules each capacity kind carries (in the kinds' order)."""
    return RULES + tuple(r for kind in registry.kinds() for r in kind.rules)


def rule(name: str) -> Rule:
    """The rule called ``name``."""
    found = all_rules()
    for candidate in found:
        if candidate.name == name:
            return candidate
    raise KeyError(f"no rule {name!r}; rules: {', '.join(r.name for r in found)}")
