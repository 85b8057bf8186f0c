"""TPU chips in the policy rules, the capacity summary and ``dws plan``: counted apart from GPUs,
under their own budget, and the TPU rules on what the components register."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pulumi_gcp as gcp
import pytest

from pulumi_dws import CalendarReservation, KueueQueue, QueuedNodePool, QueuedTpu, clock
from pulumi_dws.plan.policy import PolicyReport
from pulumi_dws.policy import ResourceView, capacity_summary, evaluate
from pulumi_dws.policy.rules import rule
from pulumi_dws.testing import GcpMocks
from pulumi_dws.testing.samples import SAMPLE_NOW, SAMPLES, totals, variant

STACK = "urn:pulumi:dev::project::"


@pytest.fixture(autouse=True)
def _pinned_clock() -> Iterator[None]:
    with clock.frozen(SAMPLE_NOW):
        yield


def view(sample: str, props: dict[str, Any] | None = None) -> ResourceView:
    rtype, factory = SAMPLES[sample]
    name = sample.replace("_", "-")
    return ResourceView(rtype, name, f"{STACK}{rtype}::{name}", props or factory())


def test_tpu_chips_are_counted_apart_from_gpus() -> None:
    summary = capacity_summary([view(n) for n in SAMPLES])
    by_name = {r["name"]: r for r in summary["resources"]}
    pool = by_name["tpu-node-pool"]
    assert (pool["accelerator_kind"], pool["accelerator"]) == ("tpu", "v6e")
    assert (pool["tpu_chips_per_unit"], pool["units"], pool["tpu_chips"]) == (4, 4, 16)
    assert (pool["gpus"], pool["gpu_hours"], pool["tpu_chip_hours"]) == (0, 0.0, 16 * 24)
    reservation = by_name["tpu-calendar-reservation"]
    assert (reservation["tpu_chips"], reservation["tpu_chip_hours"]) == (16, 16 * 168)
    queued = by_name["queued-tpu-body"]  # a Flex-start v6e-16 queued resource for a day
    assert (queued["accelerator_kind"], queued["accelerator"]) == ("tpu", "v6e")
    assert (queued["tpu_chips"], queued["tpu_chip_hours"], queued["gpus"]) == (16, 16 * 24, 0)
    raw = by_name["raw-queued-resource"]  # pulumi-gcp's V2QueuedResource: v5e-8, unbounded
    assert (raw["tpu_chips"], raw["tpu_chip_hours"], raw["bounded"]) == (8, None, False)
    expected = totals(SAMPLES)
    assert summary["tpu_chips_by_type"] == expected.tpu_chips_by_type
    assert summary["tpu_chip_hours"] == expected.tpu_chip_hours
    assert summary["gpus_by_type"] == expected.gpus_by_type  # no chip among the GPUs


def test_a_raw_tpu_vm_counts_the_chips_of_its_machine_type() -> None:
    vm = variant(SAMPLES["flex_instance"][1](), "machineType", "ct5lp-hightpu-8t")
    vm.pop("guestAccelerators", None)
    item = capacity_summary([view("flex_instance", vm)])["resources"][0]
    assert (item["accelerator"], item["tpu_chips"], item["gpus"]) == ("v5e", 8, 0)


def test_the_tpu_budget_caps_chips_and_leaves_gpus_alone() -> None:
    names = [n for n in SAMPLES if n != "raw_queued_resource"]
    views = [view(n) for n in names]
    expected = totals(names)
    chips, hours = expected.tpu_chips, expected.tpu_chip_hours
    budget = rule("tpu-budget")
    assert budget(views) == []  # no caps by default
    assert budget(views, {"maxTpuChips": chips, "maxTpuChipHours": hours}) == []
    over = budget(views, {"maxTpuChips": chips - 1, "maxTpuChipHours": hours - 56})
    assert over[0].message.startswith(
        f"the stack asks for {chips} TPU chips, over maxTpuChips {chips - 1}"
    )
    assert over[1].message.startswith(f"the stack asks for {hours:,.0f} TPU chip-hours")
    v6e = expected.tpu_chips_by_type["v6e"]
    typed = budget(views, {"maxTpuChipsByType": {"v6e": 16}})
    assert f"{v6e} v6e TPU chips" in typed[0].message
    # The GPU budget never sees a chip: the GPUs declared, whatever the TPUs.
    assert rule("gpu-budget")(views, {"maxGpus": expected.gpus}) == []
    tpus_only = [view("tpu_node_pool"), view("tpu_calendar_reservation")]
    assert rule("gpu-budget")(tpus_only, {"maxGpus": 0, "maxGpuHours": 0}) == []


def test_the_tpu_budget_counts_a_raw_queued_resource_and_its_unbounded_hours() -> None:
    raw = view("raw_queued_resource")
    budget = rule("tpu-budget")
    assert budget([raw], {"maxTpuChips": 8}) == []
    [over] = budget([raw], {"maxTpuChips": 7})
    assert over.message.startswith("the stack asks for 8 TPU chips, over maxTpuChips 7")
    [unbounded] = budget([raw], {"maxTpuChipHours": 1000})
    assert "raw-queued-resource" in unbounded.message and "no max run duration" in unbounded.message
    assert unbounded.urn == raw.urn


def test_a_tpu_pool_without_run_duration_is_bounded_by_the_node_limit() -> None:
    pool = variant(SAMPLES["tpu_node_pool"][1](), "nodeConfig.maxRunDuration", None)
    pool["nodeConfig"].pop("maxRunDuration")
    item = capacity_summary([view("tpu_node_pool", pool)])["resources"][0]
    assert item["tpu_chip_hours"] == 16 * 168


def test_the_plan_summary_shows_tpu_chips_only_when_asked() -> None:
    with_tpus = PolicyReport(summary=capacity_summary([view("tpu_node_pool")]))
    text = "\n".join(with_tpus.text())
    assert "tpu_chips: 16" in text and 'tpu_chips_by_type: {"v6e": 16}' in text
    assert "tpu_chips" in "\n".join(with_tpus.markdown())
    gpus_only = PolicyReport(summary=capacity_summary([view("queued_node_pool")]))
    assert "tpu_chips" not in "\n".join(gpus_only.text())


def _components() -> None:
    block = CalendarReservation(
        "v6e-week",
        {
            "zone": "us-east5-b",
            "tpu_version": "v6e",
            "chip_count": 16,
            "workload_type": "BATCH",
            "start_time": "+4w",
            "duration": "7d",
            "labels": {"team": "ml"},
        },
    )
    pool_args: dict[str, Any] = {
        "cluster": "ml-cluster",
        "location": "us-east5",
        "node_locations": ["us-east5-b"],
        "machine_type": "ct6e-standard-4t",
        "tpu_topology": "4x4",
        "max_run_duration": "1d",
        "resource_labels": {"team": "ml"},
    }
    queued = QueuedNodePool("v6e-queued", pool_args)
    KueueQueue("tpu", {"node_pool": queued, "namespaces": ["default"]})
    QueuedNodePool("v6e-reserved", {**pool_args, "mode": "reserved", "reservation": block})
    gcp.container.Cluster(
        "ml-cluster",
        name="ml-cluster",
        location="us-east5",
        initial_node_count=1,
        private_cluster_config={"enable_private_nodes": True},
    )


def test_what_the_components_register_passes_the_rules_but_the_advisory() -> None:
    mocks = GcpMocks()
    mocks.run(_components)
    found = evaluate(mocks.registered)
    assert [(v.rule, v.level) for v in found] == [("gke-tpu-queued-flex-start", "advisory")]
    summary = capacity_summary(mocks.registered)
    # The queued pool's 16 chips for a day; the reserved pool is counted on the reservation.
    assert summary["tpu_chips_by_type"] == {"v6e": 32}
    assert summary["tpu_chip_hours"] == 16 * 24 + 16 * 168
    assert summary["gpus"] == 0
    reserved = next(r for r in summary["resources"] if r["name"] == "v6e-reserved-pool")
    assert reserved["counted"] is False


def test_the_contested_rule_can_be_made_mandatory_or_turned_off() -> None:
    mocks = GcpMocks()
    mocks.run(_components)
    strict = evaluate(mocks.registered, {"gke-tpu-queued-flex-start": "mandatory"})
    assert [(v.rule, v.level) for v in strict] == [("gke-tpu-queued-flex-start", "mandatory")]
    assert evaluate(mocks.registered, {"gke-tpu-queued-flex-start": "disabled"}) == []


def _queued_tpus() -> None:
    QueuedTpu(
        "open",
        {
            "zone": "us-east5-a",
            "accelerator_type": "v6e-16",
            "max_run_duration": "5d",
            "request_valid_for": "2h",
            "public_ip": True,
        },
    )
    QueuedTpu(
        "reserved",
        {
            "zone": "us-east5-a",
            "accelerator_type": "v6e-16",
            "provisioning": "reservation_bound",
            "reservation": "v6e-week",
            "labels": {"team": "ml"},
        },
    )
    gcp.tpu.V2QueuedResource(
        "raw",
        zone="us-west4-a",
        tpu={
            "node_specs": [
                {
                    "parent": "projects/p/locations/us-west4-a",
                    "node_id": "raw",
                    "node": {
                        "runtime_version": "v2-alpha-tpuv5-lite",
                        "accelerator_type": "v5litepod-8",
                        "network_config": {"enable_external_ips": True},
                    },
                }
            ]
        },
    )


def test_the_rules_read_what_queued_tpus_and_raw_queued_resources_register() -> None:
    mocks = GcpMocks(project="p")
    mocks.run(_queued_tpus)
    config = {"flex-start-max-run-duration": {"maxRunDuration": "3d"}}
    found = sorted(
        (v.rule, v.name, v.message.split(": ", 1)[1]) for v in evaluate(mocks.registered, config)
    )
    assert found == [
        (
            "flex-start-max-run-duration",
            "open-queued-resource",
            "body.runDuration.maxRunDuration: 5d (432000s) is above this stack's policy cap of "
            "3d (259200s) (config maxRunDuration)",
        ),
        (
            "no-public-ip-on-accelerators",
            "open-queued-resource",
            "body.tpu.nodeSpec[0].node.networkConfig.enableExternalIps gives a TPU VM a public "
            "IP; remove it (use Cloud NAT / IAP) or add the resource to allowedResources",
        ),
        (
            "no-public-ip-on-accelerators",
            "raw",
            "tpu.nodeSpecs[0].node.networkConfig.enableExternalIps gives a TPU VM a public IP; "
            "remove it (use Cloud NAT / IAP) or add the resource to allowedResources",
        ),
        (
            "required-labels",
            "open-queued-resource",
            "body.tpu.nodeSpec[0].node.labels lacks required label(s) team (required: team)",
        ),
    ]
    # The reservation-bound request is counted on its reservation; the raw one has no run
    # duration (the v2 API has no provisioning model), so its chip-hours are unbounded.
    summary = capacity_summary(mocks.registered)
    by_name = {r["name"]: r for r in summary["resources"]}
    assert by_name["reserved-queued-resource"]["counted"] is False
    assert (by_name["raw"]["tpu_chips"], by_name["raw"]["bounded"]) == (8, False)
    assert summary["tpu_chips_by_type"] == {"v6e": 16, "v5e": 8}
    assert summary["tpu_chip_hours"] == 16 * 5 * 24
