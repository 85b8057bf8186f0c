"""Fault injection: 120 create/delete cycles of Flex-start VMs with 20% of requests failing
(429 with Retry-After, 503, dropped connections; seeded) plus some responses lost *after* the
emulator did the work. Every cycle must end with the VM gone; the run must end with zero VMs
in the emulator and exactly one VM really created per ``requestId``.

Sleeps (backoff, Retry-After, operation polling) advance the emulator's virtual clock, so the
whole run takes seconds."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest

from pulumi_dws.providers.flex_vm import FlexStartError, FlexStartVmProvider
from pulumi_dws.testing.emulator import Emulator, FaultPlan
from pulumi_dws.testing.emulator.base import Request, Response

PROJECT, ZONE, MACHINE = "p", "us-central1-a", "a3-highgpu-8g"
CYCLES = 120
FAULT_RATE = 0.2
LOST_RATE = 0.05


class ResponseLost(ConnectionAbortedError):
    """Raised after a request was processed: the server closes the connection unanswered."""


def props(i: int) -> dict[str, Any]:
    name = f"vm-{i}"
    body: dict[str, Any] = {
        "name": name,
        "machineType": f"zones/{ZONE}/machineTypes/{MACHINE}",
        "networkInterfaces": [{"network": "global/networks/default"}],
        "scheduling": {
            "automaticRestart": False,
            "instanceTerminationAction": "DELETE",
            "maxRunDuration": {"seconds": "86400"},
            "onHostMaintenance": "TERMINATE",
            "provisioningModel": "FLEX_START",
        },
        "labels": {"cycle": str(i)},
    }
    if i % 4:
        body["params"] = {"requestValidForDuration": {"seconds": "7200"}}
    return {
        "project": PROJECT,
        "zone": ZONE,
        "name": name,
        "sourceInstanceTemplate": "",
        "body": body,
        "desiredStatus": "RUNNING",
        "waitFor": "accepted" if i % 4 == 3 else "running",
    }


@pytest.fixture
def emu(monkeypatch: pytest.MonkeyPatch) -> Iterator[Emulator]:
    with Emulator() as emulator:
        monkeypatch.setenv("DWS_COMPUTE_ENDPOINT", emulator.url)
        monkeypatch.delenv("DWS_VIRTUAL_CLOCK_URL", raising=False)
        yield emulator


def _lose_some_responses(emu: Emulator, rng: random.Random) -> Counter[str]:
    """After the emulator handles a mutation, sometimes drop the connection unanswered."""
    lost: Counter[str] = Counter()
    dispatch = emu.dispatch
    server = emu._server  # noqa: SLF001 - test-only: silence the handler's traceback
    assert server is not None
    server.handle_error = lambda request, address: None  # type: ignore[method-assign]

    def lossy(request: Request) -> Response:
        response = dispatch(request)
        mutation = request.method in ("POST", "DELETE") and not request.path.startswith(
            "/_emulator"
        )
        if mutation and response.status == 200 and rng.random() < LOST_RATE:
            lost[request.method] += 1
            raise ResponseLost("response lost after the work was done")
        return response

    emu.dispatch = lossy  # type: ignore[method-assign]
    return lost


def test_create_delete_cycles_under_faults_leave_nothing_and_never_duplicate(
    emu: Emulator,
) -> None:
    compute = emu["compute"]
    emu.faults = FaultPlan(rate=FAULT_RATE, seed=20260105, retry_after=1)
    lost = _lose_some_responses(emu, random.Random(7))
    provider = FlexStartVmProvider(sleep=emu.clock.advance)

    created = failed = 0
    request_ids: list[str] = []
    for i in range(CYCLES):
        while compute.capacity.take(ZONE, MACHINE):  # start each cycle with none free
            pass
        if i % 4 == 2:
            compute.add_capacity(ZONE, MACHINE, 1, after=1800)  # queue for 30 min
        else:
            compute.add_capacity(ZONE, MACHINE, 1)
        try:
            result = provider.create(props(i))
        except FlexStartError as err:  # retries exhausted: must have cleaned up
            failed += 1
            assert "left behind" in str(err) or "Nothing was created" in str(err)
            assert compute.instance(PROJECT, ZONE, f"vm-{i}") is None
            continue
        created += 1
        request_ids.append(result.outs["observed"]["requestId"])
        assert result.outs["status"] in ("RUNNING", "PENDING")
        assert compute.instance(PROJECT, ZONE, f"vm-{i}") is not None
        provider.delete(result.id, result.outs)
        assert compute.instance(PROJECT, ZONE, f"vm-{i}") is None, f"cycle {i} left its VM"

    injected = sum(emu.faults.counts.values())
    total = len([r for r in emu.requests if not r.path.startswith("/_emulator")]) + injected
    assert CYCLES >= 100
    assert created + failed == CYCLES and created >= CYCLES - 2
    assert compute.instances() == []
    per_request_id = Counter(rid for rid, _ in compute.inserted)
    assert per_request_id and max(per_request_id.values()) == 1, per_request_id.most_common(3)
    assert None not in per_request_id
    assert all(per_request_id[rid] == 1 for rid in request_ids)  # one VM per successful create
    assert created <= len(compute.inserted) <= created + failed
    # the faults really happened, at about the rate asked for
    assert set(emu.faults.counts) == {"429", "503", "drop"}
    assert 0.15 < injected / total < 0.25, (injected, total)
    assert sum(lost.values()) > 5
