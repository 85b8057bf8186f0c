"""Every rule, in the order they are reported."""

from __future__ import annotations

from .base import Finding, Option, Rule, Scope
from .budget import GPU_BUDGET, TPU_BUDGET
from .calendar import AUTO_DELETE, DELETE_OR_REPLACE, WINDOW
from .flex_start import MAX_RUN_DURATION, QUEUE_WINDOW
from .frontier import GROUP_PLACEMENT, MACHINE_FIT
from .gke import AUTO_UPGRADE, QUEUED_POOL
from .iam import NO_BASIC_ROLES
from .labels import REQUIRED_LABELS
from .mig import RESIZE_REQUEST_GROUP
from .network import NO_PUBLIC_IP
from .tpu import CALENDAR_TPU, TPU_QUEUED_FLEX_START, TPU_SLICE

__all__ = ["RULES", "Finding", "Option", "Rule", "Scope", "rule"]

RULES: tuple[Rule, ...] = (
    MAX_RUN_DURATION,
    QUEUE_WINDOW,
    QUEUED_POOL,
    AUTO_UPGRADE,
    RESIZE_REQUEST_GROUP,
    MACHINE_FIT,
    GROUP_PLACEMENT,
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


def rule(name: str) -> Rule:
    """The rule called ``name``."""
    for candidate in RULES:
        if candidate.name == name:
            return candidate
    raise KeyError(f"no rule {name!r}; rules: {', '.join(r.name for r in RULES)}")
