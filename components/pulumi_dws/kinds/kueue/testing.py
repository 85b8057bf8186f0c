"""Test aids of Kueue queues (:mod:`pulumi_dws.kinds.kueue.kind`): the policy sample and violating
example of a ``ProvisioningRequestConfig`` (Kueue objects behave under
:class:`~pulumi_dws.testing.GcpMocks` as any Kubernetes object, see
:mod:`pulumi_dws.testing.kinds.common`)."""

from __future__ import annotations

from typing import Any

from ...testing.samples import Example, Sample

__all__ = ["SAMPLES", "EXAMPLES"]


def kueue_config() -> dict[str, Any]:
    """A Kueue ``ProvisioningRequestConfig`` (pulumi-kubernetes CustomResource inputs)."""
    return {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "ProvisioningRequestConfig",
        "metadata": {"name": "dws"},
        "spec": {
            "provisioningClassName": "queued-provisioning.gke.io",
            "managedResources": ["nvidia.com/gpu"],
            "parameters": {"maxRunDurationSeconds": "86400"},
        },
    }


SAMPLES: dict[str, Sample] = {
    "kueue_config": (
        "kubernetes:kueue.x-k8s.io/v1beta2:ProvisioningRequestConfig",
        kueue_config,
    ),
}

EXAMPLES: tuple[Example, ...] = (
    Example(
        "flex-start-max-run-duration",
        "kueue_config",
        (("spec.parameters.maxRunDurationSeconds", "700000"),),
        "kueue.max_run_duration",
    ),
)
