"""State written by the release before stack identity (``tests/fixtures/release_state_5661dad.json``,
made by ``scripts/capture_release_state.py`` with that release's code) meets the current one:
the program now asks for stack-specific default names and passes its stack's identity, and
nothing is replaced.

Each resource goes the engine's way: the component registers under mocks (new inputs and
``ignore_changes``), the engine puts the ignored paths back to the state's values
(:func:`~pulumi_dws.testing.dynamic_host.ignore_changes`, as ``processIgnoreChanges`` does),
then ``Check`` and ``Diff`` through Pulumi's real dynamic-provider host against the state's
outputs. Without the ignored paths the same diff replaces (so the test can fail)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pulumi
import pytest

from pulumi_dws.kinds.flex_group.provider import MigResizeRequestProvider
from pulumi_dws.kinds.flex_vm.provider import FlexStartVmProvider
from pulumi_dws.kinds.queued_tpu.provider import QueuedTpuProvider
from pulumi_dws.kinds.slurm.provider import SlurmClusterProvider
from pulumi_dws.testing import GcpMocks
from pulumi_dws.testing.dynamic_host import DynamicProviderHost, ignore_changes

ROOT = Path(__file__).resolve().parent.parent
STATE = json.loads((ROOT / "tests" / "fixtures" / "release_state_5661dad.json").read_text())
sys.path.insert(0, str(ROOT / "scripts"))
from capture_release_state import COMPONENTS, PROJECT  # noqa: E402

PROVIDERS: dict[str, Any] = {
    "FlexStartInstance": FlexStartVmProvider,
    "FlexStartGroup": MigResizeRequestProvider,
    "QueuedTpu": QueuedTpuProvider,
    "SlurmCluster": SlurmClusterProvider,
}


GROUPS = (
    "gcp:compute/instanceGroupManager:InstanceGroupManager",
    "gcp:compute/regionInstanceGroupManager:RegionInstanceGroupManager",
)


def _registered(kind: str) -> tuple[Any, list[Any]]:
    """The component's dynamic resource as the current release registers it, and every
    registration."""
    mocks = GcpMocks(project=PROJECT)
    mocks.run(lambda: pulumi.Output.from_input(COMPONENTS[kind]().urn))
    [child] = [
        r for r in mocks.registered if r.type.startswith("pulumi-python:dynamic/dws:") and r.custom
    ]
    return child, mocks.registered


@pytest.fixture(scope="module")
def host() -> Any:
    with DynamicProviderHost(FlexStartVmProvider()) as running:
        yield running


@pytest.mark.parametrize("kind", sorted(PROVIDERS))
def test_state_of_the_release_before_stack_identity_is_not_replaced(
    kind: str, host: DynamicProviderHost
) -> None:
    old = STATE["resources"][kind]
    child, registered = _registered(kind)
    assert child.urn == old["urn"]  # the same resource in the state
    provider = PROVIDERS[kind]()
    new = {k: v for k, v in child.inputs.items() if k != "__provider"}
    assert "owner" in new and "owner" not in old["inputs"]  # the stack's identity: new
    groups = [r for r in registered if r.type in GROUPS]
    if groups:  # the pulumi-gcp group keeps its name the same way: the request's group is it
        [group] = groups
        assert {"name", "baseInstanceName"} <= set(group.ignore_changes)
        new["group"] = old["inputs"]["group"]

    sent = ignore_changes(new, old["inputs"], child.ignore_changes)
    checked, failures = host.check(old["urn"], old["inputs"], sent, provider=provider)
    assert failures == []
    diff = host.diff(old["urn"], old["id"], old["outputs"], checked, provider=provider)
    assert diff.replaces == [], diff
    assert diff.changes in ("none", "unknown", "some")
    assert diff.changes == "none" or not diff.replaces

    # The engine's substitution is what keeps the name: without it, the new default replaces.
    unkept, _ = host.check(old["urn"], old["inputs"], new, provider=provider)
    moved = host.diff(old["urn"], old["id"], old["outputs"], unkept, provider=provider)
    assert moved.replaces, "the new default name should replace without ignore_changes"
