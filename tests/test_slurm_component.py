"""``SlurmCluster`` under ``GcpMocks``, and its create body against seed 002's JSON."""

from __future__ import annotations

import copy
import json
import runpy
from pathlib import Path
from typing import Any

import pulumi
import pytest
import yaml
from component_helpers import stack_default
from hypothesis import given, settings
from hypothesis import strategies as st
from slurm_helpers import PROJECT, REGION, ZONE
from slurm_helpers import seed_body as seed_json

from pulumi_dws import DwsValidationError, SlurmCluster, limits
from pulumi_dws.blueprint import deploy_from_config
from pulumi_dws.kinds.slurm.component import SERVICE_AGENT_ROLES, build_cluster_body
from pulumi_dws.testing import GcpMocks
from pulumi_dws.testing.mocks import MOCK_PROJECT_NUMBER

REPO = Path(__file__).resolve().parent.parent
HOME = "home"
DYNAMIC = "pulumi-python:dynamic/dws:SlurmCluster"
IAM = "gcp:projects/iAMMember:IAMMember"
FILESTORE = "gcp:filestore/instance:Instance"
HOME_ID = f"projects/{PROJECT}/locations/{ZONE}/instances/{HOME}"

SEED_ARGS: dict[str, Any] = {
    "project": PROJECT,
    "region": REGION,
    "display_name": "flexvm",
    "network": "default",
    "subnetwork": "default",
    "home_directory_storage": HOME_ID,
    "login": {
        "machine_type": "n2-standard-8",
        "zone": ZONE,
        "count": 1,
        "public_ips": True,
        "boot_disk_type": "pd-standard",
        "boot_disk_size_gb": 120,
    },
    "node_pools": [
        {
            "id": "a3u",
            "machine_type": "a3-ultragpu-8g",
            "accelerator_type": "NVIDIA_H200_141GB",
            "accelerator_count": 8,
            "provisioning_model": "FLEX_START",
            "flex_start_max_duration": "604800s",
            "min_nodes": 0,
            "max_nodes": 2,
            "zone": ZONE,
            "public_ips": True,
            "boot_disk_type": "hyperdisk-balanced",
            "boot_disk_size_gb": 400,
        }
    ],
    "partitions": [{"id": "a3u", "node_pool_ids": ["a3u"]}],
}


def args(**changes: Any) -> dict[str, Any]:
    result = copy.deepcopy(SEED_ARGS)
    result.update(changes)
    return result


def strict(value: Any) -> str:
    """JSON text that tells ``1`` from ``1.0`` and ``"true"`` from ``true``."""
    return json.dumps(value, sort_keys=True)


# ---------------------------------------------------------------------------- the body
def test_body_for_the_seed_example_is_the_seeds_json() -> None:
    body = build_cluster_body(SEED_ARGS)
    assert body == seed_json()
    assert strict(body) == strict(seed_json())


def test_defaults_give_the_same_body() -> None:
    """Accelerator, count, model, max duration, min nodes and login shape all default."""
    login = SEED_ARGS["login"]
    minimal = {
        "project": PROJECT,
        "display_name": "flexvm",
        "home_directory_storage": HOME_ID,
        "login": {
            k: login[k] for k in ("zone", "public_ips", "boot_disk_type", "boot_disk_size_gb")
        },
        "node_pools": [
            {
                "id": "a3u",
                "machine_type": "a3-ultragpu-8g",
                "max_nodes": 2,
                "public_ips": True,
                "boot_disk_type": "hyperdisk-balanced",
                "boot_disk_size_gb": 400,
            }
        ],
    }
    assert strict(build_cluster_body(minimal)) == strict(seed_json())


def test_accelerator_names_and_full_paths_are_normalised() -> None:
    pools = copy.deepcopy(SEED_ARGS["node_pools"])
    pools[0]["accelerator_type"] = "nvidia-h200-141gb"
    body = build_cluster_body(
        args(
            node_pools=pools,
            network=f"https://www.googleapis.com/compute/v1/projects/{PROJECT}/global/networks/default",
            subnetwork=f"projects/{PROJECT}/regions/{REGION}/subnetworks/default",
        )
    )
    assert body == seed_json()


def test_private_pools_and_other_models() -> None:
    pools = copy.deepcopy(SEED_ARGS["node_pools"])
    pools[0].update(public_ips=False, provisioning_model="SPOT")
    del pools[0]["flex_start_max_duration"]
    body = build_cluster_body(args(node_pools=pools, labels={"team": "ml"}))
    gpu = body["node_pools"][1]
    assert gpu["enable_public_ips"] == "false"
    assert gpu["provisioning_model"] == "SPOT" and "flex_start_max_duration" not in gpu
    assert body["labels"] == {"team": "ml"}


@settings(max_examples=60, deadline=None)
@given(seconds=st.integers(min_value=0, max_value=2 * 604800))
def test_flex_start_max_duration_limits(seconds: int) -> None:
    pools = copy.deepcopy(SEED_ARGS["node_pools"])
    pools[0]["flex_start_max_duration"] = seconds
    if 30 <= seconds <= 604800:
        body = build_cluster_body(args(node_pools=pools))
        assert body["node_pools"][1]["flex_start_max_duration"] == f"{seconds}s"
    else:
        with pytest.raises(DwsValidationError) as info:
            build_cluster_body(args(node_pools=pools))
        assert info.value.field == "node_pools[0].flex_start_max_duration"


def test_limits_come_from_the_table() -> None:
    pools = copy.deepcopy(SEED_ARGS["node_pools"])
    pools[0]["flex_start_max_duration"] = "2d"
    with (
        limits.overridden("slurm.flex_start_max_duration", maximum="1d"),
        pytest.raises(DwsValidationError, match="limit of 1d"),
    ):
        build_cluster_body(args(node_pools=pools))
    assert (
        build_cluster_body(args(node_pools=pools))["node_pools"][1]["flex_start_max_duration"]
        == "172800s"
    )


def _second_pool(**fields: Any) -> list[dict[str, Any]]:
    pools = copy.deepcopy(SEED_ARGS["node_pools"])
    pools.append({**pools[0], "id": "a3u2", **fields})
    return pools


INVALID = [
    (
        "node_pools[1].flex_start_max_duration",
        {"node_pools": _second_pool(flex_start_max_duration="8d")},
    ),
    (
        "node_pools[1].flex_start_max_duration",
        {"node_pools": _second_pool(flex_start_max_duration="10s")},
    ),
    ("node_pools[1].min_nodes", {"node_pools": _second_pool(min_nodes=3, max_nodes=2)}),
    ("node_pools[1].max_nodes", {"node_pools": _second_pool(max_nodes=-1)}),
    ("node_pools[1].id", {"node_pools": _second_pool(id="a3u")}),
    ("node_pools[1].id", {"node_pools": _second_pool(id="login")}),
    ("node_pools[1].id", {"node_pools": _second_pool(id="A3U")}),
    ("node_pools[1].zone", {"node_pools": _second_pool(zone="europe-west4-a")}),
    (
        "node_pools[1].accelerator_type",
        {"node_pools": _second_pool(accelerator_type="nvidia-b200")},
    ),
    ("node_pools[1].accelerator_count", {"node_pools": _second_pool(accelerator_count=4)}),
    (
        "node_pools[1].flex_start_max_duration",
        {"node_pools": _second_pool(provisioning_model="ON_DEMAND")},
    ),
    ("node_pools[1].provisioning_model", {"node_pools": _second_pool(provisioning_model="CHEAP")}),
    ("partitions[0].node_pool_ids[0]", {"partitions": [{"id": "a3u", "node_pool_ids": ["nope"]}]}),
    ("partitions[0].node_pool_ids[0]", {"partitions": [{"id": "a3u", "node_pool_ids": ["login"]}]}),
    (
        "partitions[1].id",
        {"partitions": [{"id": "a3u", "node_pool_ids": ["a3u"]}] * 2},
    ),
    ("partitions[0].id", {"partitions": [{"id": "A_3", "node_pool_ids": ["a3u"]}]}),
    ("login.zone", {"login": {"zone": "us-east1-b"}}),
    # With no region given, the login zone's region is the cluster's.
    ("login.zone", {"region": None, "login": {"zone": "us-nowhere9-a"}}),
    ("login.zone", {"region": None, "login": {"zone": "us-central1"}}),
    ("login", {"login": None}),
    ("login.count", {"login": {"zone": ZONE, "count": 0}}),
    ("node_pools", {"node_pools": []}),
    ("display_name", {"display_name": "flex-vm"}),
    ("display_name", {"display_name": "Flexvm"}),
    ("display_name", {"display_name": "1flexvm"}),
    ("display_name", {"display_name": "flexvmslurm"}),  # 11 characters
    ("login.machine_type", {"login": {"zone": ZONE, "machine_type": "n2-standrd-8"}}),
    ("node_pools[1].machine_type", {"node_pools": _second_pool(machine_type="a3-ultragpu-8gg")}),
    ("node_pools[1].machine_type", {"node_pools": _second_pool(machine_type="n2-standrd-8")}),
    ("node_pools[1].reservation", {"node_pools": _second_pool(reservation="h100-week")}),
    (
        "node_pools[1].reservation",
        {
            "node_pools": _second_pool(
                provisioning_model="RESERVATION", flex_start_max_duration=None
            )
        },
    ),
    (
        "node_pools[1].reservation",
        {
            "node_pools": _second_pool(
                provisioning_model="RESERVATION",
                flex_start_max_duration=None,
                reservation=f"projects/{PROJECT}/zones/us-central1-c/reservations/h100-week",
            )
        },
    ),
    (
        "node_pools[1].flex_start_max_duration",
        {"node_pools": _second_pool(reservation="h100-week", provisioning_model=None)},
    ),
    ("cluster_id", {"cluster_id": "waytoolongid"}),
    ("region", {"region": "us-central1-b"}),
    ("home_directory_storage", {"home_directory_storage": "nfs://home"}),
    (
        "home_filestore.zone",
        {"home_directory_storage": None, "home_filestore": {"zone": "europe-west4-a"}},
    ),
    (
        "home_filestore.zone",
        {"home_directory_storage": None, "home_filestore": {"zone": "us-east1"}},
    ),
    ("labels key", {"labels": {"Team": "x"}}),
    ("colour", {"colour": "blue"}),
]


@pytest.mark.parametrize(
    ("field", "changes"), INVALID, ids=[f"{i}-{c[0]}" for i, c in enumerate(INVALID)]
)
def test_validation_names_the_field(field: str, changes: dict[str, Any]) -> None:
    bad = args(**changes)
    if changes.get("login") is None and "login" in changes:
        del bad["login"]
    with pytest.raises(DwsValidationError) as info:
        build_cluster_body(bad)
    assert info.value.field == field
    mocks = GcpMocks(project=PROJECT)
    with pytest.raises(DwsValidationError):
        mocks.run(lambda: SlurmCluster("flexvm", bad))
    assert mocks.registered == []  # nothing registered: validation runs at construction


def _cpu_pool(**fields: Any) -> dict[str, Any]:
    return {"id": "cpu", "machine_type": "n2-standard-8", "max_nodes": 4, "zone": ZONE, **fields}


def test_a_cpu_only_pool_is_on_demand_and_a_gpu_pool_flex_start() -> None:
    """Flex-start only where there are GPUs: a CPU-only compute pool defaults to ON_DEMAND (the
    API's own default for CPU pools), with no flex_start_max_duration."""
    pools = [*copy.deepcopy(SEED_ARGS["node_pools"]), _cpu_pool()]
    pools[0].pop("provisioning_model")
    pools[0].pop("flex_start_max_duration")
    body = build_cluster_body(args(node_pools=pools))
    gpu, cpu = body["node_pools"][1:]
    assert gpu["provisioning_model"] == "FLEX_START"
    assert gpu["flex_start_max_duration"] == "604800s"
    assert cpu["provisioning_model"] == "ON_DEMAND"
    assert cpu["machine_spec"] == {"machine_type": "n2-standard-8"}
    assert "flex_start_max_duration" not in cpu
    # An explicit choice is kept, and a CPU pool may still ask for Spot.
    pools[1]["provisioning_model"] = "SPOT"
    assert build_cluster_body(args(node_pools=pools))["node_pools"][2]["provisioning_model"] == (
        "SPOT"
    )


@pytest.mark.parametrize(
    ("reservation", "path"),
    [
        ("h100-week", f"projects/{PROJECT}/zones/{ZONE}/reservations/h100-week"),
        (
            "projects/owner/reservations/h100-week",
            f"projects/owner/zones/{ZONE}/reservations/h100-week",
        ),
        (
            f"projects/{PROJECT}/zones/{ZONE}/reservations/r/reservationBlocks/b1",
            f"projects/{PROJECT}/zones/{ZONE}/reservations/r/reservationBlocks/b1",
        ),
    ],
)
def test_a_reservation_pool_names_its_reservation(reservation: str, path: str) -> None:
    pool = {**SEED_ARGS["node_pools"][0], "reservation": reservation}
    del pool["provisioning_model"], pool["flex_start_max_duration"]
    body = build_cluster_body(args(node_pools=[pool]))
    compute = body["node_pools"][1]
    assert compute["provisioning_model"] == "RESERVATION"
    assert compute["machine_spec"]["reservation_affinity"] == {
        "reservation_affinity_type": "SPECIFIC_RESERVATION",
        "key": "compute.googleapis.com/reservation-name",
        "values": [path],
    }
    assert "flex_start_max_duration" not in compute


def test_a_reservation_pool_consumes_a_calendar_reservation() -> None:
    from pulumi_dws import CalendarReservation

    mocks = GcpMocks(project=PROJECT)

    def program() -> None:
        block = CalendarReservation(
            "h100-block",
            {
                "project": PROJECT,
                "zone": ZONE,
                "machine_type": "a3-ultragpu-8g",
                "count": 2,
                "start_time": "+4w",
                "duration": "7d",
            },
        )
        pool = {**SEED_ARGS["node_pools"][0], "reservation": block}
        del pool["provisioning_model"], pool["flex_start_max_duration"]
        SlurmCluster("flexvm", args(node_pools=[pool]))

    mocks.run(program)
    body = mocks.one(DYNAMIC).inputs["body"]
    compute = body["node_pools"][1]
    assert compute["provisioning_model"] == "RESERVATION"
    assert compute["machine_spec"]["reservation_affinity"]["values"] == [
        f"projects/{PROJECT}/zones/{ZONE}/reservations/h100-block"
    ]
    # The emulator (Google's rules for the API) accepts the body as it is.
    from slurm_helpers import aiplatform_emulator

    with aiplatform_emulator() as emu:
        response = requests_post(emu.url, body)
    assert response.status_code == 200, response.text


def requests_post(url: str, body: dict[str, Any]) -> Any:
    import requests

    parent = f"v1beta1/projects/{PROJECT}/locations/{REGION}/modelDevelopmentClusters"
    return requests.post(
        f"{url}{parent}", params={"model_development_cluster_id": "flexvm"}, json=body, timeout=10
    )


@pytest.mark.parametrize(
    ("over", "field"),
    [
        ({"zone": "us-central1-c"}, "node_pools[0].zone"),
        ({"machine_type": "a4-highgpu-8g"}, "node_pools[0].machine_type"),
    ],
)
def test_a_calendar_reservation_must_match_the_pool(over: dict[str, Any], field: str) -> None:
    from pulumi_dws import CalendarReservation

    def program() -> None:
        block = CalendarReservation(
            "h100-block",
            {
                "zone": ZONE,
                "machine_type": "a3-ultragpu-8g",
                "count": 2,
                "start_time": "+4w",
                "duration": "7d",
            },
        )
        pool = {**SEED_ARGS["node_pools"][0], "reservation": block, **over}
        for key in (
            "provisioning_model",
            "flex_start_max_duration",
            "accelerator_type",
            "accelerator_count",
        ):
            pool.pop(key)
        SlurmCluster("flexvm", args(node_pools=[pool]))

    with pytest.raises(DwsValidationError) as info:
        GcpMocks(project=PROJECT).run(program)
    assert info.value.field == field


def test_display_name_follows_the_create_cluster_docs() -> None:
    row = limits.get("slurm.display_name_length")
    assert (row.minimum, row.maximum) == (1, 10) and "create-cluster" in row.source
    build_cluster_body(args(display_name="a3u2026"))
    # With a longer display name allowed by an override, the cluster id (which defaults to the
    # display name) still has its own rule.
    with (
        limits.overridden("slurm.display_name_length", maximum=20),
        pytest.raises(DwsValidationError) as info,
    ):
        build_cluster_body(args(display_name="flexvmcluster"))
    assert info.value.field == "cluster_id (defaults to display_name)"


def test_flex_start_error_message() -> None:
    with pytest.raises(DwsValidationError) as info:
        build_cluster_body(args(node_pools=_second_pool(flex_start_max_duration="8d")))
    assert str(info.value) == (
        "node_pools[1].flex_start_max_duration: 8d is above the Slurm Flex-start max duration "
        "limit of 7d (604800s); allowed: 30s to 7d (604800s)"
    )


# ---------------------------------------------------------------------------- the component
def run(component_args: dict[str, Any], **install: Any) -> tuple[GcpMocks, dict[str, Any]]:
    mocks = GcpMocks(project=PROJECT)

    def program() -> Any:
        cluster = SlurmCluster("flexvm", component_args)
        return pulumi.Output.all(
            id=cluster.id,
            name=cluster.name,
            state=cluster.state,
            login=cluster.login_address,
            partitions=cluster.partitions,
            home=cluster.home_directory_storage,
            body=cluster.body,
        )

    return mocks, mocks.run(program, **install)


def test_the_default_cluster_id_is_the_display_name_and_the_stack() -> None:
    """Two stacks of one program never name their clusters alike: the default id is the
    display name (at most 6 characters of it) and 4 hex digits of the stack (10 in all, no
    hyphen: the API allows none); an existing cluster keeps the id it has (ignore_changes)."""
    mocks, _ = run(SEED_ARGS)
    cluster = mocks.one(DYNAMIC, "flexvm-cluster")
    assert cluster.inputs["cluster_id"] == stack_default("flexvm", length=4, separator="")
    assert cluster.ignore_changes == ["cluster_id"]
    given, _ = run({**SEED_ARGS, "cluster_id": "flexvm"})
    assert given.one(DYNAMIC, "flexvm-cluster").ignore_changes == []


def test_component_registers_cluster_with_the_seed_body() -> None:
    mocks, out = run({**SEED_ARGS, "cluster_id": "flexvm"})  # the seed names its cluster
    cluster = mocks.one(DYNAMIC, "flexvm-cluster")
    assert cluster.parent_type == "dws:index:SlurmCluster"
    assert cluster.inputs["body"] == seed_json()
    assert {k: cluster.inputs[k] for k in ("project", "region", "cluster_id")} == {
        "project": PROJECT,
        "region": REGION,
        "cluster_id": "flexvm",
    }
    assert out["id"] == f"projects/{PROJECT}/locations/{REGION}/modelDevelopmentClusters/flexvm"
    assert out["name"].endswith("/modelDevelopmentClusters/flexvm")
    assert out["state"] == "RUNNING"
    assert out["login"] == f"flexvm-login-0.{ZONE}.c.{PROJECT}.internal"
    assert out["partitions"] == [{"id": "a3u", "node_pool_ids": ["a3u"]}]
    assert out["home"] == HOME_ID
    assert mocks.resources(FILESTORE) == []  # an existing /home was given
    assert mocks.one("dws:index:SlurmCluster").parent_type == "pulumi:pulumi:Stack"


def test_iam_grants_least_privilege_before_the_cluster() -> None:
    mocks, _ = run(SEED_ARGS)
    members = mocks.resources(IAM)
    agent = f"serviceAccount:{MOCK_PROJECT_NUMBER}@cloudservices.gserviceaccount.com"
    assert sorted((m.name, m.inputs["role"]) for m in members) == [
        ("flexvm-agent-instance-admin", "roles/compute.instanceAdmin.v1"),
        ("flexvm-agent-sa-user", "roles/iam.serviceAccountUser"),
    ]
    assert set(SERVICE_AGENT_ROLES.values()) == {m.inputs["role"] for m in members}
    for member in members:
        assert member.inputs["member"] == agent
        assert member.inputs["project"] == PROJECT
        assert member.parent_type == "dws:index:SlurmCluster"
        assert "roles/editor" not in member.inputs["role"]
    cluster = mocks.one(DYNAMIC)
    assert {m.urn for m in members} <= set(cluster.dependencies)
    order = [r.type for r in mocks.registered]
    assert max(i for i, t in enumerate(order) if t == IAM) < order.index(DYNAMIC)
    assert any(token == "gcp:organizations/getProject:getProject" for token, _ in mocks.invokes)


def test_grants_are_kept_when_the_cluster_goes(monkeypatch: pytest.MonkeyPatch) -> None:
    """Deleting an IAMMember removes the (role, member) binding, which another cluster of the
    project, or a grant made before, still needs: the grants are retained on delete."""
    import pulumi_gcp as gcp

    retained: list[bool | None] = []
    real = gcp.projects.IAMMember

    class Spy(real):  # type: ignore[misc, valid-type]
        def __init__(self, name: str, *a: Any, opts: Any = None, **kw: Any) -> None:
            retained.append(opts.retain_on_delete if opts else None)
            super().__init__(name, *a, opts=opts, **kw)

    monkeypatch.setattr(gcp.projects, "IAMMember", Spy)
    mocks, _ = run(SEED_ARGS)
    assert len(mocks.resources(IAM)) == 2
    assert retained == [True, True]


def test_grants_can_be_turned_off() -> None:
    mocks, _ = run(args(grant_service_agent_roles=False))
    assert mocks.resources(IAM) == []
    assert mocks.one(DYNAMIC).dependencies == []
    assert not any("getProject" in token for token, _ in mocks.invokes)


def test_filestore_is_created_when_home_is_omitted() -> None:
    no_home = args()
    del no_home["home_directory_storage"]
    mocks, out = run({**no_home, "home_filestore": {"capacity_gb": 2048}})
    home = mocks.one(FILESTORE, "flexvm-home")
    assert home.parent_type == "dws:index:SlurmCluster"
    assert home.inputs["location"] == ZONE
    assert home.inputs["tier"] == "BASIC_HDD"
    assert home.inputs["fileShares"] == {"name": "home", "capacityGb": 2048}
    assert home.inputs["networks"][0]["network"] == "default"
    assert home.inputs["networks"][0]["connectMode"] == "DIRECT_PEERING"
    cluster = mocks.one(DYNAMIC)
    assert home.urn in cluster.dependencies
    assert cluster.inputs["body"] == seed_json(home=home.id.rsplit("/", 1)[-1])
    assert out["home"] == home.id


def test_regional_filestore_for_home() -> None:
    no_home = args()
    del no_home["home_directory_storage"]
    mocks, _ = run({**no_home, "home_filestore": {"zone": REGION, "tier": "REGIONAL"}})
    home = mocks.one(FILESTORE, "flexvm-home")
    assert home.inputs["location"] == REGION and home.inputs["tier"] == "REGIONAL"


def test_project_from_gcp_config_and_default_region() -> None:
    no_project = args()
    del no_project["project"], no_project["region"]
    mocks, out = run(no_project, config={"gcp:project": "cfg-project"})
    body = mocks.one(DYNAMIC).inputs["body"]
    assert body["network"]["network"] == "projects/cfg-project/global/networks/default"
    assert mocks.one(DYNAMIC).inputs["region"] == REGION
    assert out["id"].startswith("projects/cfg-project/locations/us-central1/")


def test_project_without_config_is_the_providers_own_as_for_every_component() -> None:
    """Like FlexStartInstance: no project and no gcp:project config read the Google provider's
    project (getClientConfig), where the cluster used to refuse."""
    no_project = args()
    del no_project["project"]
    mocks, out = run(no_project, config={"gcp:project": ""})
    assert [t for t, _ in mocks.invokes if t.endswith("getClientConfig")]
    assert mocks.one(DYNAMIC).inputs["project"] == PROJECT
    assert out["id"].startswith(f"projects/{PROJECT}/locations/")


def test_network_output_from_another_resource() -> None:
    import pulumi_gcp as gcp

    mocks = GcpMocks(project=PROJECT)

    def program() -> None:
        net = gcp.compute.Network("net", name="slurm-net", auto_create_subnetworks=False)
        sub = gcp.compute.Subnetwork(
            "sub", name="slurm-sub", network=net.id, region=REGION, ip_cidr_range="10.0.0.0/24"
        )
        SlurmCluster("flexvm", args(network=net.id, subnetwork=sub.id))

    mocks.run(program)
    network = mocks.one(DYNAMIC).inputs["body"]["network"]
    assert network == {
        "network": f"projects/{PROJECT}/global/networks/slurm-net",
        "subnetwork": f"projects/{PROJECT}/regions/{REGION}/subnetworks/slurm-sub",
    }


def test_protect_and_timeouts_reach_the_cluster() -> None:
    mocks, _ = run(args(protect=True))
    assert mocks.one(DYNAMIC).protect is True


# ---------------------------------------------------------------------------- stack, blueprint
def _stack_config(path: Path) -> dict[str, Any]:
    return yaml.safe_load(path.read_text())["config"]


def test_slurm_flex_stack_reproduces_the_seed() -> None:
    stack = REPO / "stacks" / "slurm-flex"
    project_file = yaml.safe_load((stack / "Pulumi.yaml").read_text())
    assert project_file["runtime"] == {
        "name": "python",
        "options": {"toolchain": "pip", "virtualenv": "../../.venv"},
    }
    config = _stack_config(stack / "Pulumi.dev.yaml")
    mocks = GcpMocks(project="my-ml-project")
    exports = mocks.run_program(
        lambda: runpy.run_path(str(stack / "__main__.py")), project="slurm-flex", config=config
    )
    home = mocks.one(FILESTORE)
    body = mocks.one(DYNAMIC).inputs["body"]
    assert body == seed_json(home=home.id.rsplit("/", 1)[-1], project="my-ml-project")
    assert len(mocks.resources(IAM)) == 2
    assert exports["state"] == "RUNNING"
    assert exports["partitions"] == [{"id": "a3u", "node_pool_ids": ["a3u"]}]


def test_blueprint_kind() -> None:
    config = _stack_config(REPO / "Pulumi.dev.yaml")
    mocks = GcpMocks(project="my-ml-project")
    built = mocks.run(lambda: sorted(deploy_from_config()), config=config)
    assert "slurm_clusters/flexvm" in built
    body = mocks.one(DYNAMIC).inputs["body"]
    assert body["node_pools"][1]["flex_start_max_duration"] == "604800s"
    assert body["node_pools"][1]["machine_spec"]["accelerator_type"] == "NVIDIA_H200_141GB"


def test_blueprint_validates_slurm_entries_with_their_path() -> None:
    config = {
        "gcp:project": "p",
        "dws:capacity": {
            "slurm_clusters": [
                {
                    "name": "bad",
                    "display_name": "bad",
                    "login": {"zone": ZONE},
                    "node_pools": [
                        {"id": "a", "machine_type": "a3-ultragpu-8g", "max_nodes": 1},
                        {
                            "id": "b",
                            "machine_type": "a3-ultragpu-8g",
                            "max_nodes": 1,
                            "flex_start_max_duration": "8d",
                        },
                    ],
                }
            ]
        },
    }
    mocks = GcpMocks(project="p")
    with pytest.raises(DwsValidationError) as info:
        mocks.run(deploy_from_config, config=config)
    assert info.value.field == (
        "dws:capacity.slurm_clusters[0].node_pools[1].flex_start_max_duration"
    )


def test_dws_plan_of_the_stack_passes(capsys: pytest.CaptureFixture[str]) -> None:
    """The seed's public GPU IPs are an exception the stack records in ``dws:policy``."""
    from pulumi_dws.cli import main

    assert main(["plan", str(REPO / "stacks" / "slurm-flex")]) == 0
    out = capsys.readouterr().out
    assert "pulumi-python:dynamic/dws:SlurmCluster flexvm-cluster" in out
    assert "[mandatory]" not in out
