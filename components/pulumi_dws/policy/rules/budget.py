"""Stack-level budgets: total GPUs and GPU-hours, and total TPU chips and chip-hours, each under
configurable caps (a TPU chip never counts against a GPU cap, nor the reverse)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from ..capacity import CapacityItem, capacity_items
from ..view import Context, ResourceView
from .base import Finding, Option, Rule

__all__ = ["GPU_BUDGET", "TPU_BUDGET"]


def _fmt(value: float) -> str:
    return f"{value:,.0f}" if float(value).is_integer() else f"{value:,.1f}"


@dataclass(frozen=True)
class _Budget:
    """What one budget counts (``gpu`` or ``tpu`` items) and its option names."""

    kind: str
    unit: str  # "GPUs", "TPU chips"
    hours_unit: str  # "GPU-hours", "TPU chip-hours"
    max_count: str
    max_hours: str
    max_by_type: str

    def check(
        self, views: Sequence[ResourceView], cfg: dict[str, Any], ctx: Context
    ) -> Iterator[Finding]:
        max_count, max_hours = cfg.get(self.max_count), cfg.get(self.max_hours)
        by_type_caps: dict[str, int] = cfg.get(self.max_by_type) or {}
        if max_count is None and max_hours is None and not by_type_caps:
            return
        items = [
            item
            for item in capacity_items(views)
            if item.counted and item.accelerator_kind == self.kind
        ]
        # Only known counts are summed: a total over the cap is a definite violation even
        # while some values are unknown; under the cap with unknowns left is "can't tell yet".
        total = sum(item.accelerators or 0 for item in items)
        pending = [item.label() for item in items if not item.known]
        tail = f" (and {len(pending)} resource(s) not known yet)" if pending else ""
        if max_count is not None and total > max_count:
            parts = ", ".join(f"{i.label()}: {i.accelerators}" for i in items if i.accelerators)
            yield Finding(
                f"the stack asks for {total} {self.unit}{tail}, over {self.max_count} "
                f"{max_count} ({parts})"
            )
        by_type: dict[str, int] = {}
        for item in items:
            if item.accelerators and item.accelerator:
                by_type[item.accelerator] = by_type.get(item.accelerator, 0) + item.accelerators
        for accel, cap in sorted(by_type_caps.items()):
            if by_type.get(accel, 0) > cap:
                yield Finding(
                    f"the stack asks for {by_type[accel]} {accel} {self.unit}{tail}, over "
                    f"{self.max_by_type}[{accel}] {cap}"
                )
        if max_hours is not None:
            yield from self._hours(views, items, max_hours, tail)

    def _hours(
        self,
        views: Sequence[ResourceView],
        items: list[CapacityItem],
        max_hours: float,
        tail: str,
    ) -> Iterator[Finding]:
        for item in items:
            if item.bounded is False and (item.accelerators is None or item.accelerators > 0):
                yield Finding(
                    f"{item.label()} has {self.unit} but no max run duration, so its "
                    f"{self.hours_unit} are unbounded under {self.max_hours} {_fmt(max_hours)}; "
                    "set a max run duration",
                    next((v for v in views if v.urn == item.urn and v.name == item.name), None),
                )
        hours = sum(item.accelerator_hours or 0.0 for item in items)
        if hours > max_hours:
            parts = ", ".join(
                f"{i.label()}: {_fmt(i.accelerator_hours)}" for i in items if i.accelerator_hours
            )
            yield Finding(
                f"the stack asks for {_fmt(hours)} {self.hours_unit}{tail}, over "
                f"{self.max_hours} {_fmt(max_hours)} ({parts})"
            )

    def options(self, example: str) -> tuple[Option, ...]:
        return (
            Option(
                self.max_count,
                {
                    "type": "integer",
                    "minimum": 0,
                    "description": f"Cap on total {self.unit} (default: none).",
                },
            ),
            Option(
                self.max_hours,
                {
                    "type": "number",
                    "minimum": 0,
                    "description": f"Cap on {self.hours_unit} (default: none).",
                },
            ),
            Option(
                self.max_by_type,
                {
                    "type": "object",
                    "additionalProperties": {"type": "integer", "minimum": 0},
                    "description": f"Caps per type, e.g. {example}.",
                },
                {},
            ),
        )


_GPUS = _Budget("gpu", "GPUs", "GPU-hours", "maxGpus", "maxGpuHours", "maxGpusByType")
_TPUS = _Budget(
    "tpu", "TPU chips", "TPU chip-hours", "maxTpuChips", "maxTpuChipHours", "maxTpuChipsByType"
)

GPU_BUDGET = Rule(
    name="gpu-budget",
    description=(
        "Total GPUs and GPU-hours (GPUs x max run duration; reservations: x window) must stay "
        "under the stack's caps."
    ),
    level="mandatory",
    scope="stack",
    check=_GPUS.check,
    options=_GPUS.options('{"nvidia-h100-80gb": 16}'),
    remediation="Lower counts or durations, or raise the caps in this stack's policy config.",
    note="no caps by default",
)

TPU_BUDGET = Rule(
    name="tpu-budget",
    description=(
        "Total TPU chips and chip-hours (chips x max run duration; reservations: x window) must "
        "stay under the stack's caps; TPU chips are counted apart from GPUs."
    ),
    level="mandatory",
    scope="stack",
    check=_TPUS.check,
    options=_TPUS.options('{"v6e": 64} (by TPU version)'),
    remediation="Lower chip counts or durations, or raise the caps in this stack's policy config.",
    note="by version, e.g. `v6e`; no caps by default",
)
