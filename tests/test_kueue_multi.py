"""KueueQueue beyond one pool and one pod set: fallback flavors, podSetMergePolicy, topology,
TPU and retry parameters, checked against the CRDs of every vendored Kueue release; and the
RayJob / JobSet helpers, whose ProvisioningRequest is modelled as Kueue builds it."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from kueue_helpers import kueue_versions, validate

from pulumi_dws import CalendarReservation, ComputeClass, KueueQueue, QueuedNodePool
from pulumi_dws.errors import DwsValidationError
from pulumi_dws.kinds.kueue.component import kueue_manifests
from pulumi_dws.kinds.kueue.jobs import (
    REQUIRED_TOPOLOGY_ANNOTATION,
    kueue_jobset,
    kueue_ray_job,
    provisioning_request_pod_sets,
)
from pulumi_dws.kinds.kueue.merge import PodSet, difference, merged_pod_sets, workload_pod_sets
from pulumi_dws.kinds.kueue.spec import (
    A4X_TOPOLOGY_LEVELS,
    POD_SET_UPDATES,
    QUEUED_TOLERATION,
    TOPOLOGY_LEVELS,
    kueue_release,
)
from pulumi_dws.testing import GcpMocks

MERGE = "IdenticalWorkloadSchedulingRequirements"
FALLBACK = [
    {"node_pool": "h200-reserved", "gpu_quota": 16, "provisioning_request": False},
    {"node_pool": "h200-queued", "gpu_quota": 64},
]


def by_kind(objs: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [o for o in objs if o["kind"] == kind]


def api_versions(kueue_version: str) -> list[str]:
    return ["v1beta1", "v1beta2"] if kueue_release(kueue_version)[:2] >= (0, 15) else ["v1beta1"]


CASES = [(version, api) for version in kueue_versions() for api in api_versions(version)]


@pytest.mark.parametrize(("kueue_version", "api_version"), CASES)
def test_fallback_flavors_validate_for_every_kueue_release(
    kueue_version: str, api_version: str
) -> None:
    merge = {"pod_set_merge_policy": MERGE} if kueue_release(kueue_version)[:2] >= (0, 12) else {}
    objs = kueue_manifests(
        None,
        ["ml"],
        name="train",
        flavors=FALLBACK,
        api_version=api_version,
        kueue_version=kueue_version,
        topology=True,
        max_run_duration="1d",
        retry_strategy={"backoff_limit_count": 0},
        **merge,
    )
    assert [o["kind"] for o in objs] == [
        "Topology",
        "ResourceFlavor",
        "ResourceFlavor",
        "ProvisioningRequestConfig",
        "AdmissionCheck",
        "ClusterQueue",
        "LocalQueue",
    ]
    for obj in objs:
        validate(obj, kueue_version)


def test_the_dws_flavor_alone_waits_for_a_provisioning_request() -> None:
    """As Google's reservation + DWS sample: the reservation's flavor first, the DWS flavor
    next, each with its quota; the admission check on the DWS flavor only, through
    admissionChecksStrategy (v1beta2 has no top-level admissionChecks)."""
    for api in ("v1beta2", "v1beta1"):
        objs = kueue_manifests(None, ["ml"], name="train", flavors=FALLBACK, api_version=api)
        queue = by_kind(objs, "ClusterQueue")[0]["spec"]
        flavors = queue["resourceGroups"][0]["flavors"]
        assert [f["name"] for f in flavors] == ["train-pool", "train-queued"]
        gpus = [
            {r["name"]: r["nominalQuota"] for r in f["resources"]}["nvidia.com/gpu"]
            for f in flavors
        ]
        assert gpus == [16, 64]
        assert queue["admissionChecksStrategy"] == {
            "admissionChecks": [{"name": "train-prov", "onFlavors": ["train-queued"]}]
        }
        assert "admissionChecks" not in queue
        labels = [f["spec"]["nodeLabels"] for f in by_kind(objs, "ResourceFlavor")]
        assert labels == [
            {"cloud.google.com/gke-nodepool": "h200-reserved"},
            {"cloud.google.com/gke-nodepool": "h200-queued"},
        ]


def test_a_top_level_admission_check_is_refused_by_v1beta2() -> None:
    queue = by_kind(kueue_manifests(None, ["ml"], name="t", flavors=FALLBACK), "ClusterQueue")[0]
    wrong = copy.deepcopy(queue)
    wrong["spec"]["admissionChecks"] = ["t-prov"]  # Cluster Toolkit's dws templates do this
    for version in kueue_versions():
        if kueue_release(version)[:2] >= (0, 15):
            with pytest.raises(AssertionError, match="admissionChecks"):
                validate(wrong, version)


def test_podsetupdates_and_the_merge_policy_need_kueue_0_12() -> None:
    old = by_kind(
        kueue_manifests("p", ["ml"], 8, api_version="v1beta1", kueue_version="0.11.9"),
        "ProvisioningRequestConfig",
    )[0]
    assert "podSetUpdates" not in old["spec"]
    validate(old, "0.11.9")
    for field, value in (("podSetUpdates", POD_SET_UPDATES), ("podSetMergePolicy", MERGE)):
        with pytest.raises(AssertionError, match=field):
            validate({**old, "spec": {**old["spec"], field: value}}, "0.11.9")
    with pytest.raises(DwsValidationError) as info:
        kueue_manifests(
            "p",
            ["ml"],
            8,
            api_version="v1beta1",
            kueue_version="0.11.9",
            pod_set_merge_policy=MERGE,
        )
    assert info.value.field == "pod_set_merge_policy" and "Kueue 0.12 or later" in str(info.value)
    new = by_kind(
        kueue_manifests("p", ["ml"], 8, kueue_version="0.19.2", pod_set_merge_policy=MERGE),
        "ProvisioningRequestConfig",
    )[0]
    assert new["spec"]["podSetMergePolicy"] == MERGE
    validate(new, "0.19.2")


@pytest.mark.parametrize(
    ("kueue_version", "api_version", "topology_version"),
    [("0.12.10", "v1beta1", "v1alpha1"), ("0.13.10", "v1beta1", "v1alpha1"),
     ("0.14.8", "v1beta1", "v1beta1"), ("0.16.1", "v1beta1", "v1beta1"),
     ("0.16.1", "v1beta2", "v1beta2")],
)  # fmt: skip
def test_the_topology_api_version_follows_the_kueue_release(
    kueue_version: str, api_version: str, topology_version: str
) -> None:
    objs = kueue_manifests(
        "p", ["ml"], 8, topology=True, kueue_version=kueue_version, api_version=api_version
    )
    [topology] = by_kind(objs, "Topology")
    assert topology["apiVersion"] == f"kueue.x-k8s.io/{topology_version}"
    assert [level["nodeLabel"] for level in topology["spec"]["levels"]] == list(TOPOLOGY_LEVELS)
    assert topology["metadata"]["name"].startswith("dws-topology-")  # (named after its levels)
    assert (
        by_kind(objs, "ResourceFlavor")[0]["spec"]["topologyName"] == topology["metadata"]["name"]
    )
    validate(topology, kueue_version)


def pool(name: str, **over: Any) -> QueuedNodePool:
    args = {"cluster": "ml-cluster", "location": "us-central1", "machine_type": "a3-ultragpu-8g",
            "max_nodes": 4, **over}  # fmt: skip
    return QueuedNodePool(name, args)  # type: ignore[arg-type]


def run(program: Any) -> tuple[GcpMocks, dict[str, Any]]:
    mocks = GcpMocks()
    made: dict[str, Any] = {}
    mocks.run(lambda: program(made))
    return mocks, made


def test_a4x_levels_include_its_node_pools_and_other_machines_are_refused() -> None:
    def a4x(made: dict[str, Any]) -> None:
        made["q"] = KueueQueue(
            "a4x",
            {"node_pool": pool("a4x-pool", machine_type="a4x-highgpu-4g", max_nodes=18,
                               flex_start=False),  # A4X can't be Flex-start
             "namespaces": ["ml"], "topology": True},
        )  # fmt: skip

    mocks, made = run(a4x)
    [topology] = mocks.resources("kubernetes:kueue.x-k8s.io/v1beta2:Topology")
    assert [lv["nodeLabel"] for lv in topology.inputs["spec"]["levels"]] == list(
        A4X_TOPOLOGY_LEVELS
    )
    assert made["q"].topology_name == topology.inputs["metadata"]["name"]
    assert made["q"].topology_name.startswith("a4x-topology-")

    def l4(made: dict[str, Any]) -> None:
        KueueQueue(
            "l4",
            {"node_pool": pool("l4", machine_type="g2-standard-8"), "namespaces": ["ml"],
             "topology": True},
        )  # fmt: skip

    with pytest.raises(DwsValidationError, match=r"^topology: True needs nodes .* g2-standard-8"):
        run(l4)


def test_install_turns_tas_on_where_it_is_still_alpha() -> None:
    def program(made: dict[str, Any]) -> None:
        KueueQueue(
            "dws",
            {"node_pool": pool("a3u"), "namespaces": ["ml"], "topology": True,
             "install_kueue": True, "kueue_version": "0.13.10", "api_version": "v1beta1"},
        )  # fmt: skip

    mocks, _ = run(program)
    release = mocks.one("kubernetes:helm.sh/v3:Release")
    gates = release.inputs["values"]["controllerManager"]["featureGates"]
    assert gates == [{"name": "TopologyAwareScheduling", "enabled": True}]


def test_a_queued_tpu_pool_passes_its_topology_to_gke() -> None:
    objs = kueue_manifests(None, ["ml"], name="tpu", flavors=[
        {"node_pool": "v6e", "tpu_quota": 16}], provisioning_parameters={"x-note": "a"})  # fmt: skip
    config = by_kind(objs, "ProvisioningRequestConfig")[0]["spec"]
    assert config["managedResources"] == ["google.com/tpu"]
    assert config["parameters"] == {"x-note": "a"}

    def program(made: dict[str, Any]) -> None:
        made["q"] = KueueQueue(
            "tpu",
            {"node_pool": pool("v6e", location="us-east5", node_locations=["us-east5-b"],
                               machine_type="ct6e-standard-4t", tpu_topology="4x4",
                               max_nodes=None),
             "namespaces": ["ml"], "max_run_duration": "6h"},
        )  # fmt: skip

    mocks, _ = run(program)
    [prc] = mocks.resources("kubernetes:kueue.x-k8s.io/v1beta2:ProvisioningRequestConfig")
    assert prc.inputs["spec"]["parameters"] == {
        "maxRunDurationSeconds": "21600",
        "tpu-topology": "4x4",
    }
    validate({k: v for k, v in prc.inputs.items() if k != "__provider"})


FLAVOR_REJECTIONS = [
    ({"flavors": [{"node_pool": "a", "gpu_quota": 8}, {"node_pool": "b", "tpu_quota": 8}]},
     "flavors[1]", "one queue, one accelerator"),
    ({"flavors": [{"node_pool": "a"}]}, "flavors[0].gpu_quota", "node_pool is a name"),
    ({"flavors": [{"compute_class": "c"}]}, "flavors[0].gpu_quota", "a class sets no maximum"),
    ({"flavors": [{"compute_class": "c", "gpu_quota": 8, "provisioning_request": True}]},
     "flavors[0].provisioning_request", "does not apply to a ComputeClass"),
    ({"flavors": [{"node_pool": "a", "compute_class": "c", "gpu_quota": 1}]},
     "flavors[0].node_pool", "one of them"),
    ({"flavors": [{"node_pool": "a", "gpu_quota": 1, "name": "x"},
                  {"node_pool": "b", "gpu_quota": 1, "name": "x"}]}, "flavors", "names two"),
    ({"flavors": FALLBACK, "gpu_quota": 8}, "gpu_quota", "goes on each of flavors"),
    ({"flavors": FALLBACK, "node_pool": "p"}, "node_pool", "one of them"),
    ({"flavors": [{"node_pool": "a", "gpu_quota": 8, "provisioning_request": False}],
      "pod_set_merge_policy": MERGE}, "pod_set_merge_policy", "only applies to ProvisioningReq"),
    ({"node_pool": "p", "gpu_quota": 8, "pod_set_merge_policy": "Identical"},
     "pod_set_merge_policy", "IdenticalWorkloadSchedulingRequirements"),
    ({"node_pool": "p", "gpu_quota": 8, "kueue_version": "0.10.2", "api_version": "v1beta1"},
     "kueue_version", "oldest release"),
    ({"node_pool": "p", "gpu_quota": 8, "kueue_version": "0.13.0"}, "kueue_version", "v1beta2"),
    ({"node_pool": "p", "gpu_quota": 8, "provisioning_parameters": {"maxRunDurationSeconds": "1"}},
     "provisioning_parameters[maxRunDurationSeconds]", "max_run_duration"),
    ({"node_pool": "p", "gpu_quota": 8, "provisioning_parameters": {"k": "v" * 256}},
     "provisioning_parameters[k]", "255 characters"),
    ({"node_pool": "p", "gpu_quota": 8, "topology": ["cloud.google.com/gce-topology-block"] * 2},
     "topology", "twice"),
    ({"node_pool": "p", "tpu_quota": 8, "topology": True}, "topology", "TPU chips"),
]  # fmt: skip


@pytest.mark.parametrize(("args", "field", "fragment"), FLAVOR_REJECTIONS)
def test_each_bad_queue_is_one_clear_error(args: dict[str, Any], field: str, fragment: str) -> None:
    args = dict(args)
    with pytest.raises(DwsValidationError) as info:
        kueue_manifests(args.pop("node_pool", None), ["ml"], **args)
    assert info.value.field == field, str(info.value)
    assert fragment in str(info.value), str(info.value)


def test_two_tpu_topologies_need_two_queues() -> None:
    def program(made: dict[str, Any]) -> None:
        tpu = {"location": "us-east5", "node_locations": ["us-east5-b"], "max_nodes": None,
               "machine_type": "ct6e-standard-4t"}  # fmt: skip
        KueueQueue(
            "tpu",
            {"flavors": [{"node_pool": pool("s1", **tpu, tpu_topology="4x4")},
                         {"node_pool": pool("s2", **tpu, tpu_topology="2x4")}],
             "namespaces": ["ml"]},
        )  # fmt: skip

    with pytest.raises(DwsValidationError, match="^flavors: .*one ProvisioningRequestConfig"):
        run(program)


# ----------------------------------------------------------------------- the component
def fallback(made: dict[str, Any], **queue: Any) -> None:
    block = CalendarReservation(
        "h200-block",
        {"zone": "us-central1-b", "machine_type": "a3-ultragpu-8g", "count": 2,
         "start_time": "+4w", "duration": "7d"},
    )  # fmt: skip
    made["reserved"] = pool("h200-reserved", mode="reserved", reservation=block, max_nodes=2)
    made["queued"] = pool("h200-queued", node_locations=["us-central1-b"])
    args = {"flavors": [{"node_pool": made["reserved"]}, {"node_pool": made["queued"]}],
            "namespaces": ["ml"], "pod_set_merge_policy": MERGE, "max_run_duration": "1d", **queue}  # fmt: skip
    made["q"] = KueueQueue("train", {k: v for k, v in args.items() if v is not None})  # type: ignore[arg-type]


def test_the_component_registers_flavors_in_order_with_the_pools_quotas() -> None:
    mocks, made = run(fallback)
    q = made["q"]
    assert q.flavor_names == ["train-reserved", "train-queued"]
    assert q.resource_flavor_name == "train-reserved"
    [cq] = mocks.resources("kubernetes:kueue.x-k8s.io/v1beta2:ClusterQueue")
    flavors = cq.inputs["spec"]["resourceGroups"][0]["flavors"]
    gpus = [
        {r["name"]: r["nominalQuota"] for r in f["resources"]}["nvidia.com/gpu"] for f in flavors
    ]
    assert gpus == [16, 32]  # 2 and 4 nodes of 8 GPUs
    names = sorted(r.name for r in mocks.resources() if r.type.startswith("kubernetes:kueue"))
    assert "train-flavor-reserved" in names and "train-flavor-queued" in names
    for r in mocks.resources():
        if r.type.startswith("kubernetes:kueue"):
            validate({k: v for k, v in r.inputs.items() if k != "__provider"})
            if r.inputs["kind"] == "ClusterQueue":
                flavor_urns = {
                    f.urn for f in mocks.resources() if f.inputs.get("kind") == "ResourceFlavor"
                }
                assert flavor_urns <= set(r.dependencies)


def test_merged_pod_sets_can_start_on_the_queued_pool() -> None:
    """The design around kubernetes-sigs/kueue#14408: the queued flavor tolerates the
    gke-queued taint, so merged pod sets that lose the request's update still schedule."""
    mocks, _ = run(fallback)
    flavors = {
        r.inputs["metadata"]["name"]: r.inputs["spec"]
        for r in mocks.resources("kubernetes:kueue.x-k8s.io/v1beta2:ResourceFlavor")
    }
    assert QUEUED_TOLERATION in flavors["train-queued"]["tolerations"]
    assert QUEUED_TOLERATION not in flavors["train-reserved"]["tolerations"]
    [prc] = mocks.resources("kubernetes:kueue.x-k8s.io/v1beta2:ProvisioningRequestConfig")
    assert prc.inputs["spec"]["podSetUpdates"] == POD_SET_UPDATES
    assert prc.inputs["spec"]["podSetMergePolicy"] == MERGE


# ----------------------------------------------------------------------- jobs
def ray(made: dict[str, Any], **over: Any) -> dict[str, Any]:
    args = {"queue": made["q"], "image": "rayproject/ray:2.46.0-gpu",
            "entrypoint": "python train.py", "workers": 3, "gpus": 8, "namespace": "ml", **over}  # fmt: skip
    return kueue_ray_job("train", **args)


def test_a_ray_job_with_head_and_workers_gets_one_merged_request() -> None:
    def program(made: dict[str, Any]) -> None:
        fallback(made)
        made["job"] = ray(made, max_run_duration="1d")

    _, made = run(program)
    job, queue = made["job"], made["q"]
    assert [p.name for p in workload_pod_sets(job)] == ["head", "workers"]  # HTTPMode
    [request] = provisioning_request_pod_sets(job, queue)
    assert request.names == ("head", "workers") and request.count == 4
    assert job["metadata"]["labels"] == {"kueue.x-k8s.io/queue-name": "train-local-queue"}
    assert job["metadata"]["annotations"] == {
        "provreq.kueue.x-k8s.io/maxRunDurationSeconds": "86400"
    }
    assert job["spec"]["suspend"] is True
    cluster = job["spec"]["rayClusterSpec"]
    head = cluster["headGroupSpec"]["template"]["spec"]
    worker = cluster["workerGroupSpecs"][0]["template"]["spec"]
    assert head["tolerations"] == worker["tolerations"] and QUEUED_TOLERATION in head["tolerations"]
    assert (
        head.get("nodeSelector") == worker.get("nodeSelector") is None
    )  # two flavors: Kueue picks
    assert head["containers"][0]["resources"] == worker["containers"][0]["resources"]


@pytest.mark.parametrize(
    ("queue", "fragment"),
    [
        ({"pod_set_merge_policy": None}, "set the queue's pod_set_merge_policy"),
        ({"pod_set_merge_policy": None, "kueue_version": "0.11.9", "api_version": "v1beta1"},
         "Kueue 0.11.9 cannot merge pod sets"),
    ],
)  # fmt: skip
def test_without_merging_the_ray_job_is_refused_with_the_reason(
    queue: dict[str, Any], fragment: str
) -> None:
    def program(made: dict[str, Any]) -> None:
        fallback(made, **queue)
        ray(made)

    with pytest.raises(DwsValidationError) as info:
        run(program)
    assert info.value.field == "queue"
    assert "2 pod sets (head, workers)" in str(info.value) and fragment in str(info.value)
    assert "ray-project/ray#57839" in str(info.value)


def test_a_head_without_gpus_needs_no_merging() -> None:
    def program(made: dict[str, Any]) -> None:
        made["q"] = KueueQueue(
            "plain", {"node_pool": pool("a3u"), "namespaces": ["ml"], "api_version": "v1beta1",
                      "kueue_version": "0.11.9"},
        )  # fmt: skip
        made["job"] = ray(made, head_accelerators=False)

    _, made = run(program)
    [request] = provisioning_request_pod_sets(made["job"], made["q"])
    assert request.names == ("workers",) and request.count == 3
    head = made["job"]["spec"]["rayClusterSpec"]["headGroupSpec"]["template"]["spec"]
    assert "nvidia.com/gpu" not in head["containers"][0]["resources"]["requests"]
    assert head["nodeSelector"] == {"cloud.google.com/gke-nodepool": made["q"].flavors[0].pool_name}


def test_heads_and_workers_that_differ_do_not_merge() -> None:
    def program(made: dict[str, Any]) -> None:
        fallback(made)
        job = ray(made, cpu=16)
        job["spec"]["rayClusterSpec"]["headGroupSpec"]["template"]["spec"]["containers"][0][
            "resources"
        ]["requests"]["cpu"] = 8
        made["groups"] = provisioning_request_pod_sets(job, made["q"])

    _, made = run(program)
    assert [g.names for g in made["groups"]] == [("head",), ("workers",)]


def test_a_jobset_with_a_leader_and_workers_gets_one_request() -> None:
    def program(made: dict[str, Any]) -> None:
        fallback(made)
        made["job"] = kueue_jobset(
            "train", queue=made["q"], image="img", workers=4, gpus=8, namespace="ml",
            command=["python", "train.py"],
        )  # fmt: skip

    _, made = run(program)
    job = made["job"]
    assert job["apiVersion"] == "jobset.x-k8s.io/v1alpha2" and job["spec"]["suspend"] is True
    [request] = provisioning_request_pod_sets(job, made["q"])
    assert request.names == ("leader", "workers") and request.count == 5


def test_topology_aware_jobs_ask_for_a_level_of_the_queue() -> None:
    def program(made: dict[str, Any]) -> None:
        fallback(made, topology=True)
        made["job"] = ray(made, topology="cloud.google.com/gce-topology-block")
        with pytest.raises(DwsValidationError, match="^topology: rack is not a level"):
            ray(made, topology="rack")

    _, made = run(program)
    head = made["job"]["spec"]["rayClusterSpec"]["headGroupSpec"]["template"]
    assert head["metadata"]["annotations"] == {
        REQUIRED_TOPOLOGY_ANNOTATION: "cloud.google.com/gce-topology-block"
    }


def test_autopilot_jobs_name_a_class_or_an_accelerator() -> None:
    def program(made: dict[str, Any]) -> None:
        cls = ComputeClass(
            "h200",
            {"cluster": "c", "location": "us-central1", "machine_type": "a3-ultragpu-8g",
             "autopilot": True, "priorities": [{"capacity": "flex_start", "max_run_duration": "1d"}]},
        )  # fmt: skip
        made["q"] = KueueQueue(
            "ap", {"flavors": [{"compute_class": cls, "gpu_quota": 32}], "namespaces": ["ml"]}
        )
        made["job"] = ray(made, autopilot=True)
        made["q2"] = KueueQueue(
            "ap2", {"flavors": [{"compute_class": "h200", "gpu_quota": 32},
                                {"compute_class": "other", "gpu_quota": 8}],
                    "namespaces": ["ml"], "cluster": "c", "location": "us-central1"},
        )  # fmt: skip
        with pytest.raises(DwsValidationError, match="^compute_class: .*Autopilot"):
            ray({"q": made["q2"]}, autopilot=True)

    _, made = run(program)
    head = made["job"]["spec"]["rayClusterSpec"]["headGroupSpec"]["template"]["spec"]
    assert head["nodeSelector"] == {"cloud.google.com/compute-class": "h200"}


# ----------------------------------------------------------------------- Kueue's merge model
def pod_set(name: str, **spec: Any) -> PodSet:
    base: dict[str, Any] = {
        "containers": [{"name": "c", "resources": {"requests": {"nvidia.com/gpu": 8}}}]
    }
    return PodSet(name, 1, {"spec": {**base, **spec}})


def test_kueue_compares_quantities_and_empty_fields_semantically() -> None:
    a = pod_set("a")
    b = PodSet("b", 2, {"spec": {"containers": [{"name": "x", "resources": {"requests": {"nvidia.com/gpu": "8"}}}],
                                 "nodeSelector": {}}})  # fmt: skip
    assert difference(a, b, MERGE) is None
    assert difference(a, b, "IdenticalPodTemplates") == "their Pod templates"
    [merged] = merged_pod_sets([a, b], MERGE)
    assert merged.names == ("a", "b") and merged.count == 3
    assert len(merged_pod_sets([a, b], None)) == 2
    c = pod_set("c", tolerations=[{"key": "k", "operator": "Exists"}])
    assert difference(a, c, MERGE) == "their tolerations"
    d = PodSet("d", 1, {"spec": {"containers": [*a.pod_spec["containers"], {"name": "side"}]}})
    assert difference(a, d, MERGE) == "the number of containers (1 and 2)"
    e = pod_set("e", initContainers=[{"name": "i", "resources": {"requests": {"cpu": "1"}}}])
    assert difference(a, e, MERGE) == "the number of initContainers (0 and 1)"


def test_a_queue_of_classes_given_their_provider_asks_for_one_too() -> None:
    import pulumi
    import pulumi_kubernetes as kubernetes

    def program(made: dict[str, Any]) -> None:
        given = kubernetes.Provider("mine", kubeconfig="{}")
        cls = ComputeClass(
            "h200",
            {"machine_type": "a3-ultragpu-8g", "priorities": [{"capacity": "spot"}]},
            pulumi.ResourceOptions(provider=given),
        )
        made["args"] = {"flavors": [{"compute_class": cls, "gpu_quota": 8}], "namespaces": ["ml"]}
        with pytest.raises(DwsValidationError, match="^cluster: .*ComputeClass given its provider"):
            KueueQueue("q", made["args"])
        KueueQueue("q", made["args"], pulumi.ResourceOptions(provider=given))

    mocks, _ = run(program)
    assert [p.name for p in mocks.resources("pulumi:providers:kubernetes")] == ["mine"]
    assert mocks.resources("dws:index:KueueQueue")  # the second one, with the provider


def test_blueprint_flavors_name_declared_pools_and_classes() -> None:
    from pulumi_dws.blueprint import validate_capacity

    capacity: dict[str, Any] = {
        "compute_classes": [
            {"name": "h200", "machine_type": "a3-ultragpu-8g", "cluster": "c",
             "location": "us-central1", "priorities": [{"capacity": "spot"}]},
        ],
        "queued_node_pools": [
            {"name": "h200-queued", "cluster": "c", "location": "us-central1",
             "machine_type": "a3-ultragpu-8g", "max_nodes": 4},
        ],
        "kueue_queues": [
            {"name": "q", "cluster": "c", "location": "us-central1", "namespaces": ["ml"],
             "flavors": [{"compute_class": "h200", "gpu_quota": 8},
                         {"node_pool": "h200-queued", "gpu_quota": 32}]},
        ],
    }  # fmt: skip
    assert len(validate_capacity(capacity)) == 3
    wrong = copy.deepcopy(capacity)
    wrong["kueue_queues"][0]["flavors"][0]["compute_class"] = "h2000"
    with pytest.raises(DwsValidationError) as info:
        validate_capacity(wrong)
    assert info.value.field == "dws:capacity.kueue_queues[0].flavors[0].compute_class"
    assert "did you mean h200?" in str(info.value)
    wrong = copy.deepcopy(capacity)
    wrong["kueue_queues"][0]["flavors"][1]["node_pool"] = "other"
    with pytest.raises(
        DwsValidationError, match=r"flavors\[1\]\.node_pool: other names no node pool"
    ):
        validate_capacity(wrong)


# ----------------------------------------------------------------------- whole numbers
def test_whole_floats_are_counts_as_in_every_other_component() -> None:
    """``32.0`` (YAML, JSON, or an Output the engine resolved: its numbers are floats) is 32,
    as QueuedNodePool's max_nodes and QueuedTpu's node_count take it; 32.5 and "32" are not."""
    import pulumi

    mocks = GcpMocks()

    def program() -> None:
        cls = ComputeClass(
            "h200",
            {"cluster": "ml", "location": "us-central1", "machine_type": "a3-ultragpu-8g",
             "priorities": [{"capacity": "spot"}]},
        )  # fmt: skip
        family = ComputeClass(
            "l4",
            {"cluster": "ml", "location": "us-central1", "gpu_type": "nvidia-l4",
             "gpu_count": 1.0, "priorities": [{"capacity": "spot", "gpu_count": 2.0}]},
        )  # fmt: skip
        KueueQueue(
            "named",
            {"node_pool": "p", "gpu_quota": pulumi.Output.from_input(32.0), "cluster": "ml",
             "location": "us-central1", "namespaces": ["ml"]},
        )  # fmt: skip
        KueueQueue(
            "tpu",
            {"node_pool": "v6e", "tpu_quota": 16.0, "cluster": "ml", "location": "us-east5",
             "namespaces": ["ml"]},
        )  # fmt: skip
        KueueQueue(
            "classes",
            {"flavors": [{"compute_class": cls, "gpu_quota": 16.0},
                         {"compute_class": family, "gpu_quota": pulumi.Output.from_input(8.0)}],
             "namespaces": ["ml"]},
        )  # fmt: skip
        assert family.priorities[0]["per_node"] == 2

    mocks.run(program)
    quotas = {
        q.inputs["metadata"]["name"]: [
            r["nominalQuota"]
            for f in q.inputs["spec"]["resourceGroups"][0]["flavors"]
            for r in f["resources"]
            if r["name"] in ("nvidia.com/gpu", "google.com/tpu")
        ]
        for q in mocks.resources("kubernetes:kueue.x-k8s.io/v1beta2:ClusterQueue")
    }
    assert quotas == {
        "named-cluster-queue": [32],
        "tpu-cluster-queue": [16],
        "classes-cluster-queue": [16, 8],
    }
    for bad in (32.5, "32", True):
        with pytest.raises(DwsValidationError, match="^gpu_quota: "):
            kueue_manifests("p", ["ml"], bad)  # type: ignore[arg-type]


# ----------------------------------------------------------------------- the CRDs' bounds
def _max_items(kueue_version: str, kind: str, *path: str) -> int:
    from kueue_helpers import vendored

    entry = vendored()["versions"][kueue_version]["crds"][kind]
    schema = vendored()["schemas"][entry[max(entry)]["schema"]]
    node = schema
    for step in path:
        node = node["items"] if step == "[]" else node["properties"][step]
    return int(node["maxItems"])


@pytest.mark.parametrize("kueue_version", kueue_versions())
def test_flavors_and_levels_stay_within_what_each_release_takes(kueue_version: str) -> None:
    """A ClusterQueue takes 16 flavors up to Kueue 0.13 and 64 from 0.14; a Topology 8 levels up
    to 0.12 and 16 from 0.13 (the vendored CRDs): one more is refused at construction, not by
    the API server."""
    api = api_versions(kueue_version)[-1]
    most = _max_items(kueue_version, "ClusterQueue", "spec", "resourceGroups", "[]", "flavors")
    levels = _max_items(kueue_version, "Topology", "spec", "levels")
    keys = [f"example.com/level-{i}" for i in range(levels - 1)] + ["kubernetes.io/hostname"]

    def queue(flavors: int, topology: list[str]) -> list[dict[str, Any]]:
        return kueue_manifests(
            None,
            ["ml"],
            name="q",
            api_version=api,
            kueue_version=kueue_version,
            topology=topology,
            flavors=[{"node_pool": f"p{i}", "gpu_quota": 8} for i in range(flavors)],
        )

    for obj in queue(most, keys):
        validate(obj, kueue_version)
    with pytest.raises(DwsValidationError, match=f"^flavors: .*at most {most}"):
        queue(most + 1, keys[:1])
    with pytest.raises(DwsValidationError, match=f"^topology: .*at most {levels}"):
        queue(1, ["example.com/extra", *keys])


def test_the_hostname_level_comes_last() -> None:
    """Kueue's Topology CEL rule: kubernetes.io/hostname only at the lowest level."""
    with pytest.raises(DwsValidationError, match=r"^topology\[0\]: kubernetes.io/hostname .*last"):
        kueue_manifests(
            "p",
            ["ml"],
            8,
            topology=["kubernetes.io/hostname", "cloud.google.com/gce-topology-block"],
        )


def test_parameters_count_with_the_ones_the_queue_sets() -> None:
    """The CRD takes at most 100 parameters, counting maxRunDurationSeconds and tpu-topology."""
    hundred = {f"p{i}": "v" for i in range(100)}
    [config] = by_kind(
        kueue_manifests("p", ["ml"], 8, provisioning_parameters=hundred),
        "ProvisioningRequestConfig",
    )
    validate(config)
    with pytest.raises(DwsValidationError, match="^provisioning_parameters: .*100"):
        kueue_manifests("p", ["ml"], 8, provisioning_parameters=hundred, max_run_duration="1d")


# ----------------------------------------------------------------------- what a job asks for
def test_a_command_is_a_list_of_strings() -> None:
    """A container's ``command`` is a list: a string would be split into its characters."""
    from pulumi_dws.kueue import kueue_job

    def program(made: dict[str, Any]) -> None:
        fallback(made)
        for helper, extra in ((kueue_job, {}), (kueue_jobset, {"workers": 2})):
            with pytest.raises(
                DwsValidationError, match="^command: python train.py must be a list"
            ):
                helper("j", queue=made["q"], image="img", gpus=8, namespace="ml",
                       command="python train.py", **extra)  # fmt: skip
            with pytest.raises(DwsValidationError, match=r"^command\[1\]: 3 must be a string"):
                helper("j", queue=made["q"], image="img", gpus=8, namespace="ml",
                       command=["python", 3], **extra)  # fmt: skip
        made["job"] = kueue_job("j", queue=made["q"], image="img", gpus=8, namespace="ml",
                                command=("python", "train.py"))  # fmt: skip

    _, made = run(program)
    [container] = made["job"]["spec"]["template"]["spec"]["containers"]
    assert container["command"] == ["python", "train.py"]


def test_a_pod_asks_for_no_more_gpus_than_a_node_of_the_queue_has() -> None:
    """a3-ultragpu-8g nodes have 8 GPUs: a Pod asking for 9 (or 16) would never be scheduled,
    and DWS would provision nodes it cannot use."""
    from pulumi_dws.kueue import kueue_job

    def program(made: dict[str, Any]) -> None:
        fallback(made)
        for make in (
            lambda gpus: kueue_job("j", queue=made["q"], image="img", gpus=gpus, namespace="ml"),
            lambda gpus: ray(made, gpus=gpus),
            lambda gpus: kueue_jobset("j", queue=made["q"], image="img", workers=2, gpus=gpus,
                                      namespace="ml"),
        ):  # fmt: skip
            with pytest.raises(DwsValidationError, match="^gpus: 16 .*8 GPUs"):
                make(16)
            make(4)

    run(program)


def test_accelerator_type_names_a_gpu_of_the_queue() -> None:
    """``accelerator_type`` becomes the node selector cloud.google.com/gke-accelerator: an
    unknown name, or another GPU than the queue's nodes carry, would match no node."""

    def program(made: dict[str, Any]) -> None:
        fallback(made)
        with pytest.raises(
            DwsValidationError, match="^accelerator_type: nvidia-h100 is not a known"
        ):
            ray(made, accelerator_type="nvidia-h100")
        with pytest.raises(
            DwsValidationError, match="^accelerator_type: nvidia-l4 .*nvidia-h200-141gb"
        ):
            ray(made, accelerator_type="nvidia-l4")
        made["job"] = ray(made, accelerator_type="nvidia-h200-141gb")

    _, made = run(program)
    head = made["job"]["spec"]["rayClusterSpec"]["headGroupSpec"]["template"]["spec"]
    assert head["nodeSelector"] == {"cloud.google.com/gke-accelerator": "nvidia-h200-141gb"}


def test_a_tpu_job_selects_its_accelerator_by_the_tpu_label() -> None:
    """TPU nodes carry cloud.google.com/gke-tpu-accelerator (not gke-accelerator)."""
    from pulumi_dws.catalog import TPU_ACCELERATOR_LABEL

    def program(made: dict[str, Any]) -> None:
        v6e = pool("v6e", location="us-east5", node_locations=["us-east5-b"], max_nodes=None,
                   machine_type="ct6e-standard-4t", tpu_topology="2x2")  # fmt: skip
        made["q"] = KueueQueue("tpu", {"node_pool": v6e, "namespaces": ["ml"]})
        with pytest.raises(DwsValidationError, match="^accelerator_type: tpu-v5-lite-podslice"):
            kueue_jobset("j", queue=made["q"], image="img", workers=1, tpu_chips=4,
                         namespace="ml", accelerator_type="tpu-v5-lite-podslice", leader=False)  # fmt: skip
        made["job"] = kueue_jobset("j", queue=made["q"], image="img", workers=1, tpu_chips=4,
                                   namespace="ml", accelerator_type="tpu-v6e-slice", leader=False)  # fmt: skip

    _, made = run(program)
    spec = made["job"]["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]
    assert spec["nodeSelector"][TPU_ACCELERATOR_LABEL] == "tpu-v6e-slice"
    assert "cloud.google.com/gke-accelerator" not in spec["nodeSelector"]


# ----------------------------------------------------------------------- blueprint = Python
V6E_POOL = {"cluster": "ml", "location": "us-east5", "node_locations": ["us-east5-b"],
            "machine_type": "ct6e-standard-4t", "tpu_topology": "4x4"}  # fmt: skip
H200_CLASS = {"cluster": "ml", "location": "us-central1", "machine_type": "a3-ultragpu-8g",
              "priorities": [{"capacity": "flex_start"}]}  # fmt: skip


def _kueue_specs(mocks: GcpMocks) -> dict[str, Any]:
    return {
        f"{r.inputs['kind']}/{r.inputs['metadata']['name']}": r.inputs["spec"]
        for r in mocks.resources()
        if r.type.startswith("kubernetes:kueue.x-k8s.io/")
    }


def test_a_blueprint_queue_is_the_queue_python_makes_of_the_same_pool_and_class() -> None:
    """A queue naming a declared pool (or class) is given that component, as a program passes
    it: a TPU pool's flavor selects the slice's labels and its ProvisioningRequestConfig
    passes tpu-topology, whichever way the queue was declared."""
    from pulumi_dws.blueprint import deploy

    capacity = {
        "kueue_queues": [  # declared before what it names
            {"name": "tpu", "node_pool": "v6e", "tpu_quota": 16, "namespaces": ["ml"],
             "cluster": "ml", "location": "us-east5"},
            {"name": "gpu", "flavors": [{"compute_class": "h200", "gpu_quota": 16}],
             "namespaces": ["ml"], "cluster": "ml", "location": "us-central1"},
        ],
        "queued_node_pools": [{"name": "v6e", **V6E_POOL}],
        "compute_classes": [{"name": "h200", **H200_CLASS}],
    }  # fmt: skip
    from_config = GcpMocks()
    from_config.run(lambda: deploy(capacity))

    def program() -> None:
        pool = QueuedNodePool("v6e", V6E_POOL)  # type: ignore[arg-type]
        cls = ComputeClass("h200", H200_CLASS)  # type: ignore[arg-type]
        KueueQueue("tpu", {"node_pool": pool, "tpu_quota": 16, "namespaces": ["ml"]})
        KueueQueue("gpu", {"flavors": [{"compute_class": cls, "gpu_quota": 16}],
                           "namespaces": ["ml"]})  # fmt: skip

    from_python = GcpMocks()
    from_python.run(program)
    assert _kueue_specs(from_config) == _kueue_specs(from_python)
    flavor = _kueue_specs(from_config)["ResourceFlavor/tpu-flavor"]
    assert flavor["nodeLabels"]["cloud.google.com/gke-tpu-topology"] == "4x4"
    config = _kueue_specs(from_config)["ProvisioningRequestConfig/tpu-config"]
    assert config["parameters"] == {"tpu-topology": "4x4"}


@pytest.mark.parametrize(
    ("flavor", "queue", "field", "fragment"),
    [
        ({"compute_class": "h200", "tpu_quota": 8}, {}, "flavors[0].tpu_quota",
         "GPUs"),
        ({"compute_class": "h200", "gpu_quota": 8}, {"cluster": "other"}, "cluster",
         "differs from the cluster of ComputeClass h200"),
    ],
)  # fmt: skip
def test_a_queue_and_its_class_agree_in_the_blueprint_and_in_python(
    flavor: dict[str, Any], queue: dict[str, Any], field: str, fragment: str
) -> None:
    from pulumi_dws.blueprint import validate_capacity

    args = {"namespaces": ["ml"], "cluster": "ml", "location": "us-central1", **queue}
    capacity = {
        "compute_classes": [{"name": "h200", **H200_CLASS}],
        "kueue_queues": [{"name": "q", "flavors": [flavor], **args}],
    }
    with pytest.raises(DwsValidationError) as info:
        validate_capacity(capacity)
    assert info.value.field == f"dws:capacity.kueue_queues[0].{field}", str(info.value)
    assert fragment in str(info.value), str(info.value)

    def program() -> None:
        cls = ComputeClass("h200", H200_CLASS)  # type: ignore[arg-type]
        KueueQueue("q", {"flavors": [{**flavor, "compute_class": cls}], **args})  # type: ignore[typeddict-item]

    with pytest.raises(DwsValidationError) as in_python:
        GcpMocks().run(program)
    assert in_python.value.field == field, str(in_python.value)


@pytest.mark.parametrize("cluster", ["ML Cluster", "", "projects/p/clusters/x"])
def test_a_queue_checks_its_cluster_as_a_node_pool_does(cluster: str) -> None:
    """The name goes into a GKE API lookup (the Kubernetes provider): checked at construction."""
    with pytest.raises(DwsValidationError, match="^cluster: "):
        GcpMocks().run(
            lambda: KueueQueue(
                "q",
                {
                    "node_pool": "p",
                    "gpu_quota": 8,
                    "namespaces": ["ml"],
                    "cluster": cluster,
                    "location": "us-central1",
                },
            )  # fmt: skip
        )
    with pytest.raises(DwsValidationError, match="^cluster: "):
        GcpMocks().run(lambda: pool("p", cluster=cluster))


def test_flavors_are_known_but_their_quotas_may_be_outputs() -> None:
    """The list of flavors decides the ResourceFlavors (an Output for it, or for one flavor,
    is refused with the reason); a flavor's quota is only written, so it may be an Output. A
    flavor's name is known too: it names a resource (once an Output leaked into the name)."""
    import pulumi

    base = {"namespaces": ["ml"], "cluster": "ml", "location": "us-central1"}
    flavor = {"node_pool": "p", "gpu_quota": 8}
    for flavors, field in (
        (pulumi.Output.from_input([flavor]), "flavors"),
        ([pulumi.Output.from_input(flavor)], "flavors[0]"),
        ([{**flavor, "name": pulumi.Output.from_input("first")}], "flavors[0].name"),
    ):
        with pytest.raises(DwsValidationError) as info:
            GcpMocks().run(lambda f=flavors: KueueQueue("q", {**base, "flavors": f}))  # type: ignore[typeddict-item]
        assert info.value.field == field, str(info.value)
        assert "must be known when the program runs" in str(info.value)
    quota = [{**flavor, "gpu_quota": pulumi.Output.from_input(8)}]
    GcpMocks().run(lambda: KueueQueue("q", {**base, "flavors": quota}))  # type: ignore[typeddict-item]
