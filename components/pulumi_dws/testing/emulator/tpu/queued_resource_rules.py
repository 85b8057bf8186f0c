"""The rules Cloud TPU applies to a queued resource's create body beyond its schema, each with
its source (see :mod:`pulumi_dws.testing.emulator.rules`)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .... import catalog
from ....duration import Duration
from ....errors import DwsValidationError
from ..base import ServiceError
from ..rules import Rules

__all__ = [
    "CREATE_RULES",
    "FLEX_START_MAX_RUN",
    "NewQueuedResource",
    "QUEUED_RESOURCE_ID",
    "invalid",
    "seconds",
    "slice_of",
]

QUEUED_RESOURCES = "https://docs.cloud.google.com/tpu/docs/queued-resources"
FLEX_START = "https://docs.cloud.google.com/tpu/docs/request-using-flex-start"
DISCOVERY = "Cloud TPU v2alpha1 discovery document (schemas/tpu.v2alpha1.json)"
GCLOUD = "gcloud 528 alpha compute tpus queued-resources create (queued_resources/util.py)"

QUEUED_RESOURCE_ID = re.compile(r"[A-Za-z0-9_.~+%-]+")
"""``queuedResourceId`` as the discovery document describes it (always fullmatch)."""
FLEX_START_MAX_RUN = 7 * 86400
"""Flex-start runs up to 7 days (https://docs.cloud.google.com/tpu/docs/request-using-flex-start)."""
_TIERS = ("spot", "guaranteed", "bestEffort")


def invalid(path: str, description: str) -> ServiceError:
    """Cloud TPU's 400 with one ``BadRequest`` field violation."""
    return ServiceError(400, f"{path}: {description}", violations=[(path, description)])


def seconds(value: Any) -> int | None:
    """The seconds of a duration in any form Google takes, or None."""
    if value is None:
        return None
    return Duration.parse(value, "duration").seconds


@dataclass(frozen=True)
class NewQueuedResource:
    """A ``queuedResources.create`` request: where, its id, and its body."""

    project: str
    zone: str
    queued_resource_id: str | None
    body: Mapping[str, Any]

    @property
    def spec(self) -> dict[str, Any]:
        specs = (self.body.get("tpu") or {}).get("nodeSpec") or []
        return specs[0] if len(specs) == 1 else {}

    @property
    def node(self) -> dict[str, Any]:
        return self.spec.get("node") or {}

    @property
    def model(self) -> str:
        return str(self.body.get("provisioningModel") or "STANDARD")


CREATE_RULES: Rules[NewQueuedResource] = Rules("tpu.projects.locations.queuedResources.create")


@CREATE_RULES.rule(f"{DISCOVERY} (queuedResourceId: ^[A-Za-z0-9_.~+%-]+$)")
def an_id_of_the_documented_shape(new: NewQueuedResource) -> None:
    qid = new.queued_resource_id
    if not qid or not QUEUED_RESOURCE_ID.fullmatch(qid):
        raise invalid("queued_resource_id", f"{qid!r} should follow the ^[A-Za-z0-9_.~+%-]+$ regex")


@CREATE_RULES.rule(QUEUED_RESOURCES)
def one_node_spec_in_the_parent(new: NewQueuedResource) -> None:
    specs = (new.body.get("tpu") or {}).get("nodeSpec") or []
    if len(specs) != 1:
        raise invalid("tpu.node_spec", "exactly one node spec is supported")
    parent = f"projects/{new.project}/locations/{new.zone}"
    if new.spec.get("parent") != parent:
        raise invalid(
            "tpu.node_spec[0].parent", f"must be {parent}, got {new.spec.get('parent')!r}"
        )


@CREATE_RULES.rule(f"{QUEUED_RESOURCES}; {GCLOUD} VerifyNodeCount")
def a_node_id_or_a_multislice(new: NewQueuedResource) -> None:
    multi = new.spec.get("multiNodeParams")
    if new.spec.get("nodeId") and multi:
        raise invalid(
            "tpu.node_spec[0]", "It's an error to specify both node_id and multi_node_params"
        )
    if not new.spec.get("nodeId") and not multi:
        raise invalid("tpu.node_spec[0].node_id", "node_id or multi_node_params is required")
    if multi and int(multi.get("nodeCount") or 1) <= 1:
        raise invalid("tpu.node_spec[0].multi_node_params.node_count", "must be greater than 1")


@CREATE_RULES.rule(QUEUED_RESOURCES)
def a_runtime_and_one_network(new: NewQueuedResource) -> None:
    if not new.node.get("runtimeVersion"):
        raise invalid("tpu.node_spec[0].node.runtime_version", "is required")
    if new.node.get("networkConfig") and new.node.get("networkConfigs"):
        raise invalid(
            "tpu.node_spec[0].node", "network_config and network_configs are mutually exclusive"
        )


@CREATE_RULES.rule(
    f"{DISCOVERY} (Node.acceleratorType); https://docs.cloud.google.com/tpu/docs/v6e"
)
def a_known_accelerator_type(new: NewQueuedResource) -> None:
    slice_of(new)


def slice_of(new: NewQueuedResource) -> Any:
    """The TPU slice the node asks for (:func:`pulumi_dws.catalog.cloud_tpu_slice`), or Cloud
    TPU's 400."""
    try:
        return catalog.cloud_tpu_slice("acceleratorType", new.node.get("acceleratorType") or "")
    except DwsValidationError as err:
        raise invalid("tpu.node_spec[0].node.accelerator_type", err.problem) from None


@CREATE_RULES.rule(f"{FLEX_START} (up to 7 days)")
def a_run_duration_with_flex_start_only(new: NewQueuedResource) -> None:
    run = new.body.get("runDuration")
    if new.model == "FLEX_START":
        limit = seconds((run or {}).get("maxRunDuration"))
        if limit is None:
            raise invalid("run_duration.max_run_duration", "is required for FLEX_START")
        if limit > FLEX_START_MAX_RUN:
            raise invalid("run_duration.max_run_duration", "Flex-start runs for at most 7 days")
    elif run:
        raise invalid("run_duration", f"only applies to FLEX_START, not {new.model}")


@CREATE_RULES.rule(f"{QUEUED_RESOURCES}; {DISCOVERY} (reservationName, tier oneof)")
def a_reservation_and_one_tier(new: NewQueuedResource) -> None:
    if new.model == "RESERVATION_BOUND" and not new.body.get("reservationName"):
        raise invalid("reservation_name", "is required for RESERVATION_BOUND")
    if sum(1 for tier in _TIERS if tier in new.body) > 1:
        raise invalid("tier", "spot, guaranteed and best_effort are mutually exclusive")
