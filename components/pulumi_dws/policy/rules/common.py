"""Helpers shared by the rule modules."""

from __future__ import annotations

from typing import Any

from ... import limits
from ...duration import Duration
from ...errors import DwsValidationError
from ..values import Unknown, seconds_of

__all__ = ["duration_problem", "describe_seconds"]


def describe_seconds(seconds: int) -> str:
    return Duration(seconds).describe()


def duration_problem(raw: Any, field: str, key: str, cap: str | None = None) -> str | None:
    """Why ``raw`` (any duration form) is outside limit ``key`` or the policy ``cap``; None if
    fine, absent or unknown."""
    try:
        seconds = seconds_of(raw, field)
    except DwsValidationError as err:
        return str(err)
    if isinstance(seconds, Unknown) or seconds is None:
        return None
    try:
        limits.get(key).check(field, seconds)
    except DwsValidationError as err:
        return f"{err} [limit {key}]"
    if cap:
        maximum = Duration.parse(cap, "maxRunDuration").seconds
        if seconds > maximum:
            return (
                f"{field}: {describe_seconds(seconds)} is above this stack's policy cap of "
                f"{describe_seconds(maximum)} (config maxRunDuration)"
            )
    return None
