"""Benchmark (c): size of the serialized ``FlexStartVm`` provider that every resource carries
(in each engine call and in the stack state), next to the rest of the resource's inputs.

Target: <= 4 KB per resource.

    .venv/bin/python benchmarks/flex_vm_provider_size.py
"""

from __future__ import annotations

import json
import time

from pulumi.dynamic.dynamic import serialize_provider

from pulumi_dws.kinds.flex_vm.component import FlexStartInstance
from pulumi_dws.kinds.flex_vm.provider import FlexStartVmProvider
from pulumi_dws.testing import GcpMocks
from pulumi_dws.testing.dynamic_host import serialized_provider_size

N = 50


def main() -> None:
    provider = FlexStartVmProvider()
    size = serialized_provider_size(provider)
    start = time.perf_counter()
    for _ in range(200):
        serialize_provider(provider)
    per_pickle = (time.perf_counter() - start) / 200 * 1000

    mocks = GcpMocks(project="bench")

    def program() -> None:
        for i in range(N):
            FlexStartInstance(
                f"vm-{i}",
                {
                    "project": "bench",
                    "zone": "us-central1-a",
                    "machine_type": "a3-highgpu-8g",
                    "max_run_duration": "3d",
                    "request_valid_for": "2h",
                    "labels": {"team": "ml"},
                },
            )

    mocks.run(program)
    vms = mocks.resources("pulumi-python:dynamic/dws:FlexStartVm")
    stored = {len(str(vm.inputs["__provider"])) for vm in vms}
    rest = [
        len(json.dumps({k: v for k, v in vm.inputs.items() if k != "__provider"}, default=str))
        for vm in vms
    ]
    print(
        f"serialized provider (base64 dill, as sent in __provider): {size} bytes (target <= 4096)"
    )
    print(f"  as registered by {N} FlexStartVm resources under GcpMocks: {sorted(stored)} bytes")
    print(f"  the rest of a resource's inputs (JSON): about {sum(rest) // len(rest)} bytes")
    print(f"  pickling it once: {per_pickle:.3f} ms")


if __name__ == "__main__":
    main()
