"""QueuedNodePool under GcpMocks, and against the request body gcloud sends."""

from __future__ import annotations

from typing import Any

import pulumi
import pytest
from component_helpers import args_with, build_component
from gke_helpers import api_body, proto3

from pulumi_dws import limits
from pulumi_dws.errors import DwsValidationError
from pulumi_dws.kinds.node_pool.component import (
    GKE_DEFAULT_SCOPES,
    SERVICE_ACCOUNT_SCOPES,
    QueuedNodePool,
)
from pulumi_dws.testing import GcpMocks
from pulumi_dws.testing.gcloud import GcloudCommand, GcloudRuns, gcloud_unavailable_reason

NP = "gcp:container/nodePool:NodePool"
TYPE = "dws:index:QueuedNodePool"


def base(**over: Any) -> dict[str, Any]:
    args: dict[str, Any] = {
        "cluster": "ml-cluster",
        "location": "us-central1",
        "node_locations": ["us-central1-a"],
        "machine_type": "a3-highgpu-8g",
        "max_nodes": 4,
    }
    return args_with(args, over)


def build(args: dict[str, Any], name: str = "dws-pool") -> tuple[GcpMocks, QueuedNodePool]:
    return build_component(lambda: QueuedNodePool(name, args))


def pool_inputs(mocks: GcpMocks) -> dict[str, Any]:
    return mocks.one(NP).inputs


# ----------------------------------------------------------------------- modes
def test_queued_pool_sets_what_gke_requires() -> None:
    mocks, _ = build(base())
    p = pool_inputs(mocks)
    assert p["queuedProvisioning"] == {"enabled": True}
    assert p["initialNodeCount"] == 0
    assert p["autoscaling"] == {
        "totalMinNodeCount": 0,
        "totalMaxNodeCount": 4,
        "locationPolicy": "ANY",
    }
    assert p["management"] == {"autoRepair": False, "autoUpgrade": False}
    cfg = p["nodeConfig"]
    assert cfg["reservationAffinity"] == {"consumeReservationType": "NO_RESERVATION"}
    assert cfg["machineType"] == "a3-highgpu-8g"
    assert cfg["guestAccelerators"] == [
        {
            "type": "nvidia-h100-80gb",
            "count": 8,
            "gpuDriverInstallationConfig": {"gpuDriverVersion": "LATEST"},
        }
    ]
    assert cfg["oauthScopes"] == list(GKE_DEFAULT_SCOPES)
    # Flex-start with queued provisioning, as GKE's docs and gcloud have it today.
    assert cfg["flexStart"] is True
    assert "spot" not in cfg and "placementPolicy" not in p
    assert (p["name"], p["cluster"], p["location"]) == ("dws-pool", "ml-cluster", "us-central1")
    assert p["nodeLocations"] == ["us-central1-a"]


def test_flex_start_pool_has_no_queue() -> None:
    mocks, pool = build(base(mode="flex_start", max_run_duration="6h"))
    p = pool_inputs(mocks)
    assert "queuedProvisioning" not in p
    assert p["nodeConfig"]["flexStart"] is True
    assert p["nodeConfig"]["maxRunDuration"] == "21600s"
    assert p["nodeConfig"]["reservationAffinity"] == {"consumeReservationType": "NO_RESERVATION"}
    assert p["autoscaling"]["locationPolicy"] == "ANY"
    assert p["management"]["autoRepair"] is False
    assert (pool.mode, pool.queued) == ("flex_start", False)


def test_queued_pool_can_also_use_flex_start_vms() -> None:
    mocks, _ = build(base(flex_start=True))
    p = pool_inputs(mocks)
    assert p["queuedProvisioning"] == {"enabled": True}
    assert p["nodeConfig"]["flexStart"] is True


def test_queued_pool_opts_out_of_flex_start_for_older_clusters() -> None:
    """``flex_start: False`` keeps queued provisioning alone, for clusters older than the GKE
    version that brought Flex-start nodes; a node version that old needs the opt-out."""
    mocks, _ = build(base(flex_start=False, version="1.31.6-gke.1020000"))
    p = pool_inputs(mocks)
    assert p["queuedProvisioning"] == {"enabled": True}
    assert "flexStart" not in p["nodeConfig"]
    for old in ("1.31.6-gke.1020000", "1.32.2-gke.1651999", "1.31"):
        with pytest.raises(
            DwsValidationError,
            match=r"^version: .*1\.32\.2-gke\.1652000.*"
            r"flex_start: False",
        ):
            GcpMocks().run(lambda v=old: QueuedNodePool("dws-pool", base(version=v)))
    for new in ("1.32.2-gke.1652000", "1.33.1-gke.100", "1.32"):
        build(base(version=new))


@pytest.mark.parametrize("machine", ["a3-ultragpu-8g", "a4-highgpu-8g"])
def test_compact_placement_with_flex_start_on_a3_ultra_and_a4(machine: str) -> None:
    mocks, _ = build(base(mode="flex_start", machine_type=machine, compact_placement=True))
    p = pool_inputs(mocks)
    assert p["placementPolicy"] == {"type": "COMPACT"}
    assert p["nodeConfig"]["flexStart"] is True and "queuedProvisioning" not in p


@pytest.mark.parametrize(
    ("over", "field", "fragment"),
    [
        ({"compact_placement": True}, "compact_placement", "queued provisioning with GPUs"),
        (
            {"compact_placement": True, "machine_type": "a3-ultragpu-8g"},
            "compact_placement",
            "queued provisioning with GPUs",
        ),
        (
            {"mode": "flex_start", "compact_placement": True},
            "compact_placement",
            "only supported for A3 Ultra, A4 and H4D",
        ),
        (
            {"mode": "flex_start", "compact_placement": True, "machine_type": "a4x-highgpu-4g"},
            "compact_placement",
            "only supported for A3 Ultra, A4 and H4D",
        ),
        (
            {
                "mode": "flex_start",
                "compact_placement": True,
                "machine_type": "a3-ultragpu-8g",
                "node_locations": ["us-central1-a", "us-central1-b"],
            },
            "node_locations",
            "exactly one zone",
        ),
        ({"mode": "flex_start", "flex_start": False}, "flex_start", "mode flex_start"),
    ],
)
def test_compact_placement_rules(over: dict[str, Any], field: str, fragment: str) -> None:
    with pytest.raises(DwsValidationError) as info:
        GcpMocks().run(lambda: QueuedNodePool("dws-pool", base(**over)))
    assert info.value.field == field and fragment in str(info.value)


def test_reserved_pool_consumes_a_named_reservation() -> None:
    mocks, pool = build(base(mode="reserved", reservation="h100-week", min_nodes=1))
    p = pool_inputs(mocks)
    assert p["nodeConfig"]["reservationAffinity"] == {
        "consumeReservationType": "SPECIFIC_RESERVATION",
        "key": "compute.googleapis.com/reservation-name",
        "values": ["h100-week"],
    }
    assert "queuedProvisioning" not in p and "flexStart" not in p["nodeConfig"]
    assert p["autoscaling"]["totalMinNodeCount"] == 1
    assert pool.queued is False


def test_reserved_pool_consumes_a_calendar_reservation() -> None:
    from pulumi_dws import CalendarReservation

    mocks = GcpMocks()

    def program() -> None:
        block = CalendarReservation(
            "h100-week",
            {
                "zone": "us-central1-b",
                "machine_type": "a3-highgpu-8g",
                "count": 2,
                "start_time": "+4w",
                "duration": "7d",
            },
        )
        QueuedNodePool(
            "reserved",
            base(mode="reserved", reservation=block, node_locations=None, max_nodes=2),
        )

    mocks.run(program)
    p = pool_inputs(mocks)
    affinity = p["nodeConfig"]["reservationAffinity"]
    assert affinity["consumeReservationType"] == "SPECIFIC_RESERVATION"
    assert affinity["values"] == ["h100-week"]
    assert p["nodeLocations"] == ["us-central1-b"]  # the reservation's zone


class _Reservation:
    """Anything with a ``reservation_name`` Output is accepted."""

    def __init__(self, name: str) -> None:
        self.reservation_name = pulumi.Output.from_input(name)


def test_reserved_pool_accepts_any_object_with_a_reservation_name() -> None:
    mocks = GcpMocks()
    mocks.run(lambda: QueuedNodePool("r", base(mode="reserved", reservation=_Reservation("rz"))))
    assert pool_inputs(mocks)["nodeConfig"]["reservationAffinity"]["values"] == ["rz"]


def test_reserved_pool_accepts_an_output_reservation_name() -> None:
    mocks = GcpMocks()
    name = pulumi.Output.from_input("projects/shared-proj/reservations/blk")
    mocks.run(lambda: QueuedNodePool("r", base(mode="reserved", reservation=name)))
    affinity = pool_inputs(mocks)["nodeConfig"]["reservationAffinity"]
    assert affinity["values"] == ["projects/shared-proj/reservations/blk"]
    assert pool_inputs(mocks)["nodeLocations"] == ["us-central1-a"]


def test_optional_settings_reach_the_node_pool() -> None:
    sa = "dws-nodes@my-project.iam.gserviceaccount.com"
    mocks, _ = build(
        base(
            name="gpu-pool",
            project="my-project",
            labels={"team": "research", "example.com/tier": "batch"},
            resource_labels={"cost-center": "ml"},
            taints=[{"key": "dedicated", "value": "ml", "effect": "NoSchedule"}],
            service_account=sa,
            disk_size_gb=500,
            disk_type="pd-ssd",
            image_type="COS_CONTAINERD",
            version="1.33.5-gke.1000000",
            auto_upgrade=True,
            gpu_driver_version="default",
            max_run_duration="3d",
        )
    )
    p = pool_inputs(mocks)
    cfg = p["nodeConfig"]
    assert p["name"] == "gpu-pool" and p["project"] == "my-project"
    assert p["version"] == "1.33.5-gke.1000000"
    assert p["management"]["autoUpgrade"] is True
    assert cfg["labels"] == {"team": "research", "example.com/tier": "batch"}
    assert cfg["resourceLabels"] == {"cost-center": "ml"}
    assert cfg["taints"] == [{"key": "dedicated", "value": "ml", "effect": "NO_SCHEDULE"}]
    assert cfg["serviceAccount"] == sa
    assert cfg["oauthScopes"] == list(SERVICE_ACCOUNT_SCOPES)
    assert (cfg["diskSizeGb"], cfg["diskType"], cfg["imageType"]) == (
        500,
        "pd-ssd",
        "COS_CONTAINERD",
    )
    assert cfg["maxRunDuration"] == "259200s"
    driver = cfg["guestAccelerators"][0]["gpuDriverInstallationConfig"]["gpuDriverVersion"]
    assert driver == "DEFAULT"


def test_accelerator_args_may_repeat_the_machine_shape() -> None:
    mocks, _ = build(
        base(machine_type="g2-standard-24", accelerator_type="NVIDIA_L4", accelerator_count=2)
    )
    acc = pool_inputs(mocks)["nodeConfig"]["guestAccelerators"][0]
    assert (acc["type"], acc["count"]) == ("nvidia-l4", 2)


# ----------------------------------------------------------------------- outputs, tree
def test_outputs_users_need() -> None:
    mocks = GcpMocks()

    def program() -> Any:
        pool = QueuedNodePool("dws-pool", base(machine_type="g2-standard-24", max_nodes=3))
        return pulumi.Output.all(
            pool.name, pool.gpus_total, pool.node_selector, pool.max_nodes, pool.cluster
        )

    name, gpus, selector, max_nodes, cluster = mocks.run(program)
    assert (name, gpus, max_nodes, cluster) == ("dws-pool", 6, 3, "ml-cluster")
    assert selector == {"cloud.google.com/gke-nodepool": "dws-pool"}


def test_component_type_parent_and_child_name() -> None:
    mocks, pool = build(base(), name="a3")
    comp = mocks.one(TYPE, "a3")
    np = mocks.one(NP)
    assert comp.parent_type == "pulumi:pulumi:Stack" and not comp.custom
    assert (np.name, np.parent, np.parent_type) == ("a3-pool", comp.urn, TYPE)
    assert [r.type for r in mocks.resources(custom=True)] == [NP]
    assert (pool.gpus_per_node, pool.accelerator_type) == (8, "nvidia-h100-80gb")


# ----------------------------------------------------------------------- rejections
REJECTIONS: list[tuple[dict[str, Any], str, str]] = [
    ({"spot": True}, "spot", "Spot"),
    ({"compact_placement": True}, "compact_placement", "compact placement"),
    ({"min_nodes": 1}, "min_nodes", "minimum node count 0"),
    ({"initial_node_count": 2}, "initial_node_count", "initial node count 0"),
    ({"location_policy": "BALANCED"}, "location_policy", "location policy ANY"),
    ({"auto_repair": True}, "auto_repair", "auto-repair off"),
    ({"mode": "flex_start", "auto_repair": True}, "auto_repair", "Flex-start"),
    ({"mode": "flex_start", "spot": True}, "spot", "Flex-start"),
    ({"max_run_duration": "8d"}, "max_run_duration", "7d (604800s)"),
    ({"max_run_duration": "soon"}, "max_run_duration", "not a duration"),
    ({"max_nodes": 0}, "max_nodes", "minimum of 1"),
    ({"max_nodes": 5000}, "max_nodes", "limit of 1000"),
    ({"max_nodes": "4"}, "max_nodes", '"4" must be a whole number'),
    ({"max_nodes": None}, "max_nodes", "required"),
    ({"machine_type": "n2-standard-8"}, "machine_type", "not a known GPU or TPU machine type"),
    ({"accelerator_type": "nvidia-l4"}, "accelerator_type", "nvidia-h100-80gb"),
    ({"accelerator_type": "tpu-v5"}, "accelerator_type", "not a known GPU accelerator"),
    ({"accelerator_count": 4}, "accelerator_count", "8 GPUs"),
    ({"mode": "batch"}, "mode", "queued, flex_start, reserved"),
    ({"location": "us-central"}, "location", "region"),
    ({"node_locations": ["europe-west4-a"]}, "node_locations[0]", "us-central1"),
    ({"node_locations": ["us-central1"]}, "node_locations[0]", "zone"),
    ({"node_locations": []}, "node_locations", "at least one zone"),
    ({"gpu_driver_version": "newest"}, "gpu_driver_version", "LATEST"),
    ({"reservation": "h100-week"}, "reservation", "NO_RESERVATION"),
    ({"mode": "reserved"}, "reservation", "required with mode reserved"),
    ({"mode": "reserved", "reservation": "Bad_Name"}, "reservation", "RFC 1035"),
    ({"mode": "reserved", "reservation": 42}, "reservation", "reservation name"),
    ({"mode": "reserved", "reservation": "r", "flex_start": True}, "flex_start", "reserved"),
    ({"mode": "reserved", "reservation": "r", "min_nodes": 9}, "min_nodes", "above max_nodes"),
    ({"mode": "reserved", "reservation": "r", "spot": True}, "spot", "reservation-bound"),
    ({"taints": [{"key": "a", "effect": "Sometimes"}]}, "taints[0].effect", "NO_SCHEDULE"),
    ({"taints": [{"key": "a b"}]}, "taints[0].key", "label key"),
    ({"labels": {"-bad": "x"}}, "labels key", "label key"),
    ({"labels": {"ok": "x" * 64}}, "labels[ok]", "label value"),
    ({"resource_labels": {"Team": "x"}}, "resource_labels key", "label key"),
    ({"disk_size_gb": 5}, "disk_size_gb", "minimum of 10"),
    ({"disk_type": "nvme"}, "disk_type", "pd-balanced"),
    ({"node_count": 3}, "node_count", "unknown argument; known: cluster, location"),
    ({"cluster": ""}, "cluster", "cluster name or id"),
    ({"cluster": "projects/p/clusters/x"}, "cluster", "cluster id like"),
    ({"name": "p" * 41}, "name", "limit of 40"),
    ({"name": "GPU"}, "name", "RFC 1035"),
    ({"service_account": "bob"}, "service_account", "email"),
    ({"machine_type": 8}, "machine_type", "plain string"),
]


@pytest.mark.parametrize(("over", "field", "fragment"), REJECTIONS)
def test_each_rejection_names_the_field(over: dict[str, Any], field: str, fragment: str) -> None:
    args = base(**{k: v for k, v in over.items() if v is not None})
    if "max_nodes" in over and over["max_nodes"] is None:
        args.pop("max_nodes")
    mocks = GcpMocks()
    with pytest.raises(DwsValidationError) as info:
        mocks.run(lambda: QueuedNodePool("dws-pool", args))
    assert info.value.field == field, str(info.value)
    assert str(info.value).startswith(f"{field}: ")
    assert fragment in str(info.value)
    assert mocks.registered == []  # refused before anything was registered


def test_default_pool_name_must_be_valid() -> None:
    with pytest.raises(DwsValidationError, match=r"^name: GpuPool .*pass args\['name'\]"):
        GcpMocks().run(lambda: QueuedNodePool("GpuPool", base()))


def test_reservation_must_hold_the_pool_machine_type() -> None:
    class Block:
        reservation_name = pulumi.Output.from_input("blk")

        class spec:  # noqa: N801 - mimics CalendarReservation.spec
            machine_type = "a3-megagpu-8g"
            zone = "us-central1-a"

    with pytest.raises(DwsValidationError, match=r"^machine_type: a3-highgpu-8g .*a3-megagpu-8g"):
        GcpMocks().run(lambda: QueuedNodePool("r", base(mode="reserved", reservation=Block())))


def test_limits_override_admits_a_bigger_pool() -> None:
    limits.override("gke.max_nodes", maximum=2000)
    mocks, _ = build(base(max_nodes=1500))
    assert pool_inputs(mocks)["autoscaling"]["totalMaxNodeCount"] == 1500


# ----------------------------------------------------------------------- Output-valued inputs
def test_output_valued_inputs_flow_through() -> None:
    mocks = GcpMocks()

    def program() -> Any:
        pool = QueuedNodePool(
            "dws-pool",
            base(
                cluster=pulumi.Output.from_input("projects/p/locations/us-central1/clusters/c"),
                max_nodes=pulumi.Output.from_input(3),
                max_run_duration=pulumi.Output.from_input("2h"),
                project=pulumi.Output.from_input("p"),
                service_account=pulumi.Output.from_input("sa@p.iam.gserviceaccount.com"),
            ),
        )
        return pool.gpus_total

    assert mocks.run(program) == 24
    p = pool_inputs(mocks)
    assert p["cluster"] == "projects/p/locations/us-central1/clusters/c"
    assert p["autoscaling"]["totalMaxNodeCount"] == 3
    assert p["nodeConfig"]["maxRunDuration"] == "7200s"
    assert p["nodeConfig"]["serviceAccount"] == "sa@p.iam.gserviceaccount.com"


@pytest.mark.parametrize(
    ("over", "message"),
    [
        ({"max_nodes": 0}, r"^max_nodes: 0 is below"),
        ({"max_run_duration": "9d"}, r"^max_run_duration: 9d is above"),
    ],
)
def test_output_valued_inputs_are_checked_once_known(over: dict[str, Any], message: str) -> None:
    args = base(**{k: pulumi.Output.from_input(v) for k, v in over.items()})
    with pytest.raises(DwsValidationError, match=message):
        GcpMocks().run(lambda: QueuedNodePool("dws-pool", args))


# ----------------------------------------------------------------------- gcloud oracle
_GCLOUD_BASE = [
    "beta",
    "container",
    "node-pools",
    "create",
    "dws-pool",
    "--cluster=ml-cluster",
    "--location=us-central1",
    "--node-locations=us-central1-a",
    "--machine-type=a3-highgpu-8g",
    "--enable-autoscaling",
    "--num-nodes=0",
    "--total-max-nodes=4",
    "--location-policy=ANY",
    "--no-enable-autorepair",
    "--accelerator",
    "type=nvidia-h100-80gb,count=8,gpu-driver-version=latest",
]
_QUEUED = ["--enable-queued-provisioning", "--reservation-affinity=none"]
_SA = "dws-nodes@demo-project.iam.gserviceaccount.com"

ORACLE_CASES = {
    # GKE's docs' command line (flex-start with queued provisioning); gcloud leaves
    # auto-upgrade on unless told.
    "queued-as-in-the-docs": ([*_QUEUED, "--flex-start"], {"auto_upgrade": True}),
    # Our default turns auto-upgrade off, as GKE recommends for DWS pools.
    "queued-default": ([*_QUEUED, "--flex-start", "--no-enable-autoupgrade"], {}),
    # The opt-out for clusters older than GKE 1.32.2-gke.1652000: queued provisioning alone.
    "queued-without-flex-start": (
        [*_QUEUED, "--no-enable-autoupgrade"],
        {"flex_start": False},
    ),
    # Compact placement on a Flex-start A3 Ultra pool (Cluster Toolkit allows it there).
    "flex-start-compact-a3-ultra": (
        [
            "--flex-start",
            "--reservation-affinity=none",
            "--no-enable-autoupgrade",
            "--placement-type=COMPACT",
            "--machine-type=a3-ultragpu-8g",
            "--accelerator",
            "type=nvidia-h200-141gb,count=8,gpu-driver-version=latest",
        ],
        {"mode": "flex_start", "compact_placement": True, "machine_type": "a3-ultragpu-8g"},
    ),
    "flex-start-with-options": (
        [
            "--flex-start",
            "--reservation-affinity=none",
            "--no-enable-autoupgrade",
            "--max-run-duration=3600s",
            "--node-labels=team=ml",
            "--node-taints=dedicated=ml:NoSchedule",
            "--disk-size=200",
            "--disk-type=pd-ssd",
            f"--service-account={_SA}",
        ],
        {
            "mode": "flex_start",
            "max_run_duration": "1h",
            "labels": {"team": "ml"},
            "taints": [{"key": "dedicated", "value": "ml", "effect": "NoSchedule"}],
            "disk_size_gb": 200,
            "disk_type": "pd-ssd",
            "service_account": _SA,
        },
    ),
    "reserved": (
        ["--reservation-affinity=specific", "--reservation=h100-week", "--no-enable-autoupgrade"],
        {"mode": "reserved", "reservation": "h100-week"},
    ),
}

_SKIP = gcloud_unavailable_reason("beta")
GCLOUD = {
    case: GcloudCommand.of([*_GCLOUD_BASE, *flags]) for case, (flags, _) in ORACLE_CASES.items()
}


@pytest.mark.skipif(_SKIP is not None, reason=_SKIP or "")
@pytest.mark.gcloud(*(GCLOUD[case] for case in sorted(GCLOUD)))
@pytest.mark.parametrize("case", sorted(ORACLE_CASES))
def test_inputs_mean_what_gcloud_sends(case: str, gcloud_runs: GcloudRuns) -> None:
    flags, over = ORACLE_CASES[case]
    capture = gcloud_runs.run(GCLOUD[case].args)
    assert capture.ok, capture.describe()
    request = capture.create_request()
    assert request.path.endswith("/locations/us-central1/clusters/ml-cluster/nodePools")
    sent = dict(request.body["nodePool"])
    mocks, _ = build(base(**over))
    ours = api_body(pool_inputs(mocks))
    assert sent.pop("upgradeSettings") == {"maxSurge": 1}  # see ALLOWED
    assert ours.pop("networkConfig") == {}  # see ALLOWED
    assert proto3(ours) == proto3(sent)
    # The rules themselves, on the wire, not only "equal to gcloud":
    assert sent["initialNodeCount"] == 0 and sent["management"]["autoRepair"] is False
    assert sent["autoscaling"] == {"enabled": True, "locationPolicy": "ANY", "totalMaxNodeCount": 4}


def test_api_body_refuses_inputs_it_does_not_map() -> None:
    with pytest.raises(AssertionError, match="networkConfig"):
        api_body({"name": "p", "networkConfig": {"enablePrivateNodes": True}})
