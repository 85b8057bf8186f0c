"""Helpers for driving pulumi-dws's dynamic providers against the local emulator on its virtual
clock, in process (tests, benchmarks) or in another process (Pulumi's dynamic-provider host).

    from pulumi_dws.kinds.flex_vm.provider import FlexStartVmProvider
    from pulumi_dws.testing.clock_helpers import emulator_env, flex_start_vm_props, virtual_sleep
    from pulumi_dws.testing.emulator import Emulator

    with Emulator() as emu:
        os.environ.update(emulator_env(emu, virtual_clock=False))
        provider = FlexStartVmProvider(sleep=virtual_sleep(emu))  # waiting 2 h takes ms
        emu["compute"].add_capacity("us-central1-a", "a3-highgpu-8g", 1, after=3600)
        provider.create(flex_start_vm_props("vm-1", request_valid_for=7200))

A provider in Pulumi's dynamic-provider host gets ``emulator_env(emu)`` as its environment: its
sleeps then advance the same clock through the emulator's control URL.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ..kinds import load_apis
from ..kinds.flex_group.api import resize_request_body
from .emulator import Emulator

__all__ = [
    "virtual_sleep",
    "emulator_env",
    "flex_start_body",
    "flex_start_vm_props",
    "flex_start_group",
    "flex_start_group_body",
    "flex_start_group_template",
    "mig_resize_props",
]

COMPUTE_ENDPOINT_ENV = "DWS_COMPUTE_ENDPOINT"
TPU_ENDPOINT_ENV = "DWS_TPU_ENDPOINT"
VIRTUAL_CLOCK_ENV = "DWS_VIRTUAL_CLOCK_URL"  # as read by pulumi_dws.providers.rest


def virtual_sleep(emulator: Emulator) -> Callable[[float], None]:
    """A ``sleep(seconds)`` that advances ``emulator``'s virtual clock instead of waiting: pass
    it as a provider's or a REST client's ``sleep``. Every service sees the time go by (capacity
    arrives, queue windows end, runs end) before the call returns."""

    def sleep(seconds: float) -> None:
        emulator.clock.advance(seconds)

    return sleep


def emulator_env(emulator: Emulator, *, virtual_clock: bool = True) -> dict[str, str]:
    """Environment variables that point the dynamic providers at ``emulator``: every declared
    API's endpoint (:func:`pulumi_dws.kinds.load_apis`), and (``virtual_clock=True``, for a
    provider in another process) the control URL its sleeps advance the virtual clock through.
    With ``virtual_clock=False`` the variable is set empty, which the providers read as unset
    (in process, pass :func:`virtual_sleep`)."""
    values = {api.env_var: emulator.url for api in load_apis()}
    values[VIRTUAL_CLOCK_ENV] = emulator.clock_url if virtual_clock else ""
    return values


def flex_start_body(
    name: str,
    *,
    zone: str = "us-central1-a",
    machine_type: str = "a3-highgpu-8g",
    max_run: int = 3 * 86400,
    termination_action: str = "STOP",
    request_valid_for: int | None = None,
    labels: Mapping[str, str] | None = None,
    network: str | None = "global/networks/default",
    public_ip: bool = False,
) -> dict[str, Any]:
    """A Compute v1 ``Instance`` body for a Flex-start VM without a template (seconds for
    durations; ``request_valid_for=None``: no queue), as the emulator accepts it."""
    body: dict[str, Any] = {
        "name": name,
        "machineType": f"zones/{zone}/machineTypes/{machine_type}",
    }
    if network is not None:
        nic: dict[str, Any] = {"network": network}
        if public_ip:
            nic["accessConfigs"] = [{}]
        body["networkInterfaces"] = [nic]
    body["scheduling"] = {
        "automaticRestart": False,
        "instanceTerminationAction": termination_action,
        "maxRunDuration": {"seconds": str(max_run)},
        "onHostMaintenance": "TERMINATE",
        "provisioningModel": "FLEX_START",
    }
    if request_valid_for is not None:
        body["params"] = {"requestValidForDuration": {"seconds": str(request_valid_for)}}
    if labels:
        body["labels"] = dict(labels)
    return body


def flex_start_vm_props(
    name: str,
    *,
    project: str = "p",
    zone: str = "us-central1-a",
    desired_status: str = "RUNNING",
    wait_for: str = "running",
    **body: Any,
) -> dict[str, Any]:
    """The inputs of a ``FlexStartVm`` (``pulumi_dws.kinds.flex_vm.provider``) without a template;
    ``body`` takes :func:`flex_start_body`'s keywords."""
    return {
        "project": project,
        "zone": zone,
        "name": name,
        "sourceInstanceTemplate": "",
        "body": flex_start_body(name, zone=zone, **body),
        "desiredStatus": desired_status,
        "waitFor": wait_for,
    }


def flex_start_group_template(machine_type: str = "a3-highgpu-8g") -> dict[str, Any]:
    """The instance template ``properties`` of a Flex-start group's VMs (deleted when their run
    ends, no reservation), as in the bodies gcloud sends for them."""
    return {
        "machineType": machine_type,
        "scheduling": {
            "automaticRestart": False,
            "instanceTerminationAction": "DELETE",
            "onHostMaintenance": "TERMINATE",
            "provisioningModel": "FLEX_START",
        },
        "reservationAffinity": {"consumeReservationType": "NO_RESERVATION"},
    }


def flex_start_group_body(
    name: str, template: str, *, regional: bool = False, **extra: Any
) -> dict[str, Any]:
    """The ``InstanceGroupManager`` body of a Flex-start group that takes resize requests: size
    0, ``template`` (its URL), no repair; regional groups keep their VMs in one zone
    (``ANY_SINGLE_ZONE``, no redistribution). ``extra`` fields are added as given."""
    body: dict[str, Any] = {
        "name": name,
        "instanceTemplate": template,
        "targetSize": 0,
        "instanceLifecyclePolicy": {"defaultActionOnFailure": "DO_NOTHING"},
        **extra,
    }
    if regional:
        body["distributionPolicy"] = {"targetShape": "ANY_SINGLE_ZONE"}
        body["updatePolicy"] = {"instanceRedistributionType": "NONE"}
    return body


def flex_start_group(
    emulator: Emulator,
    group: str,
    *,
    project: str = "p",
    zone: str | None = "us-central1-a",
    region: str | None = None,
    machine_type: str = "a3-highgpu-8g",
) -> str:
    """Make, in ``emulator``'s Compute, a Flex-start instance template and a managed instance
    group at size 0 that takes resize requests (the bodies gcloud sends for them: see
    ``FlexStartGroup``); ``region`` instead of ``zone`` makes a regional group with
    ``ANY_SINGLE_ZONE``. Returns the group's selfLink."""
    compute = emulator["compute"]
    template = f"{group}-template"
    compute.put_template(
        project,
        {"name": template, "properties": flex_start_group_template(machine_type)},
    )
    body = flex_start_group_body(
        group, f"projects/{project}/global/instanceTemplates/{template}", regional=bool(region)
    )
    scope = f"regions/{region}" if region else f"zones/{zone}"
    op = compute.insert_group(project, scope, body)
    return str(op["targetLink"])


def mig_resize_props(
    name: str,
    group: str,
    *,
    count: int = 4,
    run: int | None = 3 * 86400,
    project: str = "p",
    zone: str | None = "us-central1-a",
    region: str | None = None,
    wait_for: str = "running",
) -> dict[str, Any]:
    """The inputs of a ``MigResizeRequest`` (``pulumi_dws.kinds.flex_group.provider``): ``count``
    VMs for ``run`` seconds on ``group``, zonal (``zone``) or regional (``region``)."""
    return {
        "project": project,
        "zone": None if region else zone,
        "region": region,
        "group": group,
        "name": name,
        "body": resize_request_body(name, count, run),
        "waitFor": wait_for,
    }
