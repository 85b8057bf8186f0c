"""``StableTime`` under the mocks: resolved from ``pulumi_dws.clock.now()`` as at create."""

from __future__ import annotations

from typing import Any

from ...clock import now
from ...relative_time import resolve
from ..mocks import GcpMocks, dynamic_behaviour


@dynamic_behaviour("StableTime")
def stable_time(props: dict[str, Any], mocks: GcpMocks, name: str) -> tuple[str, dict[str, Any]]:
    stamp = resolve(int(props["offset_seconds"]), bool(props["align_to_day"]), now())
    return stamp, {**props, "timestamp": stamp}
