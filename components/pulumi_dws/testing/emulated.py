"""Run a stack's dynamic resources for real against the local emulator, without Pulumi or
Google: ``dws emulate`` and :func:`emulate`.

The program runs as ``pulumi up`` would run it (its stack config, ``dws:capacity`` included),
under :class:`~pulumi_dws.testing.GcpMocks`, except that each pulumi-dws dynamic resource
(``FlexStartVm``, ``QueuedTpu``, ``MigResizeRequest``, ``SlurmCluster``, ``StableTime``...) is
created by its own provider, unpickled from the resource as Pulumi's dynamic-provider host
unpickles it: its ``check`` then its ``create``, over HTTP, against an
:class:`~pulumi_dws.testing.emulator.Emulator` (queues, capacity and the virtual clock
included). The instance templates, workload policies and managed instance groups a
``FlexStartGroup`` registers are created in the emulator too (as pulumi-gcp sends them,
:mod:`pulumi_dws.testing.gcp_rest`), so its resize request finds its group. Other pulumi-gcp
resources stay mocked::

    from pulumi_dws.testing.emulated import emulate
    from pulumi_dws.testing.emulator import Emulator

    with Emulator() as emu:
        emu["tpu"].add_chips("us-east5-a", "v6e", 16)
        run = emulate("stacks/tpu-dws", "dev", emu)
        print(run.created)      # [('v6e-flex-queued-resource', 'projects/.../v6e-flex', 'ACTIVE')]
"""

from __future__ import annotations

import base64
import contextlib
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import dill  # type: ignore[import-untyped]
import requests

from .emulator import Emulator
from .gcp_rest import group_request, resource_policy_body, template_body
from .mocks import GcpMocks

__all__ = ["EmulatedMocks", "EmulatedRun", "emulate", "emulator_environment"]

_TEMPLATES = (
    "gcp:compute/instanceTemplate:InstanceTemplate",
    "gcp:compute/regionInstanceTemplate:RegionInstanceTemplate",
)
_GROUPS = (
    "gcp:compute/instanceGroupManager:InstanceGroupManager",
    "gcp:compute/regionInstanceGroupManager:RegionInstanceGroupManager",
)
_POLICY = "gcp:compute/resourcePolicy:ResourcePolicy"
_STATE_KEYS = ("state", "status")


@contextlib.contextmanager
def emulator_environment(emulator: Emulator) -> Iterator[None]:
    """The environment ``dws emulator`` prints, set inside a ``with`` block: every endpoint
    at ``emulator``, its virtual clock for the providers' waits."""
    values = {
        "DWS_COMPUTE_ENDPOINT": emulator.url,
        "DWS_AIPLATFORM_ENDPOINT": emulator.url,
        "DWS_TPU_ENDPOINT": emulator.url,
        "DWS_VIRTUAL_CLOCK_URL": emulator.clock_url,
    }
    saved = {key: os.environ.get(key) for key in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


class EmulatedMocks(GcpMocks):
    """:class:`GcpMocks` whose dynamic resources are created by their own providers against
    the emulator the endpoints name (see the module docstring), and whose instance templates
    and groups are created in ``emulator``."""

    def __init__(self, emulator: Emulator, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.emulator = emulator
        self.created: list[tuple[str, str, Any]] = []
        """``(name, id, state)`` of each dynamic resource created, in order."""

    def _dynamic(self, typ: str, name: str, inputs: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        from .dynamic_host import unwrap_secrets

        if "__provider" not in inputs:
            return super()._dynamic(typ, name, inputs)
        # As Pulumi's dynamic-provider host reads it (pulumi.dynamic.__main__.get_provider).
        provider = dill.loads(base64.b64decode(inputs["__provider"]))
        props = {k: unwrap_secrets(v) for k, v in inputs.items() if k != "__provider"}
        checked = provider.check({}, props)
        if checked.failures:
            problems = "; ".join(f"{f.property}: {f.reason}" for f in checked.failures)
            raise RuntimeError(f"{name}: {problems}")
        result = provider.create(dict(checked.inputs or props))
        outs = dict(result.outs or {})
        state = next((outs[k] for k in _STATE_KEYS if k in outs), None)
        self.created.append((name, str(result.id), state))
        return str(result.id), outs

    def _fill(
        self, typ: str, name: str, inputs: dict[str, Any], given_id: str = ""
    ) -> tuple[str, dict[str, Any]]:
        rid, state = super()._fill(typ, name, inputs, given_id)
        if typ in _TEMPLATES:
            where = f"regions/{state['region']}" if state.get("region") else "global"
            self._post(
                state["project"], f"{where}/instanceTemplates", template_body(state["name"], state)
            )
        elif typ == _POLICY and state.get("workloadPolicy"):
            path = f"compute/beta/projects/{state['project']}/regions/{state['region']}"
            self._send(f"{path}/resourcePolicies", resource_policy_body(state, state["name"]))
        elif typ in _GROUPS:
            self._send(*group_request(state))  # compute/beta, as pulumi-gcp sends it
        return rid, state

    def _post(self, project: str, path: str, body: Mapping[str, Any]) -> None:
        self._send(f"compute/v1/projects/{project}/{path}", body)

    def _send(self, path: str, body: Mapping[str, Any]) -> None:
        answer = requests.post(f"{self.emulator.url}{path}", json=body, timeout=30)
        if answer.status_code != 200:
            where = path.split("/projects/", 1)[-1].split("/", 1)[-1]
            raise RuntimeError(f"the emulator refused {where}: {answer.text[:500]}")


@dataclass
class EmulatedRun:
    """What :func:`emulate` made: every registration, and ``(name, id, state)`` of each
    dynamic resource its provider created in the emulator."""

    registered: list[Any]
    created: list[tuple[str, str, Any]] = field(default_factory=list)


def emulate(directory: str | Path, stack: str, emulator: Emulator) -> EmulatedRun:
    """Run the Pulumi project in ``directory`` for ``stack`` as :mod:`this module
    <pulumi_dws.testing.emulated>` says, against the running ``emulator``. A bad program or
    configuration raises :class:`~pulumi_dws.plan.PlanError` with one line, as ``dws plan``
    does; a create Google (the emulator) refuses fails the run with the provider's message."""
    from ..plan.project import load_project, load_stack_config
    from ..plan.runner import run_plan

    config = load_stack_config(load_project(directory), stack)
    mocks = EmulatedMocks(emulator, project=config.values.get("gcp:project", "mock-project"))
    with emulator_environment(emulator):
        plan = run_plan(directory, stack, mocks=mocks, preview=False)
    return EmulatedRun(plan.registered, mocks.created)
