"""Test aids of GKE node pools (:mod:`pulumi_dws.kinds.node_pool.kind`): how node pools and clusters
behave under :class:`~pulumi_dws.testing.GcpMocks`, and the policy samples and violating
examples of queued node pools."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...testing.mocks import COMPUTE, FAKE_CA
from ...testing.samples import DELETE, Capacity, Example, Sample

if TYPE_CHECKING:
    from ...testing.mocks import GcpMocks

__all__ = ["node_pool", "cluster", "SAMPLES", "CAPACITY", "EXAMPLES"]


def cluster(mocks: GcpMocks, typ: str, name: str, s: dict[str, Any]) -> str:
    location = s.get("location", mocks.region)
    rid = f"projects/{s['project']}/locations/{location}/clusters/{s['name']}"
    s.setdefault("endpoint", "203.0.113.10")
    s.setdefault("masterAuth", {"clusterCaCertificate": FAKE_CA})
    s.setdefault("selfLink", "https://container.googleapis.com/v1/" + rid)
    return rid


def node_pool(mocks: GcpMocks, typ: str, name: str, s: dict[str, Any]) -> str:
    cluster = str(s.get("cluster", "cluster")).split("/")[-1]
    location = s.get("location", mocks.region)
    rid = f"projects/{s['project']}/locations/{location}/clusters/{cluster}/nodePools/{s['name']}"
    zones = s.get("nodeLocations") or [f"{location}-a"]
    s.setdefault("version", "1.33.5-gke.1000000")
    s.setdefault(
        "instanceGroupUrls",
        [
            f"{COMPUTE}projects/{s['project']}/zones/{z}/instanceGroupManagers/gke-{s['name']}"
            for z in zones
        ],
    )
    s.setdefault("managedInstanceGroupUrls", list(s["instanceGroupUrls"]))
    return rid


# ---------------------------------------------------------------------- policy samples
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


def tpu_node_pool() -> dict[str, Any]:
    """A raw Flex-start ``gcp.container.NodePool`` of one TPU v6e 4x4 slice (4 VMs), as
    QueuedNodePool registers it."""
    return {
        "cluster": "projects/my-project/locations/us-east5/clusters/tpu",
        "location": "us-east5",
        "nodeLocations": ["us-east5-b"],
        "initialNodeCount": 0,
        "autoscaling": {"minNodeCount": 0, "maxNodeCount": 4, "locationPolicy": "ANY"},
        "placementPolicy": {"type": "COMPACT", "tpuTopology": "4x4"},
        "management": {"autoRepair": False, "autoUpgrade": False},
        "networkConfig": {"enablePrivateNodes": True},
        "nodeConfig": {
            "machineType": "ct6e-standard-4t",
            "flexStart": True,
            "maxRunDuration": "86400s",
            "reservationAffinity": {"consumeReservationType": "NO_RESERVATION"},
            "resourceLabels": {"team": "ml"},
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


SAMPLES: dict[str, Sample] = {
    "queued_node_pool": ("gcp:container/nodePool:NodePool", queued_node_pool),
    "tpu_node_pool": ("gcp:container/nodePool:NodePool", tpu_node_pool),
    "private_cluster": ("gcp:container/cluster:Cluster", private_cluster),
}

CAPACITY: dict[str, Capacity] = {
    # 4 nodes x 8 GPUs for 1 day; a v6e 4x4 slice (4 VMs x 4 chips) for 1 day
    "queued_node_pool": Capacity("nvidia-h100-80gb", gpus=32, gpu_hours=32 * 24),
    "tpu_node_pool": Capacity("v6e", tpu_chips=16, tpu_chip_hours=16 * 24),
}
"""What each sample asks for (see :func:`pulumi_dws.testing.samples.totals`)."""

EXAMPLES: tuple[Example, ...] = (
    Example(
        "gke-tpu-slice",
        "tpu_node_pool",
        (("placementPolicy.tpuTopology", "3x3"),),
        "not a topology of ct6e-standard-4t",
    ),
    Example(
        "gke-tpu-slice",
        "tpu_node_pool",
        (("autoscaling.maxNodeCount", 8),),
        "set it to 4",
    ),
    Example(
        "gke-tpu-slice",
        "tpu_node_pool",
        (("autoscaling.maxNodeCount", DELETE), ("autoscaling.totalMaxNodeCount", 4)),
        "totalMaxNodeCount only",
    ),
    Example(
        "gke-tpu-slice",
        "tpu_node_pool",
        (("nodeLocations", ["us-east5-a", "us-east5-b"]),),
        "one zone",
    ),
    Example(
        "gke-tpu-slice",
        "tpu_node_pool",
        (("nodeConfig.guestAccelerators", [{"type": "nvidia-l4", "count": 1}]),),
        "no guest accelerators",
    ),
    Example(
        "gke-tpu-queued-flex-start",
        "tpu_node_pool",
        (("queuedProvisioning.enabled", True),),
        "xpk#900",
    ),
    Example(
        "no-public-ip-on-accelerators",
        "tpu_node_pool",
        (("networkConfig.enablePrivateNodes", False),),
        "TPU nodes get public IPs",
    ),
    Example(
        "flex-start-max-run-duration",
        "queued_node_pool",
        (("nodeConfig.maxRunDuration", "691200s"),),
        "gke.max_run_duration",
    ),
    Example(
        "flex-start-max-run-duration",
        "queued_node_pool",
        (("nodeConfig.maxRunDuration", DELETE),),
        "requires a max run duration",
        config={"requireOnNodePools": True},
    ),
    Example(
        "gke-dws-node-pool",
        "queued_node_pool",
        (("autoscaling.totalMinNodeCount", 1),),
        "minimum of 0",
    ),
    Example(
        "gke-dws-node-pool",
        "queued_node_pool",
        (("autoscaling.locationPolicy", "BALANCED"),),
        "use ANY",
    ),
    Example(
        "gke-dws-node-pool",
        "queued_node_pool",
        (("autoscaling", DELETE),),
        "autoscaling is missing",
    ),
    Example(
        "gke-dws-node-pool",
        "queued_node_pool",
        (("nodeConfig.reservationAffinity.consumeReservationType", "ANY_RESERVATION"),),
        "NO_RESERVATION",
    ),
    Example(
        "gke-dws-node-pool",
        "queued_node_pool",
        (("management.autoRepair", True),),
        "autoRepair is true",
    ),
    Example(
        "gke-dws-node-pool",
        "queued_node_pool",
        (("management", DELETE),),
        "autoRepair is on (the default)",
    ),
    Example("gke-dws-node-pool", "queued_node_pool", (("nodeConfig.spot", True),), "Spot"),
    Example(
        "frontier-machine-fit",
        "queued_node_pool",
        (("nodeConfig.flexStart", True), ("nodeConfig.machineType", "a4x-highgpu-4g")),
        "nodeConfig.machineType: a4x-highgpu-4g can't be Flex-start",
    ),
    Example(
        "gke-dws-node-pool",
        "queued_node_pool",
        (("placementPolicy.type", "COMPACT"),),
        "compact placement",
    ),
    Example(  # compact placement is fine on TPUs: with the machine type unknown, can't tell
        "gke-dws-node-pool",
        "queued_node_pool",
        (("placementPolicy.type", "COMPACT"),),
        "compact placement",
        unknown="nodeConfig.machineType",
    ),
    Example(
        "gke-dws-node-pool", "queued_node_pool", (("initialNodeCount", 2),), "start with 0 nodes"
    ),
    Example(
        "gke-dws-node-pool",
        "queued_node_pool",
        (
            ("queuedProvisioning", DELETE),
            ("nodeConfig.flexStart", True),
            ("nodeConfig.preemptible", True),
        ),
        "(Flex-start pool)",
    ),
    Example(
        "gke-dws-auto-upgrade",
        "queued_node_pool",
        (("management.autoUpgrade", True),),
        "autoUpgrade is true",
    ),
    Example(
        "no-public-ip-on-accelerators",
        "queued_node_pool",
        (("networkConfig.enablePrivateNodes", False),),
        "GPU nodes get public IPs",
    ),
    Example(
        "required-labels",
        "queued_node_pool",
        (("nodeConfig.resourceLabels.env", "dev"),),
        "cost-center",
        config={"requiredLabels": ["team", "cost-center"]},
        unknown="nodeConfig.resourceLabels",
    ),
)
