"""Benchmark: registration cost per VM of ``FlexStartGroup`` vs the same capacity written with raw
pulumi-gcp resources (an instance template, a managed instance group and a ``ResizeRequest``),
under :class:`pulumi_dws.testing.GcpMocks`, in one run; prints ratios.

A group registers four resources whatever its size (the component, a template, a MIG and the
``MigResizeRequest`` dynamic resource, whose provider is pickled once per group); the raw set
registers three. Per VM, both shrink as the group grows: the ratio shows what validation and the
dynamic resource add, per group and per VM, for groups of ``--sizes`` VMs.

    .venv/bin/python benchmarks/flex_group_registration.py [GROUPS] [--sizes 1,4,64] [--repeat R]
"""

from __future__ import annotations

import argparse
import statistics
from collections.abc import Callable

import pulumi_gcp as gcp
from harness import IMAGE, MACHINE, ZONE, raw_flex_start_scheduling, timed

from pulumi_dws.kinds.flex_group.component import FlexStartGroup


def raw_groups(groups: int, size: int) -> Callable[[], None]:
    """What a user writes without the component: template, size-0 MIG, resize request."""

    def program() -> None:
        for i in range(groups):
            template = gcp.compute.InstanceTemplate(
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
            group = gcp.compute.InstanceGroupManager(
                f"raw-{i}-group",
                project="bench",
                zone=ZONE,
                name=f"raw-{i}",
                base_instance_name=f"raw-{i}",
                versions=[{"instance_template": template.self_link}],
                instance_lifecycle_policy={"default_action_on_failure": "DO_NOTHING"},
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
    timed(component_groups(10, 4), 40)  # warm-up: imports, first pickling
    timed(raw_groups(10, 4), 30)
    print(f"{groups} groups per run, median of {args.repeat} alternating runs under GcpMocks")
    print("  raw = template + MIG + ResizeRequest (3 resources per group);")
    print("  FlexStartGroup = component + template + MIG + MigResizeRequest (4 per group)")
    for size in (int(s) for s in args.sizes.split(",")):
        raw, comp = [], []
        for _ in range(args.repeat):
            raw.append(timed(raw_groups(groups, size), 3 * groups))
            comp.append(timed(component_groups(groups, size), 4 * groups))
        raw_vm = statistics.median(raw) / (groups * size) * 1000
        comp_vm = statistics.median(comp) / (groups * size) * 1000
        print(
            f"  {size:4d} VMs per group: raw {raw_vm:8.3f} ms/VM, FlexStartGroup "
            f"{comp_vm:8.3f} ms/VM, ratio {comp_vm / raw_vm:5.2f} "
            f"(per registered resource {comp_vm / 4 / (raw_vm / 3):4.2f})"
        )


if __name__ == "__main__":
    main()
