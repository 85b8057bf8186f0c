"""Fault runs: create/delete cycles of every dynamic provider (and of a job of the fake API that
names its jobs, pulumi_dws.testing.labelled_jobs: the OWNER_SEARCH mode) through the fault
proxy, which damages 25% of the exchanges (about half of them *after* the API acted: answers
lost, reset, truncated, HTML, empty, not JSON, a string ``error``, huge, late, slow, dribbled).
About one create in six is interrupted mid-wait (the engine's Cancel, or the end of its call:
SIGINT/SIGTERM to the host), and one cycle in seven is a two-stack cycle (another stack goes
for the same resource). Counts come from the emulator's own records. Prints, per provider:
cycles, faults by kind before/after the act, interruptions, two-stack cycles, orphans
(resources no successful create returned) and duplicates (targets: 0 and 0), then a table.

    .venv/bin/python benchmarks/fault_run.py [cycles] [rate] [seed]

The test suite runs 200 cycles per provider; this script defaults to 1000. The kinds that
declare their fault run in their test aids (``FAULT_RUN``: Vertex AI custom jobs and
deployments, Cloud Batch jobs) are run too, found through the registry: a new kind's run needs
no line here.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from pulumi_dws.testing.emulator import Emulator, VirtualClock
from pulumi_dws.testing.emulator.aiplatform import AiPlatformService
from pulumi_dws.testing.emulator.tpu import TpuService
from pulumi_dws.testing.fault_proxy import FaultProxy
from pulumi_dws.testing.fault_run import (
    flex_vm_fault_run,
    kind_fault_runs,
    labelled_job_fault_run,
    mig_resize_fault_run,
    queued_tpu_fault_run,
    slurm_fault_run,
)
from pulumi_dws.testing.labelled_jobs import LabelledJobsService

SEED_BODY = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "cluster_config.json"
TPU_BODIES = (
    Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "gcloud_queued_tpu_bodies.json"
)


def slurm_body(cluster_id: str) -> dict:
    text = (
        SEED_BODY.read_text()
        .replace("<project-id>", "my-project")
        .replace("<region>", "us-central1")
        .replace("<zone>", "us-central1-b")
        .replace("<filestore-id>", "home")
    )
    return json.loads(text)


def tpu_body(resource_id: str, zone: str) -> dict:
    """gcloud's Flex-start v6e-16 body (1 day, 2-hour window) for ``resource_id`` in ``zone``."""
    body = json.loads(TPU_BODIES.read_text())["captures"]["qr-flexstart"]["body"]
    text = json.dumps(body).replace('"nodeId": "n1"', f'"nodeId": "{resource_id}"')
    return json.loads(text.replace("demo-project", "p").replace("us-east5-b", zone))


def main() -> int:
    cycles = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    rate = float(sys.argv[2]) if len(sys.argv) > 2 else 0.25
    seed = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    failed = False
    reports = []
    with Emulator() as emu, FaultProxy(emu) as proxy:
        start = time.perf_counter()
        report = flex_vm_fault_run(emu, proxy, cycles=cycles, rate=rate, seed=seed)
        print("\n".join(report.lines()), f"\n  {time.perf_counter() - start:.1f}s wall")
        failed |= bool(report.orphans or report.duplicates)
        reports.append(report)
    with Emulator() as emu, FaultProxy(emu) as proxy:
        start = time.perf_counter()
        report = mig_resize_fault_run(emu, proxy, cycles=cycles, rate=rate, seed=seed)
        print("\n".join(report.lines()), f"\n  {time.perf_counter() - start:.1f}s wall")
        failed |= bool(report.orphans or report.duplicates)
        reports.append(report)
    with Emulator([]) as emu, FaultProxy(emu) as proxy:
        emu.add(
            AiPlatformService(emu.clock, provision_seconds=60, update_seconds=30, delete_seconds=30)
        )
        start = time.perf_counter()
        report = slurm_fault_run(emu, proxy, cycles=cycles, rate=rate, seed=seed, body=slurm_body)
        print("\n".join(report.lines()), f"\n  {time.perf_counter() - start:.1f}s wall")
        failed |= bool(report.orphans or report.duplicates)
        reports.append(report)
    with Emulator([]) as emu, FaultProxy(emu) as proxy:
        emu.add(TpuService(emu.clock))
        start = time.perf_counter()
        report = queued_tpu_fault_run(
            emu, proxy, cycles=cycles, rate=rate, seed=seed, body=tpu_body
        )
        print("\n".join(report.lines()), f"\n  {time.perf_counter() - start:.1f}s wall")
        failed |= bool(report.orphans or report.duplicates)
        reports.append(report)
    with Emulator([]) as emu, FaultProxy(emu) as proxy:  # OWNER_SEARCH: the API names the job
        emu.add(LabelledJobsService(emu.clock))
        start = time.perf_counter()
        report = labelled_job_fault_run(emu, proxy, cycles=cycles, rate=rate, seed=seed)
        print("\n".join(report.lines()), f"\n  {time.perf_counter() - start:.1f}s wall")
        failed |= bool(report.orphans or report.duplicates)
        reports.append(report)
    for declared in kind_fault_runs():  # each kind's own, from its test aids
        clock = VirtualClock()
        with Emulator(declared.services(clock), clock=clock) as emu, FaultProxy(emu) as proxy:
            start = time.perf_counter()
            report = declared.run(emu, proxy, cycles=cycles, rate=rate, seed=seed)
            print("\n".join(report.lines()), f"\n  {time.perf_counter() - start:.1f}s wall")
            failed |= bool(report.orphans or report.duplicates)
            reports.append(report)
    print(table(reports))
    return 1 if failed else 0


def table(reports: list) -> str:
    """The runs as a Markdown table."""
    head = (
        "| provider | cycles | created | failed cleanly | interrupted | two-stack (crossed) "
        "| kept at the wait's end | requests | faults (after the act) | orphans | duplicates |\n"
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
    )
    rows = [
        f"| {r.provider} | {r.cycles} | {r.created} | {r.failed} | {r.interrupted} | "
        f"{r.two_stack} ({r.cross_stack}) | {r.kept} | {r.requests} | "
        f"{r.injected} ({r.after_act}) | {r.orphans} | {r.duplicates} |"
        for r in reports
    ]
    return "\n".join([head, *rows])


if __name__ == "__main__":
    raise SystemExit(main())
