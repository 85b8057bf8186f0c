"""``FlexStartInstance``: one Flex-start GPU VM that can wait in Google's DWS queue.

    vm = FlexStartInstance("trainer", {
        "zone": "us-central1-a",
        "machine_type": "a3-highgpu-8g",
        "max_run_duration": "3d",
        "termination_action": "STOP",
        "request_valid_for": "2h",     # wait up to 2 h for capacity instead of failing fast
    })

What it registers:

* a pulumi-gcp ``gcp.compute.InstanceTemplate`` with the VM's shape and its Flex-start
  scheduling (``provisioning_model="FLEX_START"``, ``max_run_duration``,
  ``instance_termination_action``, ``automatic_restart=False``,
  ``on_host_maintenance="TERMINATE"``) and reservation affinity ``NO_RESERVATION`` (a
  Flex-start VM consumes no reservation): everything pulumi-gcp can express. VMs of one shape
  share one, ``flex-shape-<fingerprint>`` at the stack's root
  (:mod:`~pulumi_dws.kinds.flex_vm.shapes`); a shape with an ``Output`` in it, or a component
  given ``protect``, ``transformations`` or ``transforms``, gets its own child ``<name>-template``.
* ``<name>-vm`` (``parent=self``): a ``pulumi-python:dynamic/dws:FlexStartVm`` that does the
  one thing pulumi-gcp cannot: ``instances.insert`` from that template with
  ``params.requestValidForDuration``, then the VM's lifecycle (stop/start, labels, metadata,
  delete). See :mod:`pulumi_dws.kinds.flex_vm.provider`.

Every argument is validated before anything is registered; Output-valued strings are checked
once known.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import pulumi
import pulumi_gcp as gcp
from pydantic import model_validator

from ...defaults import resolve_project, stack_default_name, type_token
from ...duration import Duration
from ...fields import DurationWithin, MaybeOutput, Name, ProjectId, Zone
from ...models import parse_args
from ...providers.ownership import OWNER_INPUT, owner_input
from ...queue_wait import OnTimeout, WaitTimeout, wait_policy
from ...validation import check_name, is_output, when_known
from ...vm_settings import (
    DEFAULT_IMAGE,
    DEFAULT_SCOPES,
    AcceleratorArgs,
    VmSettings,
    template_args,
)
from . import limits as _rows  # noqa: F401 (registers this kind's limit rows)
from .args import FlexStartInstanceArgs
from .provider import FlexStartVm
from .shapes import TEMPLATE_TYPE, fingerprint, shareable, shared_template

__all__ = [
    "FlexStartInstance",
    "FlexStartInstanceArgs",
    "FlexStartInstanceSpec",
    "AcceleratorArgs",
    "scheduling_block",
    "NO_RESERVATION",
    "TYPE",
    "DEFAULT_IMAGE",
    "DEFAULT_SCOPES",
]

TYPE = type_token("FlexStartInstance")


NO_RESERVATION: dict[str, str] = {"consumeReservationType": "NO_RESERVATION"}
"""The insert body's ``reservationAffinity``: a Flex-start VM consumes no reservation
(``gcloud compute instances create --reservation-affinity=none``; Google's Flex-start create
docs and Cluster Toolkit's Slurm partitions set it)."""


def scheduling_block(max_run: Duration, termination_action: Any) -> dict[str, Any]:
    """The Compute ``scheduling`` JSON, field for field what ``gcloud alpha compute instances
    create --provisioning-model=FLEX_START --max-run-duration=.. --instance-termination-action=..
    --no-restart-on-failure --on-host-maintenance=TERMINATE`` sends."""
    return {
        "automaticRestart": False,
        "instanceTerminationAction": termination_action,
        "maxRunDuration": when_known(max_run, Duration.to_api),
        "onHostMaintenance": "TERMINATE",
        "provisioningModel": "FLEX_START",
    }


class FlexStartInstanceSpec(VmSettings):
    """Arguments of :class:`FlexStartInstance` (the VM settings of
    :class:`~pulumi_dws.vm_settings.VmSettingsArgs` included)."""

    # The one declaration of each field: FlexStartInstanceArgs is generated from it (python
    # scripts/generate.py). Also the shape of this kind's dws:capacity entries.

    zone: MaybeOutput[Zone]
    """Zone of the VM, e.g. ``us-central1-a``."""
    machine_type: MaybeOutput[str]  # checked with the accelerators (see _shape)
    """A GPU machine type (``a3-highgpu-8g``), or any type plus ``accelerators``."""
    max_run_duration: Annotated[Duration, DurationWithin("flex_start.max_run_duration")]
    """How long the VM may run once it has capacity (10 minutes to 7 days): ``"3d"``,
    ``86400``."""
    termination_action: Literal["STOP", "DELETE"] = "STOP"
    """End of the run: ``STOP`` keeps the VM and its disk (default), ``DELETE`` removes it."""
    request_valid_for: (
        Annotated[Duration, DurationWithin("flex_start.request_valid_for")] | None
    ) = None
    """How long to wait in Google's queue for capacity (90 s to 2 h). ``None`` (default): no queue;
    Compute Engine tries for about 90 s and the deployment fails on a stock-out."""
    desired_status: Literal["RUNNING", "TERMINATED"] = "RUNNING"
    """``TERMINATED`` stops the VM (no GPU billing); back to ``RUNNING`` places a new capacity
    request and restarts the run clock."""
    wait_for: Literal["accepted", "running"] = "running"
    """``running`` (default): the deployment waits until the VM runs (up to the queue window).
    ``accepted``: it returns once the request is queued (status ``PENDING``)."""
    wait_timeout: WaitTimeout | None = None
    """How long the deployment waits for ``wait_for`` (default: the queue window plus 10
    minutes); shorter than the window, the wait ends then (see ``on_timeout``)."""
    on_timeout: OnTimeout | None = None
    """When ``wait_timeout`` passes inside the queue window with the VM still queued: ``keep``
    (default: the deployment succeeds with the VM ``PENDING``, warns, and ``pulumi refresh``
    follows it; its window still ends it) or ``cancel`` (the VM is deleted)."""
    project: MaybeOutput[ProjectId] | None = None
    """Project (default: the ``gcp:project`` stack config)."""
    instance_name: Name | None = None
    """Name of the VM (default: the component's name)."""

    @model_validator(mode="wrap")
    @classmethod
    def _shape(cls, data: Any, handler: Any) -> FlexStartInstanceSpec:
        spec: FlexStartInstanceSpec = handler(data)
        spec.check_startup_script()
        spec.check_subnetwork_in(zone=spec.zone)
        checked = spec.checked_machine(spec.machine_type, flex_start=True)
        spec.check_gpu_network(spec.machine_type)
        if spec.gpu_network is not None:
            spec.gpu_network.check_zone("zone", spec.zone)
        if is_output(spec.machine_type):
            return spec.model_copy(update={"machine_type": checked})
        return spec


class FlexStartInstance(pulumi.ComponentResource):
    """A Flex-start GPU VM, queued in DWS for up to 2 hours (see the module docstring).

    Outputs (``pulumi.Output``): ``instance_name``, ``status`` (``PENDING``, ``RUNNING``,
    ``TERMINATED``, ...), ``run_ends_at`` (when the run duration ends), ``internal_ip``,
    ``external_ip``, ``instance_id``, ``self_link``, ``template_self_link``. Resources:
    ``template`` (``gcp.compute.InstanceTemplate``, shared by the VMs of its shape) and ``vm``
    (:class:`~pulumi_dws.kinds.flex_vm.provider.FlexStartVm`); ``spec`` is the validated args.

    The per-VM outputs derived from the VM's ``observed`` state are computed when first read,
    and the class has no attribute annotations (the SDK would resolve them with
    ``typing.get_type_hints`` at every registration): registering thousands of VMs stays cheap.
    """

    def __init__(
        self,
        name: str,
        args: FlexStartInstanceArgs,
        opts: pulumi.ResourceOptions | None = None,
    ) -> None:
        spec = parse_args(FlexStartInstanceSpec, args)
        named = stack_default_name(
            "instance_name", spec.instance_name, name, check_name, arg="instance_name"
        )
        instance_name = named.value
        super().__init__(TYPE, name, {}, opts)
        project = resolve_project(spec.project, self)
        self.spec = spec
        child = pulumi.ResourceOptions(parent=self)

        shape_inputs = template_args(
            spec,
            project=project,
            machine_type=spec.machine_type,
            scheduling={
                "provisioning_model": "FLEX_START",
                "max_run_duration": {"seconds": spec.max_run_duration.seconds},
                "instance_termination_action": spec.termination_action,
                "automatic_restart": False,
                "on_host_maintenance": "TERMINATE",
            },
            reservation_affinity={"type": "NO_RESERVATION"},
        )
        # One template per distinct shape in the program (see pulumi_dws.kinds.flex_vm.shapes); a
        # shape not known yet (an Output in it) gets a template of its own, as a child.
        gcp_provider = self.get_provider(TEMPLATE_TYPE)
        shape = fingerprint(shape_inputs, gcp_provider) if shareable(self, opts) else None
        if shape is not None:
            self.template = shared_template(shape, shape_inputs, gcp_provider)
        else:
            self.template = gcp.compute.InstanceTemplate(
                f"{name}-template", opts=child, **shape_inputs
            )

        zone, machine = spec.zone, spec.machine_type
        if is_output(zone) or is_output(machine):
            machine_url: Any = pulumi.Output.concat("zones/", zone, "/machineTypes/", machine)
        else:
            machine_url = f"zones/{zone}/machineTypes/{machine}"
        body: dict[str, Any] = {
            "name": instance_name,
            "machineType": machine_url,
            "scheduling": scheduling_block(spec.max_run_duration, spec.termination_action),
            "reservationAffinity": dict(NO_RESERVATION),
        }
        if spec.request_valid_for is not None:
            window = when_known(spec.request_valid_for, Duration.to_api)
            body["params"] = {"requestValidForDuration": window}
        if spec.accelerators:
            body["guestAccelerators"] = [
                {
                    "acceleratorType": pulumi.Output.concat(
                        "zones/", zone, "/acceleratorTypes/", a.type
                    )
                    if is_output(zone)
                    else f"zones/{zone}/acceleratorTypes/{a.type}",
                    "acceleratorCount": a.count,
                }
                for a in spec.accelerators
            ]
        if spec.labels:
            body["labels"] = spec.labels if is_output(spec.labels) else dict(spec.labels)
        items = spec.metadata_items()
        if items:
            body["metadata"] = {"items": items}

        self.vm = FlexStartVm(
            f"{name}-vm",
            {
                "project": project,
                "zone": zone,
                "name": instance_name,
                "sourceInstanceTemplate": self.template.self_link,
                "body": body,
                "desiredStatus": spec.desired_status,
                "waitFor": spec.wait_for,
                **wait_policy(spec.wait_timeout, spec.on_timeout),
                **({"templateShape": shape} if shape is not None else {}),
                OWNER_INPUT: owner_input(f"{name}-vm"),
            },
            pulumi.ResourceOptions(parent=self, ignore_changes=named.kept("name", "body.name")),
        )
        # A defaulted name is the one the VM has (a VM made before defaults carried the stack
        # keeps the component's name); a given one is known now.
        self._instance_name: Any = self.vm.name if named.defaulted else instance_name  # type: ignore[attr-defined]
        # Plain values otherwise: every Output registered here is awaited and serialized once
        # more; the VM's own state (status, observed) is already in the stack.
        self.register_outputs(
            {"instance_name": self._instance_name, "zone": zone, "project": project}
        )

    @property
    def instance_name(self) -> pulumi.Output[str]:
        """Name of the VM."""
        return pulumi.Output.from_input(self._instance_name)

    @property
    def status(self) -> pulumi.Output[str | None]:
        """The VM's status: ``PENDING`` (queued for capacity), ``RUNNING``, ``TERMINATED``..."""
        return self.vm.status

    @property
    def template_self_link(self) -> pulumi.Output[str]:
        """The instance template the VM was made from."""
        return self.template.self_link

    def _observed(self, key: str) -> pulumi.Output[Any]:
        return self.vm.observed.apply(lambda observed: (observed or {}).get(key))

    @property
    def run_ends_at(self) -> pulumi.Output[str | None]:
        """When the run duration ends (RFC 3339), once the VM has capacity."""
        return self._observed("runEndsAt")

    @property
    def internal_ip(self) -> pulumi.Output[str | None]:
        """The VM's internal IP, once it runs."""
        return self._observed("internalIp")

    @property
    def external_ip(self) -> pulumi.Output[str | None]:
        """The public IP (only with ``public_ip=True``)."""
        return self._observed("externalIp")

    @property
    def instance_id(self) -> pulumi.Output[str | None]:
        """The VM's numeric id, once it exists."""
        return self._observed("instanceId")

    @property
    def self_link(self) -> pulumi.Output[str | None]:
        """The VM's URL, once it exists."""
        return self._observed("selfLink")
