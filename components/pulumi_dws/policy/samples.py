"""Sample resources as the provider receives them (camelCase), clean for every rule.

They document what the rules expect, and feed the tests: derive a violating variant with
:func:`variant`. Calendar samples assume the clock pinned to :data:`SAMPLE_NOW`
(``with pulumi_dws.clock.frozen(SAMPLE_NOW): ...``).
"""

from __future__ import annotations

import copy
import datetime as dt
from typing import Any

__all__ = [
    "SAMPLE_NOW",
    "DELETE",
    "variant",
    "flex_instance",
    "flex_template",
    "flex_vm_body",
    "queued_node_pool",
    "private_cluster",
    "slurm_cluster",
    "calendar_reservation",
    "service_agent_member",
    "kueue_config",
    "SAMPLES",
]

SAMPLE_NOW = dt.datetime(2027, 2, 1, tzinfo=dt.timezone.utc)
DELETE = object()
"""Marker for :func:`variant`: remove the key."""

FLEX_INSTANCE = "gcp:compute/instance:Instance"
FLEX_VM = "pulumi-python:dynamic/dws:FlexStartVm"
SLURM = "pulumi-python:dynamic/dws:SlurmCluster"


def variant(props: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    """A deep copy of ``props`` with ``path`` (``a.b.0.c``) set to ``value`` (or removed with
    :data:`DELETE`); missing dicts on the way are created."""
    out = copy.deepcopy(props)
    node: Any = out
    steps = path.split(".")
    for step in steps[:-1]:
        key: Any = int(step) if step.isdigit() and isinstance(node, list) else step
        if isinstance(node, dict) and key not in node:
            node[key] = {}
        node = node[key]
    last: Any = int(steps[-1]) if steps[-1].isdigit() and isinstance(node, list) else steps[-1]
    if value is DELETE:
        if isinstance(node, dict):
            node.pop(last, None)
        else:
            del node[last]
    else:
        node[last] = value
    return out


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


def queued_node_pool() -> dict[str, Any]:
    """A raw ``gcp.container.NodePool`` with queued provisioning, as GKE requires it."""
    return {
        "cluster": "projects/my-project/locations/us-central1/clusters/gpu",
        "location": "us-central1",
        "nodeLocations": ["us-central1-a"],
        "initialNodeCount": 0,
        "autoscaling": {"totalMinNodeCount": 0, "totalMaxNodeCount": 4, "locationPolicy": "ANY"},
        "queuedProvisioning": {"enabled": True},
        "management": {"autoRepair": False, "autoUpgrade": False},
        "networkConfig": {"enablePrivateNodes": True},
        "nodeConfig": {
            "machineType": "a3-highgpu-8g",
            "maxRunDuration": "86400s",
            "reservationAffinity": {"consumeReservationType": "NO_RESERVATION"},
            "resourceLabels": {"team": "ml"},
            "guestAccelerators": [{"type": "nvidia-h100-80gb", "count": 8}],
        },
    }


def private_cluster() -> dict[str, Any]:
    """A raw ``gcp.container.Cluster`` whose nodes get private IPs only."""
    return {
        "name": "gpu",
        "location": "us-central1",
        "initialNodeCount": 1,
        "privateClusterConfig": {"enablePrivateNodes": True},
    }


def slurm_cluster() -> dict[str, Any]:
    """Props of the library's ``SlurmCluster`` dynamic resource (snake_case Vertex AI body)."""
    return {
        "project": "my-project",
        "region": "us-central1",
        "body": {
            "display_name": "slurm",
            "labels": {"team": "ml"},
            "network": {"network": "default", "subnetwork": "default"},
            "node_pools": [
                {
                    "id": "login",
                    "machine_spec": {"machine_type": "n2-standard-8"},
                    "scaling_spec": {"min_node_count": 1, "max_node_count": 1},
                    "zone": "us-central1-a",
                    "enable_public_ips": True,
                },
                {
                    "id": "a3",
                    "machine_spec": {
                        "machine_type": "a3-highgpu-8g",
                        "accelerator_type": "NVIDIA_H100_80GB",
                        "accelerator_count": 8,
                    },
                    "provisioning_model": "FLEX_START",
                    "flex_start_max_duration": "604800s",
                    "scaling_spec": {"min_node_count": 0, "max_node_count": 2},
                    "zone": "us-central1-a",
                    "enable_public_ips": False,
                },
            ],
        },
    }


def calendar_reservation() -> dict[str, Any]:
    """A raw ``gcp.compute.FutureReservation`` in Calendar mode (4 weeks after SAMPLE_NOW)."""
    return {
        "name": "h100-week",
        "zone": "us-central1-a",
        "reservationMode": "CALENDAR",
        "planningStatus": "SUBMITTED",
        "autoDeleteAutoCreatedReservations": True,
        "specificReservationRequired": True,
        "timeWindow": {"startTime": "2027-03-01T00:00:00Z", "duration": {"seconds": 604800}},
        "specificSkuProperties": {
            "totalCount": "2",
            "instanceProperties": {"machineType": "a3-highgpu-8g"},
        },
    }


def service_agent_member() -> dict[str, Any]:
    """A raw ``gcp.projects.IAMMember``: the least-privilege grant for managed Slurm."""
    return {
        "project": "my-project",
        "role": "roles/compute.instanceAdmin.v1",
        "member": "serviceAccount:123456789012@cloudservices.gserviceaccount.com",
    }


def kueue_config() -> dict[str, Any]:
    """A Kueue ``ProvisioningRequestConfig`` (pulumi-kubernetes CustomResource inputs)."""
    return {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "ProvisioningRequestConfig",
        "metadata": {"name": "dws"},
        "spec": {
            "provisioningClassName": "queued-provisioning.gke.io",
            "managedResources": ["nvidia.com/gpu"],
            "parameters": {"maxRunDurationSeconds": "86400"},
        },
    }


SAMPLES: dict[str, tuple[str, Any]] = {
    "flex_instance": (FLEX_INSTANCE, flex_instance),
    "flex_template": ("gcp:compute/instanceTemplate:InstanceTemplate", flex_template),
    "flex_region_template": (
        "gcp:compute/regionInstanceTemplate:RegionInstanceTemplate",
        flex_template,
    ),
    "flex_vm_body": (FLEX_VM, flex_vm_body),
    "queued_node_pool": ("gcp:container/nodePool:NodePool", queued_node_pool),
    "private_cluster": ("gcp:container/cluster:Cluster", private_cluster),
    "slurm_cluster": (SLURM, slurm_cluster),
    "calendar_reservation": (
        "gcp:compute/futureReservation:FutureReservation",
        calendar_reservation,
    ),
    "service_agent_member": ("gcp:projects/iAMMember:IAMMember", service_agent_member),
    "kueue_config": (
        "kubernetes:kueue.x-k8s.io/v1beta2:ProvisioningRequestConfig",
        kueue_config,
    ),
}
"""Every sample: name -> (type token, factory of fresh props)."""
