"""``GpuNetwork``: the regular and RDMA networks Cluster Toolkit builds per NIC layout, the NICs
it gives a VM component, the layouts and zones it refuses, and its bodies against gcloud's."""

from __future__ import annotations

import ipaddress
from typing import Any

import pulumi
import pytest

from pulumi_dws import DwsValidationError, FlexStartGroup, FlexStartInstance, GpuNetwork
from pulumi_dws.testing import GcpMocks
from pulumi_dws.testing.gcloud import (
    GcloudCommand,
    GcloudRuns,
    field_differences,
    gcloud_unavailable_reason,
)
from pulumi_dws.testing.gcp_rest import network_body, subnetwork_body, template_properties

NETWORK = "gcp:compute/network:Network"
SUBNETWORK = "gcp:compute/subnetwork:Subnetwork"
FIREWALL = "gcp:compute/firewall:Firewall"
PROJECT = "demo-project"


def registered(program: Any) -> GcpMocks:
    mocks = GcpMocks(project=PROJECT)
    mocks.run(program)
    return mocks


def network(machine: str, zone: str = "us-central1-b", **extra: Any) -> GcpMocks:
    args = {"zone": zone, "machine_type": machine, "name_prefix": "a4", **extra}
    return registered(lambda: GpuNetwork("net", args).zone)


@pytest.mark.parametrize(
    ("machine", "gvnics", "rdma", "profile"),
    [
        ("a4-highgpu-8g", 2, 8, "vpc-roce"),
        ("a3-ultragpu-8g", 2, 8, "vpc-roce"),
        ("a4x-highgpu-4g", 2, 4, "vpc-roce"),
        ("h4d-highmem-192-lssd", 1, 1, "vpc-falcon"),
    ],
)
def test_the_networks_of_each_layout(machine: str, gvnics: int, rdma: int, profile: str) -> None:
    mocks = network(machine)
    networks = mocks.resources(NETWORK)
    names = sorted(n.inputs["name"] for n in networks)
    assert names == sorted([*(f"a4-net-{i}" for i in range(gvnics)), "a4-rdma"])
    component = mocks.one("dws:index:GpuNetwork")
    assert all(n.parent == component.urn for n in networks)
    (rdma_net,) = [n for n in networks if n.inputs["name"] == "a4-rdma"]
    assert rdma_net.inputs["networkProfile"] == (
        f"projects/{PROJECT}/global/networkProfiles/us-central1-b-{profile}"
    )
    assert rdma_net.inputs["mtu"] == 8896 and rdma_net.inputs["autoCreateSubnetworks"] is False
    subnets = mocks.resources(SUBNETWORK)
    rdma_subnets = [s for s in subnets if s.inputs["name"].startswith("a4-rdma-sub-")]
    assert len(rdma_subnets) == rdma and len(subnets) == gvnics + rdma
    ranges = [ipaddress.IPv4Network(s.inputs["ipCidrRange"]) for s in rdma_subnets]
    assert all(r.subnet_of(ipaddress.IPv4Network("192.168.128.0/18")) for r in ranges)
    assert not any(a.overlaps(b) for i, a in enumerate(ranges) for b in ranges[i + 1 :])
    assert all(s.inputs["region"] == "us-central1" for s in subnets)
    assert len(mocks.resources(FIREWALL)) == gvnics


def test_eight_rdma_subnetworks_of_a_slash_18_are_slash_21s_as_cluster_toolkit_cuts_them() -> None:
    subnets = network("a4-highgpu-8g").resources(SUBNETWORK)
    rdma = sorted(
        (s.inputs["name"], s.inputs["ipCidrRange"]) for s in subnets if "rdma" in s.inputs["name"]
    )
    assert [cidr for _, cidr in rdma] == [f"192.168.{128 + 8 * i}.0/21" for i in range(8)]


@pytest.mark.parametrize(
    ("args", "field", "words"),
    [
        ({"machine_type": "a3-highgpu-8g"}, "machine_type", "has no RDMA network profile"),
        ({"machine_type": "a4x-highgpu-4g", "rdma_nics": 8}, "rdma_nics", "use 4 MRDMA NICs"),
        ({"gvnic_nics": 1}, "gvnic_nics", "2 gVNIC + 8 MRDMA NICs"),
        ({"gvnic_ranges": ["10.0.0.0/16"]}, "gvnic_ranges", "must list 2 ranges"),
        ({"gvnic_ranges": ["10.0.0.0/16", "10.0.0.0/24"]}, "gvnic_ranges[1]", "overlaps"),
        ({"rdma_range": "10.0.0.0/28"}, "rdma_range", "too small"),
        ({"rdma_range": "8.8.8.0/24"}, "rdma_range", "private"),
        ({"zone": "us-central1-z"}, "zone", "is not a zone of us-central1"),
        # What decides the networks must be known while the program runs: an Output there
        # crashed (a list's len()) or named the networks after the Output's text.
        *(
            ({field: pulumi.Output.from_input(value)}, field, "must be known when the program")
            for field, value in (
                ("gvnic_ranges", ["10.0.0.0/19", "10.0.64.0/18"]),
                ("rdma_range", "10.1.0.0/18"),
                ("gvnic_nics", 2),
                ("rdma_nics", 8),
                ("name_prefix", "a4"),
            )
        ),
    ],
)
def test_bad_input_is_one_error_naming_field_value_and_what_is_allowed(
    args: dict[str, Any], field: str, words: str
) -> None:
    full = {"zone": "us-central1-b", "machine_type": "a4-highgpu-8g", **args}
    with pytest.raises(DwsValidationError) as err:
        registered(lambda: GpuNetwork("net", full).zone)
    assert err.value.field == field and words in str(err.value)


def _nics(mocks: GcpMocks, template_type: str) -> list[dict[str, Any]]:
    return list(mocks.one(template_type).inputs["networkInterfaces"])


def test_a_group_and_an_instance_get_every_nic_gvnic_first() -> None:
    def program() -> pulumi.Output[str]:
        net = GpuNetwork("net", {"zone": "us-central1-b", "machine_type": "a4-highgpu-8g"})
        FlexStartInstance("vm", {
            "zone": "us-central1-b", "machine_type": "a4-highgpu-8g",
            "max_run_duration": "1d", "gpu_network": net, "public_ip": True,
        })  # fmt: skip
        group = FlexStartGroup("g", {
            "region": "us-central1", "zones": ["us-central1-b"], "machine_type": "a4-highgpu-8g",
            "count": 2, "run_duration": "1d", "gpu_network": net,
        })  # fmt: skip
        return group.group_name

    mocks = registered(program)
    for typ in (
        "gcp:compute/instanceTemplate:InstanceTemplate",
        "gcp:compute/regionInstanceTemplate:RegionInstanceTemplate",
    ):
        nics = _nics(mocks, typ)
        assert [n["nicType"] for n in nics] == ["GVNIC"] * 2 + ["MRDMA"] * 8
        assert [n["subnetwork"].rsplit("/", 1)[-1] for n in nics] == [
            "net-sub-0", "net-sub-1", *(f"net-rdma-sub-{j}" for j in range(8)),
        ]  # fmt: skip
        assert "network" not in nics[2]  # an RDMA NIC names its subnetwork only, as gcloud
    public = _nics(mocks, "gcp:compute/instanceTemplate:InstanceTemplate")
    assert public[0]["accessConfigs"] == [{}] and "accessConfigs" not in public[1]


@pytest.mark.parametrize(
    ("vm", "field", "words"),
    [
        ({"machine_type": "h4d-highmem-192"}, "gpu_network", "take 1 gVNIC + 1 IRDMA NICs"),
        ({"machine_type": "a3-highgpu-8g"}, "gpu_network", "has no RDMA network profile"),
        ({"zone": "us-central1-c"}, "zone", "RDMA networks are zonal"),
        ({"network": "my-vpc"}, "network", "can't be given with gpu_network"),
    ],
)
def test_a_vm_must_fit_the_network(vm: dict[str, Any], field: str, words: str) -> None:
    def program() -> None:
        net = GpuNetwork("net", {"zone": "us-central1-b", "machine_type": "a4-highgpu-8g"})
        FlexStartInstance("vm", {
            "zone": "us-central1-b", "machine_type": "a4-highgpu-8g", "max_run_duration": "1d",
            "gpu_network": net, **vm,
        })  # fmt: skip

    with pytest.raises(DwsValidationError) as err:
        registered(program)
    assert err.value.field == field and words in str(err.value)


# ---------------------------------------------------------------------- against gcloud
_NETWORKS = ["compute", "networks", "create"]
NETWORK_COMMANDS = {
    "gvnic": GcloudCommand.of([*_NETWORKS, "a4-net-0", "--subnet-mode=custom", "--mtu=8896"]),
    "rdma": GcloudCommand.of(
        [
            *_NETWORKS,
            "a4-rdma",
            "--subnet-mode=custom",
            "--mtu=8896",
            "--network-profile=us-central1-b-vpc-roce",
            "--bgp-routing-mode=regional",
        ]
    ),
}
SUBNET_COMMAND = GcloudCommand.of(
    [
        "compute",
        "networks",
        "subnets",
        "create",
        "a4-rdma-sub-3",
        "--network=a4-rdma",
        "--region=us-central1",
        "--range=192.168.152.0/21",
    ]  # fmt: skip
)
_SUBNETS = f"projects/{PROJECT}/regions/us-central1/subnetworks"
TEMPLATE_COMMAND = GcloudCommand.of(
    [
        "compute",
        "instance-templates",
        "create",
        "t-1",
        "--machine-type=a4-highgpu-8g",
        "--instance-template-region=us-central1",
        *(
            f"--network-interface=network=projects/{PROJECT}/global/networks/a4-net-{i},"
            f"subnet={_SUBNETS}/a4-sub-{i},nic-type=GVNIC,no-address"
            for i in range(2)
        ),
        *(
            f"--network-interface=subnet={_SUBNETS}/a4-rdma-sub-{j},nic-type=MRDMA,no-address"
            for j in range(8)
        ),
    ]  # fmt: skip
)


def _relative(value: Any) -> Any:
    if isinstance(value, str) and "projects/" in value:
        return "projects/" + value.split("projects/", 1)[1].split("/compute/v1/")[-1]
    if isinstance(value, dict):
        return {k: _relative(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_relative(v) for v in value]
    return value


@pytest.mark.gcloud(*NETWORK_COMMANDS.values())
@pytest.mark.parametrize("kind", list(NETWORK_COMMANDS))
def test_the_networks_equal_what_gcloud_sends(kind: str, gcloud_runs: GcloudRuns) -> None:
    reason = gcloud_unavailable_reason()
    if reason:
        pytest.skip(reason)
    capture = gcloud_runs.run(NETWORK_COMMANDS[kind].args)
    assert capture.ok, capture.describe()
    sent = _relative(capture.canonical(capture.create_request().body))
    name = "a4-rdma" if kind == "rdma" else "a4-net-0"
    (ours,) = [
        network_body(n.inputs)
        for n in network("a4-highgpu-8g").resources(NETWORK)
        if n.inputs["name"] == name
    ]
    allowed = {
        "routingConfig.deleteBgpAlwaysCompareMed": "the provider's encoder sends false (unset)"
    }
    assert field_differences(_relative(ours), sent, allowed=allowed) == []


@pytest.mark.gcloud(SUBNET_COMMAND)
def test_a_subnetwork_equals_what_gcloud_sends(gcloud_runs: GcloudRuns) -> None:
    reason = gcloud_unavailable_reason()
    if reason:
        pytest.skip(reason)
    capture = gcloud_runs.run(SUBNET_COMMAND.args)
    assert capture.ok, capture.describe()
    request = capture.create_request()
    sent = _relative(capture.canonical(request.body))
    (subnet,) = [
        s
        for s in network("a4-highgpu-8g").resources(SUBNETWORK)
        if s.inputs["name"] == "a4-rdma-sub-3"
    ]
    inputs = {**subnet.inputs, "network": f"projects/{PROJECT}/global/networks/a4-rdma"}
    ours = subnetwork_body(inputs)
    allowed = {
        "privateIpGoogleAccess": "gcloud sends false, the provider leaves the default (false)",
        "region": "gcloud names the region in the path only",
    }
    assert field_differences(ours, sent, allowed=allowed) == []
    assert request.path.endswith(f"/regions/{ours['region'].rsplit('/', 1)[-1]}/subnetworks")


@pytest.mark.gcloud(TEMPLATE_COMMAND)
def test_the_template_nics_equal_what_gcloud_sends(gcloud_runs: GcloudRuns) -> None:
    reason = gcloud_unavailable_reason()
    if reason:
        pytest.skip(reason)
    capture = gcloud_runs.run(TEMPLATE_COMMAND.args)
    assert capture.ok, capture.describe()
    sent = _relative(capture.canonical(capture.create_request().body))

    def program() -> pulumi.Output[str]:
        net = GpuNetwork(
            "net", {"zone": "us-central1-b", "machine_type": "a4-highgpu-8g", "name_prefix": "a4"}
        )
        return FlexStartGroup("g", {
            "project": PROJECT, "region": "us-central1", "zones": ["us-central1-b"],
            "machine_type": "a4-highgpu-8g", "count": 2, "run_duration": "1d",
            "gpu_network": net,
        }).group_name  # fmt: skip

    template = registered(program).one("gcp:compute/regionInstanceTemplate:RegionInstanceTemplate")
    ours = _relative(template_properties(template.inputs, "us-central1")["networkInterfaces"])
    assert field_differences(ours, sent["properties"]["networkInterfaces"]) == []
