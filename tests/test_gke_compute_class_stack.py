"""stacks/gke-compute-class: planned offline with the policy pack on, every object it registers
valid against the vendored schemas, and its RayJob in one merged ProvisioningRequest."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from compute_class_helpers import validate_class
from kueue_helpers import validate

from pulumi_dws.cli import main
from pulumi_dws.kinds.kueue.merge import merged_pod_sets, required_pod_sets, workload_pod_sets
from pulumi_dws.plan.runner import run_plan

REPO = Path(__file__).resolve().parent.parent
STACK = REPO / "stacks" / "gke-compute-class"


def inputs(resource: Any) -> dict[str, Any]:
    return {k: v for k, v in resource.inputs.items() if k != "__provider"}


def test_the_stack_plans_with_the_policy_pack_on() -> None:
    assert main(["plan", str(STACK)]) == 0


def test_every_object_validates_and_the_ray_job_is_one_request() -> None:
    plan = run_plan(STACK, "dev")
    kinds: dict[str, int] = {}
    job: dict[str, Any] | None = None
    for r in plan.registered:
        if r.type.startswith("kubernetes:kueue.x-k8s.io/"):
            validate(inputs(r))
        if r.type == "kubernetes:cloud.google.com/v1:ComputeClass":
            validate_class(inputs(r))
        if r.type == "kubernetes:ray.io/v1:RayJob":
            job = inputs(r)
        kinds[r.type] = kinds.get(r.type, 0) + 1
    assert kinds["kubernetes:kueue.x-k8s.io/v1beta2:ResourceFlavor"] == 2
    assert job is not None
    [config] = [
        inputs(r)
        for r in plan.registered
        if r.type == "kubernetes:kueue.x-k8s.io/v1beta2:ProvisioningRequestConfig"
    ]
    policy = config["spec"]["podSetMergePolicy"]
    wanted = required_pod_sets(workload_pod_sets(job), config["spec"]["managedResources"])
    [request] = merged_pod_sets(wanted, policy)
    assert request.names == ("head", "workers") and request.count == 4
    row = next(r for r in plan.resources if r.type == "kubernetes:ray.io/v1:RayJob")
    # No CPU-only submitter pod set, which Kueue would give the H200 class's flavor (the
    # queue's first): KubeRay's operator submits the job over HTTP.
    assert job["spec"]["submissionMode"] == "HTTPMode"
    assert [p.name for p in workload_pod_sets(job)] == ["head", "workers"]
    assert row.properties["pods"] == 4 and row.properties["gpus"] == 32
    queue = next(r for r in plan.resources if r.type.endswith(":ClusterQueue"))
    assert queue.properties["flavors"] == (
        "training-class: 16 GPUs > training-queued: 32 GPUs (ProvisioningRequest)"
    )
