"""Shared checks: names, labels, zones and regions, timestamps, and Output-valued inputs.

Each check returns the (normalised) value or raises :class:`~pulumi_dws.errors.DwsValidationError`
naming the field, the value and what is allowed.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

import pulumi

from . import limits
from .errors import DwsValidationError

__all__ = [
    "check_name",
    "check_labels",
    "check_zone",
    "check_region",
    "region_of",
    "check_zone_in_region",
    "parse_timestamp",
    "format_timestamp",
    "check_choice",
    "when_known",
    "is_output",
]

T = TypeVar("T")
R = TypeVar("R")

_NAME = re.compile(r"^[a-z]([-a-z0-9]*[a-z0-9])?\Z")
_LABEL_KEY = re.compile(r"^[a-z][a-z0-9_-]*\Z")
_LABEL_VALUE = re.compile(r"^[a-z0-9_-]*\Z")
_REGION = re.compile(r"^[a-z]+-[a-z]+[0-9]+\Z")
_ZONE = re.compile(r"^([a-z]+-[a-z]+[0-9]+)-[a-z]\Z")


def is_output(value: Any) -> bool:
    """True for a Pulumi ``Output`` or awaitable whose value is not known yet."""
    return isinstance(value, pulumi.Output)


def when_known(value: Any, check: Callable[[Any], R]) -> Any:
    """Run ``check`` now on a plain value, or once a Pulumi Output resolves.

    A failing check on an Output fails the Pulumi run with the same message.
    """
    if is_output(value):
        return value.apply(check)
    return check(value)


def check_name(field: str, value: str) -> str:
    """An RFC 1035 name: lowercase letter first, then letters, digits, hyphens; 1-63 chars."""
    if not isinstance(value, str):
        raise DwsValidationError(field, value, "must be a string")
    limits.get("name.length").check(field, len(value), shown=value)
    if not _NAME.match(value):
        raise DwsValidationError(
            field,
            value,
            "is not a valid RFC 1035 name: start with a lowercase letter, then lowercase "
            "letters, digits or hyphens, not ending in a hyphen",
        )
    return value


def check_labels(field: str, labels: Mapping[str, str] | None) -> dict[str, str]:
    """Google Cloud labels: keys start with a lowercase letter; lengths from the limits table."""
    labels = dict(labels or {})
    limits.get("labels.count").check(field, len(labels), shown=f"{len(labels)} labels")
    key_len, value_len = limits.get("labels.key_length"), limits.get("labels.value_length")
    for key, val in labels.items():
        if not isinstance(key, str) or not _LABEL_KEY.match(key):
            raise DwsValidationError(
                f"{field} key",
                key,
                f"is not a valid label key: {key_len.allowed()} lowercase letters, digits, "
                "_ or -, starting with a letter",
            )
        key_len.check(f"{field} key", len(key), shown=key)
        if not isinstance(val, str) or not _LABEL_VALUE.match(val):
            raise DwsValidationError(
                f"{field}[{key}]",
                val,
                f"is not a valid label value: {value_len.allowed()} lowercase letters, "
                "digits, _ or -",
            )
        value_len.check(f"{field}[{key}]", len(val), shown=val)
    return labels


def check_region(field: str, value: str) -> str:
    """A region such as ``us-central1``."""
    if not isinstance(value, str) or not _REGION.match(value):
        hint = (
            " (that is a zone; give its region)"
            if isinstance(value, str) and _ZONE.match(value)
            else ""
        )
        raise DwsValidationError(field, value, f"is not a region like us-central1{hint}")
    return value


def check_zone(field: str, value: str) -> str:
    """A zone such as ``us-central1-a``."""
    if not isinstance(value, str) or not _ZONE.match(value):
        hint = (
            " (that is a region; give a zone in it)"
            if isinstance(value, str) and _REGION.match(value)
            else ""
        )
        raise DwsValidationError(field, value, f"is not a zone like us-central1-a{hint}")
    return value


def region_of(zone: str) -> str:
    """``us-central1-a`` -> ``us-central1``."""
    match = _ZONE.match(check_zone("zone", zone))
    assert match is not None
    return match.group(1)


def check_zone_in_region(field: str, zone: str, region: str) -> str:
    """A zone that lies in ``region``."""
    check_zone(field, zone)
    if region_of(zone) != region:
        raise DwsValidationError(field, zone, f"is not in region {region}; use a {region}-* zone")
    return zone


def parse_timestamp(field: str, value: str | dt.datetime) -> dt.datetime:
    """An RFC 3339 timestamp with a zone (``2027-03-01T00:00:00Z``), as an aware datetime."""
    if isinstance(value, dt.datetime):
        parsed = value
    elif isinstance(value, str):
        try:
            # RFC 3339 allows a lowercase t and z; fromisoformat wants T and an offset.
            parsed = dt.datetime.fromisoformat(value.strip().upper().replace("Z", "+00:00"))
        except ValueError:
            raise DwsValidationError(
                field, value, "is not an RFC 3339 timestamp such as 2027-03-01T00:00:00Z"
            ) from None
        if "T" not in value.upper():
            raise DwsValidationError(
                field, value, "needs a time and zone, e.g. 2027-03-01T00:00:00Z"
            )
    else:
        raise DwsValidationError(field, value, "must be an RFC 3339 timestamp string")
    if parsed.tzinfo is None:
        raise DwsValidationError(
            field, str(value), "has no time zone; add Z or an offset such as +00:00"
        )
    return parsed.astimezone(dt.timezone.utc)


def format_timestamp(value: dt.datetime) -> str:
    """RFC 3339 in UTC with a ``Z``, the form the Compute API returns."""
    return value.astimezone(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def check_choice(field: str, value: T, choices: tuple[T, ...]) -> T:
    """One of a fixed set of values."""
    if value not in choices:
        allowed = ", ".join(map(str, choices))
        raise DwsValidationError(field, value, f"is not allowed; use one of {allowed}")
    return value
