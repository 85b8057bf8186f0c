"""Durations and the limits table: parsing, rendering, bounds, overrides."""

from __future__ import annotations

import datetime as dt
import threading

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pulumi_dws import limits
from pulumi_dws.duration import UNIT_SECONDS, Duration
from pulumi_dws.errors import DwsValidationError
from pulumi_dws.testing import GcpMocks


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("90s", 90),
        ("45m", 2700),
        ("2h", 7200),
        ("3d", 259200),
        ("1w", 604800),
        ("604800s", 604800),
        ("1d12h", 129600),
        (" 2H ", 7200),
        (3600, 3600),
        ("3600", 3600),
        (dt.timedelta(days=7), 604800),
    ],
)
def test_parse_accepts_every_documented_form(text: object, seconds: int) -> None:
    assert Duration.parse(text).seconds == seconds  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("1.5h", 5400),
        ("1h30m", 5400),
        ("PT1H30M", 5400),
        ("pt30m", 1800),
        ("P3D", 259200),
        ("P1DT12H", 129600),
        ("2,5h", 9000),
        (".5h", 1800),
        ("1000ms", 1),
        ("1h 30m", 5400),
        ("7200.0", 7200),
        (7200.0, 7200),
        ("0.5m", 30),
    ],
)
def test_parse_accepts_what_gcloud_accepts(text: object, seconds: int) -> None:
    """``gcloud topic datetimes``: decimals, compounds, ISO 8601 with or without P."""
    assert Duration.parse(text, "max_run_duration").seconds == seconds  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("value", "fragment"),
    [
        ("600.5s", "600.5s is not a whole number of seconds; use e.g. 600s or 601s"),
        (600.5, "600.5 is not a whole number of seconds"),
        ("1500ms", "1500ms comes to 1.5s, which is not a whole number of seconds"),
        ("1.0001h", "comes to 3600.36s"),
        ("P1M", "months (P1M; minutes are PT1M), which have no fixed length"),
        ("1y", "uses years, which have no fixed length; use days"),
    ],
)
def test_parse_rejects_fractions_of_a_second_and_months(value: object, fragment: str) -> None:
    with pytest.raises(DwsValidationError, match="^max_run_duration: ") as err:
        Duration.parse(value, "max_run_duration")  # type: ignore[arg-type]
    assert fragment in str(err.value)


@given(
    st.lists(
        st.tuples(st.integers(0, 40), st.integers(0, 3), st.sampled_from("dhm")),
        min_size=1,
        max_size=4,
    )
)
def test_decimal_parts_are_summed_exactly(parts: list[tuple[int, int, str]]) -> None:
    """Quarters of a day, hour or minute are whole seconds; the sum is exact (no float drift)."""
    text = "".join(f"{n}.{q * 25:02d}{u}" for n, q, u in parts)
    expected = sum((n * 100 + q * 25) * UNIT_SECONDS[u] for n, q, u in parts) // 100
    assert Duration.parse(text).seconds == expected


@pytest.mark.parametrize(
    "bad", ["", "7 days", "-3s", -1, True, "h", dt.timedelta(seconds=1.5), None]
)
def test_parse_rejects_with_field_and_value(bad: object) -> None:
    with pytest.raises(DwsValidationError) as err:
        Duration.parse(bad, "max_run_duration")  # type: ignore[arg-type]
    assert str(err.value).startswith("max_run_duration: ")
    assert "90s, 45m, 2h" in str(err.value) or "seconds" in str(err.value)


@given(st.integers(min_value=0, max_value=10**9))
def test_api_forms_round_trip(seconds: int) -> None:
    d = Duration(seconds)
    assert Duration.parse(d.to_proto_string()) == d
    assert Duration.parse(int(d.to_api()["seconds"])) == d
    assert Duration.parse(d.human()) == d
    assert Duration.parse(d.timedelta()) == d


@given(st.lists(st.tuples(st.integers(0, 500), st.sampled_from("wdhms")), min_size=1, max_size=5))
def test_compound_strings_sum_their_parts(parts: list[tuple[int, str]]) -> None:
    text = "".join(f"{n}{u}" for n, u in parts)
    assert Duration.parse(text).seconds == sum(n * UNIT_SECONDS[u] for n, u in parts)


@given(st.integers(min_value=0, max_value=2 * 604800))
def test_flex_start_bound_is_exactly_seven_days(seconds: int) -> None:
    row = limits.get("flex_start.max_run_duration")
    if row.minimum <= seconds <= row.maximum:  # type: ignore[operator]
        assert limits.check_duration("max_run_duration", seconds, row.key).seconds == seconds
    else:
        with pytest.raises(DwsValidationError, match="^max_run_duration: "):
            limits.check_duration("max_run_duration", seconds, row.key)


def test_error_message_names_field_value_and_limit() -> None:
    with pytest.raises(DwsValidationError) as err:
        limits.check_duration("max_run_duration", "8d", "flex_start.max_run_duration")
    assert str(err.value).startswith(
        "max_run_duration: 8d is above the Flex-start max run duration limit of 7d (604800s)"
    )
    assert "allowed: 10m (600s) to 7d (604800s)" in str(err.value)
    assert err.value.field == "max_run_duration" and err.value.value == "8d"


def test_every_row_has_a_source_and_a_sane_range() -> None:
    for row in limits.table():
        assert row.source.strip(), row.key
        if row.minimum is not None and row.maximum is not None:
            assert row.minimum <= row.maximum, row.key


def test_override_changes_validation_and_reset_restores() -> None:
    with pytest.raises(DwsValidationError):
        limits.check_duration("duration", "120d", "calendar.duration")
    row = limits.override("calendar.duration", maximum="180d")
    assert row.maximum == 180 * 86400 and "overridden" in row.source
    assert limits.check_duration("duration", "120d", "calendar.duration").seconds == 120 * 86400
    limits.reset()
    with pytest.raises(DwsValidationError):
        limits.check_duration("duration", "120d", "calendar.duration")


def test_overridden_context_manager_restores_previous_state() -> None:
    with limits.overridden("flex_start.request_valid_for", maximum="4h"):
        limits.check_duration("request_valid_for", "3h", "flex_start.request_valid_for")
    with pytest.raises(DwsValidationError, match="2h"):
        limits.check_duration("request_valid_for", "3h", "flex_start.request_valid_for")


def test_seed_profile_allows_only_one_or_two_week_blocks() -> None:
    limits.use_profile("seed")
    limits.check_duration("duration", "14d", "calendar.duration")
    with pytest.raises(DwsValidationError, match="use 7d \\(604800s\\) or 14d"):
        limits.check_duration("duration", "10d", "calendar.duration")
    with pytest.raises(DwsValidationError, match="8 weeks|56d"):
        limits.get("calendar.start_ahead").check("start_time", 60 * 86400)


def test_apply_config_reads_stack_overrides_and_rejects_bad_ones() -> None:
    limits.apply_config({"calendar.count": {"maximum": 5}})
    with pytest.raises(DwsValidationError, match="count: 6 is above"):
        limits.check_count("count", 6, "calendar.count")
    with pytest.raises(DwsValidationError, match="unknown"):
        limits.apply_config({"calendar.count": {"maxi": 5}})
    with pytest.raises(DwsValidationError, match="limit: nope is unknown"):
        limits.get("nope")


@pytest.mark.parametrize("bad", ["²", "١٢", "١h", "3²s"])
def test_only_ascii_digits_are_durations(bad: str) -> None:
    with pytest.raises(DwsValidationError, match="^request_valid_for: .* is not a duration"):
        Duration.parse(bad, "request_valid_for")


def test_override_rejects_an_empty_range() -> None:
    with pytest.raises(
        DwsValidationError,
        match=r"^limits\.calendar\.duration: .* minimum must not be above the maximum",
    ):
        limits.override("calendar.duration", maximum="12h")
    assert limits.get("calendar.duration").maximum == 90 * 86400  # unchanged


def test_apply_config_applies_the_profile_first_wherever_it_is_written() -> None:
    limits.apply_config({"calendar.count": {"maximum": 5}, "profile": "seed"})
    assert limits.get("calendar.count").maximum == 5
    assert limits.get("calendar.duration").choices == (7 * 86400, 14 * 86400)


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ("seed", "^dws:limits: seed must be an object"),
        ({"profile": "newest"}, "^dws:limits.profile: newest is unknown"),
        (
            {"calendar.count": {"maximum": "many"}},
            r"^dws:limits\.calendar\.count\.maximum: many must be a whole number",
        ),
        ({"calendar.nope": {"maximum": 1}}, "^dws:limits.calendar.nope: calendar.nope is unknown"),
    ],
)
def test_apply_config_errors_name_the_stack_config_path(config: object, message: str) -> None:
    with pytest.raises(DwsValidationError, match=message):
        limits.apply_config(config)  # type: ignore[arg-type]


def test_applied_context_manager_restores_the_rows_in_force() -> None:
    limits.override("calendar.count", maximum=10)
    with limits.applied({"profile": "seed", "calendar.count": {"maximum": 3}}):
        assert limits.get("calendar.count").maximum == 3
        assert limits.get("calendar.start_ahead").maximum == 8 * 604800
    assert limits.get("calendar.count").maximum == 10
    assert limits.get("calendar.start_ahead").maximum == 120 * 86400


def test_label_lengths_come_from_the_table() -> None:
    from pulumi_dws.validation import check_labels

    with pytest.raises(
        DwsValidationError, match=r"labels\[team\]: .* above the label value length limit of 63"
    ):
        check_labels("labels", {"team": "x" * 64})
    with limits.overridden("labels.value_length", maximum=70):
        assert check_labels("labels", {"team": "x" * 64})


def test_dws_now_without_a_zone_is_utc(monkeypatch: pytest.MonkeyPatch) -> None:
    import time

    from pulumi_dws import clock

    monkeypatch.setenv("TZ", "America/New_York")
    time.tzset()
    try:
        monkeypatch.setenv("DWS_NOW", "2030-01-01T00:00:00")
        assert clock.now() == dt.datetime(2030, 1, 1, tzinfo=dt.timezone.utc)
        monkeypatch.setenv("DWS_NOW", "2030-01-01t05:00:00z")
        assert clock.now() == dt.datetime(2030, 1, 1, 5, tzinfo=dt.timezone.utc)
    finally:
        monkeypatch.delenv("TZ")
        time.tzset()


def test_overrides_belong_to_their_context_a_program_a_thread() -> None:
    """A program's overrides end with it; another thread keeps its own rows."""

    def program() -> int | None:
        limits.override("calendar.count", maximum=5)
        return limits.get("calendar.count").maximum

    assert GcpMocks().run(program) == 5
    assert limits.get("calendar.count").maximum == 80  # nothing leaked out of the program
    limits.override("calendar.count", maximum=7)
    seen: list[int | None] = []
    other = threading.Thread(target=lambda: seen.append(limits.get("calendar.count").maximum))
    other.start()
    other.join()
    assert seen == [80] and limits.get("calendar.count").maximum == 7
