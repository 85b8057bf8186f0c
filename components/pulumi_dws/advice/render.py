"""Advice for people and scripts: tables, JSON, and ready-to-paste code and config."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import yaml

from .. import limits, registry
from ..validation import check_name, format_timestamp
from .results import CalendarAdvice, CalendarWindow, CapacityAdvice

__all__ = [
    "table",
    "calendar_table",
    "capacity_table",
    "calendar_json",
    "capacity_json",
    "group_args",
    "group_hint",
    "kind_hints",
    "default_name",
    "reservation_args",
    "emit_python",
    "emit_config",
    "emit_yaml",
    "emit_text",
    "emit_json",
]


def table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """A plain left-aligned text table."""
    cells = [[str(h) for h in headers]] + [["" if c is None else str(c) for c in r] for r in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]
    lines = []
    for row in cells:
        padded = (cell.ljust(width) for cell, width in zip(row, widths, strict=True))
        lines.append("  ".join(padded).rstrip())
    return "\n".join(lines)


def calendar_table(advice: CalendarAdvice) -> str:
    """Recommendations (zone, start, end, duration, count), then the zones left out and why."""
    lines = [f"Calendar-mode advice for {advice.query.describe()} (project {advice.query.project})"]
    rows = [
        (
            i,
            w.zone,
            format_timestamp(w.start_time),
            format_timestamp(w.end_time),
            w.duration.human(),
            w.count,
        )
        for i, w in enumerate(advice.windows, 1)
    ]
    lines.append(table(("#", "ZONE", "START", "END", "DURATION", "COUNT"), rows))
    others = advice.other_zones
    if others:
        lines.append("")
        lines.append("Zones not recommended:")
        rows_other = [(z.zone, z.status, z.details) for z in others]
        lines.append(table(("ZONE", "STATUS", "DETAILS"), rows_other))
    lines.append("")
    lines.append("Add --emit to print a CalendarReservation snippet for #1 (--pick N for another).")
    return "\n".join(lines)


def capacity_table(advice: CapacityAdvice) -> str:
    """One row per shard of each recommendation, with its obtainability score."""
    lines = [f"Capacity advice for {advice.query.describe()} (project {advice.query.project})"]
    rows = []
    for i, option in enumerate(advice.options, 1):
        score = "" if option.obtainability is None else f"{option.obtainability:.2f}"
        uptime = option.estimated_uptime.human() if option.estimated_uptime else ""
        for shard in option.shards:
            rows.append(
                (
                    i,
                    shard.zone,
                    shard.machine_type,
                    shard.count,
                    shard.provisioning_model,
                    score,
                    uptime,
                )
            )
    headers = ("#", "ZONE", "MACHINE TYPE", "COUNT", "MODEL", "OBTAINABILITY", "EST. UPTIME")
    lines.append(table(headers, rows))
    for hint in [group_hint(advice), *kind_hints(advice).values()]:
        if hint:
            lines += ["", hint]
    return "\n".join(lines)


_GROUP_MODELS = {"FLEX_START": "flex_start", "RESERVATION_BOUND": "reservation_bound"}


def group_args(advice: CapacityAdvice) -> dict[str, Any] | None:
    """``FlexStartGroup`` arguments for the first recommendation, when one group can take it:
    every VM in one zone, one machine type, Flex-start or reservation-bound, and no more VMs
    than one resize request adds (``limits`` row ``mig.resize_by``)."""
    if advice.empty:
        return None
    shards = advice.options[0].shards
    zones = {s.zone for s in shards}
    machines = {s.machine_type for s in shards}
    models = {s.provisioning_model for s in shards}
    if len(zones) != 1 or len(machines) != 1 or len(models) != 1:
        return None
    model = _GROUP_MODELS.get(next(iter(models)))
    count = sum(s.count for s in shards)
    limit = limits.get("mig.resize_by").maximum or count
    if model is None or count < advice.query.count or count > limit:
        return None
    args: dict[str, Any] = {
        "zone": next(iter(zones)),
        "machine_type": next(iter(machines)),
        "count": count,
    }
    if model == "flex_start":
        args["run_duration"] = "3d"
    else:
        args.update(provisioning=model, reservation="RESERVATION")
    return args


def group_hint(advice: CapacityAdvice) -> str | None:
    """What to write to get recommendation #1 as one group of VMs, all at once; or why one
    group cannot take it. None when there is no recommendation."""
    if advice.empty:
        return None
    args = group_args(advice)
    if args is not None:
        return (
            f"To get all {args['count']} at once (all or nothing), one FlexStartGroup "
            f'(dws:capacity key flex_start_groups): FlexStartGroup("NAME", {_python(args)})'
            + ("; set run_duration to your run (10m to 7d)." if "run_duration" in args else ".")
        )
    shards = advice.options[0].shards
    count = sum(s.count for s in shards)
    limit = limits.get("mig.resize_by")
    if count > (limit.maximum or count):
        return (
            f"{count} VMs are more than one resize request adds ({limit.allowed()}): split them "
            "over several FlexStartGroups."
        )
    if count < advice.query.count:
        return (
            f"Recommendation #1 places {count} of the {advice.query.count} VMs; a "
            f"FlexStartGroup of {advice.query.count} waits until all of them can be placed at "
            "once (all or nothing)."
        )
    if len({s.zone for s in shards}) > 1:
        return (
            "Recommendation #1 spreads the VMs over zones; a FlexStartGroup puts them all in one "
            "zone: ask with --shape ANY_SINGLE_ZONE."
        )
    return None


def kind_hints(advice: CapacityAdvice) -> dict[str, str]:
    """Each capacity kind's hint for this answer (``CapacityKind.advice_hint``), by its
    ``dws:capacity`` key: what to write to take recommendation #1 as that kind."""
    if advice.empty:
        return {}
    hints = {kind.key: kind.advice_hint(advice) for kind in registry.kinds() if kind.advice_hint}
    return {key: hint for key, hint in hints.items() if hint}


def _python(value: dict[str, Any]) -> str:
    return "{" + ", ".join(f"{json.dumps(k)}: {json.dumps(v)}" for k, v in value.items()) + "}"


def _answer_json(
    method: str,
    advice: CalendarAdvice | CapacityAdvice,
    asked: dict[str, Any],
    recommendations: list[dict[str, Any]],
    **more: Any,
) -> dict[str, Any]:
    """The JSON form of an answer: the method, where it was asked, what was asked, the
    recommendations, anything ``more``, and why there are none (``message``)."""
    q = advice.query
    return {
        "method": method,
        "project": q.project,
        "region": q.region,
        **asked,
        "recommendations": recommendations,
        **more,
        "message": advice.why_empty() if advice.empty else None,
    }


def calendar_json(advice: CalendarAdvice) -> dict[str, Any]:
    """A JSON-ready summary of a Calendar-mode answer."""
    q = advice.query
    what: dict[str, Any] = {"machine_type": q.machine_type, "count": q.count}
    if q.tpu_version is not None:
        what = {"tpu_version": q.tpu_version, "chip_count": q.count}
        what["workload_type"] = q.workload_type
    asked = {
        **what,
        "min_duration": q.min_duration.human(),
        "max_duration": q.max_duration.human(),
        "earliest": format_timestamp(q.earliest),
        "latest": format_timestamp(q.latest),
    }
    windows = [w.to_dict() for w in advice.windows]
    others = [z.to_dict() for z in advice.other_zones]
    return _answer_json("calendarMode", advice, asked, windows, other_zones=others)


def capacity_json(advice: CapacityAdvice) -> dict[str, Any]:
    """A JSON-ready summary of a capacity answer."""
    q = advice.query
    asked = {
        "machine_types": list(q.machine_types),
        "count": q.count,
        "provisioning_model": q.provisioning_model,
        "target_shape": q.target_shape,
    }
    return _answer_json(
        "capacity",
        advice,
        asked,
        [o.to_dict() for o in advice.options],
        flex_start_group=group_args(advice),
        hints=kind_hints(advice),
    )


# --------------------------------------------------------------------------- --emit
def default_name(window: CalendarWindow) -> str:
    """``a3-highgpu-8g-20270301`` (``tpu-v6e-20270301``): what and start date, a valid
    resource name."""
    longest = limits.get("name.length").maximum
    what = window.machine_type if window.tpu_version is None else f"tpu-{window.tpu_version}"
    return f"{what}-{window.start_time:%Y%m%d}"[:longest].rstrip("-")


def reservation_args(window: CalendarWindow) -> dict[str, Any]:
    """The ``CalendarReservation`` arguments for a recommended window."""
    what: dict[str, Any] = {"machine_type": window.machine_type, "count": window.count}
    if window.tpu_version is not None:
        what = {"tpu_version": window.tpu_version, "chip_count": window.count}
        if window.workload_type is not None:
            what["workload_type"] = window.workload_type
    return {
        "zone": window.zone,
        **what,
        "start_time": format_timestamp(window.start_time),
        "end_time": format_timestamp(window.end_time),
    }


def emit_python(window: CalendarWindow, name: str | None = None) -> str:
    """A ready Pulumi program fragment creating the recommended reservation."""
    name = check_name("name", name or default_name(window))
    args = "".join(
        f"        {json.dumps(key)}: {json.dumps(value)},\n"
        for key, value in reservation_args(window).items()
    )
    return (
        "from pulumi_dws import CalendarReservation\n"
        "\n"
        "reservation = CalendarReservation(\n"
        f"    {json.dumps(name)},\n"
        "    {\n"
        f"{args}"
        "    },\n"
        ")\n"
    )


def emit_config(window: CalendarWindow, name: str | None = None) -> dict[str, Any]:
    """The ``dws:capacity`` stack-config object declaring the recommended reservation."""
    name = check_name("name", name or default_name(window))
    entry = {"name": name, **reservation_args(window)}
    return {"config": {"dws:capacity": {"calendar_reservations": [entry]}}}


def emit_yaml(window: CalendarWindow, name: str | None = None) -> str:
    """:func:`emit_config` as ``Pulumi.<stack>.yaml`` text."""
    return yaml.safe_dump(emit_config(window, name), sort_keys=False, default_flow_style=False)


def emit_text(window: CalendarWindow, name: str | None = None, index: int = 0) -> str:
    """Both snippets with a short header, as ``dws advise calendar --emit`` prints them."""
    return (
        f"# Recommendation #{index + 1}: {window.shape} in {window.zone}, "
        f"{format_timestamp(window.start_time)} -> {format_timestamp(window.end_time)} "
        f"({window.duration.human()})\n"
        "# Note: an approved Calendar-mode request cannot be modified, cancelled or deleted.\n"
        "\n"
        "# --- Python (__main__.py) ---\n"
        f"{emit_python(window, name)}"
        "\n"
        "# --- or stack config (Pulumi.<stack>.yaml), deployed by the dws blueprint ---\n"
        f"{emit_yaml(window, name)}"
    )


def emit_json(window: CalendarWindow, name: str | None = None, index: int = 0) -> dict[str, Any]:
    """Both snippets in one JSON object (``--emit --format json``)."""
    return {
        "pick": index + 1,
        "recommendation": window.to_dict(),
        "python": emit_python(window, name),
        "config": emit_config(window, name),
    }
