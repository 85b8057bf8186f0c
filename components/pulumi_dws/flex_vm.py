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
  share one, ``flex-shape-<fingerprint>`` at the stack's root (:mod:`pulumi_dws.flex_shapes`);
  a shape with an ``Output`` in it, or a component given ``protect``, ``transformations`` or
  ``transforms``, gets its own child ``<name>-template``.
* ``<name>-vm`` (``parent=self``): a ``pulumi-python:dynamic/dws:FlexStartVm`` that does the
  one thing pulumi-gcp cannot: ``instances.insert`` from that template with
  ``params.requestValidForDuration``, then the VM's lifecycle (stop/start, labels, metadata,
  delete). See :mod:`pulumi_dws.providers.flex_vm`.

Every argument is validated before anything is registered; Output-valued strings are checked
once known.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Annotated, Any, Literal, TypedDict

import pulumi
import pulumi_gcp as gcp
from pydantic import model_validator
from typing_extensions import NotRequired, Required

from . import catalog, limits
from .defaults import default_name, resolve_project, type_token
from .duration import Duration, DurationLike
from .errors import DwsValidationError
from .fields import Check, DurationWithin, Labels, MaybeOutput, Name, Within, Zone
from .flex_shapes import TEMPLATE_TYPE, fingerprint, shareable, shared_template
from .models import DwsModel, parse_args
from .providers.flex_vm import FlexStartVm
from .validation import check_name, is_output, when_known

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
DEFAULT_IMAGE = "projects/debian-cloud/global/images/family/debian-12"
DEFAULT_SCOPES = ("https://www.googleapis.com/auth/cloud-platform",)
_HYPERDISK_FAMILIES = ("a4", "a4x", "a3-ultragpu")
_ACCELERATOR = re.compile(r"^[a-z][a-z0-9-]*\Z")
_METADATA_KEY = re.compile(r"^[a-zA-Z0-9_-]+\Z")  # length: limits "compute.metadata_key_length"


class AcceleratorArgs(TypedDict):
    """A GPU attached to a machine type that has none built in (e.g. N1 + ``nvidia-tesla-t4``)."""

    type: str
    count: int


class FlexStartInstanceArgs(TypedDict, total=False):
    """Arguments of :class:`FlexStartInstance`."""

    zone: Required[str | pulumi.Output[str]]
    """Zone of the VM, e.g. ``us-central1-a``."""
    machine_type: Required[str | pulumi.Output[str]]
    """A GPU machine type (``a3-highgpu-8g``), or any type plus ``accelerators``."""
    max_run_duration: Required[DurationLike]
    """How long the VM may run once it has capacity (10 minutes to 7 days): ``"3d"``,
    ``86400``."""
    termination_action: NotRequired[Literal["STOP", "DELETE"]]
    """End of the run: ``STOP`` keeps the VM and its disk (default), ``DELETE`` removes it."""
    request_valid_for: NotRequired[DurationLike | None]
    """How long to wait in Google's queue for capacity (90 s to 2 h). ``None`` (default): no queue;
    Compute Engine tries for about 90 s and the deployment fails on a stock-out."""
    desired_status: NotRequired[Literal["RUNNING", "TERMINATED"]]
    """``TERMINATED`` stops the VM (no GPU billing); back to ``RUNNING`` places a new capacity
    request and restarts the run clock."""
    wait_for: NotRequired[Literal["accepted", "running"]]
    """``running`` (default): the deployment waits until the VM runs (up to the queue window).
    ``accepted``: it returns once the request is queued (status ``PENDING``)."""
    project: NotRequired[str | pulumi.Output[str]]
    """Project (default: the ``gcp:project`` stack config)."""
    instance_name: NotRequired[str]
    """Name of the VM (default: the component's name)."""
    image: NotRequired[str | pulumi.Output[str]]
    """Boot image (default: Debian 12, as gcloud)."""
    boot_disk_size_gb: NotRequired[int]
    """Boot disk size in GB (default 100)."""
    boot_disk_type: NotRequired[str]
    """Boot disk type (default ``pd-balanced``; ``hyperdisk-balanced`` for A4 and A3 Ultra)."""
    network: NotRequired[str | pulumi.Output[str]]
    """VPC network (default: the subnetwork's network when ``subnetwork`` is given, else
    ``default``)."""
    subnetwork: NotRequired[str | pulumi.Output[str]]
    """Subnetwork; alone, it also picks the network (as ``gcloud --subnet`` does)."""
    public_ip: NotRequired[bool]
    """Give the VM an external IP (default False: use Cloud NAT / IAP)."""
    service_account: NotRequired[str | pulumi.Output[str]]
    """Service account email (default: the Compute default service account)."""
    scopes: NotRequired[list[str]]
    """OAuth scopes (default: ``cloud-platform``)."""
    labels: NotRequired[Mapping[str, str | pulumi.Output[str]]]
    metadata: NotRequired[Mapping[str, str | pulumi.Output[str]]]
    startup_script: NotRequired[str | pulumi.Output[str]]
    """Shortcut for ``metadata["startup-script"]``."""
    accelerators: NotRequired[list[AcceleratorArgs]]
    """GPUs to attach, for machine types without built-in GPUs (N1, G4, ...)."""


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


def _accelerator_type(field: str, value: Any) -> str:
    if not isinstance(value, str) or not _ACCELERATOR.match(value):
        raise DwsValidationError(field, value, "is not an accelerator type like nvidia-tesla-t4")
    return value


def _metadata(field: str, value: Any) -> dict[str, Any]:
    metadata = dict(value or {}) if isinstance(value, Mapping) or value is None else value
    if not isinstance(metadata, dict):
        raise DwsValidationError(field, value, "must be a mapping of metadata keys to values")
    row = limits.get("compute.metadata_key_length")
    for key in metadata:
        if (
            not isinstance(key, str)
            or not _METADATA_KEY.match(key)
            or len(key) > (row.maximum or 0)
        ):
            raise DwsValidationError(
                f"{field} key", key, f"must be {row.allowed()} letters, digits, _ or -"
            )
    return metadata


class _Accelerator(DwsModel):
    type: Annotated[str, Check(_accelerator_type)]
    count: Annotated[int, Within("compute.accelerator_count")]


class FlexStartInstanceSpec(DwsModel):
    """Validated :class:`FlexStartInstanceArgs` (also the ``dws:capacity`` config shape)."""

    zone: MaybeOutput[Zone]
    machine_type: MaybeOutput[str]  # checked with the accelerators (see _shape)
    max_run_duration: Annotated[Duration, DurationWithin("flex_start.max_run_duration")]
    termination_action: Literal["STOP", "DELETE"] = "STOP"
    request_valid_for: (
        Annotated[Duration, DurationWithin("flex_start.request_valid_for")] | None
    ) = None
    desired_status: Literal["RUNNING", "TERMINATED"] = "RUNNING"
    wait_for: Literal["accepted", "running"] = "running"
    project: MaybeOutput[str] | None = None
    instance_name: Name | None = None
    image: MaybeOutput[str] = DEFAULT_IMAGE
    boot_disk_size_gb: Annotated[int, Within("compute.boot_disk_gb")] = 100
    boot_disk_type: str | None = None
    network: MaybeOutput[str] | None = None
    subnetwork: MaybeOutput[str] | None = None
    public_ip: bool = False
    service_account: MaybeOutput[str] | None = None
    scopes: list[str] = list(DEFAULT_SCOPES)
    labels: MaybeOutput[Labels] = {}
    metadata: MaybeOutput[Annotated[dict[str, Any], Check(_metadata)]] = {}
    startup_script: MaybeOutput[str] | None = None
    accelerators: list[_Accelerator] = []

    @model_validator(mode="wrap")
    @classmethod
    def _shape(cls, data: Any, handler: Any) -> FlexStartInstanceSpec:
        spec: FlexStartInstanceSpec = handler(data)
        accelerators = [a.model_dump() for a in spec.accelerators]

        def check_machine(machine: Any) -> Any:
            if not isinstance(machine, str) or not machine:
                raise DwsValidationError("machine_type", machine, "must be a machine type name")
            if not accelerators:
                catalog.machine_shape("machine_type", machine)
            elif machine in catalog.known():
                raise DwsValidationError(
                    "accelerators",
                    accelerators,
                    f"must not be given: {machine} comes with its GPUs attached",
                )
            return machine

        metadata = {} if is_output(spec.metadata) else spec.metadata
        if spec.startup_script is not None and "startup-script" in metadata:
            raise DwsValidationError(
                "startup_script",
                "(set)",
                "give startup_script or metadata['startup-script'], not both",
            )
        if is_output(spec.machine_type):
            checked = when_known(spec.machine_type, check_machine)
            return spec.model_copy(update={"machine_type": checked})
        check_machine(spec.machine_type)
        return spec

    # ------------------------------------------------------------------ derived values
    def disk_type(self) -> str:
        if self.boot_disk_type:
            return self.boot_disk_type
        machine = self.machine_type if isinstance(self.machine_type, str) else ""
        family = machine.rsplit("-", 1)[0]
        hyper = family.split("-")[0] in _HYPERDISK_FAMILIES or family in _HYPERDISK_FAMILIES
        return "hyperdisk-balanced" if hyper else "pd-balanced"

    def network_or_default(self) -> Any:
        """The network to name: the one given; none when only a subnetwork is given (Compute
        takes the subnetwork's own, where ``default`` would be rejected as a mismatch);
        else ``default``."""
        if self.network is not None or self.subnetwork is not None:
            return self.network
        return "default"

    def metadata_items(self) -> Any:
        """The ``metadata.items`` list (an Output of it while ``metadata`` is one)."""
        if is_output(self.metadata):
            return when_known(
                self.metadata,
                lambda known: self.model_copy(update={"metadata": known}).metadata_items(),
            )
        items = dict(self.metadata)
        if self.startup_script is not None:
            items["startup-script"] = self.startup_script
        return [{"key": k, "value": items[k]} for k in sorted(items)]


def _template_inputs(spec: FlexStartInstanceSpec, project: Any) -> dict[str, Any]:
    """The ``gcp.compute.InstanceTemplate`` arguments that hold a VM's shape: everything
    pulumi-gcp can express of a Flex-start VM (labels and metadata go on the VM itself)."""
    inputs: dict[str, Any] = {
        "project": project,
        "machine_type": spec.machine_type,
        "disks": [
            {
                "boot": True,
                "auto_delete": True,
                "source_image": spec.image,
                "disk_size_gb": spec.boot_disk_size_gb,
                "disk_type": spec.disk_type(),
            }
        ],
        "network_interfaces": [
            {
                key: value
                for key, value in (
                    ("network", spec.network_or_default()),
                    ("subnetwork", spec.subnetwork),
                    ("access_configs", [{}] if spec.public_ip else None),
                )
                if value is not None
            }
        ],
        "service_account": {
            key: value
            for key, value in (("email", spec.service_account), ("scopes", list(spec.scopes)))
            if value is not None
        },
        "scheduling": {
            "provisioning_model": "FLEX_START",
            "max_run_duration": {"seconds": spec.max_run_duration.seconds},
            "instance_termination_action": spec.termination_action,
            "automatic_restart": False,
            "on_host_maintenance": "TERMINATE",
        },
        "reservation_affinity": {"type": "NO_RESERVATION"},
    }
    if spec.accelerators:
        inputs["guest_accelerators"] = [a.model_dump() for a in spec.accelerators]
    return inputs


class FlexStartInstance(pulumi.ComponentResource):
    """A Flex-start GPU VM, queued in DWS for up to 2 hours (see the module docstring).

    Outputs (``pulumi.Output``): ``instance_name``, ``status`` (``PENDING``, ``RUNNING``,
    ``TERMINATED``, ...), ``run_ends_at`` (when the run duration ends), ``internal_ip``,
    ``external_ip``, ``instance_id``, ``self_link``, ``template_self_link``. Resources:
    ``template`` (``gcp.compute.InstanceTemplate``, shared by the VMs of its shape) and ``vm``
    (:class:`~pulumi_dws.providers.flex_vm.FlexStartVm`); ``spec`` is the validated args.

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
        instance_name = default_name(
            "instance_name", spec.instance_name, name, check_name, arg="instance_name"
        )
        super().__init__(TYPE, name, {}, opts)
        project = resolve_project(spec.project, self)
        self.spec = spec
        child = pulumi.ResourceOptions(parent=self)

        # One template per distinct shape in the program (see pulumi_dws.flex_shapes); a shape
        # not known yet (an Output in it) gets a template of its own, as a child.
        shape_inputs = _template_inputs(spec, project)
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
                **({"templateShape": shape} if shape is not None else {}),
            },
            child,
        )
        self.status = self.vm.status
        self.template_self_link = self.template.self_link
        self._instance_name = instance_name
        # Plain values only: every Output registered here is awaited and serialized once more;
        # the VM's own state (status, observed) is already in the stack.
        self.register_outputs({"instance_name": instance_name, "zone": zone, "project": project})

    @property
    def instance_name(self) -> pulumi.Output[str]:
        return pulumi.Output.from_input(self._instance_name)

    def _observed(self, key: str) -> pulumi.Output[Any]:
        return self.vm.observed.apply(lambda observed: (observed or {}).get(key))

    @property
    def run_ends_at(self) -> pulumi.Output[str | None]:
        """When the run duration ends (RFC 3339), once the VM has capacity."""
        return self._observed("runEndsAt")

    @property
    def internal_ip(self) -> pulumi.Output[str | None]:
        return self._observed("internalIp")

    @property
    def external_ip(self) -> pulumi.Output[str | None]:
        """The public IP (only with ``public_ip=True``)."""
        return self._observed("externalIp")

    @property
    def instance_id(self) -> pulumi.Output[str | None]:
        return self._observed("instanceId")

    @property
    def self_link(self) -> pulumi.Output[str | None]:
        return self._observed("selfLink")
