"""A FlexStartDeployment's delete through Pulumi's own dynamic-provider host against the
emulator, when its model has all the endpoint's traffic beside a model that has none: the
split is cleared (``endpoints.patch``), then the model undeployed. Each of the two calls is
damaged once, before the API sees it or after it acted: the model leaves, the other stays,
and the endpoint's split is empty either way."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import requests

from pulumi_dws.kinds.vertex_deployment.provider import TYPE_TOKEN as DEPLOYED_MODEL
from pulumi_dws.kinds.vertex_deployment.provider import FlexStartDeployedModelProvider
from pulumi_dws.kinds.vertex_deployment.testing import ENDPOINT_ID, deployed_model_props
from pulumi_dws.testing.dynamic_host import DynamicProviderHost, urn
from pulumi_dws.testing.emulator import Emulator
from pulumi_dws.testing.emulator.aiplatform import AiPlatformService
from pulumi_dws.testing.fault_proxy import AFTER_ACT, BEFORE_ACT, FaultProxy, ProxyFaultPlan

REGION, MACHINE = "us-central1", "g2-standard-24"
ENDPOINT = f"projects/my-project/locations/{REGION}/endpoints/{ENDPOINT_ID}"
URN = urn(DEPLOYED_MODEL, "llm-deployment", parent_type="dws:index:FlexStartDeployment")


@pytest.fixture(scope="module")
def emulator() -> Iterator[Emulator]:
    with Emulator([]) as emu:
        emu.add(AiPlatformService(emu.clock))
        yield emu


@pytest.fixture(scope="module")
def proxy(emulator: Emulator) -> Iterator[FaultProxy]:
    with FaultProxy(emulator) as running:
        yield running


@pytest.fixture(scope="module")
def host(emulator: Emulator, proxy: FaultProxy) -> Iterator[DynamicProviderHost]:
    with DynamicProviderHost(
        FlexStartDeployedModelProvider(),
        config={"dws:aiplatformEndpoint": proxy.url},
        env={"DWS_VIRTUAL_CLOCK_URL": emulator.clock_url, "DWS_HTTP_TIMEOUT": "1"},
    ) as running:
        running.configure()
        yield running


def _endpoint(emulator: Emulator) -> dict[str, object]:
    answer = requests.get(f"{emulator.url}v1beta1/{ENDPOINT}", timeout=30)
    return dict(answer.json())


@pytest.mark.parametrize("call", ["PATCH", "POST"], ids=["clearing the split", "undeploying"])
@pytest.mark.parametrize("fault", (*BEFORE_ACT, *AFTER_ACT))
def test_a_model_with_all_the_traffic_leaves_once_under_faults(
    host: DynamicProviderHost, emulator: Emulator, proxy: FaultProxy, fault: str, call: str
) -> None:
    vertex = emulator["aiplatform"]
    vertex.reset()
    vertex.add_endpoint("my-project", REGION, ENDPOINT_ID)
    proxy.plan = ProxyFaultPlan()
    vertex.add_capacity(REGION, MACHINE, 2)
    rid, outs = host.create(URN, deployed_model_props())
    assert outs["observed"]["trafficPercentage"] == 100
    other = {"deployedModel": {**deployed_model_props()["body"]["deployedModel"], "id": "1"}}
    deployed = requests.post(
        f"{emulator.url}v1beta1/{ENDPOINT}:deployModel", json=other, timeout=30
    )
    assert deployed.status_code == 200
    emulator.clock.advance(vertex.deploy_seconds)
    path = ":undeployModel" if call == "POST" else f"/endpoints/{ENDPOINT_ID}"
    proxy.plan = ProxyFaultPlan(match=lambda m, p: m == call and p.endswith(path), queue=[fault])
    host.delete(URN, rid, outs)
    proxy.plan = ProxyFaultPlan()
    endpoint = _endpoint(emulator)
    assert [m["id"] for m in endpoint["deployedModels"]] == ["1"]  # type: ignore[attr-defined]
    assert "trafficSplit" not in endpoint
