"""The regions Cloud Batch serves, with its source. A job is created in one of them (its
location); its VMs run in that region.

When Google opens Batch in a region this table does not list yet, add it for the running
program::

    from pulumi_dws.kinds.batch import locations
    locations.add_region("europe-west15")
"""

from __future__ import annotations

from typing import Any

from ...errors import DwsValidationError
from ...outputs import is_output

__all__ = ["BATCH_REGIONS", "SOURCE", "add_region", "check_region"]

SOURCE = "https://docs.cloud.google.com/batch/docs/locations"

BATCH_REGIONS: set[str] = {
    # Americas
    "northamerica-northeast1", "northamerica-northeast2", "southamerica-east1",
    "southamerica-west1", "us-central1", "us-east1", "us-east4", "us-east5", "us-south1",
    "us-west1", "us-west2", "us-west3", "us-west4",
    # Europe and the Middle East
    "europe-central2", "europe-north1", "europe-southwest1", "europe-west1", "europe-west2",
    "europe-west3", "europe-west4", "europe-west6", "europe-west8", "europe-west9",
    "europe-west10", "europe-west12", "me-central1", "me-central2", "me-west1",
    # Asia Pacific
    "asia-east1", "asia-east2", "asia-northeast1", "asia-northeast2", "asia-northeast3",
    "asia-south1", "asia-south2", "asia-southeast1", "asia-southeast2", "australia-southeast1",
    "australia-southeast2",
}  # fmt: skip
"""Batch locations (:data:`SOURCE`: "Only the following regions can be used for a job's
location")."""


def add_region(region: str) -> None:
    """Accept ``region`` as a Batch location from now on (Google opened one)."""
    BATCH_REGIONS.add(region)


def check_region(field: str, value: Any) -> Any:
    """A region Batch serves (an Output is checked once known, by the spec)."""
    if is_output(value):
        return value
    if not isinstance(value, str) or value not in BATCH_REGIONS:
        raise DwsValidationError(
            field,
            value,
            f"is not a region Batch serves; use one of {', '.join(sorted(BATCH_REGIONS))} "
            f"({SOURCE}), or pulumi_dws.kinds.batch.locations.add_region() a new one",
        )
    return value
