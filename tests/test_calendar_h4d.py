"""H4D VMs in Calendar mode: ``CalendarReservation`` of ``h4d-*`` machine types (1 to 256 VMs,
limits row ``calendar.count_h4d``), its body against gcloud's, its consumers, ``dws plan``, the
policy pack and the blueprint."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

import pytest
from test_calendar import FR, base, build, ts

from pulumi_dws import CalendarReservation, FlexStartGroup, limits
from pulumi_dws.blueprint import validate_capacity
from pulumi_dws.cli import main
from pulumi_dws.errors import DwsValidationError
from pulumi_dws.policy import capacity_summary, evaluate
from pulumi_dws.policy.view import ResourceView
from pulumi_dws.testing import GcpMocks
from pulumi_dws.testing.gcloud import GcloudCommand, GcloudRuns, gcloud_unavailable_reason

H4D = "h4d-highmem-192"


def h4d(**over: Any) -> dict[str, Any]:
    return base(**{"machine_type": H4D, "count": 256, **over})


@pytest.mark.parametrize("machine", ["h4d-standard-192", "h4d-highmem-192", "h4d-highmem-192-lssd"])
def test_each_h4d_machine_type_google_documents_is_reserved_as_vms(machine: str) -> None:
    mocks, holder = build(base(machine_type=machine, count=256))
    inputs = mocks.one(FR).inputs
    assert inputs["specificSkuProperties"] == {
        "instanceProperties": {"machineType": machine},
        "totalCount": "256",
    }
    assert inputs["reservationMode"] == "CALENDAR"
    assert holder["c"].spec.gpus == 0 and holder["c"].spec.tpu_chips == 0


@pytest.mark.parametrize(
    ("over", "words"),
    [
        ({"count": 257}, "count: 257 is above the Calendar-mode H4D VM count limit of 256"),
        ({"count": 0}, "count: 0 is below the Calendar-mode H4D VM count minimum of 1"),
        ({"machine_type": "h4d-highcpu-192"}, "machine_type: h4d-highcpu-192 is not an H4D"),
        ({"machine_type": "h4d-standard-96"}, "Google documents h4d-standard-192, h4d-highmem"),
        ({"accelerator_type": "nvidia-h100-80gb"}, "accelerator_type: nvidia-h100-80gb does not"),
        ({"accelerator_count": 8}, "is an H4D machine type, which has no GPUs"),
    ],
)
def test_bad_h4d_requests_are_refused_at_construction(over: dict[str, Any], words: str) -> None:
    with pytest.raises(DwsValidationError, match=words.replace("(", r"\(")) as info:
        build(h4d(**over))
    assert "calendar.count_h4d" in str(info.value) or "count" not in over


def test_gpu_requests_keep_their_own_row_of_1_to_80() -> None:
    build(base(count=80))
    with pytest.raises(
        DwsValidationError, match=r"count: 81 is above .*\(limits row calendar.count\)"
    ):
        build(base(count=81))


def test_an_h4d_count_known_later_is_checked_against_the_h4d_row() -> None:
    import pulumi

    mocks = GcpMocks()
    with pytest.raises(Exception, match="count: 300 is above .*calendar.count_h4d"):
        mocks.run(lambda: CalendarReservation("blk", h4d(count=pulumi.Output.from_input(300))))


def test_the_h4d_row_can_be_overridden() -> None:
    with limits.applied({"calendar.count_h4d": {"maximum": 512}}):
        mocks, _ = build(h4d(count=300))
    assert mocks.one(FR).inputs["specificSkuProperties"]["totalCount"] == "300"


# ----------------------------------------------------------------------- gcloud oracle
_SKIP = gcloud_unavailable_reason("beta")
START = ts(30)
GCLOUD = GcloudCommand.of(
    [
        "beta", "compute", "future-reservations", "create", "fr-1",
        "--zone=us-central1-a", "--reservation-mode=CALENDAR",
        f"--machine-type={H4D}", "--total-count=256",
        f"--start-time={START}", f"--duration={7 * 86400}",
        "--auto-delete-auto-created-reservations", "--require-specific-reservation",
        "--deployment-type=DENSE", "--planning-status=SUBMITTED",
    ]
)  # fmt: skip


@pytest.mark.skipif(_SKIP is not None, reason=_SKIP or "")
@pytest.mark.gcloud(GCLOUD)
def test_an_h4d_block_equals_what_gcloud_sends(gcloud_runs: GcloudRuns) -> None:
    capture = gcloud_runs.run(GCLOUD.args)
    assert capture.ok, capture.describe()
    sent = capture.create_request().body
    mocks, _ = build(h4d(start_time=START, deployment_type="DENSE"), name="fr-1")
    ours = dict(mocks.one(FR).inputs)
    ours.pop("zone")  # in the URL
    ours.pop("reservationName")  # a flag the command line above does not set
    assert ours == sent
    assert sent["specificSkuProperties"]["instanceProperties"]["machineType"] == H4D


# ----------------------------------------------------------------------- consumers
GROUP: dict[str, Any] = {
    "zone": "us-central1-a",
    "count": 64,
    "provisioning": "reservation_bound",
}


def _group_on(block_args: dict[str, Any], machine: str, **group: Any) -> GcpMocks:
    mocks = GcpMocks(project="proj")

    def program() -> None:
        block = CalendarReservation("h4d-block", {**block_args, "project": "proj"})  # type: ignore[typeddict-item]
        FlexStartGroup("hpc", {**GROUP, "machine_type": machine, "reservation": block, **group})  # type: ignore[typeddict-item]

    mocks.run(program)
    return mocks


def test_an_h4d_group_consumes_an_h4d_block_and_only_the_block_counts() -> None:
    mocks = _group_on(h4d(), H4D)
    template = mocks.one("gcp:compute/instanceTemplate:InstanceTemplate").inputs
    assert template["machineType"] == H4D
    assert template["scheduling"]["provisioningModel"] == "RESERVATION_BOUND"
    assert template["reservationAffinity"]["specificReservation"]["values"] == ["h4d-block"]
    summary = capacity_summary(mocks.registered)
    assert summary["gpus"] == 0 and summary["gpu_hours"] == 0  # H4D VMs carry no GPUs
    assert summary["resources"] == [] and summary["unknown"] == []


@pytest.mark.parametrize(
    ("block", "machine", "words"),
    [
        (
            h4d(),
            "a3-highgpu-8g",
            "machine_type: a3-highgpu-8g does not match the reservation h4d-block, which holds "
            "h4d-highmem-192 VMs (256, H4D: no GPUs); its consumers must use machine_type "
            "h4d-highmem-192",
        ),
        (
            base(count=80),
            H4D,
            "machine_type: h4d-highmem-192 does not match the reservation h4d-block, which holds "
            "a3-highgpu-8g VMs (80, 8 GPUs each); its consumers must use machine_type "
            "a3-highgpu-8g",
        ),
        (
            h4d(machine_type="h4d-highmem-192-lssd"),
            H4D,
            "which holds h4d-highmem-192-lssd VMs",
        ),
        (h4d(count=32), H4D, "count: 64 is above the reservation's 32 VMs"),
        (h4d(zone="us-central1-b"), H4D, "zone: us-central1-a does not match the reservation"),
    ],
)
def test_a_consumer_that_does_not_fit_the_block_is_refused(
    block: dict[str, Any], machine: str, words: str
) -> None:
    with pytest.raises(DwsValidationError, match=words.replace("(", r"\(").replace(")", r"\)")):
        _group_on(block, machine)


def test_instance_settings_of_an_h4d_block_name_the_h4d_machine_type() -> None:
    mocks = GcpMocks()
    holder: dict[str, Any] = {}
    mocks.run(lambda: holder.setdefault("c", CalendarReservation("b", h4d())))  # type: ignore[arg-type]
    settings = holder["c"].instance_settings()
    assert settings["machine_type"] == H4D and settings["zone"] == "us-central1-a"
    with pytest.raises(DwsValidationError, match="a3-highgpu-8g does not match"):
        holder["c"].instance_settings(machine_type="a3-highgpu-8g")


# ----------------------------------------------------------------------- plan and policy
PROGRAM = """
from pulumi_dws import CalendarReservation

CalendarReservation("hpc-week", {
    "project": "p", "zone": "us-central1-a", "machine_type": "h4d-highmem-192",
    "count": COUNT, "start_time": "+4w", "duration": "7d",
})
"""


def _plan(tmp_path: Path, count: int, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    (tmp_path / "Pulumi.yaml").write_text("name: hpc\nruntime: python\n")
    (tmp_path / "__main__.py").write_text(PROGRAM.replace("COUNT", str(count)))
    code = main(["plan", str(tmp_path), "--format", "json"])
    out = capsys.readouterr()
    return code, out.out + out.err


def test_dws_plan_shows_the_h4d_vms_and_vm_hours_and_no_gpus(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, text = _plan(tmp_path, 256, capsys)
    assert code == 0, text
    doc = json.loads(text)
    [fr] = [r for r in doc["resources"] if r["type"] == FR]
    props = fr["properties"]
    assert props["machine_type"] == H4D and props["count"] == 256
    assert props["vms"] == 256 and props["vm_hours"] == 256 * 168
    assert props.get("gpus", 0) == 0 and props.get("gpu_hours", 0) == 0
    assert doc["capacity"]["gpus"] == 0 and doc["capacity"]["gpu_hours"] == 0


def test_dws_plan_refuses_an_h4d_count_above_256(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, text = _plan(tmp_path, 257, capsys)
    assert code == 1 and "count: 257 is above" in text and "calendar.count_h4d" in text


def _future_reservation(machine: str, count: str) -> ResourceView:
    start = (dt.datetime.now(dt.timezone.utc) + dt.timedelta(days=30)).strftime(
        "%Y-%m-%dT%H:%M:%SZ"
    )
    props = {
        "zone": "us-central1-a",
        "reservationMode": "CALENDAR",
        "autoDeleteAutoCreatedReservations": True,
        "timeWindow": {"startTime": start, "duration": {"seconds": 604800}},
        "specificSkuProperties": {
            "instanceProperties": {"machineType": machine},
            "totalCount": count,
        },
    }
    return ResourceView(FR, "raw-block", f"urn:pulumi:dev::p::{FR}::raw-block", props)


@pytest.mark.parametrize(
    ("machine", "count", "finding"),
    [
        (H4D, "256", None),
        (H4D, "257", "257 is above the Calendar-mode H4D VM count limit of 256"),
        ("h4d-highcpu-192", "2", "h4d-highcpu-192 is not an H4D machine type"),
        ("a3-highgpu-8g", "80", None),
        ("a3-highgpu-8g", "81", "81 is above the Calendar-mode GPU VM count limit of 80"),
    ],
)
def test_the_policy_pack_checks_raw_calendar_requests_of_vms(
    machine: str, count: str, finding: str | None
) -> None:
    violations = evaluate([_future_reservation(machine, count)])
    found = [v.message for v in violations if v.rule == "calendar-vm-request"]
    if finding is None:
        assert found == [], found
    else:
        assert len(found) == 1 and finding in found[0], found
    assert not [v for v in violations if v.rule == "gpu-budget"]


# ----------------------------------------------------------------------- blueprint
def test_the_blueprint_takes_an_h4d_block_and_a_group_on_it() -> None:
    block = {"name": "hpc-week", **h4d(start_time="+4w")}
    group = {"name": "hpc", **GROUP, "machine_type": H4D, "reservation": "hpc-week"}
    validate_capacity({"calendar_reservations": [block], "flex_start_groups": [group]})
    too_many = {**block, "count": 257}
    with pytest.raises(DwsValidationError, match=r"calendar_reservations\[0\]\.count: 257"):
        validate_capacity({"calendar_reservations": [too_many]})
    gpu_group = {**group, "machine_type": "a3-highgpu-8g"}
    with pytest.raises(DwsValidationError, match=r"flex_start_groups\[0\]\.machine_type"):
        validate_capacity({"calendar_reservations": [block], "flex_start_groups": [gpu_group]})
