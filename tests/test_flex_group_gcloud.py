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
from pulumi_dws.testing.gcp_rest import group_body, resource_policy_body, template_properties

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
_REGIONAL_MIG = [
    *_MIG,
    "--region=us-central1",
    "--target-distribution-shape=any-single-zone",
    "--instance-redistribution-type=none",
]
_POLICY_PATH = "projects/demo-project/regions/us-central1/resourcePolicies/trainers"
MIG_COMMANDS = {
    "zonal": GcloudCommand.of([*_MIG, "--zone=us-central1-a"]),
    "regional": GcloudCommand.of(_REGIONAL_MIG),
    "frontier": GcloudCommand.of(
        [
            *_REGIONAL_MIG,
            "--zones=us-central1-b,us-central1-ai1a",
            f"--workload-policy={_POLICY_PATH}",
        ]
    ),
}
FRONTIER_ARGS: dict[str, Any] = {
    **_GROUP,
    "region": "us-central1",
    "zones": ["us-central1-b", "us-central1-ai1a"],
    "machine_type": "a4-highgpu-8g",
    "count": 16,
    "run_duration": "2d",
    "placement": {"max_topology_distance": "BLOCK"},
}
_WP = ["compute", "resource-policies", "create", "workload-policy", "trainers"]
_WP += ["--type=HIGH_THROUGHPUT", "--region=us-central1"]
POLICY_COMMANDS = {
    "max-topology-distance": GcloudCommand.of([*_WP, "--max-topology-distance=BLOCK"]),
    "accelerator-topology": GcloudCommand.of([*_WP, "--accelerator-topology=1x72"]),
}
POLICY_ARGS: dict[str, dict[str, Any]] = {
    "max-topology-distance": FRONTIER_ARGS,
    "accelerator-topology": {
        **_GROUP,
        "zone": "us-central1-a",
        "machine_type": "a4x-highgpu-4g",
        "count": 18,
        "provisioning": "reservation_bound",
        "reservation": "my-calendar-res",
        "placement": {"accelerator_topology": "1x72"},
    },
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


def _relative(link: str) -> str:
    """``projects/...`` of a full or partial resource URL (the API takes either)."""
    return "projects/" + link.split("projects/", 1)[1] if "projects/" in link else link


def _mig_rest(body: dict[str, Any]) -> dict[str, Any]:
    """The REST fields of a MIG create body that gcloud's flags set, links made relative and
    zones named (gcloud sends full URLs, pulumi-gcp ``zones/<zone>``)."""
    out: dict[str, Any] = {
        "name": body["name"],
        "targetSize": body["targetSize"],
        "instanceLifecyclePolicy": {
            "defaultActionOnFailure": body["instanceLifecyclePolicy"]["defaultActionOnFailure"]
        },
    }
    policy = body.get("distributionPolicy")
    if policy:
        out["distributionPolicy"] = {
            "targetShape": policy["targetShape"],
            "zones": [z["zone"].rsplit("/", 1)[-1] for z in policy.get("zones") or []],
        }
        out["updatePolicy"] = {
            "instanceRedistributionType": body["updatePolicy"]["instanceRedistributionType"]
        }
    workload = (body.get("resourcePolicies") or {}).get("workloadPolicy")
    if workload:  # the policy's name: gcloud's is given, the group's autonamed (see below)
        path = _relative(workload).rsplit("/", 1)[0]
        out["resourcePolicies"] = {"workloadPolicy": f"{path}/<policy>"}
    return out


# What the pulumi-gcp provider sends besides what gcloud's flags set, and why (see
# pulumi_dws.testing.gcp_rest for the provider source each comes from).
PROVIDER_ADDS = {
    "baseInstanceName": "a required pulumi-gcp input (gcloud defaults it to the name)",
    "versions": "pulumi-gcp names the template in versions, gcloud in instanceTemplate",
    "listManagedInstancesResults": "the provider's schema default, PAGELESS",
    "statefulPolicy": "always sent: {preservedState: {}}",
    "standbyPolicy": "always sent: {}",
    "params": "always sent: {}",
    "description": "the zonal provider sends an empty description",
    "resourcePolicies": "always sent, {workloadPolicy: null} without one",
    "updatePolicy": "a zonal group's is {} (nothing set)",
}


@pytest.mark.gcloud(*MIG_COMMANDS.values())
@pytest.mark.parametrize("where", list(MIG_COMMANDS))
def test_the_group_sets_what_gclouds_resize_request_group_sets(
    where: str, gcloud_runs: GcloudRuns
) -> None:
    """gcloud's ``--size=0 --default-action-on-vm-failure=do-nothing`` (regional also
    ``--target-distribution-shape=any-single-zone --instance-redistribution-type=none``, and
    for a frontier group ``--zones=... --workload-policy=...``): the same settings, from the
    body the pulumi-gcp provider sends; the size is 0 because the provider sends 0 when
    ``target_size`` is unset (and the component ignores later changes). Every other field the
    provider sends is one it forces (PROVIDER_ADDS)."""
    reason = gcloud_unavailable_reason("beta")
    if reason:
        pytest.skip(reason)
    capture = gcloud_runs.run(MIG_COMMANDS[where].args)
    assert capture.ok, capture.describe()
    sent = capture.canonical(capture.create_request().body)
    args = {
        "zonal": CASES["flex-zonal"][1],
        "regional": CASES["flex-regional"][1],
        "frontier": FRONTIER_ARGS,
    }[where]
    mocks = registered(args)
    group = mocks.one(MIG if where == "zonal" else REGION_MIG)
    body = group_body(group.inputs)
    assert field_differences(_mig_rest(body), _mig_rest(sent)) == []
    assert "targetSize" not in group.inputs
    unexplained = set(body) - set(sent) - set(PROVIDER_ADDS) - {"region", "zone"}
    assert unexplained == set()
    if where == "frontier":
        policy = mocks.one("gcp:compute/resourcePolicy:ResourcePolicy")
        assert body["resourcePolicies"]["workloadPolicy"] == policy.outputs["selfLink"]
    if where != "zonal":  # gcloud sends no surge or unavailability: Google's defaults
        assert "maxSurge" not in sent["updatePolicy"]
        assert body["updatePolicy"]["maxUnavailable"]["fixed"] == (
            len(args.get("zones") or []) or 3
        )


@pytest.mark.gcloud(*POLICY_COMMANDS.values())
@pytest.mark.parametrize("case", list(POLICY_COMMANDS))
def test_the_workload_policy_equals_what_gcloud_sends(case: str, gcloud_runs: GcloudRuns) -> None:
    """``gcloud compute resource-policies create workload-policy`` and the group's
    ``ResourcePolicy`` child, as the pulumi-gcp provider sends it: the same name and
    ``workloadPolicy``; the region gcloud names by name, the provider as a relative link."""
    reason = gcloud_unavailable_reason()
    if reason:
        pytest.skip(reason)
    capture = gcloud_runs.run(POLICY_COMMANDS[case].args)
    assert capture.ok, capture.describe()
    request = capture.create_request()
    sent = capture.canonical(request.body)
    policy = registered(POLICY_ARGS[case]).one("gcp:compute/resourcePolicy:ResourcePolicy")
    ours = resource_policy_body(policy.inputs, policy.outputs["name"])
    allowed = {
        "region": "gcloud sends the region's name, the provider projects/P/regions/R",
        "diskConsistencyGroupPolicy": "the provider sends it null (unset)",
        "name": "a shared workload policy is autonamed (workload-policy-<fingerprint>-<suffix>)",
    }
    assert field_differences(ours, sent, allowed=allowed) == []
    assert ours["name"].startswith("workload-policy-")
    assert ours["region"] == f"projects/demo-project/regions/{sent['region']}"
    assert request.path.endswith(f"/regions/{sent['region']}/resourcePolicies")


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
