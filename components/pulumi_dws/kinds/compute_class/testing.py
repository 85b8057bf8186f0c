"""Test aids of ComputeClasses (:mod:`pulumi_dws.kinds.compute_class.kind`): the policy sample
and violating examples of a ComputeClass (it behaves under
:class:`~pulumi_dws.testing.GcpMocks` as any Kubernetes object, see
:mod:`pulumi_dws.testing.kinds.common`)."""

from __future__ import annotations

from typing import Any

from ...testing.samples import DELETE, Example, Sample

__all__ = ["SAMPLES", "EXAMPLES", "compute_class"]


def compute_class() -> dict[str, Any]:
    """A GPU ComputeClass as :class:`~pulumi_dws.ComputeClass` registers it: a Calendar
    block's reservation first, then Flex-start for at most 7 days."""
    gpu = {"type": "nvidia-h200-141gb", "count": 8, "driverVersion": "latest"}
    return {
        "apiVersion": "cloud.google.com/v1",
        "kind": "ComputeClass",
        "metadata": {"name": "h200"},
        "spec": {
            "priorities": [
                {
                    "machineType": "a3-ultragpu-8g",
                    "gpu": dict(gpu),
                    "reservations": {"affinity": "Specific", "specific": [{"name": "h200-block"}]},
                },
                {
                    "machineType": "a3-ultragpu-8g",
                    "gpu": dict(gpu),
                    "flexStart": {"enabled": True, "nodeRecycling": {"leadTimeSeconds": 3600}},
                    "maxRunDurationSeconds": 604800,
                },
            ],
            "whenUnsatisfiable": "DoNotScaleUp",
            "nodePoolAutoCreation": {"enabled": True},
            "priorityDefaults": {"location": {"zones": ["us-central1-b"]}},
        },
    }


SAMPLES: dict[str, Sample] = {
    "compute_class": ("kubernetes:cloud.google.com/v1:ComputeClass", compute_class),
}

EXAMPLES: tuple[Example, ...] = (
    Example(
        "compute-class-flex-start",
        "compute_class",
        (("spec.priorities.1.maxRunDurationSeconds", DELETE),),
        "maxRunDurationSeconds is missing",
    ),
    Example(
        "compute-class-flex-start",
        "compute_class",
        (("spec.priorities.1.maxRunDurationSeconds", 691200),),
        "compute_class.flex_start_max_run_duration",
    ),
    Example(
        "compute-class-flex-start",
        "compute_class",
        (("spec.priorities.1.spot", True),),
        "incompatible with Spot",
    ),
    Example(
        "compute-class-flex-start",
        "compute_class",
        (("spec.priorities.1.flexStart.nodeRecycling.leadTimeSeconds", 604800),),
        "not shorter than maxRunDurationSeconds",
    ),
    Example(
        "compute-class-flex-start",
        "compute_class",
        (("spec.priorities.1.maxRunDurationSeconds", 259200),),
        "policy cap",
        config={"maxRunDuration": "1d"},
    ),
    Example(
        "frontier-machine-fit",
        "compute_class",
        (("spec.priorities.1.machineType", "a4x-highgpu-4g"),),
        "spec.priorities[1].machineType: a4x-highgpu-4g can't be Flex-start",
    ),
)
