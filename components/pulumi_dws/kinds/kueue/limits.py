"""The limit rows of Kueue queues (``KueueQueue``): a ProvisioningRequest's run duration: each row
with its source, registered with :mod:`pulumi_dws.limits` when this module is imported."""

from __future__ import annotations

from ...limits import FACTS, WEEK, Limit, register

__all__ = ["ROWS"]

ROWS: tuple[Limit, ...] = (
    Limit(
        "kueue.max_run_duration",
        "ProvisioningRequest maxRunDurationSeconds",
        "seconds",
        f"{FACTS} §2: provreq maxRunDurationSeconds, bounded by the 7-day node limit",
        minimum=1,
        maximum=WEEK,
    ),
)
"""This kind's rows."""

register(*ROWS)
