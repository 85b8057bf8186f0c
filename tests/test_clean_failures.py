"""Values that go into URLs are checked in full (in the providers' ``check()`` too, and on ids
read back), validators anchor the whole string, and every bad answer on read, update or delete
is one clear message naming the resource, never a raw traceback."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from slurm_helpers import ID, cluster_inputs

from pulumi_dws.errors import DwsValidationError
from pulumi_dws.kinds.flex_vm.provider import FlexStartError, FlexStartVmProvider
from pulumi_dws.kinds.slurm.provider import SlurmClusterError, SlurmClusterProvider
from pulumi_dws.testing.clock_helpers import flex_start_vm_props, virtual_sleep
from pulumi_dws.testing.emulator import Emulator
from pulumi_dws.testing.emulator.aiplatform import AiPlatformService
from pulumi_dws.testing.fault_proxy import FaultProxy, ProxyFaultPlan
from pulumi_dws.validation import check_labels, check_name, check_region, check_zone

ZONE, MACHINE = "us-central1-a", "a3-highgpu-8g"


def props(**changes: Any) -> dict[str, Any]:
    vm = flex_start_vm_props("vm-1", project="p", zone=ZONE, machine_type=MACHINE)
    vm.update(changes)
    return vm


@pytest.fixture
def emu(monkeypatch: pytest.MonkeyPatch) -> Iterator[Emulator]:
    with Emulator() as emulator:
        emulator.add(AiPlatformService(emulator.clock))
        monkeypatch.setenv("DWS_VIRTUAL_CLOCK_URL", emulator.clock_url)
        monkeypatch.setenv("DWS_COMPUTE_ENDPOINT", emulator.url)
        monkeypatch.setenv("DWS_AIPLATFORM_ENDPOINT", emulator.url)
        monkeypatch.setenv("DWS_HTTP_TIMEOUT", "0.3")
        yield emulator


# ---------------------------------------------------------------------- anchored validators
@pytest.mark.parametrize(
    "check",
    [
        lambda: check_name("name", "vm-1\n"),
        lambda: check_zone("zone", "us-central1-a\n"),
        lambda: check_region("region", "us-central1\n"),
        lambda: check_labels("labels", {"team": "ml\n"}),
        lambda: check_labels("labels", {"team\n": "ml"}),
    ],
)
def test_a_trailing_newline_is_rejected(check: Any) -> None:
    with pytest.raises(DwsValidationError):
        check()


def test_providers_reject_a_trailing_newline_in_check() -> None:
    flex = FlexStartVmProvider().check({}, props(name="vm-1\n", zone=f"{ZONE}\n")).failures
    assert {f.property for f in flex} >= {"name", "zone"}
    slurm = SlurmClusterProvider().check({}, cluster_inputs(cluster_id="flexvm\n")).failures
    assert [f.property for f in slurm] == ["cluster_id"]


# ---------------------------------------------------------------------- URL injection
def test_a_project_can_never_address_another_vm(emu: Emulator) -> None:
    compute = emu["compute"]
    compute.add_capacity(ZONE, MACHINE, 1)
    provider = FlexStartVmProvider(sleep=virtual_sleep(emu))
    victim = provider.create(flex_start_vm_props("victim", project="p", zone=ZONE))
    evil = props(project=f"p/zones/{ZONE}/instances/victim#")
    assert [f.property for f in provider.check({}, evil).failures] == ["project"]
    with pytest.raises(FlexStartError):
        provider.delete("x", evil)  # the dynamic resource used directly, without check()
    with pytest.raises(FlexStartError):
        provider.read(f"projects/p/zones/{ZONE}/instances/victim%23", {})
    assert compute.instance("p", ZONE, "victim") is not None
    assert not [r for r in emu.requests if r.method == "DELETE"]
    assert victim.outs["status"] == "RUNNING"


def test_a_region_never_becomes_a_host_name_in_the_slurm_provider(
    emu: Emulator, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("DWS_AIPLATFORM_ENDPOINT")
    provider = SlurmClusterProvider()
    bad = cluster_inputs(region="evil.example#")
    assert "region" in [f.property for f in provider.check({}, bad).failures]
    with pytest.raises(SlurmClusterError, match="region"):
        provider.create(bad)
    with pytest.raises(SlurmClusterError):
        provider.read("projects/p/locations/evil.example#/modelDevelopmentClusters/x", {})


# ---------------------------------------------------------------------- bad answers
@pytest.fixture
def proxy(emu: Emulator, monkeypatch: pytest.MonkeyPatch) -> Iterator[FaultProxy]:
    with FaultProxy(emu.url) as running:
        monkeypatch.setenv("DWS_COMPUTE_ENDPOINT", running.url)
        monkeypatch.setenv("DWS_AIPLATFORM_ENDPOINT", running.url)
        yield running


@pytest.mark.parametrize("kind", ["html", "empty", "string_error", "truncated", "reset"])
def test_malformed_answers_on_read_update_and_delete_are_one_clear_error(
    emu: Emulator, proxy: FaultProxy, kind: str
) -> None:
    emu["compute"].add_capacity(ZONE, MACHINE, 1)
    provider = FlexStartVmProvider(sleep=virtual_sleep(emu))
    created = provider.create(props())
    proxy.plan = ProxyFaultPlan(queue=[kind] * 100)
    for call in (
        lambda: provider.read(created.id, created.outs),
        lambda: provider.update(created.id, created.outs, props(desiredStatus="TERMINATED")),
        lambda: provider.delete(created.id, created.outs),
    ):
        with pytest.raises(FlexStartError) as info:
            call()
        message = str(info.value)
        assert "vm-1" in message and "pulumi" in message, message
    proxy.plan = ProxyFaultPlan(queue=[kind] * 100)
    slurm = SlurmClusterProvider(sleep=virtual_sleep(emu))
    for call in (
        lambda: slurm.read(ID, {}),
        lambda: slurm.delete(ID, {}),
        lambda: slurm.update(ID, cluster_inputs(), cluster_inputs(display_name="x")),
    ):
        with pytest.raises(SlurmClusterError) as info:
            call()
        assert "flexvm" in str(info.value)


def test_a_set_labels_applied_but_unanswered_is_not_done_twice(
    emu: Emulator, proxy: FaultProxy
) -> None:
    emu["compute"].add_capacity(ZONE, MACHINE, 1)
    provider = FlexStartVmProvider(sleep=virtual_sleep(emu))
    created = provider.create(props())
    proxy.plan = ProxyFaultPlan(match=lambda m, p: p.endswith("/setLabels"), queue=["lose"])
    news = props()
    news["body"]["labels"] = {"team": "infra"}
    outs = provider.update(created.id, created.outs, news).outs
    assert outs["body"]["labels"] == {"team": "infra"}
    sets = [r for r in emu.requests if r.path.endswith("/setLabels")]
    assert len({r.query["requestId"] for r in sets}) == 1  # the retry was deduplicated


def test_an_operation_that_never_finishes_is_one_clear_error(emu: Emulator) -> None:
    svc: AiPlatformService = emu["aiplatform"]
    provider = SlurmClusterProvider(timeout=120, sleep=virtual_sleep(emu))
    state = dict(provider.create(cluster_inputs()).outs or {})
    svc.update_seconds = 10**6  # the update never ends within the provider's patience
    body = cluster_inputs()["body"]
    body["display_name"] = "renamed"
    with pytest.raises(SlurmClusterError, match="could not be confirmed") as info:
        provider.update(ID, state, cluster_inputs(body))
    assert "Traceback" not in str(info.value)
