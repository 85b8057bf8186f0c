"""Benchmark: registration cost per VM of ``FlexStartGroup`` vs the same capacity written with raw
pulumi-gcp resources (an instance template, a workload policy, a managed instance group and a
``ResizeRequest``), under :class:`pulumi_dws.testing.GcpMocks`, in one run; prints ratios.

The groups are frontier ones: A4 VMs with a workload policy (``placement``). A group registers
three resources whatever its size (the component, a MIG and the ``MigResizeRequest`` dynamic
resource), and the program's groups of one shape share one instance template and one
``ResourcePolicy`` (Google applies one workload policy to many groups, each on its own). The raw
set is measured twice: as the issue states it (a template and a policy per group, four
resources) and sharing one template and one policy as the component does (what a careful user
writes; two per group), so the first ratio is what a user saves and the second what validation,
the component and the dynamic resource cost. Per VM, all shrink as the group grows.

    .venv/bin/python benchmarks/flex_group_registration.py [GROUPS] [--sizes 1,4,64] [--repeat R]
"""

from __future__ import annotations

import argparse
import gc
import statistics
import time
from collections.abc import Callable

import pulumi_gcp as gcp
from harness import IMAGE, ZONE, raw_flex_start_scheduling

from pulumi_dws.kinds.flex_group.component import FlexStartGroup
from pulumi_dws.testing import GcpMocks

MACHINE = "a4-highgpu-8g"


def timed(program: Callable[[], None], expected: int) -> float:
    """CPU seconds ``program`` takes to register under fresh ``GcpMocks`` (the process's CPU
    time, every thread: other programs on a shared machine do not count); it must register
    ``expected`` resources."""
    mocks = GcpMocks(project="bench")
    gc.collect()
    start = time.process_time()
    mocks.run(program)
    elapsed = time.process_time() - start
    assert len(mocks.registered) == expected, (len(mocks.registered), expected)
    return elapsed


def raw_groups(groups: int, size: int, shared: bool = False) -> Callable[[], None]:
    """What a user writes without the component: template, workload policy, size-0 MIG,
    resize request per group; with ``shared``, one template and one policy for all groups
    (what the component does)."""

    def program() -> None:
        template: gcp.compute.InstanceTemplate | None = None
        policy: gcp.compute.ResourcePolicy | None = None
        for i in range(groups):
            if template is None or not shared:
                template = raw_template(i)
            if policy is None or not shared:
                policy = gcp.compute.ResourcePolicy(
                    f"raw-{i}-policy",
                    project="bench",
                    region="us-central1",
                    name=f"raw-{i}",
                    workload_policy={"type": "HIGH_THROUGHPUT", "max_topology_distance": "BLOCK"},
                )
            group = gcp.compute.InstanceGroupManager(
                f"raw-{i}-group",
                project="bench",
                zone=ZONE,
                name=f"raw-{i}",
                base_instance_name=f"raw-{i}",
                versions=[{"instance_template": template.self_link}],
                instance_lifecycle_policy={"default_action_on_failure": "DO_NOTHING"},
                resource_policies={"workload_policy": policy.self_link},
                wait_for_instances=False,
            )
            gcp.compute.ResizeRequest(
                f"raw-{i}-request",
                project="bench",
                zone=ZONE,
                instance_group_manager=group.name,
                name=f"raw-{i}",
                resize_by=size,
                requested_run_duration={"seconds": "259200"},
            )

    return program


def raw_template(i: int) -> gcp.compute.InstanceTemplate:
    return gcp.compute.InstanceTemplate(
        f"raw-{i}-template",
        project="bench",
        machine_type=MACHINE,
        disks=[
            {
                "boot": True,
                "auto_delete": True,
                "source_image": IMAGE,
                "disk_size_gb": 100,
            }
        ],
        network_interfaces=[{"network": "default"}],
        service_account={"scopes": ["https://www.googleapis.com/auth/cloud-platform"]},
        scheduling=raw_flex_start_scheduling("DELETE"),
        reservation_affinity={"type": "NO_RESERVATION"},
        labels={"team": "ml"},
    )


def component_groups(groups: int, size: int) -> Callable[[], None]:
    def program() -> None:
        for i in range(groups):
            FlexStartGroup(
                f"set-{i}",
                {
                    "project": "bench",
                    "zone": ZONE,
                    "machine_type": MACHINE,
                    "count": size,
                    "run_duration": "3d",
                    "placement": {"max_topology_distance": "BLOCK"},
                    "labels": {"team": "ml"},
                },
            )

    return program


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("groups", nargs="?", type=int, default=200)
    parser.add_argument("--sizes", default="1,4,64", help="VMs per group, comma-separated")
    parser.add_argument("--repeat", type=int, default=3, help="alternating runs of each")
    args = parser.parse_args()
    groups = args.groups
    timed(component_groups(10, 4), 32)  # warm-up: imports, first pickling
    timed(raw_groups(10, 4), 40)
    timed(raw_groups(10, 4, shared=True), 22)
    print(
        f"{groups} groups per run, median CPU time of {args.repeat} alternating runs under GcpMocks"
    )
    print("  raw = template + workload policy + MIG + ResizeRequest (4 resources per group);")
    print("  raw shared = one template and one policy for all groups + MIG + ResizeRequest;")
    print(
        "  FlexStartGroup = component + MIG + MigResizeRequest (3 per group) "
        "+ one template and one workload policy the groups share"
    )
    for size in (int(s) for s in args.sizes.split(",")):
        raw, shared, comp = [], [], []
        for _ in range(args.repeat):
            raw.append(timed(raw_groups(groups, size), 4 * groups))
            shared.append(timed(raw_groups(groups, size, shared=True), 2 * groups + 2))
            comp.append(timed(component_groups(groups, size), 3 * groups + 2))
        per_vm = 1000 / (groups * size)
        raw_vm = statistics.median(raw) * per_vm
        shared_vm = statistics.median(shared) * per_vm
        comp_vm = statistics.median(comp) * per_vm
        print(
            f"  {size:4d} VMs per group: raw {raw_vm:8.3f} ms/VM, raw shared {shared_vm:8.3f} "
            f"ms/VM, FlexStartGroup {comp_vm:8.3f} ms/VM; ratio {comp_vm / raw_vm:5.2f} "
            f"(vs raw shared {comp_vm / shared_vm:4.2f})"
        )


if __name__ == "__main__":
    main()
