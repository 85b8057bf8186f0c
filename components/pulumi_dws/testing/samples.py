"""Sample resources as the provider receives them (camelCase), clean for every policy rule, and
violating variants of them: what the rules expect, and what their tests feed them.

Each capacity kind keeps its own (``SAMPLES``, ``EXAMPLES`` and ``CAPACITY`` in its test aids
module, named by its declaration in :mod:`pulumi_dws.registry`); :data:`SAMPLES` and
:data:`EXAMPLES` here gather every kind's. Derive a violating variant of a sample with
:func:`variant`. Calendar samples assume the clock pinned to :data:`SAMPLE_NOW`
(``with pulumi_dws.clock.frozen(SAMPLE_NOW): ...``).

A kind declares what each of its samples asks for (``CAPACITY``: a :class:`Capacity` per
sample; a sample it does not list asks for nothing), and a test keeps each declaration what
the capacity summary counts for that sample alone. Tests of stack totals assert
:func:`totals` of the declarations of the samples they use, so a new sample of one kind changes
no other kind's test.
"""

from __future__ import annotations

import copy
import datetime as dt
import importlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from .. import registry

__all__ = [
    "SAMPLE_NOW",
    "DELETE",
    "Sample",
    "Example",
    "variant",
    "samples",
    "examples",
    "Capacity",
    "Totals",
    "capacity",
    "totals",
]

SAMPLE_NOW = dt.datetime(2027, 2, 1, tzinfo=dt.timezone.utc)
DELETE = object()
"""Marker for :func:`variant`: remove the key."""

Sample = tuple[str, Callable[[], dict[str, Any]]]
"""A sample: its type token, and a factory of fresh props."""


def variant(props: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    """A deep copy of ``props`` with ``path`` (``a.b.0.c``) set to ``value`` (or removed with
    :data:`DELETE`); missing dicts on the way are created."""
    out = copy.deepcopy(props)
    node: Any = out
    steps = path.split(".")
    for step in steps[:-1]:
        key: Any = int(step) if step.isdigit() and isinstance(node, list) else step
        if isinstance(node, dict) and key not in node:
            node[key] = {}
        node = node[key]
    last: Any = int(steps[-1]) if steps[-1].isdigit() and isinstance(node, list) else steps[-1]
    if value is DELETE:
        if isinstance(node, dict):
            node.pop(last, None)
        else:
            del node[last]
    else:
        node[last] = value
    return out


@dataclass(frozen=True)
class Example:
    """A violating variant of a sample for one rule.

    ``changes`` are ``(path, value)`` edits applied with :func:`variant`; ``expect`` is a
    piece of the message; ``unknown`` the path that, set to unknown instead, makes the rule
    unable to tell (so it must stay silent).
    """

    rule: str
    sample: str
    changes: tuple[tuple[str, Any], ...]
    expect: str
    config: dict[str, Any] | None = None
    unknown: str | None = None

    @property
    def type(self) -> str:
        return samples()[self.sample][0]

    def props(self) -> dict[str, Any]:
        out = samples()[self.sample][1]()
        for path, value in self.changes:
            out = variant(out, path, value)
        return out

    def unknown_props(self, marker: Any) -> dict[str, Any]:
        """The violating props with the offending value replaced by ``marker``."""
        return variant(self.props(), self.unknown or self.changes[-1][0], marker)

    def __str__(self) -> str:
        edits = ",".join(path for path, _ in self.changes)
        tail = f":unknown={self.unknown}" if self.unknown else ""
        return f"{self.rule}:{self.sample}:{edits}{tail}"


def _aids() -> list[Any]:
    return [importlib.import_module(k.test_aids) for k in registry.kinds() if k.test_aids]


def samples() -> dict[str, Sample]:
    """Every kind's samples: name -> (type token, factory of fresh props)."""
    found: dict[str, Sample] = {}
    for module in _aids():
        found.update(getattr(module, "SAMPLES", {}))
    return found


def examples() -> tuple[Example, ...]:
    """Every kind's violating examples, at least one per resource rule (the stack and plan
    rules, gpu-budget and calendar-delete-or-replace, need several resources; see the tests)."""
    return tuple(e for module in _aids() for e in getattr(module, "EXAMPLES", ()))


@dataclass(frozen=True)
class Capacity:
    """What one sample asks for, as the capacity summary counts it on its own (a resource
    whose capacity a sibling completes, a resize request, is ``unknown``).

    Attributes:
        accelerator: the GPU type (``nvidia-h100-80gb``) or TPU version (``v6e``).
        gpus, gpu_hours: counted GPUs and GPU-hours.
        tpu_chips, tpu_chip_hours: counted TPU chips and chip-hours (None: unbounded).
        unbounded: counted with no max run duration (its hours are not known).
        unknown: its capacity is not known from the sample alone.
    """

    accelerator: str | None = None
    gpus: int = 0
    gpu_hours: float = 0.0
    tpu_chips: int = 0
    tpu_chip_hours: float = 0.0
    unbounded: bool = False
    unknown: bool = False


@dataclass
class Totals:
    """The sums of the declarations of some samples, as ``capacity_summary`` reports them."""

    gpus: int = 0
    gpu_hours: float = 0.0
    gpus_by_type: dict[str, int] = field(default_factory=dict)
    tpu_chips: int = 0
    tpu_chip_hours: float = 0.0
    tpu_chips_by_type: dict[str, int] = field(default_factory=dict)
    unbounded: list[str] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)


def capacity() -> dict[str, Capacity]:
    """Every kind's declarations, by sample name."""
    found: dict[str, Capacity] = {}
    for module in _aids():
        found.update(getattr(module, "CAPACITY", {}))
    return found


def totals(names: Iterable[str]) -> Totals:
    """What the samples ``names`` ask for together: the sums of their declarations (a sample
    not declared asks for nothing). ``unbounded`` and ``unknown`` list sample names."""
    declared = capacity()
    out = Totals()
    for name in names:
        c = declared.get(name, Capacity())
        out.gpus += c.gpus
        out.gpu_hours += c.gpu_hours
        out.tpu_chips += c.tpu_chips
        out.tpu_chip_hours += c.tpu_chip_hours
        if c.accelerator and c.gpus:
            out.gpus_by_type[c.accelerator] = out.gpus_by_type.get(c.accelerator, 0) + c.gpus
        if c.accelerator and c.tpu_chips:
            by_type = out.tpu_chips_by_type
            by_type[c.accelerator] = by_type.get(c.accelerator, 0) + c.tpu_chips
        if c.unbounded:
            out.unbounded.append(name)
        if c.unknown:
            out.unknown.append(name)
    return out


def __getattr__(name: str) -> Any:
    # SAMPLES and EXAMPLES are gathered from the kinds when first asked for: the kinds' test
    # aids import this module for Example and variant.
    if name == "SAMPLES":
        return samples()
    if name == "EXAMPLES":
        return examples()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
