"""The ``StableTime`` dynamic resource (``pulumi-python:dynamic/dws:StableTime``): a timestamp
resolved once, when the resource is created, and kept in the stack's state until its offset
changes (like Terraform's ``time_static``). :mod:`pulumi_dws.relative_time` turns ``"+4w"`` into
one.

Inputs: ``offset_seconds``, ``align_to_day``; outputs: the inputs and ``timestamp`` (RFC 3339,
also the id). No API call: creating it reads :func:`pulumi_dws.clock.now`.
"""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING, Any

import pulumi
import pulumi.dynamic

from ..clock import now

if TYPE_CHECKING:
    from ..relative_time import RelativeTime

__all__ = ["StableTime", "StableTimeProvider", "TYPE_TOKEN", "resolve"]

TYPE_TOKEN = "pulumi-python:dynamic/dws:StableTime"


def resolve(offset_seconds: int, align_to_day: bool, now: dt.datetime) -> str:
    """The RFC 3339 timestamp ``offset_seconds`` after ``now`` (at 00:00 UTC if aligned)."""
    at = now.astimezone(dt.timezone.utc) + dt.timedelta(seconds=offset_seconds)
    if align_to_day:
        at = at.replace(hour=0, minute=0, second=0, microsecond=0)
    else:
        at = at.replace(microsecond=0)
    return at.strftime("%Y-%m-%dT%H:%M:%SZ")


class StableTimeProvider(pulumi.dynamic.ResourceProvider):
    """Resolves the timestamp once at create; replaced only when the offset changes."""

    def create(self, props: dict[str, Any]) -> pulumi.dynamic.CreateResult:
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
            StableTimeProvider(),
            name,
            {
                "offset_seconds": when.offset.seconds,
                "align_to_day": when.align_to_day,
                "timestamp": None,
            },
            opts,
        )
