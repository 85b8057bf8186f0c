"""What each door checks for TPUs: the zones it offers a generation in (the rows of
:mod:`pulumi_dws.catalog.availability` as the limits table has them in force) and the GKE
versions a pool needs.

    from pulumi_dws import catalog

    catalog.tpu_zones("v6e", "cloud_tpu_flex_start")      # ('asia-northeast1-b', 'us-east5-a')
    catalog.check_tpu_zone("zone", "us-central1-a", "v6e", "gke_flex_start")   # raises
    catalog.tpu_doors("v5p")                              # {'tpu': (...), 'gke_flex_start': ...}
"""

from __future__ import annotations

import re
from typing import Any

from .. import limits
from ..errors import DwsValidationError
from ..outputs import output_aware
from .availability import DOORS, GKE_VERSIONS, TPU_ZONES, TpuZones
from .tpus import TpuGeneration, tpu_generation

__all__ = [
    "zone_rows",
    "tpu_zones",
    "tpu_doors",
    "check_tpu_zone",
    "check_tpu_door",
    "check_tpu_region",
    "gke_min_version",
    "check_gke_version",
]

_VERSION = re.compile(r"^(\d+)\.(\d+)(?:\.(\d+)(?:-gke\.(\d+))?)?\Z")


def _generation(generation: str | TpuGeneration) -> TpuGeneration:
    if isinstance(generation, TpuGeneration):
        return generation
    return tpu_generation("generation", generation)


def _door(door: str) -> str:
    if door not in DOORS:
        raise DwsValidationError("door", door, f"is not a door; use one of {', '.join(DOORS)}")
    return door


def zone_rows(
    generation: str | TpuGeneration, door: str, workload: str | None = None
) -> tuple[TpuZones, ...]:
    """The rows of :data:`~pulumi_dws.catalog.availability.TPU_ZONES` for ``generation``
    through ``door`` (Calendar mode's v5e: one per workload type, or the one of
    ``workload``); empty when the door does not offer the generation."""
    gen, door = _generation(generation).name, _door(door)
    rows = [r for r in TPU_ZONES if r.door == door and r.generation == gen]
    if workload is not None and any(r.workload for r in rows):
        rows = [r for r in rows if r.workload == workload.upper()]
    return tuple(rows)


def tpu_zones(
    generation: str | TpuGeneration, door: str, workload: str | None = None
) -> tuple[str, ...] | None:
    """The zones where ``door`` offers ``generation`` (the limits rows in force, so a stack's
    ``dws:limits`` override counts); None when the door does not offer it at all."""
    rows = zone_rows(generation, door, workload)
    if not rows:
        return None
    zones: list[str] = []
    for row in rows:
        for zone in limits.get(row.key).zones or ():
            if zone not in zones:
                zones.append(zone)
    return tuple(zones)


def tpu_doors(generation: str | TpuGeneration) -> dict[str, tuple[str, ...]]:
    """Every door that offers ``generation``, with its zones."""
    found = {door: tpu_zones(generation, door) for door in DOORS}
    return {door: zones for door, zones in found.items() if zones is not None}


def _what(gen: TpuGeneration, workload: str | None) -> str:
    name = "TPU7x" if gen.name == "tpu7x" else f"TPU {gen.name}"
    return name + (f" {workload.upper()}" if workload else "")


def check_tpu_door(
    field: str,
    value: Any,
    generation: str | TpuGeneration,
    door: str,
    *,
    hint: str = "",
) -> TpuGeneration:
    """Refuse a generation ``door`` does not offer at all, naming ``field`` (the argument that
    chose the generation: ``accelerator_type``, ``machine_type``) and ``value``."""
    gen = _generation(generation)
    if tpu_zones(gen, door) is None:
        offered = [g for g in ("v6e", "v5e", "v5p", "tpu7x") if zone_rows(g, door)]
        names = ", ".join(offered) or "no generation"
        raise DwsValidationError(
            field,
            value,
            f"is not offered through {DOORS[door]} ({gen.title}); it serves {names}"
            + (f": {hint}" if hint else ""),
        )
    return gen


@output_aware
def check_tpu_zone(
    field: str,
    zone: Any,
    generation: str | TpuGeneration,
    door: str,
    *,
    workload: str | None = None,
) -> str:
    """``zone``, when ``door`` offers ``generation`` there (an Output: once it is known); else
    one :class:`DwsValidationError` naming ``field``, the zone, the zones there are and the
    limits rows that list them."""
    gen = _generation(generation)
    zones = tpu_zones(gen, door, workload)
    if zones is None:
        check_tpu_door(field, zone, gen, door)
        return zone
    if zone in zones:
        return zone
    keys = ", ".join(row.key for row in zone_rows(gen, door, workload))
    raise DwsValidationError(
        field,
        zone,
        f"is not a zone where {_what(gen, workload)} is offered through {DOORS[door]}: use "
        f"{', '.join(zones)} (limits row{'s' if ',' in keys else ''} {keys})",
    )


def check_tpu_region(field: str, region: Any, generation: str | TpuGeneration, door: str) -> Any:
    """``region``, when ``door`` offers ``generation`` in one of its zones at least (a
    regional node pool or ComputeClass whose zones GKE picks); else one
    :class:`DwsValidationError` naming ``field`` and the zones there are. A value not known yet
    is left be."""
    if not isinstance(region, str):
        return region
    gen = _generation(generation)
    zones = tpu_zones(gen, door)
    if zones is None:
        check_tpu_door(field, region, gen, door)
        return region
    if any(zone.startswith(region + "-") for zone in zones):
        return region
    keys = ", ".join(row.key for row in zone_rows(gen, door))
    raise DwsValidationError(
        field,
        region,
        f"has no zone where {_what(gen, None)} is offered through {DOORS[door]}: use a region "
        f"of {', '.join(zones)} (limits row{'s' if ',' in keys else ''} {keys})",
    )


def gke_min_version(feature: str) -> str:
    """The first GKE version with ``feature`` (``gpu_flex_start``, ``tpu_flex_start``,
    ``tpu7x``)."""
    try:
        return GKE_VERSIONS[feature].version
    except KeyError:
        known = ", ".join(GKE_VERSIONS)
        raise DwsValidationError("feature", feature, f"is unknown; use one of {known}") from None


def _parts(version: str) -> tuple[int, ...]:
    match = _VERSION.match(version)
    assert match is not None
    return tuple(int(p) for p in match.groups() if p is not None)


def check_gke_version(field: str, version: Any, feature: str, what: str, hint: str) -> Any:
    """Refuse a GKE ``version`` older than the first one with ``feature`` (a version that is
    not shaped like one, or None, is left to GKE)."""
    if not isinstance(version, str) or _VERSION.match(version) is None:
        return version
    first = gke_min_version(feature)
    given = _parts(version)
    if given < _parts(first)[: len(given)]:
        raise DwsValidationError(
            field, version, f"is older than {first}, the first GKE version with {what}; {hint}"
        )
    return version
