"""``dws plan``: run a Pulumi Python program offline under GcpMocks; show what it would create."""

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
