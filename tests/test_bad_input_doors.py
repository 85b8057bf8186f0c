"""Wrong inputs a new user tried that used to pass silently or raise raw Python errors: each
is refused at construction (or blueprint load) with one DwsValidationError naming the field
path, the value and what is allowed. Each case runs three ways from one table: through the
public component (a ``CalendarReservation`` object where it names a block), through the
blueprint (``dws:capacity``, the block named by its entry), and through ``dws plan`` of a
blueprint project.

Categories (cases each): TPU zones per door, reservation against consumer, strings that reach
an API, numbers and booleans as such."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from pulumi_dws import CalendarReservation, DwsValidationError, registry
from pulumi_dws.blueprint import deploy
from pulumi_dws.cli import main
from pulumi_dws.testing import GcpMocks

ROOT = Path(__file__).resolve().parents[1]
H100 = {
    "zone": "us-central1-a",
    "machine_type": "a3-highgpu-8g",
    "count": 2,
    "start_time": "+4w",
    "duration": "7d",
}
V6E = {
    "zone": "us-east5-b",
    "tpu_version": "v6e",
    "chip_count": 16,
    "start_time": "+4w",
    "duration": "7d",
}
BLOCKS = {"h100-block": H100, "v6e-block": V6E}

QUEUED_TPU = {"zone": "us-east5-a", "accelerator_type": "v6e-16"}
SPOT_TPU = {**QUEUED_TPU, "provisioning": "spot"}
POOL = {"cluster": "ml-cluster", "location": "us-east5", "node_locations": ["us-east5-b"]}
V6E_POOL = {**POOL, "machine_type": "ct6e-standard-4t", "tpu_topology": "4x4"}
GROUP = {"zone": "us-central1-a", "machine_type": "a3-highgpu-8g", "count": 2, "run_duration": "1d"}
VM = {"zone": "us-central1-a", "machine_type": "a3-highgpu-8g", "max_run_duration": "1d"}
SLURM_POOL = {"id": "a3", "machine_type": "a3-highgpu-8g", "max_nodes": 2}
SLURM = {"display_name": "flexvm", "login": {"zone": "us-central1-a"}}


def reserved(args: dict[str, Any], block: str, **more: Any) -> dict[str, Any]:
    return {**args, **more, "reservation": block}


# (category, id, dws:capacity key, args, field path, words the message must hold)
CASES: list[tuple[str, str, str, dict[str, Any], str, str]] = [
    # ------------------------------------------------------------ TPU zones per door
    ("zones", "spot v6e where there is no v6e", "queued_tpus",
     {**SPOT_TPU, "zone": "us-central1-a"}, "zone", "use asia-northeast1-b"),
    ("zones", "reservation-bound v5e where there is no v5e", "queued_tpus",
     {"zone": "us-east5-a", "accelerator_type": "v5litepod-8", "provisioning": "reservation_bound",
      "reservation": "my-res"}, "zone", "TPU v5e is offered through TPU VMs"),
    ("zones", "Flex-start v6e outside Cloud TPU's Flex-start zones", "queued_tpus",
     {**QUEUED_TPU, "zone": "us-east5-b", "max_run_duration": "1d"}, "zone",
     "Cloud TPU Flex-start: use asia-northeast1-b, us-east5-a"),
    ("zones", "v6e queued pool in a zone without GKE Flex-start v6e", "queued_node_pools",
     {**V6E_POOL, "location": "us-central1", "node_locations": ["us-central1-b"]},
     "node_locations[0]", "GKE Flex-start TPU nodes"),
    ("zones", "v5e Flex-start pool outside us-west4-a", "queued_node_pools",
     {**POOL, "machine_type": "ct5lp-hightpu-4t", "tpu_topology": "4x4", "mode": "flex_start"},
     "node_locations[0]", "use us-west4-a"),
    ("zones", "v6e queued-only pool where there is no v6e", "queued_node_pools",
     {**V6E_POOL, "location": "us-west4", "node_locations": ["us-west4-a"], "flex_start": False},
     "node_locations[0]", "TPU v6e is offered through TPU VMs"),
    ("zones", "TPU7x Flex-start nodes", "queued_node_pools",
     {**POOL, "location": "us-central1", "node_locations": ["us-central1-c"],
      "machine_type": "tpu7x-standard-4t", "max_nodes": 1}, "machine_type",
     "not offered through GKE Flex-start TPU nodes"),
    # ------------------------------------------------------------ reservation and consumer
    ("reservation", "a TPU pool on a GPU block", "queued_node_pools",
     reserved({**V6E_POOL, "location": "us-central1", "node_locations": None, "mode": "reserved"},
              "h100-block"), "machine_type", "holds a3-highgpu-8g VMs"),
    ("reservation", "a group of another machine type", "flex_start_groups",
     reserved({**GROUP, "machine_type": "a3-megagpu-8g", "run_duration": None,
               "provisioning": "reservation_bound"}, "h100-block"), "machine_type",
     "holds a3-highgpu-8g VMs"),
    ("reservation", "a group in another zone", "flex_start_groups",
     reserved({**GROUP, "zone": "us-central1-b", "run_duration": None,
               "provisioning": "reservation_bound"}, "h100-block"), "zone",
     "reservation's zone us-central1-a"),
    ("reservation", "a group larger than the block", "flex_start_groups",
     reserved({**GROUP, "count": 3, "run_duration": None, "provisioning": "reservation_bound"},
              "h100-block"), "count", "above the reservation's 2 VMs"),
    ("reservation", "a QueuedTpu on a GPU block", "queued_tpus",
     reserved({**QUEUED_TPU, "provisioning": "reservation_bound"}, "h100-block"), "reservation",
     "not TPU chips"),
    ("reservation", "a QueuedTpu in another zone than its block", "queued_tpus",
     reserved({**QUEUED_TPU, "provisioning": "reservation_bound"}, "v6e-block"), "zone",
     "reservation's zone us-east5-b"),
    ("reservation", "a QueuedTpu of more chips than its block", "queued_tpus",
     reserved({**QUEUED_TPU, "zone": "us-east5-b", "provisioning": "reservation_bound",
               "node_count": 2}, "v6e-block"), "node_count", "needs 32 chips"),
    ("reservation", "a QueuedTpu's full reservation name in another zone", "queued_tpus",
     {**QUEUED_TPU, "provisioning": "reservation_bound",
      "reservation": "projects/p/locations/us-east5-b/reservations/r"}, "reservation",
     "not the request's zone us-east5-a"),
    ("reservation", "a 64-chip pool on a 16-chip block", "queued_node_pools",
     reserved({**V6E_POOL, "tpu_topology": "8x8", "node_locations": None, "mode": "reserved"},
              "v6e-block"), "tpu_topology", "needs 64 chips; the reservation holds 16"),
    ("reservation", "a GPU pool larger than its block", "queued_node_pools",
     reserved({"cluster": "c", "location": "us-central1", "machine_type": "a3-highgpu-8g",
               "max_nodes": 4, "mode": "reserved"}, "h100-block"), "max_nodes",
     "above the reservation's 2"),
    ("reservation", "a Slurm GPU pool on a TPU block", "slurm_clusters",
     {**SLURM, "login": {"zone": "us-east5-b"},
      "node_pools": [{**SLURM_POOL, "reservation": "v6e-block"}]},
     "node_pools[0].reservation", "not VMs"),
    ("reservation", "a Slurm pool larger than its block", "slurm_clusters",
     {**SLURM, "node_pools": [{**SLURM_POOL, "max_nodes": 3, "reservation": "h100-block"}]},
     "node_pools[0].max_nodes", "above the reservation's 2"),
    # ------------------------------------------------------------ strings that reach an API
    ("strings", "an empty network", "flex_start_vms", {**VM, "network": ""}, "network",
     "is not a network"),
    ("strings", "an empty subnetwork", "flex_start_groups", {**GROUP, "subnetwork": ""},
     "subnetwork", "is not a subnetwork"),
    ("strings", "an empty image", "flex_start_vms", {**VM, "image": ""}, "image",
     "is not an image"),
    ("strings", "a service account that is not an email", "flex_start_groups",
     {**GROUP, "service_account": "trainer"}, "service_account", "service account email"),
    ("strings", "a QueuedTpu service account that is not an email", "queued_tpus",
     {**SPOT_TPU, "service_account": "trainer@"}, "service_account", "service account email"),
    ("strings", "a metadata value that is a number", "flex_start_vms",
     {**VM, "metadata": {"retries": 1}}, "metadata[retries]", "must be a string"),
    ("strings", "a QueuedTpu metadata value that is a number", "queued_tpus",
     {**SPOT_TPU, "metadata": {"n": 1.0}}, "metadata[n]", "must be a string"),
    ("strings", "a project id with spaces", "queued_tpus",
     {**SPOT_TPU, "project": "My Project!"}, "project", "is not a project id"),
    ("strings", "a group's project id with spaces", "flex_start_groups",
     {**GROUP, "project": "My Project!"}, "project", "is not a project id"),
    ("strings", "a QueuedTpu network link of another kind", "queued_tpus",
     {**SPOT_TPU, "network": "projects/p/regions/us-east5/subnetworks/s"}, "network",
     "is not a network"),
    # ------------------------------------------------------------ numbers and booleans
    ("types", "public_ip yes", "flex_start_vms", {**VM, "public_ip": "yes"}, "public_ip",
     "must be true or false"),
    ("types", "a QueuedTpu public_ip yes", "queued_tpus", {**SPOT_TPU, "public_ip": "yes"},
     "public_ip", "must be true or false"),
    ("types", "chip_count as a string", "calendar_reservations",
     {**V6E, "chip_count": "16"}, "chip_count", "must be a whole number"),
    ("types", "count as a string", "flex_start_groups", {**GROUP, "count": "4"}, "count",
     "must be a whole number"),
    ("types", "node_count as a string", "queued_tpus", {**SPOT_TPU, "node_count": "2"},
     "node_count", "must be a whole number"),
    ("types", "auto_delete as a string", "calendar_reservations",
     {**H100, "auto_delete": "false"}, "auto_delete", "must be true or false"),
]  # fmt: skip
IDS = [f"{c[0]}: {c[1]}" for c in CASES]


def _component(key: str) -> Any:
    kind = registry.kind(key)
    assert kind is not None
    return kind.component


def _with_objects(value: Any, blocks: dict[str, Any]) -> Any:
    """Args with each reservation naming a block given the block's component, as a Python
    program gives it."""
    if isinstance(value, dict):
        out = {k: _with_objects(v, blocks) for k, v in value.items() if v is not None}
        if isinstance(out.get("reservation"), str) and out["reservation"] in blocks:
            out["reservation"] = blocks[out["reservation"]]
        return out
    if isinstance(value, list):
        return [_with_objects(v, blocks) for v in value]
    return value


def _entry(args: dict[str, Any]) -> dict[str, Any]:
    return {"name": "consumer", **{k: v for k, v in args.items() if v is not None}}


def _capacity(key: str, args: dict[str, Any]) -> dict[str, Any]:
    blocks = [{"name": name, **block} for name, block in BLOCKS.items()]
    if key == "calendar_reservations":
        return {key: [_entry(args)]}
    return {"calendar_reservations": blocks, key: [_entry(args)]}


def _check(err: DwsValidationError, path: str, value_shown: bool, words: str) -> None:
    assert err.field == path, str(err)
    assert words in str(err), str(err)
    assert value_shown, str(err)


@pytest.mark.parametrize(("category", "case", "key", "args", "field", "words"), CASES, ids=IDS)
def test_the_component_refuses_it(
    category: str, case: str, key: str, args: dict[str, Any], field: str, words: str
) -> None:
    mocks = GcpMocks()

    def program() -> None:
        blocks = {} if key == "calendar_reservations" else {
            name: CalendarReservation(name, block)  # type: ignore[arg-type]
            for name, block in BLOCKS.items()
        }  # fmt: skip
        _component(key)("consumer", _with_objects(args, blocks))

    with pytest.raises(DwsValidationError) as info:
        mocks.run(program)
    assert not [r for r in mocks.registered if r.name.startswith("consumer")]
    _check(info.value, field, info.value.value is not None, words)


@pytest.mark.parametrize(("category", "case", "key", "args", "field", "words"), CASES, ids=IDS)
def test_the_blueprint_refuses_it_before_anything_is_made(
    category: str, case: str, key: str, args: dict[str, Any], field: str, words: str
) -> None:
    mocks = GcpMocks()
    with pytest.raises(DwsValidationError) as info:
        mocks.run(lambda: deploy(_capacity(key, args)))
    assert mocks.registered == []
    _check(info.value, f"dws:capacity.{key}[0].{field}", True, words)


@pytest.fixture(scope="module")
def blueprint_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("blueprint")
    (folder / "Pulumi.yaml").write_text("name: dws-blueprint\nruntime: python\n")
    (folder / "__main__.py").write_text((ROOT / "__main__.py").read_text())
    return folder


@pytest.mark.parametrize(("category", "case", "key", "args", "field", "words"), CASES, ids=IDS)
def test_dws_plan_reports_it_on_one_line(
    category: str,
    case: str,
    key: str,
    args: dict[str, Any],
    field: str,
    words: str,
    blueprint_project: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    config = {"gcp:project": "my-project", "dws:capacity": _capacity(key, args)}
    (blueprint_project / "Pulumi.dev.yaml").write_text(yaml.safe_dump({"config": config}))
    assert main(["plan", str(blueprint_project), "--no-policy"]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"error: invalid configuration: dws:capacity.{key}[0].{field}: "), err
    assert words in err and "\n" not in err and "Traceback" not in err


def test_each_category_has_cases() -> None:
    counts: dict[str, int] = {}
    for category, *_ in CASES:
        counts[category] = counts.get(category, 0) + 1
    assert counts == {"zones": 7, "reservation": 12, "strings": 10, "types": 6}
