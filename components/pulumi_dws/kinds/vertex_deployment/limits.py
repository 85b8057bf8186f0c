"""The limit rows of models deployed on Vertex AI Flex-start capacity (``FlexStartDeployment``):
the run and the replicas: each row with its source, registered with :mod:`pulumi_dws.limits`
when this module is imported."""

from __future__ import annotations

from ...limits import WEEK, Limit, register

__all__ = ["ROWS"]

FLEX_INFERENCE = "https://docs.cloud.google.com/vertex-ai/docs/predictions/use-flex-start-vms"
DISCOVERY = "aiplatform v1beta1 discovery document (google-api-python-client 2.202.0, 20261106)"

ROWS: tuple[Limit, ...] = (
    Limit(
        "vertex_deployment.max_runtime_duration",
        "Vertex AI Flex-start deployment run (flexStart.maxRuntimeDuration)",
        "seconds",
        (
            f'{FLEX_INFERENCE} ("for any duration up to seven days"; "Any deployment '
            'request for a longer duration will be rejected"); no '
            "documented lower bound: pulumi-dws bounds it to 10 minutes, Compute Engine "
            "Flex-start VMs' shortest run"
        ),
        minimum=600,
        maximum=WEEK,
    ),
    Limit(
        "vertex_deployment.replica_count",
        "Vertex AI deployment replica count",
        "count",
        (
            f'{DISCOVERY} DedicatedResources.minReplicaCount ("must be greater than or equal '
            'to 1"); the 1000 cap is a pulumi-dws sanity bound, not a documented Google limit '
            "(override the row)"
        ),
        minimum=1,
        maximum=1000,
    ),
)
"""This kind's rows."""

register(*ROWS)
