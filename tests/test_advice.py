"""``pulumi_dws.advice`` and ``dws advise``: models, validation, calls, errors, CLI output.

Every call goes over real HTTP to the local emulator; nothing sleeps for real.
"""

from __future__ import annotations

import ast
import datetime as dt
import json
import os
import subprocess
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import googleapiclient
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from pulumi_dws import cli_advise, clock, limits
from pulumi_dws.advice import (
    AdviceError,
    CalendarQuery,
    CapacityQuery,
    NoRecommendationError,
    calendar_mode_advice,
    calendar_query,
    capacity_advice,
    capacity_query,
    emit_config,
    emit_python,
    explain,
    models,
    project,
)
from pulumi_dws.advice.inputs import TimeLike, asks
from pulumi_dws.advice.render import group_args, group_hint
from pulumi_dws.duration import DurationLike
from pulumi_dws.errors import DwsValidationError
from pulumi_dws.kinds.batch.component import BatchFlexJobSpec
from pulumi_dws.kinds.flex_group.component import FlexStartGroupSpec
from pulumi_dws.models import parse_args, signature_mismatches
from pulumi_dws.providers.rest import ApiError, GoogleRestClient, RetryPolicy
from pulumi_dws.testing.emulator import Emulator, VirtualClock
from pulumi_dws.testing.emulator.advice import AdviceService
from pulumi_dws.testing.emulator.capacity import CapacityModel
from pulumi_dws.testing.gcloud import (
    GcloudCommand,
    GcloudRuns,
    gcloud_path,
    gcloud_unavailable_reason,
)

DAY = dt.timedelta(days=1)
H100 = "a3-highgpu-8g"
MEGA = "a3-megagpu-8g"
T0 = VirtualClock().now()  # the emulator's start: 2026-01-05T00:00:00Z
DISCOVERY = Path(googleapiclient.__file__).parent / "discovery_cache/documents/compute.v1.json"


# ------------------------------------------------------------------------------ fixtures
@pytest.fixture
def emu(advice_emulator: Emulator) -> Iterator[Emulator]:
    """The shared emulator with fresh capacity (Calendar blocks in us-central1), our clock
    pinned to the emulator's, and nothing scripted."""
    service: AdviceService = advice_emulator["advice"]
    cap = service.reset()
    cap.offer_calendar("us-central1-a", H100, 4, T0 + 20 * DAY, T0 + 40 * DAY)
    cap.offer_calendar("us-central1-b", H100, 1, T0 + 10 * DAY, T0 + 40 * DAY)
    cap.add("us-central1-c", H100, 3)
    cap.add("us-central1-b", MEGA, 1)
    with clock.frozen(advice_emulator.clock.now()):
        yield advice_emulator


def client_for(emu: Emulator, attempts: int = 3) -> GoogleRestClient:
    return GoogleRestClient(
        emu.url + "compute/v1/", retry=RetryPolicy(attempts=attempts), sleep=lambda s: None
    )


def cli(emu: Emulator, capsys: Any, *argv: str) -> tuple[int, str, str]:
    """Run ``dws advise ...`` in-process against ``emu``."""
    code = cli_advise.main([*argv, "--endpoint", emu.url])
    out, err = capsys.readouterr()
    return code, out, err


CAL = ("calendar", "--project", "p1", "--region", "us-central1", "--machine-type", H100)
CAP = ("capacity", "--project", "p1", "--region", "us-central1", "--machine-type", H100)


# ------------------------------------------------------------------------------ models
def _schema_models() -> dict[str, type[BaseModel]]:
    names = {
        "CapacityAdviceRequestInstanceSelection": (
            "CapacityAdviceRequestInstanceFlexibilityPolicyInstanceSelection"
        ),
        "CapacityAdviceRequestScheduling": "CapacityAdviceRequestInstancePropertiesScheduling",
        "CapacityAdviceRequestZoneConfiguration": (
            "CapacityAdviceRequestDistributionPolicyZoneConfiguration"
        ),
    }
    found = {}
    for attr in models.__all__:
        obj = getattr(models, attr)
        if (
            isinstance(obj, type)
            and issubclass(obj, models.ApiModel)
            and obj is not models.ApiModel
        ):
            found[names.get(attr, attr)] = obj
    return found


def test_models_carry_every_field_of_the_discovery_document() -> None:
    schemas = json.loads(DISCOVERY.read_text())["schemas"]
    checked = _schema_models()
    assert len(checked) >= 25
    for schema_id, model in checked.items():
        wire = {f.alias for f in model.model_fields.values()}
        assert wire == set(schemas[schema_id]["properties"]), schema_id
    advice = json.loads(DISCOVERY.read_text())["resources"]["advice"]["methods"]
    assert advice["calendarMode"]["path"].endswith("advice/calendarMode")
    assert advice["calendarMode"]["request"]["$ref"] == "CalendarModeAdviceRequest"
    assert advice["capacity"]["response"]["$ref"] == "CapacityAdviceResponse"


def february_query(latest: str) -> CalendarQuery:
    """2 x H100 for 7 to 14 days, starting in February 2026 (``latest`` the end of it, as a
    timestamp or a date), not in us-central1-b: what the gcloud oracle below asks too."""
    return calendar_query(
        "p1",
        "us-central1",
        H100,
        2,
        "7d",
        max_duration="14d",
        earliest="2026-02-01",
        latest=latest,
        exclude_zones=["us-central1-b"],
        now=T0,
    )


def test_request_bodies_use_googles_wire_forms() -> None:
    body = february_query("2026-03-01T00:00:00Z").to_request().to_api()
    spec = body["futureResourcesSpecs"]["spec"]
    assert spec["deploymentType"] == "DENSE"
    assert spec["targetResources"]["specificSkuResources"] == {
        "instanceCount": "2",
        "machineType": H100,
    }
    assert spec["timeRangeSpec"] == {
        "minDuration": "604800s",
        "maxDuration": "1209600s",
        "startTimeNotEarlierThan": "2026-02-01T00:00:00Z",
        "startTimeNotLaterThan": "2026-03-01T00:00:00Z",
    }
    assert spec["locationPolicy"] == {"locations": {"zones/us-central1-b": {"preference": "DENY"}}}
    cap = capacity_query("p1", "us-central1", [H100, MEGA], 3, zones=["us-central1-a"])
    assert cap.to_request().to_api() == {
        "size": 3,
        "instanceProperties": {"scheduling": {"provisioningModel": "FLEX_START"}},
        "instanceFlexibilityPolicy": {
            "instanceSelections": {
                "selection-0": {"machineTypes": [H100], "rank": "0"},
                "selection-1": {"machineTypes": [MEGA], "rank": "1"},
            }
        },
        "distributionPolicy": {
            "targetShape": "ANY_SINGLE_ZONE",
            "zones": [{"zone": "zones/us-central1-a"}],
        },
    }


def test_responses_parse_offsets_fractions_and_unknown_fields() -> None:
    cal = models.CalendarModeAdviceResponse.from_api(
        {
            "recommendations": [
                {
                    "recommendationsPerSpec": {
                        "spec": {
                            "location": "zones/us-central1-a",
                            "startTime": "2026-02-01T01:00:00.000-01:00",
                            "endTime": "2026-02-08T02:00:00Z",
                            "futureField": 1,
                        }
                    }
                }
            ]
        }
    )
    rec = cal.recommendations[0].recommendations_per_spec["spec"]
    assert rec.start_time == dt.datetime(2026, 2, 1, 2, tzinfo=dt.timezone.utc)
    assert cal.to_api()["recommendations"][0]["recommendationsPerSpec"]["spec"]["futureField"] == 1
    cap = models.CapacityAdviceResponse.from_api(
        {"recommendations": [{"scores": {"obtainability": 0.7, "estimatedUptime": "3600.5s"}}]}
    )
    assert cap.recommendations[0].scores.estimated_uptime.seconds == 3600
    assert models.CalendarModeAdviceResponse.from_api(None).recommendations is None


# ------------------------------------------------------------------------------ validation
def _calendar(**changes: Any) -> Any:
    args: dict[str, Any] = {
        "project": "p1",
        "region": "us-central1",
        "machine_type": H100,
        "count": 2,
        "duration": "7d",
        "now": T0,
    }
    args.update(changes)
    return calendar_query(**args)


@pytest.mark.parametrize(
    ("changes", "field", "needle"),
    [
        ({"count": 0}, "count", "minimum of 1"),
        ({"count": 81}, "count", "limit of 80"),
        ({"count": "2"}, "count", "whole number"),
        ({"duration": "100d"}, "duration", "limit of 90d"),
        ({"duration": "12h"}, "duration", "minimum of 1d"),
        ({"duration": "a week"}, "duration", "not a duration"),
        ({"max_duration": "3d"}, "max_duration", "shorter than duration 7d"),
        ({"earliest": "2026-01-05T12:00:00Z"}, "earliest", "look-ahead minimum"),
        ({"earliest": "2025-12-01"}, "earliest", "in the past"),
        ({"earliest": "next week"}, "earliest", "+2w"),
        ({"earliest": "2026-02-30"}, "earliest", "not a date"),
        ({"earliest": "2026-02-01T00:00:00"}, "earliest", "no time zone"),
        ({"latest": "+200d"}, "latest", "look-ahead limit of 60d"),
        ({"latest": "+61d"}, "latest", "GPU and H4D VMs look-ahead limit of 60d"),
        ({"earliest": "+30d", "latest": "+10d"}, "latest", "before earliest"),
        ({"machine_type": "n1-standard-4"}, "machine_type", "not a known GPU machine type"),
        ({"region": "us-central1-a"}, "region", "that is a zone"),
        ({"project": "My Project"}, "project", "not a project id"),
        ({"exclude_zones": ["europe-west4-a"]}, "exclude_zones[0]", "not in region"),
    ],
)
def test_calendar_inputs_are_checked_against_the_limits_table(
    changes: dict[str, Any], field: str, needle: str
) -> None:
    with pytest.raises(DwsValidationError) as caught:
        _calendar(**changes)
    assert caught.value.field == field
    assert needle in str(caught.value)


@pytest.mark.parametrize("machine_type", [H100, "h4d-highmem-192"])
def test_calendar_advice_of_vms_looks_60_days_ahead_and_of_tpus_120(machine_type: str) -> None:
    """Google shows the future availability of GPU or H4D VMs up to 60 days ahead and of TPUs
    up to 120 (the Calendar-mode overview): a question of VMs asks no further, by default or
    when told; one of TPU chips keeps its 120 days."""
    query = _calendar(machine_type=machine_type)
    assert query.latest == T0 + dt.timedelta(days=60)
    with pytest.raises(DwsValidationError, match="calendar.start_ahead_vms|60d"):
        _calendar(machine_type=machine_type, latest="+90d")
    tpus = _calendar(machine_type=None, tpu_version="v6e", count=16, region="us-east5")
    assert tpus.latest == T0 + dt.timedelta(days=120)
    assert _calendar(
        machine_type=None, tpu_version="v6e", count=16, region="us-east5", latest="+90d"
    ).latest == T0 + dt.timedelta(days=90)


def test_calendar_advice_takes_h4d_vms_as_calendar_mode_does() -> None:
    """Calendar mode reserves GPU, H4D or TPU capacity, up to 256 H4D VMs per request (the
    ``calendar.count_h4d`` row), as CalendarReservation takes them: the advice asks the same."""
    query = _calendar(machine_type="h4d-highmem-192", count=256)
    assert (query.machine_type, query.count) == ("h4d-highmem-192", 256)
    with pytest.raises(DwsValidationError) as caught:
        _calendar(machine_type="h4d-highmem-192", count=257)
    assert caught.value.field == "count" and "limit of 256" in str(caught.value)
    with pytest.raises(DwsValidationError) as caught:
        _calendar(machine_type="h4d-highcpu-192")
    assert caught.value.field == "machine_type" and "h4d-highmem-192" in str(caught.value)
    with pytest.raises(DwsValidationError) as caught:
        _calendar(count=81)  # GPU VMs keep their own row
    assert "limit of 80" in str(caught.value)


def test_calendar_defaults_span_the_look_ahead_and_follow_limit_overrides() -> None:
    query = _calendar(now=T0 + dt.timedelta(minutes=5))
    assert query.earliest == T0 + DAY + dt.timedelta(hours=1)  # 1 day ahead, next whole hour
    assert query.latest == T0 + 60 * DAY  # GPU VMs: Google shows them 60 days ahead
    assert _calendar(earliest="+2w").earliest == T0 + 14 * DAY
    limits.use_profile("seed")
    try:
        with pytest.raises(DwsValidationError, match="use 7d .* or 14d"):
            _calendar(duration="10d")
        assert _calendar(duration="14d").min_duration.human() == "14d"
        with pytest.raises(DwsValidationError, match="limit of 56d"):
            _calendar(latest="+60d")
    finally:
        limits.reset()
    with limits.overridden("calendar.duration", maximum="180d"):
        assert _calendar(duration="100d").max_duration.human() == "100d"


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"count": 0}, "count"),
        ({"machine_type": []}, "machine_type"),
        ({"machine_type": [H100, "x1"]}, "machine_type[1]"),
        ({"provisioning_model": "CHEAP"}, "provisioning_model"),
        ({"target_shape": "ROUND"}, "target_shape"),
        ({"zones": ["us-east1-b"]}, "zones[0]"),
    ],
)
def test_capacity_inputs_name_the_field(changes: dict[str, Any], field: str) -> None:
    args: dict[str, Any] = {
        "project": "p1",
        "region": "us-central1",
        "machine_type": H100,
        "count": 1,
    }
    args.update(changes)
    with pytest.raises(DwsValidationError) as caught:
        capacity_query(**args)
    assert caught.value.field == field


def test_capacity_inputs_are_checked_in_plain_words() -> None:
    def refused(**changes: Any) -> str:
        args = {"project": "p1", "region": "us-central1", "machine_type": H100, "count": 1}
        with pytest.raises(DwsValidationError) as caught:
            capacity_query(**{**args, **changes})
        return str(caught.value)

    assert refused(provisioning_model="CHEAP") == (
        "provisioning_model: CHEAP is not allowed; use one of FLEX_START, RESERVATION_BOUND, "
        "SPOT, STANDARD"
    )
    assert refused(count="2") == 'count: "2" must be a whole number'
    assert (
        refused(machine_type=5)
        == "machine_type: 5 must be a machine type name such as a3-highgpu-8g"
    )
    assert refused(zones="us-central1-a") == "zones: us-central1-a must be a list of zones"
    assert capacity_query("p1", "us-central1", H100, 2.0).count == 2  # 2.0 from YAML or JSON


# ------------------------------------------------------------------------------ one declaration
@pytest.mark.parametrize(
    ("function", "model", "also"),
    [
        (calendar_query, CalendarQuery, ()),
        (calendar_mode_advice, CalendarQuery, ("client", "config")),
        (capacity_query, CapacityQuery, ()),
        (capacity_advice, CapacityQuery, ("client", "config")),
    ],
)
def test_each_function_takes_exactly_its_querys_fields(
    function: Any, model: type[BaseModel], also: tuple[str, ...]
) -> None:
    assert signature_mismatches(function, model, also) == []


def test_a_function_that_drifts_from_its_query_is_refused_when_defined() -> None:
    def drifted(
        project: str,
        machine_type: str | None,
        region: str,
        count: str,
        duration: DurationLike,
        max_duration: DurationLike | None = None,
        *,
        earliest: TimeLike | None = "+1d",
        latest: TimeLike | None = None,
        exclude_zone: Sequence[str] = (),
        now: dt.datetime | None = None,
        tpu_version: str | None = None,
        workload_type: str | None = None,
    ) -> CalendarQuery:
        return CalendarQuery.of(locals())

    assert signature_mismatches(drifted, CalendarQuery) == [
        "exclude_zones: a field of CalendarQuery, not a parameter",
        "exclude_zone: a parameter, not a field of CalendarQuery",
        "positional project, machine_type, region, count, duration, max_duration; required in "
        "CalendarQuery: project, region, machine_type, count, duration",
        "count: takes str, CalendarQuery holds int",
        "max_duration: optional in CalendarQuery, so keyword-only",
        "earliest: default '+1d', None in CalendarQuery",
    ]
    with pytest.raises(TypeError, match="drifted must take the fields of CalendarQuery: "):
        asks(CalendarQuery)(drifted)


@pytest.mark.parametrize(
    ("argv", "model"), [([*CAL, "--duration", "7d"], CalendarQuery), (list(CAP), CapacityQuery)]
)
def test_every_query_field_is_a_flag_of_dws_advise(argv: list[str], model: type[BaseModel]) -> None:
    """The flags' destinations are the query's fields: the query is built from them by name,
    and an error about a field names its flag."""
    import argparse

    parser = argparse.ArgumentParser(prog="dws")
    cli_advise.add_advise_parser(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["advise", *argv])
    assert set(model.model_fields) - {"now"} <= set(vars(args))
    assert set(model.model_fields) - {"now"} <= set(args.flags)


def test_a_query_from_the_cli_equals_the_one_from_python(emu: Emulator, capsys: Any) -> None:
    code, _, _ = cli(
        emu, capsys, *CAL, "--count", "2", "--duration", "7d", "--exclude-zone", "us-central1-b"
    )
    assert code == 0
    (_, _, _, body) = emu["advice"].calls[-1]
    query = calendar_query("p1", "us-central1", H100, 2, "7d", exclude_zones=["us-central1-b"])
    assert body == query.to_request().to_api()


@settings(max_examples=60, deadline=None)
@given(
    count=st.integers(1, 80),
    days=st.integers(1, 90),
    extra=st.integers(0, 30),
    ahead=st.integers(1, 60),  # GPU VMs: Google shows 60 days ahead (calendar.start_ahead_vms)
)
def test_any_valid_calendar_query_round_trips_through_the_wire_model(
    count: int, days: int, extra: int, ahead: int
) -> None:
    longest = min(90, days + extra)
    query = _calendar(
        count=count, duration=f"{days}d", max_duration=f"{longest}d", earliest=f"+{ahead}d"
    )
    body = query.to_request().to_api()
    parsed = models.CalendarModeAdviceRequest.from_api(json.loads(json.dumps(body)))
    spec = parsed.future_resources_specs["spec"]
    assert spec.target_resources.specific_sku_resources.instance_count == count
    assert spec.time_range_spec.min_duration.seconds == days * 86400
    assert spec.time_range_spec.max_duration.seconds == longest * 86400
    assert spec.time_range_spec.start_time_not_earlier_than == T0 + ahead * DAY
    assert parsed.to_api() == body


# ------------------------------------------------------------------------------ calls
def test_calendar_mode_advice_returns_windows_and_reasons(emu: Emulator) -> None:
    advice = calendar_mode_advice(
        "p1", "us-central1", H100, 2, "7d", earliest="+1d", client=client_for(emu)
    )
    assert not advice.empty
    best = advice.pick()
    assert (best.zone, best.count, best.machine_type) == ("us-central1-a", 2, H100)
    assert (best.start_time, best.end_time) == (T0 + 20 * DAY, T0 + 27 * DAY)
    assert best.duration.human() == "7d"
    assert {(z.zone, z.status) for z in advice.other_zones} == {
        ("us-central1-b", "NO_CAPACITY"),
        ("us-central1-c", "NOT_SUPPORTED"),
    }
    (method, _, _, body) = emu["advice"].calls[-1]
    assert method == "calendarMode"
    assert body == advice.query.to_request().to_api()


def test_calendar_mode_empty_answer_explains_itself(emu: Emulator) -> None:
    advice = calendar_mode_advice("p1", "us-central1", H100, 9, "7d", client=client_for(emu))
    assert advice.empty and advice.windows == []
    with pytest.raises(NoRecommendationError) as caught:
        advice.pick()
    text = str(caught.value)
    assert "No Calendar-mode recommendation for 9 x a3-highgpu-8g in us-central1" in text
    assert "us-central1-a: NO_CAPACITY" in text and "--earliest/--latest" in text


def test_capacity_advice_reads_free_capacity(emu: Emulator) -> None:
    advice = capacity_advice("p1", "us-central1", [MEGA, H100], 2, client=client_for(emu))
    (option,) = advice.options
    assert option.obtainability == 1.0
    assert [(s.zone, s.machine_type, s.count, s.provisioning_model) for s in option.shards] == [
        ("us-central1-c", H100, 2, "FLEX_START")
    ]
    empty = capacity_advice(
        "p1", "us-central1", H100, 2, client=client_for(emu), zones=["us-central1-a"]
    )
    assert empty.empty
    assert "No capacity recommendation" in empty.why_empty()


def test_default_client_follows_the_endpoint_override(
    emu: Emulator, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DWS_COMPUTE_ENDPOINT", emu.url)
    advice = capacity_advice("p1", "us-central1", H100, 1)
    assert advice.pick().shards[0].zone == "us-central1-c"


# ------------------------------------------------------------------------------ errors
@pytest.mark.parametrize(
    ("status", "reason", "message", "kind", "needle"),
    [
        (403, "forbidden", "Project p1 is not eligible to use advice", "eligibility", "account"),
        (400, "invalid", "Project is not on the allowlist", "eligibility", "not eligible"),
        (429, "RESOURCE_EXHAUSTED", "Too many requests", "quota", "higher quota"),
        (403, "quotaExceeded", "Quota 'GPUS' exceeded", "quota", "Quotas"),
        (
            503,
            "ZONE_RESOURCE_POOL_EXHAUSTED",
            "The zone does not have enough resources",
            "no_capacity",
            "Widen",
        ),
        (400, "invalid", "There is no capacity for this request", "no_capacity", "another region"),
        (
            401,
            "unauthorized",
            "Request had invalid credentials",
            "auth",
            "application-default login",
        ),
        (
            403,
            "forbidden",
            "Required 'compute.advice.calendarMode' permission",
            "permission",
            "roles/",
        ),
        (404, "notFound", "The resource 'projects/nope' was not found", "not_found", "project id"),
        (400, "invalid", "Invalid value for field 'machineType'", "invalid", "offered in"),
        (500, "backendError", "Internal error", "api", "failed"),
        (0, "", "connection refused", "unreachable", "DWS_COMPUTE_ENDPOINT"),
    ],
)
def test_api_errors_are_explained(
    status: int, reason: str, message: str, kind: str, needle: str
) -> None:
    err = explain(
        ApiError(status, message, reason),
        method="calendarMode",
        project="p1",
        region="us-central1",
        what="2 x a3-highgpu-8g in us-central1",
    )
    assert err.kind == kind
    assert needle in str(err)
    if status:
        assert message in str(err)


def test_errors_from_the_emulator_arrive_explained(emu: Emulator) -> None:
    service: AdviceService = emu["advice"]
    service.ineligible.add("no-dws")
    with pytest.raises(AdviceError) as caught:
        calendar_mode_advice("no-dws", "us-central1", H100, 1, "7d", client=client_for(emu))
    assert caught.value.kind == "eligibility"
    assert caught.value.api_error is not None and caught.value.api_error.status == 403
    for _ in range(2):  # 429 is retried (virtually): two in a row exhaust two attempts
        service.fail_next(429, "Quota exceeded for 'advice requests'", "rateLimitExceeded")
    with pytest.raises(AdviceError) as caught:
        capacity_advice("p1", "us-central1", H100, 1, client=client_for(emu, attempts=2))
    assert caught.value.kind == "quota"
    service.fail_next(429, "slow down")
    assert capacity_advice("p1", "us-central1", H100, 1, client=client_for(emu)).options


def test_unreachable_endpoint_is_explained() -> None:
    client = GoogleRestClient(
        "http://127.0.0.1:9/compute/v1/", retry=RetryPolicy(attempts=1), sleep=lambda s: None
    )
    with pytest.raises(AdviceError) as caught:
        capacity_advice("p1", "us-central1", H100, 1, client=client)
    assert caught.value.kind == "unreachable"


def _no_adc(monkeypatch: pytest.MonkeyPatch) -> None:
    from google.auth.exceptions import DefaultCredentialsError

    def default(*args: Any, **kwargs: Any) -> Any:
        raise DefaultCredentialsError("Your default credentials were not found.")

    monkeypatch.setattr("google.auth.default", default)


def test_missing_credentials_are_explained(monkeypatch: pytest.MonkeyPatch) -> None:
    _no_adc(monkeypatch)
    client = GoogleRestClient("https://compute.googleapis.com/compute/v1/")
    with pytest.raises(AdviceError) as caught:
        calendar_mode_advice("p1", "us-central1", H100, 1, "7d", client=client)
    assert caught.value.kind == "auth"
    assert "gcloud auth application-default login" in str(caught.value)
    assert "credentials were not found" in str(caught.value)


# ------------------------------------------------------------------------------ CLI
def test_cli_calendar_table(emu: Emulator, capsys: Any) -> None:
    code, out, err = cli(emu, capsys, *CAL, "--count", "2", "--duration", "7d")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].startswith("Calendar-mode advice for 2 x a3-highgpu-8g in us-central1 for 7d")
    header = lines.index(
        "#  ZONE           START                 END                   DURATION  COUNT"
    )
    assert lines[header + 1].split() == [
        "1",
        "us-central1-a",
        "2026-01-25T00:00:00Z",
        "2026-02-01T00:00:00Z",
        "7d",
        "2",
    ]
    assert "us-central1-b  NO_CAPACITY" in out and "--emit" in out


def test_cli_calendar_json(emu: Emulator, capsys: Any) -> None:
    code, out, _ = cli(
        emu,
        capsys,
        *CAL,
        "--count",
        "2",
        "--duration",
        "7d",
        "--max-duration",
        "30d",
        "--format",
        "json",
    )
    assert code == 0
    data = json.loads(out)
    assert data["method"] == "calendarMode" and data["message"] is None
    (rec,) = data["recommendations"]
    assert rec["zone"] == "us-central1-a"
    assert (rec["start_time"], rec["end_time"], rec["duration"]) == (
        "2026-01-25T00:00:00Z",
        "2026-02-14T00:00:00Z",
        "20d",
    )
    assert data["other_zones"][0]["zone"] == "us-central1-b"


def test_cli_emit_prints_a_component_snippet_and_stack_config(emu: Emulator, capsys: Any) -> None:
    code, out, _ = cli(emu, capsys, *CAL, "--count", "2", "--duration", "7d", "--emit")
    assert code == 0
    python, config = out.split("# --- or stack config")
    tree = ast.parse(python)
    imports = [n for n in tree.body if isinstance(n, ast.ImportFrom)]
    assert (imports[0].module, imports[0].names[0].name) == ("pulumi_dws", "CalendarReservation")
    call = next(n.value for n in tree.body if isinstance(n, ast.Assign))
    assert call.func.id == "CalendarReservation"
    name, args = (ast.literal_eval(a) for a in call.args)
    expected = {
        "zone": "us-central1-a",
        "machine_type": H100,
        "count": 2,
        "start_time": "2026-01-25T00:00:00Z",
        "end_time": "2026-02-01T00:00:00Z",
    }
    assert (name, args) == ("a3-highgpu-8g-20260125", expected)
    block = yaml.safe_load(config.split("\n", 1)[1])
    assert block == {
        "config": {"dws:capacity": {"calendar_reservations": [{"name": name, **expected}]}}
    }


def test_emitted_config_is_accepted_by_the_blueprint(emu: Emulator) -> None:
    blueprint = pytest.importorskip("pulumi_dws.blueprint")
    window = calendar_mode_advice("p1", "us-central1", H100, 2, "7d", client=client_for(emu)).pick()
    capacity = emit_config(window, "h100-block")["config"]["dws:capacity"]
    (entry,) = blueprint.validate_capacity(capacity)
    assert entry.name == "h100-block"
    assert 'CalendarReservation(\n    "h100-block"' in emit_python(window, "h100-block")


def test_cli_emit_json_with_pick_and_name(emu: Emulator, capsys: Any) -> None:
    emu["advice"].capacity.offer_calendar("us-central1-f", H100, 2, T0 + 3 * DAY, T0 + 9 * DAY)
    argv = [*CAL, "--count", "2", "--duration", "5d", "--emit", "--format", "json"]
    code, out, _ = cli(emu, capsys, *argv, "--pick", "2", "--name", "second")
    assert code == 0
    data = json.loads(out)
    assert data["pick"] == 2 and data["recommendation"]["zone"] == "us-central1-a"
    entry = data["config"]["config"]["dws:capacity"]["calendar_reservations"][0]
    assert entry["name"] == "second" and '"second"' in data["python"]
    code, _, err = cli(emu, capsys, *argv, "--pick", "3")
    assert code == 2 and "--pick" in err and "1 to 2" in err


def test_cli_empty_answer_has_its_own_exit_code(emu: Emulator, capsys: Any) -> None:
    code, out, err = cli(emu, capsys, *CAL, "--count", "9", "--duration", "7d")
    assert code == cli_advise.EXIT_CODES["no_recommendation"] == 3
    assert out == ""
    assert err.startswith("No Calendar-mode recommendation for 9 x a3-highgpu-8g")
    code, out, _ = cli(emu, capsys, *CAL, "--count", "9", "--duration", "7d", "--format", "json")
    assert code == 3
    assert json.loads(out)["recommendations"] == []
    code, out, err = cli(emu, capsys, *CAP, "--zone", "us-central1-a")
    assert code == 3 and out == "" and "No capacity recommendation" in err


def test_cli_capacity_table_and_json(emu: Emulator, capsys: Any) -> None:
    code, out, _ = cli(emu, capsys, *CAP, "--machine-type", MEGA, "--count", "2")
    assert code == 0
    row = out.splitlines()[2].split()
    assert row == ["1", "us-central1-c", H100, "2", "FLEX_START", "1.00"]
    code, out, _ = cli(emu, capsys, *CAP, "--count", "4", "--shape", "ANY", "--format", "json")
    data = json.loads(out)
    assert code == 0 and data["target_shape"] == "ANY"
    assert data["recommendations"][0]["obtainability"] == 0.75


def test_cli_explains_api_errors(emu: Emulator, capsys: Any) -> None:
    service: AdviceService = emu["advice"]
    service.ineligible.add("no-dws")
    argv = ["calendar", "--project", "no-dws", "--region", "us-central1", "--machine-type", H100]
    code, out, err = cli(emu, capsys, *argv, "--duration", "7d")
    assert code == 1 and out == ""
    assert err.startswith("error: Project no-dws is not eligible for advice.calendarMode")


def test_cli_retries_rate_limits_on_virtual_time_then_explains(
    capsys: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    clock_ = VirtualClock()
    service = AdviceService(CapacityModel(clock_.now()), clock_)
    service.capacity.add("us-central1-a", H100, 1)
    with Emulator([service], clock=clock_) as emu:  # its own server: this test moves its clock
        # The client's backoff sleeps advance the emulator's clock, not the wall clock.
        monkeypatch.setenv("DWS_VIRTUAL_CLOCK_URL", emu.clock_url)
        for _ in range(4):  # the CLI makes 4 attempts
            service.fail_next(429, "Rate limit exceeded", "rateLimitExceeded")
        code, _, err = cli(emu, capsys, *CAP)
        assert code == 1 and "Quota or rate limit reached for advice.capacity" in err
        assert clock_.now() > VirtualClock().now()
        assert len(service.calls) == 4
        service.fail_next(429, "Rate limit exceeded", "rateLimitExceeded")
        code, out, _ = cli(emu, capsys, *CAP)  # one 429, then an answer
        assert code == 0 and "us-central1-a" in out


def test_cli_explains_missing_credentials(capsys: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    _no_adc(monkeypatch)
    code = cli_advise.main([*CAP, "--endpoint", "https://compute.googleapis.com/"])
    out, err = capsys.readouterr()
    assert code == 1 and out == ""
    assert err.startswith("error: No usable Google credentials for advice.capacity")


@pytest.mark.parametrize("endpoint", ["127.0.0.1:8765", "ftp://127.0.0.1/", "http://"])
def test_cli_refuses_an_endpoint_that_is_not_a_url(capsys: Any, endpoint: str) -> None:
    code = cli_advise.main([*CAP, "--endpoint", endpoint])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert err.startswith(f"error: --endpoint: {endpoint} is not an http(s) URL")


@pytest.mark.parametrize(
    ("extra", "needle"),
    [
        (["--count", "0", "--duration", "7d"], "error: --count: 0 is below"),
        (["--duration", "100d"], "error: --duration: 100d is above"),
        (["--duration", "7d", "--earliest", "tomorrow"], "error: --earliest: tomorrow is not"),
        (["--duration", "7d", "--latest", "2027-01-01"], "error: --latest: 2027-01-01T00:00:00Z"),
        (
            ["--duration", "7d", "--exclude-zone", "us-east1-b"],
            "error: --exclude-zone (exclude_zones[0]): us-east1-b is not in region",
        ),
        (["--duration", "7d", "--name", "Bad_Name"], "error: --name: Bad_Name"),
    ],
)
def test_cli_input_errors_name_the_flag(
    emu: Emulator, capsys: Any, extra: list[str], needle: str
) -> None:
    code, out, err = cli(emu, capsys, *CAL, *extra)
    assert code == 2 and out == ""
    assert err.startswith(needle), err
    assert emu["advice"].calls == []  # refused before any API call


def test_cli_usage_errors_exit_2(capsys: Any) -> None:
    with pytest.raises(SystemExit) as caught:
        cli_advise.main(["calendar", "--region", "us-central1", "--duration", "7d"])
    assert caught.value.code == 2
    assert "--machine-type" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        cli_advise.main([*CAL, "--duration", "7d", "--count", "two"])
    assert "argument --count: invalid int value" in capsys.readouterr().err


def test_cli_seed_limits_profile(emu: Emulator, capsys: Any) -> None:
    code, _, err = cli(emu, capsys, *CAL, "--duration", "10d", "--limits-profile", "seed")
    assert code == 2 and "use 7d (604800s) or 14d" in err
    assert limits.get("calendar.duration").choices is None  # the profile does not leak
    code, _, _ = cli(emu, capsys, *CAL, "--duration", "10d")
    assert code == 0


def test_cli_limits_profile_keeps_the_rows_in_force(emu: Emulator, capsys: Any) -> None:
    limits.override("calendar.count", maximum=1)
    code, _, err = cli(
        emu, capsys, *CAL, "--count", "2", "--duration", "7d", "--limits-profile", "seed"
    )
    assert code == 2 and "--count: 2 is above" in err  # the override holds during the run...
    assert limits.get("calendar.count").maximum == 1  # ...and after it
    assert limits.get("calendar.duration").choices is None


def test_advise_parser_plugs_into_a_dws_parser(emu: Emulator, capsys: Any) -> None:
    import argparse

    parser = argparse.ArgumentParser(prog="dws")
    sub = parser.add_subparsers(dest="command")
    cli_advise.add_advise_parser(sub)
    args = parser.parse_args(["advise", *CAP, "--endpoint", emu.url])
    assert args.func is cli_advise.run_capacity
    assert args.func(args) == 0
    assert "us-central1-c" in capsys.readouterr().out


# ------------------------------------------------------------------------------ project
def test_loopback_endpoint_never_consults_adc(
    emu: Emulator, capsys: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_adc() -> None:
        raise AssertionError("ADC must not be called for a loopback endpoint")

    monkeypatch.setattr(project, "adc_project", no_adc)
    monkeypatch.setattr(project, "gcloud_project", lambda: None)
    code, out, err = cli(emu, capsys, "capacity", "--region", "us-central1", "--machine-type", H100)
    assert code == 2 and out == ""
    assert "No project given" in err and "--project" in err and emu.url in err
    monkeypatch.setattr(project, "gcloud_project", lambda: "from-gcloud")
    code, out, _ = cli(emu, capsys, "capacity", "--region", "us-central1", "--machine-type", H100)
    assert code == 0 and "(project from-gcloud)" in out


def test_google_endpoint_prefers_adc_then_gcloud(monkeypatch: pytest.MonkeyPatch) -> None:
    import google.auth

    google_url = "https://compute.googleapis.com/compute/v1/"
    monkeypatch.setattr(google.auth, "default", lambda: (object(), "adc-proj"))
    monkeypatch.setattr(project, "gcloud_project", lambda: "gc-proj")
    assert project.resolve_project(None, google_url) == "adc-proj"
    assert project.resolve_project("explicit", google_url) == "explicit"
    monkeypatch.setattr(google.auth, "default", lambda: (object(), None))
    assert project.resolve_project(None, google_url) == "gc-proj"
    monkeypatch.setattr(project, "gcloud_project", lambda: None)
    with pytest.raises(AdviceError, match="GOOGLE_CLOUD_PROJECT") as caught:
        project.resolve_project(None, google_url)
    assert caught.value.kind == "no_project"


@pytest.mark.gcloud
def test_gcloud_project_reads_the_gcloud_config(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if gcloud_path() is None:
        pytest.skip("gcloud is not installed")
    monkeypatch.setenv("CLOUDSDK_CONFIG", str(tmp_path))
    monkeypatch.delenv("CLOUDSDK_CORE_PROJECT", raising=False)
    (tmp_path / "configurations").mkdir()
    (tmp_path / "active_config").write_text("default")
    (tmp_path / "configurations" / "config_default").write_text(
        "[core]\nproject = from-gcloud\ndisable_usage_reporting = true\n"
        "[component_manager]\ndisable_update_check = true\n"
    )
    assert project.gcloud_project() == "from-gcloud"


# ------------------------------------------------------------------------------ standalone
def test_python_m_cli_advise_against_the_emulator(emu: Emulator) -> None:
    env = {
        **os.environ,
        "DWS_COMPUTE_ENDPOINT": emu.url,
        "DWS_NOW": "2026-01-05T00:00:00Z",
    }
    proc = subprocess.run(
        [sys.executable, "-m", "pulumi_dws.cli_advise", *CAL, "--count", "2", "--duration", "7d"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "us-central1-a  2026-01-25T00:00:00Z" in proc.stdout


# ------------------------------------------------------------------------------ gcloud oracle
GCLOUD_CALENDAR = GcloudCommand.of(
    [
        "beta",
        "compute",
        "advice",
        "calendar-mode",
        "--region=us-central1",
        f"--machine-type={H100}",
        "--vm-count=2",
        "--duration-range=min=7d,max=14d",
        "--start-time-range=from=2026-02-01T00:00:00Z,to=2026-03-01T00:00:00Z",
        "--location-policy=us-central1-b=deny",
    ],
    project="p1",
)


@pytest.mark.gcloud(GCLOUD_CALENDAR)
def test_calendar_request_matches_what_gcloud_sends(gcloud_runs: GcloudRuns) -> None:
    reason = gcloud_unavailable_reason("beta")
    if reason:
        pytest.skip(reason)
    capture = gcloud_runs.run(GCLOUD_CALENDAR.args, project=GCLOUD_CALENDAR.project)
    sent = [r for r in capture.requests if r.path.endswith("/advice/calendarMode")]
    assert sent, capture.describe()
    theirs = models.CalendarModeAdviceRequest.from_api(sent[0].body)
    ours = february_query("2026-03-01").to_request()
    assert ours.to_api() == theirs.to_api()
    assert sent[0].path == "/compute/beta/projects/p1/regions/us-central1/advice/calendarMode"


def test_cli_capacity_hints_one_flex_start_group_for_the_whole_set(
    emu: Emulator, capsys: Any
) -> None:
    code, out, _ = cli(emu, capsys, *CAP, "--count", "2")
    assert code == 0
    [hint] = [line for line in out.splitlines() if "one FlexStartGroup" in line]
    assert "one FlexStartGroup (dws:capacity key flex_start_groups)" in hint
    snippet = hint[hint.index("{") : hint.rindex("}") + 1]
    args = json.loads(snippet)
    assert args == {"zone": "us-central1-c", "machine_type": H100, "count": 2, "run_duration": "3d"}
    spec = parse_args(FlexStartGroupSpec, args)  # what it prints is a valid group
    assert spec.count == 2
    code, out, _ = cli(emu, capsys, *CAP, "--count", "2", "--format", "json")
    assert json.loads(out)["flex_start_group"] == args


def test_cli_capacity_hints_one_batch_job_on_the_flex_start_vms(emu: Emulator, capsys: Any) -> None:
    """The VMs the advice API finds are those a Batch job on Flex-start gets: one job runs as
    many tasks at once there (Vertex AI's capacity is not Compute's: no hint for it)."""
    code, out, _ = cli(emu, capsys, *CAP, "--count", "2")
    [hint] = [line for line in out.splitlines() if "BatchFlexJob" in line]
    assert "one BatchFlexJob (dws:capacity key batch_flex_jobs)" in hint
    args = json.loads(hint[hint.index("{") : hint.rindex("}") + 1])
    assert args["zones"] == ["us-central1-c"] and args["region"] == "us-central1"
    assert (args["task_count"], args["parallelism"], args["machine_type"]) == (2, 2, H100)
    spec = parse_args(BatchFlexJobSpec, args)  # what it prints is a valid job
    assert spec.task_count == 2
    code, out, _ = cli(emu, capsys, *CAP, "--count", "2", "--format", "json")
    assert json.loads(out)["hints"]["batch_flex_jobs"] == hint
    assert "VertexTrainingJob" not in out
    code, out, _ = cli(emu, capsys, *CAP, "--count", "4", "--shape", "ANY")
    assert "BatchFlexJob" not in out  # only part of the set fits: no one job takes it


def test_cli_capacity_hint_when_only_part_of_the_set_fits(emu: Emulator, capsys: Any) -> None:
    code, out, _ = cli(emu, capsys, *CAP, "--count", "4", "--shape", "ANY")
    assert code == 0
    assert out.strip().splitlines()[-1] == (
        "Recommendation #1 places 3 of the 4 VMs; a FlexStartGroup of 4 waits until all of "
        "them can be placed at once (all or nothing)."
    )
    code, out, _ = cli(emu, capsys, *CAP, "--count", "4", "--shape", "ANY", "--format", "json")
    assert json.loads(out)["flex_start_group"] is None


def test_capacity_hint_splits_more_vms_than_one_resize_request_adds(emu: Emulator) -> None:
    advice = capacity_advice("p1", "us-central1", H100, 2, client=client_for(emu))
    with limits.overridden("mig.resize_by", maximum=1):
        assert group_args(advice) is None
        assert "split them over several FlexStartGroups" in (group_hint(advice) or "")


def test_capacity_hint_when_the_vms_spread_over_zones(emu: Emulator) -> None:
    emu["advice"].capacity.add("us-central1-f", H100, 2)
    advice = capacity_advice(
        "p1", "us-central1", H100, 5, client=client_for(emu), target_shape="ANY"
    )
    assert len({s.zone for s in advice.options[0].shards}) > 1
    assert group_args(advice) is None
    assert (group_hint(advice) or "").endswith("ask with --shape ANY_SINGLE_ZONE.")
