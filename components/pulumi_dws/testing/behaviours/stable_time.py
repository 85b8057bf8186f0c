"""``StableTime`` under the mocks: the real provider's ``create`` (the offset resolved from
``pulumi_dws.clock.now()``, as at first deploy)."""

from __future__ import annotations

from typing import Any

from ...relative_time import _StableTimeProvider
from ..mocks import GcpMocks, dynamic_behaviour


@dynamic_behaviour("StableTime")
def stable_time(props: dict[str, Any], mocks: GcpMocks, name: str) -> tuple[str, dict[str, Any]]:
    created = _StableTimeProvider().create(props)
    return str(created.id), dict(created.outs or {})
