"""Every argument of every component as a program in another language may give it: an output
(a value another resource gives; unknown in a preview). The plugin takes it, or
refuses it with ``INVALID_ARGUMENT`` naming the property, never a crash; and it refuses it
exactly when the schema says the property is ``plain`` (the SDKs of other languages then take
no output there)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from typing import Any

import grpc
import pytest
from pulumi.runtime import rpc

from pulumi_dws import clock
from pulumi_dws.defaults import type_token
from pulumi_dws.package.components import ServedComponent, served_components
from pulumi_dws.package.schema import package_schema
from pulumi_dws.testing.component_host import (
    COMPONENT_ARGS,
    ComponentProviderHost,
    ProviderCallError,
    schema_inputs,
)

NOW = dt.datetime(2026, 11, 2, 12, 0, tzinfo=dt.timezone.utc)
NETWORK = "urn:pulumi:dev::project::gcp:compute/network:Network::vpc"
SCHEMA = package_schema()

# Arguments a program may give each component, beyond the required ones: as many of its
# arguments as one valid program sets at once (a kind not listed: its COMPONENT_ARGS).
ARGS: dict[str, dict[str, Any]] = {
    "FlexStartInstance": {
        "zone": "us-central1-a",
        "machine_type": "a3-highgpu-8g",
        "max_run_duration": "3d",
        "request_valid_for": "2h",
        "termination_action": "DELETE",
        "desired_status": "RUNNING",
        "wait_for": "running",
        "instance_name": "trainer-1",
        "project": "mock-project",
        "network": "default",
        "subnetwork": "projects/mock-project/regions/us-central1/subnetworks/s",
        "image": "projects/debian-cloud/global/images/family/debian-12",
        "boot_disk_size_gb": 200,
        "boot_disk_type": "pd-ssd",
        "public_ip": False,
        "service_account": "sa@mock-project.iam.gserviceaccount.com",
        "scopes": ["cloud-platform"],
        "labels": {"team": "research"},
        "metadata": {"k": "v"},
    },
    "FlexStartDeployment": {  # an endpoint another resource gives needs its region
        "endpoint": "projects/my-project/locations/us-central1/endpoints/1234567",
        "region": "us-central1",
        "model": "projects/my-project/locations/us-central1/models/987",
        "machine_type": "g2-standard-24",
        "min_replicas": 1,
        "max_replicas": 2,
        "max_runtime_duration": "3d",
    },
    "FlexStartGroup": {
        "zone": "us-central1-a",
        "machine_type": "a3-highgpu-8g",
        "count": 4,
        "run_duration": "3d",
        "wait_for": "running",
        "group_name": "grp",
        "project": "mock-project",
        "boot_disk_size_gb": 200,
        "public_ip": False,
        "scopes": ["cloud-platform"],
        "labels": {"team": "research"},
        "metadata": {"k": "v"},
    },
    "QueuedTpu": {
        "zone": "us-east5-a",
        "accelerator_type": "v6e-16",
        "runtime_version": "v2-alpha-tpuv6e",
        "max_run_duration": "1d",
        "request_valid_for": "2h",
        "wait_for": "active",
        "node_id": "n1",
        "queued_resource_id": "qr1",
        "project": "mock-project",
        "network": "default",
        "public_ip": False,
        "scopes": ["cloud-platform"],
        "labels": {"team": "research"},
        "metadata": {"k": "v"},
    },
    "QueuedNodePool": {
        "cluster": "ml-cluster",
        "location": "us-central1",
        "node_locations": ["us-central1-a"],
        "machine_type": "a3-highgpu-8g",
        "max_nodes": 4,
        "name": "pool1",
        "project": "mock-project",
        "max_run_duration": "1d",
        "version": "1.33",
        "disk_size_gb": 200,
        "disk_type": "pd-ssd",
        "oauth_scopes": ["https://www.googleapis.com/auth/cloud-platform"],
        "taints": [{"key": "k", "value": "v", "effect": "NO_SCHEDULE"}],
        "labels": {"a": "b"},
        "resource_labels": {"team": "research"},
    },
    "CalendarReservation": {
        "zone": "us-central1-a",
        "machine_type": "a3-highgpu-8g",
        "count": 2,
        "start_time": "2027-03-01T00:00:00Z",
        "end_time": "2027-03-08T00:00:00Z",
        "name": "res1",
        "project": "mock-project",
        "description": "a week of H100s",
        "share_with": ["other-project"],
        "auto_delete": True,
        "labels": {"team": "research"},
    },
    "KueueQueue": {
        "node_pool": "a3-queued",
        "gpu_quota": 32,
        "cpu_quota": 100,
        "memory_quota": "400Gi",
        "namespaces": ["default"],
        "max_run_duration": "1d",
        "local_queue_name": "lq",
        "queueing_strategy": "BestEffortFIFO",
        "cluster": "ml-cluster",
        "location": "us-central1",
        "project": "mock-project",
    },
    "SlurmCluster": {
        "display_name": "flexvm",
        "region": "us-central1",
        "project": "mock-project",
        "login": {"machine_type": "n2-standard-8", "zone": "us-central1-b", "count": 1},
        "node_pools": [{"id": "a3u", "machine_type": "a3-ultragpu-8g", "max_nodes": 2}],
        "home_filestore": {"tier": "BASIC_SSD", "capacity_gb": 2560},
        "labels": {"team": "research"},
    },
    "ComputeClass": {
        "priorities": [{"capacity": "flex_start", "max_run_duration": "7d"}, {"capacity": "spot"}],
        "machine_type": "a3-ultragpu-8g",
        "zones": ["us-central1-b"],
        "name": "cls",
        "cluster": "ml-cluster",
        "location": "us-central1",
        "project": "mock-project",
        "when_unsatisfiable": "DoNotScaleUp",
        "node_pool_auto_creation": True,
    },
}


def _output(value: Any = None, *, known: bool = True) -> dict[str, Any]:
    """An output value as the engine sends it to a provider that accepts outputs."""
    wire: dict[str, Any] = {
        rpc._special_sig_key: rpc._special_output_value_sig,  # noqa: SLF001
        "dependencies": [NETWORK],
    }
    if known:
        wire["value"] = value
    return wire


def _cases() -> list[Any]:
    return [
        pytest.param(kind, how, id=f"{kind.name}-{how}")
        for kind in served_components()
        for how in ("output", "unknown")
    ]


@pytest.fixture(scope="module")
def host() -> Iterator[ComponentProviderHost]:
    with ComponentProviderHost(env={"DWS_NOW": NOW.isoformat()}) as running:
        yield running


@pytest.mark.parametrize(("kind", "how"), _cases())
def test_an_argument_given_as_an_output_is_taken_or_refused_as_the_schema_says(
    host: ComponentProviderHost, kind: ServedComponent, how: str
) -> None:
    """Each argument in turn: an output another resource gives (known), or a value not known
    yet in a preview."""
    token = type_token(kind.name)
    inputs = schema_inputs(kind, ARGS.get(kind.name, COMPONENT_ARGS[kind.name]))
    schema = SCHEMA["resources"][token]["inputProperties"]
    wrong = []
    with clock.frozen(NOW), host.deployment(preview=how == "unknown") as deployment:
        for i, (name, value) in enumerate(inputs.items()):
            given = _output(value, known=how == "output")
            plain = schema[name].get("plain", False)
            try:
                deployment.construct(token, f"c{i}", {**inputs, name: given})
            except ProviderCallError as err:
                if err.code != grpc.StatusCode.INVALID_ARGUMENT:
                    wrong.append(f"{name}: {err.code.name}: {err.message.splitlines()[0]}")
                elif not plain or [e.path for e in err.errors] != [name]:
                    wrong.append(f"{name}: refused, yet not plain in the schema: {err.message}")
                continue
            if plain:
                wrong.append(f"{name}: plain in the schema, yet taken as an output")
    assert wrong == []
