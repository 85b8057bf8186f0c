"""The VM settings every Compute Engine GPU VM component takes (``FlexStartInstance``,
``FlexStartGroup``), declared once: the args (:class:`VmSettingsArgs`), their validation
(:class:`VmSettings`) and the pulumi-gcp instance template built from them
(:func:`template_args`).

Image, boot disk, network and subnetwork, public IP, service account and scopes, labels,
metadata and startup script, and attached accelerators: what ``gcloud compute
instance-templates create`` calls the instance's shape, apart from its provisioning model.
"""

from __future__ import annotations

import re
from typing import Annotated, Any

from . import catalog, regions
from .errors import DwsValidationError
from .fields import (
    Check,
    Image,
    Known,
    Labels,
    MaybeOutput,
    MetadataText,
    Network,
    ServiceAccount,
    Subnetwork,
    Takes,
    Within,
)
from .gpu_network import GpuNetwork
from .models import DwsModel
from .validation import check_subnetwork_region, is_output, region_of, when_known
from .vm_settings_args import AcceleratorArgs, VmSettingsArgs

__all__ = [
    "AcceleratorArgs",
    "VmSettingsArgs",
    "VmSettings",
    "check_machine",
    "template_args",
    "DEFAULT_IMAGE",
    "DEFAULT_SCOPES",
]

DEFAULT_IMAGE = "projects/debian-cloud/global/images/family/debian-12"
DEFAULT_SCOPES = ("https://www.googleapis.com/auth/cloud-platform",)
_HYPERDISK_FAMILIES = ("a4", "a4x", "a3-ultragpu")
_ACCELERATOR = re.compile(r"^[a-z][a-z0-9-]*\Z")


def _accelerator_type(field: str, value: Any) -> str:
    if not isinstance(value, str) or not _ACCELERATOR.match(value):
        raise DwsValidationError(field, value, "is not an accelerator type like nvidia-tesla-t4")
    return value


class _AcceleratorSpec(DwsModel):
    """A GPU attached to a machine type that has none built in (e.g. N1 + ``nvidia-tesla-t4``)."""

    type: Annotated[str, Check(_accelerator_type)]
    """The GPU type (``nvidia-tesla-t4``)."""
    count: Annotated[int, Within("compute.accelerator_count")]
    """GPUs of that type per VM."""


def check_machine(
    machine: Any, accelerators: list[dict[str, Any]], *, flex_start: bool = False
) -> Any:
    """A GPU machine type of the catalog, an HPC machine type that may be Flex-start (H4D),
    or (with ``accelerators``) one without built-in GPUs; with ``flex_start``, one whose VMs
    may be Flex-start (:func:`pulumi_dws.catalog.check_flex_start`)."""
    if not isinstance(machine, str) or not machine:
        raise DwsValidationError("machine_type", machine, "must be a machine type name")
    if flex_start:
        catalog.check_flex_start("machine_type", machine)
    if not accelerators and catalog.is_hpc_flex_machine(machine):
        catalog.machine_kind("machine_type", machine)  # a real H4D shape, not a typo
    elif not accelerators:
        catalog.machine_shape("machine_type", machine)
    elif machine in catalog.known():
        raise DwsValidationError(
            "accelerators",
            accelerators,
            f"must not be given: {machine} comes with its GPUs attached",
        )
    return machine


def _gpu_network(field: str, value: Any) -> Any:
    if not isinstance(value, GpuNetwork):
        raise DwsValidationError(field, value, "must be a pulumi_dws.GpuNetwork")
    return value


class VmSettings(DwsModel):
    """The VM settings shared by :class:`~pulumi_dws.FlexStartInstanceArgs` and
    :class:`~pulumi_dws.FlexStartGroupArgs`."""

    # The one declaration of each field: VmSettingsArgs is generated from it (scripts/generate.py).

    image: MaybeOutput[Image] = DEFAULT_IMAGE
    """Boot image (default: Debian 12, as gcloud)."""
    boot_disk_size_gb: Annotated[int, Within("compute.boot_disk_gb")] = 100
    """Boot disk size in GB (default 100)."""
    boot_disk_type: str | None = None
    """Boot disk type (default ``pd-balanced``; ``hyperdisk-balanced`` for A4 and A3 Ultra)."""
    network: MaybeOutput[Network] | None = None
    """VPC network (default: the subnetwork's network when ``subnetwork`` is given, else
    ``default``)."""
    subnetwork: MaybeOutput[Subnetwork] | None = None
    """Subnetwork; alone, it also picks the network (as ``gcloud --subnet`` does)."""
    public_ip: bool = False
    """Give the VM an external IP (default False: use Cloud NAT / IAP)."""
    service_account: MaybeOutput[ServiceAccount] | None = None
    """Service account email (default: the Compute default service account)."""
    scopes: Annotated[
        list[str], Known("they are written into the instance template", outputs_in_items=True)
    ] = list(DEFAULT_SCOPES)
    """OAuth scopes (default: ``cloud-platform``)."""
    labels: MaybeOutput[Labels] = {}
    """Google Cloud labels on the VM."""
    metadata: MaybeOutput[MetadataText] = {}
    """VM metadata (values are strings)."""
    startup_script: MaybeOutput[str] | None = None
    """Shortcut for ``metadata["startup-script"]``."""
    accelerators: list[_AcceleratorSpec] = []
    """GPUs to attach, for machine types without built-in GPUs (N1, G4, ...)."""
    gpu_network: Annotated[Any, Check(_gpu_network), Takes(GpuNetwork)] | None = None
    """A :class:`~pulumi_dws.GpuNetwork` whose networks give the VMs every NIC (gVNIC, then
    RDMA); it replaces ``network`` and ``subnetwork``, and its machine type's NIC layout must
    be the VMs'."""

    def check_gpu_network(self, machine: Any) -> None:
        """With ``gpu_network``: no ``network``/``subnetwork`` of its own, and a machine type
        of the network's NIC layout."""
        if self.gpu_network is None:
            return
        for field in ("network", "subnetwork"):
            if getattr(self, field) is not None:
                raise DwsValidationError(
                    field,
                    getattr(self, field),
                    "can't be given with gpu_network, whose networks give every NIC",
                )
        self.gpu_network.check_machine("gpu_network", machine)

    def checked_machine(self, machine: Any, *, flex_start: bool = False) -> Any:
        """``machine`` checked against the accelerators, and (``flex_start``) against the
        series that may be Flex-start; an Output is checked once known."""
        accelerators = [a.model_dump() for a in self.accelerators]
        if is_output(machine):
            return when_known(
                machine, lambda known: check_machine(known, accelerators, flex_start=flex_start)
            )
        return check_machine(machine, accelerators, flex_start=flex_start)

    def check_subnetwork_in(self, zone: Any = None, region: Any = None) -> None:
        """A subnetwork given by path is in the VMs' region (``zone``'s, or ``region``)."""
        if isinstance(zone, str) and regions.is_zone(zone):
            region = region_of(zone)
        check_subnetwork_region("subnetwork", self.subnetwork, region)

    def check_startup_script(self) -> None:
        metadata = {} if is_output(self.metadata) else self.metadata
        if self.startup_script is not None and "startup-script" in metadata:
            raise DwsValidationError(
                "startup_script",
                "(set)",
                "give startup_script or metadata['startup-script'], not both",
            )

    # ------------------------------------------------------------------ derived values
    def disk_type(self, machine_type: Any) -> str:
        if self.boot_disk_type:
            return self.boot_disk_type
        machine = machine_type if isinstance(machine_type, str) else ""
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

    def metadata_map(self) -> Any:
        """Metadata with the startup script (an Output of it while ``metadata`` is one)."""
        if is_output(self.metadata):
            return when_known(
                self.metadata,
                lambda known: self.model_copy(update={"metadata": known}).metadata_map(),
            )
        items = dict(self.metadata)
        if self.startup_script is not None:
            items["startup-script"] = self.startup_script
        return {k: items[k] for k in sorted(items)}

    def metadata_items(self) -> Any:
        """The ``metadata.items`` list of the Compute API (an Output of it while ``metadata``
        is one)."""
        if is_output(self.metadata):
            return when_known(
                self.metadata,
                lambda known: self.model_copy(update={"metadata": known}).metadata_items(),
            )
        return [{"key": k, "value": v} for k, v in self.metadata_map().items()]


VmSettings.shared_fields = frozenset(VmSettings.model_fields)


def template_args(
    settings: VmSettings,
    *,
    project: Any,
    machine_type: Any,
    scheduling: dict[str, Any],
    reservation_affinity: dict[str, Any],
    instance_settings: bool = False,
) -> dict[str, Any]:
    """Keyword arguments of a pulumi-gcp ``InstanceTemplate`` / ``RegionInstanceTemplate``
    with the VM's shape, ``scheduling`` and ``reservation_affinity``.

    ``instance_settings``: also the labels and metadata (the template is what the VMs are
    made from, as in a managed instance group). Without it they stay off the template (a
    ``FlexStartInstance`` sets them on the VM, where they change in place)."""
    args: dict[str, Any] = {
        "project": project,
        "machine_type": machine_type,
        "disks": [
            {
                "boot": True,
                "auto_delete": True,
                "source_image": settings.image,
                "disk_size_gb": settings.boot_disk_size_gb,
                "disk_type": settings.disk_type(machine_type),
            }
        ],
        "network_interfaces": (
            settings.gpu_network.interfaces(public_ip=settings.public_ip)
            if settings.gpu_network is not None
            else [
                {
                    "network": settings.network_or_default(),
                    "subnetwork": settings.subnetwork,
                    "access_configs": [{}] if settings.public_ip else None,
                }
            ]
        ),
        "service_account": {"email": settings.service_account, "scopes": list(settings.scopes)},
        "guest_accelerators": [a.model_dump() for a in settings.accelerators] or None,
        "scheduling": scheduling,
        "reservation_affinity": reservation_affinity,
    }
    if instance_settings:
        if settings.labels:
            labels = settings.labels
            args["labels"] = labels if is_output(labels) else dict(labels)
        metadata = settings.metadata_map()
        if is_output(metadata) or metadata:
            args["metadata"] = metadata
    return args
