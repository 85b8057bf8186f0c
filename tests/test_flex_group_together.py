"""``FlexStartGroup`` and its provider together: the program runs under ``GcpMocks`` whose
template, workload-policy and group behaviours create, over the Compute emulator's HTTP API,
what the component registered (pulumi-gcp inputs mapped to the REST requests the pulumi-gcp
provider sends by :mod:`pulumi_dws.testing.gcp_rest`, forced values included: the emulator
refuses what Google refuses), and whose resize-request behaviour drives the registered
``MigResizeRequest`` inputs through Pulumi's own dynamic-provider host against the emulator.
The component's outputs therefore come from the provider's outs, as under ``pulumi up``."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pulumi
import pytest
import requests

from pulumi_dws import FlexStartGroup, GpuNetwork
from pulumi_dws.kinds.flex_group.provider import TYPE_TOKEN, MigResizeRequestProvider
from pulumi_dws.kinds.flex_group.testing import (
    instance_group_manager,
    region_instance_group_manager,
    resource_policy,
)
from pulumi_dws.testing import GcpMocks
from pulumi_dws.testing.clock_helpers import emulator_env
from pulumi_dws.testing.dynamic_host import DynamicProviderHost, urn
from pulumi_dws.testing.emulator import Emulator
from pulumi_dws.testing.gcp_rest import group_request, resource_policy_body, template_body
from pulumi_dws.testing.mocks import builtin_fill

PROJECT, ZONE, REGION, MACHINE = "p", "us-central1-a", "us-central1", "a3-highgpu-8g"
HOUR = 3600
TEMPLATE = "gcp:compute/instanceTemplate:InstanceTemplate"
REGION_TEMPLATE = "gcp:compute/regionInstanceTemplate:RegionInstanceTemplate"
MIG = "gcp:compute/instanceGroupManager:InstanceGroupManager"
REGION_MIG = "gcp:compute/regionInstanceGroupManager:RegionInstanceGroupManager"
POLICY = "gcp:compute/resourcePolicy:ResourcePolicy"
FIXTURES = Path(__file__).resolve().parent / "fixtures"
ARGS: dict[str, Any] = {
    "group_name": "trainers",  # named, as the paths below expect (the default carries the stack)
    "machine_type": MACHINE,
    "count": 4,
    "run_duration": "3d",
    "labels": {"team": "ml"},
    "metadata": {"enable-oslogin": "TRUE"},
}


@pytest.fixture(scope="module")
def shared() -> Iterator[tuple[Emulator, DynamicProviderHost]]:
    with Emulator() as emu:
        env = emulator_env(emu)  # the host's sleeps advance the emulator's virtual clock
        with DynamicProviderHost(
            MigResizeRequestProvider(), project="group", stack="dev",
            config={"dws:computeEndpoint": emu.url}, env=env, rpc_timeout=120,
        ) as host:  # fmt: skip
            host.configure()
            yield emu, host


def request_urn(name: str) -> str:
    return urn(
        TYPE_TOKEN, f"{name}-request", project="group", stack="dev",
        parent_type="dws:index:FlexStartGroup",
    )  # fmt: skip


@dataclass
class Deployment:
    """One run of a ``FlexStartGroup`` program whose resources live in the emulator."""

    emu: Emulator
    host: DynamicProviderHost
    created: list[str] = field(default_factory=list)  # REST collections posted to
    request: tuple[str, dict[str, Any], dict[str, Any]] | None = None  # (id, inputs, outs)
    registered: GcpMocks = field(init=False)  # the mocks of the last run

    def post(self, path: str, body: dict[str, Any]) -> None:
        self.send(f"compute/v1/projects/{PROJECT}/{path}", body)

    def send(self, path: str, body: dict[str, Any]) -> None:
        """POST what the provider sends (``path`` from the API root); Google's refusal fails
        the resource's create, as under ``pulumi up``."""
        answer = requests.post(f"{self.emu.url}{path}", json=body, timeout=30)
        if answer.status_code != 200:
            raise RuntimeError(answer.json()["error"]["message"])
        self.created.append(path.split(f"/projects/{PROJECT}/", 1)[-1])

    def template(self, mocks: GcpMocks, typ: str, name: str, s: dict[str, Any]) -> str:
        fill = builtin_fill(typ)
        rid = fill(mocks, typ, name, s) if fill else s["name"]
        where = f"regions/{s['region']}" if s.get("region") else "global"
        self.post(f"{where}/instanceTemplates", template_body(s["name"], s))
        s.setdefault("selfLink", f"https://www.googleapis.com/compute/v1/{rid}")
        return rid

    def group(self, mocks: GcpMocks, typ: str, name: str, s: dict[str, Any]) -> str:
        regional = typ == REGION_MIG
        fill = region_instance_group_manager if regional else instance_group_manager
        self.send(*group_request(s))
        return fill(mocks, typ, name, s)

    def policy(self, mocks: GcpMocks, typ: str, name: str, s: dict[str, Any]) -> str:
        self.send(
            f"compute/beta/projects/{PROJECT}/regions/{s['region']}/resourcePolicies",
            resource_policy_body(s),
        )
        return resource_policy(mocks, typ, name, s)

    def resize_request(self, mocks: GcpMocks, typ: str, name: str, s: dict[str, Any]) -> str:
        inputs = {k: v for k, v in s.items() if k != "__provider"}
        component = name.removesuffix("-request")
        checked, failures = self.host.check(request_urn(component), {}, inputs)
        assert failures == []
        id_, outs = self.host.create(request_urn(component), checked)
        self.request = (id_, checked, outs)
        s.clear()
        s.update(outs)
        return id_

    def mocks(self) -> GcpMocks:
        fills = {TEMPLATE: self.template, REGION_TEMPLATE: self.template}
        fills |= {MIG: self.group, REGION_MIG: self.group, TYPE_TOKEN: self.resize_request}
        fills |= {POLICY: self.policy}
        return GcpMocks(project=PROJECT, fills=fills)

    def run(
        self, args: dict[str, Any], network: dict[str, Any] | None = None, name: str = "trainers"
    ) -> dict[str, Any]:
        """Run the program (with a ``GpuNetwork`` of ``network`` args given to the group);
        the component's outputs once every resource settled."""

        def program() -> pulumi.Output[dict[str, Any]]:
            extra = {"gpu_network": GpuNetwork("net", network)} if network else {}
            group = FlexStartGroup(name, {**args, **extra})
            return pulumi.Output.all(
                self_link=group.self_link,
                request_state=group.request_state,
                instance_names=group.instance_names,
                run_ends_at=group.run_ends_at,
            )

        self.registered = self.mocks()
        outputs: dict[str, Any] = self.registered.run(program)
        return outputs


def _group_vms(emu: Emulator, group: str) -> list[dict[str, Any]]:
    link = f"instanceGroupManagers/{group}"
    return [
        vm
        for vm in emu["compute"].instances(PROJECT)
        if any(
            item["key"] == "created-by" and item["value"].endswith(link)
            for item in vm["metadata"]["items"]
        )
    ]


@pytest.mark.parametrize("where", [{"zone": ZONE}, {"region": REGION}], ids=["zonal", "regional"])
def test_the_group_queues_then_runs_its_vms_and_a_count_change_replaces_the_request(
    where: dict[str, str], shared: tuple[Emulator, DynamicProviderHost]
) -> None:
    emu, host = shared
    compute = emu["compute"]
    for zone in (f"{REGION}-{letter}" for letter in "abc"):  # none free (an earlier case's)
        while compute.capacity.take(zone, MACHINE):
            pass
    capacity_zone = ZONE if "zone" in where else f"{REGION}-b"  # Google picks the zone
    compute.add_capacity(capacity_zone, MACHINE, 4, after=HOUR)  # the set queues for an hour
    started = emu.clock.now()
    deployment = Deployment(emu, host)
    args = {**ARGS, **where, "project": PROJECT}

    outputs = deployment.run(args)
    kind = f"regions/{REGION}/" if "region" in where else "global/"
    scope = f"regions/{REGION}/" if "region" in where else f"zones/{ZONE}/"
    assert deployment.created == [f"{kind}instanceTemplates", f"{scope}instanceGroupManagers"]

    assert deployment.request is not None
    id_, inputs, outs = deployment.request
    assert emu.clock.now() - started >= dt.timedelta(hours=1)  # it waited in the queue for the set
    assert outs["state"] == "SUCCEEDED" == outputs["request_state"]
    vms = _group_vms(emu, "trainers")
    names = sorted(vm["name"] for vm in vms)
    assert len(vms) == 4 and outputs["instance_names"] == names == outs["observed"]["instances"]
    for vm in vms:
        assert vm["status"] == "RUNNING" and vm["zone"].endswith(f"/zones/{capacity_zone}")
        assert vm["machineType"].endswith(f"/machineTypes/{MACHINE}")
        assert vm["scheduling"]["provisioningModel"] == "FLEX_START"
        assert vm["scheduling"]["instanceTerminationAction"] == "DELETE"
        assert vm["labels"] == {"team": "ml"}
    assert outputs["run_ends_at"] == outs["observed"]["runEndsAt"]
    assert outputs["run_ends_at"] == min(
        vm["resourceStatus"]["scheduling"]["terminationTimestamp"] for vm in vms
    )
    location = f"zones/{ZONE}" if "zone" in where else f"regions/{REGION}"
    assert outputs["self_link"].endswith(
        f"/projects/{PROJECT}/{location}/instanceGroupManagers/trainers"
    )
    assert (
        id_
        == f"projects/{PROJECT}/{location}/instanceGroupManagers/trainers/resizeRequests/trainers"
    )

    # `count: 5` on the next `pulumi up` (its inputs, as the program registers them): the
    # request is replaced, the running VMs deleted first.
    bigger = GcpMocks(project=PROJECT)
    bigger.run(lambda: FlexStartGroup("trainers", {**args, "count": 5}).group_name)
    new_inputs = {k: v for k, v in bigger.one(TYPE_TOKEN).inputs.items() if k != "__provider"}
    diff = host.diff(request_urn("trainers"), id_, outs, new_inputs)
    assert diff.replaces == ["body"] and diff.delete_before_replace
    unchanged = host.diff(request_urn("trainers"), id_, outs, inputs)
    assert unchanged.changes != "some" and unchanged.replaces == []

    host.delete(request_urn("trainers"), id_, outs)
    assert compute.resize_requests(PROJECT) == [] and _group_vms(emu, "trainers") == []
    # then pulumi-gcp deletes the group and the template (the next case reuses the names)
    base = f"{emu.url}compute/v1/projects/{PROJECT}/"
    assert requests.delete(f"{base}{location}/instanceGroupManagers/trainers", timeout=30).ok
    template = deployment.registered.one(REGION_TEMPLATE if "region" in where else TEMPLATE)
    scope = location if "region" in where else "global"
    name = template.outputs["name"]
    assert requests.delete(f"{base}{scope}/instanceTemplates/{name}", timeout=30).ok


# ---------------------------------------------------------------------- frontier groups
A4 = "a4-highgpu-8g"
FRONTIER: dict[str, Any] = {
    "group_name": "trainers",
    "project": PROJECT,
    "region": REGION,
    "zones": [f"{REGION}-b", f"{REGION}-ai1a"],
    "machine_type": A4,
    "count": 16,
    "run_duration": "2d",
    "placement": {"max_topology_distance": "BLOCK"},
    "labels": {"team": "ml"},
}


def test_a_regional_a4_group_with_a_workload_policy_listed_zones_and_rdma_nics_gets_its_vms(
    shared: tuple[Emulator, DynamicProviderHost],
) -> None:
    emu, host = shared
    compute = emu["compute"]
    compute.add_capacity(f"{REGION}-b", A4, 16, after=HOUR)  # the RDMA network's zone
    deployment = Deployment(emu, host)

    outputs = deployment.run(FRONTIER, network={"zone": f"{REGION}-b", "machine_type": A4})

    assert sorted(deployment.created[:2]) == [
        f"regions/{REGION}/instanceTemplates",
        f"regions/{REGION}/resourcePolicies",
    ]
    assert deployment.created[2:] == [f"regions/{REGION}/instanceGroupManagers"]
    assert outputs["request_state"] == "SUCCEEDED"
    (group,) = [g for g in compute.groups(PROJECT) if g["name"] == "trainers"]
    assert group["distributionPolicy"]["zones"] == [
        {"zone": f"zones/{REGION}-b"},
        {"zone": f"zones/{REGION}-ai1a"},
    ]
    assert group["updatePolicy"]["maxUnavailable"] == {"fixed": 2, "percent": None}
    link = group["resourcePolicies"]["workloadPolicy"]
    assert f"/regions/{REGION}/resourcePolicies/workload-policy-" in link
    (policy,) = [p for p in compute.policies(PROJECT) if p["selfLink"] == link]
    assert policy["workloadPolicy"] == {"type": "HIGH_THROUGHPUT", "maxTopologyDistance": "BLOCK"}
    vms = _group_vms(emu, "trainers")
    assert len(vms) == 16 and sorted(outputs["instance_names"]) == sorted(v["name"] for v in vms)
    for vm in vms:
        assert vm["zone"].endswith(f"/zones/{REGION}-b")
        nics = [nic.get("nicType") for nic in vm["networkInterfaces"]]
        assert nics == ["GVNIC", "GVNIC"] + ["MRDMA"] * 8
    id_, _, outs = deployment.request or ("", {}, {})
    host.delete(request_urn("trainers"), id_, outs)


def test_the_regional_group_older_versions_registered_is_refused_the_new_one_accepted(
    shared: tuple[Emulator, DynamicProviderHost],
) -> None:
    """An older pulumi-dws registered ``max_surge_fixed: 0`` alone: the provider sends
    ``maxUnavailable.fixed: 0`` too, and Google refuses both 0. The same args now register a
    group the emulator accepts, whose resize request runs."""
    emu, host = shared
    old = json.loads((FIXTURES / "flex_group_regional_291f4fe.json").read_text())
    deployment = Deployment(emu, host)
    emu["compute"].add_capacity(f"{REGION}-c", MACHINE, 4)
    outputs = deployment.run(old["args"], name="upgraded")
    assert outputs["request_state"] == "SUCCEEDED"
    new = deployment.registered.one(REGION_MIG).inputs
    before = {**old["registered"][REGION_MIG], "name": "before", "baseInstanceName": "before"}
    before["versions"] = new["versions"]
    path, body = group_request(before)
    assert (
        body["updatePolicy"]["maxSurge"]
        == body["updatePolicy"]["maxUnavailable"]
        == {
            "fixed": 0,
            "percent": None,
        }
    )
    with pytest.raises(RuntimeError, match="maxSurge and maxUnavailable both 0"):
        deployment.send(path, body)
    id_, _, outs = deployment.request or ("", {}, {})
    host.delete(request_urn("upgraded"), id_, outs)
