"""One catalog of the machines DWS serves: GPU machine types, TPU machine types and slices,
and the CPU series.

* GPUs (:mod:`.gpus`): each accelerator-optimized machine type with the GPUs it comes with,
  under their Compute/GKE and Vertex AI names (:func:`machine_shape`, :func:`accelerator`).
* TPUs (:mod:`.tpus`): each TPU machine type with its chips per VM and topologies, and the names
  each API gives a slice: Cloud TPU ``v6e-16``, GKE ``ct6e-standard-4t`` + ``4x4`` and its node
  labels, the reservation ``vmFamily``, the runtime version (:func:`tpu_slice`,
  :func:`cloud_tpu_slice`).
* Machine series (:mod:`.series`): which may be Flex-start, take workload policies or resize
  requests, and their RDMA NIC layouts (:func:`check_flex_start`, :func:`nic_layout`).
* Where each door offers each TPU generation (:mod:`.availability`, :mod:`.doors`): Cloud TPU
  Flex-start, Spot and reservations, GKE Flex-start and queued pools, Calendar mode; and the
  GKE versions they need (:func:`tpu_zones`, :func:`check_tpu_zone`, :func:`tpu_doors`,
  :func:`gke_min_version`).
* :func:`machine_accelerators` answers for any machine type: GPUs and TPU chips are counted
  apart (``kind``), so budgets and plans never add one to the other.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from .availability import DOORS, GKE_VERSIONS, TPU_ZONES, GkeVersion, TpuZones
from .doors import (
    check_gke_version,
    check_tpu_door,
    check_tpu_region,
    check_tpu_zone,
    gke_min_version,
    tpu_doors,
    tpu_zones,
    zone_rows,
)
from .gpus import (
    ACCELERATORS,
    COMPACT_FLEX_START_PREFIXES,
    CPU_SERIES,
    Accelerator,
    MachineShape,
    accelerator,
    calendar_machine,
    check_attached,
    compact_with_flex_start,
    known,
    machine_kind,
    machine_shape,
    register,
    register_cpu,
)
from .series import (
    SERIES,
    NicLayout,
    Series,
    calendar_limit,
    check_flex_start,
    check_series_machine,
    is_hpc_flex_machine,
    nic_layout,
    series_of,
    slice_vms,
)
from .tpus import (
    TOPOLOGY_PATTERN,
    TPU_ACCELERATOR_LABEL,
    TPU_GENERATIONS,
    TPU_RESOURCE,
    TPU_TAINT,
    TPU_TOPOLOGY_LABEL,
    TpuGeneration,
    TpuMachineType,
    TpuSlice,
    check_runtime_version,
    cloud_tpu_slice,
    cloud_tpu_types,
    is_tpu_machine,
    parse_topology,
    register_tpu_topology,
    topology_size,
    tpu_generation,
    tpu_generations,
    tpu_machine,
    tpu_machines,
    tpu_slice,
)

__all__ = [
    # GPUs and CPUs
    "MachineShape",
    "Accelerator",
    "ACCELERATORS",
    "machine_shape",
    "calendar_machine",
    "accelerator",
    "check_attached",
    "register",
    "known",
    "COMPACT_FLEX_START_PREFIXES",
    "compact_with_flex_start",
    "CPU_SERIES",
    "machine_kind",
    "register_cpu",
    # machine series: Flex-start, workload policies, RDMA NICs (catalog.series)
    "SERIES",
    "Series",
    "NicLayout",
    "series_of",
    "check_flex_start",
    "is_hpc_flex_machine",
    "check_series_machine",
    "calendar_limit",
    "nic_layout",
    "slice_vms",
    # TPUs
    "TPU_RESOURCE",
    "TPU_ACCELERATOR_LABEL",
    "TPU_TOPOLOGY_LABEL",
    "TPU_TAINT",
    "TOPOLOGY_PATTERN",
    "TpuGeneration",
    "TpuMachineType",
    "TpuSlice",
    "TPU_GENERATIONS",
    "tpu_generations",
    "tpu_generation",
    "tpu_machine",
    "tpu_machines",
    "is_tpu_machine",
    "parse_topology",
    "topology_size",
    "tpu_slice",
    "cloud_tpu_slice",
    "cloud_tpu_types",
    "check_runtime_version",
    "register_tpu_topology",
    # where each door offers each TPU generation
    "DOORS",
    "TpuZones",
    "TPU_ZONES",
    "GkeVersion",
    "GKE_VERSIONS",
    "zone_rows",
    "tpu_zones",
    "tpu_doors",
    "check_tpu_zone",
    "check_tpu_door",
    "check_tpu_region",
    "gke_min_version",
    "check_gke_version",
    # both
    "MachineAccelerators",
    "machine_accelerators",
]


@dataclass(frozen=True)
class MachineAccelerators:
    """What one VM of a machine type carries: ``count`` GPUs or TPU chips (``kind``) of
    ``name`` (the GPU's Compute name, ``nvidia-h100-80gb``; the TPU generation, ``v6e``)."""

    kind: Literal["gpu", "tpu"]
    name: str
    count: int


def machine_accelerators(machine_type: object) -> MachineAccelerators | None:
    """The GPUs or TPU chips one VM of ``machine_type`` carries; None for a machine type the
    catalog does not list as a GPU or TPU type (CPU types, typos: :func:`machine_kind` tells
    them apart)."""
    if not isinstance(machine_type, str):
        return None
    if is_tpu_machine(machine_type):
        tpu = tpu_machine("machine_type", machine_type)
        return MachineAccelerators("tpu", tpu.generation.name, tpu.chips)
    if machine_type in known():
        shape = machine_shape("machine_type", machine_type)
        return MachineAccelerators("gpu", shape.accelerator.compute_name, shape.gpus)
    return None
