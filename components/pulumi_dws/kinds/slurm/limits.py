"""The limit rows of managed Slurm clusters (``SlurmCluster``): Flex-start duration, node counts,
names and ids: each row with its source, registered with :mod:`pulumi_dws.limits` when this
module is imported."""

from __future__ import annotations

from ...limits import FACTS, WEEK, Limit, register

__all__ = ["ROWS"]

MDC_DEFINITION = (
    "GoogleCloudPlatform/magic-modules@0ab2d4ad24041037ac85442d680f48ba57dfdcfb "
    "mmv1/products/vertexai/ModelDevelopmentCluster.yaml"
)

SLURM_CREATE_DOCS = (
    "https://docs.cloud.google.com/gemini-enterprise-agent-platform/machine-learning/training/"
    "training-clusters/create-cluster"
)

ROWS: tuple[Limit, ...] = (
    Limit(
        "slurm.flex_start_max_duration",
        "Slurm Flex-start max duration",
        "seconds",
        (
            "seed 002 (Slurm with Flex-start): flex_start_max_duration 30 s to 7 days "
            f"(604800 s), default 7 days; {FACTS} §3. A different limit from "
            "flex_start.max_run_duration (a Flex-start VM's own run, 10 minutes at least)"
        ),
        minimum=30,
        maximum=WEEK,
    ),
    Limit(
        "slurm.node_count",
        "Slurm node pool node count",
        "count",
        (
            f"{FACTS} §3: scaling_spec min/max node counts are non-negative; the 1000 cap "
            "is a pulumi-dws sanity bound, not a documented Google limit (override it)"
        ),
        minimum=0,
        maximum=1000,
    ),
    Limit(
        "slurm.display_name_length",
        "Slurm cluster display name length",
        "count",
        (
            f"{SLURM_CREATE_DOCS} (Parameter reference, DISPLAY_NAME: lowercase "
            "alphanumeric characters, begins with a letter, at most 10 characters)"
        ),
        minimum=1,
        maximum=10,
    ),
    Limit(
        "slurm.cluster_id_length",
        "Slurm cluster id length",
        "count",
        (
            f"{MDC_DEFINITION} (modelDevelopmentClusterId: 1 to 10 characters; with "
            "slurm_spec /^[a-z][a-z0-9]{0,9}$/, no hyphens)"
        ),
        minimum=1,
        maximum=10,
    ),
)
"""This kind's rows."""

register(*ROWS)
