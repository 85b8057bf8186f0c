"""``QueuedTpu`` under ``GcpMocks``: what it registers, its bodies against gcloud's (captured
bodies in ``fixtures/gcloud_queued_tpu_bodies.json``, and gcloud itself under the ``gcloud``
marker), and every argument it refuses."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from component_helpers import args_with, build_component, stack_default

from pulumi_dws import DwsValidationError, limits
from pulumi_dws.kinds.queued_tpu.component import QueuedTpu
from pulumi_dws.testing import GcpMocks
from pulumi_dws.testing.gcloud import GcloudCommand, GcloudRuns, gcloud_unavailable_reason

FIXTURES = Path(__file__).resolve().parent / "fixtures"
CAPTURES = json.loads((FIXTURES / "gcloud_queued_tpu_bodies.json").read_text())["captures"]
DYNAMIC = "pulumi-python:dynamic/dws:QueuedTpu"
COMPONENT = "dws:index:QueuedTpu"
PROJECT = "demo-project"


def flex(**over: Any) -> dict[str, Any]:
    args: dict[str, Any] = {
        "project": PROJECT,
        "zone": "us-east5-a",
        "accelerator_type": "v6e-16",
        "max_run_duration": "1d",
        "request_valid_for": "2h",
    }
    return args_with(args, over)


def build(args: dict[str, Any], name: str = "qr1") -> tuple[GcpMocks, Any]:
    return build_component(
        lambda: QueuedTpu(name, args),  # type: ignore[arg-type]
        lambda tpu: tpu.state,
    )


def chips_of(args: dict[str, Any], name: str = "qr1") -> Any:
    """The ``chips`` Output of a QueuedTpu, resolved."""
    return GcpMocks().run(lambda: QueuedTpu(name, args).chips)  # type: ignore[arg-type]


def body_of(args: dict[str, Any], name: str = "qr1") -> dict[str, Any]:
    mocks, _ = build(args, name)
    return mocks.one(DYNAMIC).inputs["body"]


def refused(args: dict[str, Any], name: str = "qr1") -> DwsValidationError:
    mocks = GcpMocks()
    with pytest.raises(DwsValidationError) as info:
        mocks.run(lambda: QueuedTpu(name, args))  # type: ignore[arg-type]
    assert mocks.registered == []
    return info.value


def in_zone(body: dict[str, Any], zone: str) -> dict[str, Any]:
    """A captured body (taken in us-east5-b) as gcloud sends it for ``zone``."""
    return json.loads(json.dumps(body).replace("us-east5-b", zone))


# ----------------------------------------------------------------------- what is registered
def test_it_registers_one_queued_resource_under_the_component() -> None:
    mocks, tpu = build(flex(wait_for="accepted"))
    component = mocks.one(COMPONENT)
    child = mocks.one(DYNAMIC)
    assert child.name == "qr1-queued-resource"
    assert child.parent == component.urn
    assert {k: child.inputs[k] for k in ("project", "zone", "queuedResourceId", "waitFor")} == {
        "project": PROJECT,
        "zone": "us-east5-a",
        "queuedResourceId": stack_default("qr1"),  # the component's and the stack's
        "waitFor": "accepted",
    }
    assert set(mocks.types()) == {COMPONENT, DYNAMIC}
    assert chips_of(flex(wait_for="accepted")) == 16


def test_the_flex_start_body_is_gclouds() -> None:
    sent = in_zone(CAPTURES["qr-flexstart"]["body"], "us-east5-a")
    assert body_of(flex(node_id="n1", public_ip=True)) == sent


def test_the_spot_body_is_gclouds_provisioning_model_form() -> None:
    args = flex(provisioning="spot", max_run_duration=None, request_valid_for=None)
    sent = CAPTURES["qr-provisioning-model-spot"]["body"]
    assert body_of({**args, "zone": "us-east5-b", "node_id": "n1", "public_ip": True}) == sent


def test_a_short_reservation_name_is_expanded_with_the_zone_as_gcloud_does() -> None:
    args = flex(provisioning="reservation_bound", reservation="my-res", max_run_duration=None)
    args.update(zone="us-east5-b", node_id="n1", public_ip=True, request_valid_for=None)
    assert body_of(args) == CAPTURES["qr-reservation-bound-short"]["body"]


def test_a_full_reservation_name_is_sent_as_it_is() -> None:
    full = "projects/other-proj/locations/us-east5-b/reservations/my-res"
    args = flex(provisioning="reservation_bound", reservation=full, max_run_duration=None)
    assert body_of({**args, "zone": "us-east5-b"})["reservationName"] == full


def test_the_multislice_body_is_gclouds() -> None:
    sent = in_zone(CAPTURES["qr-multislice"]["body"], "us-east5-a")
    assert body_of(flex(node_count=2, node_id_prefix="slice", public_ip=True)) == sent


def test_network_service_account_labels_and_metadata_are_gclouds() -> None:
    sent = copy.deepcopy(CAPTURES["qr-flexstart-net-sa-labels-metadata"]["body"])
    del sent["tpu"]["nodeSpec"][0]["node"]["tags"]  # --tags: not a QueuedTpu argument
    args = flex(
        node_id="n1",
        max_run_duration="7d",
        network="my-net",
        subnetwork="my-subnet",
        service_account="sa@p.iam.gserviceaccount.com",
        scopes=["https://www.googleapis.com/auth/cloud-platform"],
        labels={"team": "ml", "env": "dev"},
        metadata={"startup-script": "echo hi", "foo": "bar"},
    )
    assert body_of(args) == in_zone(sent, "us-east5-a")


def test_the_node_is_named_after_the_queued_resource_by_default() -> None:
    spec = body_of(flex(), name="trainer")["tpu"]["nodeSpec"][0]
    assert spec["nodeId"] == stack_default("trainer")
    multi = body_of(flex(node_count=3), name="trainer")["tpu"]["nodeSpec"][0]
    assert multi["multiNodeParams"] == {"nodeCount": 3} and "nodeId" not in multi


def test_the_runtime_defaults_to_the_generations_own() -> None:
    node = body_of(flex(accelerator_type="v5litepod-8", zone="us-west4-a"))["tpu"]["nodeSpec"][0]
    assert node["node"]["runtimeVersion"] == "v2-alpha-tpuv5-lite"


def test_chips_count_every_slice() -> None:
    assert chips_of(flex(node_count=4)) == 64
    spot = flex(accelerator_type="v5p-8", provisioning="spot", max_run_duration=None)
    assert chips_of(spot) == 4  # v5p-8 counts TensorCores: 4 chips


def test_an_overridden_zone_row_admits_a_new_flex_start_zone() -> None:
    limits.override("queued_tpu.flex_start_zones.v6e", zones=["us-east5-a", "us-east5-b"])
    assert body_of(flex(zone="us-east5-b"))["tpu"]["nodeSpec"][0]["parent"].endswith("us-east5-b")


# ----------------------------------------------------------------------- rejections
REFUSALS: list[tuple[str, dict[str, Any], str, str]] = [
    ("unknown size", {"accelerator_type": "v6e-3"}, "accelerator_type", "slice size"),
    ("TPU7x", {"accelerator_type": "tpu7x-16"}, "accelerator_type", "Cloud TPU"),
    ("other runtime", {"runtime_version": "v2-alpha-tpuv5-lite"}, "runtime_version", "v6e"),
    ("bad runtime", {"runtime_version": "V2 Alpha"}, "runtime_version", "runtime version"),
    ("both ids", {"node_id": "n1", "node_count": 2}, "node_id", "not both"),
    ("one slice", {"node_count": 1}, "node_count", "minimum"),
    ("too many", {"node_count": 257}, "node_count", "limit"),
    ("prefix alone", {"node_id_prefix": "np"}, "node_id_prefix", "node_count"),
    ("bad node id", {"node_id": "Node_1"}, "node_id", "RFC 1035"),
    ("bad model", {"provisioning": "standard"}, "provisioning", ""),
    (
        "bound, no reservation",
        {"provisioning": "reservation_bound", "max_run_duration": None},
        "reservation",
        "required",
    ),
    ("reservation, not bound", {"reservation": "my-res"}, "reservation", "reservation_bound"),
    (
        "bad reservation",
        {"provisioning": "reservation_bound", "reservation": "a/b", "max_run_duration": None},
        "reservation",
        "projects/PROJECT/locations/ZONE/reservations/NAME",
    ),
    ("no run duration", {"max_run_duration": None}, "max_run_duration", "required"),
    ("8 days", {"max_run_duration": "8d"}, "max_run_duration", "limit"),
    ("5 minutes", {"max_run_duration": "5m"}, "max_run_duration", "minimum"),
    ("spot with a run", {"provisioning": "spot"}, "max_run_duration", "flex_start"),
    ("30 s window", {"request_valid_for": "30s"}, "request_valid_for", "minimum"),
    ("no flex-start there", {"zone": "us-east5-b"}, "zone", "asia-northeast1-b, us-east5-a"),
    ("v5p flex-start", {"accelerator_type": "v5p-8"}, "accelerator_type", "Flex-start"),
    ("unknown zone", {"zone": "nowhere-1-a"}, "zone", ""),
    ("bad label", {"labels": {"Team": "ml"}}, "labels key", "label key"),
    ("bad metadata", {"metadata": {"bad key": "x"}}, "metadata key", "letters"),
    ("bad wait", {"wait_for": "running"}, "wait_for", ""),
    ("bad id", {"queued_resource_id": "QR_1"}, "queued_resource_id", "RFC 1035"),
    ("unknown argument", {"accelerator": "v6e-16"}, "accelerator", ""),
]


@pytest.mark.parametrize(
    ("change", "field", "words"),
    [pytest.param(c, f, w, id=i) for i, c, f, w in REFUSALS],
)
def test_it_refuses_naming_the_field(change: dict[str, Any], field: str, words: str) -> None:
    err = refused(flex(**change))
    assert err.field == field, str(err)
    assert words in str(err)


def test_a_bad_component_name_is_refused_as_the_default_id() -> None:
    err = refused(flex(), name="My_TPU")
    assert err.field == "queued_resource_id" and "queued_resource_id" in err.problem


# ----------------------------------------------------------------------- gcloud, the oracle
_SKIP = gcloud_unavailable_reason("alpha")
_QR = [
    "alpha", "compute", "tpus", "queued-resources", "create", "qr1", "--zone=us-east5-a",
    "--accelerator-type=v6e-16", "--runtime-version=v2-alpha-tpuv6e", "--internal-ips",
]  # fmt: skip
_FLEX = ["--provisioning-model=flex-start", "--max-run-duration=1d", "--valid-until-duration=2h"]
ORACLE: dict[str, tuple[GcloudCommand, dict[str, Any]]] = {
    "flex-start": (
        GcloudCommand.of([*_QR, "--node-id=n1", *_FLEX], apis=("compute", "tpu")),
        flex(node_id="n1"),
    ),
    "spot": (
        GcloudCommand.of(
            [*_QR, "--node-id=n1", "--provisioning-model=spot"], apis=("compute", "tpu")
        ),
        flex(node_id="n1", provisioning="spot", max_run_duration=None, request_valid_for=None),
    ),
    "reservation-bound": (
        GcloudCommand.of(
            [*_QR, "--node-id=n1", "--provisioning-model=reservation-bound", "--reservation=r1"],
            apis=("compute", "tpu"),
        ),
        flex(
            node_id="n1",
            provisioning="reservation_bound",
            reservation="r1",
            max_run_duration=None,
            request_valid_for=None,
        ),
    ),
    "multislice": (
        GcloudCommand.of(
            [*_QR, "--node-count=4", "--node-prefix=slice", *_FLEX], apis=("compute", "tpu")
        ),
        flex(node_count=4, node_id_prefix="slice"),
    ),
}


@pytest.mark.skipif(_SKIP is not None, reason=_SKIP or "")
@pytest.mark.gcloud(*(command for command, _ in ORACLE.values()))
@pytest.mark.parametrize("case", list(ORACLE))
def test_the_body_equals_what_gcloud_sends(case: str, gcloud_runs: GcloudRuns) -> None:
    command, args = ORACLE[case]
    capture = gcloud_runs.run(command.args, apis=command.apis)
    assert capture.ok, capture.describe()
    sent = capture.create_request()
    assert sent.path == f"/v2alpha1/projects/{PROJECT}/locations/us-east5-a/queuedResources"
    assert sent.query["queuedResourceId"] == ["qr1"]
    assert body_of(args) == sent.body


def test_a_calendar_reservation_of_tpu_chips_is_consumed_reservation_bound() -> None:
    from pulumi_dws import CalendarReservation

    mocks = GcpMocks(project=PROJECT)

    def program() -> None:
        block = CalendarReservation(
            "v6e-week",
            {
                "zone": "us-east5-b",
                "tpu_version": "v6e",
                "chip_count": 16,
                "workload_type": "BATCH",
                "start_time": "+4w",
                "duration": "7d",
            },
        )
        QueuedTpu("trainer", block.queued_tpu_settings("v6e-16"))  # type: ignore[arg-type]

    mocks.run(program)
    body = mocks.one(DYNAMIC).inputs["body"]
    assert body["provisioningModel"] == "RESERVATION_BOUND" and "runDuration" not in body
    reservation = body["reservationName"]
    assert reservation.startswith(f"projects/{PROJECT}/locations/us-east5-b/reservations/")
