"""Setup the Flex-start provider tests share: the emulator with the provider's environment
pointing at it, the emulated Compute service, a provider whose sleeps advance the virtual clock,
and FlexStartVm inputs.

Test modules load the fixtures with ``pytest_plugins = ["emulator_helpers"]`` (and may import
the helpers too: the module has no asserts to rewrite, hence PYTEST_DONT_REWRITE).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from pulumi_dws.providers.flex_vm import FlexStartVmProvider
from pulumi_dws.testing.clock_helpers import (
    emulator_env,
    flex_start_body,
    flex_start_vm_props,
    virtual_sleep,
)
from pulumi_dws.testing.emulator import Emulator
from pulumi_dws.testing.emulator.compute import ComputeService

PROJECT, ZONE, MACHINE = "p", "us-central1-a", "a3-highgpu-8g"
HOUR = 3600


def body(
    name: str = "vm-1",
    *,
    window: int | None = 2 * HOUR,
    run: int = 3 * 86400,
    action: str = "STOP",
    labels: dict[str, str] | None = None,
    public_ip: bool = False,
) -> dict[str, Any]:
    """A Flex-start ``Instance`` body (machine type ``a3-highgpu-8g`` in ``us-central1-a``);
    ``window=None``: no queue."""
    return flex_start_body(
        name,
        zone=ZONE,
        machine_type=MACHINE,
        max_run=run,
        termination_action=action,
        request_valid_for=window or None,
        labels=labels,
        public_ip=public_ip,
    )


def props(
    name: str = "vm-1", *, wait_for: str = "running", desired: str = "RUNNING", **body_args: Any
) -> dict[str, Any]:
    """FlexStartVm inputs in project ``p`` without a template; ``body_args`` as :func:`body`."""
    vm = flex_start_vm_props(
        name, project=PROJECT, zone=ZONE, desired_status=desired, wait_for=wait_for
    )
    vm["body"] = body(name, **body_args)
    return vm


@pytest.fixture
def emu(monkeypatch: pytest.MonkeyPatch) -> Iterator[Emulator]:
    """A running emulator; in-process providers find it through ``DWS_COMPUTE_ENDPOINT`` (and
    no virtual-clock URL: they are given :func:`virtual_sleep` instead)."""
    with Emulator() as emulator:
        for key, value in emulator_env(emulator, virtual_clock=False).items():
            monkeypatch.setenv(key, value)
        yield emulator


@pytest.fixture
def compute(emu: Emulator) -> ComputeService:
    return emu["compute"]


@pytest.fixture
def provider(emu: Emulator) -> FlexStartVmProvider:
    """Sleeps advance the emulator's virtual clock: waiting 2 h takes milliseconds."""
    return FlexStartVmProvider(sleep=virtual_sleep(emu))
