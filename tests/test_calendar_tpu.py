"""CalendarReservation of TPU chips: the aggregate reservation gcloud sends, the chip counts,
versions, workload types and zones of Google's Calendar-mode docs, and its consumption by TPU
VMs, Cloud TPU queued resources and GKE node pools."""

from __future__ import annotations

import datetime as dt
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pulumi
import pulumi_gcp as gcp
import pytest
from component_helpers import args_with, build_component

from pulumi_dws import CalendarReservation, QueuedNodePool, limits
from pulumi_dws.errors import DwsValidationError
from pulumi_dws.testing import GcpMocks
from pulumi_dws.testing.gcloud import gcloud_unavailable_reason, run_gcloud

FR = "gcp:compute/futureReservation:FutureReservation"
NOW = dt.datetime.now(dt.timezone.utc).replace(microsecond=0)


def ts(days: float) -> str:
    return (NOW + dt.timedelta(days=days)).strftime("%Y-%m-%dT%H:%M:%SZ")


def tpu(**over: Any) -> dict[str, Any]:
    args: dict[str, Any] = {
        "zone": "us-east5-b",
        "tpu_version": "v6e",
        "chip_count": 16,
        "workload_type": "BATCH",
        "start_time": ts(30),
        "duration": "7d",
    }
    return args_with(args, over)


def build(args: dict[str, Any], name: str = "v6e-block") -> tuple[GcpMocks, Any]:
    return build_component(
        lambda: CalendarReservation(name, args),  # type: ignore[arg-type]
        lambda block: block.reservation_name,
    )


def refused(args: dict[str, Any]) -> DwsValidationError:
    mocks = GcpMocks()
    with pytest.raises(DwsValidationError) as info:
        mocks.run(lambda: CalendarReservation("v6e-block", args))  # type: ignore[arg-type]
    assert mocks.registered == []
    return info.value


# ----------------------------------------------------------------------- what is registered
def test_tpu_chips_are_an_aggregate_reservation_of_the_versions_vm_family() -> None:
    mocks, block = build(tpu())
    fr = mocks.one(FR).inputs
    assert fr["aggregateReservation"] == {
        "reservedResources": [{"accelerator": {"acceleratorCount": 16}}],
        "vmFamily": "VM_FAMILY_CLOUD_TPU_LITE_POD_SLICE_CT6E",
        "workloadType": "BATCH",
    }
    assert "specificSkuProperties" not in fr
    assert "specificReservationRequired" not in fr  # as gcloud: not sent for TPUs unless asked
    assert fr["reservationMode"] == "CALENDAR" and fr["autoDeleteAutoCreatedReservations"] is True
    assert (block.spec.tpu_chips, block.spec.gpus) == (16, 0)


def test_the_version_is_read_in_any_of_its_spellings() -> None:
    for version in ("V6E", "v6e", "VM_FAMILY_CLOUD_TPU_LITE_POD_SLICE_CT6E"):
        mocks, block = build(tpu(tpu_version=version))
        assert block.spec.tpu_version == "v6e"
        assert mocks.one(FR).inputs["aggregateReservation"]["vmFamily"].endswith("_CT6E")


def test_a_specific_reservation_is_required_only_when_asked() -> None:
    mocks, _ = build(tpu(require_specific_reservation=True))
    assert mocks.one(FR).inputs["specificReservationRequired"] is True


@pytest.mark.parametrize(
    ("over", "field", "fragment"),
    [
        ({"chip_count": 12}, "chip_count", "1 or 4 or 8 or 16 or 32 or 64 or 128 or 256"),
        ({"chip_count": 512}, "chip_count", "TPU v6e chip count"),
        (
            {
                "tpu_version": "v5e",
                "workload_type": "SERVING",
                "chip_count": 16,
                "zone": "us-south1-a",
            },
            "chip_count",
            "1 or 4 or 8",
        ),
        ({"tpu_version": "v5p", "chip_count": 1, "zone": "us-east5-a"}, "chip_count", "TPU v5p"),
        (
            {"zone": "us-east5-c"},
            "zone",
            "asia-northeast1-b, europe-west4-a, us-east5-a, us-east5-b",
        ),
        (
            {
                "tpu_version": "v5e",
                "workload_type": "SERVING",
                "chip_count": 8,
                "zone": "us-west4-b",
            },
            "zone",
            "TPU v5e SERVING is offered through Calendar mode: use us-south1-a",
        ),
        ({"tpu_version": "tpu7x"}, "tpu_version", "not offered in Calendar mode"),
        ({"tpu_version": "v7"}, "tpu_version", "not a known TPU generation"),
        ({"workload_type": "TRAINING"}, "workload_type", "BATCH, SERVING"),
        ({"chip_count": None}, "chip_count", "required with tpu_version"),
        ({"count": 2}, "count", "does not apply to TPUs"),
        ({"accelerator_type": "nvidia-l4"}, "accelerator_type", "does not apply to TPUs"),
        ({"auto_delete": False}, "auto_delete", "must auto-delete"),
        ({"machine_type": "a3-highgpu-8g"}, "machine_type", "give machine_type and count"),
        ({"tpu_version": None}, "chip_count", "only applies to TPUs"),
        ({"duration": "100d"}, "duration", "90d"),
    ],
)
def test_each_tpu_rejection_names_the_field(
    over: dict[str, Any], field: str, fragment: str
) -> None:
    args = tpu(**over)
    if over.get("tpu_version", "") is None:
        args["machine_type"], args["count"] = "a3-highgpu-8g", 1
        args["zone"] = "us-central1-a"
    err = refused(args)
    assert err.field == field, str(err)
    assert str(err).startswith(f"{field}: ") and fragment in str(err), str(err)


def test_v5e_zones_depend_on_the_workload_type() -> None:
    build(tpu(tpu_version="v5e", workload_type="SERVING", chip_count=8, zone="us-south1-a"))
    build(tpu(tpu_version="v5e", workload_type="BATCH", chip_count=64, zone="us-west4-b"))
    build(tpu(tpu_version="v5e", workload_type=None, chip_count=8, zone="us-south1-a"))
    build(tpu(tpu_version="v5p", chip_count=1024, zone="us-east5-a"))


def test_the_limits_table_rows_can_be_overridden() -> None:
    with limits.overridden("calendar.tpu_zones.v6e", zones=["us-east5-c"]):
        build(tpu(zone="us-east5-c"))
    with limits.overridden("calendar.tpu_chips.v6e", choices=[512]):
        build(tpu(chip_count=512))
    assert (limits.get("calendar.tpu_chips.v5p").choices or ())[-1] == 1024


def test_a_stack_config_may_change_a_row_of_zones() -> None:
    with limits.applied({"calendar.tpu_zones.v5p": {"zones": ["us-east5-a", "us-east5-b"]}}):
        build(tpu(tpu_version="v5p", zone="us-east5-b"))
    for change, message in [
        ({"zones": "us-east5-b"}, "must be a list of zones"),
        ({"zones": ["east"]}, "is not shaped like a zone"),
    ]:
        with pytest.raises(DwsValidationError, match=message):
            limits.apply_config({"calendar.tpu_zones.v5p": change})
    with pytest.raises(DwsValidationError, match="only applies to rows of zones"):
        limits.override("calendar.tpu_chips.v5p", zones=["us-east5-a"])


def test_an_output_zone_is_checked_once_known() -> None:
    with pytest.raises(DwsValidationError, match=r"^zone: us-central1-a is not a zone where"):
        GcpMocks().run(
            lambda: CalendarReservation(
                "v6e-block",
                tpu(zone=pulumi.Output.from_input("us-central1-a")),  # type: ignore[arg-type]
            )
        )


# ----------------------------------------------------------------------- consumption
def test_tpu_vms_queued_resources_and_gke_pools_consume_the_chips() -> None:
    mocks = GcpMocks()
    made: dict[str, Any] = {}

    def program() -> Any:
        block = CalendarReservation("v6e-block", tpu(project="owner", share_with=["consumer"]))  # type: ignore[arg-type]
        gcp.compute.Instance(
            "tpu-vm",
            boot_disk={"initialize_params": {"image": "debian-12"}},
            network_interfaces=[{"network": "default"}],
            **block.instance_settings(machine_type="ct6e-standard-4t"),
        )
        made["qr"] = block.queued_tpu_settings("v6e-16")
        made["shared"] = block.queued_tpu_settings("v6e-8", "consumer")
        QueuedNodePool(
            "v6e-reserved",
            {
                "cluster": "ml-cluster",
                "location": "us-east5",
                "machine_type": "ct6e-standard-4t",
                "tpu_topology": "4x4",
                "mode": "reserved",
                "reservation": block,
            },
        )
        return pulumi.Output.all(made["qr"]["reservation"], made["shared"]["reservation"])

    names = mocks.run(program)
    assert names == [
        "projects/owner/locations/us-east5-b/reservations/v6e-block",
        "projects/owner/locations/us-east5-b/reservations/v6e-block",
    ]
    assert {k: v for k, v in made["qr"].items() if k != "reservation"} == {
        "zone": "us-east5-b",
        "accelerator_type": "v6e-16",
        "provisioning": "reservation_bound",
    }
    vm = mocks.one("gcp:compute/instance:Instance").inputs
    assert vm["machineType"] == "ct6e-standard-4t" and vm["zone"] == "us-east5-b"
    assert vm["scheduling"]["provisioningModel"] == "RESERVATION_BOUND"
    pool = mocks.one("gcp:container/nodePool:NodePool").inputs
    assert pool["nodeConfig"]["reservationAffinity"]["values"] == ["v6e-block"]
    assert pool["nodeLocations"] == ["us-east5-b"]  # the reservation's zone


@pytest.mark.parametrize(
    ("consume", "field", "fragment"),
    [
        (lambda b: b.instance_settings(), "machine_type", "TPU v6e (Trillium) machine type"),
        (
            lambda b: b.instance_settings(machine_type="ct5lp-hightpu-4t"),
            "machine_type",
            "holds TPU v6e (Trillium) chips",
        ),
        (lambda b: b.queued_tpu_settings("v5litepod-16"), "accelerator_type", "holds TPU v6e"),
        (lambda b: b.queued_tpu_settings("v6e-32"), "accelerator_type", "needs 32 chips"),
        (lambda b: b.queued_tpu_settings("v6e-17"), "accelerator_type", "slice size"),
    ],
)
def test_consumers_of_another_shape_are_refused(consume: Any, field: str, fragment: str) -> None:
    def program() -> None:
        consume(CalendarReservation("v6e-block", tpu()))  # type: ignore[arg-type]

    with pytest.raises(DwsValidationError) as info:
        GcpMocks().run(program)
    assert info.value.field == field and fragment in str(info.value), str(info.value)


def test_a_gke_pool_of_another_generation_is_refused() -> None:
    def program() -> None:
        block = CalendarReservation("v6e-block", tpu())  # type: ignore[arg-type]
        QueuedNodePool(
            "v5e-reserved",
            {
                "cluster": "ml-cluster",
                "location": "us-east5",
                "machine_type": "ct5lp-hightpu-4t",
                "tpu_topology": "4x4",
                "mode": "reserved",
                "reservation": block,
            },
        )

    with pytest.raises(DwsValidationError, match=r"^machine_type: ct5lp-hightpu-4t .*TPU v6e"):
        GcpMocks().run(program)


def test_a_gpu_reservation_has_no_tpu_consumers() -> None:
    def program() -> None:
        block = CalendarReservation(
            "h100",
            {
                "zone": "us-central1-a",
                "machine_type": "a3-highgpu-8g",
                "count": 1,
                "start_time": ts(30),
                "duration": "7d",
            },
        )
        block.queued_tpu_settings("v6e-16")

    with pytest.raises(DwsValidationError, match="^accelerator_type: v6e-16 does not apply"):
        GcpMocks().run(program)


# ----------------------------------------------------------------------- gcloud oracle
_SKIP = gcloud_unavailable_reason("alpha")
_FR = ["alpha", "compute", "future-reservations", "create", "v6e-block"]
_FR_COMMON = [
    "--reservation-mode=CALENDAR",
    "--auto-delete-auto-created-reservations",
    "--planning-status=SUBMITTED",
]
ORACLE_CASES: dict[str, tuple[list[str], dict[str, Any]]] = {
    "v6e-16-batch": (
        ["--zone=us-east5-b", "--tpu-version=V6E", "--chip-count=16", "--workload-type=BATCH"],
        {},
    ),
    "v5e-8-serving": (
        ["--zone=us-south1-a", "--tpu-version=V5E", "--chip-count=8", "--workload-type=SERVING"],
        {"zone": "us-south1-a", "tpu_version": "v5e", "chip_count": 8, "workload_type": "SERVING"},
    ),
    "v5p-16-batch": (
        ["--zone=us-east5-a", "--tpu-version=V5P", "--chip-count=16", "--workload-type=BATCH"],
        {"zone": "us-east5-a", "tpu_version": "v5p"},
    ),
    "v6e-no-workload-type": (
        ["--zone=us-east5-b", "--tpu-version=v6e", "--chip-count=64"],
        {"chip_count": 64, "workload_type": None},
    ),
    "v6e-specific": (
        [
            "--zone=us-east5-a",
            "--tpu-version=V6E",
            "--chip-count=4",
            "--workload-type=BATCH",
            "--require-specific-reservation",
        ],
        {"zone": "us-east5-a", "chip_count": 4, "require_specific_reservation": True},
    ),
}


@pytest.fixture(scope="module")
def gcloud_bodies() -> dict[str, Any]:
    start = ts(30)
    window = [f"--start-time={start}", f"--duration={7 * 86400}"]
    with ThreadPoolExecutor(max_workers=2) as pool:
        runs = {
            name: pool.submit(run_gcloud, [*_FR, *flags, *_FR_COMMON, *window])
            for name, (flags, _) in ORACLE_CASES.items()
        }
        captures = {name: run.result() for name, run in runs.items()}
    for capture in captures.values():
        assert capture.ok, capture.describe()
    return {"start": start, **{n: c.create_request().body for n, c in captures.items()}}


@pytest.mark.skipif(_SKIP is not None, reason=_SKIP or "")
@pytest.mark.parametrize("case", sorted(ORACLE_CASES))
def test_tpu_reservations_equal_what_gcloud_sends(case: str, gcloud_bodies: dict[str, Any]) -> None:
    sent = gcloud_bodies[case]
    mocks, _ = build(tpu(start_time=gcloud_bodies["start"], **ORACLE_CASES[case][1]))
    ours = dict(mocks.one(FR).inputs)
    # Not part of the body: the zone is in the URL; the auto-created reservation's exact name
    # is one we set (consumers name it) that the gcloud command line above does not.
    ours.pop("zone")
    assert ours.pop("reservationName") == "v6e-block"
    assert ours == sent


@pytest.mark.skipif(_SKIP is not None, reason=_SKIP or "")
def test_the_queued_resource_names_the_reservation_as_gcloud_expands_it() -> None:
    """gcloud ``queued-resources create --reservation=NAME`` turns a short name into
    ``projects/P/locations/ZONE/reservations/NAME``: the name our settings give. (The oracle
    server may not answer the Cloud TPU API; the request it recorded is what matters.)"""
    capture = run_gcloud(
        [
            "alpha",
            "compute",
            "tpus",
            "queued-resources",
            "create",
            "qr",
            "--zone=us-east5-b",
            "--accelerator-type=v6e-16",
            "--runtime-version=v2-alpha-tpuv6e",
            "--node-id=n1",
            "--provisioning-model=reservation-bound",
            "--reservation=v6e-block",
            "--async",
        ],
        apis=("compute", "tpu"),
    )
    posts = capture.find("POST")
    assert len(posts) == 1, capture.describe()
    sent = posts[0].body
    mocks = GcpMocks()

    def program() -> Any:
        block = CalendarReservation("v6e-block", tpu(project="demo-project"))  # type: ignore[arg-type]
        return block.queued_tpu_settings("v6e-16")["reservation"]

    assert mocks.run(program) == sent["reservationName"]
    assert sent["provisioningModel"] == "RESERVATION_BOUND"


@pytest.mark.skipif(_SKIP is not None, reason=_SKIP or "")
def test_a_tpu_vm_consumes_the_reservation_as_gcloud_has_it() -> None:
    capture = run_gcloud(
        [
            "alpha",
            "compute",
            "instances",
            "create",
            "tpu-vm",
            "--zone=us-east5-b",
            "--machine-type=ct6e-standard-4t",
            "--provisioning-model=RESERVATION_BOUND",
            "--instance-termination-action=DELETE",
            "--maintenance-policy=TERMINATE",
            "--no-restart-on-failure",
            "--reservation-affinity=specific",
            "--reservation=v6e-block",
            "--image-family=debian-12",
            "--image-project=debian-cloud",
        ]
    )
    assert capture.ok, capture.describe()
    sent = capture.create_request().body
    mocks = GcpMocks()

    def program() -> None:
        block = CalendarReservation("v6e-block", tpu())  # type: ignore[arg-type]
        gcp.compute.Instance(
            "tpu-vm",
            boot_disk={"initialize_params": {"image": "debian-12"}},
            network_interfaces=[{"network": "default"}],
            **block.instance_settings(machine_type="ct6e-standard-4t"),
        )

    mocks.run(program)
    vm = mocks.one("gcp:compute/instance:Instance").inputs
    # pulumi-gcp's Instance inputs, as the provider maps them onto the API body.
    affinity = vm["reservationAffinity"]
    assert {
        "consumeReservationType": affinity["type"],
        "key": affinity["specificReservation"]["key"],
        "values": affinity["specificReservation"]["values"],
    } == sent["reservationAffinity"]
    scheduling = {
        "provisioningModel": vm["scheduling"]["provisioningModel"],
        "instanceTerminationAction": vm["scheduling"]["instanceTerminationAction"],
        "onHostMaintenance": vm["scheduling"]["onHostMaintenance"],
        "automaticRestart": vm["scheduling"]["automaticRestart"],
    }
    assert scheduling == sent["scheduling"]
    assert sent["machineType"].endswith(f"/machineTypes/{vm['machineType']}")
