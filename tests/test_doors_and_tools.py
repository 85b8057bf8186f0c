"""The catalog's door tables, the inputs every component takes alike, ``dws plan`` on stack
config it used to crash on, and the emulator as a user's tool (``dws emulator --capacity`` with
TPU chips, ``dws emulate``)."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path
from typing import Any

import pulumi
import pytest
from component_helpers import stack_default

from pulumi_dws import CalendarReservation, DwsValidationError, QueuedTpu, catalog, limits
from pulumi_dws.catalog.availability import GKE_VERSIONS, TPU_ZONES
from pulumi_dws.cli import _calendar_block, _capacity_spec, main
from pulumi_dws.clock import now
from pulumi_dws.testing import GcpMocks
from pulumi_dws.testing.emulated import emulate
from pulumi_dws.testing.emulator import Emulator

ROOT = Path(__file__).resolve().parents[1]
QUEUED_RESOURCE = "pulumi-python:dynamic/dws:QueuedTpu"


# ----------------------------------------------------------------------- one table per fact
def test_a_door_offers_a_generation_only_where_the_generation_is() -> None:
    for row in TPU_ZONES:
        if row.door == "tpu":
            continue
        everywhere = catalog.tpu_zones(row.generation, "tpu") or ()
        assert set(row.zones) <= set(everywhere), row.key


def test_every_door_row_is_a_limits_row_a_stack_can_override() -> None:
    for row in TPU_ZONES:
        assert limits.get(row.key).zones == row.zones
        assert row.source.startswith("https://")
    assert catalog.tpu_zones("v5p", "cloud_tpu_flex_start") is None  # no row: not offered
    with limits.overridden("gke.tpu_flex_start_zones.v6e", zones=["us-central1-b"]):
        assert catalog.check_tpu_zone("z", "us-central1-b", "v6e", "gke_flex_start")
    with pytest.raises(DwsValidationError, match=r"^z: us-central1-b .*gke\.tpu_flex_start"):
        catalog.check_tpu_zone("z", "us-central1-b", "v6e", "gke_flex_start")


def test_the_gke_versions_table_is_what_the_pool_checks() -> None:
    assert catalog.gke_min_version("tpu7x") == GKE_VERSIONS["tpu7x"].version
    with pytest.raises(DwsValidationError, match="older than 1.34.0-gke.2201000"):
        catalog.check_gke_version("version", "1.33.5-gke.100", "tpu7x", "TPU7x nodes", "x")
    assert catalog.check_gke_version("version", "1.34.1", "tpu7x", "TPU7x nodes", "x")


# ----------------------------------------------------------------------- the same inputs alike
def _resolved(program: Any) -> Any:
    return GcpMocks().run(program)


def test_queued_tpu_node_count_may_be_an_output_and_chips_follow_it() -> None:
    def program() -> Any:
        tpu = QueuedTpu("multi", {"zone": "us-east5-a", "accelerator_type": "v6e-16",
                                  "provisioning": "spot", "node_count": pulumi.Output.from_input(3)})  # fmt: skip
        return tpu.chips

    assert _resolved(program) == 48
    with pytest.raises(DwsValidationError, match=r"^node_count: 1 is below"):
        _resolved(
            lambda: QueuedTpu(
                "one",
                {
                    "zone": "us-east5-a",
                    "accelerator_type": "v6e-16",
                    "provisioning": "spot",
                    "node_count": pulumi.Output.from_input(1),
                },
            )  # fmt: skip
        )


def test_queued_tpu_takes_a_calendar_reservation_as_its_block() -> None:
    mocks = GcpMocks(project="p1")

    def program() -> None:
        block = CalendarReservation("v6e-block", {
            "zone": "us-east5-b", "tpu_version": "v6e", "chip_count": 16,
            "start_time": "+4w", "duration": "7d", "project": "p1"})  # fmt: skip
        QueuedTpu("on-block", {"zone": "us-east5-b", "accelerator_type": "v6e-16",
                               "provisioning": "reservation_bound", "reservation": block})  # fmt: skip

    mocks.run(program)
    body = mocks.one(QUEUED_RESOURCE).inputs["body"]
    assert body["reservationName"] == "projects/p1/locations/us-east5-b/reservations/v6e-block"
    assert body["provisioningModel"] == "RESERVATION_BOUND"


def test_the_blueprint_gives_a_consumer_its_block(tmp_path: Path) -> None:
    from pulumi_dws.blueprint import deploy

    mocks = GcpMocks(project="p1")
    capacity = {
        "calendar_reservations": [{"name": "v6e-block", "zone": "us-east5-b", "tpu_version": "v6e",
                                   "chip_count": 16, "start_time": "+4w", "duration": "7d"}],
        "queued_tpus": [{"name": "on-block", "zone": "us-east5-b", "accelerator_type": "v6e-16",
                         "provisioning": "reservation_bound", "reservation": "v6e-block"}],
    }  # fmt: skip
    mocks.run(lambda: deploy(capacity))
    body = mocks.one(QUEUED_RESOURCE).inputs["body"]
    assert body["reservationName"] == "projects/p1/locations/us-east5-b/reservations/v6e-block"


# ----------------------------------------------------------------------- dws plan
def _project(tmp_path: Path, stack: str) -> Path:
    (tmp_path / "Pulumi.yaml").write_text("name: dws-blueprint\nruntime: python\n")
    (tmp_path / "__main__.py").write_text((ROOT / "__main__.py").read_text())
    (tmp_path / "Pulumi.dev.yaml").write_text(stack)
    return tmp_path


BLOCK = """config:
  gcp:project: my-project
  dws:capacity:
    calendar_reservations:
      - name: b
        zone: us-central1-a
        machine_type: a3-highgpu-8g
        count: 2
        duration: 7d
        {line}
"""


def test_an_unquoted_yaml_time_is_a_start_time(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    later = (now() + dt.timedelta(days=30)).strftime("%Y-%m-%dT00:00:00Z")
    project = _project(tmp_path, BLOCK.format(line=f"start_time: {later}"))
    assert main(["plan", str(project), "--no-policy"]) == 0, capsys.readouterr().err
    assert f"start={later}" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("line", "words"),
    [
        ("start_time: 2027-03-01", "start_time: 2027-03-01 needs a time and zone"),
        ("labels: {team: !!binary aGVsbG8=}", None),
        ("count: !!set {a, b}", "count: ['a', 'b'] must be a whole number"),
        ("start_time: +4w\n        share_with: !!timestamp 2027-01-01", "share_with"),
    ],
)
def test_other_yaml_values_are_one_line_never_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], line: str, words: str | None
) -> None:
    project = _project(tmp_path, BLOCK.format(line=line))
    code = main(["plan", str(project), "--no-policy"])
    err = capsys.readouterr().err.strip()
    assert "Traceback" not in err and "\n" not in err
    if words is not None:
        assert code == 1 and words in err, err


def test_planned_resources_say_planned_and_tpu_rows_count_chip_hours(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["plan", str(ROOT / "stacks" / "tpu-dws"), "--no-policy"]) == 0
    out = capsys.readouterr().out
    assert "queuedResourceState: planned" in out
    assert not re.search(r"\b(ACTIVE|SUCCEEDED)\b", out)
    spot = GcpMocks()
    spot.run(lambda: QueuedTpu("s", {"zone": "us-east5-a", "accelerator_type": "v6e-16",
                                     "provisioning": "spot"}))  # fmt: skip
    from pulumi_dws.policy import capacity_summary

    notes = capacity_summary(spot.registered)["resources"][0]["notes"]
    assert notes == ["no max run duration: chip-hours unbounded"]


def test_version_and_usage_errors(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0
    assert re.fullmatch(r"dws \(pulumi-dws\) \S+", capsys.readouterr().out.strip())
    assert main(["plan", "/nonexistent"]) == 2
    assert "no such directory" in capsys.readouterr().err


# ----------------------------------------------------------------------- the emulator
@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("us-east5-a:v6e:16", ("us-east5-a", "v6e", 16, True)),
        ("us-west4-a:V5E:8", ("us-west4-a", "v5e", 8, True)),
        ("us-central1-a:a3-highgpu-8g:2", ("us-central1-a", "a3-highgpu-8g", 2, False)),
        ("us-central1-a:n2-standard-8:2", ("us-central1-a", "n2-standard-8", 2, False)),
    ],
)
def test_capacity_takes_tpu_chips_and_known_machine_types(spec: str, expected: Any) -> None:
    assert _capacity_spec(spec) == expected


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ("us-central1-a:a3-fakegpu-8g:2", "--capacity machine type: a3-fakegpu-8g is not a known"),
        ("us-central1-a:v9x:4", "or a TPU version (v6e, v5e, v5p)"),
        ("us-central1-a:tpu7x:4", "not served by the Cloud TPU API"),
        ("us-central1-a:v6e:16", "--capacity zone: us-central1-a is not a zone where TPU v6e"),
        ("us-east5-a:v6e:0", '--capacity count: "0" must be'),
    ],
)
def test_capacity_refuses_what_does_not_exist(spec: str, words: str) -> None:
    with pytest.raises(DwsValidationError) as info:
        _capacity_spec(spec)
    assert words in str(info.value), str(info.value)


def test_calendar_refuses_a_tpu_block_where_calendar_mode_offers_none() -> None:
    with pytest.raises(DwsValidationError, match=r"^--calendar zone: us-central1-a .*Calendar"):
        _calendar_block("us-central1-a:v6e:16:+3w:+8w", now())
    with pytest.raises(DwsValidationError, match=r"^--calendar machine type: a9-nope"):
        _calendar_block("us-central1-a:a9-nope:2:+3w:+8w", now())


def test_dws_emulate_creates_a_stacks_queued_tpu_with_the_chips_given(
    capsys: pytest.CaptureFixture[str],
) -> None:
    stack = str(ROOT / "stacks" / "tpu-dws")
    assert main(["emulate", stack, "--capacity", "us-east5-a:v6e:16"]) == 0
    out = capsys.readouterr().out
    assert "v6e-flex-queued-resource  projects/my-ml-project/locations/us-east5-a/" in out
    assert out.rstrip().endswith("ACTIVE")
    assert main(["emulate", stack]) == 1  # no chips: the request expires, and says so
    assert "FAILED" in capsys.readouterr().err


def test_emulate_runs_a_groups_resize_request_against_its_group_in_the_emulator() -> None:
    with Emulator() as emu:
        emu["compute"].add_capacity("us-central1-a", "a3-highgpu-8g", 4)
        run = emulate(ROOT / "stacks" / "flex-start-group", "dev", emu)
        ((name, id_, state),) = run.created
        assert (name, state) == ("trainers-request", "SUCCEEDED")
        named = stack_default("trainers", project="flex-start-group")
        assert id_.endswith(
            f"/zones/us-central1-a/instanceGroupManagers/{named}/resizeRequests/{named}"
        )
        posted = [r.path for r in emu.requests if r.method == "POST"]
        assert any(p.endswith("/global/instanceTemplates") for p in posted), posted
        assert any(p.endswith("/zones/us-central1-a/instanceGroupManagers") for p in posted)
