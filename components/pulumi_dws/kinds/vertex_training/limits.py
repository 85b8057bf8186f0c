"""The limit rows of Vertex AI training jobs on Flex-start (``VertexTrainingJob``): the queue
window, the run limit, the worker pools and their replicas: each row with its source,
registered with :mod:`pulumi_dws.limits` when this module is imported."""

from __future__ import annotations

from ...limits import WEEK, Limit, register

__all__ = ["ROWS"]

DWS_TRAINING = "https://cloud.google.com/vertex-ai/docs/training/schedule-jobs-dws"
DISTRIBUTED = "https://cloud.google.com/vertex-ai/docs/training/distributed-training"
DISCOVERY = "aiplatform v1beta1 discovery document (google-api-python-client 2.202.0, 20261106)"

ROWS: tuple[Limit, ...] = (
    Limit(
        "vertex_training.max_wait",
        "Vertex AI Flex-start queue window (scheduling.maxWaitDuration)",
        "seconds",
        (
            f"{DWS_TRAINING} (maxWaitDuration: 0 waits indefinitely, the default is 1 day); "
            f"{DISCOVERY} Scheduling.maxWaitDuration; no documented maximum"
        ),
        minimum=0,
    ),
    Limit(
        "vertex_training.max_run_duration",
        "Vertex AI Flex-start job run (scheduling.timeout)",
        "seconds",
        (
            f'{DWS_TRAINING} ("a maximum timeout of 7 days or less"); {DISCOVERY} '
            "Scheduling.timeout (default 7 days); no documented lower bound: pulumi-dws "
            "bounds it to 1 minute"
        ),
        minimum=60,
        maximum=WEEK,
    ),
    Limit(
        "vertex_training.worker_pools",
        "number of Vertex AI worker pools",
        "count",
        (
            f"{DISTRIBUTED} (worker pools 0 to 3: primary replica, workers, parameter servers, "
            f"evaluators); {DISCOVERY} CustomJobSpec.workerPoolSpecs"
        ),
        minimum=1,
        maximum=4,
    ),
    Limit(
        "vertex_training.replica_count",
        "Vertex AI worker pool replica count",
        "count",
        (
            f'{DISTRIBUTED} ("Use the first worker pool to configure the primary replica, and '
            'set the replica count to 1"); the 1024 cap of the other pools is a pulumi-dws '
            "sanity bound, not a documented Google limit (override the row)"
        ),
        minimum=1,
        maximum=1024,
    ),
)
"""This kind's rows."""

register(*ROWS)
