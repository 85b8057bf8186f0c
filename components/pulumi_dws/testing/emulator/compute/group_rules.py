"""The rules Google documents for managed instance groups and their resize requests, each with
its source (see :mod:`pulumi_dws.testing.emulator.rules`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..base import GoogleError
from ..rules import Rules

__all__ = [
    "ABOUT_RESIZE_REQUESTS",
    "GROUP_RULES",
    "NewGroup",
    "REQUEST_RULES",
    "TakingRequests",
    "flex_start",
]

ABOUT_RESIZE_REQUESTS = (
    "https://docs.cloud.google.com/compute/docs/instance-groups/about-resize-requests-mig"
)
AI_OPTIMIZED_MIG = (
    "https://docs.cloud.google.com/ai-hypercomputer/docs/create/create-mig-with-a4-or-a3ultra"
)


def flex_start(properties: dict[str, Any]) -> bool:
    """Whether a template's properties use the ``FLEX_START`` provisioning model."""
    return (properties.get("scheduling") or {}).get("provisioningModel") == "FLEX_START"


@dataclass(frozen=True)
class NewGroup:
    """An ``instanceGroupManagers.insert`` body with its template's properties."""

    body: dict[str, Any]
    properties: dict[str, Any]

    @property
    def size(self) -> int:
        return int(self.body.get("targetSize") or 0)


GROUP_RULES: Rules[NewGroup] = Rules("compute.instanceGroupManagers.insert")


@GROUP_RULES.rule(f"{ABOUT_RESIZE_REQUESTS} (a Flex-start MIG is created with a target size of 0)")
def flex_start_groups_start_empty(new: NewGroup) -> None:
    """A group of Flex-start VMs grows only through resize requests."""
    if new.size and flex_start(new.properties):
        raise GoogleError(
            400,
            "Invalid value for field 'resource.targetSize': "
            f"{new.size}. A group whose instance template uses the FLEX_START provisioning "
            "model must be created with targetSize 0; add VMs with resize requests.",
            "invalid",
        )


@dataclass(frozen=True)
class TakingRequests:
    """A group about to take a resize request: its path, its API resource, its template's
    properties and whether it is regional."""

    path: str
    resource: dict[str, Any]
    properties: dict[str, Any]
    regional: bool


REQUEST_RULES: Rules[TakingRequests] = Rules("compute.instanceGroupManagerResizeRequests.insert")


@REQUEST_RULES.rule(f"{AI_OPTIMIZED_MIG} (repairs off); {ABOUT_RESIZE_REQUESTS} (limitations)")
def no_repairs_under_flex_start(group: TakingRequests) -> None:
    """A Flex-start group that takes resize requests does not repair its VMs."""
    action = (group.resource.get("instanceLifecyclePolicy") or {}).get("defaultActionOnFailure")
    if flex_start(group.properties) and action != "DO_NOTHING":
        raise GoogleError(
            400,
            f"'{group.path}' repairs its VMs (instanceLifecyclePolicy.defaultActionOnFailure "
            f"is {action or 'REPAIR'}): turn repairs off (DO_NOTHING) to use resize requests.",
            "invalid",
        )


@REQUEST_RULES.rule(f"{AI_OPTIMIZED_MIG} (a regional MIG supports only ANY_SINGLE_ZONE)")
def regional_groups_use_one_zone(group: TakingRequests) -> None:
    """A regional group takes resize requests only with the ``ANY_SINGLE_ZONE`` shape."""
    shape = (group.resource.get("distributionPolicy") or {}).get("targetShape") or "EVEN"
    if group.regional and shape != "ANY_SINGLE_ZONE":
        raise GoogleError(
            400,
            f"'{group.path}' has distributionPolicy.targetShape {shape}: a regional group "
            "takes resize requests only with ANY_SINGLE_ZONE.",
            "invalid",
        )
