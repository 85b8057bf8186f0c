"""Flex-start: a max run duration present and inside its limits row, a queue window inside its
row: every kind whose reader yields a :class:`~pulumi_dws.policy.facts.RunLimit` or
:class:`~pulumi_dws.policy.facts.QueueWindow` is checked."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ... import limits
from ..facts import QueueWindow, RunLimit, facts
from ..view import Context, ResourceView
from .base import DURATION_PATTERN, Finding, Option, Rule
from .common import duration_problem

__all__ = ["MAX_RUN_DURATION", "QUEUE_WINDOW"]


def _outside(
    view: ResourceView, raw: Any, field: str, key: str, cap: str | None = None
) -> Iterator[Finding]:
    """A finding when duration ``raw`` is outside limit ``key`` (or the policy ``cap``)."""
    problem = duration_problem(raw, field, key, cap)
    if problem:
        yield Finding(f"{view.label}: {problem}")


def _max_run_duration(view: ResourceView, cfg: dict[str, Any], ctx: Context) -> Iterator[Finding]:
    cap = cfg.get("maxRunDuration")
    for limit in facts(view, RunLimit):
        if limit.value is None and limit.needed:
            allowed = limits.get(limit.row).allowed()
            yield Finding(f"{view.label}: {limit.field} is missing; {limit.needed} ({allowed})")
        elif limit.value is None and limit.required_by and cfg.get(limit.required_by):
            yield Finding(f"{view.label}: {limit.field} is missing; {limit.when_required}")
        yield from _outside(view, limit.value, limit.field, limit.row, cap)


def _queue_window(view: ResourceView, cfg: dict[str, Any], ctx: Context) -> Iterator[Finding]:
    for window in facts(view, QueueWindow):
        if window.value is not None:
            yield from _outside(view, window.value, window.field, window.row)
        elif cfg.get("requireQueueWindow") and window.requirable:
            allowed = limits.get(window.row).allowed()
            yield Finding(
                f"{view.label}: {window.field} is missing; without a queue window "
                f"{window.without}. Set one ({allowed}), e.g. with {window.setting}=... on the "
                "pulumi_dws component"
            )


MAX_RUN_DURATION = Rule(
    name="flex-start-max-run-duration",
    description=(
        "Flex-start capacity (VMs, templates, MIG resize requests, Cloud TPU queued resources, "
        "queued/Flex-start GKE pools, Slurm pools, Kueue ProvisioningRequestConfig) must have a "
        "max run duration inside the service limit."
    ),
    level="mandatory",
    scope="resource",
    check=_max_run_duration,
    options=(
        Option(
            "maxRunDuration",
            {
                "type": "string",
                "pattern": DURATION_PATTERN,
                "description": "A cap stricter than the service limit, e.g. 3d (default: none).",
            },
        ),
        Option(
            "requireOnNodePools",
            {
                "type": "boolean",
                "description": "Also require nodeConfig.maxRunDuration on DWS node pools.",
            },
            False,
        ),
    ),
    remediation=(
        "Set scheduling.maxRunDuration (VMs), runDuration.maxRunDuration (Cloud TPU) or "
        "nodeConfig.maxRunDuration (GKE), <= 7d."
    ),
    note="`maxRunDuration`: a cap, e.g. `3d`",
)

QUEUE_WINDOW = Rule(
    name="flex-start-queue-window",
    description=(
        "A Flex-start queued request's window must be inside its limit: a VM's "
        "params.requestValidForDuration 90s to 2h, a Cloud TPU queued resource's "
        "queueingPolicy.validUntilDuration 90s to 7d (limits rows flex_start.request_valid_for, "
        "queued_tpu.request_valid_for)."
    ),
    level="mandatory",
    scope="resource",
    check=_queue_window,
    options=(
        Option(
            "requireQueueWindow",
            {
                "type": "boolean",
                "description": "Require a queue window on every Flex-start request.",
            },
            False,
        ),
    ),
    remediation="Use a request_valid_for inside the limit (VMs: 90s to 2h), or none.",
)
