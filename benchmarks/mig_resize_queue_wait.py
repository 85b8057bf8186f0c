"""Benchmark: API calls and wall time per ``MigResizeRequest`` create (4 VMs, ``waitFor:
running``) as the queue wait for the whole set grows from 0 to about 2 h of virtual time (the
emulator's clock; the provider's sleeps advance it).

Polling doubles its interval, so the calls must grow no faster than the logarithm of the wait:
the last column (calls / log2(wait + 2)) must not grow.

    .venv/bin/python benchmarks/mig_resize_queue_wait.py
"""

from __future__ import annotations

from typing import Any

from harness import MACHINE, queue_wait_table

from pulumi_dws.kinds.flex_group.provider import MigResizeRequestProvider
from pulumi_dws.testing.clock_helpers import flex_start_group, mig_resize_props
from pulumi_dws.testing.emulator import Emulator

COUNT = 4


def provider_for(emu: Emulator, sleep: Any) -> MigResizeRequestProvider:
    flex_start_group(emu, "bench", project="bench", machine_type=MACHINE)
    return MigResizeRequestProvider(sleep=sleep)


def main() -> None:
    queue_wait_table(
        provider_for,
        lambda i: mig_resize_props(f"rr-{i}", "bench", count=COUNT, project="bench"),
        count=COUNT,
        succeeded=lambda outs: outs["state"] == "SUCCEEDED",
    )


if __name__ == "__main__":
    main()
