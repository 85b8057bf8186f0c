"""GKE ComputeClasses (``ComputeClass``): their objects are Kubernetes custom resources
(``cloud.google.com/v1``), read by ``dws plan`` (what each priority reaches: capacity, machine,
GPUs or TPU chips per node, run limit) and by the kind's rules (:mod:`.rules`). In
``dws:capacity`` a priority's ``reservation`` may name a ``calendar_reservations`` entry: its
zone and machine are then checked against the class."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from ...errors import DwsValidationError
from ...plan.summary import duration_text
from ...policy.facts import MachineUse
from ...policy.values import UNKNOWN, dig
from ...policy.view import ResourceView
from ...registry import BlueprintEntry, CapacityKind, Ref, ResourceType, register
from .component import ComputeClass, ComputeClassArgs, ComputeClassSpec
from .rules import RULES

__all__ = ["KIND", "COMPUTE_CLASS_PATTERN", "priorities_of", "priority_text"]

_AIDS = "pulumi_dws.kinds.compute_class.testing"
COMPUTE_CLASS_PATTERN = r"^kubernetes:cloud\.google\.com/v1:ComputeClass\Z"


def priorities_of(view: ResourceView) -> Iterator[tuple[int, Any]]:
    """Each priority rule of a ComputeClass resource, with its index."""
    rules = dig(view.props, "spec", "priorities")
    if isinstance(rules, list):
        yield from enumerate(rules)


def _num(value: Any) -> Any:
    """A number as written (``8``, not the ``8.0`` a preview hands back)."""
    return int(value) if isinstance(value, float) and value.is_integer() else value


def priority_text(rule: Any) -> str:
    """One priority in a few words: ``flex_start a3-ultragpu-8g 8x nvidia-h200-141gb 7d``."""
    if rule is UNKNOWN or not isinstance(rule, dict):
        return "[unknown]"
    if "nodepools" in rule:
        return f"node_pools {','.join(map(str, rule.get('nodepools') or []))}"
    affinity = dig(rule, "reservations", "affinity")
    if affinity == "Specific":
        names = [str(dig(s, "name")) for s in dig(rule, "reservations", "specific") or []]
        block = dig(rule, "reservations", "specific", 0, "reservationBlock", "name")
        what = f"reservation {','.join(names)}" + (f"/{block}" if block else "")
    elif affinity == "AnyBestEffort":
        what = "any_reservation"
    elif dig(rule, "flexStart", "enabled") is True:
        what = "flex_start"
    elif rule.get("spot") is True:
        what = "spot"
    else:
        what = "on_demand"
    parts = [what, rule.get("machineType") or rule.get("machineFamily")]
    gpu, tpu = rule.get("gpu"), rule.get("tpu")
    if isinstance(gpu, dict):
        parts.append(f"{_num(gpu.get('count'))}x {gpu.get('type')}")
    if isinstance(tpu, dict):
        chips = _num(tpu.get("count"))
        parts.append(f"{tpu.get('type')} {tpu.get('topology')} ({chips} chips/node)")
    run = rule.get("maxRunDurationSeconds")
    if run is not None:
        parts.append(f"max {duration_text(run)}")
    return " ".join(str(p) for p in parts if p)


def _parts(view: ResourceView) -> Iterator[Any]:
    """The machine type each priority asks for, Flex-start or not (the facts the general
    rules check: ``frontier-machine-fit``)."""
    for i, rule in priorities_of(view):
        if isinstance(rule, dict) and rule.get("machineType") is not None:
            yield MachineUse(
                f"spec.priorities[{i}].machineType",
                rule.get("machineType"),
                dig(rule, "flexStart", "enabled"),
            )


def _summary(view: ResourceView) -> dict[str, Any]:
    p = view.props
    rules = [priority_text(rule) for _, rule in priorities_of(view)]
    per_node = []
    for _, rule in priorities_of(view):
        gpu = dig(rule, "gpu", "count")
        chips = dig(rule, "tpu", "count")
        per_node.append(_num(gpu if gpu is not None else chips))
    known = {n for n in per_node if isinstance(n, int)}
    return {
        "class": dig(p, "metadata", "name"),
        "priorities": " > ".join(rules),
        "accelerators_per_node": next(iter(known)) if len(known) == 1 else None,
        "zones": dig(p, "spec", "priorityDefaults", "location", "zones"),
        "when_unsatisfiable": dig(p, "spec", "whenUnsatisfiable"),
        "node_pool_auto_creation": dig(p, "spec", "nodePoolAutoCreation", "enabled"),
    }


def check_entries(entries: Sequence[BlueprintEntry]) -> None:
    """A class priority's ``reservation`` that names a ``calendar_reservations`` entry holds
    the priority's machine in one of the class's zones."""
    blocks = {
        str(e.args.get("name") or e.name): e
        for e in entries
        if e.kind.key == "calendar_reservations"
    }
    for entry in (e for e in entries if e.kind.key == KIND.key):
        zones = entry.args.get("zones") or []
        for i, priority in enumerate(entry.args.get("priorities") or []):
            if not isinstance(priority, dict):
                continue
            name = priority.get("reservation")
            block = blocks.get(name) if isinstance(name, str) else None
            if block is None:
                continue
            where = f"{entry.where}.priorities[{i}].reservation"
            zone = block.args.get("zone")
            if zones and zone not in zones:
                raise DwsValidationError(
                    where,
                    name,
                    f"is in zone {zone} ({block.where}), outside the class's zones "
                    f"({', '.join(zones)})",
                )
            machine = priority.get("machine_type") or entry.args.get("machine_type")
            held = block.args.get("machine_type")
            if machine and held and machine != held:
                raise DwsValidationError(
                    where, name, f"holds {held} VMs ({block.where}); the priority runs {machine}"
                )


KIND = register(
    CapacityKind(
        name="ComputeClass",
        component=ComputeClass,
        args=ComputeClassArgs,
        spec=ComputeClassSpec,
        key="compute_classes",
        resources=(
            ResourceType(
                "compute_class",
                pattern=COMPUTE_CLASS_PATTERN,
                parts=_parts,
                summary=_summary,
                mock=Ref("pulumi_dws.testing.kinds.common:kubernetes"),
            ),
        ),
        test_aids=_AIDS,
        check_entries=check_entries,
        rules=RULES,
    )
)
