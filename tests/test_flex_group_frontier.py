"""``FlexStartGroup`` on frontier GPUs under GcpMocks: the update policy a regional group
registers, listed zones, workload policies (a ``ResourcePolicy`` child, or an existing one), A4X
groups created at their size on a reservation, the Flex-start check of every door, and each
bad input as one ``DwsValidationError`` naming the field, the value and what is allowed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pulumi
import pulumi_gcp as gcp
import pytest

from pulumi_dws import (
    ComputeClass,
    DwsValidationError,
    FlexStartGroup,
    FlexStartInstance,
    GpuNetwork,
    QueuedNodePool,
    SlurmCluster,
)
from pulumi_dws.kinds.flex_group.component import update_policy
from pulumi_dws.policy import capacity_summary
from pulumi_dws.testing import GcpMocks
from pulumi_dws.testing.dynamic_host import ignore_changes

REGION_MIG = "gcp:compute/regionInstanceGroupManager:RegionInstanceGroupManager"
MIG = "gcp:compute/instanceGroupManager:InstanceGroupManager"
POLICY = "gcp:compute/resourcePolicy:ResourcePolicy"
REGION_TEMPLATE = "gcp:compute/regionInstanceTemplate:RegionInstanceTemplate"
REQUEST = "pulumi-python:dynamic/dws:MigResizeRequest"
FIXTURES = Path(__file__).resolve().parent / "fixtures"
A4: dict[str, Any] = {
    "project": "proj",
    "region": "us-central1",
    "machine_type": "a4-highgpu-8g",
    "count": 16,
    "run_duration": "2d",
}
A4X: dict[str, Any] = {
    "project": "proj",
    "zone": "us-central1-a",
    "machine_type": "a4x-highgpu-4g",
    "count": 18,
    "provisioning": "reservation_bound",
    "reservation": "a4x-block",
    "placement": {"accelerator_topology": "1x72"},
}


def build(args: dict[str, Any], extra: Any = None) -> GcpMocks:
    mocks = GcpMocks(project="proj")

    def program() -> Any:
        given = {**args, **(extra() if extra else {})}
        group = FlexStartGroup("trainers", given)
        return pulumi.Output.all(group.request_state, group.instance_names)

    mocks.run(program)
    return mocks


def refused(args: dict[str, Any], extra: Any = None) -> DwsValidationError:
    mocks = GcpMocks(project="proj")
    with pytest.raises(DwsValidationError) as info:
        mocks.run(lambda: FlexStartGroup("trainers", {**args, **(extra() if extra else {})}))
    assert not mocks.resources(REGION_MIG) and not mocks.resources(MIG)
    return info.value


# ---------------------------------------------------------------------- regional groups
@pytest.mark.parametrize(("zones", "unavailable"), [(None, 3), (["us-central1-b"], 1)])
def test_a_regional_group_may_lose_up_to_its_zones_during_an_update_and_never_surges(
    zones: list[str] | None, unavailable: int
) -> None:
    args = {**A4, **({"zones": zones} if zones else {})}
    group = build(args).one(REGION_MIG).inputs
    assert group["updatePolicy"] == {
        "type": "OPPORTUNISTIC",
        "minimalAction": "REPLACE",
        "instanceRedistributionType": "NONE",
        "maxSurgeFixed": 0,
        "maxUnavailableFixed": unavailable,
    }
    assert update_policy(unavailable)["max_unavailable_fixed"] == unavailable
    assert group.get("distributionPolicyZones") == zones


def test_listed_zones_may_be_ai_zones_google_documents() -> None:
    zones = ["us-central1-b", "us-central1-ai1a"]
    assert build({**A4, "zones": zones}).one(REGION_MIG).inputs["distributionPolicyZones"] == zones


def test_an_older_regional_group_gets_max_unavailable_and_a_shared_template() -> None:
    """The upgrade note: the inputs an older pulumi-dws registered for a regional group (the
    fixture) and what the same args register now differ in the group's
    updatePolicy.maxUnavailableFixed and in its version's template, now the program's shared
    ``flex-group-shape-<fp>`` (same inputs plus a description: a new template, the old
    ``<name>-template`` child deleted); the request is unchanged."""
    old = json.loads((FIXTURES / "flex_group_regional_291f4fe.json").read_text())
    mocks = GcpMocks(project="p")
    mocks.run(lambda: FlexStartGroup("trainers", old["args"]).group_name)
    before = old["registered"]
    # what the engine sends for resources already in the state: their ignored paths (the
    # defaulted names, which now carry the stack) put back to the state's values
    now = {
        r.type: ignore_changes(
            {k: v for k, v in r.inputs.items() if k not in ("__provider", "owner")},
            before.get(r.type, {}),
            r.ignore_changes,
        )
        for r in mocks.resources(custom=True)
    }
    assert set(now) == set(before)
    template = mocks.one(REGION_TEMPLATE)
    assert (
        template.name.startswith("flex-group-shape-") and "pulumi:pulumi:Stack" in template.parent
    )
    assert now[REGION_TEMPLATE] == {
        **before[REGION_TEMPLATE],
        "description": "pulumi-dws: the VMs of Flex-start groups (FlexStartGroup)",
    }
    request = "pulumi-python:dynamic/dws:MigResizeRequest"
    # the request's group is the group's own name output, which the group keeps
    assert {**now[request], "group": before[request]["group"]} == before[request]
    group_now, group_before = dict(now[REGION_MIG]), dict(before[REGION_MIG])
    assert group_now.pop("updatePolicy") == {
        **group_before.pop("updatePolicy"),
        "maxUnavailableFixed": 3,
    }
    assert group_now.pop("versions") == [
        {
            "instanceTemplate": "projects/p/regions/us-central1/instanceTemplates/"
            + template.outputs["name"]
        }
    ]
    group_before.pop("versions")
    assert group_now == group_before


# ---------------------------------------------------------------------- workload policies
def test_a_workload_policy_is_a_resource_policy_the_group_names() -> None:
    mocks = build({**A4, "placement": {"max_topology_distance": "BLOCK"}})
    policy = mocks.one(POLICY)
    assert policy.name.startswith("workload-policy-")
    assert policy.parent.split("::")[-2].endswith("pulumi:pulumi:Stack")  # the stack's root
    assert policy.inputs["workloadPolicy"] == {
        "type": "HIGH_THROUGHPUT",
        "maxTopologyDistance": "BLOCK",
    }
    assert policy.inputs["region"] == "us-central1" and "name" not in policy.inputs  # autonamed
    group = mocks.one(REGION_MIG).inputs
    assert group["resourcePolicies"]["workloadPolicy"] == policy.outputs["selfLink"]


def test_groups_that_ask_for_the_same_policy_share_one_unless_protected() -> None:
    mocks = GcpMocks(project="proj")

    def program() -> Any:
        same = {**A4, "placement": {"max_topology_distance": "BLOCK"}}
        FlexStartGroup("a", same)
        FlexStartGroup("b", {**same, "count": 8})
        FlexStartGroup("c", {**A4, "placement": {"max_topology_distance": "CLUSTER"}})
        FlexStartGroup("d", same, pulumi.ResourceOptions(protect=True))
        return 1

    mocks.run(program)
    policies = mocks.resources(POLICY)
    shared = [p for p in policies if p.name.startswith("workload-policy-")]
    assert len(shared) == 2  # BLOCK (a, b) and CLUSTER (c)
    (own,) = [p for p in policies if not p.name.startswith("workload-policy-")]
    assert own.name == "d-placement" and own.parent.endswith("FlexStartGroup::d") and own.protect
    links = {
        g.name: g.inputs["resourcePolicies"]["workloadPolicy"] for g in mocks.resources(REGION_MIG)
    }
    assert links["a-group"] == links["b-group"] != links["c-group"]


def test_a_zonal_group_s_policy_is_in_its_zone_s_region() -> None:
    zonal = {**{k: v for k, v in A4.items() if k != "region"}, "zone": "us-east5-a"}
    mocks = build({**zonal, "placement": {"max_topology_distance": "SUBBLOCK"}})
    assert mocks.one(POLICY).inputs["region"] == "us-east5"


def test_an_existing_policy_by_name_object_or_path_is_named_not_declared() -> None:
    by_name = build({**A4, "placement": {"policy": "shared-wp"}})
    assert not by_name.resources(POLICY)
    assert by_name.one(REGION_MIG).inputs["resourcePolicies"]["workloadPolicy"] == (
        "projects/proj/regions/us-central1/resourcePolicies/shared-wp"
    )
    path = "projects/other/regions/us-central1/resourcePolicies/wp"
    assert (
        build({**A4, "placement": {"policy": path}})
        .one(REGION_MIG)
        .inputs["resourcePolicies"]["workloadPolicy"]
        == path
    )

    def existing() -> dict[str, Any]:
        made = gcp.compute.ResourcePolicy(
            "wp", region="us-central1", workload_policy={"type": "HIGH_THROUGHPUT"}
        )
        return {"placement": {"policy": made}}

    mocks = build(A4, existing)
    assert len(mocks.resources(POLICY)) == 1  # the user's, not a child
    link = mocks.one(REGION_MIG).inputs["resourcePolicies"]["workloadPolicy"]
    assert link == mocks.one(POLICY).outputs["selfLink"]


@pytest.mark.parametrize(
    ("args", "field", "words"),
    [
        (
            {**A4, "machine_type": "a3-highgpu-4g", "placement": {"max_topology_distance": "BLOCK"}},
            "placement",
            "workload policies are for A4X Max, A4X, A4, A3 Ultra, A3 Mega, A3 High (8 GPUs) and H4D",
        ),
        (
            {**A4, "machine_type": "g2-standard-48", "placement": {"policy": "wp"}},
            "placement",
            "is not allowed for G2 machine type g2-standard-48",
        ),
        ({**A4, "placement": {"accelerator_topology": "1x72"}}, "placement.accelerator_topology", "takes max_topology_distance"),
        ({**A4X, "placement": {"max_topology_distance": "BLOCK"}}, "placement.max_topology_distance", "takes accelerator_topology (1x72"),
        ({**A4X, "count": 4}, "placement.accelerator_topology", "a 1x72 slice is 18 VMs of 4 GPUs; use count 18"),
        ({**A4X, "placement": {"accelerator_topology": "2x36"}}, "placement.accelerator_topology", "use 1x72"),
        ({**A4X, "placement": None}, "placement", "is required for a group of 18 A4X VMs"),
        ({**A4X, "placement": {}}, "placement.accelerator_topology", "is required for a group of 18 A4X VMs"),
        ({**A4, "placement": {"type": "HIGH_AVAILABILITY"}}, "placement.type", "use HIGH_THROUGHPUT"),
        ({**A4, "placement": {"max_topology_distance": "NEAR"}}, "placement.max_topology_distance", "SUBBLOCK, BLOCK, CLUSTER"),
        (
            {**A4, "placement": {"max_topology_distance": "BLOCK", "accelerator_topology": "1x72"}},
            "placement.accelerator_topology",
            "one of them",
        ),
        ({**A4, "placement": {"policy": "wp", "max_topology_distance": "BLOCK"}}, "placement.policy", "used as it is"),
        ({**A4, "placement": {"policy": "regions/x/wp"}}, "placement.policy", "projects/PROJECT/regions/REGION"),
    ],
    ids=[
        "a3-high-4-gpus", "g2", "topology-on-a4", "distance-on-a4x", "slice-does-not-fit",
        "undocumented-topology", "a4x-without-policy", "a4x-without-topology", "high-availability",
        "unknown-distance", "both-properties", "policy-and-properties", "bad-policy-path",
    ],
)  # fmt: skip
def test_workload_policy_rules(args: dict[str, Any], field: str, words: str) -> None:
    given = {k: v for k, v in args.items() if v is not None}
    error = refused(given)
    assert error.field == field and words in str(error), str(error)
    assert str(error).startswith(f"{field}: ")


def test_one_a4x_vm_needs_no_workload_policy() -> None:
    args = {k: v for k, v in A4X.items() if k != "placement"} | {"count": 1}
    assert build(args).one(MIG).inputs["targetSize"] == 1


# ---------------------------------------------------------------------- A4X on a reservation
def test_an_a4x_group_is_created_at_its_size_consuming_the_reservation() -> None:
    mocks = build(A4X)
    assert not mocks.resources(REQUEST)  # Google takes no resize request for A4X
    group = mocks.one(MIG)
    # a defaulted name is kept for a group made with an earlier default; nothing else is ignored
    assert group.inputs["targetSize"] == 18
    assert group.ignore_changes == ["name", "baseInstanceName"]
    assert group.inputs["waitForInstances"] is True
    template = mocks.one("gcp:compute/instanceTemplate:InstanceTemplate").inputs
    assert template["scheduling"]["provisioningModel"] == "RESERVATION_BOUND"
    assert template["reservationAffinity"]["specificReservation"]["values"] == ["a4x-block"]
    summary = capacity_summary(mocks.registered)
    (item,) = [i for i in summary["resources"] if i["kind"] == "instance_group"]
    assert item["gpus"] == 72 and not item["counted"]  # counted on its reservation


@pytest.mark.parametrize(
    ("extra", "field", "words"),
    [
        ({"provisioning": "flex_start", "reservation": None, "run_duration": "1d"}, "machine_type", "can't be Flex-start"),
        ({"run_duration": "1d"}, "run_duration", "created at its size"),
    ],
)  # fmt: skip
def test_a4x_groups_are_reservation_bound_and_have_no_run_duration(
    extra: dict[str, Any], field: str, words: str
) -> None:
    args = {k: v for k, v in {**A4X, **extra}.items() if v is not None}
    error = refused(args)
    assert error.field == field and words in str(error)


# ---------------------------------------------------------------------- zones and sizes
@pytest.mark.parametrize(
    ("args", "field", "words"),
    [
        ({**A4, "zones": ["us-central1-b", "us-east1-b"]}, "zones[1]", "is not in region us-central1"),
        ({**A4, "zones": ["us-east5-ai1a"]}, "zones[0]", "is not a zone of us-east5"),
        ({**A4, "zones": ["us-central1-b", "us-central1-b"]}, "zones[1]", "listed twice"),
        ({**A4, "zones": []}, "zones", "at least one zone"),
        ({**{k: v for k, v in A4.items() if k != "region"}, "zone": "us-central1-a", "zones": ["us-central1-a"]}, "zones", "for regional groups"),
        ({**A4, "count": 2001}, "count", "limit of 2000"),
        ({**{k: v for k, v in A4.items() if k != "region"}, "zone": "us-central1-a", "count": 1001}, "count", "limit of 1000"),
    ],
    ids=["other-region", "unknown-ai-zone", "twice", "empty", "zonal", "regional-size", "zonal-size"],
)  # fmt: skip
def test_zone_and_size_rules(args: dict[str, Any], field: str, words: str) -> None:
    error = refused(args)
    assert error.field == field and words in str(error), str(error)


def test_a_regional_group_of_2000_vms_is_accepted() -> None:
    assert build({**A4, "count": 2000}).one(REQUEST).inputs["body"]["resizeBy"] == 2000


# ---------------------------------------------------------------------- RDMA networks
def _net(machine: str = "a4-highgpu-8g", zone: str = "us-central1-b") -> dict[str, Any]:
    return {"gpu_network": GpuNetwork("net", {"zone": zone, "machine_type": machine})}


@pytest.mark.parametrize(
    ("args", "net", "field", "words"),
    [
        (A4, {}, "zones", "must list us-central1-b, the zone of gpu_network net"),
        ({**A4, "zones": ["us-central1-a"]}, {}, "zones", "must list us-central1-b"),
        ({**{k: v for k, v in A4X.items()}, "zone": "us-central1-a"}, {}, "gpu_network", "take 2 gVNIC + 4 MRDMA"),
        ({**{k: v for k, v in A4.items() if k != "region"}, "zone": "us-central1-a"}, {}, "zone", "RDMA networks are zonal"),
        ({**A4, "zones": ["us-central1-b"], "subnetwork": "s"}, {}, "subnetwork", "can't be given with gpu_network"),
    ],
    ids=["regional-without-zones", "regional-other-zone", "a4x-on-an-a4-network", "zonal-other-zone", "subnetwork-too"],
)  # fmt: skip
def test_network_rules(args: dict[str, Any], net: dict[str, Any], field: str, words: str) -> None:
    error = refused(args, lambda: _net(**net))
    assert error.field == field and words in str(error), str(error)


def test_an_a4x_group_on_its_network_is_accepted() -> None:
    mocks = build(A4X, lambda: _net("a4x-highgpu-4g", "us-central1-a"))
    nics = mocks.one("gcp:compute/instanceTemplate:InstanceTemplate").inputs["networkInterfaces"]
    assert [n["nicType"] for n in nics] == ["GVNIC", "GVNIC", "MRDMA", "MRDMA", "MRDMA", "MRDMA"]


# ---------------------------------------------------------------------- every Flex-start door
@pytest.mark.parametrize("machine", ["a4x-highgpu-4g", "g4-standard-48", "a4x-maxgpu-4g-metal"])
def test_no_flex_start_door_takes_a4x_or_g4(machine: str) -> None:
    doors: list[tuple[str, Any]] = [
        ("machine_type", lambda: FlexStartInstance("vm", {
            "zone": "us-central1-a", "machine_type": machine, "max_run_duration": "1d"})),
        ("machine_type", lambda: FlexStartGroup("g", {
            "zone": "us-central1-a", "machine_type": machine, "count": 1, "run_duration": "1d"})),
        ("machine_type", lambda: QueuedNodePool("p", {
            "cluster": "c", "location": "us-central1", "node_locations": ["us-central1-a"],
            "machine_type": machine, "mode": "flex_start", "max_nodes": 2})),
        ("priorities[0].machine_type", lambda: ComputeClass("cc", {
            "machine_type": machine, "location": "us-central1", "zones": ["us-central1-b"],
            "priorities": [{"capacity": "flex_start"}]})),
        ("node_pools[0].machine_type", lambda: SlurmCluster("s", {
            "project": "p", "region": "us-central1", "display_name": "s",
            "login": {"machine_type": "n2-standard-8", "zone": "us-central1-a"},
            "node_pools": [{"id": "gpu", "machine_type": machine, "max_nodes": 2,
                            "provisioning_model": "FLEX_START"}]})),
    ]  # fmt: skip
    for field, door in doors:
        with pytest.raises(DwsValidationError) as info:
            GcpMocks(project="p").run(door)
        assert info.value.field == field and "can't be Flex-start" in str(info.value), str(
            info.value
        )
        assert "except A4X and G4" in str(info.value)


def test_h4d_may_be_a_flex_start_group_with_a_workload_policy_and_falcon_nics() -> None:
    args = {**A4, "machine_type": "h4d-highmem-192-lssd", "zones": ["us-central1-b"]}
    args["placement"] = {"max_topology_distance": "CLUSTER"}
    mocks = build(args, lambda: _net("h4d-highmem-192-lssd"))
    template = mocks.one(REGION_TEMPLATE).inputs
    assert [n["nicType"] for n in template["networkInterfaces"]] == ["GVNIC", "IRDMA"]
    assert mocks.one(POLICY).inputs["workloadPolicy"]["maxTopologyDistance"] == "CLUSTER"
