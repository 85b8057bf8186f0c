"""What the benchmarks share: registering programs under :class:`~pulumi_dws.testing.GcpMocks`
and timing them, the raw pulumi-gcp Flex-start settings they compare against, and the
queue-wait table of API calls against virtual wait.

Imported by the benchmark scripts of this folder (run as ``python benchmarks/<name>.py``, so
this folder is on ``sys.path``)."""

from __future__ import annotations

import gc
import math
import os
import time
from collections.abc import Callable
from typing import Any

from pulumi_dws.testing import GcpMocks
from pulumi_dws.testing.clock_helpers import emulator_env, virtual_sleep
from pulumi_dws.testing.emulator import Emulator

ZONE, MACHINE = "us-central1-a", "a3-highgpu-8g"
IMAGE = "projects/debian-cloud/global/images/family/debian-12"
WAITS = [0, 10, 60, 300, 900, 1800, 3600, 5400, 7000]
"""Queue waits (virtual seconds) the queue-wait benchmarks measure, up to the 2-hour window."""


def timed(program: Callable[[], None], expected: int) -> float:
    """Seconds ``program`` takes to register under fresh ``GcpMocks``; it must register
    ``expected`` resources."""
    mocks = GcpMocks(project="bench")
    gc.collect()
    start = time.perf_counter()
    mocks.run(program)
    elapsed = time.perf_counter() - start
    assert len(mocks.registered) == expected, (len(mocks.registered), expected)
    return elapsed


def raw_flex_start_scheduling(termination_action: str) -> dict[str, Any]:
    """The ``scheduling`` a user writes for a 3-day Flex-start VM with raw pulumi-gcp."""
    return {
        "provisioning_model": "FLEX_START",
        "max_run_duration": {"seconds": 259200},
        "instance_termination_action": termination_action,
        "automatic_restart": False,
        "on_host_maintenance": "TERMINATE",
    }


def queue_wait_table(
    provider_for: Callable[[Emulator, Callable[[float], None]], Any],
    props: Callable[[int], dict[str, Any]],
    *,
    count: int,
    succeeded: Callable[[dict[str, Any]], bool],
) -> None:
    """Print, for each of ``WAITS``, the API calls and wall time of one create
    (``provider.create(props(i))``) whose ``count`` VMs of ``MACHINE`` arrive after that wait;
    ``provider_for(emu, sleep)`` makes the provider (and anything it needs in the emulator).
    ``succeeded(outs)`` must hold for each create."""
    print("queue wait | API calls | wall ms | noticed after | calls / log2(wait+2)")
    with Emulator() as emu:
        os.environ.update(emulator_env(emu, virtual_clock=False))
        provider = provider_for(emu, virtual_sleep(emu))
        compute = emu["compute"]
        for i, wait in enumerate(WAITS):
            while compute.capacity.take(ZONE, MACHINE):  # nothing free: the create must queue
                pass
            compute.add_capacity(ZONE, MACHINE, count, after=wait)
            before = len(emu.requests)
            started_virtual = emu.clock.now()
            start = time.perf_counter()
            result = provider.create(props(i))
            wall = (time.perf_counter() - start) * 1000
            assert succeeded(result.outs), result.outs
            calls = sum(1 for r in emu.requests[before:] if not r.path.startswith("/_emulator"))
            noticed = (emu.clock.now() - started_virtual).total_seconds()
            ratio = calls / math.log2(wait + 2)
            print(f"{wait:>9}s | {calls:>9} | {wall:>7.1f} | {noticed:>12.0f}s | {ratio:>8.2f}")
            provider.delete(result.id, result.outs)
