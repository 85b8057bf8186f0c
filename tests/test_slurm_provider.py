"""The Slurm cluster dynamic provider, in process, over real HTTP against the emulator.

Every wait advances the emulator's virtual clock (``DWS_VIRTUAL_CLOCK_URL``): a 15-minute
provisioning takes no wall time.
"""

from __future__ import annotations

import copy
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import dill
import pytest
from pulumi.dynamic import ConfigureRequest
from pulumi.dynamic.config import Config
from pulumi.output import Unknown

from pulumi_dws.providers.slurm import SlurmClusterError, SlurmClusterProvider
from pulumi_dws.providers.slurm_diff import (
    canonical,
    differences,
    plan_change,
    project_live,
)
from pulumi_dws.testing.dynamic_host import serialized_provider_size
from pulumi_dws.testing.emulator import Emulator, FaultPlan
from pulumi_dws.testing.emulator.aiplatform import AiPlatformService, LroFailure

FIXTURE = Path(__file__).parent / "fixtures" / "cluster_config.json"
PROJECT, REGION, ZONE = "my-project", "us-central1", "us-central1-b"
ID = f"projects/{PROJECT}/locations/{REGION}/modelDevelopmentClusters/flexvm"


def seed_body() -> dict[str, Any]:
    text = (
        FIXTURE.read_text()
        .replace("<project-id>", PROJECT)
        .replace("<region>", REGION)
        .replace("<zone>", ZONE)
        .replace("<filestore-id>", "home")
    )
    return json.loads(text)


def props(body: dict[str, Any] | None = None, **extra: Any) -> dict[str, Any]:
    return {
        "project": PROJECT,
        "region": REGION,
        "cluster_id": "flexvm",
        "body": body or seed_body(),
        **extra,
    }


@pytest.fixture(scope="module")
def shared() -> Iterator[Emulator]:
    with Emulator([]) as emulator:
        emulator.add(AiPlatformService(emulator.clock))
        yield emulator


@pytest.fixture
def emu(shared: Emulator, monkeypatch: pytest.MonkeyPatch) -> Emulator:
    shared["aiplatform"].reset()
    shared.faults = FaultPlan()
    shared.requests.clear()
    monkeypatch.setenv("DWS_AIPLATFORM_ENDPOINT", shared.url)
    monkeypatch.setenv("DWS_VIRTUAL_CLOCK_URL", shared.clock_url)
    return shared


@pytest.fixture
def svc(emu: Emulator) -> AiPlatformService:
    return emu["aiplatform"]


def posts(emu: Emulator) -> list[Any]:
    return [r for r in emu.requests if r.method == "POST" and r.path.endswith("Clusters")]


# ---------------------------------------------------------------------------- create
def test_create_sends_the_seed_body_and_waits_for_running(emu: Emulator) -> None:
    start, wall = emu.clock.now(), time.monotonic()
    result = SlurmClusterProvider().create(props())
    assert result.id == ID
    outs = result.outs or {}
    assert outs["state"] == "RUNNING"
    assert outs["login_nodes"] == ["flexvm-login-0"]
    assert outs["login_address"] == f"flexvm-login-0.{ZONE}.c.{PROJECT}.internal"
    assert outs["partitions"] == [{"id": "a3u", "node_pool_ids": ["a3u"]}]
    assert outs["name"].endswith("/modelDevelopmentClusters/flexvm")
    assert outs["body"] == seed_body()
    [request] = posts(emu)
    assert (
        request.path == f"/v1beta1/projects/{PROJECT}/locations/{REGION}/modelDevelopmentClusters"
    )
    assert request.query == {"model_development_cluster_id": "flexvm"}
    assert request.body == seed_body()
    assert json.dumps(request.body, sort_keys=True) == json.dumps(seed_body(), sort_keys=True)
    assert (emu.clock.now() - start).total_seconds() >= 900  # provisioning took virtual time
    assert time.monotonic() - wall < 10


def test_create_sends_ints_even_when_numbers_arrive_as_floats(emu: Emulator) -> None:
    body = seed_body()
    body["node_pools"][1]["scaling_spec"] = {"min_node_count": 0.0, "max_node_count": 2.0}
    SlurmClusterProvider().create(props(body))
    sent = posts(emu)[0].body["node_pools"][1]["scaling_spec"]
    assert sent == {"min_node_count": 0, "max_node_count": 2}
    assert all(type(v) is int for v in sent.values())


def test_lro_failure_is_reported_and_nothing_is_left(emu: Emulator, svc: AiPlatformService) -> None:
    svc.fail_next("create")
    with pytest.raises(SlurmClusterError) as info:
        SlurmClusterProvider().create(props())
    message = str(info.value)
    assert "8 RESOURCE_EXHAUSTED" in message and "ZONE_RESOURCE_POOL_EXHAUSTED" in message
    assert "deleted, so nothing is left behind" in message
    assert svc.cluster(PROJECT, REGION, "flexvm") is None
    assert any(r.method == "DELETE" for r in emu.requests)


def test_lro_failure_that_removed_the_cluster_itself(emu: Emulator, svc: AiPlatformService) -> None:
    svc.fail_next("create", LroFailure(code=13, message="backend error", keep_cluster=False))
    with pytest.raises(SlurmClusterError, match="13 INTERNAL: backend error. Nothing was left"):
        SlurmClusterProvider().create(props())


def test_timeout_reports_the_true_state_and_the_next_create_adopts(
    emu: Emulator, svc: AiPlatformService
) -> None:
    with pytest.raises(SlurmClusterError) as info:
        SlurmClusterProvider(timeout=60).create(props())
    assert "exists in state PROVISIONING" in str(info.value)
    assert "pulumi up" in str(info.value)
    result = SlurmClusterProvider().create(props())  # the retried `pulumi up`
    assert result.id == ID and (result.outs or {})["state"] == "RUNNING"
    assert len(posts(emu)) == 2 and len(svc.clusters) == 1


def test_create_adopts_a_matching_cluster(emu: Emulator, svc: AiPlatformService) -> None:
    SlurmClusterProvider().create(props())
    result = SlurmClusterProvider().create(props())  # a retry whose first answer was lost
    assert result.id == ID and (result.outs or {})["state"] == "RUNNING"
    assert len(svc.clusters) == 1


def test_create_refuses_to_adopt_a_different_cluster(emu: Emulator) -> None:
    SlurmClusterProvider().create(props())
    body = seed_body()
    body["node_pools"][1]["scaling_spec"]["max_node_count"] = 3
    with pytest.raises(SlurmClusterError, match=r"differs .* node_pools\[1\].scaling_spec"):
        SlurmClusterProvider().create(props(body))


def test_create_retries_429_503_and_dropped_connections(emu: Emulator) -> None:
    emu.faults = FaultPlan(queue=["503", "drop", "429"], retry_after=30)
    result = SlurmClusterProvider().create(props())
    assert (result.outs or {})["state"] == "RUNNING"
    assert emu.faults.counts == {"503": 1, "drop": 1, "429": 1}
    assert len(posts(emu)) == 1  # faults are injected before the service sees the request


def test_invalid_body_is_refused_with_googles_message(emu: Emulator) -> None:
    body = seed_body()
    body["node_pools"][1]["flex_start_max_duration"] = "700000s"
    with pytest.raises(SlurmClusterError, match="refused: HTTP 400.*604800s"):
        SlurmClusterProvider().create(props(body))


# ---------------------------------------------------------------------------- read
def test_read_without_drift_ignores_server_defaults(emu: Emulator) -> None:
    provider = SlurmClusterProvider()
    created = provider.create(props())
    result = provider.read(ID, dict(created.outs or {}))
    outs = result.outs or {}
    assert result.id == ID
    assert outs["drift"] == []
    assert outs["body"] == seed_body()  # "true" stays "true"; ON_DEMAND etc. not added


def test_read_reports_drift_and_update_repairs_it(emu: Emulator, svc: AiPlatformService) -> None:
    provider = SlurmClusterProvider()
    state = dict(provider.create(props()).outs or {})

    def scale_up(cluster: dict[str, Any]) -> None:
        cluster["nodePools"][1]["scalingSpec"]["maxNodeCount"] = 5

    svc.mutate(PROJECT, REGION, "flexvm", scale_up)
    refreshed = dict(provider.read(ID, state).outs or {})
    assert refreshed["drift"] == ["node_pools[1].scaling_spec.max_node_count"]
    assert refreshed["body"]["node_pools"][1]["scaling_spec"]["max_node_count"] == 5
    diff = provider.diff(ID, refreshed, props())
    assert diff.changes is True and diff.replaces == []
    outs = provider.update(ID, refreshed, props()).outs or {}
    [request] = [r for r in emu.requests if r.method == "PATCH"]
    assert request.query == {"updateMask": "node_pools"}
    assert request.body == seed_body()
    assert outs["state"] == "RUNNING"
    live = svc.cluster(PROJECT, REGION, "flexvm")
    assert live is not None and live["nodePools"][1]["scalingSpec"]["maxNodeCount"] == 2


def test_read_of_a_cluster_deleted_outside_pulumi(emu: Emulator, svc: AiPlatformService) -> None:
    provider = SlurmClusterProvider()
    state = dict(provider.create(props()).outs or {})
    svc.remove(PROJECT, REGION, "flexvm")
    result = provider.read(ID, state)
    assert not result.id and result.outs == {}


def test_read_for_import_takes_the_cluster_as_it_is(emu: Emulator) -> None:
    SlurmClusterProvider().create(props())
    outs = SlurmClusterProvider().read(ID, {}).outs or {}
    assert outs["project"] == PROJECT and outs["cluster_id"] == "flexvm"
    assert outs["body"]["node_pools"][1]["provisioning_model"] == "FLEX_START"
    assert outs["drift"] == []


# ---------------------------------------------------------------------------- update
def test_update_in_place_patches_with_a_mask(emu: Emulator, svc: AiPlatformService) -> None:
    provider = SlurmClusterProvider()
    state = dict(provider.create(props()).outs or {})
    body = seed_body()
    body["node_pools"][1]["scaling_spec"]["max_node_count"] = 4
    body["orchestrator_spec"]["slurm_spec"]["partitions"][0]["id"] = "gpu"
    diff = provider.diff(ID, state, props(body))
    assert diff.changes is True and diff.replaces == []
    outs = provider.update(ID, state, props(body)).outs or {}
    [request] = [r for r in emu.requests if r.method == "PATCH"]
    assert request.query == {"updateMask": "node_pools,orchestrator_spec.slurm_spec.partitions"}
    assert outs["partitions"] == [{"id": "gpu", "node_pool_ids": ["a3u"]}]
    live = svc.cluster(PROJECT, REGION, "flexvm")
    assert live is not None and live["nodePools"][1]["scalingSpec"]["maxNodeCount"] == 4


def test_update_failure_keeps_the_old_settings(emu: Emulator, svc: AiPlatformService) -> None:
    provider = SlurmClusterProvider()
    state = dict(provider.create(props()).outs or {})
    svc.fail_next("update", LroFailure(code=9, message="quota"))
    body = seed_body()
    body["display_name"] = "renamed"
    with pytest.raises(SlurmClusterError, match="display_name.*9 FAILED_PRECONDITION: quota"):
        provider.update(ID, state, props(body))
    live = svc.cluster(PROJECT, REGION, "flexvm")
    assert live is not None and live["displayName"] == "flexvm"


# ---------------------------------------------------------------------------- delete
def test_delete_waits_and_tolerates_404(emu: Emulator, svc: AiPlatformService) -> None:
    provider = SlurmClusterProvider()
    state = dict(provider.create(props()).outs or {})
    provider.delete(ID, state)
    assert svc.cluster(PROJECT, REGION, "flexvm") is None
    provider.delete(ID, state)  # already gone: fine


def test_delete_while_another_delete_runs_waits_for_it(
    emu: Emulator, svc: AiPlatformService
) -> None:
    import requests

    provider = SlurmClusterProvider()
    state = dict(provider.create(props()).outs or {})
    requests.delete(emu.url + "v1beta1/" + ID, timeout=10)
    provider.delete(ID, state)
    assert svc.cluster(PROJECT, REGION, "flexvm") is None


def test_delete_failure_is_raised(emu: Emulator, svc: AiPlatformService) -> None:
    provider = SlurmClusterProvider()
    state = dict(provider.create(props()).outs or {})
    svc.fail_next("delete", LroFailure(code=13, message="stuck"))
    with pytest.raises(SlurmClusterError, match="delete of cluster .* 13 INTERNAL: stuck"):
        provider.delete(ID, state)


# ---------------------------------------------------------------------------- config, pickle
def test_stack_config_endpoint_via_configure(
    emu: Emulator, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("DWS_AIPLATFORM_ENDPOINT")
    provider = SlurmClusterProvider()
    provider.configure(
        ConfigureRequest(Config({"dws:aiplatformEndpoint": emu.url}, project_name="slurm-flex"))
    )
    assert provider.endpoint == emu.url
    assert SlurmClusterProvider().endpoint is None
    assert provider.create(props()).id == ID


def test_provider_pickles_small_and_without_credentials(emu: Emulator) -> None:
    provider = SlurmClusterProvider()
    provider.create(props())
    assert vars(provider) == {"timeout": 7200.0, "endpoint": None}
    blob = dill.dumps(provider)
    assert len(blob) < 1000
    assert serialized_provider_size(provider) < 1500
    for word in (b"token", b"Bearer", b"credentials", b"requests"):
        assert word not in blob


# ---------------------------------------------------------------------------- diff (pure)
def state_of(body: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {**props(body, **extra), "state": "RUNNING", "name": "x"}


def _set(path: str, value: Any) -> Any:
    def change(body: dict[str, Any]) -> None:
        *parents, last = path.split(".")
        node: Any = body
        for part in parents:
            node = node[int(part)] if part.isdigit() else node[part]
        node[last] = value

    return change


DIFFS = [
    ("network", _set("network.network", "projects/p/global/networks/x"), ["body.network"], []),
    (
        "home",
        _set(
            "orchestrator_spec.slurm_spec.home_directory_storage",
            "projects/p/locations/z/instances/y",
        ),
        ["body.orchestrator_spec.slurm_spec.home_directory_storage"],
        [],
    ),
    (
        "machine",
        _set("node_pools.1.machine_spec.machine_type", "a3-megagpu-8g"),
        ["body.node_pools[1].machine_spec"],
        ["node_pools"],
    ),
    (
        "model",
        _set("node_pools.1.provisioning_model", "SPOT"),
        ["body.node_pools[1].provisioning_model"],
        ["node_pools"],
    ),
    ("max", _set("node_pools.1.scaling_spec.max_node_count", 4), [], ["node_pools"]),
    ("flex", _set("node_pools.1.flex_start_max_duration", "3600s"), [], ["node_pools"]),
    ("ips", _set("node_pools.1.enable_public_ips", "false"), [], ["node_pools"]),
    ("disk", _set("node_pools.1.boot_disk.boot_disk_size_gb", 500), [], ["node_pools"]),
    ("display", _set("display_name", "other"), [], ["display_name"]),
    ("labels", _set("labels", {"team": "ml"}), [], ["labels"]),
    (
        "partitions",
        _set("orchestrator_spec.slurm_spec.partitions", [{"id": "p", "node_pool_ids": ["a3u"]}]),
        [],
        ["orchestrator_spec.slurm_spec.partitions"],
    ),
    (
        "login id",
        _set("orchestrator_spec.slurm_spec.login_node_pool_id", "login2"),
        [],
        ["orchestrator_spec.slurm_spec.login_node_pool_id"],
    ),
    ("name placeholder", _set("name", "projects/p/locations/r/modelDevelopmentClusters/"), [], []),
    ("new field", _set("runtime_spec", {"service_account": "sa@p.iam"}), ["body.runtime_spec"], []),
]


@pytest.mark.parametrize(
    ("change", "replaces", "mask"), [d[1:] for d in DIFFS], ids=[d[0] for d in DIFFS]
)
def test_diff_table(change: Any, replaces: list[str], mask: list[str]) -> None:
    body = seed_body()
    change(body)
    assert plan_change(state_of(seed_body()), props(body)) == (replaces, mask)
    diff = SlurmClusterProvider().diff(ID, state_of(seed_body()), props(body))
    assert diff.changes is bool(replaces or mask)
    assert diff.replaces == replaces
    assert diff.delete_before_replace is (True if replaces else None)


@pytest.mark.parametrize("key", ["project", "region", "cluster_id"])
def test_identity_changes_replace(key: str) -> None:
    new = props(**{key: "other"})
    diff = SlurmClusterProvider().diff(ID, state_of(seed_body()), new)
    assert diff.replaces == [key] and diff.delete_before_replace is True


def test_adding_and_removing_pools_is_in_place() -> None:
    body = seed_body()
    extra = copy.deepcopy(body["node_pools"][1])
    extra["id"] = "a3u2"
    body["node_pools"].append(extra)
    assert plan_change(state_of(seed_body()), props(body)) == ([], ["node_pools"])
    assert plan_change(state_of(body), props(seed_body())) == ([], ["node_pools"])


def test_wire_forms_are_not_changes() -> None:
    """Numbers come back as floats through gRPC, booleans as bools from Google."""
    body = seed_body()
    body["node_pools"][1]["scaling_spec"] = {"min_node_count": 0.0, "max_node_count": 2.0}
    body["node_pools"][1]["enable_public_ips"] = True
    diff = SlurmClusterProvider().diff(ID, state_of(body), props())
    assert diff.changes is False and diff.replaces == []


def test_unknown_values_during_preview() -> None:
    unknown_body = SlurmClusterProvider().diff(ID, state_of(seed_body()), props(Unknown()))
    assert unknown_body.changes is True and unknown_body.replaces == []
    body = seed_body()
    body["orchestrator_spec"]["slurm_spec"]["home_directory_storage"] = Unknown()
    diff = SlurmClusterProvider().diff(ID, state_of(seed_body()), props(body))
    assert diff.replaces == ["body.orchestrator_spec.slurm_spec.home_directory_storage"]


def test_projection_and_differences() -> None:
    declared = {"a": "true", "pools": [{"id": "x", "n": 1}], "name": "placeholder/"}
    live = {"a": True, "pools": [{"id": "y", "n": 3}, {"id": "x", "n": 2, "extra": 1}], "b": 2}
    seen = project_live(declared, live)
    assert seen == {
        "a": "true",
        "pools": [{"id": "y", "n": 3}, {"id": "x", "n": 2}],
        "name": "placeholder/",
    }
    assert differences(canonical(declared), canonical(seen)) == ["pools"]
    assert differences({"a": {"b": 1}}, {"a": {"b": 2}}) == ["a.b"]
    assert canonical({"nodePools": [{"enablePublicIps": "true", "labels": {"myKey": "v"}}]}) == {
        "node_pools": [{"enable_public_ips": True, "labels": {"myKey": "v"}}]
    }
