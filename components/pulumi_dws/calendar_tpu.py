"""What Calendar mode offers for TPUs: versions, workload types, chip counts and zones.

Shared by :class:`~pulumi_dws.CalendarReservation`, the ``calendar-tpu-request``
policy rule and ``dws advise calendar --tpu-version``. Chip counts and zones are rows of the
limits table (``calendar.tpu_chips.<version>``, ``calendar.tpu_zones.<version>``; v5e has a
row per workload type), overridable like every row.
"""

from __future__ import annotations

from typing import Any

from . import catalog, limits
from .errors import DwsValidationError

__all__ = [
    "WORKLOAD_TYPES",
    "CALENDAR_TPU_VERSIONS",
    "calendar_tpu_version",
    "tpu_chip_row",
    "tpu_zone_rows",
    "tpu_zones",
    "check_tpu_chips",
    "check_tpu_zone",
]

WORKLOAD_TYPES = ("BATCH", "SERVING")
"""``aggregateReservation.workloadType`` (and gcloud's ``--workload-type``)."""
CALENDAR_TPU_VERSIONS = tuple(
    g.name for g in catalog.tpu_generations() if g.calendar_version is not None
)
"""The TPU versions gcloud 528 reserves in Calendar mode (``--tpu-version`` V5E, V5P, V6E);
TPU7x is in the API's ``vmFamily`` enum only."""


def calendar_tpu_version(field: str, value: Any) -> str:
    """A TPU version Calendar mode offers, by any of its names (``v6e``, ``V6E``...), as its
    short name."""
    gen = catalog.tpu_generation(field, value)
    if gen.calendar_version is None:
        raise DwsValidationError(
            field,
            value,
            "is not offered in Calendar mode by gcloud 528 (--tpu-version V5E, V5P, V6E); use "
            f"one of {', '.join(CALENDAR_TPU_VERSIONS)}",
        )
    return gen.name


def tpu_chip_row(version: str, workload_type: str | None) -> str:
    """The limits row of the chip counts a TPU request may ask for."""
    serving = version == "v5e" and workload_type == "SERVING"
    return f"calendar.tpu_chips.{version}" + ("_serving" if serving else "")


def tpu_zone_rows(version: str, workload_type: str | None) -> tuple[str, ...]:
    """The limits rows of the zones a TPU request may use (v5e: per workload type): the
    catalog's Calendar-mode rows (:mod:`pulumi_dws.catalog.availability`)."""
    return tuple(row.key for row in catalog.zone_rows(version, "calendar", workload_type))


def tpu_zones(version: str, workload_type: str | None) -> tuple[str, ...] | None:
    """The zones where Calendar mode offers ``version`` (None: it offers it nowhere)."""
    return catalog.tpu_zones(version, "calendar", workload_type)


def check_tpu_chips(field: str, chips: int, version: str, workload_type: str | None) -> int:
    """``chips`` must be a count Calendar mode offers for ``version`` (and ``workload_type``)."""
    return limits.check_count(field, chips, tpu_chip_row(version, workload_type))


def check_tpu_zone(field: str, zone: str, version: str, workload_type: str | None) -> str:
    """``zone`` must be one where Calendar mode offers TPU ``version`` (for ``workload_type``)."""
    result: str = catalog.check_tpu_zone(field, zone, version, "calendar", workload=workload_type)
    return result
