"""After a SIGKILL mid-create, through Pulumi's real dynamic-provider host against the emulator:
the next ``pulumi up`` with *changed* inputs is refused, and its error names the leftover and
the command that removes it entirely (a resize request: its VMs too); ``dws leftovers --stack
S`` lists what the stack marked and does not track, and ``--delete`` removes it, after which
the create goes through. (The same inputs adopt the leftover: ``test_cancellation.py``.)"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests
from emulator_helpers import host_inputs as vm_inputs

from pulumi_dws.cli import main
from pulumi_dws.kinds.batch.provider import TYPE_TOKEN as BATCH_JOB
from pulumi_dws.kinds.batch.provider import BatchJobProvider
from pulumi_dws.kinds.batch.testing import batch_job_props
from pulumi_dws.kinds.flex_group.provider import MigResizeRequestProvider
from pulumi_dws.kinds.flex_vm.provider import FlexStartVmProvider
from pulumi_dws.kinds.vertex_training.provider import TYPE_TOKEN as CUSTOM_JOB
from pulumi_dws.kinds.vertex_training.provider import VertexCustomJobProvider
from pulumi_dws.kinds.vertex_training.testing import custom_job_props
from pulumi_dws.testing.clock_helpers import flex_start_group, mig_resize_props
from pulumi_dws.testing.dynamic_host import DynamicProviderError, DynamicProviderHost, urn
from pulumi_dws.testing.emulator import Emulator
from pulumi_dws.testing.fault_proxy import FaultProxy, ProxyFaultPlan

PROJECT, ZONE, MACHINE = "p", "us-central1-a", "a3-highgpu-8g"
STACK = "project/dev"
HELD = 120.0


def _owner(name: str) -> dict[str, str]:
    return {"organization": "organization", "project": "project", "stack": "dev", "name": name}


@pytest.fixture
def emu(monkeypatch: pytest.MonkeyPatch) -> Iterator[Emulator]:
    with Emulator() as emulator:
        for key in (
            "DWS_COMPUTE_ENDPOINT",
            "DWS_TPU_ENDPOINT",
            "DWS_AIPLATFORM_ENDPOINT",
            "DWS_BATCH_ENDPOINT",
        ):
            monkeypatch.setenv(key, emulator.url)  # for `dws leftovers`, in this process
        monkeypatch.setenv("DWS_VIRTUAL_CLOCK_URL", emulator.clock_url)
        yield emulator


def _env(url: str, emu: Emulator) -> dict[str, str]:
    return {
        "DWS_COMPUTE_ENDPOINT": url,
        "DWS_TPU_ENDPOINT": url,
        "DWS_VIRTUAL_CLOCK_URL": emu.clock_url,
        "DWS_HTTP_TIMEOUT": str(HELD),
    }


def _killed_mid_create(
    emu: Emulator,
    provider: Any,
    urn_: str,
    inputs: dict[str, Any],
    poll: str,
    skip: int,
    env: dict[str, str] | None = None,
) -> None:
    """A create through a host that is killed (SIGKILL) while the proxy holds its ``skip``-th
    poll matching ``poll``: what the API made stays, marked, in no state."""
    earlier = {id(r) for r in emu.requests}  # the held poll is one of this create's
    with FaultProxy(emu.url, hold_limit=HELD) as proxy:
        seen = {"n": 0}

        def chosen(method: str, path: str) -> bool:
            if method != "GET" or poll not in path:
                return False
            seen["n"] += 1
            return seen["n"] == skip + 1

        proxy.plan = ProxyFaultPlan(match=chosen, queue=["slow"])
        through = {k: proxy.url if v == emu.url else v for k, v in (env or {}).items()}
        with DynamicProviderHost(provider, env={**through, **_env(proxy.url, emu)}) as host:
            call = host.background(host.create, urn_, inputs)
            emu.wait_for_requests(
                lambda r: id(r) not in earlier and r.method == "GET" and poll in r.path,
                skip + 1,
                timeout=60,
            )
            host.kill()
            with pytest.raises(DynamicProviderError):
                call.result(timeout=60)


def _export(tmp_path: Path, resources: list[dict[str, Any]]) -> str:
    path = tmp_path / "state.json"
    path.write_text(json.dumps({"version": 3, "deployment": {"resources": resources}}))
    return str(path)


def test_a_killed_vm_create_then_changed_inputs_names_the_leftover_and_dws_removes_it(
    emu: Emulator, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    vm = urn("pulumi-python:dynamic/dws:FlexStartVm", "trainer-vm", project="project")
    inputs = {**vm_inputs(), "owner": _owner("trainer-vm")}
    _killed_mid_create(emu, FlexStartVmProvider(), vm, inputs, "/operations/", skip=1)
    compute = emu["compute"]
    assert [i["status"] for i in compute.instances()] == ["PENDING"]  # queued, in no state

    changed = {
        **inputs,
        "body": {**inputs["body"], "machineType": f"zones/{ZONE}/machineTypes/a3-megagpu-8g"},
    }
    with (
        DynamicProviderHost(FlexStartVmProvider(), env=_env(emu.url, emu)) as host,
        pytest.raises(DynamicProviderError) as info,
    ):
        host.create(vm, changed)
    message = info.value.message
    assert "a leftover" in message and "instance named trainer" in message
    assert f"gcloud compute instances delete trainer --zone {ZONE} --project {PROJECT}" in message

    state = _export(tmp_path, [])  # the stack tracks nothing: the create never returned
    assert main(["leftovers", "--stack", STACK, "--project", PROJECT, "--state", state]) == 0
    listed = capsys.readouterr().out
    assert f"projects/{PROJECT}/zones/{ZONE}/instances/trainer" in listed and "PENDING" in listed
    args = ["leftovers", "--stack", STACK, "--project", PROJECT, "--state", state, "--delete"]
    assert main(args) == 0
    assert "deleted" in capsys.readouterr().out
    assert compute.instances() == []
    compute.add_capacity(ZONE, "a3-megagpu-8g", 1)
    with DynamicProviderHost(FlexStartVmProvider(), env=_env(emu.url, emu)) as host:
        _, outs = host.create(vm, changed)
    assert outs["status"] == "RUNNING"


def test_a_vm_another_stack_marked_is_no_leftover_of_this_one(
    emu: Emulator, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    emu["compute"].add_capacity(ZONE, MACHINE, 1)
    other = {**vm_inputs(), "owner": {**_owner("trainer-vm"), "stack": "prod"}}
    with DynamicProviderHost(FlexStartVmProvider(), env=_env(emu.url, emu)) as host:
        host.create(urn("pulumi-python:dynamic/dws:FlexStartVm", "trainer-vm"), other)
    state = _export(tmp_path, [])
    assert main(["leftovers", "--stack", STACK, "--project", PROJECT, "--state", state]) == 0
    assert "no leftovers" in capsys.readouterr().out


def _run_advice(emu: Emulator, message: str) -> int:
    """Carry out the gcloud commands the error advises (as the REST calls gcloud makes)."""
    commands = re.findall(r"`(gcloud [^`]+)`", message)
    base = f"{emu.url}compute/v1/projects"
    for command in commands:
        words = shlex.split(command)
        flags = dict(w.lstrip("-").split("=", 1) for w in words if w.startswith("--") and "=" in w)
        pairs = {words[i].lstrip("-"): words[i + 1] for i, w in enumerate(words[:-1])}
        where = f"zones/{pairs['zone']}"
        if "resize-requests" in words:
            verb, group = words[words.index("resize-requests") + 1 :][:2]
            path = f"{base}/{pairs['project']}/{where}/instanceGroupManagers/{group}/resizeRequests/{flags['resize-requests']}"
            if verb == "cancel":
                requests.post(f"{path}/cancel", timeout=10)
            else:
                requests.delete(path, timeout=10)
        else:
            group = words[words.index("resize") + 1]
            url = f"{base}/{pairs['project']}/{where}/instanceGroupManagers/{group}/resize"
            requests.post(url, params={"size": flags["size"]}, timeout=10)
        emu.clock.advance(60)
    return len(commands)


@pytest.mark.parametrize("clean", ["advice", "dws"])
def test_a_killed_resize_request_then_changed_inputs_names_it_and_its_removal_leaves_no_vm(
    emu: Emulator, tmp_path: Path, clean: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """The request was ACCEPTED when `pulumi up` died; its set then ran. The next `pulumi up`
    asks for another count: refused, naming the request; removing it (the error's commands, or
    `dws leftovers --delete`) removes its VMs too, and the new set is made whole."""
    compute = emu["compute"]
    flex_start_group(emu, "g", project=PROJECT, zone=ZONE)
    rr = urn("pulumi-python:dynamic/dws:MigResizeRequest", "g-request", project="project")
    inputs = {**mig_resize_props("g", "g", count=4), "owner": _owner("g-request")}
    _killed_mid_create(emu, MigResizeRequestProvider(), rr, inputs, "/resizeRequests/g", skip=1)
    compute.add_capacity(ZONE, MACHINE, 12)
    emu.clock.advance(600)
    assert len(compute.instances()) == 4  # the leftover's set runs, in no state

    changed = {**mig_resize_props("g", "g", count=8), "owner": _owner("g-request")}
    with (
        DynamicProviderHost(MigResizeRequestProvider(), env=_env(emu.url, emu)) as host,
        pytest.raises(DynamicProviderError) as info,
    ):
        host.create(rr, changed)
    message = info.value.message
    assert "resize request named g already exists" in message
    if clean == "advice":
        assert _run_advice(emu, message) == 3
    else:
        group = {
            "type": "gcp:compute/instanceGroupManager:InstanceGroupManager",
            "id": f"projects/{PROJECT}/zones/{ZONE}/instanceGroupManagers/g",
            "outputs": {"project": PROJECT, "zone": ZONE, "name": "g"},
        }
        state = _export(tmp_path, [group])
        args = ["leftovers", "--stack", STACK, "--project", PROJECT, "--state", state]
        assert main([*args, "--delete"]) == 0
        out = capsys.readouterr().out
        assert "resizeRequests/g" in out and "deleted" in out
    assert compute.instances() == [] and compute.resize_requests() == []
    with DynamicProviderHost(MigResizeRequestProvider(), env=_env(emu.url, emu)) as host:
        _, outs = host.create(rr, changed)
    assert len(outs["observed"]["instances"]) == 8 == len(compute.instances())


JOB_KINDS = {
    # kind: (provider, URN, inputs, the wait's poll, what the emulator holds of it)
    "BatchJob": (
        BatchJobProvider,
        urn(BATCH_JOB, "render-job", project="project"),
        batch_job_props,
        "/jobs/render",
        lambda emu: [key[2] for key in emu["batch"].jobs()],
    ),
    "VertexCustomJob": (
        VertexCustomJobProvider,
        urn(CUSTOM_JOB, "finetune-job", project="project"),
        custom_job_props,
        "/customJobs/",
        lambda emu: emu["aiplatform"].custom_jobs(),
    ),
}


@pytest.mark.parametrize("kind", sorted(JOB_KINDS))
def test_a_killed_job_create_is_listed_by_dws_leftovers_and_removed(
    kind: str, emu: Emulator, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A job queued when `pulumi up` was killed stays, marked with the stack, in no state:
    `dws leftovers --region R` lists it (another stack's job beside it is not listed), and
    `--delete` removes it."""
    make, resource_urn, inputs, poll, held = JOB_KINDS[kind]
    ours = {**inputs(), "owner": _owner(resource_urn.rsplit("::", 1)[-1])}
    env = {**_env(emu.url, emu), "DWS_AIPLATFORM_ENDPOINT": emu.url, "DWS_BATCH_ENDPOINT": emu.url}
    theirs = {**inputs(), "owner": {**_owner("other"), "stack": "prod"}}
    if kind == "BatchJob":
        theirs["jobId"] = "prod-render"  # (not a path the held poll matches)
    with DynamicProviderHost(make(), env=env) as host:
        host.create(resource_urn, {**theirs, "waitFor": "queued"})  # prod's, tracked by prod
    _killed_mid_create(emu, make(), resource_urn, ours, poll, skip=1, env=env)
    assert len(held(emu)) == 2  # ours queued in no state, and prod's

    state = _export(tmp_path, [])
    args = ["leftovers", "--stack", STACK, "--project", "my-project", "--state", state]
    args += ["--region", "us-central1"]
    assert main(args) == 0
    listed = capsys.readouterr().out
    assert kind in listed and listed.count(kind) == 1  # ours only
    assert main([*args, "--delete"]) == 0
    assert "deleted" in capsys.readouterr().out
    emu.clock.advance(3600)
    assert len(held(emu)) == 1  # prod's stays
