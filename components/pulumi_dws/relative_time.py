"""Relative start times that stay put: ``"+4w"`` means four weeks after the first deploy.

A Calendar-mode sample written today with a fixed date is in the past next year; one computed
from "now" on every run would change the plan every day. ``StableTime`` (a dynamic resource,
like Terraform's ``time_static``) resolves the offset once, when it is created, and keeps that
timestamp in the stack's state until the offset itself changes.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

import pulumi
import pulumi.dynamic

from .duration import Duration
from .errors import DwsValidationError

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


def resolve(offset_seconds: int, align_to_day: bool, now: dt.datetime) -> str:
    """The RFC 3339 timestamp ``offset_seconds`` after ``now`` (at 00:00 UTC if aligned)."""
    at = now.astimezone(dt.timezone.utc) + dt.timedelta(seconds=offset_seconds)
    if align_to_day:
        at = at.replace(hour=0, minute=0, second=0, microsecond=0)
    else:
        at = at.replace(microsecond=0)
    return at.strftime("%Y-%m-%dT%H:%M:%SZ")


class _StableTimeProvider(pulumi.dynamic.ResourceProvider):
    """Resolves the timestamp once at create; replaced only when the offset changes."""

    def create(self, props: dict[str, Any]) -> pulumi.dynamic.CreateResult:
        from .clock import now

        stamp = resolve(int(props["offset_seconds"]), bool(props["align_to_day"]), now())
        return pulumi.dynamic.CreateResult(id_=stamp, outs={**props, "timestamp": stamp})

    def diff(
        self, _id: str, olds: dict[str, Any], news: dict[str, Any]
    ) -> pulumi.dynamic.DiffResult:
        replaces = [k for k in ("offset_seconds", "align_to_day") if olds.get(k) != news.get(k)]
        return pulumi.dynamic.DiffResult(changes=bool(replaces), replaces=replaces)

    def read(self, id_: str, props: dict[str, Any]) -> pulumi.dynamic.ReadResult:
        return pulumi.dynamic.ReadResult(id_=id_, outs=props)

    def delete(self, _id: str, _props: dict[str, Any]) -> None:
        return None


class StableTime(pulumi.dynamic.Resource, module="dws", name="StableTime"):
    """A timestamp fixed at first deploy: ``StableTime("start", RelativeTime(...)).timestamp``."""

    timestamp: pulumi.Output[str]

    def __init__(
        self, name: str, when: RelativeTime, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__(
            _StableTimeProvider(),
            name,
            {
                "offset_seconds": when.offset.seconds,
                "align_to_day": when.align_to_day,
                "timestamp": None,
            },
            opts,
        )
