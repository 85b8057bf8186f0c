"""The frontier rules: ``frontier-group-placement`` (a stack's managed instance groups: zones of
their region, workload policies that suit the series and hold the group's VMs, A4X groups with
one) and ``frontier-machine-fit`` on what programs register, FlexStartGroup's and hand-written
pulumi-gcp alike, the pure rule and the policy pack saying the same; and bad frontier input in
``dws plan``: one error line naming the field, the value and what is allowed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pulumi_gcp as gcp
import pytest

from pulumi_dws import FlexStartGroup, GpuNetwork
from pulumi_dws.cli import main
from pulumi_dws.policy import evaluate, rule
from pulumi_dws.policy.pack import policies
from pulumi_dws.policy.values import UNKNOWN
from pulumi_dws.policy.view import ResourceView
from pulumi_dws.testing import GcpMocks
from pulumi_dws.testing.policy import find_policy, validate_stack

RULE = "frontier-group-placement"
FIT = "frontier-machine-fit"


def registered(program: Any) -> list[ResourceView]:
    mocks = GcpMocks(project="p")
    mocks.run(program)
    return [ResourceView.from_registered(r) for r in mocks.resources()]


def test_a_frontier_flex_start_group_passes_every_rule() -> None:
    def program() -> Any:
        net = GpuNetwork("net", {"zone": "us-central1-b", "machine_type": "a4-highgpu-8g"})
        return FlexStartGroup("g", {
            "region": "us-central1", "zones": ["us-central1-b", "us-central1-ai1a"],
            "machine_type": "a4-highgpu-8g", "count": 16, "run_duration": "2d",
            "placement": {"max_topology_distance": "BLOCK"}, "gpu_network": net,
            "labels": {"team": "ml"},
        }).group_name  # fmt: skip

    views = registered(program)
    assert [v for v in evaluate(views) if v.level == "mandatory"] == []


def test_an_a4x_group_on_a_reservation_passes() -> None:
    views = registered(lambda: FlexStartGroup("x", {
        "zone": "us-central1-a", "machine_type": "a4x-highgpu-4g", "count": 18,
        "provisioning": "reservation_bound", "reservation": "block",
        "placement": {"accelerator_topology": "1x72"},
    }).group_name)  # fmt: skip
    assert rule(RULE)(views) == [] and [v for v in evaluate(views) if v.rule == FIT] == []


def raw_group(
    machine: str = "a4x-highgpu-4g",
    size: int = 18,
    workload: dict[str, Any] | None = None,
    zones: list[str] | None = None,
) -> Any:
    """A hand-written regional group of ``size`` VMs on a reservation-bound template, naming a
    workload policy when given one."""

    def program() -> Any:
        template = gcp.compute.RegionInstanceTemplate(
            "t", region="us-central1", machine_type=machine,
            disks=[{"boot": True, "source_image": "debian-cloud/debian-12"}],
            network_interfaces=[{"network": "default"}],
            scheduling={"provisioning_model": "RESERVATION_BOUND", "automatic_restart": False,
                        "on_host_maintenance": "TERMINATE"},
            reservation_affinity={"type": "SPECIFIC_RESERVATION", "specific_reservation": {
                "key": "compute.googleapis.com/reservation-name", "values": ["block"]}},
            labels={"team": "ml"},
        )  # fmt: skip
        extra: dict[str, Any] = {}
        if workload is not None:
            policy = gcp.compute.ResourcePolicy(
                "wp", name="wp", region="us-central1", workload_policy=workload
            )
            extra["resource_policies"] = {"workload_policy": policy.self_link}
        if zones is not None:
            extra["distribution_policy_zones"] = zones
        return gcp.compute.RegionInstanceGroupManager(
            "g", name="g", region="us-central1", base_instance_name="g", target_size=size,
            versions=[{"instance_template": template.self_link}], **extra,
        ).name  # fmt: skip

    return program


@pytest.mark.parametrize(
    ("program", "words"),
    [
        (raw_group(), "placement: (missing) is required for a group of 18 A4X VMs"),
        (
            raw_group(workload={"type": "HIGH_THROUGHPUT", "accelerator_topology": "1x72"}, size=4),
            "placement.accelerator_topology: 1x72 does not fit a group of 4 VMs",
        ),
        (
            raw_group("a4-highgpu-8g", 4, {"type": "HIGH_THROUGHPUT", "accelerator_topology": "1x72"}),
            "placement.accelerator_topology: 1x72 is not allowed for A4",
        ),
        (
            raw_group("g2-standard-48", 4, {"type": "HIGH_THROUGHPUT", "max_topology_distance": "BLOCK"}),
            "workload policies are for A4X Max, A4X, A4, A3 Ultra",
        ),
        (
            raw_group("a4-highgpu-8g", 4, {"type": "HIGH_AVAILABILITY"}),
            "placement.type: HIGH_AVAILABILITY is not allowed; use HIGH_THROUGHPUT",
        ),
        (
            raw_group("a4-highgpu-8g", 4, None, ["us-central1-b", "us-east1-b"]),
            "distributionPolicyZones[1]: us-east1-b is not a zone of the group's region",
        ),
    ],
    ids=["a4x-without-policy", "slice-misfit", "topology-on-a4", "g2-policy", "availability", "zone"],
)  # fmt: skip
def test_hand_written_groups_break_the_rule_with_the_component_s_words(
    program: Any, words: str
) -> None:
    views = registered(program)
    found = rule(RULE)(views)
    assert len(found) == 1 and words in found[0].message, [f.message for f in found]
    (group,) = [v for v in views if v.type.endswith("RegionInstanceGroupManager")]
    assert found[0].urn == group.urn and found[0].level == "mandatory"
    reported = validate_stack(find_policy(RULE, policies()), views)
    assert [(r.detail, r.urn) for r in reported] == [(f.message, f.urn) for f in found]


def test_unknown_values_give_no_finding() -> None:
    views = registered(raw_group())
    (group,) = [v for v in views if v.type.endswith("RegionInstanceGroupManager")]
    unknown = ResourceView(
        group.type,
        group.name,
        group.urn,
        {**group.props, "targetSize": UNKNOWN},
        None,
        group.parent,
    )
    others = [v for v in views if v is not group]
    assert rule(RULE)([*others, unknown]) == []


# ---------------------------------------------------------------------- dws plan
def write_project(tmp: Path, program: str) -> Path:
    (tmp / "Pulumi.yaml").write_text("name: frontier\nruntime: python\n")
    (tmp / "Pulumi.dev.yaml").write_text("config:\n  gcp:project: p\n")
    (tmp / "__main__.py").write_text(program)
    return tmp


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            '"machine_type": "g2-standard-48", "placement": {"max_topology_distance": "BLOCK"}',
            "placement: {'max_topology_distance': 'BLOCK'} is not allowed for G2 machine type",
        ),
        (
            '"zones": ["us-east1-b"]',
            "zones[0]: us-east1-b is not in region us-central1; use a us-central1-* zone",
        ),
        (
            '"placement": {"accelerator_topology": "1x72"}',
            "placement.accelerator_topology: 1x72 is not allowed for A4",
        ),
    ],
    ids=["series", "zone", "topology"],
)
def test_plan_shows_bad_frontier_input_as_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: str, message: str
) -> None:
    program = (
        "from pulumi_dws import FlexStartGroup\n"
        'FlexStartGroup("g", {"region": "us-central1", "machine_type": "a4-highgpu-8g", '
        f'"count": 16, "run_duration": "2d", {args}}})\n'
    )
    assert main(["plan", str(write_project(tmp_path, program))]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"error: invalid configuration: {message}"), err
    assert err.count("\n") == 1


def test_plan_reports_a_hand_written_a4x_group_without_a_policy(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    program = (
        "import pulumi_gcp as gcp\n"
        't = gcp.compute.InstanceTemplate("t", machine_type="a4x-highgpu-4g",\n'
        '    disks=[{"boot": True, "source_image": "debian-cloud/debian-12"}],\n'
        '    network_interfaces=[{"network": "default"}], labels={"team": "ml"},\n'
        '    scheduling={"provisioning_model": "RESERVATION_BOUND"})\n'
        'gcp.compute.InstanceGroupManager("g", name="g", zone="us-central1-a",\n'
        '    base_instance_name="g", target_size=18,\n'
        '    versions=[{"instance_template": t.self_link}])\n'
    )
    code = main(["plan", str(write_project(tmp_path, program))])
    out = capsys.readouterr().out
    assert code == 3, out  # mandatory violations
    assert f"[mandatory] {RULE}" in out and "is required for a group of 18 A4X VMs" in out


def test_the_policy_pack_passes_the_a4_training_stack() -> None:
    from pulumi_policy import ResourceValidationPolicy

    from pulumi_dws.plan import run_plan
    from pulumi_dws.testing.policy import validate_resource

    repo = Path(__file__).resolve().parent.parent
    plan = run_plan(repo / "stacks/a4-training")
    views = [ResourceView.from_registered(r) for r in plan.registered]
    assert any(v.type.endswith("ResourcePolicy") for v in views)
    reported = []
    for policy in policies():
        if isinstance(policy, ResourceValidationPolicy):
            for view in views:
                reported += validate_resource(
                    policy, view.type, view.props, name=view.name, urn=view.urn
                )
        else:
            reported += validate_stack(policy, views)
    assert reported == []
    # ...and it is not silent: the same stack with an A4X machine breaks its rules
    a4x = [
        ResourceView(v.type, v.name, v.urn, {**v.props, "machineType": "a4x-highgpu-4g"}, None, v.parent)
        if v.type.endswith("InstanceTemplate") else v
        for v in views
    ]  # fmt: skip
    found = {f.rule for f in evaluate(a4x)}
    assert {FIT, RULE} <= found
