"""The ``mig-resize-request-group`` stack rule: a hand-written pulumi-gcp group paired with a
resize request has no autoscaler, repairs off and (regional) ``ANY_SINGLE_ZONE`` without
redistribution; a ``FlexStartGroup`` passes it."""

from __future__ import annotations

from typing import Any

import pulumi
import pulumi_gcp as gcp
import pytest

from pulumi_dws import FlexStartGroup
from pulumi_dws.kinds.flex_group.testing import GROUP_EXAMPLE_STACKS, GROUP_EXAMPLES
from pulumi_dws.policy import evaluate, rule
from pulumi_dws.policy.pack import policies
from pulumi_dws.policy.values import UNKNOWN
from pulumi_dws.policy.view import ResourceView
from pulumi_dws.testing import GcpMocks
from pulumi_dws.testing.policy import UNKNOWN as UNKNOWN_TEXT
from pulumi_dws.testing.policy import UNKNOWN_OBJECT, find_policy, validate_stack
from pulumi_dws.testing.samples import SAMPLES, Example

RULE = "mig-resize-request-group"
STACK = "urn:pulumi:dev::p::"


def _view(rtype: str, name: str, props: dict[str, Any], parent: str = "") -> ResourceView:
    return ResourceView(rtype, name, f"{STACK}{rtype}::{name}", props, None, parent)


def example_stack(example: Example, props: dict[str, Any]) -> list[ResourceView]:
    subject = _view(example.type, "subject", props)
    beside = [
        _view(rtype, f"beside-{i}", factory())
        for i, (rtype, factory) in enumerate(GROUP_EXAMPLE_STACKS[example.sample])
    ]
    return [subject, *beside]


@pytest.mark.parametrize("example", GROUP_EXAMPLES, ids=str)
def test_each_example_violates_the_rule_on_its_resource(example: Example) -> None:
    views = example_stack(example, example.props())
    found = rule(RULE)(views)
    assert [v.urn for v in found] == [views[0].urn]
    assert example.expect in found[0].message and found[0].level == "mandatory"
    others = [v for v in evaluate(views) if v.rule != RULE]
    assert others == [], others


@pytest.mark.parametrize("example", GROUP_EXAMPLES, ids=str)
def test_each_example_is_silent_with_the_offending_value_unknown(example: Example) -> None:
    assert rule(RULE)(example_stack(example, example.unknown_props(UNKNOWN))) == []


@pytest.mark.parametrize("example", GROUP_EXAMPLES, ids=str)
def test_the_pack_reports_each_example_like_the_pure_rule(example: Example) -> None:
    policy = find_policy(RULE, policies())
    views = example_stack(example, example.props())
    reported = validate_stack(policy, views)
    assert [(r.detail, r.urn) for r in reported] == [(v.message, v.urn) for v in rule(RULE)(views)]
    sentinel = UNKNOWN_OBJECT if example.unknown == "instanceLifecyclePolicy" else UNKNOWN_TEXT
    unknown = example_stack(example, example.unknown_props(sentinel))
    assert validate_stack(policy, unknown) == []


@pytest.mark.parametrize("example", GROUP_EXAMPLES, ids=str)
def test_a_group_no_resize_request_asks_is_not_judged(example: Example) -> None:
    beside = [
        _view(rtype, f"beside-{i}", factory())
        for i, (rtype, factory) in enumerate(GROUP_EXAMPLE_STACKS[example.sample])
        if rtype != SAMPLES["group_request"][0]
    ]
    assert rule(RULE)([_view(example.type, "subject", example.props()), *beside]) == []


def test_the_request_pairs_with_the_group_of_its_name_and_location() -> None:
    bad = {**SAMPLES["group_manager"][1](), "instanceLifecyclePolicy": None}
    raw = _view(*SAMPLES["raw_group_request"][:1], "raw", SAMPLES["raw_group_request"][1]())
    group = _view(SAMPLES["group_manager"][0], "g", bad)
    assert len(rule(RULE)([raw, group])) == 1  # a raw pulumi-gcp ResizeRequest too
    elsewhere = _view(group.type, "g", {**bad, "zone": "us-east1-b"})
    assert rule(RULE)([raw, elsewhere]) == []
    other_name = _view(group.type, "g", {**bad, "name": "inference"})
    assert rule(RULE)([raw, other_name]) == []
    by_link = {**raw.props, "instanceGroupManager": "zones/us-central1-a/instanceGroupManagers/g"}
    named = _view(group.type, "g", {**bad, "name": "g"})
    assert len(rule(RULE)([_view(raw.type, "raw", by_link), named])) == 1


def test_while_the_group_name_is_unknown_the_one_group_beside_the_request_is_paired() -> None:
    parent = f"{STACK}my:index:Training::t"
    request = {**SAMPLES["group_request"][1](), "group": UNKNOWN}
    bad = {**SAMPLES["group_manager"][1](), "instanceLifecyclePolicy": None}
    views = [
        _view(SAMPLES["group_request"][0], "rr", request, parent),
        _view(SAMPLES["group_manager"][0], "g", bad, parent),
    ]
    assert len(rule(RULE)(views)) == 1
    second = _view(SAMPLES["group_manager"][0], "g2", bad, parent)
    assert rule(RULE)([*views, second]) == []  # which one it asks is not known yet


def _registered(program: Any) -> list[ResourceView]:
    mocks = GcpMocks(project="my-project")
    mocks.run(program)
    return [ResourceView.from_registered(r) for r in mocks.resources()]


@pytest.mark.parametrize("where", [{"zone": "us-central1-a"}, {"region": "us-central1"}])
def test_a_flex_start_group_passes(where: dict[str, str]) -> None:
    args: dict[str, Any] = {"machine_type": "a3-highgpu-8g", "count": 4, "run_duration": "3d"}
    views = _registered(lambda: FlexStartGroup("trainers", {**args, **where}).group_name)
    assert any(v.type.endswith("nstanceGroupManager") for v in views)
    assert rule(RULE)(views) == []


def test_a_hand_written_regional_group_with_defaults_and_an_autoscaler_is_refused() -> None:
    def program() -> pulumi.Output[str]:
        template = gcp.compute.RegionInstanceTemplate(
            "t",
            region="us-central1",
            machine_type="a3-highgpu-8g",
            disks=[{"boot": True, "source_image": "debian-cloud/debian-12"}],
            scheduling={
                "provisioning_model": "FLEX_START",
                "instance_termination_action": "DELETE",
            },
        )
        group = gcp.compute.RegionInstanceGroupManager(
            "g",
            name="trainers",
            region="us-central1",
            base_instance_name="trainers",
            versions=[{"instance_template": template.self_link}],
        )
        gcp.compute.RegionAutoscaler(
            "a",
            region="us-central1",
            target=group.id,
            autoscaling_policy={"max_replicas": 4, "min_replicas": 0},
        )
        request = gcp.compute.RegionResizeRequest(
            "rr",
            region="us-central1",
            instance_group_manager=group.name,
            resize_by=4,
            requested_run_duration={"seconds": "259200"},
        )
        return request.name

    messages = [v.message for v in rule(RULE)(_registered(program))]
    assert len(messages) == 4, messages
    assert "defaultActionOnFailure is not set (Google's default REPAIR)" in messages[0]
    assert "distributionPolicyTargetShape is not set (Google's default EVEN)" in messages[1]
    assert "instanceRedistributionType is not set (Google's default PROACTIVE)" in messages[2]
    assert messages[3].startswith('gcp:compute/regionAutoscaler:RegionAutoscaler "a" autoscales')
