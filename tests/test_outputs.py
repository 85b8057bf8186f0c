"""Every argument that takes a string or a number also takes a Pulumi Output of one: checked
once known, registering exactly what the plain value registers; or, where the value decides
what a component registers, refused up front with the reason. No message shows an Output's
object repr or an internal class name."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Iterator
from typing import Any

import pulumi
import pytest

from pulumi_dws import CalendarReservation, ComputeClass, FlexStartInstance
from pulumi_dws.errors import DwsValidationError
from pulumi_dws.kinds.flex_vm.shapes import SHAPE_DESCRIPTION
from pulumi_dws.kinds.kueue.component import KueueQueue
from pulumi_dws.kinds.node_pool.component import QueuedNodePool
from pulumi_dws.kinds.slurm.component import SlurmCluster
from pulumi_dws.testing import GcpMocks, Registered

SA = "trainer@my-project.iam.gserviceaccount.com"
FULL: dict[str, tuple[Callable[..., Any], dict[str, Any]]] = {
    "FlexStartInstance": (
        FlexStartInstance,
        {
            "project": "proj", "zone": "us-central1-a", "machine_type": "a3-highgpu-8g",
            "max_run_duration": "3d", "request_valid_for": "2h", "termination_action": "STOP",
            "desired_status": "RUNNING", "wait_for": "running", "instance_name": "vm1",
            "image": "projects/debian-cloud/global/images/family/debian-12",
            "boot_disk_size_gb": 200, "boot_disk_type": "pd-ssd", "network": "net",
            "subnetwork": "sub", "service_account": SA, "scopes": ["https://www.googleapis.com/auth/cloud-platform"],
            "labels": {"team": "ml"}, "metadata": {"owner": "ml"}, "startup_script": "echo hi",
        },
    ),
    "CalendarReservation": (
        CalendarReservation,
        {
            "zone": "us-central1-a", "machine_type": "a3-highgpu-8g", "count": 2,
            "start_time": "+4w", "duration": "7d", "project": "proj", "name": "blk",
            "name_prefix": "pre", "planning_status": "SUBMITTED", "deployment_type": "DENSE",
            "description": "a block", "labels": {"team": "ml"}, "share_with": ["team-b"],
        },
    ),
    "QueuedNodePool": (
        QueuedNodePool,
        {
            "cluster": "ml-cluster", "location": "us-central1", "machine_type": "a3-highgpu-8g",
            "max_nodes": 4, "mode": "queued", "name": "pool", "project": "proj",
            "node_locations": ["us-central1-a"], "gpu_driver_version": "LATEST",
            "max_run_duration": "1d", "labels": {"team": "ml"}, "resource_labels": {"team": "ml"},
            "service_account": SA, "oauth_scopes": ["https://www.googleapis.com/auth/cloud-platform"],
            "disk_size_gb": 200, "disk_type": "pd-ssd", "image_type": "COS_CONTAINERD",
            "version": "1.33", "taints": [{"key": "dedicated", "value": "ml", "effect": "NoSchedule"}],
        },
    ),
    "KueueQueue": (
        KueueQueue,
        {
            "node_pool": "pool", "namespaces": ["default", "research"], "gpu_quota": 8,
            "max_run_duration": "1d", "api_version": "v1beta2", "name": "q",
            "local_queue_name": "lq", "cpu_quota": 96, "memory_quota": "100Gi",
            "queueing_strategy": "BestEffortFIFO", "cluster": "ml-cluster",
            "location": "us-central1", "project": "proj",
            "retry_strategy": {"backoff_limit_count": 2, "backoff_base_seconds": 30, "backoff_max_seconds": 600},
        },
    ),
    "KueueQueue with flavors": (
        KueueQueue,
        {
            "flavors": [{"node_pool": "reserved", "gpu_quota": 16, "provisioning_request": False,
                         "name": "first"},
                        {"compute_class": "h200", "gpu_quota": 8}],
            "namespaces": ["ml"], "kueue_version": "0.16.1", "topology": ["cloud.google.com/gce-topology-block"],
            "cluster": "ml-cluster", "location": "us-central1", "queueing_strategy": "StrictFIFO",
        },
    ),
    "KueueQueue merging": (
        KueueQueue,
        {
            "node_pool": "pool", "gpu_quota": 8, "namespaces": ["ml"],
            "pod_set_merge_policy": "IdenticalWorkloadSchedulingRequirements",
            "provisioning_parameters": {"extra": "x"}, "cluster": "ml-cluster",
            "location": "us-central1",
        },
    ),
    "ComputeClass": (
        ComputeClass,
        {
            "cluster": "ml-cluster", "location": "us-central1", "project": "proj",
            "machine_type": "a3-ultragpu-8g", "gpu_driver_version": "latest",
            "zones": ["us-central1-b"], "when_unsatisfiable": "ScaleUpAnyway",
            "gke_version": "1.34.1-gke.100", "name": "h200",
            "priorities": [
                {"capacity": "reservation", "reservation": "h200-block",
                 "reservation_project": "owner-proj", "reservation_block": "b1"},
                {"capacity": "flex_start", "max_run_duration": "7d",
                 "node_recycling_lead_time": "1h", "placement_policy": "compact"},
                {"capacity": "spot", "gpu_type": "nvidia-h200-141gb", "gpu_count": 8},
            ],
        },
    ),
    "SlurmCluster": (
        SlurmCluster,
        {
            "project": "proj", "display_name": "flexvm", "region": "us-central1",
            "cluster_id": "flexvm", "network": "default", "subnetwork": "default",
            "login": {"zone": "us-central1-b", "machine_type": "n2-standard-8", "count": 1,
                      "id": "login", "boot_disk_size_gb": 100, "boot_disk_type": "pd-ssd"},
            "node_pools": [{"id": "a3u", "machine_type": "a3-ultragpu-8g", "max_nodes": 2,
                            "min_nodes": 0, "zone": "us-central1-b",
                            "flex_start_max_duration": "1d", "boot_disk_size_gb": 100}],
            "labels": {"team": "ml"},
        },
    ),
}  # fmt: skip


def _leaves(value: Any, loc: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """Paths of every string or number in the args (booleans are not 'strings or numbers')."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _leaves(item, (*loc, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _leaves(item, (*loc, i))
    elif isinstance(value, (str, int, float)) and not isinstance(value, bool):
        yield loc


def _replace(
    args: dict[str, Any], loc: tuple[Any, ...], make: Callable[[Any], Any]
) -> dict[str, Any]:
    out = copy.deepcopy(args)
    holder: Any = out
    for part in loc[:-1]:
        holder = holder[part]
    holder[loc[-1]] = make(holder[loc[-1]])
    return out


def _text(loc: tuple[Any, ...]) -> str:
    return ".".join(map(str, loc))


def _where(r: Registered) -> tuple[str, str | None, dict[str, Any]]:
    """Name, parent type and inputs; a FlexStartInstance's template is shared by shape
    (``flex-shape-<fingerprint>`` at the root, the fingerprint in the VM's ``templateShape``)
    when the shape is known at once, its own child ``x-template`` otherwise: the same template
    inputs either way."""
    inputs = dict(r.inputs)
    shared = inputs.get("description") == SHAPE_DESCRIPTION
    if r.type == "gcp:compute/instanceTemplate:InstanceTemplate" and shared:
        del inputs["description"]
        return "x-template", "dws:index:FlexStartInstance", inputs
    inputs.pop("templateShape", None)
    link = inputs.get("sourceInstanceTemplate")
    if isinstance(link, str):  # it ends in the template's name (with the mocks' random suffix)
        inputs["sourceInstanceTemplate"] = link.rsplit("/", 1)[0] + "/x-template"
    return r.name, r.parent_type, inputs


def _registered(component: Callable[..., Any], args: dict[str, Any]) -> list[tuple[str, ...]]:
    mocks = GcpMocks(project="mock-project")
    mocks.run(lambda: component("x", args))
    return sorted(
        (
            r.type,
            *_where(r)[:2],
            json.dumps(_where(r)[2], sort_keys=True, default=str),
            str((r.protect, sorted(r.ignore_changes), r.delete_before_replace)),
        )
        for r in mocks.registered
    )


CASES = [(kind, loc) for kind, (_, args) in FULL.items() for loc in _leaves(args)]
# Whole mappings too: labels (and metadata) from another resource's Output.
CASES += [
    (kind, (key,))
    for kind, (_, args) in FULL.items()
    for key in ("labels", "resource_labels", "metadata")
    if key in args
]


@pytest.mark.parametrize(("kind", "loc"), CASES, ids=[f"{k}-{_text(loc)}" for k, loc in CASES])
def test_an_output_registers_what_the_plain_value_registers_or_is_refused_with_a_reason(
    kind: str, loc: tuple[Any, ...]
) -> None:
    component, args = FULL[kind]
    plain = _registered(component, args)
    wrapped = _replace(args, loc, pulumi.Output.from_input)
    try:
        assert _registered(component, wrapped) == plain
    except DwsValidationError as err:
        message = str(err)
        assert "must be known when the program runs, not an Output: " in message, message
        assert _text(loc).startswith(err.field.replace("[", ".").replace("]", "")), message
        assert "Output object" not in message and "Spec" not in message
