"""The limit rows of GKE node pools DWS fills (``QueuedNodePool``): GKE node run duration, node
counts, names and disks: each row with its source, registered with :mod:`pulumi_dws.limits` when
this module is imported."""

from __future__ import annotations

from ...limits import FACTS, WEEK, Limit, register

__all__ = ["ROWS"]

ROWS: tuple[Limit, ...] = (
    Limit(
        "gke.max_run_duration",
        "GKE node max run duration",
        "seconds",
        f"{FACTS} §2: node_config.max_run_duration at most 7 days",
        minimum=30,
        maximum=WEEK,
    ),
    Limit(
        "gke.max_nodes",
        "GKE queued pool total max nodes",
        "count",
        (
            f"{FACTS} §2: autoscaling totalMaxNodeCount, at least 1; the 1000 cap is GKE's "
            "nodes-per-node-pool-zone quota, applied by pulumi-dws to the total (override "
            "it for multi-zone pools)"
        ),
        minimum=1,
        maximum=1000,
    ),
    Limit(
        "gke.node_pool_name",
        "GKE node pool name length",
        "count",
        "GKE API NodePool.name: 1 to 40 characters (RFC 1035)",
        minimum=1,
        maximum=40,
    ),
    Limit(
        "gke.disk_size_gb",
        "GKE node boot disk size (GB)",
        "count",
        "GKE API NodeConfig.diskSizeGb: the smallest allowed disk size is 10 GB",
        minimum=10,
    ),
)
"""This kind's rows."""

register(*ROWS)
