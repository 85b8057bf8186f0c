"""What the Vertex AI doors (``VertexTrainingJob``, ``FlexStartDeployment``) share: the regions
Vertex AI serves, the GPUs its Dynamic Workload Scheduler takes, and a machine spec checked
against the catalog, each with its source.

When Google opens Vertex AI in a region this table does not list yet, add it for the running
program instead of waiting for a release::

    from pulumi_dws.kinds.vertex_training import vertex
    vertex.add_region("europe-west15")
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ... import catalog
from ...errors import DwsValidationError
from ...outputs import is_output

__all__ = [
    "DWS_TRAINING_GPUS",
    "LOCATIONS",
    "VERTEX_REGIONS",
    "VertexMachine",
    "add_region",
    "check_region",
    "vertex_machine",
]

LOCATIONS = "https://docs.cloud.google.com/vertex-ai/docs/general/locations"
DWS_TRAINING = "https://cloud.google.com/vertex-ai/docs/training/schedule-jobs-dws"
FLEX_INFERENCE = "https://docs.cloud.google.com/vertex-ai/docs/predictions/use-flex-start-vms"
CO_SCHEDULING = (
    'aiplatform v1beta1 discovery document, MachineSpec.acceleratorCount ("One may set the '
    "accelerator_count from 1 to N for machine with N GPUs. If accelerator_count is less than or "
    'equal to N / 2, ... co-schedules the replicas of the model into the same VM")'
)

VERTEX_REGIONS: set[str] = {
    # United States (the page's list, checked in full)
    "us-central1", "us-east1", "us-east4", "us-east5", "us-south1",
    "us-west1", "us-west2", "us-west3", "us-west4",
    # Canada, South America
    "northamerica-northeast1", "northamerica-northeast2", "southamerica-east1",
    "southamerica-west1",
    # Europe
    "europe-central2", "europe-north1", "europe-southwest1", "europe-west1", "europe-west2",
    "europe-west3", "europe-west4", "europe-west6", "europe-west8", "europe-west9",
    "europe-west12",
    # Asia Pacific
    "asia-east1", "asia-east2", "asia-northeast1", "asia-northeast2", "asia-northeast3",
    "asia-south1", "asia-southeast1", "asia-southeast2", "australia-southeast1",
    "australia-southeast2",
    # Middle East, Africa
    "me-central1", "me-central2", "me-west1", "africa-south1",
}  # fmt: skip
"""Regions Vertex AI serves (:data:`LOCATIONS`, "Available locations"): its API is regional
(``https://REGION-aiplatform.googleapis.com``), so a region outside them has no endpoint."""

DWS_TRAINING_GPUS: dict[str, str] = {
    "NVIDIA_L4": "L4",
    "NVIDIA_TESLA_A100": "A100",
    "NVIDIA_A100_80GB": "A100",
    "NVIDIA_H100_80GB": "H100",
    "NVIDIA_H100_MEGA_80GB": "H100",
    "NVIDIA_H200_141GB": "H200",
    "NVIDIA_B200": "B200",
}
"""The Vertex AI accelerator names a Flex-start training job may ask for (:data:`DWS_TRAINING`:
"Your serverless training job requests L4, A100, H100, H200, or B200 GPUs")."""


def add_region(region: str) -> None:
    """Accept ``region`` as a Vertex AI region from now on (Google opened one)."""
    VERTEX_REGIONS.add(region)


def check_region(field: str, value: Any) -> Any:
    """A region Vertex AI serves (an Output is let be: checked once known by the spec)."""
    if is_output(value):
        return value
    if not isinstance(value, str) or value not in VERTEX_REGIONS:
        raise DwsValidationError(
            field,
            value,
            "is not a region Vertex AI serves (its API is regional); use one of "
            f"{', '.join(sorted(VERTEX_REGIONS))} ({LOCATIONS}), or "
            "pulumi_dws.kinds.vertex_training.vertex.add_region() a new one",
        )
    return value


@dataclass(frozen=True)
class VertexMachine:
    """A Vertex AI ``MachineSpec``: a GPU machine type of the catalog with the accelerators it
    comes with (Vertex AI's names)."""

    machine_type: str
    accelerator_type: str
    accelerator_count: int
    compute_accelerator: str
    machine_gpus: int = 0
    """The GPUs the machine type carries (0: ``accelerator_count``, all of them)."""

    @property
    def replicas_per_vm(self) -> int:
        """Replicas Vertex AI puts on one VM: ``N // accelerator_count`` when a replica takes
        half of the machine's N GPUs or fewer (:data:`CO_SCHEDULING`), else 1."""
        whole = self.machine_gpus or self.accelerator_count
        if 0 < self.accelerator_count <= whole // 2:
            return whole // self.accelerator_count
        return 1

    def gpus_held(self, replicas: int) -> int:
        """GPUs the VMs of ``replicas`` replicas carry (every GPU of each VM)."""
        whole = self.machine_gpus or self.accelerator_count
        return -(-replicas // self.replicas_per_vm) * whole

    def spec(self) -> dict[str, Any]:
        """The ``MachineSpec`` JSON, keys in the order gcloud sends them."""
        return {
            "acceleratorCount": self.accelerator_count,
            "acceleratorType": self.accelerator_type,
            "machineType": self.machine_type,
        }


def vertex_machine(
    machine_type: Any,
    accelerator_type: Any = None,
    accelerator_count: Any = None,
    *,
    allowed: Mapping[str, str] | None = None,
    door: str = "",
    fields: tuple[str, str, str] = ("machine_type", "accelerator_type", "accelerator_count"),
    co_scheduled: bool = False,
) -> VertexMachine:
    """The machine spec of a GPU ``machine_type`` of the catalog: ``accelerator_type`` (Vertex
    or Compute name) and ``accelerator_count`` default to what the machine comes with and must
    match it (``co_scheduled``, a deployed model's: 1 to the machine's GPUs,
    :data:`CO_SCHEDULING`); ``allowed`` (Vertex names) the GPUs ``door`` takes."""
    machine_field, type_field, count_field = fields
    shape = catalog.machine_shape(machine_field, machine_type)
    vertex_name = shape.accelerator.vertex_name
    if accelerator_type is not None:
        given = catalog.accelerator(type_field, accelerator_type)
        if given != shape.accelerator:
            raise DwsValidationError(
                type_field,
                accelerator_type,
                f"does not match {machine_type}, which carries {vertex_name} "
                f"({shape.accelerator.compute_name}); use that or leave it out",
            )
    if co_scheduled and accelerator_count is not None:
        if not 1 <= accelerator_count <= shape.gpus:
            raise DwsValidationError(
                count_field,
                accelerator_count,
                f"is not 1 to {shape.gpus}, the GPUs of {machine_type} (a replica may take "
                "fewer than the machine carries; at half or fewer, Vertex AI puts several "
                f"replicas on one VM: {CO_SCHEDULING})",
            )
    elif accelerator_count is not None and accelerator_count != shape.gpus:
        raise DwsValidationError(
            count_field,
            accelerator_count,
            f"does not match {machine_type}, which carries {shape.gpus} GPUs; use "
            f"{shape.gpus} or leave it out",
        )
    if allowed is not None and vertex_name not in allowed:
        kinds = sorted(set(allowed.values()))
        raise DwsValidationError(
            machine_field,
            machine_type,
            f"carries {vertex_name}, which {door} does not offer; it takes "
            f"{', '.join(kinds)} GPUs ({', '.join(sorted(allowed))})",
        )
    count = accelerator_count if accelerator_count is not None else shape.gpus
    return VertexMachine(
        machine_type, vertex_name, count, shape.accelerator.compute_name, shape.gpus
    )
