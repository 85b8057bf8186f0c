"""``dws plan``'s key properties read the inputs the providers really have, through the same
resource readers as the policy rules, so the summary and the capacity count never disagree."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pulumi_dws.cli import main
from pulumi_dws.plan.summary import UNKNOWN_SHOWN, key_properties
from pulumi_dws.policy import UNKNOWN

REPO = Path(__file__).resolve().parent.parent
STACKS = [REPO, *sorted(p.parent for p in REPO.glob("stacks/*/Pulumi.yaml"))]
VM = "pulumi-python:dynamic/dws:FlexStartVm"

PROGRAM = """
from pulumi_dws import FlexStartInstance

for name, status in (("stopped", "TERMINATED"), ("running", "RUNNING")):
    FlexStartInstance(name, {
        "project": "p", "zone": "us-central1-a", "machine_type": "a3-highgpu-8g",
        "max_run_duration": "3d", "desired_status": status,
    })
"""


def plan_json(project: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    code = main(["plan", str(project), "--format", "json"])
    out = capsys.readouterr()
    assert code == 0, out.err + out.out[-2000:]
    return json.loads(out.out)


def test_a_stopped_flex_start_vm_is_shown_stopped_and_costs_no_gpu_hours(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "Pulumi.yaml").write_text("name: stopped\nruntime: python\n")
    (tmp_path / "__main__.py").write_text(PROGRAM)
    doc = plan_json(tmp_path, capsys)
    vms = {r["name"]: r for r in doc["resources"] if r["type"] == VM}
    stopped, running = vms["stopped-vm"], vms["running-vm"]
    assert stopped["inputs"]["desiredStatus"] == "TERMINATED"  # what the provider receives
    assert stopped["properties"]["desired_status"] == "TERMINATED"
    assert stopped["properties"]["stopped"] is True
    assert stopped["properties"]["gpu_hours"] == 0
    assert running["properties"]["desired_status"] == "RUNNING"
    assert "stopped" not in running["properties"]
    assert running["properties"]["gpu_hours"] == 8 * 72  # 8 GPUs for 3 days
    capacity = doc["capacity"]
    assert capacity["gpu_hours"] == 576.0 and capacity["gpus"] == 8
    [item] = [i for i in capacity["resources"] if i["name"] == "stopped-vm"]
    assert item["counted"] is False and item["gpu_hours"] == 0
    assert any("stopped" in note for note in item["notes"])


@pytest.mark.parametrize("project", STACKS, ids=lambda p: p.name if p != REPO else ".")
def test_summary_and_capacity_agree_on_every_stack(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = plan_json(project, capsys)
    by_urn: dict[str, list[dict[str, Any]]] = {}
    for item in doc["capacity"]["resources"]:
        by_urn.setdefault(item["urn"], []).append(item)
    shown = 0
    for resource in doc["resources"]:
        props = resource["properties"]
        items = by_urn.get(resource["urn"], [])
        if not items:
            assert "gpu_hours" not in props, resource["name"]
            continue
        shown += 1
        for kind, count, spent in (
            ("gpu", "gpus", "gpu_hours"),
            ("tpu", "tpu_chips", "tpu_chip_hours"),
        ):
            group = [i for i in items if i["accelerator_kind"] == kind]
            if not group:  # GPUs and TPU chips are shown apart, each only when asked for
                assert count not in props and spent not in props, resource["name"]
                continue
            assert props[count] == sum(i[count] for i in group), resource["name"]
            hours = [i[spent] for i in group]
            if None in hours:  # unbounded, or counted on the reservation it consumes
                assert spent not in props, resource["name"]
            else:
                assert props[spent] == pytest.approx(sum(hours)), resource["name"]
    assert shown == len(by_urn)  # every counted resource shows what it costs


def test_unknown_values_are_shown_as_unknown() -> None:
    props = key_properties(
        VM,
        {
            "zone": UNKNOWN,
            "desiredStatus": "RUNNING",
            "body": {
                "machineType": "zones/us-central1-a/machineTypes/a3-highgpu-8g",
                "scheduling": {"provisioningModel": "FLEX_START", "maxRunDuration": UNKNOWN},
            },
        },
    )
    assert props["zone"] == UNKNOWN_SHOWN and props["max_run_duration"] == UNKNOWN_SHOWN
    assert props["gpus"] == 8 and "gpu_hours" not in props  # not known until the duration is


def test_a_reservation_slurm_pool_is_counted_on_its_reservation() -> None:
    from pulumi_dws.kinds.slurm.component import build_cluster_body
    from pulumi_dws.policy import ResourceView, capacity_items

    pools = [
        {"id": "res", "machine_type": "a3-ultragpu-8g", "max_nodes": 2, "reservation": "r1"},
        {"id": "flex", "machine_type": "a3-ultragpu-8g", "max_nodes": 1},
    ]
    body = build_cluster_body(
        {
            "project": "p",
            "display_name": "flexvm",
            "home_directory_storage": "projects/p/locations/us-central1-b/instances/home",
            "login": {"zone": "us-central1-b"},
            "node_pools": pools,
        }
    )
    view = ResourceView("pulumi-python:dynamic/dws:SlurmCluster", "c", "", {"body": body})
    items = {item.part: item for item in capacity_items([view])}
    assert items["res"].counted is False and items["res"].gpus == 16
    assert "counted on the reservation" in " ".join(items["res"].notes)
    assert items["flex"].counted is True and items["flex"].gpu_hours == 8 * 168
    props = key_properties(view.type, {"body": body})
    assert props["gpus"] == 24 and "gpu_hours" not in props
    assert "res: a3-ultragpu-8g x2 RESERVATION" in props["node_pools"]


def test_a_queued_tpu_is_shown_in_chips_not_gpus(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "Pulumi.yaml").write_text("name: tpus\nruntime: python\n")
    (tmp_path / "__main__.py").write_text(
        "from pulumi_dws import QueuedTpu\n"
        'QueuedTpu("trainer", {"project": "p", "zone": "us-east5-a", '
        '"accelerator_type": "v6e-16", "node_count": 2, "max_run_duration": "1d"})\n'
    )
    doc = plan_json(tmp_path, capsys)
    [queued] = [r for r in doc["resources"] if r["type"] == "pulumi-python:dynamic/dws:QueuedTpu"]
    shown = queued["properties"]
    assert (shown["accelerator_type"], shown["slices"], shown["provisioning_model"]) == (
        "v6e-16",
        2,
        "FLEX_START",
    )
    assert (shown["tpu_chips"], shown["tpu_chip_hours"]) == (32, 32 * 24)
    assert "gpus" not in shown
    capacity = doc["capacity"]
    assert capacity["tpu_chips_by_type"] == {"v6e": 32} and capacity["gpus"] == 0
