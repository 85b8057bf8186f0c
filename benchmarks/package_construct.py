"""Benchmark: registering a component through the ``dws`` component provider (``Construct``, as
a TypeScript, Go or YAML program does) against registering it with the Python API; prints, for
every component of the registry, the time per component each way and their ratio.

Method: both sides register against the same kind of resource monitor, a gRPC server in this
process answering as ``GcpMocks`` (``pulumi_dws.testing.component_host.FakeMonitor``), as a
real deployment registers against the engine over gRPC; what plays the program (the Python
program, or the engine's ``Construct`` calls) runs in a fresh process of its own:

* Python API: a fresh Python process whose Pulumi runtime is pointed at the monitor (as the
  language host points a program at the engine) registers a warm-up program (5 components,
  other monitor), then N components of the kind; the time is that of the N.
* Construct: a fresh process starts the plugin (``python provider <engine>``) and sends it 5
  warm-up ``Construct`` calls (other monitor), then N calls at once, as the engine sends a
  program's components (each call returns once its component's outputs are known, so the
  engine does not wait for one before the next), their requests made before the clock starts
  (the engine makes them in Go); the time is that of the N, round trips and the provider's own
  registrations included. The same N calls one after the other (each waited for) are timed
  too: the latency of one component, for comparison.

Each kind takes the median of R alternating rounds (Python, Construct, Python...); the ratio is
Construct (at once) over the Python API. The CPU each side's Pulumi SDK process uses (the
Python program's; the plugin's) is measured too, and its ratio is the steadier one on a busy
machine: wall time there measures the other processes as much as these.

    .venv/bin/python benchmarks/package_construct.py [--count 30] [--rounds 3] [--kinds QueuedTpu]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

WARM_UP = 5


def python_side(kind_name: str, count: int, warm_monitor: str, monitor: str, engine: str) -> None:
    """Runs in a fresh process: the Python API's registrations, timed, printed as JSON."""
    import pulumi
    from pulumi.runtime import settings
    from pulumi.runtime.config import set_all_config
    from pulumi.runtime.stack import run_pulumi_func
    from pulumi.runtime.sync_await import _sync_await

    from pulumi_dws import registry
    from pulumi_dws.testing.component_host import COMPONENT_ARGS

    kind = next(k for k in registry.kinds() if k.name == kind_name)
    args = COMPONENT_ARGS[kind_name]

    def run(address: str, n: int, prefix: str) -> tuple[float, float]:
        settings.reset_options(
            project="project", stack="dev", monitor_address=address, engine_address=engine
        )
        set_all_config({"gcp:project": "mock-project"})
        _sync_await(settings._load_monitor_feature_support())

        def program() -> None:
            for i in range(n):
                kind.component(f"{prefix}-{i}", dict(args))

        start, cpu = time.perf_counter(), time.process_time()
        _sync_await(run_pulumi_func(program))
        return time.perf_counter() - start, time.process_time() - cpu

    del pulumi
    run(warm_monitor, WARM_UP, "warm")
    seconds, cpu = run(monitor, count, "c")
    print(json.dumps({"seconds": seconds, "cpu": cpu}))


def _python_round(kind_name: str, count: int) -> tuple[float, float]:
    from pulumi_dws.testing.component_host import FakeEngine, FakeMonitor

    engine, warm, timed = FakeEngine(), FakeMonitor(), FakeMonitor()
    try:
        out = subprocess.run(
            [
                sys.executable,
                __file__,
                "--python-side",
                kind_name,
                str(count),
                warm.address,
                timed.address,
                engine.address,
            ],
            check=True,
            capture_output=True,
            text=True,
        )
        assert len(timed.mocks.registered) >= count, (kind_name, len(timed.mocks.registered))
        result = json.loads(out.stdout.strip().splitlines()[-1])
        return float(result["seconds"]), float(result["cpu"])
    finally:
        for server in (warm, timed, engine):
            server.stop()


def construct_side(kind_name: str, count: int, warm: str, at_once: str, one_by_one: str) -> None:
    """Runs in a fresh process: the plugin's ``Construct`` calls, timed, printed as JSON."""
    from pulumi.runtime.proto import provider_pb2

    from pulumi_dws import registry
    from pulumi_dws.defaults import type_token
    from pulumi_dws.testing.component_host import (
        COMPONENT_ARGS,
        ComponentProviderHost,
        schema_inputs,
    )
    from pulumi_dws.testing.dynamic_host.wire import to_struct

    kind = next(k for k in registry.kinds() if k.name == kind_name)
    inputs = to_struct(schema_inputs(kind, COMPONENT_ARGS[kind_name]))

    def requests(monitor: str, prefix: str, n: int) -> list[Any]:
        # Made before the clock starts: the engine makes them in Go.
        return [
            provider_pb2.ConstructRequest(
                project="project",
                stack="dev",
                config={"gcp:project": "mock-project"},
                monitorEndpoint=monitor,
                type=type_token(kind_name),
                name=f"{prefix}-{i}",
                inputs=inputs,
                organization="organization",
            )
            for i in range(n)
        ]

    with ComponentProviderHost() as host, ThreadPoolExecutor(max_workers=count) as pool:
        list(pool.map(lambda r: host.call("Construct", r), requests(warm, "warm", WARM_UP)))
        together = requests(at_once, "c", count)
        start, cpu = time.perf_counter(), _cpu(host.pid)
        list(pool.map(lambda r: host.call("Construct", r), together))
        at_once_seconds = time.perf_counter() - start
        provider_cpu = _cpu(host.pid) - cpu
        apart = requests(one_by_one, "c", count)
        start = time.perf_counter()
        for request in apart:
            host.call("Construct", request)
        one_by_one_seconds = time.perf_counter() - start
    print(
        json.dumps(
            {"at_once": at_once_seconds, "one_by_one": one_by_one_seconds, "cpu": provider_cpu}
        )
    )


def _cpu(pid: int | None) -> float:
    """CPU seconds process ``pid`` has used (user + system; Linux ``/proc``)."""
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()  # noqa: SIM115
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _construct_round(kind_name: str, count: int) -> tuple[float, float, float]:
    from pulumi_dws.testing.component_host import FakeMonitor

    monitors = [FakeMonitor(), FakeMonitor(), FakeMonitor()]
    try:
        out = subprocess.run(
            [
                sys.executable,
                __file__,
                "--construct-side",
                kind_name,
                str(count),
                *(m.address for m in monitors),
            ],
            check=True,
            capture_output=True,
            text=True,
        )
        for monitor in monitors[1:]:
            assert len(monitor.mocks.registered) >= count, kind_name
        result = json.loads(out.stdout.strip().splitlines()[-1])
        return float(result["at_once"]), float(result["one_by_one"]), float(result["cpu"])
    finally:
        for monitor in monitors:
            monitor.stop()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=30, help="components per timed run")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--kinds", nargs="*", help="component names (default: every kind)")
    parser.add_argument("--python-side", nargs=5, help=argparse.SUPPRESS)
    parser.add_argument("--construct-side", nargs=5, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.construct_side:
        kind, count, warm, together, apart = args.construct_side
        construct_side(kind, int(count), warm, together, apart)
        return
    if args.python_side:
        kind, count, warm, monitor, engine = args.python_side
        python_side(kind, int(count), warm, monitor, engine)
        return

    from pulumi_dws import registry

    names = args.kinds or [k.name for k in registry.kinds()]
    print(f"N = {args.count} components per run, median of {args.rounds} rounds")
    print(
        "component | Python API ms/component | Construct ms/component | ratio "
        "| Construct one by one ms | Python CPU ms | provider CPU ms | CPU ratio"
    )
    ratios: list[float] = []
    cpu_ratios: list[float] = []
    for name in names:
        python: list[float] = []
        python_cpu: list[float] = []
        at_once: list[float] = []
        one_by_one: list[float] = []
        provider_cpu: list[float] = []
        for _ in range(args.rounds):
            seconds, cpu = _python_round(name, args.count)
            python.append(seconds)
            python_cpu.append(cpu)
            together, apart, used = _construct_round(name, args.count)
            at_once.append(together)
            one_by_one.append(apart)
            provider_cpu.append(used)

        def per(values: list[float]) -> float:
            return statistics.median(values) / args.count * 1000

        py, co, seq = per(python), per(at_once), per(one_by_one)
        py_cpu, co_cpu = per(python_cpu), per(provider_cpu)
        ratios.append(co / py)
        cpu_ratios.append(co_cpu / py_cpu)
        print(
            f"{name} | {py:.1f} | {co:.1f} | {co / py:.2f}x | {seq:.1f} | {py_cpu:.1f} | "
            f"{co_cpu:.1f} | {co_cpu / py_cpu:.2f}x",
            flush=True,
        )
    print(f"largest CPU ratio: {max(cpu_ratios):.2f}x")
    print(f"largest ratio: {max(ratios):.2f}x")


if __name__ == "__main__":
    main()
