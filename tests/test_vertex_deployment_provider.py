"""The FlexStartDeployedModel provider against the emulated Vertex AI endpoints: a deployment
waits for Flex-start capacity and is deployed; Vertex AI undeploys it at the end of its
``maxRuntimeDuration`` and a refresh reads it as gone; a lost ``deployModel`` answer (before or
after the API acted) makes one deployment, found on its endpoint by the id the ownership key
gives it; delete undeploys it. Counts come from the emulator's own records."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import requests

from pulumi_dws.kinds.vertex_deployment.api import deployed_model_id
from pulumi_dws.kinds.vertex_deployment.provider import (
    FlexStartDeployedModelProvider,
    FlexStartDeploymentError,
)
from pulumi_dws.kinds.vertex_deployment.testing import ENDPOINT_ID, deployed_model_props
from pulumi_dws.testing.clock_helpers import virtual_sleep
from pulumi_dws.testing.emulator import Emulator
from pulumi_dws.testing.emulator.aiplatform import AiPlatformService
from pulumi_dws.testing.fault_proxy import AFTER_ACT, BEFORE_ACT, FaultProxy, ProxyFaultPlan

REGION, MACHINE = "us-central1", "g2-standard-24"
DEPLOY = ":deployModel"


@pytest.fixture
def emu() -> Iterator[Emulator]:
    with Emulator([]) as emulator:
        svc = emulator.add(AiPlatformService(emulator.clock))
        svc.add_endpoint("my-project", REGION, ENDPOINT_ID)
        yield emulator


@pytest.fixture
def svc(emu: Emulator) -> AiPlatformService:
    return emu["aiplatform"]


@pytest.fixture
def direct(emu: Emulator, monkeypatch: pytest.MonkeyPatch) -> FlexStartDeployedModelProvider:
    monkeypatch.setenv("DWS_AIPLATFORM_ENDPOINT", emu.url)
    monkeypatch.setenv("DWS_VIRTUAL_CLOCK_URL", "")
    return FlexStartDeployedModelProvider(sleep=virtual_sleep(emu))


@pytest.fixture
def proxy(emu: Emulator, monkeypatch: pytest.MonkeyPatch) -> Iterator[FaultProxy]:
    with FaultProxy(emu) as running:
        monkeypatch.setenv("DWS_AIPLATFORM_ENDPOINT", running.url)
        monkeypatch.setenv("DWS_VIRTUAL_CLOCK_URL", "")
        monkeypatch.setenv("DWS_HTTP_TIMEOUT", "0.5")
        yield running


def props(**changes: Any) -> dict[str, Any]:
    return {**deployed_model_props(), **changes}


def _deploys(emu: Emulator) -> list[Any]:
    return [r for r in emu.requests if r.method == "POST" and r.path.endswith(DEPLOY)]


def test_a_deployment_waits_for_capacity_then_serves_and_undeploys_on_delete(
    svc: AiPlatformService, direct: FlexStartDeployedModelProvider
) -> None:
    svc.add_capacity(REGION, MACHINE, 1, after=3600)
    result = direct.create(props())
    outs = result.outs or {}
    assert outs["state"] == "DEPLOYED" and outs["observed"]["availableReplicaCount"] == 1
    model_id = result.id.rsplit("/", 1)[-1]
    assert svc.deployments() == [
        ("projects/822546684556/locations/us-central1/endpoints/1234567", model_id)
    ]
    assert direct.read(result.id, outs).outs["state"] == "DEPLOYED"
    direct.delete(result.id, outs)
    assert svc.deployments() == [] and svc.capacity.available(REGION, MACHINE) == 1


def test_wait_for_queued_returns_once_the_model_is_on_its_endpoint(
    svc: AiPlatformService, direct: FlexStartDeployedModelProvider
) -> None:
    result = direct.create(props(waitFor="queued"))
    assert (result.outs or {})["state"] == "DEPLOYING"
    assert len(svc.deployments()) == 1


def test_vertex_undeploys_at_the_end_of_the_run_and_a_refresh_reads_it_as_gone(
    emu: Emulator, svc: AiPlatformService, direct: FlexStartDeployedModelProvider
) -> None:
    svc.add_capacity(REGION, MACHINE, 1)
    result = direct.create(props())
    emu.clock.advance(3 * 86400)  # maxRuntimeDuration 3 days, counted from the request
    assert svc.deployments() == [] and svc.capacity.available(REGION, MACHINE) == 1
    assert direct.read(result.id, result.outs or {}).id in (None, "")
    direct.delete(result.id, result.outs or {})  # nothing to undeploy: success


def test_a_deployment_that_fails_leaves_nothing_and_says_why(
    svc: AiPlatformService, direct: FlexStartDeployedModelProvider
) -> None:
    svc.add_capacity(REGION, MACHINE, 1)
    svc.fail_next_deployment("Model server never became ready.")
    with pytest.raises(FlexStartDeploymentError) as info:
        direct.create(props())
    assert "never became ready" in str(info.value) and "left behind" in str(info.value)
    assert svc.deployments() == []


def test_the_deployed_model_id_comes_from_the_ownership_key(
    svc: AiPlatformService, direct: FlexStartDeployedModelProvider
) -> None:
    """Two deployments of the same model by two resources of one program get two ids; a second
    create with the same inputs finds the first's (a crash after the act) and makes none."""
    svc.add_capacity(REGION, MACHINE, 2)
    first = direct.create(props(owner="a-deployment"))
    second = direct.create(props(owner="b-deployment"))
    again = direct.create(props(owner="a-deployment"))
    assert first.id != second.id and again.id == first.id
    assert len(svc.deployments_started) == 2
    assert all(len(model_id) == 10 for _, model_id in svc.deployments())
    assert deployed_model_id("f" * 20).isdigit()


def test_a_deploy_answer_lost_after_the_act_is_found_on_the_endpoint(
    emu: Emulator, svc: AiPlatformService, direct: FlexStartDeployedModelProvider
) -> None:
    svc.add_capacity(REGION, MACHINE, 1)
    svc.lose_answers("POST")
    result = direct.create(props())
    assert len(_deploys(emu)) == 1 and len(svc.deployments_started) == 1
    assert (result.outs or {})["state"] == "DEPLOYED"


@pytest.mark.parametrize("fault", (*BEFORE_ACT, *AFTER_ACT))
def test_a_damaged_deploy_exchange_makes_one_deployment(
    emu: Emulator, svc: AiPlatformService, proxy: FaultProxy, fault: str
) -> None:
    svc.add_capacity(REGION, MACHINE, 1)
    proxy.plan = ProxyFaultPlan(
        match=lambda method, path: method == "POST" and path.endswith(DEPLOY), queue=[fault]
    )
    result = FlexStartDeployedModelProvider(sleep=virtual_sleep(emu)).create(props())
    assert (result.outs or {})["state"] == "DEPLOYED"
    assert len(svc.deployments_started) == 1 and len(svc.deployments()) == 1


def test_a_lost_undeploy_answer_still_undeploys(
    emu: Emulator, svc: AiPlatformService, proxy: FaultProxy
) -> None:
    svc.add_capacity(REGION, MACHINE, 1)
    provider = FlexStartDeployedModelProvider(sleep=virtual_sleep(emu))
    result = provider.create(props())
    proxy.plan = ProxyFaultPlan(
        match=lambda method, path: path.endswith(":undeployModel"), queue=["lose"]
    )
    provider.delete(result.id, result.outs or {})
    assert svc.deployments() == []


# ---------------------------------------------------------------------- traffic
ENDPOINT = f"projects/my-project/locations/{REGION}/endpoints/{ENDPOINT_ID}"


def _other_model(emu: Emulator, model_id: str, split: dict[str, int] | None = None) -> None:
    """A model deployed on the endpoint outside this program (on the same machine type)."""
    body: dict[str, Any] = {"deployedModel": {**props()["body"]["deployedModel"], "id": model_id}}
    if split is not None:
        body["trafficSplit"] = split
    answer = requests.post(f"{emu.url}v1beta1/{ENDPOINT}:deployModel", json=body, timeout=30)
    assert answer.status_code == 200, answer.text
    emu.clock.advance(emu["aiplatform"].deploy_seconds)


def _split(emu: Emulator) -> dict[str, int]:
    endpoint = requests.get(f"{emu.url}v1beta1/{ENDPOINT}", timeout=30).json()
    return dict(endpoint.get("trafficSplit") or {})


def _set_split(emu: Emulator, split: dict[str, int]) -> None:
    answer = requests.patch(
        f"{emu.url}v1beta1/{ENDPOINT}",
        json={"trafficSplit": split},
        params={"updateMask": "traffic_split"},
        timeout=30,
    )
    assert answer.status_code == 200, answer.text


def test_a_deployment_on_an_endpoint_that_serves_nothing_takes_its_traffic(
    emu: Emulator, svc: AiPlatformService, direct: FlexStartDeployedModelProvider
) -> None:
    """A deployed model receives traffic only once the endpoint's traffic split names it
    (DeployModelRequest.deployedModel); on an endpoint that serves nothing it takes all of it,
    as the Vertex AI SDK's Endpoint.deploy does for the first model."""
    svc.add_capacity(REGION, MACHINE, 1)
    result = direct.create(props())
    model_id = result.id.rsplit("/", 1)[-1]
    assert _split(emu) == {model_id: 100}
    assert (result.outs or {})["observed"]["trafficPercentage"] == 100
    direct.delete(result.id, result.outs or {})
    assert _split(emu) == {} and svc.deployments() == []


def test_a_deployment_beside_a_serving_model_leaves_the_endpoints_traffic_as_it_is(
    emu: Emulator, svc: AiPlatformService, direct: FlexStartDeployedModelProvider
) -> None:
    svc.add_capacity(REGION, MACHINE, 2)
    _other_model(emu, "1", {"0": 100})
    result = direct.create(props())
    assert _split(emu) == {"1": 100}
    assert (result.outs or {})["observed"]["trafficPercentage"] == 0


def test_deleting_a_model_that_has_traffic_gives_it_to_the_others_in_proportion(
    emu: Emulator, svc: AiPlatformService, direct: FlexStartDeployedModelProvider
) -> None:
    """An undeploy leaving a model its traffic is refused while other models are deployed
    (UndeployModelRequest.trafficSplit): the delete gives the others its share first, scaled
    as the Vertex AI SDK's Endpoint.undeploy does."""
    svc.add_capacity(REGION, MACHINE, 3)
    _other_model(emu, "1", {"0": 100})
    _other_model(emu, "2")
    result = direct.create(props())
    model_id = result.id.rsplit("/", 1)[-1]
    _set_split(emu, {"1": 30, "2": 10, model_id: 60})
    direct.delete(result.id, result.outs or {})
    assert [m for _, m in svc.deployments()] == ["1", "2"]
    assert _split(emu) == {"1": 75, "2": 25}


def test_deleting_the_model_that_has_all_traffic_beside_idle_ones_clears_the_split(
    emu: Emulator, svc: AiPlatformService, direct: FlexStartDeployedModelProvider
) -> None:
    """The others had no traffic: none is moved onto them; the endpoint serves nothing, as it
    would once the model left."""
    svc.add_capacity(REGION, MACHINE, 2)
    result = direct.create(props())
    _other_model(emu, "1")
    model_id = result.id.rsplit("/", 1)[-1]
    assert _split(emu) == {model_id: 100}
    direct.delete(result.id, result.outs or {})
    assert [m for _, m in svc.deployments()] == ["1"] and _split(emu) == {}


def test_check_refuses_a_deployed_model_id_the_create_would_choose(
    direct: FlexStartDeployedModelProvider,
) -> None:
    chosen = props()
    chosen["body"]["deployedModel"]["id"] = "42"
    failures = direct.check({}, chosen).failures
    assert [f.reason for f in failures] == ["body.deployedModel.id is chosen by pulumi-dws itself"]
    assert direct.check({}, props(endpoint="serving")).failures  # not an endpoint id
    assert direct.check({}, props(waitFor="soon")).failures
