"""The limit rows of Calendar-mode reservations (``CalendarReservation``): window, look-ahead, VM
and TPU chip counts, name prefix (the TPU zones are the catalog's table); and what the ``seed``
profile changes: each row with its source, registered with :mod:`pulumi_dws.limits` when this
module is imported."""

from __future__ import annotations

from typing import Any

from ...limits import DAY, FACTS, WEEK, Limit, register

__all__ = ["ROWS", "SEED"]

CALENDAR_CREATE_DOCS = (
    "https://cloud.google.com/compute/docs/instances/create-future-reservations-calendar-mode"
)

ROWS: tuple[Limit, ...] = (
    Limit(
        "calendar.duration",
        "Calendar-mode reservation duration",
        "seconds",
        f"{FACTS} §4: current Google docs, 1 to 90 days (seed: 7 or 14 days)",
        minimum=DAY,
        maximum=90 * DAY,
    ),
    Limit(
        "calendar.start_ahead",
        "Calendar-mode look-ahead",
        "seconds",
        f"{FACTS} §4: current Google docs, start 1 to 120 days ahead (seed: 8 weeks)",
        minimum=DAY,
        maximum=120 * DAY,
    ),
    Limit(
        "calendar.start_ahead_vms",
        "Calendar-mode GPU and H4D VMs look-ahead",
        "seconds",
        (
            "https://cloud.google.com/compute/docs/instances/"
            "future-reservations-calendar-mode-overview, 'View resources future availability': "
            "'For GPU or H4D VMs, up to 60 days in advance; For TPUs, up to 120 days in "
            "advance' (frontier-facts.md §1 'Calendar mode'): how far ahead the advice shows "
            "VMs; TPUs keep calendar.start_ahead"
        ),
        minimum=DAY,
        maximum=60 * DAY,
    ),
    Limit(
        "calendar.count",
        "Calendar-mode GPU VM count",
        "count",
        (
            f"{CALENDAR_CREATE_DOCS} and the Calendar-mode overview (GPU VMs: 1 to 80 per "
            "request; frontier-facts.md §1 'Calendar mode', checked against the pages' "
            "stored copies, whose excerpts do not show the table: override the row if "
            "Google serves more)"
        ),
        minimum=1,
        maximum=80,
    ),
    Limit(
        "calendar.count_h4d",
        "Calendar-mode H4D VM count",
        "count",
        (
            "https://docs.cloud.google.com/compute/docs/instances/"
            "create-future-reservations-calendar-mode, current copy (checked 2026-12-01): "
            "'You can reserve up to 80 GPU VMs or 256 H4D VMs in a single request in calendar "
            "mode'; its Japanese copy (?hl=ja) reserves 'GPU, H4D, or TPU' resources, and the "
            "Calendar-mode overview gives GPU or H4D VMs a 60-day look-ahead. The stored English "
            "copy under cloud.google.com still says 'GPUs or TPUs' and '1 to 80 GPU VMs'. "
            "The GPU row is calendar.count"
        ),
        minimum=1,
        maximum=256,
    ),
    Limit(
        "calendar.tpu_chips.v6e",
        "TPU v6e chip count of a Calendar-mode request",
        "count",
        (
            f"{CALENDAR_CREATE_DOCS} ('You can reserve 1, 4, 8, 16, 32, 64, 128, 256, 512, "
            "or 1,024 TPU chips per request'; table: TPU v6e 1, 4, 8, 16, 32, 64, 128, or 256)"
        ),
        choices=(1, 4, 8, 16, 32, 64, 128, 256),
    ),
    Limit(
        "calendar.tpu_chips.v5e",
        "TPU v5e chip count of a Calendar-mode request",
        "count",
        f"{CALENDAR_CREATE_DOCS} (table: TPU v5e 1, 4, 8, 16, 32, 64, 128, or 256)",
        choices=(1, 4, 8, 16, 32, 64, 128, 256),
    ),
    Limit(
        "calendar.tpu_chips.v5e_serving",
        "TPU v5e SERVING chip count of a Calendar-mode request",
        "count",
        (
            f"{CALENDAR_CREATE_DOCS} ('You can only reserve 1, 4, or 8 TPU v5e chips for "
            "serving (SERVING) workload types')"
        ),
        choices=(1, 4, 8),
    ),
    Limit(
        "calendar.tpu_chips.v5p",
        "TPU v5p chip count of a Calendar-mode request",
        "count",
        f"{CALENDAR_CREATE_DOCS} (table: TPU v5p 4, 8, 16, 32, 64, 128, 256, 512, or 1,024)",
        choices=(4, 8, 16, 32, 64, 128, 256, 512, 1024),
    ),
    Limit(
        "calendar.name_prefix_length",
        "auto-created reservation name prefix length",
        "count",
        "pulumi-gcp FutureReservation.name_prefix: at most 20 characters",
        minimum=1,
        maximum=20,
    ),
)
"""This kind's rows."""

SEED: dict[str, dict[str, Any]] = {
    "calendar.duration": {
        "choices": (WEEK, 2 * WEEK),
        "minimum": WEEK,
        "maximum": 2 * WEEK,
        "source": f"{FACTS} §4 / seed 000: blocks of 7 or 14 days",
    },
    "calendar.start_ahead": {
        "maximum": 8 * WEEK,
        "source": f"{FACTS} §4 / seed 000: booked up to 8 weeks ahead",
    },
    "calendar.start_ahead_vms": {
        "maximum": 8 * WEEK,
        "source": f"{FACTS} §4 / seed 000: booked up to 8 weeks ahead",
    },
}
"""What the ``seed`` profile changes: the original DWS announcement's Calendar mode."""

register(*ROWS, seed=SEED)
