"""Frontier GPUs (A3 Ultra, A4, A4X, H4D...): the machine-series rule every Flex-start door
checks at construction (``FlexStartInstance``, ``FlexStartGroup``, ``QueuedNodePool``,
``SlurmCluster``, ``ComputeClass``; :mod:`pulumi_dws.catalog.series`), checked again on what a
stack registers, hand-written pulumi-gcp resources included, with the same words.

``frontier-machine-fit`` reads the :class:`~pulumi_dws.policy.facts.MachineUse` facts every
kind's reader yields: no Flex-start VM, template, GKE or Slurm pool of a series Google does not
offer Flex-start for (A4X, A4X Max, G4); RDMA NICs (``MRDMA`` / ``IRDMA``) only in the layout of
the machine type (A4: 2 gVNIC + 8 MRDMA...). A value not known yet (a preview) gives no finding.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ... import catalog
from ...catalog.series import check_flex_start
from ...errors import DwsValidationError
from ..facts import MachineUse, facts
from ..values import is_unknown, last_segment
from ..view import Context, ResourceView
from .base import Finding, Rule

__all__ = ["MACHINE_FIT"]

_RDMA = ("MRDMA", "IRDMA")


def _nic_problem(machine: Any, types: Any, where: str) -> str | None:
    if not isinstance(machine, str) or not isinstance(types, list):
        return None
    if any(is_unknown(t) for t in types) or not any(t in _RDMA for t in types):
        return None
    try:
        layout = catalog.nic_layout("machine_type", machine)
    except DwsValidationError as err:
        return f"{where}: RDMA NICs on {machine}, which {err.problem}"
    rdma = sum(1 for t in types if t in _RDMA)
    wrong = sorted({t for t in types if t in _RDMA and t != layout.rdma_type})
    gvnics = len(types) - rdma
    if wrong or rdma != layout.rdma or gvnics != layout.gvnics:
        kinds = ", ".join(sorted({t for t in types if t in _RDMA}))
        have = f"{gvnics} other + {rdma} RDMA ({kinds})"
        return (
            f"{where}: {have} NICs do not fit {machine}, whose VMs take {layout.gvnics} gVNIC + "
            f"{layout.rdma} {layout.rdma_type} NICs ({layout.source})"
        )
    return None


def _machine_fit(view: ResourceView, cfg: dict[str, Any], ctx: Context) -> Iterator[Finding]:
    for use in facts(view, MachineUse):
        machine = last_segment(use.machine_type)
        if not isinstance(machine, str):
            continue
        if use.flex_start is True:
            try:
                check_flex_start(use.field, machine)
            except DwsValidationError as err:
                yield Finding(f"{view.label}: {err}")
        problem = _nic_problem(machine, use.nic_types, use.nics_field)
        if problem:
            yield Finding(f"{view.label}: {problem}")


MACHINE_FIT = Rule(
    name="frontier-machine-fit",
    description=(
        "No Flex-start VM, template or pool of A4X, A4X Max or G4 (Google offers none); RDMA "
        "NICs only in the layout of the machine type (A3 Ultra and A4: 2 gVNIC + 8 MRDMA, A4X: "
        "2 + 4 MRDMA, H4D: 1 + 1 IRDMA)."
    ),
    level="mandatory",
    scope="resource",
    check=_machine_fit,
    remediation=(
        "Use a series that can be Flex-start (or a reservation), and give the VMs a "
        "pulumi_dws.GpuNetwork built for their machine type."
    ),
    note="no Flex-start A4X, A4X Max or G4; RDMA NICs in the machine type's layout",
)
