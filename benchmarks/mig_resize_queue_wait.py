"""Benchmark: API calls and wall time per ``MigResizeRequest`` create (4 VMs, ``waitFor:
running``) as the queue wait for the whole set grows from 0 to about 2 h of virtual time (the
emulator's clock; the provider's sleeps advance it).

Polling doubles its interval, so the calls must grow no faster than the logarithm of the wait:
the last column (calls / log2(wait + 2)) must not grow.

    .venv/bin/python benchmarks/mig_resize_queue_wait.py
"""

from __future__ import annotations

import math
import os
import time

from pulumi_dws.providers.mig_resize import MigResizeRequestProvider
from pulumi_dws.testing.clock_helpers import (
    emulator_env,
    flex_start_group,
    mig_resize_props,
    virtual_sleep,
)
from pulumi_dws.testing.emulator import Emulator

ZONE, MACHINE, COUNT = "us-central1-a", "a3-highgpu-8g", 4
WAITS = [0, 10, 60, 300, 900, 1800, 3600, 5400, 7000]


def main() -> None:
    print("queue wait | API calls | wall ms | noticed after | calls / log2(wait+2)")
    with Emulator() as emu:
        os.environ.update(emulator_env(emu, virtual_clock=False))
        provider = MigResizeRequestProvider(sleep=virtual_sleep(emu))
        compute = emu["compute"]
        flex_start_group(emu, "bench", project="bench", machine_type=MACHINE)
        for i, wait in enumerate(WAITS):
            while compute.capacity.take(ZONE, MACHINE):  # nothing free: the set must queue
                pass
            compute.add_capacity(ZONE, MACHINE, COUNT, after=wait)
            before = len(emu.requests)
            started_virtual = emu.clock.now()
            start = time.perf_counter()
            props = mig_resize_props(f"rr-{i}", "bench", count=COUNT, project="bench")
            result = provider.create(props)
            wall = (time.perf_counter() - start) * 1000
            assert result.outs["state"] == "SUCCEEDED", result.outs
            calls = sum(1 for r in emu.requests[before:] if not r.path.startswith("/_emulator"))
            noticed = (emu.clock.now() - started_virtual).total_seconds()
            ratio = calls / math.log2(wait + 2)
            print(f"{wait:>9}s | {calls:>9} | {wall:>7.1f} | {noticed:>12.0f}s | {ratio:>8.2f}")
            provider.delete(result.id, result.outs)


if __name__ == "__main__":
    main()
