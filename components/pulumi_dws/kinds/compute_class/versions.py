"""The GKE versions that serve each ComputeClass field pulumi-dws writes, with their sources.

A :class:`~pulumi_dws.ComputeClass` given ``gke_version`` (the cluster's control plane version)
is checked against this table at construction: a field the cluster's GKE cannot take is one
clear error naming the field, the version and the first version that takes it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ...errors import DwsValidationError
from ..node_pool.component import FLEX_START_MIN_GKE_VERSION, TPU_FLEX_START_MIN_GKE_VERSION

__all__ = ["GkeFeature", "FEATURES", "parse_gke_version", "supports", "check_gke_version"]

ABOUT = "https://docs.cloud.google.com/kubernetes-engine/docs/concepts/about-custom-compute-classes"
DWS_CONCEPT = "https://docs.cloud.google.com/kubernetes-engine/docs/concepts/dws"
_VERSION = re.compile(r"^v?(\d+)\.(\d+)(?:\.(\d+)(?:-gke\.(\d+))?)?\Z")


@dataclass(frozen=True)
class GkeFeature:
    """A ComputeClass capability and the first GKE version with it."""

    key: str
    what: str
    since: str
    source: str


FEATURES: dict[str, GkeFeature] = {
    f.key: f
    for f in (
        GkeFeature(
            "compute_class",
            "custom ComputeClasses",
            "1.30.3-gke.1451000",
            f"{ABOUT} (Autopilot and Standard, 1.30.3-gke.1451000 and later)",
        ),
        GkeFeature(
            "gpu_driver_version",
            "gpu.driverVersion",
            "1.31.1-gke.1858000",
            f"{ABOUT} (GPU configuration: driverVersion requires 1.31.1-gke.1858000)",
        ),
        GkeFeature(
            "tpu",
            "TPU priority rules",
            "1.31.2-gke.1518000",
            f"{ABOUT} (TPU configuration requires 1.31.2-gke.1518000)",
        ),
        GkeFeature(
            "reservations",
            "reservations in priority rules",
            "1.31.1-gke.2105000",
            f"{ABOUT} (Consume Compute Engine reservations: 1.31.1-gke.2105000 and later)",
        ),
        GkeFeature(
            "reservation_block",
            "reservations.specific[].reservationBlock",
            "1.31.4-gke.1072000",
            f"{ABOUT} (Consume specific reservation blocks: 1.31.4-gke.1072000, A3 Ultra, A4)",
        ),
        GkeFeature(
            "reservation_sub_block",
            "reservationBlock.reservationSubBlock",
            "1.33.1-gke.1788000",
            f"{ABOUT} (reservation sub-blocks: 1.33.1-gke.1788000, A4X)",
        ),
        GkeFeature(
            "priority_defaults",
            "priorityDefaults (the class's zones)",
            "1.32.1-gke.1729000",
            f"{ABOUT} (priorityDefaults requires 1.32.1-gke.1729000 or later)",
        ),
        GkeFeature(
            "flex_start",
            "Flex-start GPU nodes",
            FLEX_START_MIN_GKE_VERSION,
            f"{DWS_CONCEPT} (Requirements: 1.32.2-gke.1652000 or later)",
        ),
        GkeFeature(
            "flex_start_tpu",
            "Flex-start TPU nodes",
            TPU_FLEX_START_MIN_GKE_VERSION,
            f"{DWS_CONCEPT} (To run TPUs, use GKE version 1.33.0-gke.1712000 or later)",
        ),
        GkeFeature(
            "auto_creation_without_nap",
            "node pool auto-creation without cluster-level node auto-provisioning",
            "1.33.3-gke.1136000",
            f"{ABOUT} (Node pool auto-creation and ComputeClasses: on earlier versions, also "
            "enable cluster-level node auto-provisioning)",
        ),
    )
}


def parse_gke_version(field: str, value: str) -> tuple[int, ...]:
    """``1.33.3-gke.1136000`` -> ``(1, 33, 3, 1136000)`` (a shorter ``1.33`` is a prefix)."""
    match = _VERSION.match(value) if isinstance(value, str) else None
    if match is None:
        raise DwsValidationError(
            field, value, "is not a GKE version like 1.33.3-gke.1136000 (or 1.33)"
        )
    return tuple(int(part) for part in match.groups() if part is not None)


def supports(version: str, feature: str) -> bool:
    """Whether GKE ``version`` has ``feature``. A prefix such as ``1.33`` stands for any
    release of that minor version: a feature first served by a later 1.33 patch is taken as
    served (give the full version to have it checked)."""
    given = parse_gke_version("gke_version", version)
    first = parse_gke_version("since", FEATURES[feature].since)
    return given >= first[: len(given)]


def check_gke_version(field: str, value: object, version: str | None, feature: str) -> None:
    """Raise :class:`DwsValidationError` naming ``field`` when ``version`` predates
    ``feature`` (nothing to check without a version)."""
    if version is None or supports(version, feature):
        return
    found = FEATURES[feature]
    raise DwsValidationError(
        field,
        value,
        f"needs {found.what}, which GKE serves from {found.since}; the cluster runs "
        f"{version} (gke_version)",
    )
