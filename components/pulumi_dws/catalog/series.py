"""What each accelerator-optimized (and HPC) machine series may do with DWS, with sources.

One row per series (:class:`Series`): whether its VMs may be Flex-start, whether a managed
instance group of them takes resize requests, which workload-policy property it takes (and
whether a group of more than one VM needs one), which accelerator topologies a slice of it
forms, how its VMs' NICs are laid out on RDMA networks, and how many VMs one Calendar-mode
request may hold. Every component that offers a Flex-start door (``FlexStartInstance``,
``FlexStartGroup``, GKE Flex-start pools, Slurm Flex-start pools) asks :func:`check_flex_start`;
``FlexStartGroup`` asks :func:`check_workload_policy`; ``GpuNetwork`` asks :func:`nic_layout`.

Sources (checked 2026-12-01):

* FLEX: "Create a Flex-start VM", https://docs.cloud.google.com/compute/docs/instances/create-flex-start-vm
  ("Before you begin": "For an accelerator-optimized machine type (except A4X or G4) ... For an
  H4D machine type, see Create an instance that uses Cloud RDMA"). The pulumi-dws fact sheet
  cites "About Flex-start VMs" for the same list; that page's stored copy does not show it.
* WP: "About workload policies in MIGs",
  https://docs.cloud.google.com/compute/docs/instance-groups/about-workload-policies ("You can
  only apply workload policies to MIGs that use A4X Max, A4X, A4, A3 Ultra, A3 Mega, A3 High (8
  GPUs), H4D ... If you use A4X Max or A4X instances ... a workload policy is required unless
  you create a single compute instance for testing purposes"; "You can only specify
  HIGH_THROUGHPUT"; acceleratorTopology for A4X Max and A4X, maxTopologyDistance for A4, A3
  Ultra, A3 Mega, A3 High (8 GPUs) and H4D). The newest copy adds TPU7x, v6e and v5p, which
  pulumi-dws does not create through MIGs.
* A4X: "Create an AI-optimized MIG with A4X",
  https://docs.cloud.google.com/ai-hypercomputer/docs/create/create-mig-with-a4x, and "Create a
  MIG with A4X Max", https://docs.cloud.google.com/ai-hypercomputer/docs/create/create-a4xmax-mig
  (Limitations: "You must use the reservation-bound provisioning model. Other provisioning
  models are not supported"; "You can't use a resize request to add VMs to the MIG. You must
  set the target size of the MIG to add VMs"; a regional MIG "can only create VMs in the zone
  that contains your VPC network's profile").
* SLICE: the workload-policy pages' ``--accelerator-topology=1x72``; a slice's VMs are the
  topology's GPUs over the GPUs per VM (GoogleCloudPlatform/cluster-toolkit@1047080375
  community/modules/scheduler/schedmd-slurm-gcp-v6-controller/modules/slurm_files/scripts/
  resume.py ``calculate_hosts_per_topo``: ``1x72`` on 4-GPU VMs is 18 hosts; the nodeset
  module refuses a topology not divisible by the VM's GPUs).
* RDMA: "RDMA network profiles", https://docs.cloud.google.com/vpc/docs/rdma-network-profiles
  (``ZONE-vpc-roce`` for A3 Ultra, A4, A4X with MRDMA NICs; ``ZONE-vpc-roce-metal`` for A4X Max;
  ``ZONE-vpc-falcon`` for H4D with IRDMA NICs; RDMA VPCs take only RDMA NICs, every other NIC
  goes on a regular VPC; MTU 8896). NIC counts: Cluster Toolkit@1047080375
  examples/machine-learning/a3-ultragpu-8g/a3ultra-vm.yaml and a4-highgpu-8g/a4high-vm.yaml
  (2 gVNIC networks + 8 MRDMA subnets), a4x-highgpu-4g/a4x-vm.yaml (2 gVNIC + 4 MRDMA),
  examples/h4d-vm.yaml (1 gVNIC + 1 IRDMA), modules/network/vpc (``nic_type`` default GVNIC).
* CAL: "Create a future reservation request in calendar mode",
  https://docs.cloud.google.com/compute/docs/instances/create-future-reservations-calendar-mode
  (current copy, checked 2026-12-01: "reserve GPU, H4D, or TPU resources"; "You can reserve up
  to 80 GPU VMs or 256 H4D VMs in a single request in calendar mode"; its Japanese copy says
  the same; the stored English copy under cloud.google.com still says "GPUs or TPUs" and "1 to
  80 GPU VMs"), the ``calendar.*`` limits rows.
* H4D: the machine types Google documents, ``h4d-standard-192``, ``h4d-highmem-192`` and
  ``h4d-highmem-192-lssd`` ("Create a Cloud RDMA-enabled HPC Slurm cluster with H4D
  instances", https://docs.cloud.google.com/cluster-toolkit/docs/quickstarts/create-a-slurm-cluster-h4d:
  "Two H4D instances created with the h4d-highmem-192, h4d-standard-192, or
  h4d-highmem-192-lssd machine type"; "HPC-optimized machine family",
  https://cloud.google.com/compute/docs/hpc-optimized-machines: "H4D instances have 192 cores
  (vCPUs) and up to 1,488 GB of memory").
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

from ..errors import DwsValidationError

__all__ = [
    "FLEX_SOURCE",
    "WORKLOAD_POLICY_SOURCE",
    "A4X_MIG_SOURCE",
    "RDMA_SOURCE",
    "NicLayout",
    "Series",
    "SERIES",
    "series_of",
    "check_flex_start",
    "workload_policy_series",
    "slice_vms",
    "nic_layout",
    "is_hpc_flex_machine",
    "check_series_machine",
    "calendar_limit",
    "H4D_SOURCE",
    "WORKLOAD_POLICY_TYPES",
    "MAX_TOPOLOGY_DISTANCES",
    "topologies_text",
]

FLEX_SOURCE = "https://docs.cloud.google.com/compute/docs/instances/create-flex-start-vm"
WORKLOAD_POLICY_SOURCE = (
    "https://docs.cloud.google.com/compute/docs/instance-groups/about-workload-policies"
)
A4X_MIG_SOURCE = "https://docs.cloud.google.com/ai-hypercomputer/docs/create/create-mig-with-a4x"
A4X_MAX_MIG_SOURCE = "https://docs.cloud.google.com/ai-hypercomputer/docs/create/create-a4xmax-mig"
RDMA_SOURCE = "https://docs.cloud.google.com/vpc/docs/rdma-network-profiles"
TOOLKIT = "GoogleCloudPlatform/cluster-toolkit@1047080375"
H4D_SOURCE = (
    "https://docs.cloud.google.com/cluster-toolkit/docs/quickstarts/create-a-slurm-cluster-h4d"
)

WORKLOAD_POLICY_TYPES = ("HIGH_THROUGHPUT",)
"""The workload-policy types Google documents for MIGs (WP: "You can only specify
HIGH_THROUGHPUT"; the API also has HIGH_AVAILABILITY)."""
MAX_TOPOLOGY_DISTANCES = ("SUBBLOCK", "BLOCK", "CLUSTER")
"""``maxTopologyDistance`` values, nearest first (discovery ResourcePolicyWorkloadPolicy)."""

_TOPOLOGY = re.compile(r"^([1-9][0-9]*)x([1-9][0-9]*)\Z")


@dataclass(frozen=True)
class NicLayout:
    """How a VM of a series attaches to RDMA networking: ``gvnics`` gVNIC interfaces on
    regular VPCs (the first one carries the VM's ordinary traffic), then ``rdma`` interfaces
    of ``rdma_type`` on one RDMA VPC whose network profile is ``<zone>-<profile>``."""

    gvnics: int
    rdma: int
    rdma_type: Literal["MRDMA", "IRDMA"]
    profile: Literal["vpc-roce", "vpc-falcon"]
    source: str

    @property
    def total(self) -> int:
        return self.gvnics + self.rdma


@dataclass(frozen=True)
class Series:
    """One machine series and what DWS allows it (see the module docstring's sources)."""

    name: str
    prefixes: tuple[str, ...]
    """Machine types of the series start with one of these (``a4-highgpu-``, not ``a4x-``)."""
    flex_start: bool = True
    """Whether its VMs may be Flex-start (FLEX)."""
    resize_requests: bool = True
    """Whether a MIG of it may grow through resize requests (False: reservation-bound, created
    at its target size, A4X)."""
    workload_policy: Literal["accelerator_topology", "max_topology_distance"] | None = None
    """The workload-policy property a MIG of it takes (None: no workload policies; WP)."""
    workload_policy_required: bool = False
    """Whether a MIG of more than one VM needs a workload policy (WP: A4X Max, A4X)."""
    topologies: tuple[str, ...] = ()
    """The accelerator topologies Google documents for it (``1x72``)."""
    nics: NicLayout | None = None
    """Its RDMA NIC layout (None: no RDMA network profile the library declares)."""
    calendar_limit: str = "calendar.count"
    """The limits row of VMs per Calendar-mode request (CAL)."""
    machine_types: tuple[str, ...] = ()
    """The series' machine types, where the library lists them (H4D); empty: any type of the
    series' prefixes that the GPU catalog knows."""
    sources: tuple[str, ...] = field(default=(), compare=False)

    def matches(self, machine_type: str) -> bool:
        return machine_type.startswith(self.prefixes)


_ROCE_8 = NicLayout(
    2,
    8,
    "MRDMA",
    "vpc-roce",
    f"{RDMA_SOURCE}; {TOOLKIT} examples/machine-learning/a4-highgpu-8g/a4high-vm.yaml, "
    "a3-ultragpu-8g/a3ultra-vm.yaml (2 gVNIC networks, 8 MRDMA subnets)",
)
_ROCE_4 = NicLayout(
    2,
    4,
    "MRDMA",
    "vpc-roce",
    f"{RDMA_SOURCE}; {TOOLKIT} examples/machine-learning/a4x-highgpu-4g/a4x-vm.yaml "
    "(2 gVNIC networks, 4 MRDMA subnets)",
)
_FALCON_1 = NicLayout(
    1,
    1,
    "IRDMA",
    "vpc-falcon",
    f"{RDMA_SOURCE}; {TOOLKIT} examples/h4d-vm.yaml (1 gVNIC network, 1 IRDMA subnet)",
)

SERIES: tuple[Series, ...] = (
    Series(
        "A4X Max",
        ("a4x-maxgpu-",),
        flex_start=False,
        resize_requests=False,
        workload_policy="accelerator_topology",
        workload_policy_required=True,
        topologies=("1x72",),
        sources=(A4X_MAX_MIG_SOURCE, WORKLOAD_POLICY_SOURCE),
    ),
    Series(
        "A4X",
        ("a4x-highgpu-",),
        flex_start=False,
        resize_requests=False,
        workload_policy="accelerator_topology",
        workload_policy_required=True,
        topologies=("1x72",),
        nics=_ROCE_4,
        sources=(FLEX_SOURCE, A4X_MIG_SOURCE, WORKLOAD_POLICY_SOURCE),
    ),
    Series("A4", ("a4-highgpu-",), workload_policy="max_topology_distance", nics=_ROCE_8),
    Series("A3 Ultra", ("a3-ultragpu-",), workload_policy="max_topology_distance", nics=_ROCE_8),
    Series("A3 Mega", ("a3-megagpu-",), workload_policy="max_topology_distance"),
    Series("A3 High (8 GPUs)", ("a3-highgpu-8g",), workload_policy="max_topology_distance"),
    Series("A3 High", ("a3-highgpu-",)),
    Series("A3 Edge", ("a3-edgegpu-",)),
    Series("A2", ("a2-highgpu-", "a2-megagpu-", "a2-ultragpu-")),
    Series("G2", ("g2-standard-",)),
    Series("G4", ("g4-standard-",), flex_start=False, sources=(FLEX_SOURCE,)),
    Series(
        "H4D",
        ("h4d-",),
        workload_policy="max_topology_distance",
        nics=_FALCON_1,
        calendar_limit="calendar.count_h4d",
        machine_types=("h4d-standard-192", "h4d-highmem-192", "h4d-highmem-192-lssd"),
        sources=(FLEX_SOURCE, H4D_SOURCE),
    ),
)
"""Every series the library knows, the more specific prefixes first."""

_WORKLOAD_POLICY_SERIES = "A4X Max, A4X, A4, A3 Ultra, A3 Mega, A3 High (8 GPUs) and H4D"


def series_of(machine_type: object) -> Series | None:
    """The series of ``machine_type`` (None for a machine type outside :data:`SERIES`)."""
    if not isinstance(machine_type, str):
        return None
    return next((s for s in SERIES if s.matches(machine_type)), None)


def is_hpc_flex_machine(machine_type: object) -> bool:
    """Whether ``machine_type`` is a CPU (HPC) machine type that may still be Flex-start: H4D
    (FLEX), which has no GPUs and so is not in the GPU table."""
    series = series_of(machine_type)
    return series is not None and series.name == "H4D"


def check_series_machine(field: str, machine_type: object) -> None:
    """Refuse a machine type of a series whose machine types the library lists (H4D) that is
    not one of them (``h4d-highcpu-192``, ``h4d-standard-96``), naming the ones there are."""
    series = series_of(machine_type)
    if series is None or not series.machine_types or machine_type in series.machine_types:
        return
    raise DwsValidationError(
        field,
        machine_type,
        f"is not an {series.name} machine type: Google documents "
        f"{', '.join(series.machine_types)} ({', '.join(series.sources[-1:])})",
    )


def calendar_limit(machine_type: object) -> str:
    """The limits row of how many VMs of ``machine_type`` one Calendar-mode request may hold:
    ``calendar.count_h4d`` for H4D, ``calendar.count`` for GPU VMs (CAL)."""
    series = series_of(machine_type)
    return series.calendar_limit if series is not None else "calendar.count"


def check_flex_start(field: str, machine_type: object) -> None:
    """Refuse a machine type whose VMs may not be Flex-start (A4X, A4X Max, G4), naming the
    series allowed and the source; other machine types (and ones the table does not know) pass."""
    series = series_of(machine_type)
    if series is None or series.flex_start:
        return
    allowed = ", ".join(dict.fromkeys(s.name.split(" (")[0] for s in SERIES if s.flex_start))
    extra = ""
    if not series.resize_requests:
        extra = (
            f"; {series.name} VMs are reservation-bound only (a Calendar-mode or reserved "
            f"block, {A4X_MIG_SOURCE})"
        )
    raise DwsValidationError(
        field,
        machine_type,
        f"can't be Flex-start: Google offers Flex-start VMs for the accelerator-optimized "
        f"series except A4X and G4, and for H4D ({allowed}; {FLEX_SOURCE}){extra}",
    )


def workload_policy_series() -> str:
    """The series that take workload policies, as the docs list them."""
    return _WORKLOAD_POLICY_SERIES


def slice_vms(field: str, topology: str, gpus_per_vm: int) -> int:
    """How many VMs of ``gpus_per_vm`` GPUs a slice of accelerator ``topology`` (``1x72``)
    holds; refuses a topology that is not ``AxB`` or whose GPUs the VMs do not divide (SLICE)."""
    match = _TOPOLOGY.match(topology) if isinstance(topology, str) else None
    if match is None:
        raise DwsValidationError(field, topology, "must be an accelerator topology like 1x72")
    gpus = int(match[1]) * int(match[2])
    if gpus_per_vm <= 0 or gpus % gpus_per_vm:
        raise DwsValidationError(
            field,
            topology,
            f"does not fit VMs of {gpus_per_vm} GPUs: its {gpus} GPUs must be a whole number "
            f"of VMs ({TOOLKIT} schedmd-slurm-gcp-v6-nodeset: accelerator_topology must be "
            "divisible by the GPUs per VM)",
        )
    return gpus // gpus_per_vm


def nic_layout(field: str, machine_type: object) -> NicLayout:
    """The RDMA NIC layout of ``machine_type``, or a :class:`DwsValidationError` naming the
    series that have one (A3 Ultra, A4, A4X, H4D)."""
    series = series_of(machine_type)
    if series is not None and series.nics is not None:
        return series.nics
    have = ", ".join(s.name for s in SERIES if s.nics is not None)
    raise DwsValidationError(
        field,
        machine_type,
        f"has no RDMA network profile: RDMA networks are for {have} "
        f"(GPU or HPC VMs with MRDMA or IRDMA NICs, {RDMA_SOURCE})",
    )


def topologies_text(series: Series) -> str:
    """The accelerator topologies a series forms, for messages."""
    return ", ".join(series.topologies) or "none documented"
