"""``FlexStartGroup`` under GcpMocks: its children (types, inputs, parents, options), the
request body, every rejection, reservation-bound groups, the policy rules and the blueprint."""

from __future__ import annotations

from typing import Any

import pulumi
import pytest
from component_helpers import stack_default

from pulumi_dws import CalendarReservation, FlexStartGroup, FlexStartInstance, clock
from pulumi_dws.blueprint import deploy_from_config
from pulumi_dws.errors import DwsValidationError
from pulumi_dws.kinds.flex_group.component import TYPE
from pulumi_dws.policy import capacity_summary, evaluate
from pulumi_dws.testing import GcpMocks
from pulumi_dws.testing.samples import SAMPLE_NOW

TEMPLATE = "gcp:compute/instanceTemplate:InstanceTemplate"
REGION_TEMPLATE = "gcp:compute/regionInstanceTemplate:RegionInstanceTemplate"
MIG = "gcp:compute/instanceGroupManager:InstanceGroupManager"
REGION_MIG = "gcp:compute/regionInstanceGroupManager:RegionInstanceGroupManager"
REQUEST = "pulumi-python:dynamic/dws:MigResizeRequest"
FUTURE = "gcp:compute/futureReservation:FutureReservation"
BASE: dict[str, Any] = {
    "project": "proj",
    "zone": "us-central1-a",
    "machine_type": "a3-highgpu-8g",
    "count": 4,
    "run_duration": "3d",
}
FLEX_SCHEDULING = {
    "provisioningModel": "FLEX_START",
    "maxRunDuration": {"seconds": 259200},
    "instanceTerminationAction": "DELETE",
    "automaticRestart": False,
    "onHostMaintenance": "TERMINATE",
}


def build(args: dict[str, Any], name: str = "trainers") -> tuple[GcpMocks, dict[str, Any]]:
    mocks = GcpMocks(project="mock-project")

    def program() -> Any:
        group = FlexStartGroup(name, args)
        return pulumi.Output.all(
            self_link=group.self_link,
            state=group.request_state,
            names=group.instance_names,
            ends=group.run_ends_at,
        )

    return mocks, mocks.run(program)


def test_zonal_group_registers_template_group_and_request_under_the_component() -> None:
    mocks, outputs = build(BASE)
    assert mocks.types() == [TYPE, TEMPLATE, MIG, REQUEST]
    component = mocks.one(TYPE, "trainers")
    template = mocks.one(TEMPLATE)
    group = mocks.one(MIG, "trainers-group")
    request = mocks.one(REQUEST, "trainers-request")
    assert {group.parent, request.parent} == {component.urn}
    assert template.name.startswith("flex-group-shape-")  # shared by the groups of its shape
    assert template.parent.endswith("pulumi:pulumi:Stack::project-dev")
    assert template.inputs["scheduling"] == FLEX_SCHEDULING
    assert template.inputs["reservationAffinity"] == {"type": "NO_RESERVATION"}
    assert template.inputs["machineType"] == "a3-highgpu-8g"
    name = template.outputs["name"]
    assert group.inputs["versions"] == [
        {"instanceTemplate": f"projects/proj/global/instanceTemplates/{name}"}
    ]
    assert group.dependencies == [template.urn]
    assert outputs["self_link"] == group.outputs["selfLink"]
    assert outputs["state"] == "SUCCEEDED" and len(outputs["names"]) == 4
    assert all(n.startswith("trainers-") for n in outputs["names"]) and outputs["ends"]


def test_the_group_starts_empty_and_only_resize_requests_size_it() -> None:
    mocks, _ = build(BASE)
    group = mocks.one(MIG)
    assert "targetSize" not in group.inputs  # never sent: a later up cannot reset it
    # a group made with an earlier default name keeps it
    assert group.ignore_changes == ["targetSize", "name", "baseInstanceName"]
    assert group.inputs["instanceLifecyclePolicy"] == {"defaultActionOnFailure": "DO_NOTHING"}
    named = stack_default("trainers")  # two stacks of one program never share a group
    assert group.inputs["name"] == group.inputs["baseInstanceName"] == named
    given, _ = build({**BASE, "group_name": "trainers"})
    assert given.one(MIG).ignore_changes == ["targetSize"]
    assert group.inputs["zone"] == "us-central1-a" and group.inputs["waitForInstances"] is False
    assert not [r for r in mocks.registered if "autoscaler" in r.type.lower()]


def test_the_request_is_gclouds_body_replaced_not_updated() -> None:
    mocks, _ = build(BASE)
    group = mocks.one(MIG)
    request = mocks.one(REQUEST)
    named = stack_default("trainers")
    assert request.inputs["body"] == {
        "name": named,
        "resizeBy": 4,
        "requestedRunDuration": {"seconds": "259200"},
    }
    assert request.inputs["group"] == group.outputs["name"] == named
    assert request.ignore_changes == ["name", "body.name"]
    assert request.inputs["zone"] == "us-central1-a" and request.inputs.get("region") is None
    assert request.inputs["project"] == "proj" and request.inputs["waitFor"] == "running"
    assert request.delete_before_replace is True
    assert group.urn in request.dependencies


def test_regional_group_any_single_zone_no_redistribution() -> None:
    args = {k: v for k, v in BASE.items() if k != "zone"} | {"region": "us-central1"}
    mocks, outputs = build(args)
    assert mocks.types() == [TYPE, REGION_TEMPLATE, REGION_MIG, REQUEST]
    template = mocks.one(REGION_TEMPLATE).inputs
    assert template["region"] == "us-central1" and template["scheduling"] == FLEX_SCHEDULING
    group = mocks.one(REGION_MIG)
    assert group.inputs["distributionPolicyTargetShape"] == "ANY_SINGLE_ZONE"
    assert "distributionPolicyZones" not in group.inputs  # Google's default zones
    assert group.inputs["updatePolicy"]["instanceRedistributionType"] == "NONE"
    assert "targetSize" not in group.inputs and group.ignore_changes[0] == "targetSize"
    request = mocks.one(REQUEST).inputs
    assert request["region"] == "us-central1" and request.get("zone") is None
    named = stack_default("trainers")
    assert outputs["self_link"].endswith(f"/regions/us-central1/instanceGroupManagers/{named}")


def test_wait_for_accepted_returns_a_queued_request_without_vms() -> None:
    _, outputs = build({**BASE, "wait_for": "accepted"})
    assert outputs["state"] == "ACCEPTED" and outputs["names"] == [] and outputs["ends"] is None


def test_vm_settings_go_on_the_template() -> None:
    mocks, _ = build(
        {
            **BASE,
            "labels": {"team": "ml"},
            "metadata": {"enable-oslogin": "TRUE"},
            "startup_script": "echo hi",
            "subnetwork": "sub-a",
            "public_ip": True,
            "service_account": "sa@proj.iam.gserviceaccount.com",
            "boot_disk_size_gb": 500,
        }
    )
    template = mocks.one(TEMPLATE).inputs
    assert template["labels"] == {"team": "ml"}
    assert template["metadata"] == {"enable-oslogin": "TRUE", "startup-script": "echo hi"}
    assert template["networkInterfaces"] == [{"subnetwork": "sub-a", "accessConfigs": [{}]}]
    assert template["serviceAccount"]["email"] == "sa@proj.iam.gserviceaccount.com"
    assert template["disks"][0]["diskSizeGb"] == 500


def test_the_vm_settings_are_the_same_code_as_flex_start_instances() -> None:
    """One template builder: the same settings give the same disks, network and account."""
    settings = {"image": "img", "subnetwork": "s", "scopes": ["x"], "boot_disk_type": "pd-ssd"}
    group, _ = build({**BASE, **settings})
    single = GcpMocks(project="mock-project")
    single.run(
        lambda: FlexStartInstance(
            "one",
            {
                "project": "proj",
                "zone": "us-central1-a",
                "machine_type": "a3-highgpu-8g",
                "max_run_duration": "3d",
                **settings,  # type: ignore[typeddict-item]
            },
        )
    )
    a, b = group.one(TEMPLATE).inputs, single.one(TEMPLATE).inputs
    for key in ("disks", "networkInterfaces", "serviceAccount", "machineType", "project"):
        assert a[key] == b[key], key


def test_reservation_bound_by_name() -> None:
    mocks, _ = build(
        {
            **BASE,
            "provisioning": "reservation_bound",
            "reservation": "my-calendar-res",
            "run_duration": None,
        }
    )
    template = mocks.one(TEMPLATE).inputs
    assert template["scheduling"] == {
        "provisioningModel": "RESERVATION_BOUND",
        "instanceTerminationAction": "DELETE",
        "automaticRestart": False,
        "onHostMaintenance": "TERMINATE",
    }
    assert template["reservationAffinity"] == {
        "type": "SPECIFIC_RESERVATION",
        "specificReservation": {
            "key": "compute.googleapis.com/reservation-name",
            "values": ["my-calendar-res"],
        },
    }
    assert mocks.one(REQUEST).inputs["body"] == {"name": stack_default("trainers"), "resizeBy": 4}


def _reserved(**extra: Any) -> dict[str, Any]:
    return {
        "project": "proj",
        "zone": "us-central1-a",
        "machine_type": "a3-highgpu-8g",
        "count": 4,
        "start_time": "+2w",
        "duration": "7d",
        **extra,
    }


def test_reservation_bound_on_a_calendar_reservation() -> None:
    mocks = GcpMocks(project="mock-project")

    def program() -> None:
        block = CalendarReservation("block", _reserved())  # type: ignore[arg-type]
        FlexStartGroup(
            "trainers",
            {**BASE, "provisioning": "reservation_bound", "reservation": block},  # type: ignore[typeddict-item]
        )

    with clock.frozen(SAMPLE_NOW):
        mocks.run(program)
    template = mocks.one(TEMPLATE).inputs
    assert template["scheduling"]["provisioningModel"] == "RESERVATION_BOUND"
    assert template["reservationAffinity"]["specificReservation"]["values"] == ["block"]
    # the VMs are counted once: on the reservation
    summary = capacity_summary(mocks.registered)
    assert summary["gpus"] == 32
    request = next(r for r in summary["resources"] if r["kind"] == "resize_request")
    assert request["counted"] is False and request["gpus"] == 32


@pytest.mark.parametrize(
    ("reservation", "group", "field", "text"),
    [
        ({"machine_type": "a3-megagpu-8g"}, {}, "machine_type", "does not match the reservation"),
        ({"count": 2}, {}, "count", "above the reservation's 2 VMs"),
        ({"zone": "us-central1-b"}, {}, "zone", "does not match the reservation's zone"),
        ({"zone": "us-east4-a"}, {"zone": None, "region": "us-central1"}, "region", "us-east4-a"),
    ],
)
def test_a_calendar_reservation_must_fit_the_group(
    reservation: dict[str, Any], group: dict[str, Any], field: str, text: str
) -> None:
    mocks = GcpMocks(project="mock-project")
    args = {**BASE, "provisioning": "reservation_bound", **group}
    args = {k: v for k, v in args.items() if v is not None}

    def program() -> None:
        block = CalendarReservation("block", _reserved(**reservation))  # type: ignore[arg-type]
        FlexStartGroup("trainers", {**args, "reservation": block})  # type: ignore[typeddict-item]

    with clock.frozen(SAMPLE_NOW), pytest.raises(DwsValidationError) as info:
        mocks.run(program)
    assert info.value.field == field and text in str(info.value)
    assert not mocks.resources(REQUEST) and not mocks.resources(TEMPLATE)


@pytest.mark.parametrize(
    ("extra", "field", "text"),
    [
        ({"region": "us-central1"}, "zone", "give zone or region, not both"),
        ({"zone": None}, "zone", "give zone or region, not neither"),
        ({"zone": "us-central1-z"}, "zone", "us-central1-z"),
        ({"zone": None, "region": "mars-1"}, "region", "mars-1"),
        ({"count": 0}, "count", "below"),
        ({"count": 1001}, "count", "above"),
        ({"count": 2.5}, "count", "whole number"),
        ({"run_duration": "5m"}, "run_duration", "below"),
        ({"run_duration": "8d"}, "run_duration", "above"),
        ({"run_duration": None}, "run_duration", "required with provisioning flex_start"),
        ({"provisioning": "spot"}, "provisioning", "flex_start"),
        ({"reservation": "res-a"}, "reservation", "cannot be used with provisioning flex_start"),
        ({"provisioning": "reservation_bound"}, "reservation", "is required"),
        (
            {"provisioning": "reservation_bound", "reservation": "Bad_Name"},
            "reservation",
            "Bad_Name",
        ),
        ({"machine_type": "n2-standard-8"}, "machine_type", "n2-standard-8"),
        ({"wait_for": "done"}, "wait_for", "accepted"),
        ({"group_name": "Trainers"}, "group_name", "Trainers"),
        ({"group_name": "g" * 64}, "group_name", "63"),
        ({"autoscaler": {"max": 8}}, "autoscaler", "must not be autoscaled"),
        ({"target_size": 4}, "target_size", "resize requests own"),
        ({"distribution_policy_target_shape": "EVEN"}, "distribution_policy_target_shape", "ANY"),
        ({"placement_policy": "compact"}, "placement_policy", "placement policy"),
        (
            {"startup_script": "x", "metadata": {"startup-script": "y"}},
            "startup_script",
            "not both",
        ),
    ],
)
def test_every_rejection_names_field_value_and_range(
    extra: dict[str, Any], field: str, text: str
) -> None:
    args = {k: v for k, v in {**BASE, **extra}.items() if v is not None}
    mocks = GcpMocks()
    with pytest.raises(DwsValidationError) as info:
        mocks.run(lambda: FlexStartGroup("trainers", args))  # type: ignore[arg-type]
    assert info.value.field == field, str(info.value)
    assert text in str(info.value)
    assert mocks.registered == []  # nothing registered before validation passed


def test_the_component_name_is_the_default_group_name() -> None:
    with pytest.raises(DwsValidationError, match="group_name"):
        GcpMocks().run(lambda: FlexStartGroup("Trainers", BASE))  # type: ignore[arg-type]
    mocks, _ = build({**BASE, "group_name": "a3-set"}, name="Trainers")
    assert mocks.one(MIG).inputs["name"] == "a3-set"
    assert mocks.one(REQUEST).inputs["body"]["name"] == "a3-set"


def test_the_rules_check_the_group_through_its_template_and_request() -> None:
    mocks, _ = build({**BASE, "public_ip": True, "count": 8})
    found = evaluate(
        mocks.registered,
        {"gpu-budget": {"maxGpus": 32}, "required-labels": {"requiredLabels": ["team"]}},
    )
    by_rule = {v.rule: v.message for v in found}
    assert "flex-group-shape-" in by_rule["no-public-ip-on-accelerators"]
    assert "lacks required label(s) team" in by_rule["required-labels"]
    assert "asks for 64 GPUs" in by_rule["gpu-budget"]  # 8 VMs x 8 H100


def test_capacity_is_count_x_gpus_x_hours() -> None:
    mocks, _ = build(BASE)
    summary = capacity_summary(mocks.registered)
    assert summary["gpus"] == 32 and summary["gpu_hours"] == 32 * 72
    assert summary["unknown"] == []


def test_blueprint_kind_flex_start_groups() -> None:
    mocks = GcpMocks(project="my-ml-project")
    config = {"dws:capacity": {"flex_start_groups": [{**BASE, "name": "set-a"}]}}
    built = mocks.run(lambda: sorted(deploy_from_config()), config=config)
    assert built == ["flex_start_groups/set-a"]
    assert mocks.one(REQUEST, "set-a-request").inputs["body"]["resizeBy"] == 4


def test_blueprint_rejects_a_bad_group_with_its_path() -> None:
    config = {"dws:capacity": {"flex_start_groups": [{**BASE, "name": "x", "count": 0}]}}
    with pytest.raises(DwsValidationError) as info:
        GcpMocks().run(deploy_from_config, config=config)
    assert str(info.value).startswith("dws:capacity.flex_start_groups[0].count: 0 is below")


def test_raw_pulumi_gcp_template_group_and_resize_request_are_counted_too() -> None:
    import pulumi_gcp as gcp

    def program() -> None:
        template = gcp.compute.InstanceTemplate(
            "raw-template",
            machine_type="a3-highgpu-8g",
            disks=[{"boot": True, "source_image": "debian-cloud/debian-12"}],
            network_interfaces=[{"network": "default"}],
            scheduling={"provisioning_model": "FLEX_START", "max_run_duration": {"seconds": 7200}},
            labels={"team": "ml"},
        )
        group = gcp.compute.InstanceGroupManager(
            "raw-group",
            zone="us-central1-a",
            name="raw",
            base_instance_name="raw",
            versions=[{"instance_template": template.self_link}],
        )
        gcp.compute.ResizeRequest(
            "raw-request",
            zone="us-central1-a",
            instance_group_manager=group.name,
            resize_by=2,
            requested_run_duration={"seconds": "3600"},
        )

    mocks = GcpMocks(project="mock-project")
    mocks.run(program)
    summary = capacity_summary(mocks.registered)
    assert summary["gpus"] == 16 and summary["gpu_hours"] == 16  # the request's 1 h, not 2 h


@pytest.mark.parametrize(
    ("field", "value"), [("count", 4), ("machine_type", "a3-highgpu-8g")], ids=str
)
def test_what_decides_the_capacity_must_be_known_while_the_program_runs(
    field: str, value: Any
) -> None:
    mocks = GcpMocks()
    with pytest.raises(DwsValidationError) as info:
        mocks.run(
            lambda: FlexStartGroup(
                "trainers",
                {**BASE, field: pulumi.Output.from_input(value)},  # type: ignore[misc]
            )
        )
    assert info.value.field == field and "must be known" in str(info.value), str(info.value)
    assert mocks.registered == []


def test_a_zone_may_be_an_output_checked_once_known() -> None:
    mocks, _ = build({**BASE, "zone": pulumi.Output.from_input("us-central1-b")})
    assert mocks.one(MIG).inputs["zone"] == "us-central1-b"
    assert mocks.one(REQUEST).inputs["zone"] == "us-central1-b"


def test_groups_of_one_shape_share_a_template_a_protected_one_has_its_own() -> None:
    mocks = GcpMocks(project="mock-project")

    def program() -> Any:
        FlexStartGroup("a", BASE)
        FlexStartGroup("b", {**BASE, "count": 8})  # the count is not the VMs' shape
        FlexStartGroup("c", {**BASE, "labels": {"team": "other"}})
        FlexStartGroup(
            "d", {**{k: v for k, v in BASE.items() if k != "zone"}, "region": "us-central1"}
        )
        FlexStartGroup("e", BASE, pulumi.ResourceOptions(protect=True))
        return 1

    mocks.run(program)
    zonal = mocks.resources(TEMPLATE)
    shared = sorted(t.name for t in zonal if t.name.startswith("flex-group-shape-"))
    assert len(shared) == 2  # a and b; c
    assert [t.name for t in zonal if not t.name.startswith("flex-group-shape-")] == ["e-template"]
    (regional,) = mocks.resources(REGION_TEMPLATE)
    assert regional.inputs["region"] == "us-central1" and regional.name.startswith("flex-group")
    links = {g.name: g.inputs["versions"][0]["instanceTemplate"] for g in mocks.resources(MIG)}
    assert links["a-group"] == links["b-group"] != links["c-group"]
    assert links["e-group"] == mocks.one(TEMPLATE, "e-template").outputs["selfLink"]
    summary = capacity_summary(mocks.registered)
    assert summary["gpus"] == (4 + 8 + 4 + 4 + 4) * 8  # every request finds its template
