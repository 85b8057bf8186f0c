"""What the Flex-start provider tests share: the project, zone and machine type, and
FlexStartVm inputs and bodies. (Their fixtures, ``emu``, ``compute`` and ``provider``, are in
``conftest.py``.)"""

from __future__ import annotations

from typing import Any

from pulumi_dws.testing.clock_helpers import (
    flex_start_body,
    flex_start_vm_props,
)

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


def host_inputs(name: str = "trainer", **changes: Any) -> dict[str, Any]:
    """FlexStartVm inputs as the engine sends them to the dynamic-provider host: a 2-hour queue
    window, labelled ``team: ml``; ``changes`` replace top-level inputs."""
    inputs = flex_start_vm_props(
        name,
        project=PROJECT,
        zone=ZONE,
        machine_type=MACHINE,
        request_valid_for=7200,
        labels={"team": "ml"},
    )
    inputs.update(changes)
    return inputs
