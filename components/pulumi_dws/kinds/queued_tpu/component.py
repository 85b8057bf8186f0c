"""``QueuedTpu``: a Cloud TPU slice asked for as a *queued resource*, with Flex-start.

    tpu = QueuedTpu("trainer", {
        "zone": "us-east5-a",
        "accelerator_type": "v6e-16",          # 16 TPU v6e chips (4 VMs)
        "max_run_duration": "1d",              # Flex-start: the slice runs up to a day
        "request_valid_for": "2h",             # and waits up to 2 h in the queue for capacity
    })

pulumi-gcp's ``gcp.tpu.V2QueuedResource`` has no provisioning model, run duration or queueing
policy (the Cloud TPU ``v2`` API has none): Flex-start needs the ``v2alpha1`` API, so the child
is a dynamic resource, ``<name>-queued-resource``
(:class:`~pulumi_dws.kinds.queued_tpu.provider.QueuedTpuResource`). Its ``body`` is field for field
what ``gcloud alpha compute tpus queued-resources create --provisioning-model=flex-start
--max-run-duration=1d --valid-until-duration=2h ...`` sends.

``provisioning``: ``"flex_start"`` (default; needs ``max_run_duration``; the zone must offer
Flex-start for the TPU version, limits rows ``queued_tpu.flex_start_zones.*``), ``"spot"``, or
``"reservation_bound"`` with ``reservation`` (a short name, expanded as gcloud does to
``projects/PROJECT/locations/ZONE/reservations/NAME``, or a full name:
:meth:`CalendarReservation.queued_tpu_settings` gives one for a Calendar-mode reservation).

``node_count`` (> 1) asks for a *multislice*: that many slices of ``accelerator_type``, nodes
``<node_id_prefix>-0``, ``-1``...; otherwise one slice named ``node_id``.

Every argument is validated before anything is registered.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

import pulumi
from pydantic import model_validator

from ... import catalog, limits, regions
from ...defaults import resolve_project, stack_default_name, type_token
from ...duration import Duration
from ...errors import DwsValidationError
from ...fields import (
    Check,
    DurationWithin,
    Known,
    Labels,
    MaybeOutput,
    MetadataText,
    Name,
    Network,
    ProjectId,
    ServiceAccount,
    Subnetwork,
    Takes,
    Within,
    Zone,
)
from ...models import DwsModel, parse_args
from ...providers.ownership import OWNER_INPUT, owner_input
from ...queue_wait import OnTimeout, WaitTimeout, wait_policy
from ...validation import (
    check_name,
    check_subnetwork_region,
    is_output,
    region_of,
    when_known,
)
from ..calendar.component import CalendarReservation
from ..calendar.consumers import check_tpu_consumer, reservation_spec
from . import limits as _rows  # noqa: F401 (registers this kind's limit rows)
from .args import QueuedTpuArgs
from .provider import QueuedTpuResource

__all__ = [
    "QueuedTpu",
    "QueuedTpuArgs",
    "QueuedTpuSpec",
    "PROVISIONING_MODELS",
    "TYPE",
    "queued_resource_body",
    "reservation_name",
]

TYPE = type_token("QueuedTpu")
PROVISIONING_MODELS: dict[str, str] = {
    "flex_start": "FLEX_START",
    "spot": "SPOT",
    "reservation_bound": "RESERVATION_BOUND",
}
"""``provisioning`` -> the API's ``provisioningModel`` (gcloud ``--provisioning-model``)."""
_SHORT_RESERVATION = re.compile(r"^[a-zA-Z0-9-]+\Z")  # what gcloud expands (util.py)
_FULL_RESERVATION = re.compile(
    r"^projects/(?P<project>[^/]+)/locations/(?P<zone>[^/]+)/reservations/(?P<name>[^/]+)\Z"
)


def _accelerator_type(field: str, value: Any) -> str:
    catalog.cloud_tpu_slice(field, value)
    return str(value)


def _reservation(field: str, value: Any) -> Any:
    if is_output(value) or reservation_spec(value) is not None:
        return value
    if not isinstance(value, str) or not (
        _SHORT_RESERVATION.match(value) or _FULL_RESERVATION.match(value)
    ):
        raise DwsValidationError(
            field,
            value,
            "is not a reservation: give a CalendarReservation, its name (my-reservation) or "
            "projects/PROJECT/locations/ZONE/reservations/NAME",
        )
    return value


_IN_REQUEST = "it is written into the queued resource's request as it is built"


class QueuedTpuSpec(DwsModel):
    """Arguments of :class:`QueuedTpu`."""

    # The one declaration of each field: QueuedTpuArgs is generated from it (python
    # scripts/generate.py). Also the shape of this kind's dws:capacity entries.

    zone: MaybeOutput[Zone]
    """Zone of the slice, e.g. ``us-east5-a``."""
    accelerator_type: Annotated[
        str, Check(_accelerator_type), Known("it decides the slice's chips and runtime")
    ]
    """Cloud TPU accelerator type: ``v6e-16``, ``v5litepod-8``, ``v5p-8`` (for v5p the number
    counts TensorCores, 2 per chip)."""
    runtime_version: Annotated[str | None, Known("it is checked against the TPU version")] = None
    """TPU VM software (default: the generation's PyTorch/JAX runtime, ``v2-alpha-tpuv6e``)."""
    node_id: Name | None = None
    """Name of the TPU node (default: the queued resource's id). Not with ``node_count``."""
    node_count: MaybeOutput[Annotated[int, Within("queued_tpu.node_count")]] | None = None
    """Multislice: this many slices (2 or more) of ``accelerator_type`` (an Output is checked
    once known; ``chips`` is then known with it)."""
    node_id_prefix: Name | None = None
    """Multislice node names are ``<prefix>-0``, ``-1``... (default: the queued resource id)."""
    provisioning: Literal["flex_start", "spot", "reservation_bound"] = "flex_start"
    """``flex_start`` (default), ``spot`` or ``reservation_bound`` (with ``reservation``)."""
    reservation: (
        MaybeOutput[Annotated[Any, Check(_reservation), Takes(CalendarReservation | str)]] | None
    ) = None
    """The reservation a ``reservation_bound`` request consumes: a
    :class:`~pulumi_dws.CalendarReservation` of TPU chips (its generation, zone and chips are
    checked), a name in the project and zone, or
    ``projects/P/locations/ZONE/reservations/NAME``."""
    max_run_duration: Annotated[
        Annotated[Duration, DurationWithin("queued_tpu.max_run_duration")] | None,
        Known(_IN_REQUEST),
    ] = None
    """Flex-start only (required there): how long the slice runs once it has capacity (10
    minutes to 7 days); then its VMs are deleted and the request is ``SUSPENDED``."""
    request_valid_for: Annotated[
        Annotated[Duration, DurationWithin("queued_tpu.request_valid_for")] | None,
        Known(_IN_REQUEST),
    ] = None
    """How long the request waits in the queue for capacity (``validUntilDuration``); after
    that it ``FAILED``. ``None`` (default): as long as Google keeps it."""
    wait_for: Literal["accepted", "active"] = "active"
    """``active`` (default): the deployment waits until the slice is ``ACTIVE``.
    ``accepted``: it returns once the request waits in the queue."""
    wait_timeout: WaitTimeout | None = None
    """How long the deployment waits for ``wait_for`` (default: the queue window plus an hour,
    or 2 hours without a window); see ``on_timeout``."""
    on_timeout: OnTimeout | None = None
    """When ``wait_timeout`` passes with the request still queued: ``keep`` (default: the
    deployment succeeds with its true state, e.g. ``WAITING_FOR_RESOURCES``, warns, and ``pulumi
    refresh`` follows it) or ``cancel`` (the request is deleted)."""
    project: MaybeOutput[ProjectId] | None = None
    """Project (default: the ``gcp:project`` stack config)."""
    queued_resource_id: Name | None = None
    """Id of the queued resource (default: the component's name)."""
    network: MaybeOutput[Network] | None = None
    """VPC network (default ``default``)."""
    subnetwork: MaybeOutput[Subnetwork] | None = None
    """Subnetwork of the TPU VMs (a name or ``projects/P/regions/R/subnetworks/NAME``)."""
    public_ip: bool = False
    """Give each TPU VM an external IP (default False: use Cloud NAT / IAP)."""
    service_account: MaybeOutput[ServiceAccount] | None = None
    """Service account email of the TPU VMs (default: the Compute default one)."""
    scopes: Annotated[list[str] | None, Known(_IN_REQUEST, outputs_in_items=True)] = None
    """OAuth scopes for ``service_account``."""
    labels: MaybeOutput[Labels] = {}
    """Google Cloud labels on the TPU VMs."""
    metadata: MaybeOutput[MetadataText] = {}
    """Metadata of the TPU VMs (values are strings)."""

    @model_validator(mode="wrap")
    @classmethod
    def _shape(cls, data: Any, handler: Any) -> QueuedTpuSpec:
        spec: QueuedTpuSpec = handler(data)
        if isinstance(spec.zone, str) and regions.is_zone(spec.zone):
            check_subnetwork_region("subnetwork", spec.subnetwork, region_of(spec.zone))
        tpu = catalog.cloud_tpu_slice("accelerator_type", spec.accelerator_type)
        runtime = spec.runtime_version or tpu.generation.runtime_version
        catalog.check_runtime_version("runtime_version", spec.accelerator_type, runtime)
        if spec.node_id is not None and spec.node_count is not None:
            raise DwsValidationError(
                "node_id",
                spec.node_id,
                "give node_id (one slice) or node_count (a multislice), not both",
            )
        if spec.node_id_prefix is not None and spec.node_count is None:
            raise DwsValidationError(
                "node_id_prefix", spec.node_id_prefix, "only applies with node_count"
            )
        bound = spec.provisioning == "reservation_bound"
        if bound and spec.reservation is None:
            raise DwsValidationError(
                "reservation", None, "is required with provisioning='reservation_bound'"
            )
        if not bound and spec.reservation is not None:
            raise DwsValidationError(
                "reservation",
                spec.reservation,
                f"only applies with provisioning='reservation_bound' (not {spec.provisioning!r})",
            )
        flex = spec.provisioning == "flex_start"
        if flex and spec.max_run_duration is None:
            raise DwsValidationError(
                "max_run_duration",
                None,
                "is required with provisioning='flex_start' "
                f"({limits.get('queued_tpu.max_run_duration').allowed()})",
            )
        if not flex and spec.max_run_duration is not None:
            raise DwsValidationError(
                "max_run_duration",
                spec.max_run_duration.describe(),
                f"only applies with provisioning='flex_start' (not {spec.provisioning!r})",
            )
        door = "cloud_tpu_flex_start" if flex else "tpu"
        if flex:
            catalog.check_tpu_door(
                "accelerator_type",
                spec.accelerator_type,
                tpu.generation,
                door,
                hint="use provisioning='spot' or 'reservation_bound', or a GKE pool",
            )
        if bound:  # what the reservation holds first: its zone is the request's
            _check_reservation(spec, tpu)
        zone = catalog.check_tpu_zone("zone", spec.zone, tpu.generation, door)
        return spec.model_copy(update={"runtime_version": runtime, "zone": zone})

    # ------------------------------------------------------------------ derived values
    @property
    def slice(self) -> catalog.TpuSlice:
        """The slice ``accelerator_type`` stands for (chips, VMs, machine type)."""
        return catalog.cloud_tpu_slice("accelerator_type", self.accelerator_type)

    @property
    def chips(self) -> Any:
        """TPU chips asked for: the slice's chips times the slices (an Output while
        ``node_count`` is one)."""
        per_slice = self.slice.chips
        return when_known(self.node_count, lambda count: per_slice * (count or 1))


_FULL_NAME = re.compile(r"^projects/[^/]+/locations/(?P<zone>[^/]+)/reservations/[^/]+\Z")


def _check_reservation(spec: QueuedTpuSpec, tpu: catalog.TpuSlice) -> None:
    """A reservation-bound request and its reservation: a Calendar-mode one holds chips of the
    slice's generation, at least the request's, in its zone; a full name is in its zone."""
    reservation = spec.reservation
    if isinstance(reservation, str):
        match = _FULL_NAME.match(reservation)
        if match and isinstance(spec.zone, str) and match["zone"] != spec.zone:
            raise DwsValidationError(
                "reservation",
                reservation,
                f"is in zone {match['zone']}, not the request's zone {spec.zone}; a queued "
                "resource consumes a reservation of its own zone",
            )
        return
    count = spec.node_count if spec.node_count is None or isinstance(spec.node_count, int) else None
    chips = tpu.chips * (count or 1) if not is_output(spec.node_count) else None
    check_tpu_consumer(
        reservation,
        generation=tpu.generation,
        chips=chips,
        zone=spec.zone,
        fields=("accelerator_type", "node_count" if count else "accelerator_type", "zone"),
        value=spec.accelerator_type,
        chips_shown=count or spec.accelerator_type,
    )


def reservation_name(reservation: Any, project: Any, zone: Any) -> Any:
    """The ``reservationName`` gcloud sends for ``--reservation``: a short name becomes
    ``projects/PROJECT/locations/ZONE/reservations/NAME``; anything else is sent as it is."""

    def expand(values: list[Any]) -> str:
        name, project_, zone_ = values
        if not isinstance(name, str):  # a Calendar-mode reservation: its Cloud TPU name
            return str(name)
        if _SHORT_RESERVATION.match(name):
            return f"projects/{project_}/locations/{zone_}/reservations/{name}"
        return str(name)

    if isinstance(reservation, CalendarReservation):
        return reservation.cloud_tpu_reservation(project if isinstance(project, str) else None)
    if any(is_output(v) for v in (reservation, project, zone)):
        return pulumi.Output.all(reservation, project, zone).apply(expand)
    return expand([reservation, project, zone])


def _concat(*parts: Any) -> Any:
    if any(is_output(p) for p in parts):
        return pulumi.Output.concat(*parts)
    return "".join(parts)


def queued_resource_body(spec: QueuedTpuSpec, project: Any, node_name: str) -> dict[str, Any]:
    """The ``QueuedResource`` JSON of ``spec``: field for field what ``gcloud alpha compute tpus
    queued-resources create`` sends for the same flags (gcloud 528; its defaults included:
    ``autocheckpointEnabled: false``, ``metadata: {}``, ``serviceAccount: {}``, network
    ``default``). ``node_name`` is the node id, or the multislice prefix."""
    network: dict[str, Any] = {
        "enableExternalIps": spec.public_ip,
        "network": spec.network if spec.network is not None else "default",
    }
    if spec.subnetwork is not None:
        network["subnetwork"] = spec.subnetwork
    account: dict[str, Any] = {}
    if spec.service_account is not None:
        account["email"] = spec.service_account
    if spec.scopes:
        account["scope"] = list(spec.scopes)
    node: dict[str, Any] = {
        "acceleratorType": spec.accelerator_type,
        "autocheckpointEnabled": False,
        "metadata": spec.metadata if is_output(spec.metadata) else dict(spec.metadata),
        "networkConfig": network,
        "runtimeVersion": spec.runtime_version,
        "serviceAccount": account,
    }
    if spec.labels:
        node["labels"] = spec.labels if is_output(spec.labels) else dict(spec.labels)
    node_spec: dict[str, Any] = {
        "node": node,
        "parent": _concat("projects/", project, "/locations/", spec.zone),
    }
    if spec.node_count is not None:
        multi: dict[str, Any] = {"nodeCount": spec.node_count}
        if spec.node_id_prefix is not None:
            multi["nodeIdPrefix"] = node_name
        node_spec["multiNodeParams"] = multi
    else:
        node_spec["nodeId"] = node_name
    body: dict[str, Any] = {
        "provisioningModel": PROVISIONING_MODELS[spec.provisioning],
        "tpu": {"nodeSpec": [node_spec]},
    }
    if spec.max_run_duration is not None:
        body["runDuration"] = {"maxRunDuration": spec.max_run_duration.to_proto_string()}
    if spec.request_valid_for is not None:
        body["queueingPolicy"] = {"validUntilDuration": spec.request_valid_for.to_proto_string()}
    if spec.reservation is not None:
        body["reservationName"] = reservation_name(spec.reservation, project, spec.zone)
    return body


class QueuedTpu(pulumi.ComponentResource):
    """A Cloud TPU queued resource (see the module docstring).

    Outputs: ``state`` (``WAITING_FOR_RESOURCES``, ``PROVISIONING``, ``ACTIVE``, ``FAILED``,
    ``SUSPENDED``...), ``queued_resource_name`` (``projects/P/locations/Z/queuedResources/ID``),
    ``chips``. Child: ``queued_resource``
    (:class:`~pulumi_dws.kinds.queued_tpu.provider.QueuedTpuResource`); ``spec`` is the validated
    args.
    """

    state: pulumi.Output[str]
    """The request's state: ``WAITING_FOR_RESOURCES``, ``PROVISIONING``, ``ACTIVE``,
    ``FAILED``, ``SUSPENDED``..."""
    queued_resource_name: pulumi.Output[str]
    """``projects/P/locations/ZONE/queuedResources/ID``."""
    chips: pulumi.Output[int]
    """TPU chips asked for: the slice's chips times its slices."""

    def __init__(
        self,
        name: str,
        args: QueuedTpuArgs,
        opts: pulumi.ResourceOptions | None = None,
    ) -> None:
        spec = parse_args(QueuedTpuSpec, args)
        named = stack_default_name(
            "queued_resource_id", spec.queued_resource_id, name, check_name,
            arg="queued_resource_id",
        )  # fmt: skip
        resource_id = named.value
        super().__init__(TYPE, name, {}, opts)
        project = resolve_project(spec.project, self)
        self.spec = spec
        self.chips = pulumi.Output.from_input(spec.chips)
        if spec.node_count is not None:
            node_name = spec.node_id_prefix or resource_id
        else:
            node_name = spec.node_id or resource_id
        kept = named.kept("queuedResourceId")
        if named.defaulted and spec.node_count is None and spec.node_id is None:
            kept.append("body.tpu.nodeSpec[0].nodeId")  # the node is named after the request
        self.queued_resource = QueuedTpuResource(
            f"{name}-queued-resource",
            {
                "project": project,
                "zone": spec.zone,
                "queuedResourceId": resource_id,
                "body": queued_resource_body(spec, project, node_name),
                "waitFor": spec.wait_for,
                **wait_policy(spec.wait_timeout, spec.on_timeout),
                OWNER_INPUT: owner_input(f"{name}-queued-resource"),
            },
            pulumi.ResourceOptions(parent=self, ignore_changes=kept),
        )
        self.state = self.queued_resource.state
        self.queued_resource_name = self.queued_resource.name
        shown: Any = (
            self.queued_resource.queuedResourceId  # type: ignore[attr-defined]
            if named.defaulted
            else resource_id
        )  # a request made before defaults carried the stack keeps its id
        self.register_outputs({"queued_resource_id": shown, "zone": spec.zone, "chips": self.chips})
