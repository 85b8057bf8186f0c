"""H200 GPUs on an existing GKE cluster through every modern DWS door.

* ``h200`` ComputeClass: a Calendar-mode block (reserved two weeks ahead) first, Flex-start
  (7 days at most) when the block is full or not started yet.
* ``training`` Kueue queue with fallback flavors: the class first (up to the block's GPUs),
  then a queued-provisioning pool, where DWS gets all of a job's nodes at once.
* ``train`` RayJob: a head and three workers of 8 GPUs each; with the queue's merge policy
  their ProvisioningRequest carries one pod set, which GKE's queued provisioning needs.

Config (``Pulumi.<stack>.yaml``, namespace ``gke-compute-class``): ``cluster`` (required),
``location`` (the cluster's region), ``zone``, ``gkeVersion`` (the cluster's, to check each
ComputeClass field), ``namespaces``, ``installKueue``, ``team`` (the cost label).
"""

import pulumi
import pulumi_kubernetes as kubernetes

from pulumi_dws import (
    CalendarReservation,
    ComputeClass,
    KueueQueue,
    QueuedNodePool,
    kueue_ray_job,
)
from pulumi_dws.kube import gke_provider

config = pulumi.Config()
cluster = config.require("cluster")
location = config.get("location") or "us-central1"
zone = config.get("zone") or "us-central1-b"
namespaces = config.get_object("namespaces") or ["research"]
team = config.get("team") or "research"
machine = "a3-ultragpu-8g"  # 8 x H200

# One Kubernetes provider for every object on the cluster.
k8s = gke_provider("gke", cluster, location)
on_cluster = pulumi.ResourceOptions(provider=k8s)

block = CalendarReservation(
    "h200-block",
    {
        "zone": zone,
        "machine_type": machine,
        "count": 2,
        "start_time": "+2w",
        "duration": "14d",
        "description": "H200 block for the research team",
    },
)

h200 = ComputeClass(
    "h200",
    {
        "machine_type": machine,
        "gpu_driver_version": "latest",
        "zones": [zone],
        "gke_version": config.get("gkeVersion"),
        "priorities": [
            {"capacity": "reservation", "reservation": block},
            {"capacity": "flex_start", "max_run_duration": "7d", "node_recycling_lead_time": "1h"},
        ],
    },
    on_cluster,
)

queued = QueuedNodePool(
    "h200-queued",
    {
        "cluster": cluster,
        "location": location,
        "node_locations": [zone],
        "machine_type": machine,
        "max_nodes": 4,
        "mode": "queued",
        "max_run_duration": "7d",
        "resource_labels": {"team": team},
    },
)

queue = KueueQueue(
    "training",
    {
        "flavors": [
            {"compute_class": h200, "gpu_quota": 16},  # the block's 2 VMs x 8 GPUs
            {"node_pool": queued},  # then DWS: the pool's 4 nodes x 8 GPUs, all at once
        ],
        "namespaces": namespaces,
        "pod_set_merge_policy": "IdenticalWorkloadSchedulingRequirements",
        "max_run_duration": "1d",
        "install_kueue": config.get_bool("installKueue") is not False,
    },
    on_cluster,
)

job = kueue_ray_job(
    "train",
    queue=queue,
    image="rayproject/ray:2.46.0-py311-gpu",
    entrypoint="python -m train --epochs 3",
    workers=3,
    gpus=8,
    namespace=namespaces[0],
    max_run_duration="1d",
)
ray_job = kubernetes.apiextensions.CustomResource(
    "train",
    api_version=job["apiVersion"],
    kind=job["kind"],
    metadata=job["metadata"],
    spec=job["spec"],
    opts=pulumi.ResourceOptions(provider=k8s, depends_on=[queue]),
)

pulumi.export("computeClass", h200.name)
pulumi.export("nodeSelector", h200.node_selector)
pulumi.export("flavors", queue.flavor_names)
pulumi.export("localQueue", queue.local_queue_name)
pulumi.export("reservation", block.reservation_name)
