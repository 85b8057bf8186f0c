"""The facts the rules read from resources, whatever API spelling they come in.

Raw pulumi-gcp resources carry camelCase provider inputs; this library's dynamic resources
carry the API request body under ``body`` (Compute JSON for ``FlexStartVm``, snake_case Vertex
AI JSON for ``SlurmCluster``) beside their own inputs (``desiredStatus``, ``zone``...). Each
resource type's reader, declared with its capacity kind (:mod:`pulumi_dws.registry`,
:mod:`pulumi_dws.kinds`), turns a resource into the shapes here (:class:`VmSpec`, read by
several kinds), its kind's own (``kinds/<kind>/shapes.py``: ``PoolSpec``, ``SlurmPool``) and
the facts general rules check (:mod:`pulumi_dws.policy.facts`): plain values, ``None`` when
absent, or :data:`~pulumi_dws.policy.values.UNKNOWN`. The policy rules, the capacity summary
and ``dws plan``'s key properties all read resources through these readers, so they cannot
disagree about what a resource asks for.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from .. import catalog, registry
from ..errors import DwsValidationError
from .values import UNKNOWN, as_bool, as_int, dig, last_segment, pick
from .view import ResourceView

__all__ = [
    "INSTANCE",
    "INSTANCE_TEMPLATE",
    "REGION_INSTANCE_TEMPLATE",
    "NODE_POOL",
    "CLUSTER",
    "FUTURE_RESERVATION",
    "RESERVATION",
    "DYNAMIC_PREFIX",
    "kind_of",
    "parts",
    "body_of",
    "any3",
    "machine_gpus",
    "accelerator_kind",
    "VmFields",
    "COMPUTE_VM",
    "VmSpec",
    "vm_spec",
]

INSTANCE = "gcp:compute/instance:Instance"
INSTANCE_TEMPLATE = "gcp:compute/instanceTemplate:InstanceTemplate"
REGION_INSTANCE_TEMPLATE = "gcp:compute/regionInstanceTemplate:RegionInstanceTemplate"
NODE_POOL = "gcp:container/nodePool:NodePool"
CLUSTER = "gcp:container/cluster:Cluster"
FUTURE_RESERVATION = "gcp:compute/futureReservation:FutureReservation"
RESERVATION = "gcp:compute/reservation:Reservation"
DYNAMIC_PREFIX = registry.DYNAMIC_PREFIX

P = TypeVar("P")


def body_of(view: ResourceView) -> Any:
    """A dynamic resource's API body (``props["body"]``), else the props themselves."""
    body = view.props.get("body")
    if body is UNKNOWN or isinstance(body, Mapping):
        return body
    return view.props


def kind_of(view: ResourceView) -> str | None:
    """The kind its reader gives the resource (instance, template, flex_vm, node_pool, cluster,
    future_reservation, reservation, slurm, iam, kueue_config, ...), or None for a resource no
    reader knows."""
    reader = registry.reader_for(view)
    return reader.kind if reader is not None else None


def parts(view: ResourceView, of: type[P]) -> Iterator[P]:
    """The facts of type ``of`` its reader finds in the resource (none for unknown types)."""
    reader = registry.reader_for(view)
    if reader is None or reader.parts is None:
        return
    for part in reader.parts(view):
        if isinstance(part, of):
            yield part


def any3(*values: Any) -> Any:
    """Three-valued OR: True if any is True, else UNKNOWN if any is unknown, else False."""
    if any(v is True for v in values):
        return True
    if any(v is UNKNOWN for v in values):
        return UNKNOWN
    return False


def _accelerator_name(value: Any) -> Any:
    name = last_segment(value)
    if not isinstance(name, str):
        return UNKNOWN if name is UNKNOWN else None
    try:
        return catalog.accelerator("accelerator", name).compute_name
    except DwsValidationError:
        return name.lower().replace("_", "-")


def machine_gpus(machine_type: Any, accelerators: Any) -> tuple[Any, Any]:
    """``(accelerator name, GPUs per machine)`` from explicit accelerators, else the catalog.

    Explicit ``guestAccelerators`` / ``accelerator_count`` win (any spelling); otherwise a known
    GPU machine type gives its built-in GPUs; any other machine type has 0. Either element may
    be UNKNOWN.
    """
    if accelerators is UNKNOWN:
        return UNKNOWN, UNKNOWN
    if isinstance(accelerators, list) and accelerators:
        total: Any = 0
        name: Any = None
        for acc in accelerators:
            count = as_int(pick(acc, "count", "acceleratorCount", "accelerator_count"))
            kind = pick(acc, "type", "acceleratorType", "accelerator_type")
            name = name if name is not None else _accelerator_name(kind)
            if count is UNKNOWN or acc is UNKNOWN:
                total = UNKNOWN
            elif total is not UNKNOWN and isinstance(count, int):
                total += count
        if total is UNKNOWN or total:
            return name, total
    machine = last_segment(machine_type)
    if machine is UNKNOWN:
        return UNKNOWN, UNKNOWN
    if not isinstance(machine, str):
        return None, 0
    try:
        shape = catalog.machine_shape("machine_type", machine)
    except DwsValidationError:
        return None, 0
    return shape.accelerator.compute_name, shape.gpus


def accelerator_kind(gpus: tuple[Any, Any], machine_type: Any) -> str | None:
    """``GPU`` or ``TPU`` for a machine with accelerators (``gpus`` as :func:`machine_gpus`
    gives them; a TPU machine type of the catalog), else None."""
    count = gpus[1]
    if isinstance(count, int) and count > 0:
        return "GPU"
    return "TPU" if catalog.is_tpu_machine(last_segment(machine_type)) else None


STOPPED_STATUSES = ("TERMINATED", "SUSPENDED")
"""A VM's ``desiredStatus`` values that hold no GPUs (stopped: no GPU billing, no GPU-hours)."""


@dataclass(frozen=True)
class VmFields:
    """Where an API keeps a VM's facts (paths after :attr:`VmSpec.prefix`, as messages name
    them) and the limits rows that bound them."""

    machine_type: str = "machineType"
    max_run_duration: str = "scheduling.maxRunDuration"
    max_run_limit: str = "flex_start.max_run_duration"
    queue_window: str = "params.requestValidForDuration"
    queue_window_limit: str = "flex_start.request_valid_for"
    without_window: str = "the request fails after about 90 s when capacity is short"
    """What happens to a queued request without a queue window."""
    labels: str | None = "labels"
    """None: the API has no labels (nothing to require)."""
    external_ips: str | None = None
    """The switch that gives the VMs public IPs, for an API that has one (Cloud TPU's
    ``networkConfig.enableExternalIps``) instead of Compute's ``accessConfigs``."""


COMPUTE_VM = VmFields()
"""A Compute Engine instance, template or ``instances.insert`` body."""


@dataclass(frozen=True)
class VmSpec:
    """The DWS-relevant fields of a VM, instance template or Flex-start VM body, or of the TPU
    VMs of a Cloud TPU queued resource (``fields`` says where each one is)."""

    prefix: str  # how messages name fields: "" (provider inputs) or "body." (API body)
    machine_type: Any
    provisioning_model: Any
    max_run_duration: Any
    queue_window: Any
    network_interfaces: Any
    accelerators: Any
    labels: Any
    reservation_consumer: Any
    zone: Any = None
    termination_action: Any = None
    desired_status: Any = None
    reservation: Any = None  # the reservation named (SPECIFIC), else the affinity type
    external_ips: Any = None  # the value of fields.external_ips, for APIs with that switch
    fields: VmFields = COMPUTE_VM

    def public_ip_fields(self) -> Iterator[str]:
        """The fields (after ``prefix``) that give the VM a public IP: each network interface
        with access configs, and the API's public-IP switch when it is on."""
        if isinstance(self.network_interfaces, list):
            for i, nic in enumerate(self.network_interfaces):
                configs = dig(nic, "accessConfigs")
                if isinstance(configs, list) and configs:
                    yield f"networkInterfaces[{i}].accessConfigs"
        if self.fields.external_ips is not None and as_bool(self.external_ips) is True:
            yield self.fields.external_ips

    @property
    def stopped(self) -> Any:
        """True when the VM is asked to be stopped (``desiredStatus`` TERMINATED or SUSPENDED),
        UNKNOWN when that is not known yet."""
        if self.desired_status is UNKNOWN:
            return UNKNOWN
        return self.desired_status in STOPPED_STATUSES

    @property
    def flex_start(self) -> Any:
        """True for FLEX_START, UNKNOWN when the model is unknown."""
        if self.provisioning_model is UNKNOWN:
            return UNKNOWN
        return self.provisioning_model == "FLEX_START"

    def gpus(self) -> tuple[Any, Any]:
        return machine_gpus(self.machine_type, self.accelerators)


def vm_spec(view: ResourceView) -> VmSpec | None:
    """The VM fields of an instance, template or FlexStartVm; None for other kinds."""
    return next(parts(view, VmSpec), None)
