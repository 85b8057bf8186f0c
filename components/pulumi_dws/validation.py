"""Shared checks: names, labels, zones and regions, timestamps, and Output-valued inputs.

Each check returns the (normalised) value or raises :class:`~pulumi_dws.errors.DwsValidationError`
naming the field, the value and what is allowed. Each also takes a Pulumi ``Output``: it then
returns an Output and runs when the value is known (:func:`~pulumi_dws.outputs.output_aware`).
The argument types of :mod:`pulumi_dws.fields` are built on them. Zones and
regions are checked against :mod:`pulumi_dws.regions`, a table of the regions and zones that
exist (with its source and date; a stack adds new ones with ``dws:regions``).
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping
from functools import partial
from typing import Any, TypeVar

import pulumi

from . import limits, regions
from .errors import DwsValidationError
from .outputs import is_output, output_aware, when_known
from .providers.paths import PATTERNS

__all__ = [
    "check_name",
    "check_labels",
    "check_zone",
    "check_region",
    "region_of",
    "region_of_location",
    "check_zone_in_region",
    "parse_timestamp",
    "format_timestamp",
    "check_choice",
    "check_metadata",
    "check_metadata_values",
    "check_project",
    "check_network",
    "check_subnetwork",
    "check_subnetwork_region",
    "check_image",
    "check_service_account",
    "when_known",
    "is_output",
]

T = TypeVar("T")

_NAME = re.compile(r"^[a-z]([-a-z0-9]*[a-z0-9])?\Z")
_LABEL_KEY = re.compile(r"^[a-z][a-z0-9_-]*\Z")
_LABEL_VALUE = re.compile(r"^[a-z0-9_-]*\Z")
_METADATA_KEY = re.compile(r"^[a-zA-Z0-9_-]+\Z")  # length: limits "compute.metadata_key_length"
_REGION = re.compile(r"^[a-z]+-[a-z]+[0-9]+\Z")
_ZONE = re.compile(r"^([a-z]+-[a-z]+[0-9]+)-([a-z]|ai[0-9]+[a-z])\Z")


@output_aware
def check_name(field: str, value: str) -> str:
    """An RFC 1035 name: lowercase letter first, then letters, digits, hyphens; 1-63 chars."""
    if not isinstance(value, str):
        raise DwsValidationError(field, value, "must be a string")
    limits.get("name.length").check(field, len(value), shown=value)
    if not _NAME.fullmatch(value):
        raise DwsValidationError(
            field,
            value,
            "is not a valid RFC 1035 name: start with a lowercase letter, then lowercase "
            "letters, digits or hyphens, not ending in a hyphen",
        )
    return value


@output_aware
def check_labels(field: str, labels: Mapping[str, Any] | None) -> dict[str, Any]:
    """Google Cloud labels: keys start with a lowercase letter; lengths from the limits table.

    A value may be an Output (checked once known); an Output of the whole mapping gives an
    Output of the checked mapping.
    """
    if labels is not None and not isinstance(labels, Mapping):
        raise DwsValidationError(field, labels, "must be a mapping of label keys to values")
    labels = dict(labels or {})
    limits.get("labels.count").check(field, len(labels), shown=f"{len(labels)} labels")
    key_len = limits.get("labels.key_length")
    for key, val in labels.items():
        if not isinstance(key, str) or not _LABEL_KEY.fullmatch(key):
            raise DwsValidationError(
                f"{field} key",
                key,
                f"is not a valid label key: {key_len.allowed()} lowercase letters, digits, "
                "_ or -, starting with a letter",
            )
        key_len.check(f"{field} key", len(key), shown=key)
        labels[key] = when_known(val, partial(_check_label_value, field, key))
    return labels


def _check_label_value(field: str, key: str, value: Any) -> str:
    value_len = limits.get("labels.value_length")
    if not isinstance(value, str) or not _LABEL_VALUE.fullmatch(value):
        raise DwsValidationError(
            f"{field}[{key}]",
            value,
            f"is not a valid label value: {value_len.allowed()} lowercase letters, digits, _ or -",
        )
    value_len.check(f"{field}[{key}]", len(value), shown=value)
    return value


def _table_hint() -> str:
    return (
        f"(pulumi-dws's table of regions, from {regions.AS_OF}; if Google added it since, "
        f"list it under {regions.CONFIG_KEY} in the stack config)"
    )


@output_aware
def check_region(field: str, value: str) -> str:
    """A Google Cloud region such as ``us-central1`` (one in :mod:`pulumi_dws.regions`)."""
    if not isinstance(value, str) or not _REGION.fullmatch(value):
        hint = (
            " (that is a zone; give its region)"
            if isinstance(value, str) and _ZONE.fullmatch(value)
            else ""
        )
        raise DwsValidationError(field, value, f"is not a region like us-central1{hint}")
    if not regions.is_region(value):
        close = regions.suggest_region(value)
        raise DwsValidationError(
            field,
            value,
            f"is not a Google Cloud region {_table_hint()}",
            f"; did you mean {close}?" if close else "",
        )
    return value


@output_aware
def check_zone(field: str, value: str) -> str:
    """A Google Cloud zone such as ``us-central1-a`` or the AI zone ``us-central1-ai1a`` (one
    :mod:`pulumi_dws.regions` knows)."""
    shape = _ZONE.fullmatch(value) if isinstance(value, str) else None
    if shape is None:
        hint = (
            " (that is a region; give a zone in it)"
            if isinstance(value, str) and _REGION.fullmatch(value)
            else ""
        )
        raise DwsValidationError(field, value, f"is not a zone like us-central1-a{hint}")
    if regions.is_zone(value):
        return value
    region = shape.group(1)
    if not regions.is_region(region):
        close = regions.suggest_zone(value)
        raise DwsValidationError(
            field,
            value,
            f"is not a Google Cloud zone: there is no region {region} {_table_hint()}",
            f"; did you mean {close}?" if close else "",
        )
    known = regions.zones_of(region) + regions.ai_zones_of(region)
    listed = ", ".join(known)
    raise DwsValidationError(
        field, value, f"is not a zone of {region} {_table_hint()}", f"; its zones are {listed}"
    )


@output_aware
def region_of_location(field: str, value: str) -> str:
    """The region of a location that may be a region (``us-central1``) or a zone
    (``us-central1-a``), as GKE locations are."""
    if isinstance(value, str) and _ZONE.fullmatch(value):
        return region_of(check_zone(field, value))
    if isinstance(value, str) and _REGION.fullmatch(value):
        return check_region(field, value)
    raise DwsValidationError(
        field, value, "is not a location: use a region (us-central1) or a zone (us-central1-a)"
    )


def region_of(zone: str) -> str:
    """``us-central1-a`` -> ``us-central1`` (an Output gives an Output)."""
    if is_output(zone):
        return when_known(zone, region_of)
    match = _ZONE.fullmatch(check_zone("zone", zone))
    assert match is not None
    return match.group(1)


def check_zone_in_region(field: str, zone: str, region: str) -> str:
    """A zone that lies in ``region`` (either may be an Output: checked once both are known)."""
    if is_output(zone) or is_output(region):
        both = pulumi.Output.all(zone, region)
        return when_known(both, lambda pair: check_zone_in_region(field, *pair))
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


@output_aware
def check_choice(field: str, value: T, choices: tuple[T, ...]) -> T:
    """One of a fixed set of values (an Output: once it is known)."""
    if value not in choices:
        allowed = ", ".join(map(str, choices))
        raise DwsValidationError(field, value, f"is not allowed; use one of {allowed}")
    return value


def check_metadata(field: str, value: Any) -> dict[str, Any]:
    """Instance metadata: a mapping whose keys are letters, digits, ``_`` or ``-`` (length
    from the limits table)."""
    metadata = dict(value or {}) if isinstance(value, Mapping) or value is None else value
    if not isinstance(metadata, dict):
        raise DwsValidationError(field, value, "must be a mapping of metadata keys to values")
    row = limits.get("compute.metadata_key_length")
    for key in metadata:
        if (
            not isinstance(key, str)
            or not _METADATA_KEY.match(key)
            or len(key) > (row.maximum or 0)
        ):
            raise DwsValidationError(
                f"{field} key", key, f"must be {row.allowed()} letters, digits, _ or -"
            )
    return metadata


# ------------------------------------------------------------------ strings that reach an API
# Each string below goes into a Google API request as it is: it is checked here with the API's
# own pattern, so a typo is refused at construction (and by ``dws plan``), not by the API.
_API_NAME = r"[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?"
"""Compute resource names (networks, subnetworks, images, families): the ``name`` pattern of
the Compute v1 discovery document (``[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?``)."""
_PROJECT = PATTERNS["project"].pattern
_COMPUTE_URL = r"(?:https://(?:www|compute)\.googleapis\.com/compute/(?:v1|beta|alpha)/)?"
_NETWORK = re.compile(
    rf"^(?:{_API_NAME}|{_COMPUTE_URL}(?:projects/{_PROJECT}/)?global/networks/{_API_NAME})\Z"
)
_SUBNETWORK = re.compile(
    rf"^(?:{_API_NAME}|{_COMPUTE_URL}(?:projects/{_PROJECT}/)?regions/[a-z]+-[a-z]+[0-9]+"
    rf"/subnetworks/{_API_NAME})\Z"
)
_IMAGE = re.compile(
    rf"^(?:(?:family/)?{_API_NAME}|{_PROJECT}/(?:family/)?{_API_NAME}"
    rf"|{_COMPUTE_URL}(?:projects/{_PROJECT}/)?global/images/(?:family/)?{_API_NAME})\Z"
)
_SERVICE_ACCOUNT = re.compile(r"^[a-z0-9][-a-z0-9._+]*@[a-z0-9][-a-z0-9.]*\.[a-z]{2,}\Z")


@output_aware
def check_project(field: str, value: str) -> str:
    """A project id as Google's APIs take it (the ``project`` pattern of the Compute v1
    discovery document: ``my-project``, a project number, or ``example.com:my-project``)."""
    if not isinstance(value, str) or not PATTERNS["project"].fullmatch(value):
        raise DwsValidationError(
            field,
            value,
            "is not a project id: lowercase letters, digits and hyphens, starting with a "
            "letter (e.g. my-project; or a project number, or example.com:my-project)",
        )
    return value


@output_aware
def check_network(field: str, value: str) -> str:
    """A VPC network: its name (``default``), ``projects/P/global/networks/NAME`` or the
    network's self link, as the Compute API's ``networkInterfaces[].network`` takes it."""
    if not isinstance(value, str) or not _NETWORK.match(value):
        raise DwsValidationError(
            field,
            value,
            "is not a network: give its name (e.g. default: lowercase letters, digits and "
            "hyphens) or projects/PROJECT/global/networks/NAME",
        )
    return value


@output_aware
def check_subnetwork(field: str, value: str) -> str:
    """A subnetwork: its name, ``projects/P/regions/R/subnetworks/NAME`` or its self link,
    as the Compute API's ``networkInterfaces[].subnetwork`` takes it."""
    if not isinstance(value, str) or not _SUBNETWORK.match(value):
        raise DwsValidationError(
            field,
            value,
            "is not a subnetwork: give its name (lowercase letters, digits and hyphens) or "
            "projects/PROJECT/regions/REGION/subnetworks/NAME",
        )
    return value


_SUBNETWORK_REGION = re.compile(r"regions/([a-z]+-[a-z]+[0-9]+)/subnetworks/")


def check_subnetwork_region(field: str, subnetwork: Any, region: Any) -> None:
    """A subnetwork given by path is in ``region``, the VMs' (Compute, Cloud TPU and the Slurm
    API take a subnetwork of the instance's region only); a name, or a value not known while
    the program runs, is left to the API."""
    if not isinstance(region, str) or not isinstance(subnetwork, str):
        return
    found = _SUBNETWORK_REGION.search(subnetwork)
    if found is not None and found.group(1) != region:
        raise DwsValidationError(
            field,
            subnetwork,
            f"is in region {found.group(1)}; the VMs are in {region}, and a subnetwork serves only "
            f"VMs of its own region: use projects/PROJECT/regions/{region}/subnetworks/NAME",
        )


@output_aware
def check_image(field: str, value: str) -> str:
    """A boot image as pulumi-gcp and the Compute API take it: an image or ``family/NAME``,
    ``PROJECT/NAME``, ``projects/P/global/images/[family/]NAME`` or its self link."""
    if not isinstance(value, str) or not _IMAGE.match(value):
        raise DwsValidationError(
            field,
            value,
            "is not an image: give projects/PROJECT/global/images/NAME, "
            "projects/PROJECT/global/images/family/FAMILY (e.g. "
            "projects/debian-cloud/global/images/family/debian-12), PROJECT/NAME or an image name",
        )
    return value


@output_aware
def check_service_account(field: str, value: str) -> str:
    """A service account email (``NAME@PROJECT.iam.gserviceaccount.com``), or ``default``
    (the Compute Engine default service account)."""
    if value == "default":
        return value
    if not isinstance(value, str) or not _SERVICE_ACCOUNT.match(value):
        raise DwsValidationError(
            field,
            value,
            "is not a service account email (e.g. trainer@my-project.iam.gserviceaccount.com) "
            "or default",
        )
    return value


def check_metadata_values(field: str, value: Any) -> dict[str, Any]:
    """Metadata whose values are strings (Compute and Cloud TPU send ``items[].value`` as a
    string: a number would be sent as ``1.0``); an Output value is checked once known."""
    metadata = check_metadata(field, value)
    for key, item in metadata.items():
        metadata[key] = when_known(item, partial(_metadata_value, f"{field}[{key}]"))
    return metadata


def _metadata_value(field: str, value: Any) -> str:
    if not isinstance(value, str):
        raise DwsValidationError(field, value, "must be a string (metadata values are text)")
    return value
