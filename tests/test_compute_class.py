"""ComputeClass: the object against the vendored CRD schema, Google's rules at construction, the
GKE version of each field, the component under mocks, and a Kueue flavor pointing at it."""

from __future__ import annotations

import copy
import json
from typing import Any

import pulumi
import pulumi_kubernetes as kubernetes
import pytest
from compute_class_helpers import SCHEMA, validate_class

from pulumi_dws import CalendarReservation, ComputeClass, KueueQueue
from pulumi_dws.errors import DwsValidationError
from pulumi_dws.kinds.compute_class.component import compute_class_manifest
from pulumi_dws.kinds.compute_class.versions import FEATURES, supports
from pulumi_dws.testing import GcpMocks

TYPE = "dws:index:ComputeClass"
CR = "kubernetes:cloud.google.com/v1:ComputeClass"
H200 = {"machine_type": "a3-ultragpu-8g", "zones": ["us-central1-b"], "location": "us-central1"}
PRIORITIES: dict[str, dict[str, Any]] = {
    "reservation": {"capacity": "reservation", "reservation": "h200-block"},
    "block": {"capacity": "reservation", "reservation": "h200-block", "reservation_block": "b1"},
    "shared": {"capacity": "reservation", "reservation": "projects/owner-proj/reservations/r1"},
    "any": {"capacity": "any_reservation"},
    "flex": {"capacity": "flex_start", "max_run_duration": "7d", "node_recycling_lead_time": "1h"},
    "flex_bare": {"capacity": "flex_start"},
    "spot": {"capacity": "spot"},
    "on_demand": {"capacity": "on_demand", "max_run_duration": "3d"},
    "pools": {"capacity": "node_pools", "node_pools": ["reserved-pool", "other-pool"]},
}


def manifest(*priorities: str, **over: Any) -> dict[str, Any]:
    args = {**H200, "priorities": [dict(PRIORITIES[p]) for p in priorities], **over}
    return compute_class_manifest("h200", args)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("priorities", "over"),
    [
        (("block", "flex", "spot", "on_demand"), {"gpu_driver_version": "latest"}),
        (("reservation", "any", "flex_bare"), {"active_migration": True}),
        (("shared", "pools"), {"when_unsatisfiable": "ScaleUpAnyway"}),
        (
            ("flex",),
            {
                "machine_type": "ct6e-standard-4t",
                "tpu_topology": "2x2",
                "location": "us-east5",
                "zones": ["us-east5-b"],
            },
        ),  # fmt: skip
        (
            ("spot",),
            {
                "machine_type": None,
                "machine_family": "a3",
                "gpu_type": "nvidia-h100-80gb",
                "gpu_count": 8,
            },
        ),  # fmt: skip
        (("flex",), {"machine_type": None, "gpu_type": "nvidia-l4", "gpu_count": 1, "zones": None}),
        (("reservation",), {"machine_type": "ct6e-standard-4t", "tpu_topology": "4x4"}),
    ],
)
def test_every_class_validates_against_the_crd(priorities: tuple[str, ...], over: Any) -> None:
    obj = manifest(*priorities, **{k: v for k, v in over.items()})
    validate_class(obj)
    assert obj["metadata"] == {"name": "h200"}
    assert obj["spec"]["whenUnsatisfiable"] in ("DoNotScaleUp", "ScaleUpAnyway")


def test_the_schema_check_can_fail() -> None:
    good = manifest("flex")
    for path, value, fragment in [
        (("spec", "priorities", 0, "flexStart", "nodeRecycling", "leadTimeSeconds"), 0, "minimum"),
        (("spec", "priorities", 0, "gpu", "driverVersion"), "newest", "is not one of"),
        (("spec", "priorities", 0, "flexStart", "maxRunDuration"), 3600, "not allowed"),
        (("spec", "whenUnsatisfiable"), "Maybe", "Maybe"),
    ]:
        bad = copy.deepcopy(good)
        node = bad
        for step in path[:-1]:
            node = node.setdefault(step, {}) if isinstance(step, str) else node[step]
        node[path[-1]] = value
        with pytest.raises(AssertionError, match=fragment):
            validate_class(bad)


def test_the_class_reads_as_googles_gpu_sample() -> None:
    """Calendar block first, Flex-start for 7 days next (accelerated-platforms' H200 class)."""
    spec = manifest("block", "flex", gpu_driver_version="latest")["spec"]
    block, flex = spec["priorities"]
    gpu = {"type": "nvidia-h200-141gb", "count": 8, "driverVersion": "latest"}
    assert block == {
        "machineType": "a3-ultragpu-8g",
        "gpu": gpu,
        "reservations": {
            "affinity": "Specific",
            "specific": [{"name": "h200-block", "reservationBlock": {"name": "b1"}}],
        },
    }
    assert flex == {
        "machineType": "a3-ultragpu-8g",
        "gpu": gpu,
        "flexStart": {"enabled": True, "nodeRecycling": {"leadTimeSeconds": 3600}},
        "maxRunDurationSeconds": 604800,
    }
    assert spec["nodePoolAutoCreation"] == {"enabled": True}
    assert spec["priorityDefaults"] == {"location": {"zones": ["us-central1-b"]}}


def test_a_tpu_class_names_the_slice_as_gke_does() -> None:
    v6e = {"machine_type": "ct6e-standard-4t", "tpu_topology": "2x2", "location": "us-east5"}
    rule = manifest("flex", **v6e, zones=["us-east5-b"])["spec"]["priorities"][0]
    assert rule["tpu"] == {"type": "tpu-v6e-slice", "count": 4, "topology": "2x2"}
    assert "gpu" not in rule


def test_a_shared_reservation_names_its_project() -> None:
    rule = manifest("shared")["spec"]["priorities"][0]
    assert rule["reservations"]["specific"] == [{"name": "r1", "project": "owner-proj"}]


REJECTIONS: list[tuple[dict[str, Any], str, str]] = [
    ({"priorities": []}, "priorities", "has no usable entry"),
    ({"priorities": [{"capacity": "flex_start"}], "gke_version": "1.31.5-gke.1000"},
     "priorities[0].capacity", "1.32.2-gke.1652000"),
    ({"priorities": [{"capacity": "flex_start"}], "machine_type": "ct6e-standard-4t",
      "gke_version": "1.32.9-gke.100", "cluster_autoprovisioning": True},
     "priorities[0].capacity", "Flex-start TPU nodes, which GKE serves from 1.33.0-gke.1712000"),
    ({"priorities": [{"capacity": "spot"}], "machine_type": "ct6e-standard-4t",
      "tpu_topology": "3x3"}, "priorities[0].tpu_topology", "not a topology of ct6e-standard-4t"),
    ({"priorities": [{"capacity": "flex_start"}], "machine_type": "ct6e-standard-4t",
      "tpu_topology": "4x4"}, "priorities[0].tpu_topology", "single-host slices only"),
    ({"priorities": [PRIORITIES["block"]], "machine_type": "a3-highgpu-8g"},
     "priorities[0].reservation_block", "A3 Ultra, A4 and A4X"),
    ({"priorities": [{**PRIORITIES["block"], "reservation_sub_block": "s1"}]},
     "priorities[0].reservation_sub_block", "A4X"),
    ({"priorities": [PRIORITIES["block"]], "gke_version": "1.31.3-gke.100",
      "cluster_autoprovisioning": True}, "priorities[0].reservation_block", "1.31.4-gke.1072000"),
    ({"priorities": [{"capacity": "any_reservation"}], "machine_type": "ct6e-standard-4t"},
     "priorities[0].capacity", "TPU reservations require Specific affinity"),
    ({"priorities": [{"capacity": "any_reservation"}], "machine_type": None,
      "gpu_type": "nvidia-l4", "gpu_count": 1}, "priorities[0].machine_type", "machineFamily"),
    ({"priorities": [{"capacity": "reservation"}]}, "priorities[0].reservation", "is required"),
    ({"priorities": [{"capacity": "spot", "reservation": "r"}]}, "priorities[0].reservation",
     "only applies to capacity reservation"),
    ({"priorities": [{"capacity": "flex_start", "max_run_duration": "8d"}]},
     "priorities[0].max_run_duration", "7d (604800s)"),
    ({"priorities": [{"capacity": "flex_start", "max_run_duration": "1h",
                      "node_recycling_lead_time": "2h"}]},
     "priorities[0].node_recycling_lead_time", "shorter than max_run_duration"),
    ({"priorities": [{"capacity": "flex_start", "placement_policy": "compact"}],
      "machine_type": "a3-highgpu-8g"}, "priorities[0].placement_policy", "A3 Ultra, A4 and H4D"),
    ({"priorities": [{"capacity": "spot", "machine_family": "a3"}]},
     "priorities[0].machine_family", "cannot be set together"),
    ({"priorities": [{"capacity": "spot"}], "machine_type": None, "machine_family": "g2",
      "gpu_type": "nvidia-h100-80gb", "gpu_count": 8}, "priorities[0].machine_family",
     "comes with a3"),
    ({"priorities": [{"capacity": "spot"}], "machine_type": None}, "priorities[0].gpu_type",
     "is required"),
    ({"priorities": [{"capacity": "spot", "gpu_count": 4}]}, "priorities[0].gpu_count",
     "which has 8 GPUs"),
    ({"priorities": [{"capacity": "spot"}], "machine_type": None, "machine_family": "a3",
      "gpu_type": "nvidia-h100-80gb", "gpu_count": 3}, "priorities[0].gpu_count",
     "no a3 machine has 3 nvidia-h100-80gb GPUs; use 1, 2, 4 or 8"),
    ({"priorities": [{"capacity": "spot"}], "machine_type": None, "gpu_type": "nvidia-h200-141gb",
      "gpu_count": 4}, "priorities[0].gpu_count", "use 8"),
    ({"priorities": [{"capacity": "spot"}], "machine_type": "ct6e-standard-4t",
      "gpu_driver_version": "latest"}, "gpu_driver_version", "no GPU priority"),
    ({"priorities": [{"capacity": "spot"}], "cluster": "ML Cluster"}, "cluster",
     "RFC 1035"),
    ({"priorities": [{"capacity": "spot"}], "cluster": ""}, "cluster", "cluster name"),
    ({"priorities": [{"capacity": "bogus"}]}, "priorities[0].capacity", "use one of reservation"),
    ({"priorities": [PRIORITIES["pools"]], "autopilot": True}, "priorities[0].capacity",
     "Autopilot"),
    ({"priorities": [{**PRIORITIES["pools"], "machine_type": "a3-highgpu-8g"}]},
     "priorities[0].machine_type", "takes nothing else"),
    ({"priorities": [PRIORITIES["reservation"]], "node_pool_auto_creation": False},
     "priorities[0].capacity", "node_pool_auto_creation"),
    ({"priorities": [{"capacity": "spot"}], "gke_version": "1.32.5-gke.100"},
     "node_pool_auto_creation", "cluster-level node auto-provisioning"),
    ({"priorities": [{"capacity": "spot"}], "gke_version": "1.29.1"}, "gke_version",
     "1.30.3-gke.1451000"),
    ({"priorities": [{"capacity": "spot"}], "gke_version": "soon"}, "gke_version",
     "not a GKE version"),
    ({"priorities": [{"capacity": "spot"}], "zones": ["us-east1-b"]}, "zones[0]",
     "not in region us-central1"),
    ({"priorities": [{"capacity": "spot"}], "name": "gke-h200"}, "name", "gke or autopilot"),
    ({"priorities": [{"capacity": "spot"}], "name": "H200"}, "name", "lowercase"),
    ({"priorities": [{"capacity": "spot"}], "gpu_driver_version": "LATEST"},
     "gpu_driver_version", "default, latest"),
    ({"priorities": [{"capacity": "spot"}], "autopilot": True, "node_pool_auto_creation": False},
     "node_pool_auto_creation", "Autopilot"),
    ({"priorities": [{"capacity": "spot"}], "priority": 1}, "priority", "unknown argument"),
]  # fmt: skip


@pytest.mark.parametrize(("over", "field", "fragment"), REJECTIONS)
def test_each_bad_input_is_one_clear_error(over: dict[str, Any], field: str, fragment: str) -> None:
    args = {k: v for k, v in {**H200, **over}.items() if v is not None}
    mocks = GcpMocks()
    with pytest.raises(DwsValidationError) as info:
        mocks.run(lambda: ComputeClass("h200", args))  # type: ignore[arg-type]
    assert info.value.field == field, str(info.value)
    assert fragment in str(info.value), str(info.value)
    assert mocks.registered == []


V6E_SMALL = {"machine_type": "ct6e-standard-4t", "tpu_topology": "2x2"}


@pytest.mark.parametrize(
    ("over", "field", "fragment"),
    [
        # GKE offers Flex-start v6e nodes in asia-northeast1-b, us-east5-a and us-east5-b only
        ({**V6E_SMALL, "priorities": [{"capacity": "flex_start"}]}, "zones[0]",
         "is not a zone where TPU v6e is offered through GKE Flex-start TPU nodes"),
        ({**V6E_SMALL, "location": "us-central1-b", "zones": None,
          "priorities": [{"capacity": "flex_start"}]}, "location", "GKE Flex-start TPU nodes"),
        ({**V6E_SMALL, "location": "us-west4", "zones": None,
          "priorities": [{"capacity": "spot"}]}, "location", "has no zone where TPU v6e"),
        # no v6e in us-west4 at all, whatever the capacity
        ({**V6E_SMALL, "location": "us-west4", "zones": ["us-west4-a"],
          "priorities": [{"capacity": "spot"}]}, "zones[0]", "offered through TPU VMs"),
        ({**V6E_SMALL, "location": "us-west4", "zones": ["us-west4-a"],
          "priorities": [{"capacity": "reservation", "reservation": "v6e-res"}]}, "zones[0]",
         "offered through TPU VMs"),
        # GKE's flex-start page lists no TPU7x zone: the node pool refuses it, so does the class
        ({"machine_type": "tpu7x-standard-4t", "zones": ["us-central1-c"],
          "priorities": [{"capacity": "flex_start"}]}, "priorities[0].machine_type",
         "not offered through GKE Flex-start TPU nodes"),
        ({"machine_type": "tpu7x-standard-4t", "zones": ["us-central1-c"],
          "gke_version": "1.33.5-gke.1162000", "priorities": [{"capacity": "spot"}]},
         "gke_version", "TPU7x"),
    ],
)  # fmt: skip
def test_tpu_priorities_are_checked_at_their_door(
    over: dict[str, Any], field: str, fragment: str
) -> None:
    """A TPU priority reaches GKE's Flex-start TPU nodes (flex_start) or TPU VMs (the others):
    each checks its zones as a QueuedNodePool of the same door does (catalog tables)."""
    args = {k: v for k, v in {"cluster": "ml", **H200, **over}.items() if v is not None}
    mocks = GcpMocks()
    with pytest.raises(DwsValidationError) as info:
        mocks.run(lambda: ComputeClass("tpu", args))  # type: ignore[arg-type]
    assert info.value.field == field, str(info.value)
    assert fragment in str(info.value), str(info.value)
    assert mocks.registered == []


@pytest.mark.parametrize(
    "over",
    [
        {**V6E_SMALL, "location": "us-east5", "zones": ["us-east5-b"],
         "priorities": [{"capacity": "flex_start"}, {"capacity": "spot"}]},
        {**V6E_SMALL, "location": "us-central1", "zones": ["us-central1-b"],
         "priorities": [{"capacity": "spot"}, {"capacity": "on_demand"}]},
        {"machine_type": "ct5lp-hightpu-4t", "tpu_topology": "2x2", "location": "us-west4",
         "zones": ["us-west4-a"], "priorities": [{"capacity": "flex_start"}]},
        {"machine_type": "tpu7x-standard-4t", "zones": ["us-central1-c"],
         "gke_version": "1.34.0-gke.2201000", "priorities": [{"capacity": "spot"}]},
    ],
)  # fmt: skip
def test_tpu_priorities_at_their_door_are_accepted(over: dict[str, Any]) -> None:
    args = {k: v for k, v in {**H200, **over}.items() if v is not None}
    validate_class(compute_class_manifest("tpu", args))  # type: ignore[arg-type]


def test_a_run_limit_beyond_seven_days_is_for_other_capacity_than_flex_start() -> None:
    """maxRunDurationSeconds is in every priority (the CRD: "the maximum duration for the nodes
    to exist", no bound; its reference sample sets it on Spot): the 7-day bound is
    Flex-start's alone."""
    spec = manifest("on_demand", **{})["spec"]
    assert spec["priorities"][0]["maxRunDurationSeconds"] == 3 * 86400
    two_weeks = {**PRIORITIES["on_demand"], "max_run_duration": "14d"}
    args = {**H200, "priorities": [two_weeks, {"capacity": "spot", "max_run_duration": "30d"}]}
    rules = compute_class_manifest("h200", args)["spec"]["priorities"]  # type: ignore[arg-type]
    assert [r["maxRunDurationSeconds"] for r in rules] == [14 * 86400, 30 * 86400]
    with pytest.raises(DwsValidationError, match=r"^priorities\[0\]\.max_run_duration: 0s"):
        compute_class_manifest(
            "h200",
            {**H200, "priorities": [{"capacity": "spot", "max_run_duration": "0s"}]},  # type: ignore[typeddict-item]
        )


def test_gke_versions_are_compared_release_by_release() -> None:
    assert supports("1.33.3-gke.1136000", "auto_creation_without_nap")
    assert not supports("1.33.3-gke.1135999", "auto_creation_without_nap")
    assert supports("1.34", "auto_creation_without_nap") and supports("1.33", "flex_start")
    assert not supports("1.32", "auto_creation_without_nap")
    for feature in FEATURES.values():
        assert feature.source.startswith("https://"), feature.key


# ----------------------------------------------------------------------- the component
def build(args: dict[str, Any], opts: pulumi.ResourceOptions | None = None) -> tuple[GcpMocks, Any]:
    mocks = GcpMocks()
    made: dict[str, Any] = {}

    def program() -> None:
        base = {"cluster": "ml-cluster", **H200}
        made["cls"] = ComputeClass("h200", {**base, **args}, opts)

    mocks.run(program)
    return mocks, made["cls"]


def test_the_component_registers_the_class_on_the_cluster() -> None:
    mocks, cls = build({"priorities": [PRIORITIES["reservation"], PRIORITIES["flex"]]})
    comp = mocks.one(TYPE, "h200")
    [resource] = mocks.resources(CR)
    assert (resource.parent, resource.name) == (comp.urn, "h200-compute-class")
    validate_class({k: v for k, v in resource.inputs.items() if k != "__provider"})
    provider = mocks.one("pulumi:providers:kubernetes")
    assert resource.provider.startswith(provider.urn + "::")
    token, call = mocks.invokes[0]
    assert token == "gcp:container/getCluster:getCluster" and call["name"] == "ml-cluster"
    assert cls.node_selector == {"cloud.google.com/compute-class": "h200"}
    assert cls.flex_start and not cls.tpu
    assert [p["capacity"] for p in cls.priorities] == ["reservation", "flex_start"]


def test_a_provider_through_opts_is_used() -> None:
    mocks = GcpMocks()

    def program() -> None:
        given = kubernetes.Provider("mine", kubeconfig="{}")
        ComputeClass(
            "h200",
            {"priorities": [PRIORITIES["spot"]], "machine_type": "a3-ultragpu-8g"},
            pulumi.ResourceOptions(provider=given),
        )

    mocks.run(program)
    assert mocks.one("pulumi:providers:kubernetes").name == "mine" and mocks.invokes == []


def test_without_a_provider_cluster_and_location_are_required() -> None:
    mocks = GcpMocks()
    with pytest.raises(DwsValidationError, match="^cluster: .*location are required"):
        mocks.run(
            lambda: ComputeClass(
                "h200", {"priorities": [{"capacity": "spot"}], "machine_type": "a3-ultragpu-8g"}
            )
        )


def block_args(**over: Any) -> dict[str, Any]:
    return {
        "zone": "us-central1-b",
        "machine_type": "a3-ultragpu-8g",
        "count": 2,
        "start_time": "+4w",
        "duration": "7d",
        **over,
    }


def test_a_calendar_block_comes_first() -> None:
    mocks = GcpMocks()

    def program() -> None:
        block = CalendarReservation("h200-block", block_args())
        ComputeClass(
            "h200",
            {
                "cluster": "ml-cluster",
                **H200,
                "priorities": [
                    {"capacity": "reservation", "reservation": block},
                    PRIORITIES["flex"],
                ],
            },
        )

    mocks.run(program)
    [resource] = mocks.resources(CR)
    rule = resource.inputs["spec"]["priorities"][0]
    assert rule["reservations"]["specific"] == [{"name": "h200-block"}]
    validate_class({k: v for k, v in resource.inputs.items() if k != "__provider"})


@pytest.mark.parametrize(
    ("block", "fragment"),
    [
        ({"zone": "us-central1-a"}, "is in zone us-central1-a, outside the class's zones"),
        ({"machine_type": "a3-highgpu-8g"}, "holds a3-highgpu-8g VMs"),
        ({"zone": "europe-west4-b"}, "not in region us-central1"),
    ],
)
def test_a_block_elsewhere_is_refused(block: dict[str, Any], fragment: str) -> None:
    mocks = GcpMocks()

    def program() -> None:
        reservation = CalendarReservation("h200-block", block_args(**block))
        ComputeClass(
            "h200",
            {
                "cluster": "ml-cluster",
                **H200,
                "zones": ["us-central1-b", "europe-west4-b"]
                if "europe" in str(block)
                else ["us-central1-b"],
                "priorities": [{"capacity": "reservation", "reservation": reservation}],
            },
        )

    with pytest.raises(DwsValidationError) as info:
        mocks.run(program)
    assert info.value.field.startswith(("priorities[0].reservation", "zones[")), str(info.value)
    assert fragment in str(info.value), str(info.value)
    assert mocks.resources(CR) == []


def test_a_kueue_flavor_points_at_the_class() -> None:
    mocks = GcpMocks()

    def program() -> None:
        cls = ComputeClass(
            "h200", {"cluster": "ml-cluster", **H200, "priorities": [PRIORITIES["flex"]]}
        )
        KueueQueue(
            "train",
            {"flavors": [{"compute_class": cls, "gpu_quota": 32}], "namespaces": ["ml"]},
        )

    mocks.run(program)
    [flavor] = mocks.resources("kubernetes:kueue.x-k8s.io/v1beta2:ResourceFlavor")
    assert flavor.inputs["spec"] == {"nodeLabels": {"cloud.google.com/compute-class": "h200"}}
    [cluster_queue] = mocks.resources("kubernetes:kueue.x-k8s.io/v1beta2:ClusterQueue")
    assert "admissionChecksStrategy" not in cluster_queue.inputs["spec"]
    assert mocks.resources("kubernetes:kueue.x-k8s.io/v1beta2:ProvisioningRequestConfig") == []
    the_class = mocks.one(CR)
    assert the_class.urn in flavor.dependencies


def test_the_vendored_schema_says_where_it_comes_from() -> None:
    vendored = json.loads(SCHEMA.read_text())
    source = vendored["source"]
    assert "datreeio/CRDs-catalog@" in source["file"] and len(source["sha256"]) == 64
    assert source["reference"].startswith("https://docs.cloud.google.com/kubernetes-engine/")
    assert source["vendored"]
    text = json.dumps(vendored["schema"])
    assert "description" not in text and "x-kubernetes-validations" not in text
    # every field the component writes is in the vendored list
    written = manifest("block", "flex", "spot", gpu_driver_version="latest", active_migration=True)

    def paths(value: Any, prefix: str = "") -> set[str]:
        """Dotted paths of the leaves ("[]" steps into a list of objects; a list of strings
        is a leaf)."""
        if isinstance(value, dict):
            return set().union(*(paths(item, f"{prefix}{key}.") for key, item in value.items()))
        if isinstance(value, list) and value and isinstance(value[0], dict):
            return set().union(*(paths(item, prefix.rstrip(".") + "[].") for item in value))
        return {prefix.rstrip(".")}

    fields = set(vendored["fields"])
    for path in paths({k: v for k, v in written.items() if k != "metadata"}):
        assert path in fields, path
