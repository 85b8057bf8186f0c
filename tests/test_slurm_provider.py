"""The Slurm cluster dynamic provider, in process, over real HTTP against the emulator.

Every wait advances the emulator's virtual clock (``DWS_VIRTUAL_CLOCK_URL``): a 15-minute
provisioning takes no wall time.
"""

from __future__ import annotations

import copy
import json
import time
from collections.abc import Iterator
from typing import Any

import dill
import pytest
import requests
from pulumi.dynamic import ConfigureRequest
from pulumi.dynamic.config import Config
from pulumi.output import Unknown
from slurm_helpers import ID, PROJECT, REGION, ZONE, aiplatform_emulator, fresh, seed_body
from slurm_helpers import cluster_inputs as props

from pulumi_dws.kinds.slurm.diff import (
    BUSY,
    canonical,
    differences,
    plan_change,
    project_live,
)
from pulumi_dws.kinds.slurm.provider import SlurmClusterError, SlurmClusterProvider
from pulumi_dws.testing.dynamic_host import serialized_provider_size
from pulumi_dws.testing.emulator import Emulator, FaultPlan
from pulumi_dws.testing.emulator.aiplatform import AiPlatformService, LroFailure
from pulumi_dws.testing.emulator.aiplatform.rules import ServiceError


@pytest.fixture(scope="module")
def shared() -> Iterator[Emulator]:
    with aiplatform_emulator() as emulator:
        yield emulator


@pytest.fixture
def emu(shared: Emulator, monkeypatch: pytest.MonkeyPatch) -> Emulator:
    monkeypatch.setenv("DWS_AIPLATFORM_ENDPOINT", shared.url)
    monkeypatch.setenv("DWS_VIRTUAL_CLOCK_URL", shared.clock_url)
    return fresh(shared)


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
    sent = dict(request.body)
    assert set(sent.pop("labels")) == {"dws-create"}  # the ownership label, added at create
    assert sent == seed_body()
    assert json.dumps(sent, sort_keys=True) == json.dumps(seed_body(), sort_keys=True)
    assert (emu.clock.now() - start).total_seconds() >= 900  # provisioning took virtual time
    assert time.monotonic() - wall < 10


def test_create_and_update_return_every_output(emu: Emulator) -> None:
    provider = SlurmClusterProvider()
    outs = provider.create(props()).outs or {}
    keys = {"name", "state", "login_nodes", "login_address", "partitions", "create_time", "drift"}
    assert keys <= set(outs) and outs["drift"] == []
    body = seed_body()
    body["display_name"] = "renamed"
    updated = provider.update(ID, dict(outs), props(body)).outs or {}
    assert keys <= set(updated) and updated["drift"] == []


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


def test_timeout_reports_the_true_state_and_keeps_the_cluster_tracked(
    emu: Emulator, svc: AiPlatformService
) -> None:
    """The create was accepted: an error would leave a cluster Pulumi doesn't know (an orphan),
    so the create succeeds with the state the cluster really has."""
    provider = SlurmClusterProvider(timeout=60)
    result = provider.create(props())
    outs = result.outs or {}
    assert result.id == ID
    assert outs["state"] == "PROVISIONING" and outs["login_nodes"] == []
    assert outs["body"] == seed_body() and outs["drift"] == []
    assert len(posts(emu)) == 1 and len(svc.clusters) == 1
    emu.clock.advance(1000)
    assert (provider.read(ID, outs).outs or {})["state"] == "RUNNING"  # `pulumi refresh`


def test_a_retried_create_adopts_a_provisioning_cluster(
    emu: Emulator, svc: AiPlatformService
) -> None:
    """The first POST was carried out but its answer lost: the retry meets 409 and waits for
    the cluster the first one started."""
    svc.lose_answers("POST")
    result = SlurmClusterProvider().create(props())
    assert result.id == ID and (result.outs or {})["state"] == "RUNNING"
    assert len(posts(emu)) == 2 and len(svc.clusters) == 1
    assert svc.clusters[(PROJECT, REGION, "flexvm")].history == ["PROVISIONING", "RUNNING"]


def test_a_create_whose_every_answer_was_lost_finds_the_cluster(
    emu: Emulator, svc: AiPlatformService
) -> None:
    svc.lose_answers("POST", 7)  # every attempt of the client's retry budget
    result = SlurmClusterProvider().create(props())
    assert result.id == ID and (result.outs or {})["state"] == "RUNNING"
    # the second round's POST meets 409 and adopts the cluster the first round made
    assert len(posts(emu)) == 8 and len(svc.clusters) == 1 and len(svc.created) == 1


def test_a_create_refused_without_an_answer_and_nothing_created(emu: Emulator) -> None:
    emu.faults = FaultPlan(  # two rounds of 7 attempts, every one refused
        queue=["503"] * 14, retry_after=1, match=lambda method, path: method == "POST"
    )
    with pytest.raises(SlurmClusterError, match="no cluster of that id exists: nothing was"):
        SlurmClusterProvider().create(props())
    assert posts(emu) == []  # the faults came before the service: nothing was created


def test_create_survives_a_lost_read_after_the_operation(
    emu: Emulator, svc: AiPlatformService
) -> None:
    """The operation's response carries the cluster: a GET that keeps failing doesn't turn an
    accepted, finished create into an error."""
    emu.faults = FaultPlan(
        rate=1.0,
        kinds=("503",),
        match=lambda method, path: method == "GET" and path.endswith("/flexvm"),
    )
    result = SlurmClusterProvider().create(props())
    assert result.id == ID and (result.outs or {})["state"] == "RUNNING"
    assert (result.outs or {})["login_nodes"] == ["flexvm-login-0"]


def test_failed_create_whose_clean_up_fails_stays_tracked(
    emu: Emulator, svc: AiPlatformService
) -> None:
    svc.fail_next("create")
    svc.fail_next("delete", LroFailure(code=13, message="stuck"))
    result = SlurmClusterProvider().create(props())
    assert result.id == ID and (result.outs or {})["state"] == "ERROR"
    live = svc.cluster(PROJECT, REGION, "flexvm")
    assert live is not None and live["clusterStatus"]["state"] == "ERROR"


def test_clean_up_delete_whose_answer_was_lost(emu: Emulator, svc: AiPlatformService) -> None:
    svc.fail_next("create")
    svc.lose_answers("DELETE")
    with pytest.raises(SlurmClusterError) as info:
        SlurmClusterProvider().create(props())
    assert "deleted, so nothing is left behind" in str(info.value)
    assert svc.cluster(PROJECT, REGION, "flexvm") is None


def test_adopting_a_cluster_in_error_cleans_it_up(emu: Emulator, svc: AiPlatformService) -> None:
    """A create retried after its first attempt was accepted and then failed (answer lost)."""
    svc.fail_next("create")
    svc.lose_answers("POST")
    with pytest.raises(SlurmClusterError) as info:
        SlurmClusterProvider().create(props())
    assert "state ERROR" in str(info.value) and "ZONE_RESOURCE_POOL_EXHAUSTED" in str(info.value)
    assert "deleted, so nothing is left behind" in str(info.value)
    assert svc.cluster(PROJECT, REGION, "flexvm") is None


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


def test_update_whose_answer_was_lost_is_sent_again(emu: Emulator, svc: AiPlatformService) -> None:
    provider = SlurmClusterProvider()
    state = dict(provider.create(props()).outs or {})
    svc.lose_answers("PATCH")
    body = seed_body()
    body["node_pools"][1]["scaling_spec"]["max_node_count"] = 4
    outs = provider.update(ID, state, props(body)).outs or {}
    assert outs["state"] == "RUNNING" and outs["drift"] == []
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
    provider = SlurmClusterProvider()
    state = dict(provider.create(props()).outs or {})
    requests.delete(emu.url + "v1beta1/" + ID, timeout=10)
    provider.delete(ID, state)
    assert svc.cluster(PROJECT, REGION, "flexvm") is None


def test_delete_whose_answer_was_lost(emu: Emulator, svc: AiPlatformService) -> None:
    provider = SlurmClusterProvider()
    state = dict(provider.create(props()).outs or {})
    svc.lose_answers("DELETE")
    provider.delete(ID, state)
    assert svc.cluster(PROJECT, REGION, "flexvm") is None


class _RefusesBusyDeletes(AiPlatformService):
    """A service that won't delete a cluster while it is being provisioned or updated."""

    def delete_cluster(self, key: tuple[str, str, str]) -> dict[str, Any]:
        cluster = self.clusters.get(key)
        if cluster is not None and cluster.resource["clusterStatus"]["state"] in BUSY:
            raise ServiceError(400, "The cluster is busy.", "FAILED_PRECONDITION")
        return super().delete_cluster(key)


def test_delete_refused_while_busy_waits_then_deletes(monkeypatch: pytest.MonkeyPatch) -> None:
    with Emulator([]) as emulator:
        svc = emulator.add(_RefusesBusyDeletes(emulator.clock))
        monkeypatch.setenv("DWS_AIPLATFORM_ENDPOINT", emulator.url)
        monkeypatch.setenv("DWS_VIRTUAL_CLOCK_URL", emulator.clock_url)
        parent = ID.rsplit("/", 1)[0]
        query = {"model_development_cluster_id": "flexvm"}
        requests.post(
            emulator.url + "v1beta1/" + parent, params=query, json=seed_body(), timeout=10
        )
        start = emulator.clock.now()
        SlurmClusterProvider().delete(ID, props())  # the cluster is still PROVISIONING
        assert svc.cluster(PROJECT, REGION, "flexvm") is None
        assert (emulator.clock.now() - start).total_seconds() < 3600  # not the whole timeout
        deletes = [r for r in emulator.requests if r.method == "DELETE"]
        assert len(deletes) == 2  # refused while provisioning, then accepted


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
    assert vars(provider) == {"timeout": 7200.0}  # endpoint, sleep, poll: class defaults
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
    (
        "lustre backups",
        _set("lustre_export_config", {"destination_bucket": "b"}),
        [],
        ["lustre_export_config"],
    ),
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
    """An unknown that could hide an immutable field previews as a replacement: a preview may
    over-state a change, never hide a delete-and-recreate."""
    unknown_body = SlurmClusterProvider().diff(ID, state_of(seed_body()), props(Unknown()))
    assert unknown_body.changes is True and unknown_body.replaces == ["body"]
    assert unknown_body.delete_before_replace is True
    pools = seed_body()
    pools["node_pools"] = Unknown()
    assert plan_change(state_of(seed_body()), props(pools)) == (
        ["body.node_pools"],
        ["node_pools"],
    )
    one_pool = seed_body()
    one_pool["node_pools"][1] = Unknown()
    assert plan_change(state_of(seed_body()), props(one_pool))[0] == ["body.node_pools[1]"]
    zone = seed_body()
    zone["node_pools"][1]["zone"] = Unknown()  # updatable: stays an update
    assert plan_change(state_of(seed_body()), props(zone)) == ([], ["node_pools"])
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


def test_provider_and_emulator_agree_on_what_changes_in_place() -> None:
    """Two records of Google's rules kept apart on purpose (the provider's table, the marks on
    the emulator's schema): when they disagree, one of them is wrong."""
    from pulumi_dws.kinds.slurm.diff import _POOL_IMMUTABLE, UPDATE_PATHS
    from pulumi_dws.testing.emulator.aiplatform.rules import (
        _IMMUTABLE_POOL_FIELDS,
        UPDATABLE_PATHS,
    )

    assert set(UPDATE_PATHS) == set(UPDATABLE_PATHS)
    assert set(canonical(dict.fromkeys(_IMMUTABLE_POOL_FIELDS))) == set(_POOL_IMMUTABLE)


def test_delete_retried_after_a_lost_answer_whose_first_delete_failed(
    emu: Emulator, svc: AiPlatformService
) -> None:
    """The first DELETE was carried out (its answer lost) and its operation then failed: the
    retry, refused while that delete ran, is sent again once the cluster is back."""
    provider = SlurmClusterProvider()
    state = dict(provider.create(props()).outs or {})
    svc.lose_answers("DELETE")
    svc.fail_next("delete", LroFailure(code=13, message="stuck"))
    start = emu.clock.now()
    provider.delete(ID, state)
    assert svc.cluster(PROJECT, REGION, "flexvm") is None
    assert (emu.clock.now() - start).total_seconds() < 3600  # not the whole timeout
    assert len([r for r in emu.requests if r.method == "DELETE"]) == 3
