"""QueuedTpu under faults, through the fault proxy: answers lost before and after the API
acted, creates that reach the API after the client gave up, and a fault run counted from the
emulator's own records."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from typing import Any

import pytest
from fault_helpers import assert_clean_run
from queued_tpu_helpers import BODY, PROJECT, QR, ZONE, props

from pulumi_dws.kinds.queued_tpu.provider import QueuedTpuProvider
from pulumi_dws.testing.clock_helpers import virtual_sleep
from pulumi_dws.testing.emulator import Emulator
from pulumi_dws.testing.emulator.tpu import TpuService
from pulumi_dws.testing.fault_proxy import AFTER_ACT, FaultProxy, ProxyFaultPlan
from pulumi_dws.testing.fault_run import queued_tpu_fault_run


@pytest.fixture
def emu() -> Iterator[Emulator]:
    with Emulator([]) as emulator:
        emulator.add(TpuService(emulator.clock))
        yield emulator


@pytest.fixture
def proxy(emu: Emulator, monkeypatch: pytest.MonkeyPatch) -> Iterator[FaultProxy]:
    with FaultProxy(emu) as running:
        monkeypatch.setenv("DWS_TPU_ENDPOINT", running.url)
        monkeypatch.setenv("DWS_VIRTUAL_CLOCK_URL", "")
        monkeypatch.setenv("DWS_HTTP_TIMEOUT", "0.1")
        yield running


def body(resource_id: str, zone: str) -> dict[str, Any]:
    text = json.dumps(BODY).replace(f'"nodeId": "{QR}"', f'"nodeId": "{resource_id}"')
    return json.loads(text.replace(ZONE, zone))


def _is_create(method: str, path: str) -> bool:
    return method == "POST" and path.endswith("/queuedResources")


def test_two_hundred_cycles_under_faults_leave_no_orphan_and_no_duplicate(
    emu: Emulator, proxy: FaultProxy
) -> None:
    report = queued_tpu_fault_run(emu, proxy, cycles=200, rate=0.25, seed=7, body=body)
    assert_clean_run(report, 200)
    assert report.created >= 100, report.lines()


@pytest.mark.parametrize("kind", AFTER_ACT)
def test_a_create_answer_damaged_after_the_api_acted_is_followed(
    emu: Emulator, proxy: FaultProxy, kind: str
) -> None:
    tpu: TpuService = emu["tpu"]
    tpu.add_chips(ZONE, "v6e", 16)
    proxy.plan = ProxyFaultPlan(match=_is_create, queue=[kind])
    result = QueuedTpuProvider(sleep=virtual_sleep(emu)).create(props())
    assert result.outs["state"] == "ACTIVE"
    assert len(tpu.created) == 1 and len(tpu.queued_resources()) == 1


def test_a_create_that_reached_the_api_after_the_client_gave_up_is_tracked(
    emu: Emulator, proxy: FaultProxy
) -> None:
    tpu: TpuService = emu["tpu"]
    tpu.add_chips(ZONE, "v6e", 16)
    proxy.plan = ProxyFaultPlan(match=_is_create, queue=["late"] * 3)
    result = QueuedTpuProvider(sleep=virtual_sleep(emu)).create(props())
    assert result.outs["state"] == "ACTIVE"
    assert len(tpu.created) == 1 and tpu.queued_resources() == [(PROJECT, ZONE, QR)]


def test_a_lost_delete_answer_still_deletes(emu: Emulator, proxy: FaultProxy) -> None:
    tpu: TpuService = emu["tpu"]
    tpu.add_chips(ZONE, "v6e", 16)
    provider = QueuedTpuProvider(sleep=virtual_sleep(emu))
    result = provider.create(props())
    proxy.plan = ProxyFaultPlan(match=lambda m, p: m == "DELETE", queue=["lose", "lose"])
    provider.delete(result.id, copy.deepcopy(result.outs))
    assert tpu.queued_resources() == []
