"""Test aids of Flex-start VMs (:mod:`pulumi_dws.kinds.flex_vm.kind`): how a ``FlexStartVm``, a raw
instance and instance templates behave under :class:`~pulumi_dws.testing.GcpMocks`, and the
policy samples and violating examples of VMs and templates."""

from __future__ import annotations

import datetime as dt
import hashlib
import uuid
from typing import TYPE_CHECKING, Any

from ...clock import now
from ...providers.compute_ops import create_request_id
from ...testing.mocks import COMPUTE, compute_global, compute_regional, compute_zonal, short_hash
from ...testing.samples import DELETE, Capacity, Example, Sample
from ...validation import format_timestamp
from .provider import TYPE_TOKEN as FLEX_VM
from .provider import vm_id

if TYPE_CHECKING:
    from ...testing.mocks import GcpMocks

__all__ = [
    "flex_start_vm",
    "instance",
    "instance_template",
    "region_instance_template",
    "SAMPLES",
    "CAPACITY",
    "EXAMPLES",
]


def flex_start_vm(mocks: GcpMocks, typ: str, name: str, s: dict[str, Any]) -> str:
    """Like the provider after a successful create: ``status`` ``RUNNING`` (``PENDING`` for a
    queued request with ``waitFor: accepted``, ``TERMINATED`` for ``desiredStatus:
    TERMINATED``), and ``observed`` with an internal IP, the time the run ends, the request
    id...; the id is ``projects/<p>/zones/<z>/instances/<name>``."""
    project = s.get("project") or mocks.project
    zone = s.get("zone") or f"{mocks.region}-a"
    vm_name = s.get("name") or name
    body = s.get("body") or {}
    queued = bool((body.get("params") or {}).get("requestValidForDuration"))
    if s.get("desiredStatus") == "TERMINATED":
        status = "TERMINATED"
    elif queued and s.get("waitFor") == "accepted":
        status = "PENDING"
    else:
        status = "RUNNING"
    rid = vm_id(project, zone, vm_name)
    digest = hashlib.sha256(rid.encode()).hexdigest()
    started = now()
    seconds = int(((body.get("scheduling") or {}).get("maxRunDuration") or {}).get("seconds", 0))
    running = status == "RUNNING"
    s["status"] = mocks.lifecycle(status)
    s["observed"] = {
        "instanceId": str(int(digest[:12], 16)),
        "selfLink": COMPUTE + rid,
        "internalIp": f"10.128.0.{int(digest[:2], 16) % 250 + 2}",
        "externalIp": None,
        "runEndsAt": (
            format_timestamp(started + dt.timedelta(seconds=seconds))
            if running and seconds
            else None
        ),
        "lastStartTimestamp": format_timestamp(started) if running else None,
        "requestId": create_request_id(project, zone, vm_name, str(uuid.UUID(digest[:32]))),
    }
    return rid


def instance(mocks: GcpMocks, typ: str, name: str, s: dict[str, Any]) -> str:
    rid = compute_zonal("instances")(mocks, typ, name, s)
    s.setdefault("instanceId", str(int(short_hash(rid, length=12), 16)))
    s.setdefault("currentStatus", "RUNNING")
    s.setdefault("cpuPlatform", "Intel Sapphire Rapids")
    for i, nic in enumerate(s.get("networkInterfaces") or []):
        nic.setdefault("networkIp", f"10.128.0.{i + 2}")
        nic.setdefault("name", f"nic{i}")
    return rid


def instance_template(mocks: GcpMocks, typ: str, name: str, s: dict[str, Any]) -> str:
    rid = compute_global("instanceTemplates")(mocks, typ, name, s)
    s.setdefault("selfLinkUnique", f"{COMPUTE}{rid}?uniqueId={int(short_hash(rid, length=12), 16)}")
    return rid


region_instance_template = compute_regional("instanceTemplates")


# ---------------------------------------------------------------------- policy samples
def flex_instance() -> dict[str, Any]:
    """A raw ``gcp.compute.Instance`` with FLEX_START (pulumi-gcp inputs)."""
    return {
        "name": "trainer",
        "zone": "us-central1-a",
        "machineType": "a3-highgpu-8g",
        "bootDisk": {"initializeParams": {"image": "debian-cloud/debian-12"}},
        "networkInterfaces": [{"network": "default"}],
        "scheduling": {
            "provisioningModel": "FLEX_START",
            "maxRunDuration": {"seconds": 259200},
            "instanceTerminationAction": "STOP",
            "automaticRestart": False,
            "onHostMaintenance": "TERMINATE",
        },
        "reservationAffinity": {"type": "NO_RESERVATION"},
        "labels": {"team": "ml"},
    }


def a100_instance() -> dict[str, Any]:
    """A raw ``gcp.compute.Instance`` with FLEX_START on one A100 (``a2-highgpu-1g``) for a
    day: a second GPU type in the stack's totals."""
    out = flex_instance()
    out.update(name="notebook", machineType="a2-highgpu-1g")
    out["scheduling"]["maxRunDuration"] = {"seconds": 86400}
    return out


def flex_template() -> dict[str, Any]:
    """A raw ``gcp.compute.InstanceTemplate`` for Flex-start VMs."""
    out = flex_instance()
    out.pop("bootDisk")
    out.pop("zone")
    out["disks"] = [{"sourceImage": "debian-cloud/debian-12"}]
    return out


def flex_vm_body() -> dict[str, Any]:
    """Props of the library's ``FlexStartVm`` dynamic resource: the Compute insert body."""
    return {
        "project": "my-project",
        "zone": "us-central1-a",
        "body": {
            "name": "trainer",
            "machineType": "zones/us-central1-a/machineTypes/a3-highgpu-8g",
            "networkInterfaces": [{"network": "global/networks/default"}],
            "scheduling": {
                "provisioningModel": "FLEX_START",
                "maxRunDuration": {"seconds": "259200"},
                "instanceTerminationAction": "DELETE",
                "automaticRestart": False,
                "onHostMaintenance": "TERMINATE",
            },
            "params": {"requestValidForDuration": {"seconds": "7200"}},
            "labels": {"team": "ml"},
        },
    }


SAMPLES: dict[str, Sample] = {
    "flex_instance": ("gcp:compute/instance:Instance", flex_instance),
    "flex_template": ("gcp:compute/instanceTemplate:InstanceTemplate", flex_template),
    "flex_region_template": (
        "gcp:compute/regionInstanceTemplate:RegionInstanceTemplate",
        flex_template,
    ),
    "flex_vm_body": (FLEX_VM, flex_vm_body),
    "a100_instance": ("gcp:compute/instance:Instance", a100_instance),
}

CAPACITY: dict[str, Capacity] = {
    # one a3-highgpu-8g VM for 3 days, as a raw instance and as a FlexStartVm body
    "flex_instance": Capacity("nvidia-h100-80gb", gpus=8, gpu_hours=8 * 72),
    "flex_vm_body": Capacity("nvidia-h100-80gb", gpus=8, gpu_hours=8 * 72),
    "a100_instance": Capacity("nvidia-tesla-a100", gpus=1, gpu_hours=24),
}
"""What each sample asks for (see :func:`pulumi_dws.testing.samples.totals`); a template is
no capacity by itself."""

EXAMPLES: tuple[Example, ...] = (
    Example(
        "flex-start-max-run-duration",
        "flex_instance",
        (("scheduling.maxRunDuration.seconds", 8 * 86400),),
        "above the Flex-start",
    ),
    Example(
        "flex-start-max-run-duration",
        "flex_instance",
        (("scheduling.maxRunDuration", DELETE),),
        "is missing",
    ),
    Example(
        "flex-start-max-run-duration",
        "flex_template",
        (("scheduling.maxRunDuration.seconds", 10),),
        "below",
    ),
    Example(
        "flex-start-max-run-duration",
        "flex_region_template",
        (("scheduling.maxRunDuration.seconds", 5 * 86400),),
        "policy cap of 3d",
        config={"maxRunDuration": "3d"},
    ),
    Example(
        "flex-start-max-run-duration",
        "flex_vm_body",
        (("body.scheduling.maxRunDuration.seconds", "700000"),),
        "body.scheduling.maxRunDuration",
    ),
    Example(
        "flex-start-queue-window",
        "flex_vm_body",
        (("body.params.requestValidForDuration.seconds", "30"),),
        "below",
    ),
    Example(
        "flex-start-queue-window",
        "flex_vm_body",
        (("body.params.requestValidForDuration.seconds", "10800"),),
        "above",
    ),
    Example(
        "flex-start-queue-window",
        "flex_vm_body",
        (("body.params", DELETE),),
        "fails after about 90 s",
        config={"requireQueueWindow": True},
        unknown="body.params",
    ),
    Example(
        "no-public-ip-on-accelerators",
        "flex_instance",
        (("networkInterfaces.0.accessConfigs", [{}]),),
        "public IP",
    ),
    Example(
        "no-public-ip-on-accelerators",
        "flex_instance",
        (("networkInterfaces.0.accessConfigs", [{}]),),
        "public IP",
        unknown="machineType",
    ),
    Example(
        "no-public-ip-on-accelerators",
        "flex_vm_body",
        (("body.networkInterfaces.0.accessConfigs", [{"type": "ONE_TO_ONE_NAT"}]),),
        "body.networkInterfaces[0].accessConfigs",
    ),
    Example(
        "required-labels",
        "flex_instance",
        (("labels", DELETE),),
        "lacks required label(s) team",
        unknown="labels",
    ),
    Example(
        "required-labels",
        "flex_vm_body",
        (("body.labels.team", DELETE),),
        "body.labels lacks",
        unknown="body.labels",
    ),
    Example("required-labels", "flex_template", (("labels.team", ""),), "is empty"),
)
