"""Pod sets that request no accelerator: Kueue gives each one a flavor of its own (the first
of the queue whose node labels its node selector allows), so a RayJob's CPU-only submitter or
head would be pinned to a ComputeClass's accelerator nodes. The RayJob helper submits over
HTTP by default (no submitter pod set) and refuses a CPU-only pod set where its flavor makes
nodes on demand, or where it could never start."""

from __future__ import annotations

from typing import Any

import pytest

from pulumi_dws import ComputeClass, KueueQueue, QueuedNodePool
from pulumi_dws.errors import DwsValidationError
from pulumi_dws.kinds.kueue.assign import flavor_for, pod_sets_without_accelerators
from pulumi_dws.kinds.kueue.jobs import kueue_ray_job
from pulumi_dws.kinds.kueue.merge import PodSet, workload_pod_sets
from pulumi_dws.testing import GcpMocks

MERGE = "IdenticalWorkloadSchedulingRequirements"


def pool(name: str, **over: Any) -> QueuedNodePool:
    args = {"cluster": "ml-cluster", "location": "us-central1", "machine_type": "a3-ultragpu-8g",
            "max_nodes": 4, **over}  # fmt: skip
    return QueuedNodePool(name, args)  # type: ignore[arg-type]


def h200_class() -> ComputeClass:
    return ComputeClass(
        "h200",
        {"cluster": "ml-cluster", "location": "us-central1", "machine_type": "a3-ultragpu-8g",
         "priorities": [{"capacity": "flex_start", "max_run_duration": "7d"}]},
    )  # fmt: skip


def class_first(made: dict[str, Any], **queue: Any) -> None:
    """The queue of stacks/gke-compute-class: the H200 class first, a queued pool next."""
    made["q"] = KueueQueue(
        "training",
        {"flavors": [{"compute_class": h200_class(), "gpu_quota": 16},
                     {"node_pool": pool("h200-queued")}],
         "namespaces": ["ml"], "pod_set_merge_policy": MERGE, **queue},
    )  # fmt: skip


def queued_only(made: dict[str, Any], **queue: Any) -> None:
    made["q"] = KueueQueue("queued", {"node_pool": pool("h200-queued"), "namespaces": ["ml"],
                                      **queue})  # fmt: skip


def ray(made: dict[str, Any], **over: Any) -> dict[str, Any]:
    args = {"queue": made["q"], "image": "rayproject/ray:2.46.0-gpu",
            "entrypoint": "python train.py", "workers": 3, "gpus": 8, "namespace": "ml", **over}  # fmt: skip
    return kueue_ray_job("train", **args)


def run(program: Any) -> dict[str, Any]:
    made: dict[str, Any] = {}
    GcpMocks().run(lambda: program(made))
    return made


def test_by_default_every_pod_set_of_a_ray_job_requests_the_queues_gpus() -> None:
    """HTTPMode: KubeRay's operator submits the job to the head; no submitter pod set that
    Kueue would pin to the H200 class."""

    def program(made: dict[str, Any]) -> None:
        class_first(made)
        made["job"] = ray(made)

    made = run(program)
    job = made["job"]
    assert job["spec"]["submissionMode"] == "HTTPMode"
    assert [p.name for p in workload_pod_sets(job)] == ["head", "workers"]
    assert pod_sets_without_accelerators(job, made["q"]) == []


def test_kueue_gives_a_cpu_only_pod_set_the_queues_first_flavor() -> None:
    """The model of Kueue's flavor assigner: the first flavor whose node labels the pod set's
    node selector allows (all of them admit CPU and memory without bound)."""

    def program(made: dict[str, Any]) -> None:
        class_first(made)
        # A manifest for the queue by name: nothing checked, so the submitter is there.
        made["job"] = ray({"q": "training-local-queue"}, submission_mode="K8sJobMode")

    made = run(program)
    flavors = made["q"].flavors
    submitter = next(p for p in workload_pod_sets(made["job"]) if p.name == "submitter")
    assert flavor_for(submitter, flavors) is flavors[0]
    assert flavors[0].compute_class is not None  # the H200 class: 8 x H200 per node
    # Only a flavor's own label keys are compared: selecting the pool does not exclude the
    # class (whose flavor has no gke-nodepool label); selecting another class does.
    to_pool = PodSet(
        "s", 1, {"spec": {"nodeSelector": {"cloud.google.com/gke-nodepool": "h200-queued"}}}
    )
    assert flavor_for(to_pool, flavors) is flavors[0]
    other = PodSet("s", 1, {"spec": {"nodeSelector": {"cloud.google.com/compute-class": "x"}}})
    assert flavor_for(other, flavors) is flavors[1]
    assert flavor_for(other, flavors[:1]) is None
    not_h200 = {"key": "cloud.google.com/compute-class", "operator": "NotIn", "values": ["h200"]}
    affinity = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchExpressions": [not_h200]}]}}}  # fmt: skip
    assert flavor_for(PodSet("s", 1, {"spec": {"affinity": affinity}}), flavors) is flavors[1]


@pytest.mark.parametrize(
    ("over", "field"),
    [({"submission_mode": "K8sJobMode"}, "submission_mode"),
     ({"head_accelerators": False}, "head_accelerators")],
)  # fmt: skip
def test_a_cpu_only_pod_set_on_the_class_is_refused(over: dict[str, Any], field: str) -> None:
    def program(made: dict[str, Any]) -> None:
        class_first(made)
        ray(made, **over)

    with pytest.raises(DwsValidationError) as info:
        run(program)
    assert info.value.field == field, str(info.value)
    text = str(info.value)
    assert "training-class" in text and "ComputeClass h200" in text
    assert "a3-ultragpu-8g" in text and ("HTTPMode" in text or "head_accelerators" in text)


def test_the_submitter_must_tolerate_the_queued_pool_it_is_pinned_to() -> None:
    """On a queued pool a CPU-only pod set can only use the nodes a request made, and those
    carry the gke-queued taint: the flavor tolerates it only with a merge policy, so without
    one KubeRay's submitter would wait for ever while the job's nodes bill."""

    def without(made: dict[str, Any]) -> None:
        queued_only(made)
        ray(made, head_accelerators=False, submission_mode="K8sJobMode")

    with pytest.raises(DwsValidationError) as info:
        run(without)
    assert info.value.field == "submission_mode"
    assert "cloud.google.com/gke-queued" in str(info.value)

    def merged(made: dict[str, Any]) -> None:
        queued_only(made, pod_set_merge_policy=MERGE)
        made["job"] = ray(made, submission_mode="K8sJobMode")
        made["head"] = ray(made, head_accelerators=False)

    made = run(merged)
    assert [p.name for p in workload_pod_sets(made["job"])] == ["head", "workers", "submitter"]
    [submitter] = pod_sets_without_accelerators(made["job"], made["q"])
    assert submitter.flavor is made["q"].flavors[0] and submitter.flavor.queued
    [head] = pod_sets_without_accelerators(made["head"], made["q"])
    assert head.pod_set.name == "head"


def test_a_flex_start_pool_would_make_a_gpu_node_for_a_cpu_pod() -> None:
    def program(made: dict[str, Any]) -> None:
        made["q"] = KueueQueue(
            "flex", {"node_pool": pool("h200-flex", mode="flex_start"), "namespaces": ["ml"]}
        )
        ray(made, head_accelerators=False)

    with pytest.raises(DwsValidationError) as info:
        run(program)
    assert info.value.field == "head_accelerators"
    assert "node pool h200-flex in mode flex_start" in str(info.value)
