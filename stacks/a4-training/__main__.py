"""Sixteen A4 (8 x B200) Flex-start VMs at once, for 2 days: a regional managed instance group
that lists its zones, a workload policy keeping the VMs within one block, and the RDMA network
A4 VMs train across (2 gVNIC + 8 MRDMA NICs each), as Google's Cluster Toolkit builds them."""

import pulumi

from pulumi_dws import FlexStartGroup, GpuNetwork

config = pulumi.Config()
region = config.get("region") or "us-central1"
network_zone = config.get("networkZone") or f"{region}-b"

network = GpuNetwork("a4-net", {"zone": network_zone, "machine_type": "a4-highgpu-8g"})

group = FlexStartGroup(
    "a4-trainers",
    {
        "region": region,
        "zones": config.get_object("zones") or [network_zone],
        "machine_type": "a4-highgpu-8g",
        "count": config.get_int("count") or 16,
        "run_duration": config.get("runDuration") or "2d",
        "placement": {"max_topology_distance": config.get("topologyDistance") or "BLOCK"},
        "gpu_network": network,
        "boot_disk_size_gb": 500,
        "labels": {"team": "research", "workload": "pretraining"},
    },
)

pulumi.export("group", group.self_link)
pulumi.export("request_state", group.request_state)
pulumi.export("instances", group.instance_names)
pulumi.export("run_ends_at", group.run_ends_at)
