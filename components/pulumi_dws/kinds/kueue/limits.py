"""The limit rows of Kueue queues (``KueueQueue``): a ProvisioningRequest's run duration. Each row
names its source.

Registered with :mod:`pulumi_dws.limits` when this module is imported (by the kind's component,
and by ``pulumi_dws.limits`` itself when a look-up needs every row), so ``limits.get``,
``dws limits`` and ``dws:limits`` overrides know them.
"""

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
