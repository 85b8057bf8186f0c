"""GcpMocks behaves like Google Cloud: computed outputs, invokes, parents, state."""

from __future__ import annotations

from typing import Any

import pulumi
import pulumi_gcp as gcp
import pytest

from pulumi_dws.testing import GcpMocks, dynamic_behaviour
from pulumi_dws.testing.mocks import MOCK_PROJECT_NUMBER


class Team(pulumi.ComponentResource):
    def __init__(self, name: str, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("test:index:Team", name, {}, opts)
        child = pulumi.ResourceOptions(parent=self)
        self.vm = gcp.compute.Instance(
            f"{name}-vm",
            machine_type="g2-standard-8",
            zone="europe-west4-b",
            boot_disk={"initialize_params": {"image": "debian-12"}},
            network_interfaces=[{"network": "default"}],
            opts=child,
        )
        self.member = gcp.projects.IAMMember(
            f"{name}-iam",
            project="p1",
            role="roles/viewer",
            member="user:a@example.com",
            opts=child,
        )
        self.register_outputs({})


def test_computed_outputs_follow_the_providers_formats() -> None:
    mocks = GcpMocks(project="acme-ml")

    def program() -> Any:
        team = Team("t")
        return pulumi.Output.all(team.vm.id, team.vm.self_link, team.vm.name, team.member.id)

    vm_id, link, name, member_id = mocks.run(program)
    assert name.startswith("t-vm-") and len(name) == len("t-vm-") + 7  # auto-name with suffix
    assert vm_id == f"projects/acme-ml/zones/europe-west4-b/instances/{name}"
    assert link == f"https://www.googleapis.com/compute/v1/{vm_id}"
    assert member_id == "p1/roles/viewer/user:a@example.com"


def test_registrations_record_type_parent_and_inputs() -> None:
    mocks = GcpMocks()
    mocks.run(lambda: Team("t"))
    team = mocks.one("test:index:Team")
    vm = mocks.one("gcp:compute/instance:Instance")
    assert vm.parent == team.urn and vm.parent_type == "test:index:Team"
    assert vm.inputs["machineType"] == "g2-standard-8"
    assert vm.urn.endswith("::t-vm") and vm.custom and not team.custom
    assert sorted(r.name for r in mocks.children(team.urn)) == ["t-iam", "t-vm"]
    assert team.parent_type == "pulumi:pulumi:Stack"
    with pytest.raises(AssertionError, match="expected one gcp:compute/network:Network"):
        mocks.one("gcp:compute/network:Network")


def test_invokes_answer_like_google() -> None:
    mocks = GcpMocks(project="acme-ml")

    def program() -> Any:
        project = gcp.organizations.get_project_output()
        cluster = gcp.container.get_cluster_output(name="c1", location="us-east5")
        return pulumi.Output.all(project.number, project.project_id, cluster.endpoint, cluster.id)

    number, project_id, endpoint, cluster_id = mocks.run(program)
    assert (number, project_id) == (MOCK_PROJECT_NUMBER, "acme-ml")
    assert endpoint and cluster_id == "projects/acme-ml/locations/us-east5/clusters/c1"
    assert [token for token, _ in mocks.invokes] == [
        "gcp:organizations/getProject:getProject",
        "gcp:container/getCluster:getCluster",
    ]


def test_dynamic_behaviours_plug_in() -> None:
    class Thing(pulumi.dynamic.Resource, module="dws", name="TestThing"):
        size: pulumi.Output[int]

        def __init__(self, name: str) -> None:
            super().__init__(pulumi.dynamic.ResourceProvider(), name, {"size": None, "asked": 3})

    @dynamic_behaviour("TestThing")
    def behave(props: dict[str, Any], mocks: GcpMocks, name: str) -> tuple[str, dict[str, Any]]:
        return f"thing-{name}", {**props, "size": props["asked"] * 2}

    mocks = GcpMocks()
    assert mocks.run(lambda: Thing("x").size) == 6
    reg = mocks.one("pulumi-python:dynamic/dws:TestThing")
    assert reg.id == "thing-x" and "__provider" in reg.inputs


def test_run_program_returns_stack_exports_and_config_reaches_the_program() -> None:
    mocks = GcpMocks()

    def program() -> None:
        pulumi.export("zone", pulumi.Config("app").require("zone"))

    outputs = mocks.run_program(program, project="app", config={"app:zone": "us-central1-c"})
    assert outputs == {"zone": "us-central1-c"}


def test_each_run_starts_clean() -> None:
    failing = GcpMocks()
    with pytest.raises(ValueError, match="boom"):
        failing.run(
            lambda: pulumi.Output.from_input(1).apply(
                lambda _: (_ for _ in ()).throw(ValueError("boom"))
            )
        )
    fine = GcpMocks()
    assert fine.run(lambda: pulumi.Output.from_input(2)) == 2
    assert fine.registered == []


def test_computed_fields_do_not_leak_into_recorded_inputs() -> None:
    import pulumi_kubernetes as k8s

    mocks = GcpMocks()

    def program() -> Any:
        team = Team("t")
        cm = k8s.core.v1.ConfigMap("cm", metadata={"namespace": "ml"}, data={"a": "b"})
        return pulumi.Output.all(team.vm.network_interfaces, cm.metadata)

    nics, meta = mocks.run(program)
    assert nics[0]["network_ip"] == "10.128.0.2" and meta["uid"]
    assert mocks.one("gcp:compute/instance:Instance").inputs["networkInterfaces"] == [
        {"network": "default"}
    ]
    assert mocks.one("kubernetes:core/v1:ConfigMap").inputs["metadata"] == {"namespace": "ml"}


def test_runs_after_code_that_left_the_thread_without_an_event_loop() -> None:
    import asyncio

    async def nothing() -> None:
        return None

    asyncio.run(nothing())  # leaves this thread with no current event loop
    assert GcpMocks().run(lambda: pulumi.Output.from_input(5)) == 5


def test_a_programs_own_error_is_not_replaced_by_a_validation_error_it_handled() -> None:
    from pulumi_dws.errors import DwsValidationError

    def program() -> None:
        try:
            raise DwsValidationError("zone", "us-central1", "is not a zone")
        except DwsValidationError:
            raise RuntimeError("no usable zone in this project") from None

    with pytest.raises(RuntimeError, match="no usable zone"):
        GcpMocks().run(program)


def test_a_failed_run_is_settled_at_once_and_nothing_reports_it_later(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A failed run leaves Outputs whose error nobody awaited; they must not report it from a
    finalizer whenever the collector next runs (on CPython 3.11 a traceback formatted there,
    inside a compile, fails that compile), and nothing may stay pending."""
    import asyncio
    import gc

    from pulumi_dws.errors import DwsValidationError

    def program() -> None:
        for name in ("a", "b"):  # two resources whose inputs fail, and a failing apply
            gcp.compute.Instance(
                name,
                machine_type="g2-standard-8",
                zone=pulumi.Output.from_input("z").apply(_refuse),
                boot_disk={"initialize_params": {"image": "debian-12"}},
                network_interfaces=[{"network": "default"}],
            )
        pulumi.Output.from_input(1).apply(lambda v: v / 0)

    with pytest.raises(DwsValidationError, match="^zone: z is refused"):
        GcpMocks().run(program)
    loop = asyncio.get_event_loop()
    assert not [task for task in asyncio.all_tasks(loop) if not task.done()]
    GcpMocks().run(lambda: None)  # the next run lets go of the SDK's state of the failed one
    with caplog.at_level("DEBUG", logger="asyncio"):
        gc.collect()
    assert not [r.getMessage() for r in caplog.records if r.name == "asyncio"]


def _refuse(zone: str) -> str:
    from pulumi_dws.errors import DwsValidationError

    raise DwsValidationError("zone", zone, "is refused")


def test_get_keeps_the_requested_id_and_is_not_recorded_as_a_registration() -> None:
    mocks = GcpMocks(project="acme-ml")

    def program() -> Any:
        vm = gcp.compute.Instance.get(
            "existing", "projects/other/zones/us-east1-b/instances/legacy-vm"
        )
        team = Team("t")
        return pulumi.Output.all(vm.id, vm.name, vm.zone, vm.project, team.vm.id)

    vm_id, name, zone, project, team_vm_id = mocks.run(program)
    assert vm_id == "projects/other/zones/us-east1-b/instances/legacy-vm"
    assert (name, zone, project) == ("legacy-vm", "us-east1-b", "other")
    assert team_vm_id.startswith("projects/acme-ml/zones/europe-west4-b/instances/t-vm-")
    assert "existing" not in [r.name for r in mocks.registered]
    assert sorted(r.name for r in mocks.registered) == ["t", "t-iam", "t-vm"]


def test_gcp_project_config_defaults_to_the_mocks_project() -> None:
    mocks = GcpMocks(project="acme-ml")
    assert mocks.run(lambda: gcp.config.project) == "acme-ml"
    assert mocks.run(lambda: gcp.config.project, config={"gcp:project": "mine"}) == "mine"


def test_service_account_name_is_the_full_resource_name() -> None:
    mocks = GcpMocks(project="acme-ml")
    name = mocks.run(lambda: gcp.serviceaccount.Account("sa", account_id="runner").name)
    assert name == "projects/acme-ml/serviceAccounts/runner@acme-ml.iam.gserviceaccount.com"


def test_parents_are_right_under_many_concurrent_registrations() -> None:
    mocks = GcpMocks()
    mocks.run(lambda: [Team(f"t{i}") for i in range(40)])
    teams = {r.name: r.urn for r in mocks.resources("test:index:Team")}
    children = mocks.resources(custom=True)
    assert len(teams) == 40 and len(children) == 80
    for child in children:
        owner = child.name.rsplit("-", 1)[0]
        assert child.parent == teams[owner], (child.name, child.parent)


def test_registrations_and_invokes_are_recorded_in_program_order() -> None:
    mocks = GcpMocks()

    def program() -> None:
        for i in range(30):
            gcp.compute.Network(f"n{i:02d}")
            gcp.organizations.get_project_output(project_id=f"p{i:02d}")

    for _ in range(2):
        mocks.registered.clear()
        mocks.invokes.clear()
        mocks.run(program)
        assert [r.name for r in mocks.registered] == [f"n{i:02d}" for i in range(30)]
        assert [args["projectId"] for _, args in mocks.invokes] == [f"p{i:02d}" for i in range(30)]


def test_a_secret_input_reaches_the_fill_as_a_value_and_stays_secret() -> None:
    """Google's provider takes a secret as its value, and its outputs from a secret input
    stay secret: the fills see plain values (a Filestore's networks as a list, not a secret's
    wrapper) and the outputs keep the marker."""
    from pulumi.runtime import rpc

    mocks = GcpMocks(project="acme-ml")

    def program() -> Any:
        return gcp.filestore.Instance(
            "home",
            location="us-central1-b",
            tier="BASIC_SSD",
            file_shares={"name": "home", "capacity_gb": 2560},
            networks=pulumi.Output.secret([{"network": "default", "modes": ["MODE_IPV4"]}]),
        ).networks

    networks = mocks.run(program)
    assert networks[0]["ip_addresses"]  # filled in
    registered = next(r for r in mocks.registered if r.name == "home")
    assert rpc.is_rpc_secret(registered.outputs["networks"])


def test_run_resolves_outputs_nested_in_what_the_program_returns() -> None:
    """A program may return its Outputs in a dict, a list or a tuple (as tests often do):
    every one is resolved, however deep, and other values are left as they are."""
    mocks = GcpMocks(project="acme-ml")

    def program() -> Any:
        team = Team("t")
        return {
            "vm": team.vm.name,
            "ids": [team.vm.id, (team.member.id, 3)],
            "nested": pulumi.Output.from_input({"member": team.member.id}),
            "plain": "x",
        }

    got = mocks.run(program)
    assert got["vm"].startswith("t-vm-") and got["plain"] == "x"
    assert got["ids"][0] == f"projects/acme-ml/zones/europe-west4-b/instances/{got['vm']}"
    assert got["ids"][1] == ("p1/roles/viewer/user:a@example.com", 3)
    assert got["nested"] == {"member": "p1/roles/viewer/user:a@example.com"}


def test_run_leaves_a_nested_unknown_as_none() -> None:
    """An Output whose value is not known (as in a preview) resolves to None where it stands;
    the known values beside it are still resolved."""

    def unknown() -> pulumi.Output[Any]:
        import asyncio

        loop = asyncio.get_event_loop()
        value, known = loop.create_future(), loop.create_future()
        value.set_result(None)
        known.set_result(False)
        return pulumi.Output(set(), value, known)

    def program() -> Any:
        return [unknown(), "known", {"one": pulumi.Output.from_input(1), "no": unknown()}]

    assert GcpMocks().run(program, preview=True) == [None, "known", {"one": 1, "no": None}]
