"""A stack-level GPU budget: total GPUs and GPU-hours under configurable caps."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from ..capacity import capacity_items
from ..view import Context, ResourceView
from .base import Finding, Option, Rule

__all__ = ["GPU_BUDGET"]


def _fmt(value: float) -> str:
    return f"{value:,.0f}" if float(value).is_integer() else f"{value:,.1f}"


def _gpu_budget(
    views: Sequence[ResourceView], cfg: dict[str, Any], ctx: Context
) -> Iterator[Finding]:
    max_gpus = cfg.get("maxGpus")
    max_hours = cfg.get("maxGpuHours")
    by_type_caps: dict[str, int] = cfg.get("maxGpusByType") or {}
    if max_gpus is None and max_hours is None and not by_type_caps:
        return
    items = [item for item in capacity_items(views) if item.counted]
    # Only known counts are summed: a total over the cap is a definite violation even while
    # some values are unknown; under the cap with unknowns left is "can't tell yet".
    gpus = sum(item.gpus or 0 for item in items)
    pending = [item.label() for item in items if not item.known]
    tail = f" (and {len(pending)} resource(s) not known yet)" if pending else ""
    if max_gpus is not None and gpus > max_gpus:
        parts = ", ".join(f"{i.label()}: {i.gpus}" for i in items if i.gpus)
        yield Finding(f"the stack asks for {gpus} GPUs{tail}, over maxGpus {max_gpus} ({parts})")
    by_type: dict[str, int] = {}
    for item in items:
        if item.gpus and item.accelerator:
            by_type[item.accelerator] = by_type.get(item.accelerator, 0) + item.gpus
    for accel, cap in sorted(by_type_caps.items()):
        if by_type.get(accel, 0) > cap:
            yield Finding(
                f"the stack asks for {by_type[accel]} {accel} GPUs{tail}, over "
                f"maxGpusByType[{accel}] {cap}"
            )
    if max_hours is None:
        return
    unbounded = [i for i in items if i.bounded is False and (i.gpus is None or i.gpus > 0)]
    for item in unbounded:
        yield Finding(
            f"{item.label()} has GPUs but no max run duration, so its GPU-hours are unbounded "
            f"under maxGpuHours {_fmt(max_hours)}; set a max run duration",
            next((v for v in views if v.urn == item.urn and v.name == item.name), None),
        )
    hours = sum(item.gpu_hours or 0.0 for item in items)
    if hours > max_hours:
        parts = ", ".join(f"{i.label()}: {_fmt(i.gpu_hours)}" for i in items if i.gpu_hours)
        yield Finding(
            f"the stack asks for {_fmt(hours)} GPU-hours{tail}, over maxGpuHours "
            f"{_fmt(max_hours)} ({parts})"
        )


GPU_BUDGET = Rule(
    name="gpu-budget",
    description=(
        "Total GPUs and GPU-hours (GPUs x max run duration; reservations: x window) must stay "
        "under the stack's caps."
    ),
    level="mandatory",
    scope="stack",
    check=_gpu_budget,
    options=(
        Option(
            "maxGpus",
            {"type": "integer", "minimum": 0, "description": "Cap on total GPUs (default: none)."},
        ),
        Option(
            "maxGpuHours",
            {"type": "number", "minimum": 0, "description": "Cap on GPU-hours (default: none)."},
        ),
        Option(
            "maxGpusByType",
            {
                "type": "object",
                "additionalProperties": {"type": "integer", "minimum": 0},
                "description": 'Caps per accelerator, e.g. {"nvidia-h100-80gb": 16}.',
            },
            {},
        ),
    ),
    remediation="Lower counts or durations, or raise the caps in this stack's policy config.",
)
