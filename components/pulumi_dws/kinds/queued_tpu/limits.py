"""The limit rows of Cloud TPU queued resources (``QueuedTpu``): Flex-start run, queue window,
multislice size (the Flex-start zones are the catalog's table): each row with its source,
registered with :mod:`pulumi_dws.limits` when this module is imported."""

from __future__ import annotations

from ...limits import WEEK, Limit, register

__all__ = ["ROWS"]

TPU_FLEX_DOCS = "https://docs.cloud.google.com/tpu/docs/request-using-flex-start"

ROWS: tuple[Limit, ...] = (
    Limit(
        "queued_tpu.max_run_duration",
        "Cloud TPU Flex-start max run duration",
        "seconds",
        (
            f'{TPU_FLEX_DOCS} ("You can request Flex-start resources for a duration of up '
            "to 7 days\"); no documented lower bound for TPUs: Compute Engine Flex-start's "
            "10 minutes applied (gcloud 528 checks neither)"
        ),
        minimum=600,
        maximum=WEEK,
    ),
    Limit(
        "queued_tpu.request_valid_for",
        "Cloud TPU queued resource queue window (validUntilDuration)",
        "seconds",
        (
            "Cloud TPU v2alpha1 QueueingPolicy.validUntilDuration: no documented bound "
            "(gcloud 528 sends any duration); pulumi-dws bounds it to 90 s (Compute "
            "Engine's smallest queue window) to 7 days: override the row if Google "
            "serves longer"
        ),
        minimum=90,
        maximum=WEEK,
    ),
    Limit(
        "queued_tpu.node_count",
        "Cloud TPU multislice node count",
        "count",
        (
            'Cloud TPU v2alpha1 MultiNodeParams.nodeCount ("must be greater than 1"; '
            "gcloud 528 queued_resources/util.py VerifyNodeCount); the 256 cap is a "
            "pulumi-dws sanity bound, not a documented Google limit (override it)"
        ),
        minimum=2,
        maximum=256,
    ),
)
"""This kind's rows."""

register(*ROWS)
