"""``dws:limits`` and ``dws:regions`` in a stack's config are honoured by every program that uses
pulumi-dws components, at construction (not only by the root blueprint), so a program and
``dws plan``'s policy checks judge by the same rows; and the table of regions and zones."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from cli_helpers import dws

from pulumi_dws import CalendarReservation, FlexStartInstance, regions
from pulumi_dws.errors import DwsValidationError
from pulumi_dws.testing import GcpMocks
from pulumi_dws.validation import check_region, check_zone

LONG_BLOCK = {
    "zone": "us-central1-a",
    "machine_type": "a3-highgpu-8g",
    "count": 1,
    "start_time": "+4w",
    "duration": "100d",
}
RAISED = {"dws:limits": {"calendar.duration": {"maximum": "120d"}}}


def test_a_programs_own_component_honours_the_stacks_limits() -> None:
    with pytest.raises(DwsValidationError, match="duration: 100d is above"):
        GcpMocks().run(lambda: CalendarReservation("blk", LONG_BLOCK))
    mocks = GcpMocks()
    mocks.run(lambda: CalendarReservation("blk", LONG_BLOCK), config=RAISED)
    window = mocks.one("gcp:compute/futureReservation:FutureReservation").inputs["timeWindow"]
    assert window["duration"] == {"seconds": str(100 * 86400)}
    with pytest.raises(DwsValidationError, match="duration: 100d is above"):
        GcpMocks().run(lambda: CalendarReservation("blk", LONG_BLOCK))  # the next stack's own


def test_the_stacks_seed_profile_and_row_fields_apply_together() -> None:
    config = {"dws:limits": {"profile": "seed", "calendar.count": {"maximum": 2}}}
    with pytest.raises(DwsValidationError, match="count: 3 is above .* limit of 2"):
        GcpMocks().run(
            lambda: CalendarReservation("b", {**LONG_BLOCK, "duration": "7d", "count": 3}),
            config=config,
        )
    with pytest.raises(DwsValidationError, match="duration: 10d is not an allowed"):
        GcpMocks().run(
            lambda: CalendarReservation("b", {**LONG_BLOCK, "duration": "10d"}), config=config
        )


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({"calendar.durations": {"maximum": "1d"}}, "dws:limits.calendar.durations: is not a limit; did you mean calendar.duration?"),
        ({"calendar.duration": {"maximum": "soon"}}, "dws:limits.calendar.duration.maximum: soon is not a duration"),
        ({"profile": "old"}, "dws:limits.profile: old is unknown; use current or seed"),
        ({"calendar.duration": {"minimum": "9d", "maximum": "8d"}}, "dws:limits.calendar.duration: minimum 9d"),
        ("[1, 2]", "dws:limits: [1, 2] must be an object"),
    ],
)  # fmt: skip
def test_a_bad_stack_limits_config_fails_with_its_path(config: object, message: str) -> None:
    mocks = GcpMocks()
    with pytest.raises(DwsValidationError) as err:
        mocks.run(
            lambda: FlexStartInstance(
                "vm",
                {
                    "zone": "us-central1-a",
                    "machine_type": "a3-highgpu-8g",
                    "max_run_duration": "1d",
                },
            ),
            config={"dws:limits": config},
        )
    assert str(err.value).startswith(message), str(err.value)
    assert mocks.registered == []


def test_dws_plan_and_its_policy_agree_with_a_programs_own_components(tmp_path: Path) -> None:
    """An own program (not the blueprint) with a raised limit: plan runs it and its policy
    (calendar-window reads the same row) passes; without the stack's limits both refuse."""
    (tmp_path / "Pulumi.yaml").write_text("name: own\nruntime: python\n")
    (tmp_path / "__main__.py").write_text(
        textwrap.dedent(
            """
            from pulumi_dws import CalendarReservation
            CalendarReservation("blk", {"zone": "us-central1-a", "machine_type": "a3-highgpu-8g",
                                        "count": 1, "start_time": "+4w", "duration": "100d",
                                        "labels": {"team": "ml"}})
            """
        )
    )
    (tmp_path / "Pulumi.dev.yaml").write_text(
        "config:\n  dws:limits:\n    calendar.duration: {maximum: 120d}\n"
    )
    ok = dws("plan", str(tmp_path))
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "calendar-window" not in ok.stdout.split("Policies")[-1].split("\n")[1]
    (tmp_path / "Pulumi.dev.yaml").write_text("config: {}\n")
    refused = dws("plan", str(tmp_path))
    assert refused.returncode == 1
    assert "duration: 100d is above" in refused.stderr


# ----------------------------------------------------------------------- regions and zones
@pytest.mark.parametrize(
    ("zone", "fragment"),
    [
        ("us-central1-z", "us-central1-z is not a zone of us-central1 (pulumi-dws's table"),
        ("us-central1-z", "; its zones are us-central1-a, us-central1-b, us-central1-c, us-central1-f"),
        ("us-centrl1-a", "there is no region us-centrl1 (pulumi-dws's table"),
        ("us-centrl1-a", "stack config); did you mean us-central1-a?"),
        ("europe-west1-a", "is not a zone of europe-west1 (pulumi-dws's table"),
        ("europe-west1-a", "; its zones are europe-west1-b"),
        ("us-central1", "is not a zone like us-central1-a (that is a region; give a zone in it)"),
    ],
)  # fmt: skip
def test_zones_that_do_not_exist_are_refused(zone: str, fragment: str) -> None:
    with pytest.raises(DwsValidationError) as err:
        check_zone("zone", zone)
    assert fragment in str(err.value)
    if zone != "us-central1":  # refused by the table (not by shape): it says how to extend it
        assert regions.AS_OF in str(err.value) and regions.CONFIG_KEY in str(err.value)


def test_regions_that_do_not_exist_are_refused_with_a_suggestion() -> None:
    with pytest.raises(
        DwsValidationError,
        match=r"^region: us-centrl1 is not a Google Cloud region \(.*\); did you mean us-central1",
    ):
        check_region("region", "us-centrl1")
    assert check_region("region", "me-central2") == "me-central2"


def test_ai_zones_of_known_regions_are_zones() -> None:
    assert check_zone("zone", "us-central1-ai1a") == "us-central1-ai1a"
    with pytest.raises(DwsValidationError, match="no region us-nowhere1"):
        check_zone("zone", "us-nowhere1-ai1a")


def test_the_table_names_its_source_and_date() -> None:
    assert "cloud.google.com/compute/docs/regions-zones" in regions.SOURCE
    assert len(regions.AS_OF) == 10 and regions.AS_OF.startswith("20")
    assert regions.zones_of("us-central1") == [f"us-central1-{z}" for z in "abcf"]


def test_a_new_region_needs_no_release() -> None:
    with pytest.raises(DwsValidationError):
        check_zone("zone", "us-east7-a")
    with regions.added("us-east7", ["a", "us-east7-b"]):
        assert check_zone("zone", "us-east7-b") == "us-east7-b"
        assert check_region("region", "us-east7") == "us-east7"
    with pytest.raises(DwsValidationError):
        check_zone("zone", "us-east7-a")


def test_a_stacks_dws_regions_adds_zones_in_every_program() -> None:
    args = {"zone": "us-central1-g", "machine_type": "a3-highgpu-8g", "max_run_duration": "1d"}
    with pytest.raises(DwsValidationError, match="is not a zone of us-central1"):
        GcpMocks().run(lambda: FlexStartInstance("vm", args))
    mocks = GcpMocks()
    mocks.run(lambda: FlexStartInstance("vm", args), config={"dws:regions": {"us-central1": ["g"]}})
    assert mocks.one("pulumi-python:dynamic/dws:FlexStartVm").inputs["zone"] == "us-central1-g"
    with pytest.raises(DwsValidationError, match=r"^dws:regions\.us-central1: gg is not a zone"):
        GcpMocks().run(
            lambda: FlexStartInstance("vm", args), config={"dws:regions": {"us-central1": ["gg"]}}
        )
