"""What ``dws advise capacity`` suggests for Cloud Batch: Flex-start VMs found by the Compute
advice API (``advice.capacity``) are the VMs a Batch job on Flex-start gets, so a
recommendation of Flex-start VMs of one machine type in one zone can be taken by one
``BatchFlexJob`` running that many tasks at once there."""

from __future__ import annotations

import json
from typing import Any

from ...advice.results import CapacityAdvice
from ...errors import DwsValidationError
from ...models import parse_args
from .component import BatchFlexJobSpec

__all__ = ["advice_args", "advice_hint"]


def advice_args(advice: CapacityAdvice) -> dict[str, Any] | None:
    """``BatchFlexJob`` arguments for recommendation #1 when one job can take it: Flex-start
    VMs, one machine type, one zone, every VM asked for, and a job Batch takes (its region
    served, its machine type offered); None otherwise."""
    if advice.empty:
        return None
    shards = advice.options[0].shards
    zones = {s.zone for s in shards}
    machines = {s.machine_type for s in shards}
    if len(zones) != 1 or len(machines) != 1:
        return None
    if {s.provisioning_model for s in shards} != {"FLEX_START"}:
        return None
    count = sum(s.count for s in shards)
    if count < advice.query.count:
        return None
    zone = next(iter(zones))
    args: dict[str, Any] = {
        "region": zone.rsplit("-", 1)[0],
        "zones": [zone],
        "machine_type": next(iter(machines)),
        "image": "IMAGE",
        "task_count": count,
        "parallelism": count,
        "max_run_duration": "1d",
    }
    try:
        parse_args(BatchFlexJobSpec, args)
    except DwsValidationError:
        return None  # a region Batch does not serve, a machine Flex-start does not offer...
    return args


def advice_hint(advice: CapacityAdvice) -> str | None:
    """What to write to run recommendation #1's VMs as one Batch job (see :func:`advice_args`),
    or None when one job can't take it."""
    args = advice_args(advice)
    if args is None:
        return None
    text = "{" + ", ".join(f"{json.dumps(k)}: {json.dumps(v)}" for k, v in args.items()) + "}"
    return (
        f"To run {args['task_count']} tasks at once on these VMs, one BatchFlexJob (dws:capacity "
        f'key batch_flex_jobs): BatchFlexJob("NAME", {text}); set image (or script), commands '
        "and max_run_duration (10m to 7d)."
    )
