"""Moved to :mod:`pulumi_dws.testing.samples` (``variant``, ``samples()``), each sample with
its kind's test aids (:mod:`pulumi_dws.testing.kinds`).

This module re-exports them under their old names for code that imports the old path, and
warns (:class:`DeprecationWarning`); importing :mod:`pulumi_dws.policy` does not load it.
"""

from typing import Any

from .._moved import warn_moved
from ..kinds.calendar.testing import calendar_reservation
from ..kinds.flex_vm.testing import flex_instance, flex_template, flex_vm_body
from ..kinds.kueue.testing import kueue_config
from ..kinds.node_pool.testing import private_cluster, queued_node_pool
from ..kinds.slurm.testing import service_agent_member
from ..kinds.slurm.testing import slurm_cluster_sample as slurm_cluster
from ..testing.samples import DELETE, SAMPLE_NOW, samples, variant

__all__ = [
    "SAMPLE_NOW",
    "DELETE",
    "variant",
    "flex_instance",
    "flex_template",
    "flex_vm_body",
    "queued_node_pool",
    "private_cluster",
    "slurm_cluster",
    "calendar_reservation",
    "service_agent_member",
    "kueue_config",
    "SAMPLES",  # noqa: F822 (from __getattr__)
]

warn_moved(__name__, "pulumi_dws.testing.samples")


def __getattr__(name: str) -> Any:
    if name == "SAMPLES":  # gathered when asked for, as pulumi_dws.testing.samples does
        return samples()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
