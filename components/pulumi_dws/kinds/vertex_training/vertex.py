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
) -> VertexMachine:
    """The machine spec of a GPU ``machine_type`` of the catalog: ``accelerator_type`` (Vertex
    or Compute name) and ``accelerator_count`` default to what the machine comes with and must
    match it; ``allowed`` (Vertex names) the GPUs ``door`` takes."""
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
    if accelerator_count is not None and accelerator_count != shape.gpus:
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
    return VertexMachine(machine_type, vertex_name, shape.gpus, shape.accelerator.compute_name)
