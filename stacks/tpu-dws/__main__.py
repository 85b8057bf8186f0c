"""A queued TPU v6e pool on an existing GKE cluster (one 4x4 slice: 16 chips on 4 VMs), wired
to Kueue so that TPU Jobs wait in the DWS queue until the whole slice is provisioned; and a
Flex-start Cloud TPU queued resource (``QueuedTpu``: a v6e-16 slice of TPU VMs for a day, queued
for up to 2 hours) for work that runs on TPU VMs directly.

Config (``Pulumi.<stack>.yaml``, namespace ``tpu-dws``): ``cluster`` (required), ``location``
(the cluster's region or zone), ``zone`` (the slice's zone), ``machineType``, ``tpuTopology``,
``maxRunDuration``, ``flexStart`` (false: queued provisioning without Flex-start, for clusters
that refuse both on TPUs), ``namespaces`` (where LocalQueues go), ``installKueue``,
``kueueVersion``, ``team`` (the cost label on the nodes); ``queuedTpuZone`` and
``queuedTpuType`` (the queued resource's zone, where Cloud TPU offers Flex-start, and its
accelerator type).
Jobs opt in with the label ``kueue.x-k8s.io/queue-name`` and request ``google.com/tpu``: the
``exampleJob`` output is one, a Pod per VM with all its chips.
"""

import pulumi

from pulumi_dws.gke import QueuedNodePool
from pulumi_dws.kueue import KUEUE_VERSION, KueueQueue, kueue_job, kueue_job_fields
from pulumi_dws.queued_tpu import QueuedTpu

config = pulumi.Config()
max_run_duration = config.get("maxRunDuration") or "1d"

pool = QueuedNodePool(
    "v6e-queued",
    {
        "cluster": config.require("cluster"),
        "location": config.get("location") or "us-east5",
        "node_locations": [config.get("zone") or "us-east5-b"],
        "machine_type": config.get("machineType") or "ct6e-standard-4t",
        "tpu_topology": config.get("tpuTopology") or "4x4",
        "mode": "queued",
        "flex_start": config.get_bool("flexStart") is not False,
        "max_run_duration": "7d",
        "resource_labels": {"team": config.get("team") or "research"},
    },
)

queue = KueueQueue(
    "tpu",
    {
        "node_pool": pool,
        "namespaces": config.get_object("namespaces") or ["default"],
        "max_run_duration": max_run_duration,
        "install_kueue": config.get_bool("installKueue") is not False,
        "kueue_version": config.get("kueueVersion") or KUEUE_VERSION,
    },
)

tpu_vms = QueuedTpu(
    "v6e-flex",
    {
        "zone": config.get("queuedTpuZone") or "us-east5-a",
        "accelerator_type": config.get("queuedTpuType") or "v6e-16",
        "provisioning": "flex_start",
        "max_run_duration": max_run_duration,
        "request_valid_for": "2h",
        "labels": {"team": config.get("team") or "research"},
    },
)

pulumi.export("nodePool", pool.name)
pulumi.export("tpuTopology", pool.tpu_topology)
pulumi.export("tpuChipsTotal", pool.tpu_chips_total)
pulumi.export("nodeSelector", pool.node_selector)
pulumi.export("localQueue", queue.local_queue_name)
pulumi.export("clusterQueue", queue.cluster_queue_name)
pulumi.export("jobFields", kueue_job_fields(queue, max_run_duration))
pulumi.export(
    "exampleJob",
    kueue_job(
        "train",
        queue=queue,
        image="us-docker.pkg.dev/cloud-tpu-images/jax-ai-image/tpu:latest",
        tpu_chips=pool.tpu_chips_per_node,
        command=["python", "-c", "import jax; print(jax.device_count())"],
        max_run_duration=max_run_duration,
    ),
)
pulumi.export("queuedResource", tpu_vms.queued_resource_name)
pulumi.export("queuedResourceState", tpu_vms.state)
