"""Benchmark (b): API calls and wall time per ``FlexStartVm`` create as the queue wait grows
from 0 to 2 h of virtual time (the emulator's clock; the provider's sleeps advance it).

Operation polling doubles its interval, so the calls must grow no faster than the logarithm of
the wait: the last column (calls / log2(wait + 2)) must not grow.

    .venv/bin/python benchmarks/flex_vm_queue_wait.py
"""

from __future__ import annotations

import math
import os
import time

from pulumi_dws.providers.flex_vm import FlexStartVmProvider
from pulumi_dws.testing.clock_helpers import emulator_env, flex_start_vm_props, virtual_sleep
from pulumi_dws.testing.emulator import Emulator

ZONE, MACHINE = "us-central1-a", "a3-highgpu-8g"
WAITS = [0, 10, 60, 300, 900, 1800, 3600, 5400, 7000]


def props(name: str) -> dict:
    return flex_start_vm_props(
        name, project="bench", zone=ZONE, machine_type=MACHINE, network=None, request_valid_for=7200
    )


def main() -> None:
    print("queue wait | API calls | wall ms | noticed after | calls / log2(wait+2)")
    with Emulator() as emu:
        os.environ.update(emulator_env(emu, virtual_clock=False))
        provider = FlexStartVmProvider(sleep=virtual_sleep(emu))
        for i, wait in enumerate(WAITS):
            compute = emu["compute"]
            while compute.capacity.take(ZONE, MACHINE):  # nothing free: the VM must queue
                pass
            compute.add_capacity(ZONE, MACHINE, 1, after=wait)
            before = len(emu.requests)
            started_virtual = emu.clock.now()
            start = time.perf_counter()
            result = provider.create(props(f"vm-{i}"))
            wall = (time.perf_counter() - start) * 1000
            assert result.outs["status"] == "RUNNING"
            calls = sum(1 for r in emu.requests[before:] if not r.path.startswith("/_emulator"))
            noticed = (emu.clock.now() - started_virtual).total_seconds()
            ratio = calls / math.log2(wait + 2)
            print(f"{wait:>9}s | {calls:>9} | {wall:>7.1f} | {noticed:>12.0f}s | {ratio:>8.2f}")
            provider.delete(result.id, result.outs)


if __name__ == "__main__":
    main()
