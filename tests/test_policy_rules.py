"""The pure rules of pulumi_dws.policy: views, rules, config, capacity, mocks."""

from __future__ import annotations

import asyncio
import copy
import json
from collections.abc import Iterator
from typing import Any

import pulumi
import pulumi_gcp as gcp
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pulumi_dws import clock, limits
from pulumi_dws.errors import DwsValidationError
from pulumi_dws.policy import (
    UNKNOWN,
    ResourceView,
    Violation,
    all_rules,
    capacity_summary,
    check_config,
    evaluate,
    rule,
    stack_limits,
)
from pulumi_dws.policy.values import dig, is_unknown, normalize, seconds_of
from pulumi_dws.testing import GcpMocks
from pulumi_dws.testing.samples import (
    DELETE,
    EXAMPLES,
    SAMPLE_NOW,
    SAMPLES,
    Capacity,
    Example,
    capacity,
    totals,
    variant,
)

STACK = "urn:pulumi:dev::project::"


RESIZE = "pulumi-python:dynamic/dws:MigResizeRequest"


def view(sample: str, props: dict[str, Any] | None = None, name: str | None = None):
    rtype, factory = SAMPLES[sample]
    name = name or sample.replace("_", "-")
    return ResourceView(rtype, name, f"{STACK}{rtype}::{name}", props or factory())


@pytest.fixture(autouse=True)
def _pinned_clock() -> Iterator[None]:
    with clock.frozen(SAMPLE_NOW):
        yield


def leaves(value: Any, path: tuple = ()) -> Iterator[tuple]:
    """Every path into ``value`` (dict keys and list indexes), subtrees included."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield (*path, key)
            yield from leaves(item, (*path, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield (*path, i)
            yield from leaves(item, (*path, i))


def set_path(value: Any, path: tuple, new: Any) -> Any:
    out = copy.deepcopy(value)
    node = out
    for step in path[:-1]:
        node = node[step]
    node[path[-1]] = new
    return out


ALL_ON = {"flex-start-queue-window": {"requireQueueWindow": True}}
RESOURCE_RULES = [r for r in all_rules() if r.scope == "resource"]

# ---------------------------------------------------------------- values and views


def test_normalize_maps_every_unknown_form_to_one_marker() -> None:
    sentinels = [
        "04da6b54-80e4-46f7-96ec-b56ff0331ba9",
        "1c4a061d-8072-4f0a-a4cb-0ff528b18fe7",
        "3eeb2bf0-c639-47a8-9e75-3b44932eb421",
    ]
    from pulumi.output import Unknown

    raw = {"a": sentinels, "b": Unknown(), "c": {"d": UNKNOWN}, "e": [1.0, "x"]}
    out = normalize(raw)
    assert out["a"] == [UNKNOWN, UNKNOWN, UNKNOWN]
    assert out["b"] is UNKNOWN and out["c"]["d"] is UNKNOWN
    assert out["e"] == [1.0, "x"]
    assert is_unknown(pulumi.Output.from_input(1)) and not is_unknown("x")


def test_dig_propagates_unknown_and_missing() -> None:
    props = {"a": {"b": UNKNOWN}, "l": [{"x": 1}]}
    assert dig(props, "a", "b", "c") is UNKNOWN
    assert dig(props, "a", "z") is None
    assert dig(props, "l", 0, "x") == 1 and dig(props, "l", 5, "x") is None


@pytest.mark.parametrize(
    "raw,seconds",
    [({"seconds": "259200"}, 259200), ({"seconds": 3600.0}, 3600), ("3600s", 3600), (90, 90)],
)
def test_seconds_of_reads_every_api_form(raw: Any, seconds: int) -> None:
    assert seconds_of(raw, "f") == seconds


def test_view_from_registered_drops_provider_and_keeps_parent() -> None:
    class Reg:
        type = "pulumi-python:dynamic/dws:FlexStartVm"
        name = "vm"
        urn = "urn:pulumi:dev::p::dws:index:Flex$pulumi-python:dynamic/dws:FlexStartVm::vm"
        inputs = {"__provider": "pickled", "body": {"machineType": "a3-highgpu-8g"}}
        parent_type = "dws:index:Flex"

    v = ResourceView.from_registered(Reg())
    assert "__provider" not in v.props and v.parent_type == "dws:index:Flex"


# ---------------------------------------------------------------- clean samples


def test_every_sample_is_clean_under_every_rule() -> None:
    views = [view(name) for name in SAMPLES]
    assert evaluate(views, {"gpu-budget": {"maxGpus": 1000, "maxGpuHours": 1e6}}) == []


@pytest.mark.parametrize("sample", sorted(SAMPLES))
def test_clean_sample_stays_clean_with_any_value_unknown(sample: str) -> None:
    """Preview: any one value (or subtree) unknown never adds a violation."""
    props = SAMPLES[sample][1]()

    def found(v: ResourceView) -> set[tuple[str, str]]:
        return {(f.rule, f.message) for r in RESOURCE_RULES for f in r(v, ALL_ON.get(r.name))}

    baseline = found(view(sample, props))  # requireQueueWindow flags raw FLEX_START VMs
    for path in leaves(props):
        extra = found(view(sample, set_path(props, path, UNKNOWN))) - baseline
        assert extra == set(), (path, extra)


# ---------------------------------------------------------------- violating examples


def test_every_resource_rule_has_examples() -> None:
    covered = {e.rule for e in EXAMPLES}
    assert covered == {r.name for r in RESOURCE_RULES}


@pytest.mark.parametrize("example", EXAMPLES, ids=str)
def test_example_violates_its_rule_only(example: Example) -> None:
    v = view(example.sample, example.props())
    found = rule(example.rule)(v, example.config)
    assert found, example
    assert all(isinstance(f, Violation) and f.rule == example.rule for f in found)
    assert any(example.expect in f.message for f in found), [f.message for f in found]
    assert all(f.urn == v.urn and f.level == rule(example.rule).level for f in found)
    others = [
        f
        for f in evaluate([v], {example.rule: example.config or {}})
        if f.rule != example.rule and f.rule != "gke-dws-auto-upgrade"
    ]
    assert others == [], others


@pytest.mark.parametrize("example", EXAMPLES, ids=str)
def test_example_with_offending_value_unknown_is_silent(example: Example) -> None:
    v = view(example.sample, example.unknown_props(UNKNOWN))
    assert rule(example.rule)(v, example.config) == []


def test_cluster_inline_node_pool_is_checked() -> None:
    pool = variant(SAMPLES["queued_node_pool"][1](), "management.autoRepair", True)
    pool.pop("cluster")
    cluster = variant(SAMPLES["private_cluster"][1](), "nodePools", [pool])
    found = rule("gke-dws-node-pool")(view("private_cluster", cluster))
    assert [f.message for f in found] == [
        'gcp:container/cluster:Cluster "private-cluster" nodePools[0] (queued-provisioning '
        "pool): management.autoRepair is true; set it to false for DWS pools"
    ]


def test_non_dws_pools_and_vms_are_not_judged_as_dws() -> None:
    pool = variant(SAMPLES["queued_node_pool"][1](), "queuedProvisioning", DELETE)
    pool = variant(pool, "management", DELETE)
    assert rule("gke-dws-node-pool")(view("queued_node_pool", pool)) == []
    vm = variant(SAMPLES["flex_instance"][1](), "scheduling.provisioningModel", "STANDARD")
    vm = variant(vm, "scheduling.maxRunDuration", DELETE)
    assert rule("flex-start-max-run-duration")(view("flex_instance", vm)) == []


@pytest.mark.parametrize(
    ("machine", "queued", "allowed"),
    [
        ("a3-ultragpu-8g", False, True),
        ("a4-highgpu-8g", False, True),
        ("h4d-highmem-192", False, True),
        ("a3-ultragpu-8g", True, False),  # queued provisioning on GPUs: never compact
        ("a3-highgpu-8g", False, False),
        ("a4x-highgpu-4g", False, False),
    ],
)
def test_compact_placement_with_flex_start(machine: str, queued: bool, allowed: bool) -> None:
    """Cluster Toolkit's rule: compact placement with Flex-start on A3 Ultra, A4 and H4D only,
    never with queued provisioning on GPUs (the component enforces the same)."""
    pool = variant(SAMPLES["queued_node_pool"][1](), "placementPolicy", {"type": "COMPACT"})
    pool = variant(pool, "nodeConfig.flexStart", True)
    pool = variant(pool, "nodeConfig.machineType", machine)
    pool = variant(pool, "nodeConfig.guestAccelerators", DELETE)
    if not queued:
        pool = variant(pool, "queuedProvisioning", DELETE)
    found = rule("gke-dws-node-pool")(view("queued_node_pool", pool))
    assert (found == []) is allowed, found
    if not allowed:
        assert "COMPACT" in found[0].message


def test_public_ip_on_cpu_vm_is_fine() -> None:
    vm = variant(SAMPLES["flex_instance"][1](), "machineType", "n2-standard-8")
    vm = variant(vm, "networkInterfaces.0.accessConfigs", [{}])
    assert rule("no-public-ip-on-accelerators")(view("flex_instance", vm)) == []


def test_public_ip_allow_list_matches_names_and_urns() -> None:
    vm = variant(SAMPLES["flex_instance"][1](), "networkInterfaces.0.accessConfigs", [{}])
    check = rule("no-public-ip-on-accelerators")
    allow = {"allowedResources": ["debug-*"]}
    assert check(view("flex_instance", vm, name="debug-box"), allow) == []
    assert check(view("flex_instance", vm), {"allowedResources": ["*::flex-instance"]}) == []
    assert check(view("flex_instance", vm), allow)


def test_node_pool_public_ip_follows_its_cluster_in_the_stack() -> None:
    pool = variant(SAMPLES["queued_node_pool"][1](), "networkConfig", DELETE)
    public = variant(SAMPLES["private_cluster"][1](), "privateClusterConfig", DELETE)
    pool_view = view("queued_node_pool", pool)
    assert evaluate([pool_view], {"all": "mandatory"}) == []  # cluster unknown: can't tell
    bad = evaluate([pool_view, view("private_cluster", public)])
    assert [v.rule for v in bad] == ["no-public-ip-on-accelerators"]
    assert evaluate([pool_view, view("private_cluster")]) == []


def test_iam_binding_and_policy_with_basic_roles() -> None:
    check = rule("no-basic-roles")
    binding = ResourceView(
        "gcp:projects/iAMBinding:IAMBinding",
        "b",
        props={"project": "p", "role": "roles/owner", "members": ["user:a@x.com", UNKNOWN]},
    )
    assert [v.message.split("; ")[0] for v in check(binding)] == [
        'gcp:projects/iAMBinding:IAMBinding "b": grants roles/owner to user:a@x.com'
    ]
    data = {"bindings": [{"role": "roles/editor", "members": ["group:ops@x.com"]}]}
    policy = ResourceView(
        "gcp:projects/iAMPolicy:IAMPolicy", "p", props={"policyData": json.dumps(data)}
    )
    assert len(check(policy)) == 1
    assert check(policy, {"allowedMembers": ["group:*@x.com"]}) == []
    folder = ResourceView(
        "gcp:folder/iAMMember:IAMMember", "f", props={"role": "roles/editor", "member": "user:z"}
    )
    assert len(check(folder)) == 1


# ---------------------------------------------------------------- calendar


def _calendar(start: str) -> ResourceView:
    return view(
        "calendar_reservation",
        variant(SAMPLES["calendar_reservation"][1](), "timeWindow.startTime", start),
    )


def test_calendar_minimum_look_ahead_needs_the_planned_operation() -> None:
    soon = _calendar("2027-02-01T06:00:00Z")  # 6 hours after SAMPLE_NOW
    check = rule("calendar-window")
    assert check(soon) == []  # an existing request looks the same: can't tell
    create = check(soon, context=_ctx(soon, "create"))
    assert len(create) == 1 and "calendar.start_ahead" in create[0].message
    assert check(soon, context=_ctx(soon, "same")) == []
    assert check(_calendar("2026-12-01T00:00:00Z")) == []  # started long ago: existing


def _ctx(v: ResourceView, op: str):
    from pulumi_dws.policy import Context

    return Context(stack=[v], operations={v.urn: op})


def test_calendar_window_uses_the_limits_table() -> None:
    three_weeks = variant(
        SAMPLES["calendar_reservation"][1](), "timeWindow.duration.seconds", 21 * 86400
    )
    v = view("calendar_reservation", three_weeks)
    assert rule("calendar-window")(v) == []
    with stack_limits({"profile": "seed"}):  # blocks of 7 or 14 days
        assert "calendar.duration" in rule("calendar-window")(v)[0].message
    with limits.overridden("calendar.duration", maximum="14d"):
        assert rule("calendar-window")(v)
    assert rule("calendar-window")(v) == []


def test_delete_or_replace_warns_from_operations() -> None:
    booked = view("calendar_reservation")
    gone = f"{STACK}gcp:compute/futureReservation:FutureReservation::old-booking"
    vm = view("flex_instance")
    ops = {booked.urn: "replace", gone: "delete", vm.urn: "delete"}
    found = evaluate([booked, vm], operations=ops)
    warned = [v for v in found if v.rule == "calendar-delete-or-replace"]
    assert [(v.name, v.level) for v in warned] == [
        ("calendar-reservation", "advisory"),
        ("old-booking", "advisory"),
    ]
    assert "replace (delete and re-create)" in warned[0].message
    assert evaluate([booked], operations={booked.urn: "same"}) == []
    assert evaluate([booked], operations={booked.urn: "create-replacement"})
    assert evaluate([booked]) == []  # no plan: nothing to say


# ---------------------------------------------------------------- config


def test_levels_from_config() -> None:
    vm = view("flex_instance", variant(SAMPLES["flex_instance"][1](), "labels", DELETE))
    assert [v.level for v in evaluate([vm])] == ["advisory"]
    assert [v.level for v in evaluate([vm], {"all": "mandatory"})] == ["mandatory"]
    assert evaluate([vm], {"required-labels": "disabled"}) == []
    cfg = {"all": "disabled", "required-labels": {"enforcementLevel": "mandatory"}}
    assert [v.level for v in evaluate([vm], cfg)] == ["mandatory"]


@pytest.mark.parametrize(
    "config,problem",
    [
        ({"no-such-rule": "advisory"}, "is not a rule"),
        ({"all": "loud"}, "is not an enforcement level"),
        ({"gpu-budget": {"maxGPUs": 3}}, "is not an option"),
        ({"gpu-budget": {"maxGpus": "many"}}, "must be of type integer"),
        ({"flex-start-max-run-duration": {"maxRunDuration": "soon"}}, "is not a duration"),
    ],
)
def test_bad_config_is_refused(config: dict, problem: str) -> None:
    with pytest.raises(DwsValidationError, match=problem):
        check_config(config)


def test_config_numbers_arrive_as_floats_from_pulumi() -> None:
    assert rule("gpu-budget").resolve({"maxGpus": 4.0})["maxGpus"] == 4


def test_options_are_checked_against_their_json_schema_as_the_cli_checks_them() -> None:
    budget = rule("gpu-budget")
    assert budget.resolve({"maxGpusByType": {"nvidia-l4": 2.0}})["maxGpusByType"] == {
        "nvidia-l4": 2
    }
    with pytest.raises(
        DwsValidationError, match=r"^gpu-budget\.maxGpusByType\[nvidia-l4\]: -1 is below 0"
    ):
        budget.resolve({"maxGpusByType": {"nvidia-l4": -1}})
    duration = rule("flex-start-max-run-duration")
    assert duration.resolve({"maxRunDuration": "1d12h"})["maxRunDuration"] == "1d12h"
    with pytest.raises(DwsValidationError, match="maxRunDuration: 1.5h must be whole units"):
        duration.resolve({"maxRunDuration": "1.5h"})  # a duration, but not one the schema takes


# ---------------------------------------------------------------- capacity and budget


@pytest.mark.parametrize("sample", sorted(SAMPLES))
def test_each_sample_asks_for_what_its_kind_declares(sample: str) -> None:
    """The declarations the totals below are sums of: each one what the summary counts for
    its sample alone."""
    declared = capacity().get(sample, Capacity())
    summary = capacity_summary([view(sample)])
    assert (summary["gpus"], summary["gpu_hours"]) == (declared.gpus, declared.gpu_hours)
    assert (summary["tpu_chips"], summary["tpu_chip_hours"]) == (
        declared.tpu_chips,
        declared.tpu_chip_hours,
    )
    by_type = {**summary["gpus_by_type"], **summary["tpu_chips_by_type"]}
    assert by_type == ({declared.accelerator: declared.gpus or declared.tpu_chips}
                       if declared.accelerator else {})  # fmt: skip
    assert bool(summary["unbounded"]) == declared.unbounded
    assert bool(summary["unknown"]) == declared.unknown


def test_capacity_summary_counts_each_kind() -> None:
    summary = capacity_summary([view(n) for n in SAMPLES])
    by_name = {r["name"]: r for r in summary["resources"]}
    assert by_name["flex-instance"]["gpus"] == 8 and by_name["flex-instance"]["gpu_hours"] == 576
    assert by_name["queued-node-pool"]["units"] == 4
    assert by_name["queued-node-pool"]["gpu_hours"] == 32 * 24
    assert by_name["slurm-cluster/a3"]["gpus"] == 16  # the login pool has no GPUs
    assert by_name["calendar-reservation"]["gpu_hours"] == 16 * 168
    assert "flex-template" not in by_name  # templates are not capacity by themselves
    expected = totals(SAMPLES)
    assert summary["gpus_by_type"] == expected.gpus_by_type
    assert summary["gpu_hours"] == expected.gpu_hours
    # A resize request alone: its VMs' shape is its group's template, not in these views.
    assert by_name["group-request"]["units"] == 4 and by_name["group-request"]["gpus"] is None
    assert by_name["raw-group-request"]["units"] == 4
    # pulumi-gcp's V2QueuedResource has no provisioning model: on-demand, no run duration.
    raw_tpu = by_name["raw-queued-resource"]
    assert (raw_tpu["accelerator"], raw_tpu["tpu_chips"], raw_tpu["gpus"]) == ("v5e", 8, 0)
    assert summary["unbounded"] == [
        f"{STACK}{SAMPLES[n][0]}::{n.replace('_', '-')}" for n in expected.unbounded
    ]
    assert summary["unknown"] == [
        f"{STACK}{SAMPLES[n][0]}::{n.replace('_', '-')}" for n in expected.unknown
    ]


def _group_views(template: dict[str, Any] | None = None, parent: str = "") -> list[ResourceView]:
    """A FlexStartGroup's request and template, siblings under one component (``parent``)."""
    parent = parent or f"{STACK}dws:index:FlexStartGroup::trainers"
    out = []
    for sample, props in (("group_request", None), ("group_template", template)):
        rtype, factory = SAMPLES[sample]
        name = f"trainers-{sample.split('_')[1]}"
        urn = f"{STACK}dws:index:FlexStartGroup${rtype}::{name}"
        out.append(
            ResourceView(rtype, name, urn, props or factory(), "dws:index:FlexStartGroup", parent)
        )
    return out


def test_a_resize_request_counts_its_vms_with_its_group_templates_gpus() -> None:
    summary = capacity_summary(_group_views())
    (request,) = summary["resources"]
    assert request["kind"] == "resize_request"
    assert (request["units"], request["gpus_per_unit"], request["gpus"]) == (4, 8, 32)
    assert request["gpu_hours"] == 32 * 72 and summary["gpu_hours"] == 32 * 72
    assert summary["gpus_by_type"] == {"nvidia-h100-80gb": 32}


def test_a_resize_request_of_another_component_does_not_borrow_a_template() -> None:
    request, _ = _group_views()
    _, other = _group_views(parent=f"{STACK}dws:index:FlexStartGroup::other")
    summary = capacity_summary([request, other])
    assert summary["gpus"] == 0 and summary["unknown"] == [request.urn]


def test_a_reservation_bound_group_is_counted_on_its_reservation() -> None:
    template = SAMPLES["group_template"][1]()
    template["scheduling"] = {"provisioningModel": "RESERVATION_BOUND"}
    template["reservationAffinity"] = {
        "type": "SPECIFIC_RESERVATION",
        "specificReservation": {"key": "compute.googleapis.com/reservation-name", "values": ["r"]},
    }
    summary = capacity_summary(_group_views(template))
    (request,) = summary["resources"]
    assert request["gpus"] == 32 and request["counted"] is False and summary["gpus"] == 0


def test_a_raw_resize_request_counts_the_one_template_beside_it() -> None:
    request, template = _group_views()
    raw = ResourceView(
        "gcp:compute/resizeRequest:ResizeRequest",
        "raw",
        f"{STACK}gcp:compute/resizeRequest:ResizeRequest::raw",
        SAMPLES["raw_group_request"][1](),
        None,
        template.parent,
    )
    summary = capacity_summary([raw, template])
    assert summary["gpus"] == 32 and summary["gpu_hours"] == 32 * 72
    # two templates beside it: which one its group uses is not in the inputs
    other = ResourceView(
        template.type, "other", template.urn + "2", template.props, None, template.parent
    )
    assert capacity_summary([raw, template, other])["unknown"] == [raw.urn]


def test_gpu_budget_counts_a_groups_vms() -> None:
    found = evaluate(_group_views(), {"gpu-budget": {"maxGpus": 16}})
    assert [v.rule for v in found] == ["gpu-budget"]
    assert "asks for 32 GPUs" in found[0].message


def test_capacity_defaults_and_per_zone_counts() -> None:
    pool = SAMPLES["queued_node_pool"][1]()
    pool["autoscaling"] = {"maxNodeCount": 2, "locationPolicy": "ANY"}
    pool["nodeLocations"] = ["us-central1-a", "us-central1-b"]
    del pool["nodeConfig"]["maxRunDuration"]
    item = capacity_summary([view("queued_node_pool", pool)])["resources"][0]
    assert item["units"] == 4 and item["max_run_hours"] == 168
    assert "counted at the 7d (604800s) limit" in item["notes"][0]


def test_reservation_consumers_are_not_counted_twice() -> None:
    vm = variant(SAMPLES["flex_instance"][1](), "scheduling.provisioningModel", "RESERVATION_BOUND")
    vm = variant(vm, "reservationAffinity.type", "SPECIFIC_RESERVATION")
    summary = capacity_summary([view("flex_instance", vm), view("calendar_reservation")])
    assert summary["gpus"] == 16
    assert summary["resources"][0]["counted"] is False


def test_standard_gpu_vm_is_unbounded() -> None:
    vm = variant(SAMPLES["flex_instance"][1](), "scheduling", {"provisioningModel": "STANDARD"})
    v = view("flex_instance", vm)
    assert capacity_summary([v])["unbounded"] == [v.urn]
    found = rule("gpu-budget")([v], {"maxGpuHours": 10_000})
    assert "unbounded" in found[0].message and found[0].urn == v.urn


def test_gpu_budget_caps() -> None:
    # (a resize request alone is not known: its GPUs are its group's template's)
    names = [n for n in SAMPLES if n not in ("group_request", "raw_group_request")]
    views = [view(n) for n in names]
    expected = totals(names)
    gpus, hours = expected.gpus, expected.gpu_hours
    budget = rule("gpu-budget")
    assert budget(views) == []  # no caps by default
    assert budget(views, {"maxGpus": gpus, "maxGpuHours": hours}) == []
    over = budget(views, {"maxGpus": gpus - 1, "maxGpuHours": hours - 1})
    assert [v.message.split(" (")[0].split(", over")[0] for v in over] == [
        f"the stack asks for {gpus} GPUs",
        f"the stack asks for {hours:,.0f} GPU-hours",
    ]
    assert all(v.urn == "" and v.level == "mandatory" for v in over)
    h100 = expected.gpus_by_type["nvidia-h100-80gb"]
    typed = budget(views, {"maxGpusByType": {"nvidia-h100-80gb": h100 - 1}})
    assert f"{h100} nvidia-h100-80gb GPUs" in typed[0].message


def test_gpu_budget_with_unknowns_reports_only_definite_overruns() -> None:
    pool = variant(SAMPLES["queued_node_pool"][1](), "autoscaling.totalMaxNodeCount", UNKNOWN)
    views = [view("flex_instance"), view("queued_node_pool", pool)]
    summary = capacity_summary(views)
    assert summary["gpus"] == 8 and len(summary["unknown"]) == 1
    assert rule("gpu-budget")(views, {"maxGpus": 16}) == []  # can't tell yet
    over = rule("gpu-budget")(views, {"maxGpus": 4})  # already over with what is known
    assert "8 GPUs (and 1 resource(s) not known yet)" in over[0].message


_AFFINITY = {"key": "compute.googleapis.com/reservation-name", "values": ["h100-week"]}


@pytest.mark.parametrize("sample", ["flex_instance", "queued_node_pool"])
def test_gpu_budget_is_silent_while_a_reservation_consumer_is_unknown(sample: str) -> None:
    """A VM or pool that may consume the reservation (affinity unknown in preview) may be
    counted on the reservation: neither its GPUs nor its missing run limit are definite."""
    if sample == "flex_instance":
        props = variant(SAMPLES[sample][1](), "scheduling", {"provisioningModel": "STANDARD"})
        props = variant(props, "reservationAffinity", {"type": "SPECIFIC_RESERVATION", **_AFFINITY})
        path = "reservationAffinity.type"
    else:
        props = variant(SAMPLES[sample][1](), "queuedProvisioning", DELETE)
        affinity = {"consumeReservationType": "SPECIFIC_RESERVATION", **_AFFINITY}
        props = variant(props, "nodeConfig.reservationAffinity", affinity)
        path = "nodeConfig.reservationAffinity.consumeReservationType"
    reservation = view("calendar_reservation")  # 2 x 8 GPUs for 7 days
    caps = {"maxGpus": 16, "maxGpuHours": 16 * 168}
    assert rule("gpu-budget")([view(sample, props), reservation], caps) == []  # counted once
    unknown = [view(sample, variant(props, path, UNKNOWN)), reservation]
    assert rule("gpu-budget")(unknown, caps) == []  # can't tell yet
    summary = capacity_summary(unknown)
    assert summary["gpus"] == 16 and summary["unbounded"] == []
    assert summary["unknown"] == [unknown[0].urn]


# ---------------------------------------------------------------- under GcpMocks


def _register_raw(flex_seconds: int, auto_repair: bool, machine: Any = "a3-highgpu-8g") -> None:
    gcp.compute.Instance(
        "trainer",
        zone="us-central1-a",
        machine_type=machine,
        boot_disk={"initialize_params": {"image": "debian-cloud/debian-12"}},
        network_interfaces=[{"network": "default"}],
        scheduling={
            "provisioning_model": "FLEX_START",
            "max_run_duration": {"seconds": flex_seconds},
            "instance_termination_action": "STOP",
            "automatic_restart": False,
            "on_host_maintenance": "TERMINATE",
        },
        labels={"team": "ml"},
    )
    cluster = gcp.container.Cluster(
        "gpu",
        location="us-central1",
        initial_node_count=1,
        private_cluster_config={"enable_private_nodes": True},
    )
    gcp.container.NodePool(
        "a3",
        cluster=cluster.name,
        location="us-central1",
        node_locations=["us-central1-a"],
        initial_node_count=0,
        autoscaling={
            "total_min_node_count": 0,
            "total_max_node_count": 2,
            "location_policy": "ANY",
        },
        queued_provisioning={"enabled": True},
        management={"auto_repair": auto_repair, "auto_upgrade": False},
        node_config={
            "machine_type": "a3-highgpu-8g",
            "resource_labels": {"team": "ml"},
            "reservation_affinity": {"consume_reservation_type": "NO_RESERVATION"},
        },
    )


def test_rules_on_raw_resources_registered_under_mocks() -> None:
    mocks = GcpMocks()
    mocks.run(lambda: _register_raw(259200, auto_repair=False))
    assert evaluate(mocks.registered) == []
    summary = capacity_summary(mocks.registered)
    assert summary["gpus_by_type"] == {"nvidia-h100-80gb": 24}
    assert summary["gpu_hours"] == 8 * 72 + 16 * 168

    mocks = GcpMocks()
    mocks.run(lambda: _register_raw(8 * 86400, auto_repair=True))
    found = {(v.rule, v.name) for v in evaluate(mocks.registered)}
    assert found == {("flex-start-max-run-duration", "trainer"), ("gke-dws-node-pool", "a3")}
    urns = {v.urn for v in evaluate(mocks.registered)}
    assert all(u.startswith("urn:pulumi:dev::project::") for u in urns)


def _unknown_output() -> pulumi.Output:
    loop = asyncio.get_event_loop()
    value, known = loop.create_future(), loop.create_future()
    value.set_result(None)
    known.set_result(False)
    return pulumi.Output(set(), value, known)


def test_unknown_inputs_under_mocks_in_preview_are_not_violations() -> None:
    mocks = GcpMocks()
    mocks.run(lambda: _register_raw(8 * 86400, True, machine=_unknown_output()), preview=True)
    trainer = mocks.one("gcp:compute/instance:Instance")
    assert is_unknown(trainer.inputs["machineType"])  # pulumi.output.Unknown in preview
    summary = capacity_summary(mocks.registered)
    assert summary["unknown"] == [trainer.urn]
    rules = {v.rule for v in evaluate(mocks.registered)}
    assert "no-public-ip-on-accelerators" not in rules and "flex-start-max-run-duration" in rules


def test_dynamic_resources_under_mocks() -> None:
    def program() -> None:
        for name in ("vm", "slurm"):
            sample = "flex_vm_body" if name == "vm" else "slurm_cluster"
            rtype, factory = SAMPLES[sample]
            props = factory()
            if name == "vm":
                props = variant(props, "body.params.requestValidForDuration.seconds", "60")
            pulumi.CustomResource(rtype, name, props)

    mocks = GcpMocks()
    mocks.run(program)
    found = evaluate(mocks.registered)
    assert [(v.rule, v.name) for v in found] == [("flex-start-queue-window", "vm")]
    assert capacity_summary(mocks.registered)["gpus"] == 8 + 16


# ---------------------------------------------------------------- robustness


_json = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(10**12), 10**12)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12)
    | st.sampled_from(["FLEX_START", "CALENDAR", "3600s", "2027-03-01T00:00:00Z", "roles/editor"])
    | st.just(UNKNOWN),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=8,
)


@st.composite
def _mangled(draw: st.DrawFn) -> ResourceView:
    sample = draw(st.sampled_from(sorted(SAMPLES)))
    props = SAMPLES[sample][1]()
    for _ in range(draw(st.integers(1, 3))):
        paths = list(leaves(props))
        if not paths:
            break
        props = set_path(props, draw(st.sampled_from(paths)), draw(_json))
    return view(sample, props)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(resources=st.lists(_mangled(), min_size=1, max_size=3))
def test_rules_never_crash_on_malformed_props(resources: list[ResourceView]) -> None:
    config = {"gpu-budget": {"maxGpus": 1, "maxGpuHours": 1}, **ALL_ON}
    ops = {r.urn: "replace" for r in resources}
    for found in evaluate(resources, config, ops):
        assert found.rule and found.message
    json.dumps(capacity_summary(resources))


def test_flex_start_component_template_is_shape_only_for_required_labels() -> None:
    from pulumi_dws import FlexStartInstance

    mocks = GcpMocks(project="p")
    mocks.run(
        lambda: FlexStartInstance(
            "t",
            {
                "zone": "us-central1-a",
                "machine_type": "a3-highgpu-8g",
                "max_run_duration": "1d",
                "labels": {"team": "ml"},
            },
        )
    )
    config = {"required-labels": {"requiredLabels": ["team"]}}
    assert [v for v in evaluate(mocks.registered, config) if v.rule == "required-labels"] == []
    # The same template written by hand, outside the component, is still checked.
    template = mocks.one("gcp:compute/instanceTemplate:InstanceTemplate")
    props = {k: v for k, v in template.inputs.items() if k != "description"}
    bare = ResourceView(type=template.type, name="hand-written", props=props)
    found = [v for v in evaluate([bare], config) if v.rule == "required-labels"]
    assert len(found) == 1 and "lacks required label(s) team" in found[0].message
