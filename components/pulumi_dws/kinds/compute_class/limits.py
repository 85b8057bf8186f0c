"""The limits rows of ComputeClasses (added to :mod:`pulumi_dws.limits` when imported)."""

from __future__ import annotations

from ... import limits
from ...limits import Limit

__all__ = ["ROWS"]

_DWS = "https://docs.cloud.google.com/kubernetes-engine/docs/concepts/dws"
_CRD = (
    "the ComputeClass CRD (computeclasses.cloud.google.com, as vendored in "
    "tests/fixtures/compute_class_schema.json)"
)
_WEEK = 7 * 86400

ROWS: tuple[Limit, ...] = (
    Limit(
        "compute_class.flex_start_max_run_duration",
        "ComputeClass Flex-start maxRunDurationSeconds",
        "seconds",
        (
            f"{_DWS} (flex-start provisions accelerators for up to seven days; without "
            f"maxRunDurationSeconds the default is seven days); {_CRD}: an integer with no "
            "lower bound"
        ),
        minimum=1,
        maximum=_WEEK,
    ),
    Limit(
        "compute_class.max_run_duration",
        "ComputeClass maxRunDurationSeconds",
        "seconds",
        (
            f'{_CRD}: priorities[].maxRunDurationSeconds, an integer with no bound ("the '
            "maximum duration for the nodes to exist\"); the CRD reference's sample sets it on "
            "a Spot priority (https://docs.cloud.google.com/kubernetes-engine/docs/reference/"
            "crds/computeclass). Flex-start priorities are also held to "
            "compute_class.flex_start_max_run_duration"
        ),
        minimum=1,
    ),
    Limit(
        "compute_class.lead_time",
        "ComputeClass Flex-start nodeRecycling.leadTimeSeconds",
        "seconds",
        f"{_CRD}: flexStart.nodeRecycling.leadTimeSeconds, minimum 1, maximum 604800",
        minimum=1,
        maximum=_WEEK,
    ),
    Limit(
        "compute_class.priorities",
        "ComputeClass priority rules",
        "count",
        f"{_CRD}: spec.priorities, at most 1000 items; pulumi-dws needs at least one",
        minimum=1,
        maximum=1000,
    ),
)

limits.register(*ROWS)
