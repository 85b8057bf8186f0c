"""What the Slurm kind's readers read of a managed Slurm cluster: its node pools
(:class:`SlurmPool`)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from ...policy.shapes import any3, machine_gpus, parts
from ...policy.values import UNKNOWN, as_int, pick
from ...policy.view import ResourceView

__all__ = ["SlurmPool", "slurm_pools"]


@dataclass(frozen=True)
class SlurmPool:
    """One node pool of a managed Slurm cluster body."""

    view: ResourceView
    index: int
    props: Any
    cluster_model: Any

    @property
    def id(self) -> str:
        pool_id = pick(self.props, "id")
        return pool_id if isinstance(pool_id, str) else str(self.index)

    @property
    def where(self) -> str:
        return f"body.node_pools[{self.index}]."

    def get(self, *names: str) -> Any:
        return pick(self.props, *names)

    @property
    def flex_start(self) -> Any:
        model = self.model
        return UNKNOWN if model is UNKNOWN else model == "FLEX_START"

    @property
    def model(self) -> Any:
        """The pool's provisioning model (the cluster's when the pool gives none)."""
        model = self.get("provisioning_model", "provisioningModel")
        return self.cluster_model if model is None else model

    @property
    def reservation_consumer(self) -> Any:
        """True for a pool that consumes a specific reservation (RESERVATION, or a
        SPECIFIC_RESERVATION affinity), UNKNOWN when that is not known yet."""
        spec = self.get("machine_spec", "machineSpec")
        affinity = pick(spec, "reservation_affinity", "reservationAffinity")
        kind = pick(affinity, "reservation_affinity_type", "reservationAffinityType")
        model = self.model
        return any3(
            model == "RESERVATION" if model is not UNKNOWN else UNKNOWN,
            kind == "SPECIFIC_RESERVATION" if kind is not UNKNOWN else UNKNOWN,
        )

    def gpus(self) -> tuple[Any, Any]:
        spec = self.get("machine_spec", "machineSpec")
        count = pick(spec, "accelerator_count", "acceleratorCount")
        kind = pick(spec, "accelerator_type", "acceleratorType")
        accelerators = UNKNOWN if spec is UNKNOWN else None
        if count is not None or kind is not None:
            accelerators = [{"accelerator_type": kind, "accelerator_count": count}]
        return machine_gpus(pick(spec, "machine_type", "machineType"), accelerators)

    def max_nodes(self) -> Any:
        scaling = self.get("scaling_spec", "scalingSpec")
        return as_int(pick(scaling, "max_node_count", "maxNodeCount"))

    def min_nodes(self) -> Any:
        scaling = self.get("scaling_spec", "scalingSpec")
        return as_int(pick(scaling, "min_node_count", "minNodeCount"))


def slurm_pools(view: ResourceView) -> Iterator[SlurmPool]:
    """The node pools of a SlurmCluster body (nothing if unknown or absent)."""
    return parts(view, SlurmPool)
