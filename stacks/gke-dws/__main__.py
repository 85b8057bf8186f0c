"""A queued-provisioning A3 High pool on an existing GKE cluster, wired to Kueue.

Config (``Pulumi.<stack>.yaml``, namespace ``gke-dws``): ``cluster`` (required), ``location``
(the cluster's region or zone), ``nodeLocations``, ``maxNodes``, ``machineType``,
``maxRunDuration``, ``namespaces`` (where LocalQueues go), ``installKueue``, ``kueueVersion``,
``team`` (the cost label on the nodes).
Jobs then opt in with the label ``kueue.x-k8s.io/queue-name`` (see the ``jobFields`` output).
"""

import pulumi

from pulumi_dws.gke import QueuedNodePool
from pulumi_dws.kueue import KUEUE_VERSION, KueueQueue, kueue_job_fields

config = pulumi.Config()
max_run_duration = config.get("maxRunDuration") or "1d"

pool = QueuedNodePool(
    "a3-queued",
    {
        "cluster": config.require("cluster"),
        "location": config.get("location") or "us-central1",
        "node_locations": config.get_object("nodeLocations") or ["us-central1-a"],
        "machine_type": config.get("machineType") or "a3-highgpu-8g",
        "max_nodes": config.get_int("maxNodes") or 4,
        "mode": "queued",
        "max_run_duration": "7d",
        "resource_labels": {"team": config.get("team") or "research"},
    },
)

queue = KueueQueue(
    "dws",
    {
        "node_pool": pool,
        "namespaces": config.get_object("namespaces") or ["default"],
        "max_run_duration": max_run_duration,
        "install_kueue": config.get_bool("installKueue") is not False,
        "kueue_version": config.get("kueueVersion") or KUEUE_VERSION,
    },
)

pulumi.export("nodePool", pool.name)
pulumi.export("gpusTotal", pool.gpus_total)
pulumi.export("nodeSelector", pool.node_selector)
pulumi.export("localQueue", queue.local_queue_name)
pulumi.export("clusterQueue", queue.cluster_queue_name)
pulumi.export("jobFields", kueue_job_fields(queue, max_run_duration))
