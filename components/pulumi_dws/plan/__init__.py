"""``dws plan``: run a Pulumi Python program offline under GcpMocks; show what it would create.

The runner (which needs :mod:`pulumi_dws.testing`) is imported on first use, so the capacity
kinds can use :mod:`pulumi_dws.plan.summary` without loading the test aids.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .project import PulumiProject, StackConfig, load_project, load_stack_config
    from .runner import Plan, PlanError, PlannedResource, UnknownStackError, run_plan

__all__ = [
    "Plan",
    "PlanError",
    "PlannedResource",
    "PulumiProject",
    "StackConfig",
    "UnknownStackError",
    "load_project",
    "load_stack_config",
    "run_plan",
]

_FROM = {
    "PulumiProject": ".project",
    "StackConfig": ".project",
    "load_project": ".project",
    "load_stack_config": ".project",
    "Plan": ".runner",
    "PlanError": ".runner",
    "PlannedResource": ".runner",
    "UnknownStackError": ".runner",
    "run_plan": ".runner",
}


def __getattr__(name: str) -> Any:
    if name not in _FROM:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(_FROM[name], __name__), name)
