"""Flex-start: max run duration present and inside the limits; queue window 90 s to 2 h."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ... import limits
from ..shapes import body_of, kind_of, node_pools, slurm_pools, vm_spec
from ..values import dig
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
    vm = vm_spec(view)
    if vm is not None and vm.flex_start is True:
        field = f"{vm.prefix}{vm.fields.max_run_duration}"
        if vm.max_run_duration is None:
            limit = limits.get(vm.fields.max_run_limit)
            yield Finding(
                f"{view.label}: {field} is missing; a FLEX_START VM needs a max run duration "
                f"({limit.allowed()})"
            )
        yield from _outside(view, vm.max_run_duration, field, vm.fields.max_run_limit, cap)
    for pool in node_pools(view):
        if pool.dws is not True:
            continue
        field = f"{pool.where}nodeConfig.maxRunDuration"
        raw = pool.get("nodeConfig", "maxRunDuration")
        if raw is None and cfg.get("requireOnNodePools"):
            yield Finding(
                f"{view.label}: {field} is missing; this stack's policy requires a max run "
                "duration on queued / Flex-start node pools (GKE's default is 7d)"
            )
        yield from _outside(view, raw, field, "gke.max_run_duration", cap)
    for spool in slurm_pools(view):
        if spool.flex_start is not True:
            continue
        raw = spool.get("flex_start_max_duration", "flexStartMaxDuration")
        field = f"{spool.where}flex_start_max_duration"
        yield from _outside(view, raw, field, "slurm.flex_start_max_duration", cap)
    if kind_of(view) == "resize_request":
        raw = dig(body_of(view), "requestedRunDuration")
        field = "body.requestedRunDuration" if "body" in view.props else "requestedRunDuration"
        yield from _outside(view, raw, field, "mig.requested_run_duration", cap)
    if kind_of(view) == "kueue_config":
        raw = dig(view.props, "spec", "parameters", "maxRunDurationSeconds")
        field = "spec.parameters.maxRunDurationSeconds"
        yield from _outside(view, raw, field, "kueue.max_run_duration", cap)


def _queue_window(view: ResourceView, cfg: dict[str, Any], ctx: Context) -> Iterator[Finding]:
    vm = vm_spec(view)
    if vm is None or vm.flex_start is not True:
        return
    field = f"{vm.prefix}{vm.fields.queue_window}"
    if vm.queue_window is None:
        if cfg.get("requireQueueWindow") and kind_of(view) != "template":
            limit = limits.get(vm.fields.queue_window_limit)
            yield Finding(
                f"{view.label}: {field} is missing; without a queue window "
                f"{vm.fields.without_window}. Set one ({limit.allowed()}), e.g. with "
                "request_valid_for=... on the pulumi_dws component"
            )
        return
    yield from _outside(view, vm.queue_window, field, vm.fields.queue_window_limit)


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
