"""``advice.calendarMode`` for TPU chips (``aggregateResources``): the request gcloud sends,
answers from the emulator, ``dws advise calendar --tpu-version`` and what it emits."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterator
from typing import Any

import pytest
import yaml

from pulumi_dws import cli_advise, clock
from pulumi_dws.advice import calendar_mode_advice, calendar_query, emit_config, models
from pulumi_dws.errors import DwsValidationError
from pulumi_dws.providers.rest import GoogleRestClient, RetryPolicy
from pulumi_dws.testing.emulator import Emulator, VirtualClock
from pulumi_dws.testing.emulator.advice import AdviceService

DAY = dt.timedelta(days=1)
T0 = VirtualClock().now()
CT6E = "VM_FAMILY_CLOUD_TPU_LITE_POD_SLICE_CT6E"
TPU = ("calendar", "--project", "p1", "--region", "us-east5", "--tpu-version", "v6e")


@pytest.fixture
def emu(advice_emulator: Emulator) -> Iterator[Emulator]:
    """32 v6e chips offered in us-east5-b from day 20 to day 40; none in us-east5-a."""
    service: AdviceService = advice_emulator["advice"]
    cap = service.reset()
    cap.offer_calendar("us-east5-b", CT6E, 32, T0 + 20 * DAY, T0 + 40 * DAY)
    cap.offer_calendar("us-east5-a", "a3-highgpu-8g", 2, T0 + 20 * DAY, T0 + 40 * DAY)
    with clock.frozen(advice_emulator.clock.now()):
        yield advice_emulator


def cli(emu: Emulator, capsys: Any, *argv: str) -> tuple[int, str, str]:
    code = cli_advise.main([*argv, "--endpoint", emu.url])
    out, err = capsys.readouterr()
    return code, out, err


def client_for(emu: Emulator) -> GoogleRestClient:
    return GoogleRestClient(emu.url + "compute/v1/", retry=RetryPolicy(attempts=2))


def test_the_request_asks_for_chips_of_the_versions_vm_family() -> None:
    query = calendar_query(
        "p1", "us-east5", None, 16, "7d", tpu_version="V6E", workload_type="batch", now=T0
    )
    spec = query.to_request().to_api()["futureResourcesSpecs"]["spec"]
    assert spec["targetResources"] == {
        "aggregateResources": {"acceleratorCount": "16", "vmFamily": CT6E, "workloadType": "BATCH"}
    }
    assert query.describe().startswith("16 TPU v6e chips (BATCH) in us-east5 for 7d")


@pytest.mark.parametrize(
    ("args", "options", "field", "fragment"),
    [
        (("us-east5", None, 12, "7d"), {"tpu_version": "v6e"}, "count", "1 or 4 or 8 or 16"),
        (
            ("us-central1", None, 16, "7d"),
            {"tpu_version": "v6e"},
            "region",
            "no zone where Calendar mode offers TPU v6e",
        ),
        (("us-east5", None, 16, "7d"), {"tpu_version": "v7"}, "tpu_version", "not a known"),
        (
            ("us-east5", None, 16, "7d"),
            {"tpu_version": "v6e", "workload_type": "TRAINING"},
            "workload_type",
            "BATCH, SERVING",
        ),
        (("us-east5", "a3-highgpu-8g", 1, "7d"), {"tpu_version": "v6e"}, "machine_type", "one of"),
        (
            ("us-east5", "a3-highgpu-8g", 1, "7d"),
            {"workload_type": "BATCH"},
            "workload_type",
            "only applies to TPUs",
        ),
        (
            ("us-south1", None, 16, "7d"),
            {"tpu_version": "v5e", "workload_type": "SERVING"},
            "count",
            "1 or 4 or 8",
        ),
    ],
)
def test_tpu_questions_are_checked_naming_the_field(
    args: tuple[Any, ...], options: dict[str, Any], field: str, fragment: str
) -> None:
    with pytest.raises(DwsValidationError) as caught:
        calendar_query("p1", *args, now=T0, **options)
    assert caught.value.field == field and fragment in str(caught.value), str(caught.value)


def test_the_emulator_recommends_a_window_of_tpu_chips(emu: Emulator) -> None:
    advice = calendar_mode_advice(
        "p1", "us-east5", None, 16, "7d", tpu_version="v6e", client=client_for(emu)
    )
    best = advice.pick()
    assert (best.zone, best.count, best.tpu_version) == ("us-east5-b", 16, "v6e")
    assert (best.start_time, best.end_time) == (T0 + 20 * DAY, T0 + 27 * DAY)
    assert {(z.zone, z.status) for z in advice.other_zones} == {("us-east5-a", "NOT_SUPPORTED")}
    too_many = calendar_mode_advice(
        "p1", "us-east5", None, 64, "7d", tpu_version="v6e", client=client_for(emu)
    )
    assert too_many.empty and "64 TPU v6e chips" in too_many.why_empty()
    assert "a smaller --count" in too_many.why_empty()


def test_cli_table_json_and_emit_for_tpus(emu: Emulator, capsys: Any) -> None:
    code, out, err = cli(emu, capsys, *TPU, "--count", "16", "--duration", "7d")
    assert code == 0, err
    assert out.startswith("Calendar-mode advice for 16 TPU v6e chips in us-east5 for 7d")
    code, out, _ = cli(
        emu,
        capsys,
        *TPU,
        "--count",
        "16",
        "--workload-type",
        "batch",
        "--duration",
        "7d",
        "--format",
        "json",
    )
    data = json.loads(out)
    assert (data["tpu_version"], data["chip_count"], data["workload_type"]) == ("v6e", 16, "BATCH")
    assert data["recommendations"][0]["chip_count"] == 16
    code, out, _ = cli(
        emu, capsys, *TPU, "--count", "16", "--workload-type", "BATCH", "--duration", "7d", "--emit"
    )
    assert code == 0 and out.startswith("# Recommendation #1: 16 TPU v6e chips in us-east5-b")
    block = yaml.safe_load(out.split("# --- or stack config")[1].split("\n", 1)[1])
    (entry,) = block["config"]["dws:capacity"]["calendar_reservations"]
    assert entry == {
        "name": "tpu-v6e-20260125",
        "zone": "us-east5-b",
        "tpu_version": "v6e",
        "chip_count": 16,
        "workload_type": "BATCH",
        "start_time": "2026-01-25T00:00:00Z",
        "end_time": "2026-02-01T00:00:00Z",
    }


def test_the_emitted_tpu_reservation_is_accepted_by_the_blueprint(emu: Emulator) -> None:
    from pulumi_dws.blueprint import validate_capacity

    window = calendar_mode_advice(
        "p1", "us-east5", None, 16, "7d", tpu_version="v6e", client=client_for(emu)
    ).pick()
    (entry,) = validate_capacity(emit_config(window, "v6e-block")["config"]["dws:capacity"])
    assert entry.name == "v6e-block"


def test_cli_tpu_errors_name_the_flag(emu: Emulator, capsys: Any) -> None:
    code, _, err = cli(emu, capsys, *TPU, "--count", "12", "--duration", "7d")
    assert code == 2 and err.startswith("error: --count: 12 is not an allowed"), err
    code, _, err = cli(
        emu, capsys, *TPU, "--count", "16", "--workload-type", "x", "--duration", "7d"
    )
    assert code == 2 and err.startswith("error: --workload-type: X"), err
    with pytest.raises(SystemExit) as caught:
        cli_advise.main([*TPU, "--machine-type", "a3-highgpu-8g", "--duration", "7d"])
    assert caught.value.code == 2
    assert "not allowed with argument" in capsys.readouterr().err
    assert emu["advice"].calls == []


def test_tpu_request_matches_what_gcloud_sends() -> None:
    from pulumi_dws.testing.gcloud import gcloud_unavailable_reason, run_gcloud

    reason = gcloud_unavailable_reason("alpha")
    if reason:
        pytest.skip(reason)
    capture = run_gcloud(
        [
            "alpha",
            "compute",
            "advice",
            "calendar-mode",
            "--region=us-east5",
            "--tpu-version=V6E",
            "--chip-count=16",
            "--workload-type=BATCH",
            "--duration-range=min=7d,max=14d",
            "--start-time-range=from=2026-02-01T00:00:00Z,to=2026-03-01T00:00:00Z",
            "--location-policy=us-east5-a=deny",
        ],
        project="p1",
    )
    sent = [r for r in capture.requests if r.path.endswith("/advice/calendarMode")]
    assert sent, capture.describe()
    theirs = models.CalendarModeAdviceRequest.from_api(sent[0].body)
    ours = calendar_query(
        "p1",
        "us-east5",
        None,
        16,
        "7d",
        tpu_version="v6e",
        workload_type="BATCH",
        max_duration="14d",
        earliest="2026-02-01",
        latest="2026-03-01",
        exclude_zones=["us-east5-a"],
        now=T0,
    ).to_request()
    assert ours.to_api() == theirs.to_api()
