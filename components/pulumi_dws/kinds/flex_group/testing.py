"""Test aids of VM groups (:mod:`pulumi_dws.kinds.flex_group.kind`): how a ``MigResizeRequest`` and
managed instance groups behave under :class:`~pulumi_dws.testing.GcpMocks`, and the policy
samples and violating examples of a group's resize request and template."""

from __future__ import annotations

import datetime as dt
import hashlib
import uuid
from typing import TYPE_CHECKING, Any

from ...clock import now
from ...testing.mocks import COMPUTE, Fill, compute_regional, compute_zonal
from ...testing.samples import DELETE, Capacity, Example, Sample
from ...validation import format_timestamp

if TYPE_CHECKING:
    from ...testing.mocks import GcpMocks

__all__ = [
    "resize_request",
    "instance_group_manager",
    "region_instance_group_manager",
    "resource_policy",
    "vm_names",
    "SAMPLES",
    "CAPACITY",
    "EXAMPLES",
    "GROUP_EXAMPLES",
    "GROUP_EXAMPLE_STACKS",
]

RESIZE_REQUEST = "pulumi-python:dynamic/dws:MigResizeRequest"


def vm_names(group: str, count: int) -> list[str]:
    """The names a MIG gives the VMs of a resize request: ``<base instance name>-<4 chars>``."""
    return [
        f"{group}-{hashlib.sha256(f'{group}/{i}'.encode()).hexdigest()[:4]}" for i in range(count)
    ]


def _location(s: dict[str, Any], mocks: GcpMocks) -> str:
    if s.get("region"):
        return f"regions/{s['region']}"
    return f"zones/{s.get('zone') or mocks.region + '-a'}"


def resize_request(mocks: GcpMocks, typ: str, name: str, s: dict[str, Any]) -> str:
    """Like the provider after a successful create: ``state`` ``SUCCEEDED`` with the VMs'
    names and the end of their run (``waitFor: running``), or ``ACCEPTED`` with none yet
    (``waitFor: accepted``); the id is the request's path."""
    project = s.get("project") or mocks.project
    group = s.get("group") or name
    request = s.get("name") or name
    body = s.get("body") or {}
    rid = (
        f"projects/{project}/{_location(s, mocks)}/instanceGroupManagers/{group}"
        f"/resizeRequests/{request}"
    )
    running = s.get("waitFor", "running") == "running"
    seconds = int((body.get("requestedRunDuration") or {}).get("seconds", 0))
    digest = hashlib.sha256(rid.encode()).hexdigest()
    s["state"] = mocks.lifecycle("SUCCEEDED" if running else "ACCEPTED")
    s["observed"] = {
        "selfLink": COMPUTE + rid,
        "instances": vm_names(group, int(body.get("resizeBy") or 0)) if running else [],
        "runEndsAt": (
            format_timestamp(now() + dt.timedelta(seconds=seconds)) if running and seconds else None
        ),
        "requestId": str(uuid.UUID(digest[:32])),
        "error": None,
    }
    return rid


def _group_manager(locate: Fill) -> Fill:
    """A MIG located by ``locate``: its path, ``selfLink``, ``instanceGroup`` and the target
    size it starts with (0: no ``targetSize`` input)."""

    def fill(mocks: GcpMocks, typ: str, name: str, s: dict[str, Any]) -> str:
        rid = locate(mocks, typ, name, s)
        s.setdefault("targetSize", 0)
        s.setdefault(
            "instanceGroup", COMPUTE + rid.replace("instanceGroupManagers", "instanceGroups")
        )
        return rid

    return fill


instance_group_manager = _group_manager(compute_zonal("instanceGroupManagers"))
region_instance_group_manager = _group_manager(compute_regional("instanceGroupManagers"))
resource_policy = compute_regional("resourcePolicies")
"""A workload policy (``gcp.compute.ResourcePolicy``): its regional path and ``selfLink``."""


# ---------------------------------------------------------------------- policy samples
def group_request() -> dict[str, Any]:
    """Props of a ``MigResizeRequest``: 4 VMs for 3 days."""
    return {
        "project": "my-project",
        "zone": "us-central1-a",
        "region": None,
        "group": "trainers",
        "name": "trainers",
        "body": {
            "name": "trainers",
            "resizeBy": 4,
            "requestedRunDuration": {"seconds": "259200"},
        },
        "waitFor": "running",
    }


def group_template() -> dict[str, Any]:
    """A ``FlexStartGroup``'s template (pulumi-gcp inputs): labels and metadata on it."""
    return {
        "project": "my-project",
        "machineType": "a3-highgpu-8g",
        "disks": [{"boot": True, "sourceImage": "debian-cloud/debian-12"}],
        "networkInterfaces": [{"network": "default"}],
        "scheduling": {
            "provisioningModel": "FLEX_START",
            "maxRunDuration": {"seconds": 259200},
            "instanceTerminationAction": "DELETE",
            "automaticRestart": False,
            "onHostMaintenance": "TERMINATE",
        },
        "reservationAffinity": {"type": "NO_RESERVATION"},
        "labels": {"team": "ml"},
    }


def group_manager() -> dict[str, Any]:
    """A ``FlexStartGroup``'s zonal MIG (pulumi-gcp inputs)."""
    return {
        "project": "my-project",
        "zone": "us-central1-a",
        "name": "trainers",
        "baseInstanceName": "trainers",
        "versions": [{"instanceTemplate": "global/instanceTemplates/trainers-template"}],
        "instanceLifecyclePolicy": {"defaultActionOnFailure": "DO_NOTHING"},
        "waitForInstances": False,
    }


def raw_request() -> dict[str, Any]:
    """A raw pulumi-gcp ``ResizeRequest`` (its inputs)."""
    return {
        "project": "my-project",
        "zone": "us-central1-a",
        "instanceGroupManager": "trainers",
        "name": "trainers",
        "resizeBy": 4,
        "requestedRunDuration": {"seconds": "259200"},
    }


def region_group_manager() -> dict[str, Any]:
    """A ``FlexStartGroup``'s regional MIG (pulumi-gcp inputs): ``ANY_SINGLE_ZONE``, no
    redistribution, repairs off."""
    return {
        "project": "my-project",
        "region": "us-central1",
        "name": "trainers",
        "baseInstanceName": "trainers",
        "versions": [
            {"instanceTemplate": "regions/us-central1/instanceTemplates/trainers-template"}
        ],
        "distributionPolicyTargetShape": "ANY_SINGLE_ZONE",
        "updatePolicy": {
            "type": "OPPORTUNISTIC",
            "minimalAction": "REPLACE",
            "instanceRedistributionType": "NONE",
            "maxSurgeFixed": 0,
        },
        "instanceLifecyclePolicy": {"defaultActionOnFailure": "DO_NOTHING"},
        "waitForInstances": False,
    }


def region_group_request() -> dict[str, Any]:
    """Props of a ``MigResizeRequest`` on the regional group ``trainers``."""
    return {**group_request(), "zone": None, "region": "us-central1"}


def group_autoscaler() -> dict[str, Any]:
    """An autoscaler of another group (``inference``) beside the resize request's group."""
    return {
        "project": "my-project",
        "zone": "us-central1-a",
        "name": "inference-autoscaler",
        "target": "projects/my-project/zones/us-central1-a/instanceGroupManagers/inference",
        "autoscalingPolicy": {"maxReplicas": 4, "minReplicas": 0},
    }


SAMPLES: dict[str, Sample] = {
    "group_request": (RESIZE_REQUEST, group_request),
    "raw_group_request": ("gcp:compute/resizeRequest:ResizeRequest", raw_request),
    "group_template": ("gcp:compute/instanceTemplate:InstanceTemplate", group_template),
    "group_manager": ("gcp:compute/instanceGroupManager:InstanceGroupManager", group_manager),
    "region_group_manager": (
        "gcp:compute/regionInstanceGroupManager:RegionInstanceGroupManager",
        region_group_manager,
    ),
    "group_autoscaler": ("gcp:compute/autoscaler:Autoscaler", group_autoscaler),
}

CAPACITY: dict[str, Capacity] = {
    # a resize request's VMs are its group's template's, not known from the request alone
    "group_request": Capacity(unknown=True),
    "raw_group_request": Capacity(unknown=True),
}
"""What each sample asks for on its own (see :func:`pulumi_dws.testing.samples.totals`)."""

EXAMPLES: tuple[Example, ...] = (
    Example(
        "flex-start-max-run-duration",
        "group_request",
        (("body.requestedRunDuration.seconds", "691200"),),
        "body.requestedRunDuration",
    ),
    Example(
        "flex-start-max-run-duration",
        "group_request",
        (("body.requestedRunDuration.seconds", "300"),),
        "below",
    ),
    Example(
        "flex-start-max-run-duration",
        "group_request",
        (("body.requestedRunDuration.seconds", "432000"),),
        "policy cap of 3d",
        config={"maxRunDuration": "3d"},
    ),
    Example(
        "flex-start-max-run-duration",
        "raw_group_request",
        (("requestedRunDuration.seconds", "700000"),),
        "requestedRunDuration: 700000s is above",
        unknown="requestedRunDuration",
    ),
    Example(
        "flex-start-max-run-duration",
        "group_template",
        (("scheduling.maxRunDuration", DELETE),),
        "is missing",
    ),
    Example(
        "no-public-ip-on-accelerators",
        "group_template",
        (("networkInterfaces.0.accessConfigs", [{}]),),
        "public IP",
    ),
    Example(
        "required-labels",
        "group_template",
        (("labels", DELETE),),
        "lacks required label(s) team",
        unknown="labels",
    ),
    Example(
        "frontier-machine-fit",
        "group_template",
        (("machineType", "a4x-highgpu-4g"),),
        "can't be Flex-start",
    ),
    Example(
        "frontier-machine-fit",
        "group_template",
        (("networkInterfaces.0.nicType", "MRDMA"),),
        "has no RDMA network profile",
    ),
    Example(
        "frontier-machine-fit",
        "group_template",
        (
            ("machineType", "a4-highgpu-8g"),
            ("networkInterfaces", [{"nicType": "GVNIC"}, *([{"nicType": "MRDMA"}] * 4)]),
        ),
        "whose VMs take 2 gVNIC + 8 MRDMA NICs",
        unknown="machineType",
    ),
)


# ---------------------------------------------------------------------- group rule examples
GROUP_EXAMPLE_STACKS: dict[str, tuple[Sample, ...]] = {
    "group_manager": ((RESIZE_REQUEST, group_request),),
    "region_group_manager": ((RESIZE_REQUEST, region_group_request),),
    "group_autoscaler": (
        (RESIZE_REQUEST, group_request),
        ("gcp:compute/instanceGroupManager:InstanceGroupManager", group_manager),
    ),
}
"""The resources beside a :data:`GROUP_EXAMPLES` sample (by its sample name): the resize
request that asks its group for VMs (and, for an autoscaler, the group)."""

GROUP_EXAMPLES: tuple[Example, ...] = (
    Example(
        "mig-resize-request-group",
        "group_manager",
        (("instanceLifecyclePolicy.defaultActionOnFailure", "REPAIR"),),
        "defaultActionOnFailure is REPAIR",
    ),
    Example(
        "mig-resize-request-group",
        "group_manager",
        (("instanceLifecyclePolicy", DELETE),),
        "not set (Google's default REPAIR)",
        unknown="instanceLifecyclePolicy",
    ),
    Example(
        "mig-resize-request-group",
        "region_group_manager",
        (("distributionPolicyTargetShape", "EVEN"),),
        "only with ANY_SINGLE_ZONE",
    ),
    Example(
        "mig-resize-request-group",
        "region_group_manager",
        (("updatePolicy.instanceRedistributionType", "PROACTIVE"),),
        "must not redistribute its VMs",
    ),
    Example(
        "mig-resize-request-group",
        "group_autoscaler",
        (("target", "projects/my-project/zones/us-central1-a/instanceGroupManagers/trainers"),),
        "must not be autoscaled",
    ),
)
"""Violating variants of the ``mig-resize-request-group`` stack rule: each sample changed as
said, in a stack with :data:`GROUP_EXAMPLE_STACKS` beside it."""
