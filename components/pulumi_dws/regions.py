"""The Google Cloud regions and zones pulumi-dws accepts: one table, with its source and date.

``us-central1-z`` and ``us-centrl1`` look like a zone and a region but do not exist; Google
would refuse them only at deploy time, after other resources were made. When Google opens a
region or zone, add it instead of waiting for a release::

    from pulumi_dws import regions
    regions.add("us-east7", ["a", "b", "c"])        # a new region
    regions.add("us-central1", ["g"])               # a new zone in a known region

or, per stack, in ``Pulumi.<stack>.yaml`` (honoured by every program that uses pulumi-dws)::

    config:
      dws:regions:
        us-east7: [a, b, c]

AI zones (``us-central1-ai1a``: ``<region>-ai<group><letter>``, accelerator zones away from the
region's standard zones) are known where Google documents them (:data:`DEFAULT_AI_ZONES`); add
another the same way (``regions.add("us-east5", ["ai1a"])``). A regional managed instance group
never picks an AI zone on its own: list it in the group's zones (``FlexStartGroup`` ``zones``).
"""

from __future__ import annotations

import contextlib
import difflib
import re
from collections.abc import Iterable, Iterator, Mapping
from contextvars import ContextVar
from types import MappingProxyType
from typing import Any

from . import stack_config
from .errors import DwsValidationError

__all__ = [
    "SOURCE",
    "AS_OF",
    "DEFAULT_REGIONS",
    "CONFIG_KEY",
    "table",
    "zones_of",
    "ai_zones_of",
    "AI_ZONES_SOURCE",
    "DEFAULT_AI_ZONES",
    "is_region",
    "is_zone",
    "region_of_zone",
    "suggest_region",
    "suggest_zone",
    "add",
    "added",
    "reset",
    "apply_config",
    "from_stack",
    "snapshot",
    "restore",
]

SOURCE = (
    "Google Cloud, Compute Engine 'Regions and zones' "
    "(https://cloud.google.com/compute/docs/regions-zones), table 'Available regions and zones'"
)
AS_OF = "2026-11-30"
CONFIG_KEY = "dws:regions"

# Region -> letters of its standard zones, as the source lists them.
DEFAULT_REGIONS: dict[str, tuple[str, ...]] = {
    "africa-south1": ("a", "b", "c"),
    "asia-east1": ("a", "b", "c"),
    "asia-east2": ("a", "b", "c"),
    "asia-northeast1": ("a", "b", "c"),
    "asia-northeast2": ("a", "b", "c"),
    "asia-northeast3": ("a", "b", "c"),
    "asia-south1": ("a", "b", "c"),
    "asia-south2": ("a", "b", "c"),
    "asia-southeast1": ("a", "b", "c"),
    "asia-southeast2": ("a", "b", "c"),
    "asia-southeast3": ("a", "b", "c"),
    "australia-southeast1": ("a", "b", "c"),
    "australia-southeast2": ("a", "b", "c"),
    "europe-central2": ("a", "b", "c"),
    "europe-north1": ("a", "b", "c"),
    "europe-north2": ("a", "b", "c"),
    "europe-southwest1": ("a", "b", "c"),
    "europe-west1": ("b", "c", "d"),
    "europe-west2": ("a", "b", "c"),
    "europe-west3": ("a", "b", "c"),
    "europe-west4": ("a", "b", "c"),
    "europe-west6": ("a", "b", "c"),
    "europe-west8": ("a", "b", "c"),
    "europe-west9": ("a", "b", "c"),
    "europe-west10": ("a", "b", "c"),
    "europe-west12": ("a", "b", "c"),
    "me-central1": ("a", "b", "c"),
    "me-central2": ("a", "b", "c"),
    "me-west1": ("a", "b", "c"),
    "northamerica-northeast1": ("a", "b", "c"),
    "northamerica-northeast2": ("a", "b", "c"),
    "northamerica-south1": ("a", "b", "c"),
    "southamerica-east1": ("a", "b", "c"),
    "southamerica-west1": ("a", "b", "c"),
    "us-central1": ("a", "b", "c", "f"),
    "us-east1": ("b", "c", "d"),
    "us-east4": ("a", "b", "c"),
    "us-east5": ("a", "b", "c"),
    "us-south1": ("a", "b", "c"),
    "us-west1": ("a", "b", "c"),
    "us-west2": ("a", "b", "c"),
    "us-west3": ("a", "b", "c"),
    "us-west4": ("a", "b", "c"),
}

AI_ZONES_SOURCE = (
    "Google Cloud, Compute Engine 'AI zones' "
    "(https://docs.cloud.google.com/compute/docs/regions-zones/ai-zones: us-central1-ai1a, "
    "us-south1-ai1b; an AI zone's parent is the standard zone with its suffix). The Cloud TPU "
    "zones page lists 'us-central1-ai1' for v6e, without the letter."
)

# Region -> the suffixes of its AI zones Google documents (AI_ZONES_SOURCE).
DEFAULT_AI_ZONES: dict[str, tuple[str, ...]] = {
    "us-central1": ("ai1a",),
    "us-south1": ("ai1b",),
}

_REGION_SHAPE = re.compile(r"[a-z]+-[a-z]+[0-9]+")
_ZONE_SHAPE = re.compile(r"(?P<region>[a-z]+-[a-z]+[0-9]+)-(?P<zone>[a-z]|ai[0-9]+[a-z])")
_LETTER = re.compile(r"[a-z]|ai[0-9]+[a-z]")

_added: ContextVar[Mapping[str, tuple[str, ...]]] = ContextVar(
    "dws_regions_added", default=MappingProxyType({})
)
"""The regions and zones :func:`add` added in this context (as the limits' overrides)."""


def table() -> dict[str, tuple[str, ...]]:
    """Every region in force with its zone letters: the defaults, what :func:`add` added and
    what the running stack's ``dws:regions`` config adds."""
    merged = {region: tuple(zones) for region, zones in DEFAULT_REGIONS.items()}
    for extra in (DEFAULT_AI_ZONES, _added.get(), from_stack()):
        for region, zones in extra.items():
            merged[region] = tuple(sorted(set(merged.get(region, ())) | set(zones)))
    return merged


_stack_cache: tuple[str | None, dict[str, tuple[str, ...]]] = (None, {})


def from_stack() -> dict[str, tuple[str, ...]]:
    """The regions and zones the running program's ``dws:regions`` stack config adds."""
    global _stack_cache
    text = stack_config.raw(CONFIG_KEY)
    if text is None:
        return {}
    if _stack_cache[0] != text:
        config = stack_config.parse(CONFIG_KEY, text)
        _stack_cache = (text, {r: _checked(r, z, CONFIG_KEY) for r, z in config.items()})
    return _stack_cache[1]


def _checked(region: Any, zones: Any, where: str) -> tuple[str, ...]:
    if not isinstance(region, str) or not _REGION_SHAPE.fullmatch(region):
        raise DwsValidationError(where, region, "is not shaped like a region (us-central1)")
    return _letters(region, zones, f"{where}.{region}")


def zones_of(region: str) -> list[str]:
    """The standard zones of ``region`` (``["us-central1-a", ...]``); empty if unknown."""
    return [f"{region}-{z}" for z in table().get(region, ()) if not z.startswith("ai")]


def ai_zones_of(region: str) -> list[str]:
    """The AI zones of ``region`` the table knows (``["us-central1-ai1a"]``)."""
    return [f"{region}-{z}" for z in table().get(region, ()) if z.startswith("ai")]


def is_region(name: str) -> bool:
    return name in table()


def region_of_zone(name: str) -> str | None:
    """The region part of anything shaped like a zone (``us-centrl1-a`` -> ``us-centrl1``)."""
    match = _ZONE_SHAPE.fullmatch(name)
    return match.group("region") if match else None


def is_zone(name: str) -> bool:
    """A zone the table lists: a standard zone or a known AI zone (``<region>-ai<n><letter>``)."""
    match = _ZONE_SHAPE.fullmatch(name)
    if not match:
        return False
    return match.group("zone") in table().get(match.group("region"), ())


def suggest_region(name: str) -> str | None:
    """The known region closest to a misspelt one (``us-centrl1`` -> ``us-central1``)."""
    close = difflib.get_close_matches(name, list(table()), n=1, cutoff=0.8)
    return close[0] if close else None


def suggest_zone(name: str) -> str | None:
    """The known zone closest to a misspelt one (``us-centrl1-a`` -> ``us-central1-a``)."""
    every = [f"{r}-{z}" for r, letters in table().items() for z in letters]
    close = difflib.get_close_matches(name, every, n=1, cutoff=0.85)
    return close[0] if close else None


def _letters(region: str, zones: Iterable[Any], where: str) -> tuple[str, ...]:
    if isinstance(zones, str) or not isinstance(zones, Iterable):
        raise DwsValidationError(where, zones, "must be a list of zones, e.g. [a, b, c]")
    letters = []
    for zone in zones:
        text = str(zone)
        letter = text[len(region) + 1 :] if text.startswith(region + "-") else text
        if not _LETTER.fullmatch(letter):
            raise DwsValidationError(
                where, zone, f"is not a zone of {region}: give a letter (a) or {region}-a"
            )
        letters.append(letter)
    return tuple(letters)


def add(region: str, zones: Iterable[str], *, where: str = "regions") -> None:
    """Accept ``region`` (if new) and its ``zones`` (letters or full names) from now on."""
    letters = _checked(region, zones, where)
    added = _added.get()
    _added.set({**added, region: tuple(sorted(set(added.get(region, ())) | set(letters)))})


def reset() -> None:
    """Drop every added region and zone."""
    _added.set({})


def snapshot() -> dict[str, tuple[str, ...]]:
    """What was added, for :func:`restore`."""
    return dict(_added.get())


def restore(saved: Mapping[str, tuple[str, ...]]) -> None:
    _added.set(dict(saved))


@contextlib.contextmanager
def added(region: str, zones: Iterable[str]) -> Iterator[None]:
    """Accept ``region`` and ``zones`` inside a ``with`` block (handy in tests)."""
    saved = snapshot()
    try:
        add(region, zones)
        yield
    finally:
        restore(saved)


def apply_config(config: Mapping[str, Any] | None) -> None:
    """Add what a ``dws:regions``-shaped object lists (``{us-east7: [a, b, c]}``), for good
    (the running stack's own ``dws:regions`` is always honoured; no need to apply it)."""
    if config is None:
        return
    if not isinstance(config, Mapping):
        raise DwsValidationError(
            CONFIG_KEY, config, "must be an object of regions, e.g. {us-east7: [a, b, c]}"
        )
    for region, zones in config.items():
        add(region, zones, where=CONFIG_KEY)
