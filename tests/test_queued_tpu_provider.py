"""The Cloud TPU queued-resource provider, in process, over real HTTP against the emulated Cloud
TPU API; every wait advances the emulator's virtual clock (a 2-hour queue takes no wall time).
Also the emulated API itself, through its HTTP surface."""

from __future__ import annotations

import copy
import pickle
from collections.abc import Iterator
from typing import Any

import pytest
import requests
from pulumi.dynamic import ConfigureRequest
from pulumi.dynamic.config import Config
from queued_tpu_helpers import BODY, PATH, PROJECT, QR, ZONE, props

from pulumi_dws.kinds.queued_tpu.create import OWNER_LABEL, create_key, with_owner
from pulumi_dws.kinds.queued_tpu.drift import seen_body
from pulumi_dws.kinds.queued_tpu.provider import QueuedTpuError, QueuedTpuProvider
from pulumi_dws.testing.clock_helpers import virtual_sleep
from pulumi_dws.testing.emulator import Emulator, FaultPlan
from pulumi_dws.testing.emulator.tpu import TpuService


@pytest.fixture
def emu(monkeypatch: pytest.MonkeyPatch) -> Iterator[Emulator]:
    with Emulator([]) as emulator:
        emulator.add(TpuService(emulator.clock))
        monkeypatch.setenv("DWS_TPU_ENDPOINT", emulator.url)
        monkeypatch.setenv("DWS_VIRTUAL_CLOCK_URL", "")
        yield emulator


@pytest.fixture
def tpu(emu: Emulator) -> TpuService:
    return emu["tpu"]


@pytest.fixture
def provider(emu: Emulator) -> QueuedTpuProvider:
    return QueuedTpuProvider(sleep=virtual_sleep(emu))


def posts(emu: Emulator) -> list[Any]:
    return [r for r in emu.requests if r.method == "POST" and r.path.endswith("queuedResources")]


# ---------------------------------------------------------------------------- create
def test_a_queued_request_becomes_active_when_chips_arrive(
    emu: Emulator, tpu: TpuService, provider: QueuedTpuProvider
) -> None:
    tpu.add_chips(ZONE, "v6e", 16, after=1800)
    start = emu.clock.now()
    result = provider.create(props())
    assert result.id == PATH
    assert result.outs["state"] == "ACTIVE"
    assert result.outs["name"] == PATH
    assert (emu.clock.now() - start).total_seconds() >= 1800  # it waited in the queue
    [post] = posts(emu)
    assert post.query["queuedResourceId"] == QR and post.query["requestId"]
    sent = copy.deepcopy(post.body)
    assert sent["tpu"]["nodeSpec"][0]["node"].pop("labels") == {OWNER_LABEL: create_key(props())}
    assert sent == BODY  # the declared body, plus only the ownership label
    assert tpu.capacity.available(ZONE, "v6e") == 0


def test_numbers_that_arrive_as_floats_are_sent_as_ints(
    emu: Emulator, tpu: TpuService, provider: QueuedTpuProvider
) -> None:
    multi = props("accepted")
    spec = multi["body"]["tpu"]["nodeSpec"][0]
    del spec["nodeId"]
    spec["multiNodeParams"] = {"nodeCount": 2.0}  # as the engine hands every number over
    provider.create(multi)
    sent = posts(emu)[0].body["tpu"]["nodeSpec"][0]["multiNodeParams"]["nodeCount"]
    assert sent == 2 and type(sent) is int
    assert tpu.queued_resource(PROJECT, ZONE, QR) is not None


def test_wait_for_accepted_returns_while_it_waits(
    tpu: TpuService, provider: QueuedTpuProvider
) -> None:
    result = provider.create(props("accepted"))
    assert result.outs["state"] == "WAITING_FOR_RESOURCES"
    tpu.add_chips(ZONE, "v6e", 16)
    emu_state = provider.read(result.id, result.outs).outs["state"]
    assert emu_state in ("PROVISIONING", "ACTIVE")


def test_an_expired_queue_window_fails_cleanly_and_leaves_nothing(
    emu: Emulator, tpu: TpuService, provider: QueuedTpuProvider
) -> None:
    with pytest.raises(QueuedTpuError) as info:
        provider.create(props())
    message = str(info.value)
    assert "FAILED" in message and "expired" in message
    assert "deleted, so nothing is left behind" in message
    assert tpu.queued_resources() == []
    assert any(r.method == "DELETE" for r in emu.requests)


def test_a_request_that_fails_is_deleted_and_reported(
    tpu: TpuService, provider: QueuedTpuProvider
) -> None:
    tpu.add_chips(ZONE, "v6e", 16)
    tpu.fail_next("TPU nodes could not be created.")
    with pytest.raises(QueuedTpuError, match="13: TPU nodes could not be created"):
        provider.create(props())
    assert tpu.queued_resources() == []
    assert tpu.capacity.available(ZONE, "v6e") == 16


def test_a_refused_body_creates_nothing(tpu: TpuService, provider: QueuedTpuProvider) -> None:
    with pytest.raises(QueuedTpuError, match="was refused: HTTP 400.*7 days"):
        provider.create(props(runDuration={"maxRunDuration": "691200s"}))
    assert tpu.queued_resources() == [] and tpu.created == []


def test_the_run_ends_and_the_request_is_suspended(
    emu: Emulator, tpu: TpuService, provider: QueuedTpuProvider
) -> None:
    tpu.add_chips(ZONE, "v6e", 16)
    result = provider.create(props())
    emu.clock.advance(86400)
    outs = provider.read(result.id, result.outs).outs
    assert outs["state"] == "SUSPENDED"
    assert outs["observed"]["stateInitiator"] == "SERVICE"
    assert tpu.capacity.available(ZONE, "v6e") == 16  # its chips went back
    provider.delete(result.id, outs)  # a suspended request deletes without force
    assert tpu.queued_resources() == []
    delete = [r for r in emu.requests if r.method == "DELETE"][-1]
    assert "force" not in delete.query


def test_an_active_request_is_deleted_with_force(
    emu: Emulator, tpu: TpuService, provider: QueuedTpuProvider
) -> None:
    tpu.add_chips(ZONE, "v6e", 16)
    result = provider.create(props())
    provider.delete(result.id, result.outs)
    [delete] = [r for r in emu.requests if r.method == "DELETE"]
    assert delete.query["force"] == "true" and delete.query["requestId"]
    assert tpu.queued_resources() == []
    assert tpu.capacity.available(ZONE, "v6e") == 16


def test_a_request_deleted_outside_pulumi_reads_as_gone_and_deletes_cleanly(
    tpu: TpuService, provider: QueuedTpuProvider
) -> None:
    result = provider.create(props("accepted"))
    tpu.remove(PROJECT, ZONE, QR)
    gone = provider.read(result.id, result.outs)
    assert gone.id is None and gone.outs == {}
    provider.delete(result.id, result.outs)  # nothing to delete: success


# ---------------------------------------------------------------------------- read: drift
def test_a_read_of_the_request_as_declared_reports_no_drift(
    tpu: TpuService, provider: QueuedTpuProvider
) -> None:
    declared = props("accepted", tpu=_multislice({"team": "ml"}, "v6e-16", 2))
    result = provider.create(declared)
    assert result.outs["drift"] == []
    outs = provider.read(result.id, result.outs).outs
    assert outs["drift"] == [] and outs["body"] == declared["body"]  # no ownership label
    assert not provider.diff(result.id, outs, declared).replaces


def test_a_request_made_again_outside_pulumi_reads_as_drift_and_is_replaced(
    emu: Emulator, tpu: TpuService, provider: QueuedTpuProvider
) -> None:
    declared = props("accepted", tpu=_multislice({"team": "ml"}, "v6e-16", 2))
    result = provider.create(declared)
    # Someone deleted it and made it again under the same id with gcloud: another slice size,
    # one slice, other labels (and no ownership label).
    tpu.remove(PROJECT, ZONE, QR)
    other = copy.deepcopy(BODY)
    other["tpu"]["nodeSpec"][0]["node"].update(acceleratorType="v6e-32", labels={"team": "x"})
    _post(emu, other).raise_for_status()
    outs = provider.read(result.id, result.outs).outs
    assert outs["drift"] == [
        "tpu.nodeSpec[0].node.acceleratorType",
        "tpu.nodeSpec[0].multiNodeParams.nodeCount",
        "tpu.nodeSpec[0].node.labels",
    ]
    spec = outs["body"]["tpu"]["nodeSpec"][0]
    assert spec["node"]["acceleratorType"] == "v6e-32"
    assert spec["node"]["labels"] == {"team": "x"} and "multiNodeParams" not in spec
    assert outs["body"]["runDuration"] == BODY["runDuration"]  # the rest as declared
    # The next `pulumi up` sees the body differ: the request is replaced, delete first.
    diff = provider.diff(result.id, outs, declared)
    assert diff.replaces == ["body"] and diff.delete_before_replace


def test_labels_changed_only_in_the_ownership_label_are_no_drift(
    emu: Emulator, tpu: TpuService, provider: QueuedTpuProvider
) -> None:
    declared = props("accepted")
    result = provider.create(declared)
    tpu.remove(PROJECT, ZONE, QR)
    _post(emu, with_owner(BODY, "another-key")).raise_for_status()
    assert provider.read(result.id, result.outs).outs["drift"] == []


def test_a_float_node_count_from_the_engine_is_no_drift(
    tpu: TpuService, provider: QueuedTpuProvider
) -> None:
    result = provider.create(props("accepted", tpu=_multislice({}, "v6e-16", 2)))
    as_state = copy.deepcopy(result.outs)
    as_state["body"]["tpu"]["nodeSpec"][0]["multiNodeParams"]["nodeCount"] = 2.0
    assert provider.read(result.id, as_state).outs["drift"] == []


def test_an_answer_without_a_node_spec_claims_no_drift() -> None:
    declared = props(tpu=_multislice({"team": "ml"}, "v6e-16", 2))["body"]
    assert seen_body(declared, {"name": PATH, "state": {"state": "ACTIVE"}}) == (declared, [])
    bare = {"tpu": {"nodeSpec": [{"multiNodeParams": {"nodeCount": 3}}]}}
    body, drift = seen_body(declared, bare)  # no node: only the node count can be seen
    assert drift == ["tpu.nodeSpec[0].multiNodeParams.nodeCount"]
    assert body["tpu"]["nodeSpec"][0]["node"] == declared["tpu"]["nodeSpec"][0]["node"]


def _multislice(labels: dict[str, str], accelerator: str, slices: int) -> dict[str, Any]:
    tpu = copy.deepcopy(BODY["tpu"])
    spec = tpu["nodeSpec"][0]
    spec.pop("nodeId")
    spec["multiNodeParams"] = {"nodeCount": slices}
    spec["node"]["acceleratorType"] = accelerator
    if labels:
        spec["node"]["labels"] = labels
    return tpu


# ---------------------------------------------------------------------------- crashes
def test_a_crash_mid_create_is_adopted_by_the_next_create(
    emu: Emulator, tpu: TpuService, provider: QueuedTpuProvider
) -> None:
    # The crashed `pulumi up` sent the create (with its ownership label) and died.
    crashed = props()
    answer = requests.post(
        f"{emu.url}v2alpha1/projects/{PROJECT}/locations/{ZONE}/queuedResources",
        params={"queuedResourceId": QR, "requestId": "crashed-run"},
        json=with_owner(crashed["body"], create_key(crashed)),
        timeout=10,
    )
    assert answer.status_code == 200
    tpu.add_chips(ZONE, "v6e", 16, after=600)
    result = provider.create(props())
    assert result.outs["state"] == "ACTIVE"
    assert len(tpu.created) == 1  # adopted, not created twice
    assert posts(emu)[1:] == []  # the next run sent no create at all


def test_a_request_of_the_same_id_made_elsewhere_is_refused(
    emu: Emulator, tpu: TpuService, provider: QueuedTpuProvider
) -> None:
    requests.post(
        f"{emu.url}v2alpha1/projects/{PROJECT}/locations/{ZONE}/queuedResources",
        params={"queuedResourceId": QR},
        json=BODY,
        timeout=10,
    ).raise_for_status()
    with pytest.raises(QueuedTpuError) as info:
        provider.create(props())
    assert f"has no {OWNER_LABEL} label" in str(info.value)
    assert "choose another queued_resource_id" in str(info.value)
    assert tpu.queued_resource(PROJECT, ZONE, QR) is not None  # not touched


def test_a_request_made_from_other_inputs_is_refused(
    tpu: TpuService, provider: QueuedTpuProvider
) -> None:
    provider.create(props("accepted"))
    with pytest.raises(QueuedTpuError, match="made it from other inputs"):
        provider.create(props("accepted", queueingPolicy={"validUntilDuration": "3600s"}))
    assert len(tpu.created) == 1


def test_a_lost_create_answer_is_settled_without_a_duplicate(
    tpu: TpuService, provider: QueuedTpuProvider
) -> None:
    tpu.add_chips(ZONE, "v6e", 16)
    tpu.lose_answers("POST", 10)  # every create answer lost: retries, then settled by reading
    result = provider.create(props())
    assert result.outs["state"] == "ACTIVE"
    assert len(tpu.created) == 1


def test_transient_faults_are_retried(emu: Emulator, tpu: TpuService) -> None:
    tpu.add_chips(ZONE, "v6e", 16)
    emu.faults = FaultPlan(rate=0.3, seed=3)
    result = QueuedTpuProvider(sleep=virtual_sleep(emu)).create(props())
    assert result.outs["state"] == "ACTIVE" and len(tpu.created) == 1


# ---------------------------------------------------------------------------- diff, config
def test_any_change_but_wait_for_replaces_delete_first(provider: QueuedTpuProvider) -> None:
    old = props()
    same = provider.diff(PATH, old, props())
    assert not same.changes
    wait = provider.diff(PATH, old, props("accepted"))
    assert wait.changes and not wait.replaces
    other = provider.diff(PATH, old, props(provisioningModel="SPOT", runDuration=None))
    assert other.replaces == ["body"] and other.delete_before_replace is True


def test_check_refuses_values_that_would_go_into_a_url(provider: QueuedTpuProvider) -> None:
    bad = {**props(), "zone": "us-east5-a/../x", "queuedResourceId": "QR_1"}
    failures = provider.check({}, bad).failures
    assert {f.property for f in failures} == {"zone", "queuedResourceId"}


def test_the_endpoint_comes_from_stack_config(
    emu: Emulator, tpu: TpuService, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("DWS_TPU_ENDPOINT")
    provider = QueuedTpuProvider(sleep=virtual_sleep(emu))
    provider.configure(ConfigureRequest(Config({"dws:tpuEndpoint": emu.url}, "dws")))
    assert provider.create(props("accepted")).outs["state"] == "WAITING_FOR_RESOURCES"


def test_the_provider_pickles_small_and_without_secrets(emu: Emulator) -> None:
    provider = QueuedTpuProvider()
    provider.configure(ConfigureRequest(Config({"dws:tpuEndpoint": emu.url}, "dws")))
    data = pickle.dumps(provider)
    assert len(data) < 600


# ---------------------------------------------------------------------------- the emulated API
def _post(emu: Emulator, body: Any, **params: str) -> requests.Response:
    return requests.post(
        f"{emu.url}v2alpha1/projects/{PROJECT}/locations/{ZONE}/queuedResources",
        params={"queuedResourceId": QR, **params},
        json=body,
        timeout=10,
    )


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"provisioningModel": "FLEXSTART"}, "provisioningModel"),
        ({"tier": "gold"}, "tier"),
        ({"runDuration": {"maxRunDuration": "1 day"}}, "maxRunDuration"),
        ({"spot": {}, "guaranteed": {}}, "mutually exclusive"),
        ({"provisioningModel": "SPOT"}, "only applies to FLEX_START"),
        ({"provisioningModel": "RESERVATION_BOUND", "runDuration": None}, "reservation_name"),
    ],
)
def test_the_emulated_api_refuses_bad_bodies_in_googles_shape(
    emu: Emulator, change: dict[str, Any], words: str
) -> None:
    body = copy.deepcopy(BODY)
    for key, value in change.items():
        body.pop(key, None) if value is None else body.__setitem__(key, value)
    answer = _post(emu, body)
    assert answer.status_code == 400
    error = answer.json()["error"]
    assert error["code"] == 400 and error["status"] == "INVALID_ARGUMENT"
    assert words in error["message"]


def test_the_emulated_api_answers_one_operation_per_request_id(emu: Emulator) -> None:
    first = _post(emu, BODY, requestId="r1").json()
    again = _post(emu, BODY, requestId="r1").json()
    assert first["name"] == again["name"]
    conflict = _post(emu, BODY, requestId="r2")
    assert conflict.status_code == 409 and conflict.json()["error"]["status"] == "ALREADY_EXISTS"
    assert len(emu["tpu"].created) == 1


def test_the_emulated_api_wants_force_to_delete_nodes(emu: Emulator, tpu: TpuService) -> None:
    tpu.add_chips(ZONE, "v6e", 16)
    _post(emu, BODY)
    emu.clock.advance(3600)
    url = f"{emu.url}v2alpha1/{PATH}"
    assert requests.get(url, timeout=10).json()["state"]["state"] == "ACTIVE"
    refused = requests.delete(url, timeout=10)
    assert refused.status_code == 400
    assert refused.json()["error"]["status"] == "FAILED_PRECONDITION"
    op = requests.delete(url, params={"force": "true"}, timeout=10).json()
    assert op["done"] is False
    emu.clock.advance(600)
    polled = requests.get(f"{emu.url}v2alpha1/{op['name']}", timeout=10).json()
    assert polled["done"] is True
    assert requests.get(url, timeout=10).status_code == 404


# ---------------------------------------------------------------------------- review
def test_a_failed_request_whose_delete_fails_is_kept_in_the_stack(
    tpu: TpuService, provider: QueuedTpuProvider
) -> None:
    tpu.add_chips(ZONE, "v6e", 16)
    tpu.fail_next("TPU nodes could not be created.")
    tpu.fail_next_delete("the backend could not delete it")
    result = provider.create(props())  # never an error that leaves it outside the stack
    assert result.id == PATH and result.outs["state"] == "FAILED"
    assert tpu.queued_resources() == [(PROJECT, ZONE, QR)]
    provider.delete(result.id, result.outs)  # and the stack can still delete it
    assert tpu.queued_resources() == []


def test_a_delete_whose_operation_fails_says_so_and_keeps_the_request(
    tpu: TpuService, provider: QueuedTpuProvider
) -> None:
    tpu.add_chips(ZONE, "v6e", 16)
    result = provider.create(props())
    tpu.fail_next_delete("the backend could not delete it")
    with pytest.raises(QueuedTpuError, match="could not be confirmed.*could not delete it"):
        provider.delete(result.id, result.outs)
    assert tpu.queued_resource(PROJECT, ZONE, QR)["state"]["state"] == "ACTIVE"


def test_a_create_with_a_malformed_node_spec_is_refused_in_one_sentence(
    tpu: TpuService, provider: QueuedTpuProvider
) -> None:
    with pytest.raises(QueuedTpuError, match="was refused: HTTP 400"):
        provider.create(props(tpu={"nodeSpec": ["v6e-16"]}))
    assert tpu.queued_resources() == [] and tpu.created == []
