"""``FlexStartGroup`` against gcloud's own requests: the instance template (Flex-start and
reservation-bound, zonal and regional), the managed instance group and the resize request.

pulumi-gcp inputs are mapped to the REST fields the provider sends
(:mod:`pulumi_dws.testing.gcp_rest`, terraform-provider-google's expanders), then compared
field for field with what ``gcloud beta`` sends for the same flags."""

from __future__ import annotations

from typing import Any

import pulumi
import pytest

from pulumi_dws import FlexStartGroup
from pulumi_dws.testing import GcpMocks
from pulumi_dws.testing.gcloud import (
    GcloudCommand,
    GcloudRuns,
    field_differences,
    gcloud_unavailable_reason,
)
from pulumi_dws.testing.gcp_rest import group_body, template_properties

TEMPLATE = "gcp:compute/instanceTemplate:InstanceTemplate"
REGION_TEMPLATE = "gcp:compute/regionInstanceTemplate:RegionInstanceTemplate"
MIG = "gcp:compute/instanceGroupManager:InstanceGroupManager"
REGION_MIG = "gcp:compute/regionInstanceGroupManager:RegionInstanceGroupManager"
REQUEST = "pulumi-python:dynamic/dws:MigResizeRequest"

_SHAPE = ["--labels=team=ml", "--metadata=enable-oslogin=TRUE"]
_FLEX = [
    "--machine-type=a3-highgpu-8g",
    "--provisioning-model=FLEX_START",
    "--instance-termination-action=DELETE",
    "--reservation-affinity=none",
    "--maintenance-policy=TERMINATE",
    "--no-restart-on-failure",
    "--max-run-duration=3d",
]
_BOUND = [
    "--machine-type=a3-ultragpu-8g",
    "--provisioning-model=RESERVATION_BOUND",
    "--reservation-affinity=specific",
    "--instance-termination-action=DELETE",
    "--maintenance-policy=TERMINATE",
    "--no-restart-on-failure",
]
_TEMPLATE_CMD = ["beta", "compute", "instance-templates", "create", "t-1"]
_REGIONAL = "--instance-template-region=us-central1"
_RESERVATION = "projects/demo-project/reservations/my-calendar-res"

# case -> (gcloud flags, FlexStartGroup args)
_GROUP = {"project": "demo-project", "labels": {"team": "ml"}}
_GROUP |= {"metadata": {"enable-oslogin": "TRUE"}}
CASES: dict[str, tuple[list[str], dict[str, Any]]] = {
    "flex-zonal": (
        [*_FLEX, *_SHAPE],
        {**_GROUP, "zone": "us-central1-a", "machine_type": "a3-highgpu-8g", "count": 4}
        | {"run_duration": "3d"},
    ),
    "flex-regional": (
        [*_FLEX, *_SHAPE, _REGIONAL],
        {**_GROUP, "region": "us-central1", "machine_type": "a3-highgpu-8g", "count": 4}
        | {"run_duration": "3d"},
    ),
    "bound-zonal": (
        [*_BOUND, "--reservation=my-calendar-res", *_SHAPE],
        {**_GROUP, "zone": "us-central1-a", "machine_type": "a3-ultragpu-8g", "count": 2}
        | {"provisioning": "reservation_bound", "reservation": "my-calendar-res"},
    ),
    "bound-regional": (
        [*_BOUND, f"--reservation={_RESERVATION}", *_SHAPE, _REGIONAL],
        {**_GROUP, "region": "us-central1", "machine_type": "a3-ultragpu-8g", "count": 2}
        | {"provisioning": "reservation_bound", "reservation": _RESERVATION},
    ),
}
TEMPLATE_COMMANDS = {
    case: GcloudCommand.of([*_TEMPLATE_CMD, *flags]) for case, (flags, _) in CASES.items()
}
_MIG = ["beta", "compute", "instance-groups", "managed", "create", "trainers", "--size=0"]
_MIG += ["--template=t-1", "--default-action-on-vm-failure=do-nothing"]
MIG_COMMANDS = {
    "zonal": GcloudCommand.of([*_MIG, "--zone=us-central1-a"]),
    "regional": GcloudCommand.of(
        [
            *_MIG,
            "--region=us-central1",
            "--target-distribution-shape=any-single-zone",
            "--instance-redistribution-type=none",
        ]
    ),
}
_RR = ["beta", "compute", "instance-groups", "managed", "resize-requests", "create", "trainers"]
_RR += ["--resize-request=trainers"]
REQUEST_COMMANDS = {
    "zonal": GcloudCommand.of(
        [*_RR, "--resize-by=4", "--requested-run-duration=3d", "--zone=us-central1-a"]
    ),
    "regional": GcloudCommand.of(
        [*_RR, "--resize-by=4", "--requested-run-duration=3d", "--region=us-central1"]
    ),
    "no-duration": GcloudCommand.of([*_RR, "--resize-by=2", "--zone=us-central1-a"]),
}


def registered(args: dict[str, Any]) -> GcpMocks:
    """The component as registered, its group named as gcloud's (``trainers``)."""
    mocks = GcpMocks(project="demo-project")
    named = {"group_name": "trainers", **args}
    mocks.run(lambda: pulumi.Output.from_input(FlexStartGroup("trainers", named).group_name))
    return mocks


DWS_PROPERTIES = ("machineType", "scheduling", "reservationAffinity", "labels", "metadata")


def template_rest(inputs: dict[str, Any]) -> dict[str, Any]:
    """The REST ``properties`` fields a pulumi-gcp template's DWS inputs become."""
    properties = template_properties(inputs, inputs.get("region"))
    return {key: properties[key] for key in DWS_PROPERTIES}


@pytest.mark.gcloud(*TEMPLATE_COMMANDS.values())
@pytest.mark.parametrize("case", list(CASES))
def test_the_template_equals_what_gcloud_sends(case: str, gcloud_runs: GcloudRuns) -> None:
    reason = gcloud_unavailable_reason("beta")
    if reason:
        pytest.skip(reason)
    capture = gcloud_runs.run(TEMPLATE_COMMANDS[case].args)
    assert capture.ok, capture.describe()
    request = capture.create_request()
    sent = capture.canonical(request.body)
    _, args = CASES[case]
    regional = "region" in args
    mocks = registered(args)
    template = mocks.one(REGION_TEMPLATE if regional else TEMPLATE).inputs
    ours = template_rest(template)
    theirs = {key: sent["properties"][key] for key in ours}
    assert field_differences(ours, theirs) == []
    if regional:
        assert request.path.endswith("/regions/us-central1/instanceTemplates")
        assert sent["region"] == template["region"] == "us-central1"
    else:
        assert request.path.endswith("/global/instanceTemplates")


def _mig_rest(inputs: dict[str, Any]) -> dict[str, Any]:
    """The REST fields of a pulumi-gcp MIG's inputs that gcloud's flags set."""
    body = group_body(inputs)
    out: dict[str, Any] = {"instanceLifecyclePolicy": body["instanceLifecyclePolicy"]}
    if "distributionPolicy" in body:
        out["distributionPolicy"] = body["distributionPolicy"]
        redistribution = body["updatePolicy"]["instanceRedistributionType"]
        out["updatePolicy"] = {"instanceRedistributionType": redistribution}
    return out


@pytest.mark.gcloud(*MIG_COMMANDS.values())
@pytest.mark.parametrize("where", list(MIG_COMMANDS))
def test_the_group_sets_what_gclouds_resize_request_group_sets(
    where: str, gcloud_runs: GcloudRuns
) -> None:
    """gcloud's ``--size=0 --default-action-on-vm-failure=do-nothing`` (regional also
    ``--target-distribution-shape=any-single-zone --instance-redistribution-type=none``):
    the same settings; the size is 0 because pulumi-gcp sends 0 when ``target_size`` is unset
    (and the component ignores later changes)."""
    reason = gcloud_unavailable_reason("beta")
    if reason:
        pytest.skip(reason)
    capture = gcloud_runs.run(MIG_COMMANDS[where].args)
    assert capture.ok, capture.describe()
    sent = capture.canonical(capture.create_request().body)
    args = CASES["flex-regional" if where == "regional" else "flex-zonal"][1]
    mocks = registered(args)
    group = mocks.one(REGION_MIG if where == "regional" else MIG)
    ours = _mig_rest(group.inputs)
    assert field_differences(ours, {key: sent[key] for key in ours}) == []
    assert sent["targetSize"] == 0 and "targetSize" not in group.inputs
    assert sent["name"] == group.inputs["name"]
    assert set(sent) - set(ours) - {"name", "targetSize", "zone", "region", "instanceTemplate"} == (
        set()
    )


@pytest.mark.gcloud(*REQUEST_COMMANDS.values())
@pytest.mark.parametrize("case", list(REQUEST_COMMANDS))
def test_the_resize_request_body_equals_what_gcloud_sends(
    case: str, gcloud_runs: GcloudRuns
) -> None:
    reason = gcloud_unavailable_reason("beta")
    if reason:
        pytest.skip(reason)
    capture = gcloud_runs.run(REQUEST_COMMANDS[case].args)
    assert capture.ok, capture.describe()
    # (the oracle treats the nested resizeRequests collection as an action on the group)
    (request,) = [
        r for r in capture.requests if r.method == "POST" and r.path.endswith("/resizeRequests")
    ]
    args = {
        "zonal": CASES["flex-zonal"][1],
        "regional": CASES["flex-regional"][1],
        "no-duration": CASES["bound-zonal"][1],
    }[case]
    ours = registered(args).one(REQUEST).inputs
    # Pulumi carries every number as a float (4.0): the provider sends it whole.
    body = {**ours["body"], "resizeBy": int(ours["body"]["resizeBy"])}
    assert body["resizeBy"] == ours["body"]["resizeBy"]
    assert field_differences(body, request.body) == []
    location = f"regions/{ours['region']}" if case == "regional" else f"zones/{ours['zone']}"
    assert request.path.endswith(
        f"/{location}/instanceGroupManagers/{ours['group']}/resizeRequests"
    )
