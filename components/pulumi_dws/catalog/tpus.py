"""Cloud TPU machine types, slices and the names each Google API gives them.

A TPU *slice* is a set of chips joined by the inter-chip interconnect, served by one or more
VMs of one machine type (``ct6e-standard-4t``: 4 chips per VM). Its *topology* (``4x4``) gives
its chips (16) and so its VMs (16 / 4 = 4): one GKE node, one Cloud TPU worker per VM. A slice
of more than one VM (*multi-host*) is one atomic unit: GKE creates, repairs and deletes all its
nodes together. Each API names the same slice differently:

=====================================================  =====================================
Cloud TPU API ``node.acceleratorType``                 ``v6e-16``, ``v5litepod-16``, ``v5p-32``
                                                       (the number counts chips; for v5p it
                                                       counts TensorCores, 2 per chip)
Cloud TPU API ``node.acceleratorConfig``               ``{type: V6E, topology: 4x4}``
GKE ``nodeConfig.machineType`` + ``tpuTopology``       ``ct6e-standard-4t`` + ``4x4``
GKE node labels                                        ``cloud.google.com/gke-tpu-accelerator:
                                                       tpu-v6e-slice``,
                                                       ``cloud.google.com/gke-tpu-topology: 4x4``
Compute reservations ``aggregateReservation.vmFamily``  ``VM_FAMILY_CLOUD_TPU_LITE_POD_SLICE_CT6E``
gcloud ``future-reservations create --tpu-version``    ``V6E``
=====================================================  =====================================

:func:`tpu_slice` checks a GKE machine type and topology, :func:`cloud_tpu_slice` a Cloud TPU
accelerator type; both give a :class:`TpuSlice` (chips, VMs, every name above).
:func:`register_tpu_topology` teaches a shape Google adds before the library knows it.

Sources (each generation also carries its own, :attr:`TpuGeneration.source`):

* Cloud TPU system architecture pages: https://docs.cloud.google.com/tpu/docs/v6e ("Supported
  configurations": topology, chips, hosts, VMs, machine type; "The 8-chip (2x4) configuration
  attached to 2 VMs is only supported when using the GKE API"),
  https://docs.cloud.google.com/tpu/docs/v5e (2-D shapes 1x1 to 16x16; VM types
  ``ct5lp-hightpu-1t``/``-4t``/``-8t``), https://docs.cloud.google.com/tpu/docs/v5p ("All v5p
  TPU VMs use the ct5p-hightpu-4t machine type"; shapes 2x2x1 to 16x16x24; "The largest job
  that can be scheduled is a 96 cube (6144 chip) job").
* Runtime versions: https://cloud.google.com/tpu/docs/runtimes ("Trillium (v6e):
  v2-alpha-tpuv6e; v5p: v2-alpha-tpuv5; v5e: v2-alpha-tpuv5-lite").
* GKE labels and machine types: AI-Hypercomputer/xpk@367c838253bea41e7d7716145ad6513f44c1a21e
  ``src/xpk/core/system_characteristics.py`` (``gke_accelerator``, ``supported_topologies``,
  ``tensorcores_per_chip``, ``device_type = f'{prefix}-{num_tensorcores}'``) and
  GoogleCloudPlatform/cluster-toolkit@1047080375afbb44da4b596be314634e7486af4a
  ``modules/internal/tpu-definition/main.tf`` (``tpu_accelerator_map``) and
  ``pkg/config/hardware.go`` (``Validate3DTopology``).
* ``acceleratorConfig.type``: the Cloud TPU ``v2alpha1`` discovery document (``AcceleratorConfig
  .type``: V2, V3, V4, V5LITE_POD, V5P, V6E).
* ``vmFamily`` and ``--tpu-version``: the Compute discovery documents
  (``AllocationAggregateReservation.vmFamily``) and gcloud 528
  ``lib/googlecloudsdk/command_lib/compute/future_reservations/util.py``
  (``MakeAggregateReservationPropertiesMessage``: V5E, V5P, V6E).
* The topology syntax: gcloud 528 ``lib/googlecloudsdk/api_lib/container/api_adapter.py``
  (``TPU_TOPOLOGY_PATTERN``), and the VM count of a topology (``TpuTopologyToNumNodes``: chips
  divided by the machine type's chips).
* TPU7x (Ironwood): https://docs.cloud.google.com/kubernetes-engine/docs/concepts/tpu-ironwood
  (multi-host slices use a workload policy, "This policy replaces the --tpu-topology flag used by
  other TPU versions"), https://docs.cloud.google.com/tpu/docs/consume-reservation ("The Cloud
  TPU API is not supported on TPU7x and later TPU versions").
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace

from .. import limits
from ..errors import DwsValidationError

__all__ = [
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
]

TPU_RESOURCE = "google.com/tpu"
"""The Kubernetes extended resource of TPU chips: a Pod requests the chips of its node."""
TPU_ACCELERATOR_LABEL = "cloud.google.com/gke-tpu-accelerator"
TPU_TOPOLOGY_LABEL = "cloud.google.com/gke-tpu-topology"
TPU_TAINT: dict[str, str] = {"key": TPU_RESOURCE, "value": "present", "effect": "NoSchedule"}
"""The taint GKE puts on TPU nodes so that other Pods stay off them (Cluster Toolkit
``modules/compute/gke-node-pool`` ``tpu_taint``; GKE "About TPUs in GKE")."""
TOPOLOGY_PATTERN = re.compile(r"^\d{1,3}x\d{1,3}(x\d{1,3})?\Z")
"""gcloud's own check of ``--tpu-topology``: 2 or 3 integers separated by ``x``."""

_XPK = "AI-Hypercomputer/xpk@367c838253bea41e7d7716145ad6513f44c1a21e"
_CTK = "GoogleCloudPlatform/cluster-toolkit@1047080375afbb44da4b596be314634e7486af4a"
_RUNTIMES = "https://cloud.google.com/tpu/docs/runtimes"


@dataclass(frozen=True)
class TpuGeneration:
    """One TPU generation, under the names each API gives it.

    Attributes:
        name: the short name users write (``v6e``).
        title: the product name (``TPU v6e (Trillium)``).
        dimensions: 2 for 2-D topologies (``4x4``), 3 for 3-D ones (``2x2x4``).
        gke_accelerator: the value of the GKE node label ``cloud.google.com/gke-tpu-accelerator``.
        vm_family: Compute reservations' ``aggregateReservation.vmFamily``.
        calendar_version: gcloud ``future-reservations create --tpu-version`` (None: gcloud 528
            has no such choice).
        cloud_tpu_prefix: the Cloud TPU API's accelerator type prefix (``v6e`` in ``v6e-16``);
            None when the Cloud TPU API does not serve the generation.
        cores_per_chip: what the number of a Cloud TPU accelerator type counts: 1 (chips), 2
            (TensorCores, two per chip: ``v5p-8`` is 4 chips).
        accelerator_config_type: the Cloud TPU API's ``acceleratorConfig.type`` (``V6E``).
        runtime_version: the Cloud TPU runtime for PyTorch and JAX (``v2-alpha-tpuv6e``).
        topology_hint: what to do about a topology the catalog refuses (a generation-specific
            rule), or "".
        source: where these facts come from.
    """

    name: str
    title: str
    dimensions: int
    gke_accelerator: str
    vm_family: str
    calendar_version: str | None
    cloud_tpu_prefix: str | None
    cores_per_chip: int
    accelerator_config_type: str | None
    runtime_version: str | None
    source: str
    topology_hint: str = ""


@dataclass(frozen=True)
class TpuMachineType:
    """A TPU machine type: its generation, chips per VM and the topologies it serves.

    ``topologies`` are the documented shapes; ``custom_3d`` also admits any ``AxBxC`` shape of
    multiples of 4 with A <= B <= C, up to the ``tpu.v5p_cubes`` limit (v5p's rule)."""

    machine_type: str
    generation: TpuGeneration
    chips: int
    topologies: tuple[str, ...]
    custom_3d: bool = False
    source: str = ""

    @property
    def single_host_topology(self) -> str:
        """The shape of one VM (``2x2`` on ``ct6e-standard-4t``): the slice a pool without
        ``tpu_topology`` gets."""
        return next(t for t in self.topologies if topology_size(t) == self.chips)


@dataclass(frozen=True)
class TpuSlice:
    """One slice: a machine type and topology, with what every API calls it.

    ``vms`` is the number of TPU VMs (GKE nodes, Cloud TPU workers; gcloud and xpk call them
    hosts): chips divided by the machine type's chips per VM.
    """

    machine: TpuMachineType
    topology: str
    chips: int
    vms: int

    @property
    def generation(self) -> TpuGeneration:
        return self.machine.generation

    @property
    def machine_type(self) -> str:
        return self.machine.machine_type

    @property
    def hosts(self) -> int:
        """The VMs of the slice (gcloud's and xpk's word for them)."""
        return self.vms

    @property
    def multi_host(self) -> bool:
        """More than one VM: an atomic unit that GKE scales all at once."""
        return self.vms > 1

    @property
    def chips_per_vm(self) -> int:
        return self.machine.chips

    @property
    def cloud_tpu_type(self) -> str | None:
        """The Cloud TPU accelerator type of this exact slice (``v6e-16``), or None when the
        Cloud TPU API has none (``ct6e-standard-4t`` 2x4 on 2 VMs is GKE-only)."""
        gen = self.generation
        if gen.cloud_tpu_prefix is None:
            return None
        name = f"{gen.cloud_tpu_prefix}-{self.chips * gen.cores_per_chip}"
        served = _cloud_tpu_table().get(name)
        return name if served is not None and served == (self.machine_type, self.topology) else None

    def gke_node_labels(self) -> dict[str, str]:
        """The labels GKE puts on the slice's nodes (what a nodeSelector matches)."""
        return {
            TPU_ACCELERATOR_LABEL: self.generation.gke_accelerator,
            TPU_TOPOLOGY_LABEL: self.topology,
        }


def topology_size(topology: str) -> int:
    """Chips of a well-formed topology (the product of its dimensions)."""
    return math.prod(int(d) for d in topology.split("x"))


_V6E = TpuGeneration(
    name="v6e",
    title="TPU v6e (Trillium)",
    dimensions=2,
    gke_accelerator="tpu-v6e-slice",
    vm_family="VM_FAMILY_CLOUD_TPU_LITE_POD_SLICE_CT6E",
    calendar_version="V6E",
    cloud_tpu_prefix="v6e",
    cores_per_chip=1,
    accelerator_config_type="V6E",
    runtime_version="v2-alpha-tpuv6e",
    source=(
        "https://docs.cloud.google.com/tpu/docs/v6e (Supported configurations); "
        f"{_RUNTIMES}; {_XPK} src/xpk/core/system_characteristics.py"
    ),
)
_V5E = TpuGeneration(
    name="v5e",
    title="TPU v5e",
    dimensions=2,
    gke_accelerator="tpu-v5-lite-podslice",
    vm_family="VM_FAMILY_CLOUD_TPU_LITE_POD_SLICE_CT5LP",
    calendar_version="V5E",
    cloud_tpu_prefix="v5litepod",
    cores_per_chip=1,
    accelerator_config_type="V5LITE_POD",
    runtime_version="v2-alpha-tpuv5-lite",
    source=(
        "https://docs.cloud.google.com/tpu/docs/v5e (2-D slice shapes, VM types); "
        f"{_RUNTIMES}; {_XPK} src/xpk/core/system_characteristics.py (2x4 on "
        "ct5lp-hightpu-4t: xpk's supported_topologies)"
    ),
)
_V5P = TpuGeneration(
    name="v5p",
    title="TPU v5p",
    dimensions=3,
    gke_accelerator="tpu-v5p-slice",
    vm_family="VM_FAMILY_CLOUD_TPU_POD_SLICE_CT5P",
    calendar_version="V5P",
    cloud_tpu_prefix="v5p",
    cores_per_chip=2,
    accelerator_config_type="V5P",
    runtime_version="v2-alpha-tpuv5",
    source=(
        "https://docs.cloud.google.com/tpu/docs/v5p (topologies, cubes, ct5p-hightpu-4t); "
        f"{_RUNTIMES}; {_CTK} pkg/config/hardware.go (Validate3DTopology); {_XPK} "
        "src/xpk/core/system_characteristics.py (tensorcores_per_chip=2)"
    ),
    topology_hint=(
        "v5p takes 2x2x1, 2x2x2, 2x2x4, 2x4x4, or AxBxC of multiples of 4 with A <= B <= C"
    ),
)
_TPU7X = TpuGeneration(
    name="tpu7x",
    title="TPU7x (Ironwood)",
    dimensions=3,
    gke_accelerator="tpu7x",
    vm_family="VM_FAMILY_CLOUD_TPU_POD_SLICE_TPU7X",
    calendar_version=None,
    cloud_tpu_prefix=None,
    cores_per_chip=2,
    accelerator_config_type=None,
    runtime_version=None,
    source=(
        "https://docs.cloud.google.com/kubernetes-engine/docs/concepts/tpu-ironwood; "
        "https://docs.cloud.google.com/tpu/docs/consume-reservation (no Cloud TPU API); "
        f"{_XPK} src/xpk/core/system_characteristics.py (tpu7x-standard-4t, label tpu7x)"
    ),
    topology_hint=(
        "TPU7x multi-host slices are placed by a workload policy (placement_policy."
        "policy_name), not by a TPU topology; pulumi-dws makes single-host TPU7x pools only"
    ),
)

TPU_GENERATIONS: dict[str, TpuGeneration] = {g.name: g for g in (_V6E, _V5E, _V5P, _TPU7X)}
"""Every known generation by its short name."""

_2D_MULTI_HOST = ("4x4", "4x8", "8x8", "8x16", "16x16")
_V5P_SHAPES = (
    "2x2x1",
    "2x2x2",
    "2x2x4",
    "2x4x4",
    "4x4x4",
    "4x4x8",
    "4x8x8",
    "8x8x8",
    "8x8x16",
    "8x16x16",
    "16x16x16",
    "16x16x24",
)
_V5P_SMALL = ("2x2x1", "2x2x2", "2x2x4", "2x4x4")


def _machines(*machines: TpuMachineType) -> dict[str, TpuMachineType]:
    return {m.machine_type: m for m in machines}


_MACHINES: dict[str, TpuMachineType] = _machines(
    TpuMachineType("ct6e-standard-1t", _V6E, 1, ("1x1",)),
    TpuMachineType(
        "ct6e-standard-4t",
        _V6E,
        4,
        ("2x2", "2x4", *_2D_MULTI_HOST),
        source="2x4 on 2 VMs: GKE API only (docs.cloud.google.com/tpu/docs/v6e)",
    ),
    TpuMachineType("ct6e-standard-8t", _V6E, 8, ("2x4",)),
    TpuMachineType("ct5lp-hightpu-1t", _V5E, 1, ("1x1",)),
    TpuMachineType(
        "ct5lp-hightpu-4t",
        _V5E,
        4,
        ("2x2", "2x4", *_2D_MULTI_HOST),
        source=f"2x4 on 2 VMs: {_XPK} (supported_topologies of ct5lp-hightpu-4t)",
    ),
    TpuMachineType("ct5lp-hightpu-8t", _V5E, 8, ("2x4",)),
    TpuMachineType("ct5p-hightpu-4t", _V5P, 4, _V5P_SHAPES, custom_3d=True),
    TpuMachineType("tpu7x-standard-4t", _TPU7X, 4, ("2x2x1",)),
)


def tpu_generations() -> list[TpuGeneration]:
    """Every known generation."""
    return list(TPU_GENERATIONS.values())


def tpu_machines() -> list[str]:
    """Every known TPU machine type."""
    return sorted(_MACHINES)


def is_tpu_machine(machine_type: object) -> bool:
    """Whether ``machine_type`` is a TPU machine type of the catalog."""
    return isinstance(machine_type, str) and machine_type in _MACHINES


def tpu_generation(field: str, name: str) -> TpuGeneration:
    """A generation by any of its names: ``v6e``, gcloud's ``V6E``, the Cloud TPU prefix
    (``v5litepod``) or the reservation ``vmFamily``."""
    if isinstance(name, str):
        for gen in TPU_GENERATIONS.values():
            names = {gen.name, gen.calendar_version, gen.cloud_tpu_prefix, gen.vm_family}
            if name in names or name.lower() == gen.name:
                return gen
    raise DwsValidationError(
        field, name, f"is not a known TPU generation; use one of {', '.join(TPU_GENERATIONS)}"
    )


def tpu_machine(field: str, machine_type: str) -> TpuMachineType:
    """A TPU machine type of the catalog, or a :class:`DwsValidationError` naming ``field``."""
    found = _MACHINES.get(machine_type) if isinstance(machine_type, str) else None
    if found is None:
        raise DwsValidationError(
            field,
            machine_type,
            f"is not a known TPU machine type; use one of {', '.join(tpu_machines())}",
        )
    return found


def parse_topology(field: str, topology: str) -> tuple[int, ...]:
    """The dimensions of a topology string (``"4x4"`` -> ``(4, 4)``), as gcloud checks it."""
    if not isinstance(topology, str) or not TOPOLOGY_PATTERN.match(topology):
        raise DwsValidationError(
            field,
            topology,
            "is not a TPU topology: give 2 or 3 whole numbers separated by 'x' (e.g. 4x4 or 2x2x4)",
        )
    dims = tuple(int(d) for d in topology.split("x"))
    if 0 in dims:
        raise DwsValidationError(field, topology, "is not a TPU topology: no dimension may be 0")
    return dims


def _custom_3d(field: str, machine: TpuMachineType, dims: tuple[int, ...], topology: str) -> bool:
    """v5p's rule for shapes beyond the documented ones (Cluster Toolkit Validate3DTopology):
    multiples of 4, in ascending order, at most ``tpu.v5p_cubes`` cubes of 4x4x4."""
    if len(dims) != 3 or any(d % 4 for d in dims):
        return False
    if list(dims) != sorted(dims):
        raise DwsValidationError(
            field,
            topology,
            f"must list its dimensions in ascending order ({'x'.join(map(str, sorted(dims)))})",
        )
    row = limits.get("tpu.v5p_cubes")
    cubes = math.prod(dims) // 64
    try:
        row.check(field, cubes)
    except DwsValidationError:
        raise DwsValidationError(
            field, topology, f"is {cubes} cubes of 4x4x4 chips; allowed: {row.allowed()} cubes"
        ) from None
    return True


def tpu_slice(
    machine_type: str,
    topology: str | None = None,
    *,
    machine_field: str = "machine_type",
    topology_field: str = "tpu_topology",
) -> TpuSlice:
    """The slice of ``machine_type`` with ``topology`` (None: one VM's own shape), checked:
    an unknown machine type names ``machine_field``, a bad or unserved topology names
    ``topology_field``."""
    machine = tpu_machine(machine_field, machine_type)
    if topology is None:
        topology = machine.single_host_topology
    dims = parse_topology(topology_field, topology)
    gen = machine.generation
    if len(dims) != gen.dimensions:
        example = machine.topologies[-1]
        raise DwsValidationError(
            topology_field,
            topology,
            f"has {len(dims)} dimensions; {gen.title} topologies have {gen.dimensions} "
            f"(e.g. {example})",
        )
    served = topology in machine.topologies
    if not served and machine.custom_3d:
        served = _custom_3d(topology_field, machine, dims, topology)
    if not served:
        hint = f"; {gen.topology_hint}" if gen.topology_hint else ""
        raise DwsValidationError(
            topology_field,
            topology,
            f"is not a topology of {machine.machine_type} ({machine.chips} chips per VM); "
            f"use one of {', '.join(machine.topologies)}{hint}",
        )
    chips = math.prod(dims)
    if chips % machine.chips:
        raise DwsValidationError(
            topology_field,
            topology,
            f"has {chips} chips, not a whole number of {machine.machine_type} VMs "
            f"({machine.chips} chips each)",
        )
    return TpuSlice(machine, topology, chips, chips // machine.chips)


def _cloud_tpu_table() -> dict[str, tuple[str, str]]:
    """Cloud TPU accelerator type -> (machine type, topology): for each chip count, the
    documented shape with the fewest VMs (``v6e-8`` is one ``ct6e-standard-8t``, not two
    ``ct6e-standard-4t``: the docs give the 2-VM 2x4 no accelerator type)."""
    best: dict[str, tuple[int, str, str]] = {}
    for machine in _MACHINES.values():
        gen = machine.generation
        if gen.cloud_tpu_prefix is None:
            continue
        for topology in machine.topologies:
            chips = topology_size(topology)
            vms = chips // machine.chips
            name = f"{gen.cloud_tpu_prefix}-{chips * gen.cores_per_chip}"
            if name not in best or vms < best[name][0]:
                best[name] = (vms, machine.machine_type, topology)
    return {name: (m, t) for name, (_, m, t) in best.items()}


def cloud_tpu_types(generation: str | None = None) -> list[str]:
    """Every Cloud TPU accelerator type the catalog knows (of one generation if given), in
    order of size."""
    gen = tpu_generation("generation", generation) if generation is not None else None
    table = _cloud_tpu_table()
    names = [
        name
        for name, (machine, _) in table.items()
        if gen is None or _MACHINES[machine].generation == gen
    ]
    return sorted(names, key=lambda n: (n.rsplit("-", 1)[0], int(n.rsplit("-", 1)[1])))


_CLOUD_TPU_TYPE = re.compile(r"^(?P<prefix>[a-z0-9]+)-(?P<number>[1-9][0-9]*)\Z")


def cloud_tpu_slice(field: str, accelerator_type: str) -> TpuSlice:
    """The slice a Cloud TPU accelerator type (``v6e-16``, ``v5litepod-16``, ``v5p-8``)
    stands for: its chips, VMs, machine type and topology; a :class:`DwsValidationError`
    naming ``field`` for anything the Cloud TPU API does not offer."""
    match = _CLOUD_TPU_TYPE.match(accelerator_type) if isinstance(accelerator_type, str) else None
    prefixes = [g.cloud_tpu_prefix for g in TPU_GENERATIONS.values() if g.cloud_tpu_prefix]
    if match is None or match["prefix"] not in prefixes:
        unserved = next(
            (
                g
                for g in TPU_GENERATIONS.values()
                if g.cloud_tpu_prefix is None
                and isinstance(accelerator_type, str)
                and accelerator_type.startswith(g.name)
            ),
            None,
        )
        if unserved is not None:
            raise DwsValidationError(
                field,
                accelerator_type,
                f"is not available through the Cloud TPU API ({unserved.title} is served "
                "by GKE and Compute Engine only)",
            )
        raise DwsValidationError(
            field,
            accelerator_type,
            "is not a Cloud TPU accelerator type: use <version>-<size> with version one of "
            f"{', '.join(prefixes)} (e.g. v6e-16, v5litepod-16, v5p-8)",
        )
    served = _cloud_tpu_table().get(accelerator_type)
    if served is None:
        gen = tpu_generation(field, match["prefix"])
        counts = "TensorCores (2 per chip)" if gen.cores_per_chip == 2 else "chips"
        sizes = ", ".join(n.rsplit("-", 1)[1] for n in cloud_tpu_types(gen.name))
        raise DwsValidationError(
            field,
            accelerator_type,
            "is not a slice size its TPU version offers",
            f"; {gen.title} offers {match['prefix']}-N with N one of {sizes} (N counts {counts})",
        )
    return tpu_slice(*served, machine_field=field, topology_field=field)


_RUNTIME_VERSION = re.compile(r"^[a-z0-9][a-z0-9.-]*\Z")
_GENERATION_RUNTIME = re.compile(r"^v2-alpha-tpuv")


def check_runtime_version(field: str, accelerator_type: str, version: str | None) -> str:
    """Check a Cloud TPU runtime version for ``accelerator_type``: a runtime name (lowercase
    letters, digits, ``.`` and ``-``), and not the PyTorch/JAX runtime of another generation
    (``v2-alpha-tpuv5-lite`` on ``v6e-16``). Other runtimes (TensorFlow's ``tpu-vm-tf-...``,
    base images) are left to the API."""
    generation = cloud_tpu_slice("accelerator_type", accelerator_type).generation
    if not isinstance(version, str) or not _RUNTIME_VERSION.match(version):
        raise DwsValidationError(
            field,
            version,
            "is not a Cloud TPU runtime version (lowercase letters, digits, '.' and '-'; "
            f"e.g. {generation.runtime_version})",
        )
    if _GENERATION_RUNTIME.match(version) and version != generation.runtime_version:
        owner = next((g for g in TPU_GENERATIONS.values() if g.runtime_version == version), None)
        made_for = f"the runtime of {owner.title}" if owner else "not a known runtime"
        raise DwsValidationError(
            field,
            version,
            f"is {made_for}; {accelerator_type} ({generation.title}) uses "
            f"{generation.runtime_version}",
        )
    return version


def register_tpu_topology(machine_type: str, topology: str) -> TpuMachineType:
    """Teach the catalog a topology Google serves on a known TPU machine type before the
    library lists it (chips must be a whole number of its VMs)."""
    machine = tpu_machine("machine_type", machine_type)
    dims = parse_topology("topology", topology)
    if len(dims) != machine.generation.dimensions or math.prod(dims) % machine.chips:
        raise DwsValidationError(
            "topology",
            topology,
            f"does not fit {machine_type} ({machine.generation.dimensions} dimensions, a "
            f"multiple of {machine.chips} chips)",
        )
    if topology not in machine.topologies:
        machine = replace(machine, topologies=(*machine.topologies, topology))
        _MACHINES[machine_type] = machine
    return machine
