"""Benchmark (a): registering N ``FlexStartInstance`` vs N raw ``gcp.compute.Instance`` Flex-start
VMs under :class:`pulumi_dws.testing.GcpMocks`, in one run; prints the time-per-VM ratio.

The component registers three resources per VM (the component, an instance template and the
``FlexStartVm`` dynamic resource, whose provider is pickled each time) where the raw VM
registers one, so the ratio measures what validation and provider pickling add on top of the
SDK's own registration cost.

    .venv/bin/python benchmarks/flex_vm_registration.py [N] [--repeat R]
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

import pulumi_gcp as gcp
from harness import IMAGE, MACHINE, ZONE, raw_flex_start_scheduling, timed
from pulumi.dynamic.dynamic import serialize_provider
from pulumi.runtime._serialization import _serialize

from pulumi_dws.flex_vm import FlexStartInstance, FlexStartInstanceSpec
from pulumi_dws.models import parse_args
from pulumi_dws.providers.flex_vm import default_provider


def raw_vms(n: int) -> Callable[[], None]:
    def program() -> None:
        for i in range(n):
            gcp.compute.Instance(
                f"raw-{i}",
                project="bench",
                zone=ZONE,
                machine_type=MACHINE,
                boot_disk={
                    "initialize_params": {
                        "image": IMAGE,
                        "size": 100,
                    }
                },
                network_interfaces=[{"network": "default"}],
                service_account={"scopes": ["https://www.googleapis.com/auth/cloud-platform"]},
                scheduling=raw_flex_start_scheduling("STOP"),
                labels={"team": "ml"},
            )

    return program


ARGS = {
    "project": "bench",
    "zone": ZONE,
    "machine_type": MACHINE,
    "max_run_duration": "3d",
    "termination_action": "STOP",
    "request_valid_for": "2h",
    "labels": {"team": "ml"},
}


def component_vms(n: int) -> Callable[[], None]:
    def program() -> None:
        for i in range(n):
            FlexStartInstance(f"vm-{i}", dict(ARGS))

    return program


def own_overhead_ms(n: int) -> float:
    """What the component adds by itself per VM: validating the args, pickling the provider."""
    provider = default_provider()
    start = time.perf_counter()
    for _ in range(n):
        parse_args(FlexStartInstanceSpec, dict(ARGS))
        _serialize(True, serialize_provider, provider)
    return (time.perf_counter() - start) / n * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("n", nargs="?", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3, help="alternating runs of each")
    args = parser.parse_args()
    n = args.n
    timed(component_vms(20), 60)  # warm-up: imports, first pickling
    timed(raw_vms(20), 20)
    raw, comp = [], []
    for _ in range(args.repeat):
        raw.append(timed(raw_vms(n), n))
        comp.append(timed(component_vms(n), 3 * n))
    raw_per = statistics.median(raw) / n * 1000
    comp_per = statistics.median(comp) / n * 1000
    print(f"N = {n} VMs, median of {args.repeat} alternating runs under GcpMocks")
    print(f"  raw gcp.compute.Instance : {raw_per:7.3f} ms per VM (1 resource each)")
    print(f"  FlexStartInstance        : {comp_per:7.3f} ms per VM (3 resources each)")
    print(f"  time-per-VM ratio        : {comp_per / raw_per:7.2f}  (target <= 1.5)")
    print(f"  per registered resource  : {comp_per / 3 / raw_per:7.2f} x a raw Instance")
    own = own_overhead_ms(n)
    print(f"  validation + pickling    : {own:7.3f} ms per VM ({own / comp_per:.1%} of the total)")


if __name__ == "__main__":
    main()
