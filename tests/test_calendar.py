"""CalendarReservation under GcpMocks, and against the body gcloud sends."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pulumi
import pulumi_gcp as gcp
import pytest
from component_helpers import args_with

from pulumi_dws import CalendarReservation, limits
from pulumi_dws.clock import frozen
from pulumi_dws.errors import DwsValidationError
from pulumi_dws.testing import GcpMocks
from pulumi_dws.testing.gcloud import GcloudCommand, GcloudRuns, gcloud_unavailable_reason

FR = "gcp:compute/futureReservation:FutureReservation"
NOW = dt.datetime.now(dt.timezone.utc).replace(microsecond=0)


def ts(days: float) -> str:
    return (NOW + dt.timedelta(days=days)).strftime("%Y-%m-%dT%H:%M:%SZ")


def base(**over: Any) -> dict[str, Any]:
    args: dict[str, Any] = {
        "zone": "us-central1-a",
        "machine_type": "a3-highgpu-8g",
        "count": 2,
        "start_time": ts(30),
        "duration": "7d",
    }
    return args_with(args, over)


def build(
    args: dict[str, Any], name: str = "blk", mocks: GcpMocks | None = None
) -> tuple[GcpMocks, Any]:
    mocks = mocks or GcpMocks()
    holder: dict[str, Any] = {}

    def program() -> Any:
        holder["c"] = CalendarReservation(name, args)  # type: ignore[arg-type]
        c = holder["c"]
        return pulumi.Output.all(c.start_time, c.end_time, c.reservation_name)

    holder["resolved"] = mocks.run(program)
    return mocks, holder


def test_registers_a_calendar_future_reservation_under_the_component() -> None:
    mocks, _ = build(base())
    comp = mocks.one("dws:index:CalendarReservation")
    fr = mocks.one(FR)
    assert fr.parent == comp.urn and fr.name == "blk-future-reservation"
    i = fr.inputs
    assert i["reservationMode"] == "CALENDAR"
    assert i["specificSkuProperties"] == {
        "instanceProperties": {"machineType": "a3-highgpu-8g"},
        "totalCount": "2",
    }
    assert i["timeWindow"] == {"startTime": ts(30), "duration": {"seconds": "604800"}}
    assert i["zone"] == "us-central1-a" and i["name"] == "blk"


def test_defaults_auto_delete_specific_submitted_protected() -> None:
    mocks, holder = build(base())
    fr = mocks.one(FR)
    assert fr.inputs["autoDeleteAutoCreatedReservations"] is True
    assert fr.inputs["specificReservationRequired"] is True
    assert fr.inputs["planningStatus"] == "SUBMITTED"
    assert fr.inputs["reservationName"] == "blk"  # the name VMs target
    assert fr.protect is True and fr.ignore_changes == ["description"]
    assert "deploymentType" not in fr.inputs and "shareSettings" not in fr.inputs
    start, end, reservation = holder["resolved"]
    assert (start, end, reservation) == (ts(30), ts(37), "blk")


def test_draft_is_not_protected_and_protect_can_be_set_explicitly() -> None:
    assert build(base(planning_status="DRAFT"))[0].one(FR).protect is False
    assert build(base(protect=False))[0].one(FR).protect is False


def test_optional_fields_reach_the_future_reservation() -> None:
    mocks, _ = build(
        base(
            name_prefix="h100",
            deployment_type="DENSE",
            share_with=["other-proj"],
            project="owner-proj",
            accelerator_type="nvidia-h100-80gb",
            end_time=ts(44),
            duration=None,
            auto_delete=False,
        )
    )
    i = mocks.one(FR).inputs
    assert i["namePrefix"] == "h100" and "reservationName" not in i
    assert i["deploymentType"] == "DENSE" and i["project"] == "owner-proj"
    assert i["shareSettings"] == {"shareType": "SPECIFIC_PROJECTS", "projects": ["other-proj"]}
    assert i["specificSkuProperties"]["instanceProperties"]["guestAccelerators"] == [
        {"acceleratorType": "nvidia-h100-80gb", "acceleratorCount": 8}
    ]
    assert i["timeWindow"] == {"startTime": ts(30), "endTime": ts(44)}
    assert i["autoDeleteAutoCreatedReservations"] is False


def test_relative_start_resolves_once_through_stable_time() -> None:
    with frozen(dt.datetime(2030, 5, 17, 15, 30, tzinfo=dt.timezone.utc)):
        mocks, holder = build(base(start_time="+4w"))
    stable = mocks.one("pulumi-python:dynamic/dws:StableTime")
    assert stable.parent_type == "dws:index:CalendarReservation"
    assert stable.inputs["offset_seconds"] == 4 * 604800
    assert mocks.one(FR).inputs["timeWindow"]["startTime"] == "2030-06-14T00:00:00Z"
    assert holder["resolved"][1] == "2030-06-21T00:00:00Z"


@pytest.mark.parametrize(
    ("over", "message"),
    [
        ({"count": 0}, "count: 0 is below the Calendar-mode GPU VM count minimum of 1"),
        (
            {"duration": "91d"},
            "duration: 91d is above the Calendar-mode reservation duration limit of 90d",
        ),
        (
            {"duration": "12h"},
            "duration: 12h is below the Calendar-mode reservation duration minimum of 1d",
        ),
        ({"start_time": ts(-1)}, "is in the past"),
        ({"start_time": ts(121)}, "is above the Calendar-mode look-ahead limit of 120d"),
        (
            {"start_time": "+6h"},
            "start_time: +6h is below the Calendar-mode look-ahead minimum of 1d",
        ),
        ({"start_time": "next week"}, "start_time: next week is not an RFC 3339 timestamp"),
        (
            {"machine_type": "n2-standard-8"},
            "machine_type: n2-standard-8 is not a known GPU machine type",
        ),
        ({"zone": "us-central1"}, "zone: us-central1 is not a zone"),
        ({"end_time": ts(31)}, "give exactly one of end_time or duration"),
        ({"duration": None}, "end_time: (missing) give exactly one of end_time or duration"),
        ({"duration": None, "end_time": ts(29)}, "is not after start_time"),
        (
            {"start_time": "+4w", "duration": None, "end_time": ts(40)},
            "use duration with a relative start_time",
        ),
        (
            {"accelerator_type": "nvidia-l4"},
            "accelerator_type: nvidia-l4 does not match a3-highgpu-8g",
        ),
        (
            {"accelerator_count": 4},
            "accelerator_count: 4 does not match a3-highgpu-8g, which carries 8 GPUs",
        ),
        ({"name_prefix": "p" * 21}, "name_prefix: " + "p" * 21 + " is above"),
        (
            {"reservation_name": "Bad_Name"},
            "reservation_name: Bad_Name is not a valid RFC 1035 name",
        ),
        (
            {"planning_status": "LIVE"},
            "planning_status: LIVE is not allowed; use one of DRAFT, SUBMITTED",
        ),
        ({"colour": "blue"}, "colour: unknown argument; known: zone, machine_type"),
        ({"zone": None}, "zone: (missing) is required"),
    ],
)
def test_each_validation_error_names_the_field(over: dict[str, Any], message: str) -> None:
    args = base(**{k: v for k, v in over.items()})
    for key, value in over.items():
        if value is None:
            args.pop(key, None)
    mocks = GcpMocks()
    with pytest.raises(DwsValidationError) as err:
        mocks.run(lambda: CalendarReservation("blk", args))  # type: ignore[arg-type]
    assert message in str(err.value)
    assert mocks.registered == []  # nothing registered before validation


def test_limits_override_admits_a_longer_window() -> None:
    with pytest.raises(DwsValidationError):
        build(base(duration="100d"))
    limits.override("calendar.duration", maximum="120d")
    assert build(base(duration="100d"))[0].one(FR).inputs["timeWindow"]["duration"] == {
        "seconds": "8640000"
    }


def test_output_valued_start_is_checked_once_known() -> None:
    with pytest.raises(DwsValidationError, match="start_time: .* is in the past"):
        build(base(start_time=pulumi.Output.from_input(ts(-3))))
    mocks, holder = build(base(start_time=pulumi.Output.from_input(ts(10))))
    assert holder["resolved"][1] == ts(17)


def test_output_valued_end_is_checked_once_known() -> None:
    with pytest.raises(
        DwsValidationError, match="end_time: .* is above the Calendar-mode reservation duration"
    ):
        build(base(duration=None, end_time=pulumi.Output.from_input(ts(130))))


def test_consumption_settings_for_vms_and_node_pools() -> None:
    mocks = GcpMocks()

    def program() -> None:
        block = CalendarReservation("blk", base(project="owner", share_with=["consumer"]))  # type: ignore[arg-type]
        gcp.compute.Instance(
            "vm",
            boot_disk={"initialize_params": {"image": "debian-12"}},
            network_interfaces=[{"network": "default"}],
            **block.instance_settings(),
        )
        gcp.container.NodePool(
            "pool",
            cluster="c1",
            node_config={
                "machine_type": "a3-highgpu-8g",
                "reservation_affinity": block.gke_reservation_affinity("consumer"),
            },
        )

    mocks.run(program)
    vm = mocks.one("gcp:compute/instance:Instance").inputs
    assert vm["reservationAffinity"] == {
        "type": "SPECIFIC_RESERVATION",
        "specificReservation": {
            "key": "compute.googleapis.com/reservation-name",
            "values": ["blk"],
        },
    }
    assert vm["scheduling"]["provisioningModel"] == "RESERVATION_BOUND"
    assert vm["machineType"] == "a3-highgpu-8g" and vm["zone"] == "us-central1-a"
    pool = mocks.one("gcp:container/nodePool:NodePool").inputs
    assert pool["nodeConfig"]["reservationAffinity"] == {
        "consumeReservationType": "SPECIFIC_RESERVATION",
        "key": "compute.googleapis.com/reservation-name",
        "values": ["projects/owner/reservations/blk"],
    }


# ----------------------------------------------------------------------- gcloud oracle
_SKIP = gcloud_unavailable_reason("alpha")
START, END = ts(30), ts(37)
WINDOWS = {"duration": [f"--duration={7 * 86400}"], "end_time": [f"--end-time={END}"]}
GCLOUD = {
    window: GcloudCommand.of(
        [
            "alpha",
            "compute",
            "future-reservations",
            "create",
            "fr-1",
            "--zone=us-central1-a",
            "--reservation-mode=CALENDAR",
            "--machine-type=a3-highgpu-8g",
            "--total-count=2",
            f"--start-time={START}",
            *flags,
            "--auto-delete-auto-created-reservations",
            "--require-specific-reservation",
            "--deployment-type=DENSE",
            "--planning-status=SUBMITTED",
        ]
    )
    for window, flags in WINDOWS.items()
}


@pytest.mark.skipif(_SKIP is not None, reason=_SKIP or "")
@pytest.mark.gcloud(*GCLOUD.values())
@pytest.mark.parametrize("window", sorted(WINDOWS))
def test_inputs_equal_what_gcloud_sends_for_the_same_request(
    window: str, gcloud_runs: GcloudRuns
) -> None:
    start = START
    capture = gcloud_runs.run(GCLOUD[window].args)
    assert capture.ok, capture.describe()
    sent = capture.create_request().body
    args = base(start_time=start, deployment_type="DENSE")
    if window == "end_time":
        args.pop("duration")
        args["end_time"] = END
    mocks, _ = build(args, name="fr-1")
    ours = dict(mocks.one(FR).inputs)
    # Fields that are not part of the insert body: the zone is in the URL, and the name of the
    # auto-created reservation is a flag we set that the gcloud command line above does not.
    ours.pop("zone")
    ours.pop("reservationName")
    assert ours == sent


# ----------------------------------------------------------------------- review fixes
def test_a_draft_inherits_protect_from_the_components_resource_options() -> None:
    mocks = GcpMocks()
    mocks.run(
        lambda: CalendarReservation(
            "blk",
            base(planning_status="DRAFT"),
            pulumi.ResourceOptions(protect=True),  # type: ignore[arg-type]
        )
    )
    assert mocks.one(FR).protect is True
    # An explicit protect in the args still wins over the component's option.
    mocks = GcpMocks()
    mocks.run(
        lambda: CalendarReservation(
            "blk",
            base(planning_status="DRAFT", protect=False),
            pulumi.ResourceOptions(protect=True),  # type: ignore[arg-type]
        )
    )
    assert mocks.one(FR).protect is False


def test_template_settings_fit_an_instance_template() -> None:
    mocks = GcpMocks()

    def program() -> None:
        block = CalendarReservation("blk", base())  # type: ignore[arg-type]
        gcp.compute.InstanceTemplate(
            "tpl",
            disks=[{"source_image": "debian-12", "boot": True}],
            network_interfaces=[{"network": "default"}],
            **block.instance_template_settings(),
        )

    mocks.run(program)
    tpl = mocks.one("gcp:compute/instanceTemplate:InstanceTemplate").inputs
    assert "zone" not in tpl and tpl["machineType"] == "a3-highgpu-8g"
    assert tpl["scheduling"]["provisioningModel"] == "RESERVATION_BOUND"
    assert tpl["reservationAffinity"]["specificReservation"]["values"] == ["blk"]


def test_a_consumer_project_outside_share_with_is_rejected() -> None:
    def program() -> None:
        block = CalendarReservation("blk", base(project="owner", share_with=["team-a"]))  # type: ignore[arg-type]
        block.instance_reservation_affinity("team-b")

    with pytest.raises(
        DwsValidationError, match="consumer_project: team-b cannot consume .* shared with team-a"
    ):
        GcpMocks().run(program)


def test_a_shared_reservation_in_the_providers_default_project_is_named_in_full() -> None:
    mocks = GcpMocks(project="owner-default")

    def program() -> Any:
        block = CalendarReservation("blk", base(share_with=["team-a"]))  # type: ignore[arg-type]
        own = block.instance_reservation_affinity("owner-default")["specific_reservation"][
            "values"
        ][0]
        shared = block.gke_reservation_affinity("team-a")["values"][0]
        return pulumi.Output.all(own, shared)

    assert mocks.run(program) == ["blk", "projects/owner-default/reservations/blk"]


def test_a_relative_start_that_midnight_alignment_pulls_below_the_minimum_is_rejected() -> None:
    with pytest.raises(
        DwsValidationError, match=r"start_time: \+1d is aligned to 00:00 UTC .* use \+2d or more"
    ):
        GcpMocks().run(lambda: CalendarReservation("blk", base(start_time="+1d")))  # type: ignore[arg-type]
    with frozen(dt.datetime(2030, 5, 17, 23, 59, tzinfo=dt.timezone.utc)):
        mocks, _ = build(base(start_time="+2d"))
    # Resolved at least the 1-day minimum ahead of the first deploy.
    assert mocks.one(FR).inputs["timeWindow"]["startTime"] == "2030-05-19T00:00:00Z"


def test_reservation_name_from_the_auto_created_reservation_reads_output_objects(
    caplog: pytest.LogCaptureFixture,
) -> None:
    from pulumi_dws.testing.mocks import builtin_fill

    filler = builtin_fill(FR)
    assert filler is not None

    def delivered(m: GcpMocks, typ: str, name: str, s: dict[str, Any]) -> str:
        rid = filler(m, typ, name, s)
        s["statuses"] = [
            {
                "procurementStatus": "FULFILLED",
                "autoCreatedReservations": [
                    "https://www.googleapis.com/compute/beta/projects/p/zones/us-central1-a/reservations/h100-20300101-0001"
                ],
            }
        ]
        return rid

    with caplog.at_level("WARNING"):
        _, holder = build(base(name_prefix="h100"), mocks=GcpMocks(fills={FR: delivered}))
    assert holder["resolved"][2] == "h100-20300101-0001"
    assert "not found in FutureReservationStatus" not in caplog.text


def test_labels_are_kept_for_consumers_and_validated() -> None:
    mocks, holder = build(base(labels={"team": "research"}))
    assert holder["c"].labels == {"team": "research"}
    assert "labels" not in mocks.one(FR).inputs  # the Compute API has no labels on them
    with pytest.raises(DwsValidationError, match=r"labels\[team\]: Research"):
        build(base(labels={"team": "Research"}))


# ----------------------------------------------------------------------- StableTime provider
def test_stable_time_provider_creates_once_and_replaces_only_on_offset_change() -> None:
    from pulumi_dws.relative_time import _StableTimeProvider

    provider = _StableTimeProvider()
    props = {"offset_seconds": 4 * 604800, "align_to_day": True, "timestamp": None}
    with frozen(dt.datetime(2030, 5, 17, 15, 30, tzinfo=dt.timezone.utc)):
        created = provider.create(dict(props))
    assert created.id == created.outs["timestamp"] == "2030-06-14T00:00:00Z"
    state = created.outs
    # Later runs, any day: same offset -> no change, so the engine keeps the stored timestamp.
    with frozen(dt.datetime(2031, 1, 1, tzinfo=dt.timezone.utc)):
        same = provider.diff(created.id, state, {**props, "offset_seconds": float(4 * 604800)})
    assert not same.changes and not same.replaces
    moved = provider.diff(created.id, state, {**props, "offset_seconds": 5 * 604800})
    assert moved.changes and moved.replaces == ["offset_seconds"]
    assert provider.read(created.id, state).outs["timestamp"] == "2030-06-14T00:00:00Z"
    assert provider.delete(created.id, state) is None


def test_output_valued_zone_and_description() -> None:
    mocks, holder = build(
        base(
            zone=pulumi.Output.from_input("europe-west4-b"),
            description=pulumi.Output.concat("team ", "a"),
        )
    )
    fr = mocks.one(FR).inputs
    assert fr["zone"] == "europe-west4-b" and fr["description"] == "team a"
    with pytest.raises(DwsValidationError, match="^zone: europe-west4 is not a zone"):
        build(base(zone=pulumi.Output.from_input("europe-west4")))
    with pytest.raises(DwsValidationError, match="^description: 3 must be a string"):
        build(base(description=3))


def test_a_started_window_can_be_kept_with_allow_past_start() -> None:
    with pytest.raises(DwsValidationError, match="is in the past"):
        build(base(start_time=ts(-2)))
    mocks, holder = build(base(start_time=ts(-2), allow_past_start=True))
    assert mocks.one(FR).inputs["timeWindow"]["startTime"] == ts(-2)
    assert holder["resolved"][1] == ts(5)
    with pytest.raises(DwsValidationError, match="start_time: yesterday is not an RFC 3339"):
        build(base(start_time="yesterday", allow_past_start=True))
