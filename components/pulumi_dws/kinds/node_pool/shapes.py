"""What the node pool kind's readers and rules read of a GKE node pool: a ``NodePool`` resource
or one entry of a ``Cluster``'s ``nodePools`` (:class:`PoolSpec`)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from ...policy.shapes import CLUSTER, any3, machine_gpus, parts
from ...policy.values import UNKNOWN, as_bool, dig, last_segment
from ...policy.view import ResourceView

__all__ = ["PoolSpec", "node_pools"]


@dataclass(frozen=True)
class PoolSpec:
    """A GKE node pool: a NodePool resource or one entry of a Cluster's ``nodePools``."""

    view: ResourceView
    where: str  # "" for a NodePool, "nodePools[1]." for an inline pool
    props: Any

    def get(self, *path: str | int) -> Any:
        return dig(self.props, *path)

    @property
    def dws(self) -> Any:
        """True for queued provisioning or Flex-start pools (UNKNOWN if can't tell)."""
        return any3(
            as_bool(self.get("queuedProvisioning", "enabled")),
            as_bool(self.get("nodeConfig", "flexStart")),
        )

    @property
    def cluster_name(self) -> Any:
        if self.view.type == CLUSTER:
            return self.view.props.get("name") or self.view.name
        return last_segment(self.get("cluster"))

    def gpus(self) -> tuple[Any, Any]:
        return machine_gpus(
            self.get("nodeConfig", "machineType"), self.get("nodeConfig", "guestAccelerators")
        )

    def zones(self) -> Any:
        """Number of node locations, UNKNOWN, or None when the pool doesn't say."""
        locations = self.get("nodeLocations")
        if locations is UNKNOWN:
            return UNKNOWN
        return len(locations) if isinstance(locations, list) and locations else None


def node_pools(view: ResourceView) -> Iterator[PoolSpec]:
    """The node pools a resource defines: itself (NodePool) or its inline ``nodePools``."""
    return parts(view, PoolSpec)
