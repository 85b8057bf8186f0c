"""Test aids of Slurm clusters (:mod:`pulumi_dws.kinds.slurm.kind`): how the cluster, the IAM grants
and the ``/home`` Filestore behave under :class:`~pulumi_dws.testing.GcpMocks`, and the policy
samples and violating examples of clusters and grants."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...testing.mocks import short_hash
from ...testing.samples import Capacity, Example, Sample
from .diff import cluster_path, outputs_from_live
from .provider import TYPE_TOKEN as SLURM

if TYPE_CHECKING:
    from ...testing.mocks import GcpMocks

__all__ = ["slurm_cluster", "iam_member", "filestore", "SAMPLES", "CAPACITY", "EXAMPLES"]


def slurm_cluster(mocks: GcpMocks, typ: str, name: str, s: dict[str, Any]) -> str:
    """``RUNNING`` at once, one VM per login node, and the outputs
    :class:`~pulumi_dws.kinds.slurm.provider.SlurmClusterProvider` reports after a create."""
    project = s.get("project") or mocks.project
    region = s.get("region") or mocks.region
    cluster_id = s.get("cluster_id") or name
    path = cluster_path(project, region, cluster_id)
    given = s.get("body")
    body: dict[str, Any] = given if isinstance(given, dict) else {}
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
        "clusterStatus": {"state": mocks.lifecycle("RUNNING"), "nodesStatus": nodes},
        "createTime": "2026-01-01T00:00:00Z",
    }
    outputs = outputs_from_live({**s, "project": project}, live)
    outputs["drift"] = []
    s.clear()
    s.update(outputs)
    return path


def iam_member(mocks: GcpMocks, typ: str, name: str, s: dict[str, Any]) -> str:
    s.setdefault("etag", "BwX" + short_hash(str(s.get("role")), str(s.get("member")), length=9))
    return f"{s['project']}/{s.get('role')}/{s.get('member')}"


def filestore(mocks: GcpMocks, typ: str, name: str, s: dict[str, Any]) -> str:
    location = s.get("location", mocks.region + "-a")
    rid = f"projects/{s['project']}/locations/{location}/instances/{s['name']}"
    for i, net in enumerate(s.get("networks") or []):
        net.setdefault("ipAddresses", [f"10.0.{i}.2"])
    s.setdefault("createTime", "2026-01-01T00:00:00Z")
    return rid


# ---------------------------------------------------------------------- policy samples
def slurm_cluster_sample() -> dict[str, Any]:
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


def service_agent_member() -> dict[str, Any]:
    """A raw ``gcp.projects.IAMMember``: the least-privilege grant for managed Slurm."""
    return {
        "project": "my-project",
        "role": "roles/compute.instanceAdmin.v1",
        "member": "serviceAccount:123456789012@cloudservices.gserviceaccount.com",
    }


SAMPLES: dict[str, Sample] = {
    "slurm_cluster": (SLURM, slurm_cluster_sample),
    "service_agent_member": ("gcp:projects/iAMMember:IAMMember", service_agent_member),
}

CAPACITY: dict[str, Capacity] = {
    # the a3 pool: 2 nodes x 8 GPUs, Flex-start for 7 days (the login pool has no GPUs)
    "slurm_cluster": Capacity("nvidia-h100-80gb", gpus=16, gpu_hours=16 * 168),
}
"""What each sample asks for (see :func:`pulumi_dws.testing.samples.totals`)."""

EXAMPLES: tuple[Example, ...] = (
    Example(
        "frontier-machine-fit",
        "slurm_cluster",
        (("body.node_pools.1.machine_spec.machine_type", "g4-standard-48"),),
        "machine_spec.machine_type: g4-standard-48 can't be Flex-start",
    ),
    Example(
        "flex-start-max-run-duration",
        "slurm_cluster",
        (("body.node_pools.1.flex_start_max_duration", "10s"),),
        "slurm.flex_start_max_duration",
    ),
    Example(
        "no-public-ip-on-accelerators",
        "slurm_cluster",
        (("body.node_pools.1.enable_public_ips", True),),
        "GPU node pool a3",
    ),
    Example(
        "no-basic-roles",
        "service_agent_member",
        (("role", "roles/editor"),),
        "roles/compute.instanceAdmin.v1 and roles/iam.serviceAccountUser",
    ),
    Example(
        "no-basic-roles",
        "service_agent_member",
        (("role", "roles/owner"), ("member", "user:alice@example.com")),
        "grants roles/owner to user:alice@example.com",
        unknown="member",
    ),
    Example(
        "no-basic-roles",
        "service_agent_member",
        (("role", "roles/compute.admin"),),
        "roles/compute.admin",
        config={"forbiddenRoles": ["roles/compute.admin"]},
    ),
    Example("required-labels", "slurm_cluster", (("body.labels", {}),), "body.labels lacks"),
)
