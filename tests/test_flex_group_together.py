"""``FlexStartGroup`` and its provider together: the program runs under ``GcpMocks`` whose
template and group behaviours create, over the Compute emulator's HTTP API, what the component
registered (pulumi-gcp inputs mapped to the REST bodies by :mod:`pulumi_dws.testing.gcp_rest`),
and whose resize-request behaviour drives the registered ``MigResizeRequest`` inputs through
Pulumi's own dynamic-provider host against the emulator. The component's outputs therefore
come from the provider's outs, as under ``pulumi up``."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pulumi
import pytest
import requests

from pulumi_dws import FlexStartGroup
from pulumi_dws.kinds.flex_group.provider import TYPE_TOKEN, MigResizeRequestProvider
from pulumi_dws.kinds.flex_group.testing import (
    instance_group_manager,
    region_instance_group_manager,
)
from pulumi_dws.testing import GcpMocks
from pulumi_dws.testing.clock_helpers import emulator_env
from pulumi_dws.testing.dynamic_host import DynamicProviderHost, urn
from pulumi_dws.testing.emulator import Emulator
from pulumi_dws.testing.gcp_rest import group_body, template_body
from pulumi_dws.testing.mocks import builtin_fill

PROJECT, ZONE, REGION, MACHINE = "p", "us-central1-a", "us-central1", "a3-highgpu-8g"
HOUR = 3600
TEMPLATE = "gcp:compute/instanceTemplate:InstanceTemplate"
REGION_TEMPLATE = "gcp:compute/regionInstanceTemplate:RegionInstanceTemplate"
MIG = "gcp:compute/instanceGroupManager:InstanceGroupManager"
REGION_MIG = "gcp:compute/regionInstanceGroupManager:RegionInstanceGroupManager"
ARGS: dict[str, Any] = {
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
        answer = requests.post(
            f"{self.emu.url}compute/v1/projects/{PROJECT}/{path}", json=body, timeout=30
        )
        assert answer.status_code == 200, answer.text
        self.created.append(path)

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
        rid = fill(mocks, typ, name, s)
        where = f"regions/{s['region']}" if regional else f"zones/{s['zone']}"
        self.post(f"{where}/instanceGroupManagers", group_body(s))
        return rid

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
        return GcpMocks(project=PROJECT, fills=fills)

    def run(self, args: dict[str, Any]) -> dict[str, Any]:
        """Run the program; the component's outputs once every resource settled."""

        def program() -> pulumi.Output[dict[str, Any]]:
            group = FlexStartGroup("trainers", args)
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
