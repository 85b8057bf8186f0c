"""Shared checks: names, labels, zones, timestamps, machine types, Output-valued inputs."""

from __future__ import annotations

import datetime as dt

import pulumi
import pytest
from hypothesis import given
from hypothesis import strategies as st

from pulumi_dws import catalog
from pulumi_dws.errors import DwsValidationError
from pulumi_dws.testing import GcpMocks
from pulumi_dws.validation import (
    check_labels,
    check_name,
    check_region,
    check_zone,
    check_zone_in_region,
    parse_timestamp,
    region_of,
    when_known,
)


@pytest.mark.parametrize("good", ["a", "vm-1", "a" * 63, "h100-block-2"])
def test_rfc1035_names_accepted(good: str) -> None:
    assert check_name("name", good) == good


@pytest.mark.parametrize("bad", ["", "1vm", "Vm", "vm-", "vm_1", "a" * 64])
def test_rfc1035_names_rejected(bad: str) -> None:
    with pytest.raises(DwsValidationError, match="^name: "):
        check_name("name", bad)


@given(st.from_regex(r"[a-z]([-a-z0-9]{0,61}[a-z0-9])?", fullmatch=True))
def test_any_rfc1035_name_passes(name: str) -> None:
    assert check_name("name", name) == name


def test_labels() -> None:
    assert check_labels("labels", {"team": "ml", "cost-center": ""}) == {
        "team": "ml",
        "cost-center": "",
    }
    with pytest.raises(DwsValidationError, match="labels key: Team"):
        check_labels("labels", {"Team": "x"})
    with pytest.raises(DwsValidationError, match=r"labels\[team\]: ML"):
        check_labels("labels", {"team": "ML"})
    with pytest.raises(DwsValidationError, match="65 labels"):
        check_labels("labels", {f"k{i}": "v" for i in range(65)})


def test_zones_and_regions() -> None:
    assert region_of("europe-west4-b") == "europe-west4"
    assert check_region("region", "us-central1") == "us-central1"
    with pytest.raises(DwsValidationError, match="that is a zone"):
        check_region("region", "us-central1-a")
    with pytest.raises(DwsValidationError, match="that is a region"):
        check_zone("zone", "us-central1")
    with pytest.raises(DwsValidationError, match="not in region us-east5"):
        check_zone_in_region("zone", "us-central1-a", "us-east5")


def test_timestamps_need_a_zone() -> None:
    assert parse_timestamp("t", "2027-03-01T02:00:00+02:00") == dt.datetime(
        2027, 3, 1, tzinfo=dt.timezone.utc
    )
    for bad in ("2027-03-01T00:00:00", "2027-03-01", "tomorrow"):
        with pytest.raises(DwsValidationError, match="^t: "):
            parse_timestamp("t", bad)


def test_catalog_knows_gpu_families_and_accelerator_names() -> None:
    assert (
        catalog.machine_shape("m", "a3-ultragpu-8g").accelerator.vertex_name == "NVIDIA_H200_141GB"
    )
    assert catalog.machine_shape("m", "a3-megagpu-8g").gpus == 8
    assert catalog.machine_shape("m", "g2-standard-48").gpus == 4
    assert catalog.accelerator("a", "NVIDIA_B200").compute_name == "nvidia-b200"
    with pytest.raises(DwsValidationError, match="n2-standard-8 is not a known GPU machine type"):
        catalog.machine_shape("machine_type", "n2-standard-8")


def test_when_known_checks_output_values_once_resolved() -> None:
    def program() -> pulumi.Output[str]:
        return when_known(pulumi.Output.from_input("us-central1"), lambda z: check_zone("zone", z))

    with pytest.raises(DwsValidationError, match="zone: us-central1 is not a zone"):
        GcpMocks().run(program)
    assert when_known("us-central1-a", lambda z: check_zone("zone", z)) == "us-central1-a"


def test_rfc3339_lowercase_t_and_z_are_accepted() -> None:
    assert parse_timestamp("t", "2027-03-01t00:00:00z") == dt.datetime(
        2027, 3, 1, tzinfo=dt.timezone.utc
    )


def test_attached_accelerators_accept_either_name_and_say_what_fits() -> None:
    assert catalog.check_attached("a3-highgpu-8g", "NVIDIA_H100_80GB", 8).gpus == 8
    with pytest.raises(
        DwsValidationError,
        match="^accelerator_count: 4 does not match a3-highgpu-8g, which carries 8 GPUs; use 8 or omit it",
    ):
        catalog.check_attached("a3-highgpu-8g", accelerator_count=4)


# A subnetwork belongs to one region: Compute, Cloud TPU and the Slurm API refuse one of
# another region than the VMs' ("Subnetwork must be in the same region as the instance").
_SUBNET_EAST5 = "projects/my-proj/regions/us-east5/subnetworks/trainers"


def _components() -> list[tuple[str, object]]:
    from pulumi_dws import FlexStartGroup, FlexStartInstance, QueuedTpu, SlurmCluster

    vm = {"zone": "us-central1-a", "machine_type": "a3-highgpu-8g", "max_run_duration": "1d"}
    group = {"machine_type": "a3-highgpu-8g", "count": 2, "run_duration": "1d"}
    return [
        ("FlexStartInstance", lambda **o: FlexStartInstance("vm", {**vm, **o})),
        ("FlexStartGroup zonal", lambda **o: FlexStartGroup("g", {**group, "zone": "us-central1-a", **o})),
        ("FlexStartGroup regional", lambda **o: FlexStartGroup("g", {**group, "region": "us-central1", **o})),
        ("QueuedTpu", lambda **o: QueuedTpu("t", {"zone": "us-central1-b", "accelerator_type": "v6e-8",
                                                  "provisioning": "spot", **o})),
        ("SlurmCluster", lambda **o: SlurmCluster("s", {
            "display_name": "flexvm", "login": {"zone": "us-central1-a"},
            "node_pools": [{"id": "a3", "machine_type": "a3-highgpu-8g", "max_nodes": 2}], **o})),
    ]  # fmt: skip


@pytest.mark.parametrize("name", [name for name, _ in _components()])
def test_a_subnetwork_of_another_region_is_refused(name: str) -> None:
    make = dict(_components())[name]
    mocks = GcpMocks()
    with pytest.raises(DwsValidationError) as info:
        mocks.run(lambda: make(subnetwork=_SUBNET_EAST5))  # type: ignore[operator]
    assert info.value.field == "subnetwork", str(info.value)
    assert "us-east5" in str(info.value) and "us-central1" in str(info.value)
    same = _SUBNET_EAST5.replace("us-east5", "us-central1")
    GcpMocks().run(lambda: make(subnetwork=same))  # type: ignore[operator]
    GcpMocks().run(lambda: make(subnetwork="trainers"))  # type: ignore[operator]
