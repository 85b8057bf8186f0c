"""Old or hand-edited state, fuzzed through Pulumi's real dynamic-provider host against the
emulator: every ``Read``, ``Update``, ``Delete`` and ``Diff`` of each declared provider, given
a state with one key missing, null, or of another JSON type (every top-level key, and the
nested ones each provider declares), either works or fails with *one clean error*: the kind's
own error, naming the resource, and the key when the key is what is wrong. Never a raw Python
error (``KeyError``, ``TypeError``...)."""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from emulator_helpers import host_inputs as vm_inputs
from queued_tpu_helpers import props as tpu_inputs
from slurm_helpers import cluster_inputs

from pulumi_dws.kinds.batch.provider import BatchJobProvider
from pulumi_dws.kinds.batch.testing import batch_job_props
from pulumi_dws.kinds.flex_group.provider import MigResizeRequestProvider
from pulumi_dws.kinds.flex_vm.provider import FlexStartVmProvider
from pulumi_dws.kinds.queued_tpu.provider import QueuedTpuProvider
from pulumi_dws.kinds.slurm.provider import SlurmClusterProvider
from pulumi_dws.kinds.vertex_deployment.provider import FlexStartDeployedModelProvider
from pulumi_dws.kinds.vertex_deployment.testing import ENDPOINT_ID, deployed_model_props
from pulumi_dws.kinds.vertex_training.provider import VertexCustomJobProvider
from pulumi_dws.kinds.vertex_training.testing import custom_job_props
from pulumi_dws.providers.rest_resource import RestResourceProvider
from pulumi_dws.testing.clock_helpers import flex_start_group, mig_resize_props
from pulumi_dws.testing.dynamic_host import DynamicProviderError, DynamicProviderHost, urn
from pulumi_dws.testing.emulator import Emulator

KINDS: dict[str, tuple[type[RestResourceProvider], Callable[[], dict[str, Any]]]] = {
    "FlexStartVm": (FlexStartVmProvider, vm_inputs),
    "MigResizeRequest": (MigResizeRequestProvider, lambda: mig_resize_props("rr", "g")),
    "QueuedTpu": (QueuedTpuProvider, tpu_inputs),
    "SlurmCluster": (SlurmClusterProvider, cluster_inputs),
    "VertexCustomJob": (VertexCustomJobProvider, custom_job_props),
    "FlexStartDeployedModel": (FlexStartDeployedModelProvider, deployed_model_props),
    "BatchJob": (BatchJobProvider, batch_job_props),
}
_OTHER = {str: 7.0, dict: "text", list: {"a": 1.0}, float: "text", bool: "text"}


def _wrong(value: Any) -> Any:
    """A JSON value of another type than ``value``'s."""
    for kind, other in _OTHER.items():
        if isinstance(value, kind):
            return other
    return ["x"]


def _paths(state: dict[str, Any], declared: dict[str, Any]) -> list[str]:
    return sorted(set(state) | {p for p in declared if p.split(".")[0] in state})


def _get(state: dict[str, Any], path: str) -> tuple[bool, Any]:
    value: Any = state
    for part in path.split("."):
        if not isinstance(value, dict) or part not in value:
            return False, None
        value = value[part]
    return True, value


def _mutated(state: dict[str, Any], path: str, how: str) -> dict[str, Any] | None:
    present, value = _get(state, path)
    if not present:
        return None
    out = copy.deepcopy(state)
    *parents, last = path.split(".")
    target = out
    for part in parents:
        target = target[part]
    if how == "missing":
        del target[last]
    elif how == "null":
        target[last] = None
    else:
        target[last] = _wrong(value)
    return out


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
        with DynamicProviderHost(FlexStartVmProvider(), env=env) as host:
            yield emu, host


def _last_line(message: str) -> str:
    lines = [line for line in message.strip().splitlines() if line.strip()]
    return lines[-1] if lines else ""


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_every_method_on_broken_state_is_one_clean_error(
    kind: str, world: tuple[Emulator, DynamicProviderHost]
) -> None:
    emu, host = world
    cls, make = KINDS[kind]
    provider = cls()
    declared = dict(cls.RESOURCE.state)
    error = cls.RESOURCE.error.__name__
    emu["compute"].add_capacity("us-central1-a", "a3-highgpu-8g", 8)
    emu["tpu"].add_chips("us-east5-a", "v6e", 16)
    emu["aiplatform"].add_capacity("us-central1", "a3-highgpu-8g", 16)
    emu["aiplatform"].add_capacity("us-central1", "g2-standard-24", 8)
    emu["batch"].add_capacity("us-central1-a", "a3-highgpu-8g", 8)
    if kind == "MigResizeRequest":
        flex_start_group(emu, "g", project="p", zone="us-central1-a")
    if kind == "FlexStartDeployedModel":
        emu["aiplatform"].add_endpoint("my-project", "us-central1", ENDPOINT_ID)
    inputs = make()
    u = urn(cls.RESOURCE.type_token, f"{kind.lower()}-fuzz")
    id_, outs = host.create(u, inputs, provider=provider)

    calls = raw = 0
    problems: list[str] = []
    for path in _paths(outs, declared):
        for how in ("missing", "null", "wrong"):
            state = _mutated(outs, path, how)
            if state is None:
                continue
            for method in ("read", "diff", "update", "delete"):
                calls += 1
                try:
                    if method == "read":
                        host.read(u, id_, state, provider=provider)
                    elif method == "diff":
                        host.diff(u, id_, state, inputs, provider=provider)
                    elif method == "update":
                        host.update(u, id_, state, inputs, provider=provider)
                    else:
                        host.delete(u, id_, state, provider=provider)
                        id_, outs = host.create(u, inputs, provider=provider)  # again
                except DynamicProviderError as err:
                    last = _last_line(err.message)
                    clean = (err.exception_type or "").rsplit(".", 1)[-1] == error
                    names = cls.RESOURCE.name in last or id_ in last or cls.RESOURCE.noun in last
                    keyed = "its state" not in last or f"'{path.split('.')[0]}" in last
                    if not (clean and names and keyed):
                        raw += 1
                        problems.append(
                            f"{method} {path} {how}: {err.exception_type}: {last[:200]}"
                        )
    print(f"{kind}: {calls} calls on broken state, {raw} not one clean error")  # noqa: T201
    assert raw == 0, "\n".join(problems[:20])
    assert calls > 50


def test_a_missing_key_is_named() -> None:
    """The error names the key (what the user must restore), not a Python exception."""
    provider = QueuedTpuProvider()
    state = tpu_inputs()
    del state["zone"]
    with pytest.raises(Exception) as info:
        provider.read("projects/p/locations/us-east5-a/queuedResources/qr1", state)
    assert re.search(
        r"QueuedTpu projects/.*: its state can't be used: 'zone' is missing", str(info.value)
    )
