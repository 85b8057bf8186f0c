"""What the Compute stores share: their settings, resource links, timestamps, fingerprints and
Google's 404."""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
from typing import Any

from ..base import GoogleError

__all__ = [
    "COMPUTE_SELF_LINK_ROOT",
    "ComputeSettings",
    "Operation",
    "fingerprint",
    "last",
    "not_found",
    "timestamp",
]

COMPUTE_SELF_LINK_ROOT = "https://www.googleapis.com/compute/v1/"
Operation = dict[str, Any]


def timestamp(moment: dt.datetime) -> str:
    """Compute's RFC 3339 form, e.g. ``2026-01-05T00:00:00.000-00:00``."""
    return moment.strftime("%Y-%m-%dT%H:%M:%S.000-00:00")


def fingerprint(value: Any) -> str:
    """An opaque fingerprint of ``value``, as Compute returns for labels and metadata."""
    digest = hashlib.sha256(repr(value).encode()).digest()[:8]
    return base64.b64encode(digest).decode()


def last(url: str) -> str:
    """The last segment of a resource URL or path (its name)."""
    return url.rstrip("/").rsplit("/", 1)[-1]


def not_found(resource: str) -> GoogleError:
    """Google's 404 for a missing resource (``projects/p/zones/z/instances/x``...)."""
    return GoogleError(404, f"The resource '{resource}' was not found", "notFound")


class ComputeSettings:
    """The knobs of the emulated Compute API that tests turn (on the service:
    ``compute.keep_failed_instances = True``); every store reads them from here.

    Attributes:
        fail_fast_seconds: how long Compute keeps trying to place a VM that is not queued.
        keep_failed_instances: whether a VM whose request expired stays, ``TERMINATED``.
        request_id_ttl: how long a ``requestId`` is remembered (seconds).
        mig_accept_seconds: how long a new resize request stays ``CREATING``.
        mig_boot_seconds: how long a group's new VMs stay ``STAGING`` before ``RUNNING``.
        mig_page_size: the ``listManagedInstances`` page size of a ``PAGINATED`` group when
            the request gives no ``maxResults`` (Google's default and maximum: 500); tests set
            it lower to page small groups.
    """

    fail_fast_seconds: float = 90
    keep_failed_instances: bool = False
    request_id_ttl: float = 3600.0
    mig_accept_seconds: float = 0.0
    mig_boot_seconds: float = 0.0
    mig_page_size: int = 500
