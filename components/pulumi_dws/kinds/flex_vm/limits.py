"""The limit rows of Flex-start VMs (``FlexStartInstance``): the Compute Engine Flex-start run and
queue window: each row with its source, registered with :mod:`pulumi_dws.limits` when this
module is imported."""

from __future__ import annotations

from ...limits import FACTS, TOOLKIT, WEEK, Limit, register

__all__ = ["ROWS"]

FLEX_VM_DOCS = "https://docs.cloud.google.com/ai-hypercomputer/docs/create/create-vm"

ROWS: tuple[Limit, ...] = (
    Limit(
        "flex_start.max_run_duration",
        "Flex-start max run duration",
        "seconds",
        (
            f"{FLEX_VM_DOCS} (Flex-start, MAX_RUN_DURATION: between 10 minutes and seven "
            f"days); {TOOLKIT} community/modules/compute/schedmd-slurm-gcp-v6-nodeset/"
            "variables.tf (dws_flex.max_run_duration 600 to 604800)"
        ),
        minimum=600,
        maximum=WEEK,
    ),
    Limit(
        "flex_start.request_valid_for",
        "Flex-start queue window (requestValidForDuration)",
        "seconds",
        f"{FACTS} §1: params.requestValidForDuration 90 s to 2 h",
        minimum=90,
        maximum=2 * 3600,
    ),
)
"""This kind's rows."""

register(*ROWS)
