"""Benchmark (b): API calls and wall time per ``FlexStartVm`` create as the queue wait grows
from 0 to 2 h of virtual time (the emulator's clock; the provider's sleeps advance it).

Operation polling doubles its interval, so the calls must grow no faster than the logarithm of
the wait: the last column (calls / log2(wait + 2)) must not grow.

    .venv/bin/python benchmarks/flex_vm_queue_wait.py
"""

from __future__ import annotations

from harness import MACHINE, ZONE, queue_wait_table

from pulumi_dws.kinds.flex_vm.provider import FlexStartVmProvider
from pulumi_dws.testing.clock_helpers import flex_start_vm_props


def props(i: int) -> dict:
    return flex_start_vm_props(
        f"vm-{i}",
        project="bench",
        zone=ZONE,
        machine_type=MACHINE,
        network=None,
        request_valid_for=7200,
    )


def main() -> None:
    queue_wait_table(
        lambda emu, sleep: FlexStartVmProvider(sleep=sleep),
        props,
        count=1,
        succeeded=lambda outs: outs["status"] == "RUNNING",
    )


if __name__ == "__main__":
    main()
