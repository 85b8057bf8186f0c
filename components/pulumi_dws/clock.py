"""The one place pulumi-dws reads the time, so tests and plans can pin it."""

from __future__ import annotations

import contextlib
import datetime as dt
import os
from collections.abc import Iterator

__all__ = ["now", "frozen"]

_pinned: dt.datetime | None = None


def now() -> dt.datetime:
    """The current time in UTC; ``DWS_NOW`` (RFC 3339) or :func:`frozen` pin it."""
    if _pinned is not None:
        return _pinned
    env = os.environ.get("DWS_NOW")
    if env:
        pinned = dt.datetime.fromisoformat(env.strip().upper().replace("Z", "+00:00"))
        if pinned.tzinfo is None:  # no zone given: UTC, not the machine's local time
            pinned = pinned.replace(tzinfo=dt.timezone.utc)
        return pinned.astimezone(dt.timezone.utc)
    return dt.datetime.now(dt.timezone.utc)


@contextlib.contextmanager
def frozen(at: dt.datetime) -> Iterator[dt.datetime]:
    """Pin :func:`now` to ``at`` inside a ``with`` block."""
    global _pinned
    saved = _pinned
    _pinned = (at if at.tzinfo else at.replace(tzinfo=dt.timezone.utc)).astimezone(dt.timezone.utc)
    try:
        yield _pinned
    finally:
        _pinned = saved
