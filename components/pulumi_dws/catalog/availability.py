"""Where each TPU generation is offered, per door, and the GKE versions each needs: one table
per fact, each row with its source.

A *door* is a way of asking Google for TPU chips; each door serves a generation in its own
zones:

==========================  ==============================================================
``tpu``                     TPU VMs at all: on demand, Spot and reservations (Cloud TPU
                            queued resources with ``spot`` or ``reservation_bound``, GKE
                            pools with queued provisioning alone or reserved nodes)
``cloud_tpu_flex_start``    Cloud TPU queued resources with Flex-start
``gke_flex_start``          GKE node pools of Flex-start TPU nodes (mode ``flex_start``, and
                            mode ``queued`` unless ``flex_start: False``)
``calendar``                Calendar-mode future reservations of TPU chips (v5e: per
                            workload type, ``BATCH`` or ``SERVING``)
==========================  ==============================================================

Spot and reservation-bound requests are served where the generation is (the ``tpu`` rows):
Google lists no narrower set of Spot zones per generation, and a reservation is checked
against its own zone. Every row is also a row of :mod:`pulumi_dws.limits` (unit ``zones``,
under :attr:`TpuZones.key`), so a stack overrides it as any limit when Google adds a zone
(``dws:limits: {tpu.zones.v6e: {zones: [...]}}``); :mod:`pulumi_dws.catalog.doors` reads the
rows in force.

This module holds data only (no pulumi-dws import), so :mod:`pulumi_dws.limits` can build its
rows from it.

Where the sources disagree:

* TPU v5e Calendar mode SERVING: the Calendar-mode TPU page (zh-cn, 2025-10-30) lists
  us-south1-a; an older mirror lists us-central1-a. The table follows the newer page.
* The TPU regions page changed over time: older copies list v5p in us-east5-c and v6e in
  us-east1-d only; copies from 2025-09 list v6e in us-central1-b, us-east1-d, us-east5-a,
  us-east5-b, europe-west4-a and v5p in us-central1-a, us-east5-a. The table follows the
  newest English page, adding the zones a door of the same generation lists (a door's zone is
  a zone of the generation).
* GKE's flex-start page (zh-cn) lists no TPU7x zone, while Cluster Toolkit ships TPU7x
  Flex-start blueprints: no TPU7x Flex-start row here (override one when you have it).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "DOORS",
    "TpuZones",
    "TPU_ZONES",
    "GkeVersion",
    "GKE_VERSIONS",
    "REGIONS_PAGE",
    "TPU_FLEX_PAGE",
    "TPU_CALENDAR_PAGE",
    "GKE_FLEX_PAGE",
]

REGIONS_PAGE = "https://docs.cloud.google.com/tpu/docs/regions-zones"
TPU_FLEX_PAGE = "https://docs.cloud.google.com/tpu/docs/request-using-flex-start"
TPU_CALENDAR_PAGE = "https://docs.cloud.google.com/tpu/docs/calendar-mode-reservation"
GKE_FLEX_PAGE = "https://docs.cloud.google.com/kubernetes-engine/docs/concepts/dws"
GKE_PROVISIONING_PAGE = (
    "https://docs.cloud.google.com/kubernetes-engine/docs/how-to/provisioningrequest"
)
TPU7X_GKE_PAGE = "https://docs.cloud.google.com/kubernetes-engine/docs/concepts/tpu-ironwood"

DOORS: dict[str, str] = {
    "tpu": "TPU VMs (on demand, Spot, reservations)",
    "cloud_tpu_flex_start": "Cloud TPU Flex-start",
    "gke_flex_start": "GKE Flex-start TPU nodes",
    "calendar": "Calendar mode",
}
"""Every door, with the words messages use for it."""


@dataclass(frozen=True)
class TpuZones:
    """The zones where ``door`` offers TPU ``generation`` (for ``workload``, Calendar mode's
    ``BATCH`` or ``SERVING``, where the zones differ), under limits row ``key``."""

    key: str
    door: str
    generation: str
    zones: tuple[str, ...]
    source: str
    workload: str | None = None

    @property
    def description(self) -> str:
        """What the row is, in the words of a message (``TPU v6e in Calendar mode``)."""
        what = f"TPU {self.generation}" if self.generation != "tpu7x" else "TPU7x"
        if self.workload:
            what += f" for {self.workload}"
        return f"{what} through {DOORS[self.door]}"


_REGIONS = (
    f"{REGIONS_PAGE} (the zones each TPU type is offered in; the table lists the North America, "
    "Europe and Asia Pacific rows)"
)

TPU_ZONES: tuple[TpuZones, ...] = (
    # ---------------------------------------------------------------- where each generation is
    TpuZones(
        "tpu.zones.tpu7x",
        "tpu",
        "tpu7x",
        ("us-central1-ai1a", "us-central1-c"),
        f"{_REGIONS}: TPU7x us-central1-ai1a, us-central1-c",
    ),
    TpuZones(
        "tpu.zones.v6e",
        "tpu",
        "v6e",
        (
            "asia-northeast1-b",
            "europe-west4-a",
            "us-central1-b",
            "us-east1-d",
            "us-east5-a",
            "us-east5-b",
        ),
        (
            f"{_REGIONS}: v6e us-central1-b, us-east1-d, us-east5-a, us-east5-b, europe-west4-a; "
            f"asia-northeast1-b from {TPU_FLEX_PAGE} and {TPU_CALENDAR_PAGE}"
        ),
    ),
    TpuZones(
        "tpu.zones.v5p",
        "tpu",
        "v5p",
        ("us-central1-a", "us-east5-a"),
        f"{_REGIONS}: v5p us-central1-a, us-east5-a",
    ),
    TpuZones(
        "tpu.zones.v5e",
        "tpu",
        "v5e",
        (
            "europe-west4-b",
            "us-central1-a",
            "us-south1-a",
            "us-west1-c",
            "us-west4-a",
            "us-west4-b",
        ),
        (
            f"{_REGIONS}: v5e us-central1-a, us-south1-a, us-west1-c, us-west4-a; "
            f"europe-west4-b and us-west4-b from {TPU_CALENDAR_PAGE} (BATCH) and older copies "
            "of the regions page"
        ),
    ),
    # ---------------------------------------------------------------- Cloud TPU Flex-start
    TpuZones(
        "queued_tpu.flex_start_zones.v6e",
        "cloud_tpu_flex_start",
        "v6e",
        ("asia-northeast1-b", "us-east5-a"),
        f'{TPU_FLEX_PAGE} ("TPU v6e for training and serving: asia-northeast1-b, us-east5-a")',
    ),
    TpuZones(
        "queued_tpu.flex_start_zones.v5e",
        "cloud_tpu_flex_start",
        "v5e",
        ("us-west4-a", "us-central1-a"),
        (
            f'{TPU_FLEX_PAGE} ("TPU v5e for training: us-west4-a; TPU v5e for serving: '
            'us-central1-a")'
        ),
    ),
    # ---------------------------------------------------------------- GKE Flex-start nodes
    TpuZones(
        "gke.tpu_flex_start_zones.v6e",
        "gke_flex_start",
        "v6e",
        ("asia-northeast1-b", "us-east5-a", "us-east5-b"),
        (
            f"{GKE_FLEX_PAGE}?hl=zh-cn (flex-start TPU availability: v6e asia-northeast1-b, "
            "us-east5-a, us-east5-b)"
        ),
    ),
    TpuZones(
        "gke.tpu_flex_start_zones.v5p",
        "gke_flex_start",
        "v5p",
        ("us-east5-a",),
        f"{GKE_FLEX_PAGE}?hl=zh-cn (flex-start TPU availability: v5p us-east5-a)",
    ),
    TpuZones(
        "gke.tpu_flex_start_zones.v5e",
        "gke_flex_start",
        "v5e",
        ("us-west4-a",),
        f"{GKE_FLEX_PAGE}?hl=zh-cn (flex-start TPU availability: v5e us-west4-a)",
    ),
    # ---------------------------------------------------------------- Calendar mode
    TpuZones(
        "calendar.tpu_zones.v6e",
        "calendar",
        "v6e",
        ("asia-northeast1-b", "europe-west4-a", "us-east5-a", "us-east5-b"),
        f"{TPU_CALENDAR_PAGE} (supported zones, updated 2025-12-18)",
    ),
    TpuZones(
        "calendar.tpu_zones.v5p",
        "calendar",
        "v5p",
        ("us-east5-a",),
        f"{TPU_CALENDAR_PAGE} (supported zones, updated 2025-12-18)",
    ),
    TpuZones(
        "calendar.tpu_zones.v5e_batch",
        "calendar",
        "v5e",
        ("europe-west4-b", "us-west4-b"),
        f"{TPU_CALENDAR_PAGE} (supported zones, updated 2025-12-18: BATCH)",
        workload="BATCH",
    ),
    TpuZones(
        "calendar.tpu_zones.v5e_serving",
        "calendar",
        "v5e",
        ("us-south1-a",),
        (
            f"{TPU_CALENDAR_PAGE} (supported zones, updated 2025-12-18: SERVING; older "
            "versions of the page said us-central1-a)"
        ),
        workload="SERVING",
    ),
)
"""Every (door, generation[, workload]) row. A generation with no row for a door is not
offered through it (v5p through Cloud TPU Flex-start, TPU7x through the Cloud TPU API)."""


@dataclass(frozen=True)
class GkeVersion:
    """The first GKE version with ``feature``."""

    feature: str
    version: str
    source: str


GKE_VERSIONS: dict[str, GkeVersion] = {
    v.feature: v
    for v in (
        GkeVersion(
            "gpu_flex_start",
            "1.32.2-gke.1652000",
            (
                f'{GKE_PROVISIONING_PAGE} ("that you have a GKE cluster in version '
                '1.32.2-gke.1652000 or later"; "the minimum version for nodes that use '
                'Flex-start VMs")'
            ),
        ),
        GkeVersion(
            "tpu_flex_start",
            "1.33.0-gke.1712000",
            f'{GKE_FLEX_PAGE} ("To run TPUs, use GKE version 1.33.0-gke.1712000 or later")',
        ),
        GkeVersion(
            "tpu7x",
            "1.34.0-gke.2201000",
            f"{TPU7X_GKE_PAGE}?hl=es (GKE Standard 1.34.0-gke.2201000 or later; Autopilot "
            "1.34.1-gke.3084001)",
        ),
    )
}
"""The first GKE version with each feature (``gpu_flex_start``, ``tpu_flex_start``,
``tpu7x`` nodes)."""
