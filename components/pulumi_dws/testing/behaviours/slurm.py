"""``SlurmCluster`` under :class:`~pulumi_dws.testing.GcpMocks`: the cluster comes up ``RUNNING``
at once, with one VM per login node, and the outputs the real provider reports."""

from __future__ import annotations

from typing import Any

from ...providers.slurm_diff import cluster_path, outputs_from_live
from ..mocks import GcpMocks, dynamic_behaviour

__all__ = ["slurm_cluster"]


@dynamic_behaviour("SlurmCluster")
def slurm_cluster(props: dict[str, Any], mocks: GcpMocks, name: str) -> tuple[str, dict[str, Any]]:
    """``(id, outputs)`` as :class:`~pulumi_dws.providers.slurm.SlurmClusterProvider.create`
    returns them after a successful create."""
    project = props.get("project") or mocks.project
    region = props.get("region") or mocks.region
    cluster_id = props.get("cluster_id") or name
    path = cluster_path(project, region, cluster_id)
    body = props.get("body") if isinstance(props.get("body"), dict) else {}
    pools = body.get("node_pools") or []
    slurm = (body.get("orchestrator_spec") or {}).get("slurm_spec") or {}
    login = slurm.get("login_node_pool_id")
    nodes = [
        {
            "instanceName": f"{cluster_id}-{pool.get('id')}-{i}",
            "nodePoolId": pool.get("id"),
            "nodePoolType": "NODE_POOL_TYPE_LOGIN"
            if pool.get("id") == login
            else "NODE_POOL_TYPE_COMPUTE",
            "nodeState": "RUNNING",
        }
        for pool in pools
        for i in range(int((pool.get("scaling_spec") or {}).get("min_node_count") or 0))
    ]
    live = {
        "name": f"projects/{mocks.project_number}/locations/{region}/modelDevelopmentClusters/"
        f"{cluster_id}",
        "nodePools": [{"id": p.get("id"), "zone": p.get("zone")} for p in pools],
        "orchestratorSpec": {
            "slurmSpec": {
                "loginNodePoolId": login,
                "partitions": [
                    {"id": p.get("id"), "nodePoolIds": p.get("node_pool_ids") or []}
                    for p in slurm.get("partitions") or []
                ],
            }
        },
        "clusterStatus": {"state": "RUNNING", "nodesStatus": nodes},
        "createTime": "2026-01-01T00:00:00Z",
    }
    outputs = outputs_from_live({**props, "project": project}, live)
    outputs["drift"] = []
    return path, outputs
