"""Relative start times that stay put: ``"+4w"`` means four weeks after the first deploy.

A Calendar-mode sample written today with a fixed date is in the past next year; one computed
from "now" on every run would change the plan every day.
:class:`~pulumi_dws.providers.stable_time.StableTime` (a dynamic resource, like Terraform's
``time_static``) resolves the offset once, when it is created, and keeps that timestamp in the
stack's state until the offset itself changes.
"""

from __future__ import annotations

import re
from typing import Any

from .duration import Duration
from .errors import DwsValidationError
from .providers.stable_time import StableTime, StableTimeProvider, resolve

__all__ = ["RelativeTime", "parse_relative", "is_relative", "resolve", "StableTime"]

_RELATIVE = re.compile(r"^\s*(?:\+|in\s+)(?P<offset>[0-9.,a-z ]+?)\s*$", re.IGNORECASE)


class RelativeTime:
    """An offset from the moment of first deployment, aligned to midnight UTC."""

    def __init__(self, offset: Duration, align_to_day: bool = True) -> None:
        self.offset = offset
        self.align_to_day = align_to_day

    def __repr__(self) -> str:
        return f"RelativeTime('+{self.offset.human()}')"


def is_relative(value: Any) -> bool:
    """True for ``"+4w"`` / ``"in 30d"`` strings and :class:`RelativeTime` objects."""
    return isinstance(value, RelativeTime) or (
        isinstance(value, str) and bool(_RELATIVE.match(value))
    )


def parse_relative(field: str, value: str | RelativeTime) -> RelativeTime:
    """Parse ``"+4w"`` or ``"in 30d"``."""
    if isinstance(value, RelativeTime):
        return value
    match = _RELATIVE.match(value)
    if not match:
        raise DwsValidationError(field, value, "is not a relative time such as +4w or in 30d")
    return RelativeTime(Duration.parse(match.group("offset"), field))


# The provider lived here: stacks deployed before it moved hold a pickled reference to
# ``pulumi_dws.relative_time._StableTimeProvider`` in their state, which ``pulumi up``/``destroy``
# unpickle. Keep this name importable.
_StableTimeProvider = StableTimeProvider
