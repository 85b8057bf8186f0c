"""Benchmark: registering N ``FlexStartInstance`` vs N raw ``gcp.compute.Instance`` Flex-start VMs;
prints the time-per-VM ratio at N = 300 and N = 1000, measured in one run.

Method: plain recording mocks (a ``pulumi.runtime.Mocks`` that records each registration and
echoes its inputs) in preview mode; every run is a fresh process that first registers a small
warm-up program (imports, first pickling of the dynamic provider) and then times the N-VM
program; each size takes the median of R alternating rounds (raw, component, raw, ...).

    .venv/bin/python benchmarks/flex_vm_registration.py [--sizes 300 1000] [--rounds 5]
    .venv/bin/python benchmarks/flex_vm_registration.py --profile 1000   # cProfile, component

The raw Instance carries the same shape (machine type, boot disk, network, scopes, Flex-start
scheduling, labels) as the component's VM; what the component adds on top is its own
registration (one component resource per VM), the validation of its args and the dynamic
``FlexStartVm`` (pickled provider, the insert body). The shared instance template is registered
once per distinct shape, so it costs nothing per VM at these sizes.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

ZONE = "us-central1-a"
MACHINE = "a3-highgpu-8g"
WARM_UP = 20

ARGS = {
    "project": "bench",
    "zone": ZONE,
    "machine_type": MACHINE,
    "max_run_duration": "3d",
    "termination_action": "STOP",
    "request_valid_for": "2h",
    "labels": {"team": "ml"},
}


def raw_vms(n: int, prefix: str) -> Callable[[], None]:
    import pulumi_gcp as gcp

    def program() -> None:
        for i in range(n):
            gcp.compute.Instance(
                f"{prefix}-{i}",
                project="bench",
                zone=ZONE,
                machine_type=MACHINE,
                boot_disk={
                    "initialize_params": {
                        "image": "projects/debian-cloud/global/images/family/debian-12",
                        "size": 100,
                    }
                },
                network_interfaces=[{"network": "default"}],
                service_account={"scopes": ["https://www.googleapis.com/auth/cloud-platform"]},
                scheduling={
                    "provisioning_model": "FLEX_START",
                    "max_run_duration": {"seconds": 259200},
                    "instance_termination_action": "STOP",
                    "automatic_restart": False,
                    "on_host_maintenance": "TERMINATE",
                },
                labels={"team": "ml"},
            )

    return program


def component_vms(n: int, prefix: str) -> Callable[[], None]:
    from pulumi_dws.kinds.flex_vm.component import FlexStartInstance

    def program() -> None:
        for i in range(n):
            FlexStartInstance(f"{prefix}-{i}", dict(ARGS))  # type: ignore[arg-type]

    return program


PROGRAMS = {"raw": raw_vms, "component": component_vms}


def _run_once(program: Callable[[], None]) -> tuple[float, int]:
    """Register ``program`` under fresh plain recording mocks in preview mode."""
    import pulumi
    from pulumi.runtime import settings
    from pulumi.runtime.stack import run_pulumi_func

    registered: list[tuple[str, str]] = []

    class RecordingMocks(pulumi.runtime.Mocks):
        def new_resource(self, args: pulumi.runtime.MockResourceArgs) -> tuple[str, dict]:
            registered.append((args.typ, args.name))
            return f"{args.name}-id", dict(args.inputs)

        def call(self, args: pulumi.runtime.MockCallArgs) -> tuple[dict, None]:
            return {}, None

    settings.ROOT.set(None)
    pulumi.runtime.set_mocks(RecordingMocks(), project="bench", stack="dev", preview=True)
    loop = asyncio.get_event_loop()
    start = time.perf_counter()
    loop.run_until_complete(run_pulumi_func(program))
    return time.perf_counter() - start, len(registered)


def child(kind: str, n: int) -> None:
    """One measured run in this (fresh) process: a warm-up, then N VMs; prints JSON."""
    asyncio.set_event_loop(asyncio.new_event_loop())
    make = PROGRAMS[kind]
    _run_once(make(WARM_UP, "warm"))
    elapsed, count = _run_once(make(n, "vm"))
    print(json.dumps({"kind": kind, "n": n, "seconds": elapsed, "registered": count}))


def measure(kind: str, n: int) -> dict[str, Any]:
    out = subprocess.run(
        [sys.executable, __file__, "--child", kind, str(n)],
        check=True,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONHASHSEED": "0"},
    ).stdout
    return json.loads(out.strip().splitlines()[-1])


def profile(n: int) -> None:
    import cProfile
    import pstats

    asyncio.set_event_loop(asyncio.new_event_loop())
    _run_once(component_vms(WARM_UP, "warm"))
    profiler = cProfile.Profile()
    profiler.enable()
    _run_once(component_vms(n, "vm"))
    profiler.disable()
    pstats.Stats(profiler).sort_stats("cumulative").print_stats(45)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[300, 1000])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--child", nargs=2, metavar=("KIND", "N"), help=argparse.SUPPRESS)
    parser.add_argument("--profile", type=int, metavar="N", help="cProfile N components")
    args = parser.parse_args()
    if args.child:
        child(args.child[0], int(args.child[1]))
        return
    if args.profile:
        profile(args.profile)
        return
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    print(
        "plain recording mocks, preview, a fresh process per run after a warm-up of "
        f"{WARM_UP} VMs; median of {args.rounds} alternating rounds"
    )
    for n in args.sizes:
        seconds: dict[str, list[float]] = {"raw": [], "component": []}
        counts: dict[str, int] = {}
        for _ in range(args.rounds):
            for kind in ("raw", "component"):
                run = measure(kind, n)
                seconds[kind].append(run["seconds"])
                counts[kind] = run["registered"]
        raw = statistics.median(seconds["raw"]) / n * 1000
        comp = statistics.median(seconds["component"]) / n * 1000
        print(f"N = {n}")
        print(f"  raw gcp.compute.Instance : {raw:7.3f} ms per VM ({counts['raw']} registered)")
        print(
            f"  FlexStartInstance        : {comp:7.3f} ms per VM ({counts['component']} registered)"
        )
        print(f"  ratio                    : {comp / raw:7.2f}  (target <= 1.25)")
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
