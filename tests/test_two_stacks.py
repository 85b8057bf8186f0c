"""Two stacks (``dev`` and ``prod``) of one program in one Google project, through Pulumi's real
dynamic-provider host against the emulator: what each stack's program registers (its default
names, its identity) is what the host creates.

- With default names the stacks never meet: each makes its own resource, and one stack's
  ``pulumi destroy`` leaves the other's in place.
- With a name pinned alike in both, the second stack's create is refused, naming the first
  stack (its ``dws-stack`` label): it is never adopted, so never destroyed by the wrong stack.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pulumi
import pytest
import requests

from pulumi_dws import BatchFlexJob, FlexStartDeployment, FlexStartGroup, VertexTrainingJob
from pulumi_dws.kinds.batch.provider import BatchJobProvider
from pulumi_dws.kinds.batch.testing import COMPONENT_ARGS as BATCH_ARGS
from pulumi_dws.kinds.flex_group.provider import MigResizeRequestProvider
from pulumi_dws.kinds.flex_vm.provider import FlexStartVmProvider
from pulumi_dws.kinds.queued_tpu.provider import QueuedTpuProvider
from pulumi_dws.kinds.slurm.provider import SlurmClusterProvider
from pulumi_dws.kinds.vertex_deployment.provider import FlexStartDeployedModelProvider
from pulumi_dws.kinds.vertex_deployment.testing import COMPONENT_ARGS as DEPLOY_ARGS
from pulumi_dws.kinds.vertex_deployment.testing import ENDPOINT_ID
from pulumi_dws.kinds.vertex_training.provider import VertexCustomJobProvider
from pulumi_dws.kinds.vertex_training.testing import COMPONENT_ARGS as TRAIN_ARGS
from pulumi_dws.providers.ownership import stack_mark
from pulumi_dws.testing import GcpMocks
from pulumi_dws.testing.clock_helpers import flex_start_group
from pulumi_dws.testing.dynamic_host import DynamicProviderError, DynamicProviderHost
from pulumi_dws.testing.emulator import Emulator
from pulumi_dws.testing.gcp_rest import template_body

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))
from capture_release_state import COMPONENTS, PROJECT  # noqa: E402

STACKS = ("dev", "prod")
TEMPLATE = "gcp:compute/instanceTemplate:InstanceTemplate"
PROVIDERS: dict[str, Any] = {
    "FlexStartInstance": FlexStartVmProvider,
    "FlexStartGroup": MigResizeRequestProvider,
    "QueuedTpu": QueuedTpuProvider,
    "SlurmCluster": SlurmClusterProvider,
    "BatchFlexJob": BatchJobProvider,
    "VertexTrainingJob": VertexCustomJobProvider,  # the API names the job
    "FlexStartDeployment": FlexStartDeployedModelProvider,  # its id derives from the stack's key
}
KINDS: dict[str, Any] = {
    **COMPONENTS,
    "BatchFlexJob": lambda: BatchFlexJob("render", BATCH_ARGS),  # type: ignore[arg-type]
    "VertexTrainingJob": lambda: VertexTrainingJob("finetune", TRAIN_ARGS),  # type: ignore[arg-type]
    "FlexStartDeployment": lambda: FlexStartDeployment("llm", DEPLOY_ARGS),  # type: ignore[arg-type]
}
PINNED: dict[str, dict[str, str]] = {  # the argument that pins each kind's name
    "FlexStartInstance": {"instance_name": "trainer"},
    "QueuedTpu": {"queued_resource_id": "trainer"},
    "SlurmCluster": {"cluster_id": "flexvm"},
    "BatchFlexJob": {"job_id": "render"},
}


def _program(kind: str, stack: str, pinned: bool) -> tuple[Any, list[Any]]:
    """What ``stack``'s program registers for ``kind``: its dynamic resource and every
    registration."""
    mocks = GcpMocks(project=PROJECT)

    def make() -> Any:
        component = KINDS[kind]()
        if pinned:  # the same component, its name pinned by the user
            component = type(component)(
                f"{component._name}-pinned",  # noqa: SLF001 - the component's own name
                {**_args_of(component), **PINNED[kind]},
            )
        return pulumi.Output.from_input(component.urn)

    mocks.run(make, stack=stack)
    dynamic = [
        r for r in mocks.registered if r.type.startswith("pulumi-python:dynamic/dws:") and r.custom
    ]
    return dynamic[-1], mocks.registered


def _args_of(component: Any) -> dict[str, Any]:
    return dict(component.spec.model_dump(exclude_unset=True))


@pytest.fixture(scope="module")
def world() -> Iterator[tuple[Emulator, DynamicProviderHost]]:
    with Emulator() as emu:
        env = {
            "DWS_COMPUTE_ENDPOINT": emu.url,
            "DWS_TPU_ENDPOINT": emu.url,
            "DWS_AIPLATFORM_ENDPOINT": emu.url,
            "DWS_BATCH_ENDPOINT": emu.url,
            "DWS_VIRTUAL_CLOCK_URL": emu.clock_url,
        }
        emu["aiplatform"].add_endpoint(PROJECT, "us-central1", ENDPOINT_ID)
        with DynamicProviderHost(FlexStartVmProvider(), env=env) as host:
            yield emu, host


def _inputs(child: Any) -> dict[str, Any]:
    return {k: v for k, v in child.inputs.items() if k != "__provider"}


def _prepare(emu: Emulator, kind: str, registered: list[Any]) -> None:
    """What the rest of the program made before the dynamic resource: capacity, and a
    group's template and group (pulumi-gcp's, in the emulator)."""
    emu["compute"].add_capacity("us-central1-a", "a3-highgpu-8g", 2)
    emu["tpu"].add_chips("us-east5-a", "v6e", 16)
    emu["aiplatform"].add_capacity("us-central1", "a3-highgpu-8g", 4)
    emu["aiplatform"].add_capacity("us-central1", "g2-standard-24", 1)
    emu["batch"].add_capacity("us-central1-a", "a3-highgpu-8g", 2)
    for template in [r for r in registered if r.type == TEMPLATE]:
        state = template.outputs
        body = template_body(state["name"], state)
        url = f"{emu.url}compute/v1/projects/{PROJECT}/global/instanceTemplates"
        requests.post(url, json=body, timeout=30)  # 409 when an earlier case made it
    if kind == "FlexStartGroup":
        [group] = [r for r in registered if r.type.endswith("InstanceGroupManager")]
        flex_start_group(emu, group.inputs["name"], project=PROJECT)


def _exists(emu: Emulator, kind: str, id_: str) -> bool:
    parts = id_.split("/")
    if kind == "FlexStartInstance":
        return emu["compute"].instance(parts[1], parts[3], parts[5]) is not None
    if kind == "QueuedTpu":
        return emu["tpu"].queued_resource(parts[1], parts[3], parts[5]) is not None
    if kind == "SlurmCluster":
        return emu["aiplatform"].cluster(parts[1], parts[3], parts[5]) is not None
    if kind == "BatchFlexJob":
        return any(key[2] == parts[5] for key in emu["batch"].jobs())
    if kind == "VertexTrainingJob":
        return any(name.endswith(f"/{parts[5]}") for name in emu["aiplatform"].custom_jobs())
    if kind == "FlexStartDeployment":
        return any(model == parts[7] for _, model in emu["aiplatform"].deployments())
    group, name = parts[5], parts[7]
    requests = [r for r in emu["compute"].resize_requests(PROJECT) if r["name"] == name]
    return any(f"/instanceGroupManagers/{group}/" in r["selfLink"] for r in requests)


@pytest.mark.parametrize("kind", sorted(PROVIDERS))
def test_default_names_keep_two_stacks_apart(
    kind: str, world: tuple[Emulator, DynamicProviderHost]
) -> None:
    emu, host = world
    provider = PROVIDERS[kind]()
    made: dict[str, tuple[str, dict[str, Any], Any]] = {}
    for stack in STACKS:
        child, registered = _program(kind, stack, pinned=False)
        _prepare(emu, kind, registered)
        id_, outs = host.create(child.urn, _inputs(child), provider=provider)
        made[stack] = (id_, outs, child)
    assert made["dev"][0] != made["prod"][0]
    assert made["dev"][1]["ownership"]["stack"] != made["prod"][1]["ownership"]["stack"]
    prod_id, prod_outs, prod = made["prod"]
    host.delete(prod.urn, prod_id, prod_outs, provider=provider)  # prod's `pulumi destroy`
    emu.clock.advance(3600)
    assert _exists(emu, kind, made["dev"][0]) and not _exists(emu, kind, prod_id)


@pytest.mark.parametrize("kind", sorted(PINNED))
def test_a_name_pinned_in_both_stacks_is_refused_in_the_second_naming_the_first(
    kind: str, world: tuple[Emulator, DynamicProviderHost]
) -> None:
    emu, host = world
    provider = PROVIDERS[kind]()
    dev, registered = _program(kind, "dev", pinned=True)
    _prepare(emu, kind, registered)
    dev_id, _ = host.create(dev.urn, _inputs(dev), provider=provider)
    prod, _ = _program(kind, "prod", pinned=True)
    with pytest.raises(DynamicProviderError) as info:
        host.create(prod.urn, _inputs(prod), provider=provider)
    message = info.value.message
    owner = stack_mark("organization/project/dev")  # the Pulumi project the mocks run
    assert "belongs to another stack" in message and owner in message
    assert "Nothing was created or changed" in message
    assert _exists(emu, kind, dev_id)  # dev's resource: untouched, and not prod's to destroy


def test_the_group_and_its_request_of_each_stack_are_their_own(
    world: tuple[Emulator, DynamicProviderHost],
) -> None:
    """A FlexStartGroup's group (pulumi-gcp's) is named after the stack too: two stacks make
    two groups, each with its own request and VMs."""
    groups = set()
    for stack in STACKS:
        _, registered = _program("FlexStartGroup", stack, pinned=False)
        [group] = [r for r in registered if r.type.endswith("InstanceGroupManager")]
        groups.add(group.inputs["name"])
    assert len(groups) == 2 and all(g.startswith("trainers-") for g in groups)
    assert FlexStartGroup  # the component the program uses
