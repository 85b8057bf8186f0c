"""The ComputeClass kind's rules, as the policy engine runs them over a stack: Flex-start
priorities (see also the examples in test_policy_rules) and GPU workloads on Autopilot."""

from __future__ import annotations

from typing import Any

import pytest

from pulumi_dws.kinds.compute_class.testing import compute_class
from pulumi_dws.policy import ResourceView, evaluate, rule

RAY = "kubernetes:ray.io/v1:RayJob"
CLUSTER = "gcp:container/cluster:Cluster"


def ray_job(selector: dict[str, Any] | None, gpus: int = 8) -> dict[str, Any]:
    pod: dict[str, Any] = {
        "containers": [
            {"name": "ray", "image": "i", "resources": {"limits": {"nvidia.com/gpu": gpus}}}
        ]
    }
    if selector is not None:
        pod["nodeSelector"] = selector
    return {
        "apiVersion": "ray.io/v1",
        "kind": "RayJob",
        "metadata": {"name": "train"},
        "spec": {
            "rayClusterSpec": {
                "headGroupSpec": {"template": {"spec": pod}},
                "workerGroupSpecs": [{"groupName": "w", "template": {"spec": pod}}],
            }
        },
    }


def views(
    job: dict[str, Any], autopilot_cluster: bool = True, cls: dict[str, Any] | None = None
) -> list[ResourceView]:
    out = [ResourceView(RAY, "train", "urn:ray", job)]
    out.append(ResourceView(CLUSTER, "c", "urn:c", {"enableAutopilot": autopilot_cluster}))
    if cls is not None:
        out.append(
            ResourceView("kubernetes:cloud.google.com/v1:ComputeClass", "h200", "urn:h", cls)
        )
    return out


def found(stack: list[ResourceView], config: dict[str, Any] | None = None) -> list[str]:
    return [v.message for v in evaluate(stack, config) if v.rule == "autopilot-gpu-workload"]


def test_a_gpu_job_without_class_or_accelerator_is_refused_on_autopilot() -> None:
    messages = found(views(ray_job(None)))
    assert len(messages) == 2  # head and workers
    assert all("names neither a ComputeClass" in m and "ai-on-gke#983" in m for m in messages)
    assert "spec.rayClusterSpec.headGroupSpec.template.spec.nodeSelector" in messages[0]
    assert rule("autopilot-gpu-workload").level == "mandatory"


@pytest.mark.parametrize(
    "selector",
    [{"cloud.google.com/compute-class": "h200"}, {"cloud.google.com/gke-accelerator": "nvidia-l4"}],
)
def test_a_class_or_an_accelerator_is_enough(selector: dict[str, str]) -> None:
    assert found(views(ray_job(selector), cls=compute_class())) == []


def test_a_node_pool_or_a_class_without_gpus_is_refused() -> None:
    pool = {"cloud.google.com/gke-nodepool": "p", "cloud.google.com/gke-accelerator": "nvidia-l4"}
    assert any("names a node pool" in m for m in found(views(ray_job(pool))))
    cpu_class = compute_class()
    for priority in cpu_class["spec"]["priorities"]:
        priority.pop("gpu")
    messages = found(views(ray_job({"cloud.google.com/compute-class": "h200"}), cls=cpu_class))
    assert messages and all("has no GPU priority" in m for m in messages)


def test_only_autopilot_stacks_and_gpu_pods_are_checked() -> None:
    assert found(views(ray_job(None), autopilot_cluster=False)) == []
    assert found(
        views(ray_job(None), autopilot_cluster=False),
        {"autopilot-gpu-workload": {"autopilot": True}},
    )
    assert found(views(ray_job(None, gpus=0))) == []
