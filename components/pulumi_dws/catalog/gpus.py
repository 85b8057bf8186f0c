"""GPU machine types with their accelerators, and the CPU series (TPUs: :mod:`.tpus`).

Accelerator-optimized families (A2, A3, A4, A4X, A4X Max, G2, G4) come with their GPUs
attached; the table maps each machine type to the accelerator Compute Engine / GKE name
(``nvidia-h100-80gb``), the Vertex AI enum name (``NVIDIA_H100_80GB``) and the GPU count.
``register`` adds a GPU machine type the library does not know yet. CPU machine types
(``n2-standard-8``) are recognised by series and shape (:data:`CPU_SERIES`); ``register_cpu``
adds one outside them. :func:`machine_kind` checks any machine type against both, so a typo
(``n2-standrd-8``, ``a3-ultragpu-8gg``) is an error rather than a machine with no GPUs."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..errors import DwsValidationError
from .series import SERIES, check_series_machine, is_hpc_flex_machine
from .tpus import is_tpu_machine

__all__ = [
    "MachineShape",
    "Accelerator",
    "ACCELERATORS",
    "machine_shape",
    "accelerator",
    "check_attached",
    "register",
    "known",
    "COMPACT_FLEX_START_PREFIXES",
    "compact_with_flex_start",
    "CPU_SERIES",
    "machine_kind",
    "calendar_machine",
    "register_cpu",
]


@dataclass(frozen=True)
class Accelerator:
    """One GPU model, under the names each API uses."""

    compute_name: str
    vertex_name: str


ACCELERATORS: dict[str, Accelerator] = {
    a.compute_name: a
    for a in [
        Accelerator("nvidia-tesla-a100", "NVIDIA_TESLA_A100"),
        Accelerator("nvidia-a100-80gb", "NVIDIA_A100_80GB"),
        Accelerator("nvidia-h100-80gb", "NVIDIA_H100_80GB"),
        Accelerator("nvidia-h100-mega-80gb", "NVIDIA_H100_MEGA_80GB"),
        Accelerator("nvidia-h200-141gb", "NVIDIA_H200_141GB"),
        Accelerator("nvidia-b200", "NVIDIA_B200"),
        Accelerator("nvidia-gb200", "NVIDIA_GB200"),
        # Not in Vertex AI's AcceleratorType enum (aiplatform v1, 20261106): the name follows
        # its pattern; A4X Max is not offered through Vertex AI.
        Accelerator("nvidia-gb300", "NVIDIA_GB300"),
        Accelerator("nvidia-rtx-pro-6000", "NVIDIA_RTX_PRO_6000"),
        Accelerator("nvidia-l4", "NVIDIA_L4"),
    ]
}


@dataclass(frozen=True)
class MachineShape:
    """A GPU machine type: its family, accelerator and GPU count."""

    machine_type: str
    family: str
    accelerator: Accelerator
    gpus: int


def _family(prefix: str, accelerator: str, shapes: dict[str, int]) -> dict[str, MachineShape]:
    acc = ACCELERATORS[accelerator]
    return {
        f"{prefix}-{suffix}": MachineShape(f"{prefix}-{suffix}", prefix.split("-")[0], acc, n)
        for suffix, n in shapes.items()
    }


_MACHINES: dict[str, MachineShape] = {
    **_family("a2-highgpu", "nvidia-tesla-a100", {"1g": 1, "2g": 2, "4g": 4, "8g": 8}),
    **_family("a2-megagpu", "nvidia-tesla-a100", {"16g": 16}),
    **_family("a2-ultragpu", "nvidia-a100-80gb", {"1g": 1, "2g": 2, "4g": 4, "8g": 8}),
    **_family("a3-highgpu", "nvidia-h100-80gb", {"1g": 1, "2g": 2, "4g": 4, "8g": 8}),
    **_family("a3-edgegpu", "nvidia-h100-80gb", {"8g": 8}),
    **_family("a3-megagpu", "nvidia-h100-mega-80gb", {"8g": 8}),
    **_family("a3-ultragpu", "nvidia-h200-141gb", {"8g": 8}),
    **_family("a4-highgpu", "nvidia-b200", {"8g": 8}),
    **_family("a4x-highgpu", "nvidia-gb200", {"4g": 4}),
    # A4X Max: bare metal, 4 GB300 GPUs (GoogleCloudPlatform/cluster-toolkit@1047080375
    # examples/machine-learning/a4x-maxgpu-4g-metal, guest_accelerator nvidia-gb300).
    **_family("a4x-maxgpu", "nvidia-gb300", {"4g-metal": 4}),
    **_family(
        "g2-standard",
        "nvidia-l4",
        {"4": 1, "8": 1, "12": 1, "16": 1, "24": 2, "32": 1, "48": 4, "96": 8},
    ),
    # G4: RTX PRO 6000, 1/2/4/8 GPUs (Compute Engine G4 series; dstackai/dstack#3213 lists the
    # four shapes). Not Flex-start: catalog.series.
    **_family("g4-standard", "nvidia-rtx-pro-6000", {"48": 1, "96": 2, "192": 4, "384": 8}),
}


# Compute Engine's general-purpose, compute-, memory-optimized and HPC series and their
# shapes (https://cloud.google.com/compute/docs/machine-resource): <series>-<shape>-<vCPUs>,
# optionally -lssd or -metal; E2 also has e2-micro, e2-small and e2-medium.
_THREE_SHAPES = ("standard", "highmem", "highcpu")
CPU_SERIES: dict[str, tuple[str, ...]] = {
    **dict.fromkeys(("e2", "n1", "n2", "n2d", "n4", "n4d", "n4a"), _THREE_SHAPES),
    **dict.fromkeys(("c2d", "c3", "c3d", "c4", "c4a", "c4d", "h4d"), _THREE_SHAPES),
    "c2": ("standard",),
    "h3": ("standard",),
    "t2d": ("standard",),
    "t2a": ("standard",),
    "m1": ("megamem", "ultramem"),
    "m2": ("megamem", "ultramem", "hypermem"),
    "m3": ("megamem", "ultramem"),
    "m4": ("megamem", "ultramem"),
    "x4": ("megamem",),
    "z3": ("highmem",),
}
_CPU_TYPE = re.compile(
    r"^(?P<series>[a-z][a-z0-9]*)-(?P<shape>[a-z]+)-[1-9][0-9]*(-lssd|-metal)?\Z"
)
_E2_SHARED_CORE = ("e2-micro", "e2-small", "e2-medium")
_CPU_MACHINES: set[str] = set()

COMPACT_FLEX_START_PREFIXES: tuple[str, ...] = ("a3-ultragpu-", "a4-", "h4d-")
"""Machine types whose Flex-start node pools may use compact placement: A3 Ultra, A4 and H4D
(Cluster Toolkit ``modules/compute/gke-node-pool/main.tf``, precondition "Compact placement
with DWS Flex start is only supported for A3 Ultra, A4, and H4D machine types"; ``a4-``
matches A4, not A4X)."""


def compact_with_flex_start(machine_type: str) -> bool:
    """Whether a Flex-start pool of ``machine_type`` may use compact placement."""
    return machine_type.startswith(COMPACT_FLEX_START_PREFIXES)


def known() -> list[str]:
    """Every machine type in the table."""
    return sorted(_MACHINES)


def register(machine_type: str, accelerator: str, gpus: int, vertex_name: str = "") -> MachineShape:
    """Teach the library a GPU machine type it does not know yet."""
    acc = ACCELERATORS.get(accelerator) or Accelerator(
        accelerator, vertex_name or accelerator.upper().replace("-", "_")
    )
    ACCELERATORS.setdefault(accelerator, acc)
    shape = MachineShape(machine_type, machine_type.split("-")[0], acc, gpus)
    _MACHINES[machine_type] = shape
    return shape


def machine_shape(field: str, machine_type: str) -> MachineShape:
    """The shape of a known GPU machine type, or a :class:`DwsValidationError`."""
    shape = _MACHINES.get(machine_type)
    if shape is None and is_tpu_machine(machine_type):
        raise DwsValidationError(
            field, machine_type, "is a TPU machine type; this field takes a GPU machine type"
        )
    if shape is None:
        families = sorted({m.rsplit("-", 1)[0] for m in _MACHINES})
        raise DwsValidationError(
            field,
            machine_type,
            "is not a known GPU machine type for DWS; use one of the families "
            f"{', '.join(families)} (e.g. a3-highgpu-8g), or pulumi_dws.catalog.register() it",
        )
    return shape


def accelerator(field: str, name: str) -> Accelerator:
    """Look up an accelerator by its Compute name or its Vertex AI enum name."""
    for acc in ACCELERATORS.values():
        if name in (acc.compute_name, acc.vertex_name):
            return acc
    raise DwsValidationError(
        field, name, f"is not a known GPU accelerator; use one of {', '.join(sorted(ACCELERATORS))}"
    )


def check_attached(
    machine_type: str,
    accelerator_type: str | None = None,
    accelerator_count: int | None = None,
) -> MachineShape:
    """The shape of ``machine_type``, checking optional ``accelerator_type`` (Compute or Vertex
    AI name) and ``accelerator_count`` against the GPUs that family comes with attached."""
    shape = machine_shape("machine_type", machine_type)
    if (
        accelerator_type is not None
        and accelerator("accelerator_type", accelerator_type) != shape.accelerator
    ):
        raise DwsValidationError(
            "accelerator_type",
            accelerator_type,
            f"does not match {machine_type}, which carries "
            f"{shape.accelerator.compute_name}; use that or omit it",
        )
    if accelerator_count is not None and accelerator_count != shape.gpus:
        raise DwsValidationError(
            "accelerator_count",
            accelerator_count,
            f"does not match {machine_type}, which carries {shape.gpus} GPUs; "
            f"use {shape.gpus} or omit it",
        )
    return shape


def register_cpu(machine_type: str) -> None:
    """Teach the library a CPU machine type outside :data:`CPU_SERIES`."""
    _CPU_MACHINES.add(machine_type)


def _is_cpu(machine_type: str) -> bool:
    if machine_type in _CPU_MACHINES or machine_type in _E2_SHARED_CORE:
        return True
    match = _CPU_TYPE.match(machine_type)
    return match is not None and match["shape"] in CPU_SERIES.get(match["series"], ())


def machine_kind(field: str, machine_type: str) -> MachineShape | None:
    """The GPU shape of a known GPU machine type, None for a known CPU machine type, or a
    :class:`DwsValidationError` for anything else (a typo must not pass as "no GPUs")."""
    shape = _MACHINES.get(machine_type) if isinstance(machine_type, str) else None
    if shape is not None:
        return shape
    if isinstance(machine_type, str) and _is_cpu(machine_type):
        if machine_type not in _CPU_MACHINES:
            check_series_machine(field, machine_type)  # H4D: only the types Google documents
        return None
    gpu_families = sorted({m.rsplit("-", 1)[0] for m in _MACHINES})
    raise DwsValidationError(
        field,
        machine_type,
        "is not a known machine type: use a GPU type of the families "
        f"{', '.join(gpu_families)} (e.g. a3-ultragpu-8g) or a CPU type "
        "<series>-<shape>-<vCPUs> of the series "
        f"{', '.join(sorted(CPU_SERIES))} (e.g. n2-standard-8); or teach it with "
        "pulumi_dws.catalog.register() / register_cpu()",
    )


def calendar_machine(field: str, value: object) -> str:
    """``value`` checked as what Calendar mode reserves as VMs: a GPU machine type of the catalog
    (``a3-highgpu-8g``) or an H4D machine type Google documents (``h4d-highmem-192``); else one
    :class:`DwsValidationError` naming both (a TPU machine type says what the field takes)."""
    if not isinstance(value, str):
        raise DwsValidationError(
            field, value, "must be a plain string (it decides the VMs reserved up front)"
        )
    if is_hpc_flex_machine(value):
        check_series_machine(field, value)
        return value
    if value in known() or is_tpu_machine(value):
        machine_shape(field, value)  # a TPU machine type: says what this field takes
        return value
    h4d = next(s for s in SERIES if s.name == "H4D")
    families = sorted({m.rsplit("-", 1)[0] for m in known()})
    raise DwsValidationError(
        field,
        value,
        "is not a known GPU machine type for DWS nor an H4D one: use a GPU type of the "
        f"families {', '.join(families)} (e.g. a3-highgpu-8g), an H4D type "
        f"({', '.join(h4d.machine_types)}), or pulumi_dws.catalog.register() it",
    )
