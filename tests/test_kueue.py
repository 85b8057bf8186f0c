"""KueueQueue, the Kueue manifests (against the real CRD schemas), the Job helper, the stack."""

from __future__ import annotations

import copy
import importlib.util
import json
from pathlib import Path
from typing import Any

import pulumi
import pulumi_kubernetes as kubernetes
import pytest
import yaml
from kueue_helpers import CRD_SCHEMAS, validate

from pulumi_dws.errors import DwsValidationError
from pulumi_dws.kinds.kueue.component import (
    KUEUE_CHART,
    KUEUE_VERSION,
    MAX_RUN_DURATION_ANNOTATION,
    QUEUE_NAME_LABEL,
    KueueQueue,
    kueue_job,
    kueue_job_fields,
    kueue_manifests,
)
from pulumi_dws.kinds.node_pool.component import QueuedNodePool
from pulumi_dws.testing import GcpMocks

REPO = Path(__file__).resolve().parent.parent
TYPE = "dws:index:KueueQueue"
KINDS = ("ResourceFlavor", "ProvisioningRequestConfig", "AdmissionCheck", "ClusterQueue")


def manifests(**over: Any) -> list[dict[str, Any]]:
    return kueue_manifests("a3-queued", ["default", "research"], 32, **over)


def by_kind(objs: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [o for o in objs if o["kind"] == kind]


@pytest.mark.parametrize("api_version", ["v1beta2", "v1beta1"])
@pytest.mark.parametrize(
    "over",
    [
        {},
        {"max_run_duration": "6h", "retry_strategy": {"backoff_limit_count": 0}},
        {"provisioning_request": False, "queueing_strategy": "StrictFIFO"},
        {"cpu_quota": "500", "memory_quota": "4Ti", "local_queue_name": "gpu"},
    ],
)
def test_every_object_validates_against_the_crd(api_version: str, over: dict[str, Any]) -> None:
    objs = manifests(api_version=api_version, **over)
    kinds = [o["kind"] for o in objs]
    expected = list(KINDS) if over.get("provisioning_request", True) else ["ResourceFlavor"]
    expected = [*expected, "ClusterQueue"] if "ClusterQueue" not in expected else expected
    assert kinds == [*expected, "LocalQueue", "LocalQueue"]
    for obj in objs:
        assert obj["apiVersion"] == f"kueue.x-k8s.io/{api_version}"
        validate(obj)


def test_the_schema_check_can_fail() -> None:
    cq = by_kind(manifests(), "ClusterQueue")[0]
    wrong = copy.deepcopy(cq)
    wrong["spec"]["admissionChecks"] = ["dws-prov"]  # removed from v1beta2
    with pytest.raises(AssertionError, match="admissionChecks"):
        validate(wrong)
    v1 = by_kind(manifests(api_version="v1beta1"), "ClusterQueue")[0]
    validate(v1)  # ...but still part of v1beta1
    flavor = copy.deepcopy(by_kind(manifests(), "ResourceFlavor")[0])
    flavor["spec"]["nodeLabels"]["x"] = 3
    with pytest.raises(AssertionError, match="nodeLabels"):
        validate(flavor)


@pytest.mark.parametrize("api_version", ["v1beta2", "v1beta1"])
def test_pods_land_on_the_nodes_provisioned_for_them(api_version: str) -> None:
    """The ProvisioningRequestConfig carries xpk's podSetUpdates (a nodeSelector on GKE's
    provisioning-request label, valued from the request's ResizeRequestName), valid in both
    CRD versions; a malformed one is refused by the same schema."""
    config = by_kind(manifests(api_version=api_version), "ProvisioningRequestConfig")[0]
    assert config["spec"]["podSetUpdates"] == {
        "nodeSelector": [
            {
                "key": "autoscaling.gke.io/provisioning-request",
                "valueFromProvisioningClassDetail": "ResizeRequestName",
            }
        ]
    }
    validate(config)
    wrong = copy.deepcopy(config)
    del wrong["spec"]["podSetUpdates"]["nodeSelector"][0]["valueFromProvisioningClassDetail"]
    with pytest.raises(AssertionError, match="valueFromProvisioningClassDetail"):
        validate(wrong)


def test_admission_check_is_wired_for_the_api_version() -> None:
    v2 = by_kind(manifests(), "ClusterQueue")[0]["spec"]
    assert v2["admissionChecksStrategy"] == {"admissionChecks": [{"name": "dws-prov"}]}
    assert "admissionChecks" not in v2
    v1 = by_kind(manifests(api_version="v1beta1"), "ClusterQueue")[0]["spec"]
    assert v1["admissionChecks"] == ["dws-prov"] and "admissionChecksStrategy" not in v1
    plain = by_kind(manifests(provisioning_request=False), "ClusterQueue")[0]["spec"]
    assert "admissionChecks" not in plain and "admissionChecksStrategy" not in plain


def test_manifest_contents() -> None:
    objs = manifests(max_run_duration="6h")
    flavor, config, check, cq, lq, _ = objs
    assert flavor["metadata"] == {"name": "dws-flavor"}
    assert flavor["spec"]["nodeLabels"] == {"cloud.google.com/gke-nodepool": "a3-queued"}
    assert {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"} in flavor[
        "spec"
    ]["tolerations"]
    assert config["spec"] == {
        "provisioningClassName": "queued-provisioning.gke.io",
        "managedResources": ["nvidia.com/gpu"],
        "podSetUpdates": {
            "nodeSelector": [
                {
                    "key": "autoscaling.gke.io/provisioning-request",
                    "valueFromProvisioningClassDetail": "ResizeRequestName",
                }
            ]
        },
        "retryStrategy": {
            "backoffLimitCount": 3,
            "backoffBaseSeconds": 60,
            "backoffMaxSeconds": 1800,
        },
        "parameters": {"maxRunDurationSeconds": "21600"},
    }
    assert check["spec"] == {
        "controllerName": "kueue.x-k8s.io/provisioning-request",
        "parameters": {
            "apiGroup": "kueue.x-k8s.io",
            "kind": "ProvisioningRequestConfig",
            "name": "dws-config",
        },
    }
    group = cq["spec"]["resourceGroups"][0]
    assert group["coveredResources"][-1] == "nvidia.com/gpu"
    assert group["flavors"][0]["name"] == "dws-flavor"
    quota = {r["name"]: r["nominalQuota"] for r in group["flavors"][0]["resources"]}
    assert quota["nvidia.com/gpu"] == 32
    assert cq["spec"]["namespaceSelector"]["matchExpressions"][0]["values"] == [
        "default",
        "research",
    ]
    assert lq["metadata"] == {"name": "dws-local-queue", "namespace": "default"}
    assert lq["spec"] == {"clusterQueue": "dws-cluster-queue"}


# ----------------------------------------------------------------------- the component
def pool_args(**over: Any) -> dict[str, Any]:
    args: dict[str, Any] = {
        "cluster": "ml-cluster",
        "location": "us-central1",
        "machine_type": "a3-highgpu-8g",
        "max_nodes": 3,
    }
    args.update(over)
    return args


def build(
    queue_args: dict[str, Any] | None = None,
    pool: dict[str, Any] | None = None,
    opts: pulumi.ResourceOptions | None = None,
) -> tuple[GcpMocks, dict[str, Any]]:
    mocks = GcpMocks()
    made: dict[str, Any] = {}

    def program() -> None:
        made["pool"] = QueuedNodePool("a3-queued", pool_args(**(pool or {})))
        args = {"node_pool": made["pool"], "namespaces": ["default"], **(queue_args or {})}
        made["queue"] = KueueQueue("dws", args, opts)

    mocks.run(program)
    return mocks, made


def cr(mocks: GcpMocks, kind: str, version: str = "v1beta2") -> list[Any]:
    return mocks.resources(f"kubernetes:kueue.x-k8s.io/{version}:{kind}")


@pytest.mark.parametrize("api_version", ["v1beta2", "v1beta1"])
def test_registered_objects_validate_and_sit_under_the_component(api_version: str) -> None:
    mocks, made = build({"api_version": api_version, "namespaces": ["default", "ml"]})
    comp = mocks.one(TYPE, "dws")
    objs = [r for r in mocks.resources() if r.type.startswith("kubernetes:kueue.x-k8s.io/")]
    assert sorted(r.name for r in objs) == [
        "dws-admission-check",
        "dws-cluster-queue",
        "dws-flavor",
        "dws-local-queue-default",
        "dws-local-queue-ml",
        "dws-provisioning-config",
    ]
    for r in objs:
        assert r.type == f"kubernetes:kueue.x-k8s.io/{api_version}:{r.inputs['kind']}"
        assert (r.parent, r.parent_type) == (comp.urn, TYPE)
        validate({k: v for k, v in r.inputs.items() if k != "__provider"})
    assert made["queue"].api_version == api_version


def test_quota_and_flavor_come_from_the_pool() -> None:
    mocks, _ = build()
    flavor = cr(mocks, "ResourceFlavor")[0].inputs["spec"]
    assert flavor["nodeLabels"] == {"cloud.google.com/gke-nodepool": "a3-queued"}
    cq = cr(mocks, "ClusterQueue")[0].inputs["spec"]
    resources = cq["resourceGroups"][0]["flavors"][0]["resources"]
    assert {r["name"]: r["nominalQuota"] for r in resources}["nvidia.com/gpu"] == 24  # 3 x 8
    assert cq["admissionChecksStrategy"] == {"admissionChecks": [{"name": "dws-prov"}]}


def test_explicit_gpu_quota_and_run_duration() -> None:
    mocks, _ = build({"gpu_quota": 16, "max_run_duration": "12h"})
    cq = cr(mocks, "ClusterQueue")[0].inputs["spec"]
    gpu = cq["resourceGroups"][0]["flavors"][0]["resources"][-1]
    assert gpu == {"name": "nvidia.com/gpu", "nominalQuota": 16}
    prc = cr(mocks, "ProvisioningRequestConfig")[0].inputs["spec"]
    assert prc["parameters"] == {"maxRunDurationSeconds": "43200"}


def test_builds_a_gke_provider_with_the_auth_plugin() -> None:
    mocks, made = build()
    provider = mocks.one("pulumi:providers:kubernetes")
    assert provider.name == "dws-k8s" and provider.parent_type == TYPE
    config = json.loads(provider.inputs["kubeconfig"])
    assert config["clusters"][0]["cluster"]["server"] == "https://203.0.113.10"
    assert config["clusters"][0]["cluster"]["certificate-authority-data"]
    assert config["users"][0]["user"]["exec"]["command"] == "gke-gcloud-auth-plugin"
    assert config["users"][0]["user"]["exec"]["provideClusterInfo"] is True
    token, call = mocks.invokes[0]
    assert token == "gcp:container/getCluster:getCluster"
    assert (call["name"], call["location"]) == ("ml-cluster", "us-central1")
    for r in mocks.resources():
        if r.type.startswith("kubernetes:"):
            assert r.provider.startswith(provider.urn + "::"), r.name
    assert made["queue"].provider is not None


class _ClusterWithout(GcpMocks):
    """Mocks whose ``getCluster`` answers without ``drop`` (a cluster still being created, or a
    user's own mocks)."""

    def __init__(self, *drop: str) -> None:
        super().__init__()
        self.drop = drop

    def call(self, args: Any) -> dict[str, Any]:
        answer = super().call(args)
        if args.token == "gcp:container/getCluster:getCluster":
            answer = {k: v for k, v in answer.items() if k not in self.drop}
        return answer


@pytest.mark.parametrize(
    ("drop", "missing"),
    [
        (("endpoint", "masterAuths"), "no endpoint or CA certificate"),
        (("masterAuths",), "no CA certificate"),
        (("endpoint",), "no endpoint"),
    ],
)
def test_a_cluster_without_endpoint_or_ca_asks_for_a_provider(
    drop: tuple[str, ...], missing: str
) -> None:
    def program() -> None:
        pool = QueuedNodePool("a3-queued", pool_args())
        KueueQueue("dws", {"node_pool": pool, "namespaces": ["default"]})

    with pytest.raises(DwsValidationError) as info:
        _ClusterWithout(*drop).run(program)
    assert info.value.field == "cluster" and info.value.value == "ml-cluster"
    assert missing in str(info.value) and "kubernetes.Provider" in str(info.value)


def test_provider_through_opts_is_used_and_none_is_built() -> None:
    mocks = GcpMocks()

    def program() -> None:
        given = kubernetes.Provider("mine", kubeconfig="{}")
        KueueQueue(
            "dws",
            {
                "node_pool": pulumi.Output.from_input("existing-pool"),
                "gpu_quota": pulumi.Output.from_input(64),
                "namespaces": ["default"],
            },
            pulumi.ResourceOptions(provider=given),
        )

    mocks.run(program)
    provider = mocks.one("pulumi:providers:kubernetes")
    assert provider.name == "mine"
    assert mocks.invokes == []
    objs = [r for r in mocks.resources() if r.type.startswith("kubernetes:kueue")]
    assert objs and all(r.provider.startswith(provider.urn + "::") for r in objs)
    flavor = cr(mocks, "ResourceFlavor")[0].inputs["spec"]
    assert flavor["nodeLabels"] == {"cloud.google.com/gke-nodepool": "existing-pool"}
    gpu = cr(mocks, "ClusterQueue")[0].inputs["spec"]["resourceGroups"][0]["flavors"][0]
    assert gpu["resources"][-1]["nominalQuota"] == 64


def test_pool_by_name_builds_the_provider_from_cluster_and_location() -> None:
    mocks = GcpMocks()
    mocks.run(
        lambda: KueueQueue(
            "dws",
            {
                "node_pool": "existing-pool",
                "gpu_quota": 8,
                "namespaces": ["default"],
                "cluster": "projects/p/locations/europe-west4/clusters/c9",
                "location": "europe-west4",
                "project": "p",
            },
        )
    )
    token, call = mocks.invokes[0]
    assert (call["name"], call["location"], call["project"]) == ("c9", "europe-west4", "p")


def test_install_kueue_pins_the_chart_and_orders_the_objects() -> None:
    mocks, made = build({"install_kueue": True})
    release = mocks.one("kubernetes:helm.sh/v3:Release")
    assert release.inputs["chart"] == KUEUE_CHART == "oci://registry.k8s.io/kueue/charts/kueue"
    assert release.inputs["version"] == KUEUE_VERSION
    assert release.inputs["namespace"] == "kueue-system"
    assert release.inputs["createNamespace"] is True
    assert made["queue"].kueue_release is not None
    urn = {r.inputs.get("kind"): r.urn for r in mocks.resources() if r.type.startswith("kub")}
    for r in mocks.resources():
        if r.type.startswith("kubernetes:kueue"):
            assert release.urn in r.dependencies, r.name
    cq = cr(mocks, "ClusterQueue")[0]
    for kind in ("ResourceFlavor", "ProvisioningRequestConfig", "AdmissionCheck"):
        assert urn[kind] in cq.dependencies
    assert urn["ClusterQueue"] in cr(mocks, "LocalQueue")[0].dependencies


def test_no_release_unless_asked() -> None:
    mocks, made = build()
    assert mocks.resources("kubernetes:helm.sh/v3:Release") == []
    assert made["queue"].kueue_release is None


def test_flex_start_pool_gets_no_provisioning_request() -> None:
    mocks, made = build(pool={"mode": "flex_start"})
    assert cr(mocks, "ProvisioningRequestConfig") == [] and cr(mocks, "AdmissionCheck") == []
    cq = cr(mocks, "ClusterQueue")[0].inputs["spec"]
    assert "admissionChecksStrategy" not in cq
    assert made["queue"].admission_check_name is None


def test_names_follow_the_name_arg() -> None:
    mocks, made = build({"name": "h100", "local_queue_name": "gpus"})
    q = made["queue"]
    assert (q.resource_flavor_name, q.cluster_queue_name, q.local_queue_name) == (
        "h100-flavor",
        "h100-cluster-queue",
        "gpus",
    )
    lq = cr(mocks, "LocalQueue")[0].inputs
    assert lq["metadata"]["name"] == "gpus" and lq["spec"] == {"clusterQueue": "h100-cluster-queue"}


REJECTIONS: list[tuple[dict[str, Any], dict[str, Any], str, str]] = [
    ({"namespaces": []}, {}, "namespaces", "non-empty"),
    ({"namespaces": "default"}, {}, "namespaces", "non-empty"),
    ({"namespaces": ["a", "a"]}, {}, "namespaces[1]", "twice"),
    ({"namespaces": ["Team_A"]}, {}, "namespaces[0]", "Kubernetes name"),
    ({"api_version": "v1"}, {}, "api_version", "v1beta2, v1beta1"),
    ({"gpu_quota": 0}, {}, "gpu_quota", ">= 1"),
    ({"max_run_duration": "8d"}, {}, "max_run_duration", "7d (604800s)"),
    ({"max_run_duration": "2d"}, {"max_run_duration": "1d"}, "max_run_duration", "node pool"),
    ({"max_run_duration": "1h"}, {"mode": "flex_start"}, "max_run_duration", "ProvisioningReq"),
    ({"provisioning_request": True}, {"mode": "flex_start"}, "provisioning_request", "queued"),
    ({"provisioning_request": False}, {}, "provisioning_request", "only gets nodes"),
    ({"kueue_version": "latest"}, {}, "kueue_version", "chart version"),
    ({"kueue_version": "0.14.2", "install_kueue": True}, {}, "kueue_version", "v1beta2"),
    ({"name": "x" * 60}, {}, "name", "shorter"),
    ({"cpu_quota": "lots"}, {}, "cpu_quota", "quantity"),
    ({"retry_strategy": {"backoff_base_seconds": 5000}}, {}, "retry_strategy", "backoff_max"),
    ({"retry_strategy": {"backoff_limit_count": -1}}, {}, "retry_strategy", "between"),
    ({"queueing_strategy": "LIFO"}, {}, "queueing_strategy", "StrictFIFO"),
    ({"local_queue_name": "Q"}, {}, "local_queue_name", "Kubernetes name"),
    ({"flavours": 1}, {}, "flavours", "unknown argument; did you mean flavors?"),
    ({"zzz": 1}, {}, "zzz", "unknown argument; known: node_pool, flavors, namespaces"),
]


@pytest.mark.parametrize(("over", "pool", "field", "fragment"), REJECTIONS)
def test_each_rejection_names_the_field(
    over: dict[str, Any], pool: dict[str, Any], field: str, fragment: str
) -> None:
    mocks = GcpMocks()
    made: dict[str, Any] = {}

    def program() -> None:
        made["pool"] = QueuedNodePool("a3-queued", pool_args(**pool))
        KueueQueue("dws", {"node_pool": made["pool"], "namespaces": ["default"], **over})

    with pytest.raises(DwsValidationError) as info:
        mocks.run(program)
    assert info.value.field.startswith(field), str(info.value)
    assert fragment in str(info.value)
    assert [r.type for r in mocks.registered] == [
        "dws:index:QueuedNodePool",
        "gcp:container/nodePool:NodePool",
    ]


@pytest.mark.parametrize(
    ("args", "field", "fragment"),
    [
        ({"node_pool": "p", "namespaces": ["d"]}, "gpu_quota", "node_pool is a name"),
        ({"node_pool": "p", "namespaces": ["d"], "gpu_quota": 8}, "cluster", "provider"),
        ({"node_pool": 3, "namespaces": ["d"]}, "node_pool", "QueuedNodePool"),
        ({"namespaces": ["d"]}, "node_pool", "required"),
    ],
)
def test_rejections_without_a_pool(args: dict[str, Any], field: str, fragment: str) -> None:
    mocks = GcpMocks()
    with pytest.raises(DwsValidationError) as info:
        mocks.run(lambda: KueueQueue("dws", args))
    assert info.value.field == field and fragment in str(info.value)
    assert mocks.registered == []


# ----------------------------------------------------------------------- Jobs
def test_job_fields() -> None:
    assert kueue_job_fields("dws-local-queue") == {
        "metadata": {"labels": {"kueue.x-k8s.io/queue-name": "dws-local-queue"}},
        "spec": {"suspend": True},
    }
    fields = kueue_job_fields("dws-local-queue", "90m")
    assert fields["metadata"]["annotations"] == {MAX_RUN_DURATION_ANNOTATION: "5400"}
    assert MAX_RUN_DURATION_ANNOTATION == "provreq.kueue.x-k8s.io/maxRunDurationSeconds"
    assert QUEUE_NAME_LABEL == "kueue.x-k8s.io/queue-name"


def test_job_fields_from_a_queue_component() -> None:
    _, made = build({"local_queue_name": "h100"})
    assert kueue_job_fields(made["queue"], "1h")["metadata"] == {
        "labels": {QUEUE_NAME_LABEL: "h100"},
        "annotations": {MAX_RUN_DURATION_ANNOTATION: "3600"},
    }
    _, flex = build(pool={"mode": "flex_start"})
    assert kueue_job_fields(flex["queue"])["spec"] == {"suspend": True}
    with pytest.raises(DwsValidationError, match=r"^max_run_duration: 1h .*ProvisioningRequests"):
        kueue_job_fields(flex["queue"], "1h")


@pytest.mark.parametrize(
    ("queue", "duration", "field"),
    [
        ("Bad Queue", None, "queue"),
        (42, None, "queue"),
        ("q", "8d", "max_run_duration"),
        ("q", "whenever", "max_run_duration"),
    ],
)
def test_job_fields_rejections(queue: Any, duration: Any, field: str) -> None:
    with pytest.raises(DwsValidationError) as info:
        kueue_job_fields(queue, duration)
    assert info.value.field == field


def test_full_job_manifest() -> None:
    job = kueue_job(
        "train", queue="dws-local-queue", image="img", gpus=8, parallelism=2, namespace="ml"
    )
    assert job["apiVersion"] == "batch/v1" and job["kind"] == "Job"
    assert job["metadata"]["labels"] == {QUEUE_NAME_LABEL: "dws-local-queue"}
    assert job["metadata"]["namespace"] == "ml"
    assert job["spec"]["suspend"] is True
    assert (job["spec"]["parallelism"], job["spec"]["completions"]) == (2, 2)
    container = job["spec"]["template"]["spec"]["containers"][0]
    assert container["resources"]["limits"] == {"nvidia.com/gpu": 8}
    with pytest.raises(DwsValidationError, match="^gpus: 0"):
        kueue_job("train", queue="q", image="img", gpus=0)


def test_full_job_manifest_needs_a_namespace_with_the_local_queue() -> None:
    _, made = build({"namespaces": ["default", "ml"]})
    job = kueue_job("train", queue=made["queue"], image="img", gpus=8, namespace="ml")
    assert job["metadata"]["namespace"] == "ml"
    assert job["metadata"]["labels"] == {QUEUE_NAME_LABEL: "dws-local-queue"}
    with pytest.raises(DwsValidationError, match=r"^namespace: research has no LocalQueue"):
        kueue_job("train", queue=made["queue"], image="img", gpus=8, namespace="research")


def test_example_job_is_what_the_helper_renders() -> None:
    folder = REPO / "examples" / "kueue-job"
    spec = importlib.util.spec_from_file_location("render_job", folder / "render_job.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    on_disk = yaml.safe_load((folder / "job.yaml").read_text())
    assert on_disk == module.build(), "job.yaml is stale: run render_job.py > job.yaml"
    assert on_disk["metadata"]["labels"][QUEUE_NAME_LABEL] == "dws-local-queue"


# ----------------------------------------------------------------------- the stack
STACK = REPO / "stacks" / "gke-dws"


def test_stack_project_file() -> None:
    project = yaml.safe_load((STACK / "Pulumi.yaml").read_text())
    assert project["name"] == "gke-dws"
    assert project["runtime"] == {
        "name": "python",
        "options": {"toolchain": "pip", "virtualenv": "../../.venv"},
    }
    config = yaml.safe_load((STACK / "Pulumi.dev.yaml").read_text())["config"]
    assert config["gke-dws:cluster"]


def test_stack_plans_offline() -> None:
    from pulumi_dws.plan.runner import run_plan

    plan = run_plan(STACK, "dev")
    types = [r.type for r in plan.resources]
    assert types.count("gcp:container/nodePool:NodePool") == 1
    assert "kubernetes:helm.sh/v3:Release" in types
    assert types.count("kubernetes:kueue.x-k8s.io/v1beta2:LocalQueue") == 2
    pool = next(r for r in plan.resources if r.type == "gcp:container/nodePool:NodePool")
    assert pool.inputs["queuedProvisioning"] == {"enabled": True}
    assert pool.inputs["nodeConfig"]["machineType"] == "a3-highgpu-8g"
    assert plan.outputs["gpusTotal"] == 32
    assert plan.outputs["localQueue"] == "dws-local-queue"
    for r in plan.registered:
        if r.type.startswith("kubernetes:kueue"):
            validate({k: v for k, v in r.inputs.items() if k != "__provider"})


# ----------------------------------------------------------------------- root blueprint kinds
CAPACITY = {
    "queued_node_pools": [
        {
            "name": "a3-queued",
            "cluster": "ml-cluster",
            "location": "us-central1",
            "machine_type": "a3-highgpu-8g",
            "max_nodes": 4,
        }
    ],
    "kueue_queues": [
        {
            "name": "dws",
            "node_pool": "a3-queued",
            "gpu_quota": 32,
            "namespaces": ["default"],
            "cluster": "ml-cluster",
            "location": "us-central1",
        }
    ],
}


def test_blueprint_kinds_deploy_a_pool_and_its_queue() -> None:
    from pulumi_dws.blueprint import deploy

    mocks = GcpMocks()
    built = mocks.run(lambda: sorted(deploy(CAPACITY)))
    assert built == ["kueue_queues/dws", "queued_node_pools/a3-queued"]
    assert mocks.one("gcp:container/nodePool:NodePool").inputs["name"] == "a3-queued"
    flavor = cr(mocks, "ResourceFlavor")[0].inputs["spec"]
    assert flavor["nodeLabels"] == {"cloud.google.com/gke-nodepool": "a3-queued"}


def test_blueprint_reports_the_entry_path() -> None:
    from pulumi_dws.blueprint import deploy

    bad = copy.deepcopy(CAPACITY)
    bad["queued_node_pools"][0]["spot"] = True
    mocks = GcpMocks()
    with pytest.raises(DwsValidationError) as info:
        mocks.run(lambda: deploy(bad))
    assert info.value.field == "dws:capacity.queued_node_pools[0].spot"
    assert mocks.registered == []


def test_the_vendored_crd_schemas_say_where_they_come_from() -> None:
    """No test needs ../shared: the structural schemas of every supported Kueue release are in
    the repository, each with its tag, the SHA-256 of its source files, licence, and no prose."""
    vendored = json.loads(CRD_SCHEMAS.read_text())
    source = vendored["source"]
    assert source["project"] == "kubernetes-sigs/kueue" and "Apache" in source["licence"]
    assert KUEUE_VERSION in vendored["versions"]
    for version, entry in vendored["versions"].items():
        assert entry["tag"] == f"v{version}" and entry["sha256"] and entry["vendored"]
        assert set(entry["crds"]) == {*KINDS, "LocalQueue", "Topology"}
        for kind in entry["crds"].values():
            assert all(one["schema"] in vendored["schemas"] for one in kind.values())

    def keywords(schema: Any) -> set[str]:
        if not isinstance(schema, dict):
            return set()
        found = set(schema)
        for key, value in schema.items():
            children = value.values() if key == "properties" else [value]
            for child in children:
                found |= keywords(child) if isinstance(child, dict) else set()
                if isinstance(child, list):
                    for item in child:
                        found |= keywords(item)
        return found

    used = set().union(*(keywords(schema) for schema in vendored["schemas"].values()))
    assert {"type", "properties", "required", "enum"} <= used
    assert not used & {"description", "default", "x-kubernetes-validations", "example"}
