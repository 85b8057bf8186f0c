"""``CalendarReservation``: reserve GPU VMs, H4D VMs or TPU chips for a fixed window in DWS
Calendar mode.

Wraps ``gcp.compute.FutureReservation`` with ``reservation_mode="CALENDAR"`` and gives the
settings VMs, templates, GKE node pools and Cloud TPU queued resources need to consume the
reservation it creates.

GPUs are reserved as ``count`` VMs of a ``machine_type`` (``specificSkuProperties``): 1 to 80
per request (limits row ``calendar.count``). H4D VMs (HPC, no GPUs: ``h4d-standard-192``,
``h4d-highmem-192``, ``h4d-highmem-192-lssd``) likewise, 1 to 256 per request (limits row
``calendar.count_h4d``; "Create a future reservation request in calendar mode",
https://docs.cloud.google.com/compute/docs/instances/create-future-reservations-calendar-mode,
whose current copy says "up to 80 GPU VMs or 256 H4D VMs in a single request"). TPUs are
reserved as ``chip_count`` chips of a ``tpu_version`` (``v5e``, ``v5p``, ``v6e``) with an
optional ``workload_type`` (``BATCH`` or ``SERVING``): an ``aggregateReservation`` with the
version's ``vmFamily``, exactly as ``gcloud alpha compute future-reservations create
--tpu-version=V6E --chip-count=16 --workload-type=BATCH --reservation-mode=CALENDAR`` sends it
(no ``specificReservationRequired`` unless asked, as gcloud). Chip counts and zones per version
are rows of the limits table (``calendar.tpu_chips.*``, ``calendar.tpu_zones.*``).

Delete and replace are explicit: an approved calendar request cannot be modified or cancelled,
so a submitted reservation is ``protect``-ed by default (Pulumi refuses to delete or replace it
until you set ``protect: False``), and its description is not diffed, so a cosmetic edit never
replaces it. A draft is not protected unless you ask (``protect: True``, or ``protect=True`` in
the component's resource options, which its children inherit).

The Compute API's future reservations carry no labels: ``labels`` are validated and kept on the
component (``block.labels``) for the VMs, templates and node pools that consume it.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Annotated, Any, Literal

import pulumi
import pulumi_gcp as gcp
from pydantic import BeforeValidator, ValidationInfo, model_validator

from ... import catalog, limits
from ...calendar_tpu import WORKLOAD_TYPES, calendar_tpu_version, check_tpu_chips, check_tpu_zone
from ...clock import now
from ...defaults import default_name, type_token
from ...duration import Duration
from ...errors import NO_VALUE, DwsValidationError
from ...fields import (
    Check,
    DurationWithin,
    GpuOrHpcMachineType,
    Known,
    Labels,
    MaybeOutput,
    Name,
    OneOf,
    ProjectId,
    Takes,
    Zone,
)
from ...models import DwsModel, parse_args
from ...relative_time import RelativeTime, StableTime, is_relative, parse_relative
from ...validation import (
    check_name,
    format_timestamp,
    is_output,
    parse_timestamp,
    when_known,
)
from . import limits as _rows  # noqa: F401 (registers this kind's limit rows)
from .args import CalendarReservationArgs

__all__ = ["TYPE", "CalendarReservation", "CalendarReservationArgs", "CalendarReservationSpec"]

RESERVATION_NAME_KEY = "compute.googleapis.com/reservation-name"
TYPE = type_token("CalendarReservation")
_DAY = 86400


def _start_time(value: Any, info: ValidationInfo) -> Any:
    """A relative start (``+4w``, at least the look-ahead minimum once aligned to 00:00 UTC),
    or a timestamp ahead of now (any timestamp with ``allow_past_start``)."""
    if is_relative(value):
        rel = parse_relative("start_time", value)
        shown = f"+{rel.offset.human()}"
        ahead = limits.get("calendar.start_ahead")
        ahead.check("start_time", rel.offset.seconds, shown=shown)
        if rel.align_to_day and ahead.minimum is not None:
            # Aligned down to 00:00 UTC, the start lands up to a day short of the offset.
            earliest = rel.offset.seconds - _DAY + 1
            if earliest < ahead.minimum:
                raise DwsValidationError(
                    "start_time",
                    shown,
                    "is aligned to 00:00 UTC on first deploy, so it may start less than "
                    f"{ahead.render(ahead.minimum)} ahead, below the "
                    f"{ahead.description} minimum; use "
                    f"+{Duration(ahead.minimum + _DAY).human()} or more",
                )
        return rel
    if info.data.get("allow_past_start"):
        return format_timestamp(parse_timestamp("start_time", value))
    return _check_start(value)


def _end_time(field: str, value: Any) -> str:
    return format_timestamp(parse_timestamp(field, value))


def _name_prefix(field: str, value: str) -> str:
    check_name(field, value)
    limits.get("calendar.name_prefix_length").check(field, len(value), shown=value)
    return value


_BY_SHAPE = "it is checked against the machine type's GPUs"


def _vm_count(field: str, value: Any) -> int:
    """A whole number of VMs (the machine series' row is checked with the machine type:
    :meth:`CalendarReservationSpec.check_count`)."""
    return limits.as_whole_number(field, value)


_BY_VERSION = "it is checked against the TPU version's chip counts and zones"


class CalendarReservationSpec(DwsModel):
    """Arguments of :class:`CalendarReservation`."""

    # The one declaration of each field: CalendarReservationArgs is generated from it (python
    # scripts/generate.py). Also the shape of this kind's dws:capacity entries.

    zone: MaybeOutput[Zone]
    """Zone of the reserved VMs, e.g. ``us-central1-a`` (an Output is checked once known)."""
    machine_type: Annotated[GpuOrHpcMachineType | None, Known("it decides the VMs reserved")] = None
    """A GPU machine type, e.g. ``a3-highgpu-8g``, or an H4D machine type (``h4d-standard-192``,
    ``h4d-highmem-192``, ``h4d-highmem-192-lssd``; no GPUs) (VMs; with ``count``)."""
    count: MaybeOutput[Annotated[int, Check(_vm_count)]] | None = None
    """Number of VMs: 1 to 80 GPU VMs (limits row ``calendar.count``), 1 to 256 H4D VMs (limits
    row ``calendar.count_h4d``)."""
    tpu_version: Annotated[
        Annotated[str, Check(calendar_tpu_version)] | None, Known("it decides the TPUs reserved")
    ] = None
    """A TPU version, ``v5e``, ``v5p`` or ``v6e`` (TPUs; with ``chip_count``)."""
    chip_count: Annotated[int | None, Known(_BY_VERSION)] = None
    """Number of TPU chips (the ``calendar.tpu_chips.<version>`` row lists what is allowed)."""
    workload_type: Annotated[
        Annotated[str, OneOf(WORKLOAD_TYPES, upper=True)] | None, Known(_BY_VERSION)
    ] = None
    """What the TPUs are for (TPU v5e SERVING: 1, 4 or 8 chips, in its own zones)."""
    allow_past_start: bool = False  # before start_time: its check reads it
    """An absolute ``start_time`` must lie ahead (default False): set True once the request
    exists and its window has come, so later ``pulumi up`` runs of the stack still work."""
    start_time: MaybeOutput[
        Annotated[Any, BeforeValidator(_start_time), Takes(str | dt.datetime | RelativeTime)]
    ]
    """RFC 3339 (``2027-03-01T00:00:00Z``), or relative to first deploy (``"+4w"``)."""
    end_time: MaybeOutput[Annotated[str | dt.datetime, Check(_end_time)]] | None = None
    """RFC 3339 end; give this or ``duration``."""
    duration: MaybeOutput[Annotated[Duration, DurationWithin("calendar.duration")]] | None = None
    """Length of the window (``"7d"``); give this or ``end_time``."""
    project: ProjectId | None = None
    """Project (default: the ``gcp:project`` stack config)."""
    name: Name | None = None
    """Name of the future reservation (default: the component's name)."""
    accelerator_type: Annotated[str | None, Known(_BY_SHAPE)] = None
    """GPUs: the GPU type attached (default: the machine type's; must match it)."""
    accelerator_count: Annotated[int | None, Known(_BY_SHAPE)] = None
    """GPUs: GPUs per VM (default: the machine type's; must match it)."""
    name_prefix: Annotated[str, Check(_name_prefix, before=False)] | None = None
    """Prefix for the auto-created reservation's name (up to 20 characters)."""
    reservation_name: Name | None = None
    """Exact name of the reservation Google creates (default: the future reservation's name)."""
    auto_delete: bool = True
    """Delete the auto-created reservation at the end of the window (default True)."""
    require_specific_reservation: bool | None = None
    """Only VMs that target the reservation by name may consume it (default True for GPUs;
    for TPUs not sent unless given, as gcloud)."""
    planning_status: Annotated[
        Literal["DRAFT", "SUBMITTED"],
        Known("it decides whether the reservation is protected from deletion"),
    ] = "SUBMITTED"
    """``SUBMITTED`` (default): the request goes to Google for approval; ``DRAFT``: it is only
    saved."""
    deployment_type: Literal["DENSE", "FLEXIBLE"] | None = None
    """How the VMs are placed: ``DENSE`` or ``FLEXIBLE`` (the API's ``deploymentType``; default: the
    API's)."""
    share_with: Annotated[
        list[str], Known("it is checked against the projects that consume the reservation")
    ] = []
    """Projects that may consume the reservation."""
    description: MaybeOutput[str] | None = None
    """Not diffed (``ignore_changes``): editing it never touches the submitted request."""
    protect: bool | None = None
    """Protect from delete/replace (default: True once SUBMITTED; a DRAFT inherits the
    component's ``protect`` resource option)."""
    labels: MaybeOutput[Labels] = {}
    """Labels for the consumers (future reservations have none in the Compute API)."""

    @model_validator(mode="after")
    def _window_and_shape(self) -> CalendarReservationSpec:
        if (self.end_time is None) == (self.duration is None):
            raise DwsValidationError(
                "end_time", self.end_time or "(missing)", "give exactly one of end_time or duration"
            )
        if isinstance(self.start_time, RelativeTime) and self.end_time is not None:
            raise DwsValidationError(
                "end_time", self.end_time, "use duration with a relative start_time"
            )
        if self.end_time is not None and not (
            is_output(self.end_time) or is_output(self.start_time)
        ):
            _check_window(self.start_time, self.end_time)
        if self.name_prefix and self.reservation_name:
            raise DwsValidationError(
                "name_prefix", self.name_prefix, "give name_prefix or reservation_name, not both"
            )
        if (self.machine_type is None) == (self.tpu_version is None):
            raise DwsValidationError(
                "machine_type",
                self.machine_type or "(missing)",
                "give machine_type and count (GPU VMs) or tpu_version and chip_count (TPUs)",
            )
        if self.tpu_version is not None:
            self._tpu_rules()
            return self
        for field in ("chip_count", "workload_type"):
            if getattr(self, field) is not None:
                raise DwsValidationError(
                    field, getattr(self, field), "only applies to TPUs (with tpu_version)"
                )
        if self.count is None:
            raise DwsValidationError("count", "(missing)", "is required with machine_type")
        assert self.machine_type is not None
        if isinstance(self.count, int):
            self.check_count(self.count)
        if catalog.is_hpc_flex_machine(self.machine_type):
            for field in ("accelerator_type", "accelerator_count"):
                if getattr(self, field) is not None:
                    raise DwsValidationError(
                        field,
                        getattr(self, field),
                        f"does not apply: {self.machine_type} is an H4D machine type, which "
                        "has no GPUs",
                    )
            return self
        catalog.check_attached(self.machine_type, self.accelerator_type, self.accelerator_count)
        return self

    @property
    def count_row(self) -> str:
        """The limits row of VMs per request for the machine type: ``calendar.count`` (GPU
        VMs) or ``calendar.count_h4d`` (H4D VMs)."""
        return catalog.calendar_limit(self.machine_type)

    def check_count(self, count: int) -> int:
        """``count`` VMs inside the machine type's row (an Output's value once known)."""
        try:
            return limits.check_count("count", count, self.count_row)
        except DwsValidationError as err:
            raise DwsValidationError(
                "count", count, f"{err.problem} (limits row {self.count_row})"
            ) from None

    def _tpu_rules(self) -> None:
        """TPU chips: the counts and zones of the version (and workload type), no VM fields,
        and the auto-delete Calendar mode requires."""
        assert self.tpu_version is not None
        for field in ("count", "accelerator_type", "accelerator_count"):
            if getattr(self, field) is not None:
                raise DwsValidationError(
                    field,
                    getattr(self, field),
                    "does not apply to TPUs: give chip_count (TPU chips) with tpu_version",
                )
        if self.chip_count is None:
            raise DwsValidationError("chip_count", "(missing)", "is required with tpu_version")
        check_tpu_chips("chip_count", self.chip_count, self.tpu_version, self.workload_type)
        if isinstance(self.zone, str):
            check_tpu_zone("zone", self.zone, self.tpu_version, self.workload_type)
        if not self.auto_delete:
            raise DwsValidationError(
                "auto_delete",
                False,
                "is not allowed for TPUs: Calendar-mode requests must auto-delete the "
                "reservations they create (https://cloud.google.com/compute/docs/instances/"
                "future-reservations-calendar-mode-overview: 'you must enable the auto-delete "
                "option')",
            )

    # ------------------------------------------------------------------ derived values
    @property
    def gpus(self) -> Any:
        """GPUs reserved in total (0 for TPUs and H4D VMs; an Output while ``count`` is one)."""
        if self.machine_type is None or catalog.is_hpc_flex_machine(self.machine_type):
            return 0
        per_vm = catalog.machine_shape("machine_type", self.machine_type).gpus
        return when_known(self.count, lambda count: count * per_vm)

    @property
    def tpu_chips(self) -> int:
        """TPU chips reserved (0 for GPU VMs)."""
        return self.chip_count or 0

    @property
    def tpu_generation(self) -> catalog.TpuGeneration | None:
        """The TPU generation reserved, or None for GPU VMs."""
        if self.tpu_version is None:
            return None
        return catalog.tpu_generation("tpu_version", self.tpu_version)

    @property
    def protected(self) -> bool:
        return self.protect if self.protect is not None else self.planning_status == "SUBMITTED"

    @property
    def protect_option(self) -> bool | None:
        """The ``protect`` resource option of the future reservation: None (inherit the
        component's) for a draft whose args say nothing."""
        if self.protect is not None:
            return self.protect
        return True if self.planning_status == "SUBMITTED" else None


def _reserved(spec: CalendarReservationSpec) -> dict[str, Any]:
    """What is reserved: ``specific_sku_properties`` (GPU VMs) or ``aggregate_reservation``
    (TPU chips of a version's ``vmFamily``), as gcloud sends them."""
    generation = spec.tpu_generation
    if generation is not None:
        aggregate: dict[str, Any] = {
            "reserved_resources": [{"accelerator": {"accelerator_count": spec.chip_count}}],
            "vm_family": generation.vm_family,
        }
        if spec.workload_type is not None:
            aggregate["workload_type"] = spec.workload_type
        return {"aggregate_reservation": aggregate}
    assert spec.machine_type is not None
    properties: dict[str, Any] = {"machine_type": spec.machine_type}
    if spec.accelerator_type is not None:
        acc = catalog.accelerator("accelerator_type", spec.accelerator_type)
        shape = catalog.machine_shape("machine_type", spec.machine_type)
        properties["guest_accelerators"] = [
            {"accelerator_type": acc.compute_name, "accelerator_count": shape.gpus}
        ]
    return {
        "specific_sku_properties": {
            "instance_properties": properties,
            "total_count": when_known(spec.count, lambda count: str(spec.check_count(count))),
        }
    }


def _specific_required(spec: CalendarReservationSpec) -> bool | None:
    """GPU VMs: True unless told (only VMs naming the reservation use it); TPUs: what the user
    gives, else nothing, as gcloud sends."""
    if spec.require_specific_reservation is not None:
        return spec.require_specific_reservation
    return None if spec.tpu_version is not None else True


def _absolute_start(value: Any) -> Any:
    """An Output's start must be a timestamp: a relative one is fixed when first deployed."""
    if isinstance(value, RelativeTime):
        raise DwsValidationError(
            "start_time",
            NO_VALUE,
            f"must be known when the program runs, not an Output: a relative start "
            f"(+{value.offset.human()}) is fixed at first deploy; give it as a plain string, "
            "or an Output of an RFC 3339 timestamp",
        )
    return value


def _check_start(value: Any) -> str:
    start = parse_timestamp("start_time", value)
    ahead = (start - now()).total_seconds()
    shown = format_timestamp(start)
    if ahead <= 0:
        raise DwsValidationError(
            "start_time",
            shown,
            f"is in the past; a Calendar-mode window starts "
            f"{limits.get('calendar.start_ahead').allowed()} ahead (or use a relative time: +4w)",
        )
    limits.get("calendar.start_ahead").check("start_time", int(ahead), shown=shown)
    return shown


def _check_window(start: Any, end: Any) -> None:
    """A window ``end`` (RFC 3339) after ``start`` (RFC 3339), inside the limits."""
    seconds = (
        parse_timestamp("end_time", end) - parse_timestamp("start_time", start)
    ).total_seconds()
    if seconds <= 0:
        raise DwsValidationError("end_time", end, f"is not after start_time {start}")
    if not float(seconds).is_integer():
        raise DwsValidationError("end_time", end, "must be a whole number of seconds after start")
    limits.get("calendar.duration").check(
        "end_time", int(seconds), shown=f"{end} ({Duration(int(seconds)).human()} window)"
    )


class CalendarReservation(pulumi.ComponentResource):
    """GPU VMs, H4D VMs or TPU chips reserved for a fixed window (DWS Calendar mode).

    Example::

        block = CalendarReservation("h100-block", {
            "zone": "us-central1-a", "machine_type": "a3-highgpu-8g", "count": 2,
            "start_time": "+4w", "duration": "7d",
        })
        gcp.compute.Instance("trainer", ..., **block.instance_settings())
    """

    future_reservation: gcp.compute.FutureReservation
    reservation_name: pulumi.Output[str]
    """The reservation Google makes for the window (consumers name it)."""
    start_time: pulumi.Output[str]
    """Start of the window (RFC 3339)."""
    end_time: pulumi.Output[str]
    """End of the window (RFC 3339)."""
    labels: dict[str, Any] | pulumi.Output[dict[str, Any]]
    """The labels consumers of the reservation carry."""
    spec: CalendarReservationSpec

    def __init__(
        self,
        name: str,
        args: CalendarReservationArgs,
        opts: pulumi.ResourceOptions | None = None,
    ) -> None:
        spec = parse_args(CalendarReservationSpec, args)
        fr_name = default_name("name", spec.name, name, check_name)
        super().__init__(TYPE, name, {}, opts)
        self.spec = spec
        self.labels = spec.labels if is_output(spec.labels) else dict(spec.labels)
        child = pulumi.ResourceOptions(parent=self)

        if isinstance(spec.start_time, RelativeTime):
            stable = StableTime(f"{name}-start", spec.start_time, child)
            start: pulumi.Input[str] = stable.timestamp
        else:
            start = when_known(spec.start_time, _absolute_start)

        window: dict[str, Any] = {"start_time": start}
        if spec.duration is not None:
            window["duration"] = {"seconds": when_known(spec.duration, lambda d: str(d.seconds))}
            end = when_known(
                pulumi.Output.all(start, spec.duration),
                lambda sd: (
                    format_timestamp(parse_timestamp("start_time", sd[0]) + sd[1].timedelta())
                    if sd[0]
                    else sd[0]
                ),
            )
        else:
            window["end_time"] = spec.end_time
            # checked once both are known; a secret one stays [secret] in the error
            end = when_known(pulumi.Output.all(start, spec.end_time), _validated_end)

        zone: Any = spec.zone
        if spec.tpu_version is not None:
            version, workload = spec.tpu_version, spec.workload_type
            zone = when_known(spec.zone, lambda z: check_tpu_zone("zone", z, version, workload))
        what = _reserved(spec)
        reservation_name = spec.reservation_name or (None if spec.name_prefix else fr_name)
        share = (
            {"share_type": "SPECIFIC_PROJECTS", "projects": list(spec.share_with)}
            if spec.share_with
            else None
        )
        inputs: dict[str, Any] = {
            "name": fr_name,
            "project": spec.project,
            "zone": zone,
            "reservation_mode": "CALENDAR",
            "time_window": window,
            **what,
            "auto_delete_auto_created_reservations": spec.auto_delete,
            "specific_reservation_required": _specific_required(spec),
            "planning_status": spec.planning_status,
            "deployment_type": spec.deployment_type,
            "name_prefix": spec.name_prefix,
            "reservation_name": reservation_name,
            "share_settings": share,
            "description": spec.description,
        }
        self.future_reservation = gcp.compute.FutureReservation(
            f"{name}-future-reservation",
            **inputs,
            opts=pulumi.ResourceOptions(
                parent=self, protect=spec.protect_option, ignore_changes=["description"]
            ),
        )
        if reservation_name is not None:
            self.reservation_name = pulumi.Output.from_input(reservation_name)
        else:
            self.reservation_name = self.future_reservation.statuses.apply(_auto_created_name)
        self.start_time = pulumi.Output.from_input(start)
        self.end_time = end
        self.register_outputs(
            {
                "future_reservation_id": self.future_reservation.id,
                "reservation_name": self.reservation_name,
                "start_time": self.start_time,
                "end_time": self.end_time,
                "gpus": spec.gpus,
                "tpu_chips": spec.tpu_chips,
                "labels": self.labels,
            }
        )

    # ------------------------------------------------------------------ consumption
    def _reservation_ref(self, consumer_project: str | None) -> pulumi.Output[str]:
        """The reservation as ``consumer_project`` names it: the bare name in the owner's
        project, ``projects/OWNER/reservations/NAME`` in a project it is shared with."""
        if not consumer_project:
            return self.reservation_name
        if consumer_project == self.spec.project:
            return self.reservation_name
        if self.spec.project is not None:
            self._check_shared_with(consumer_project, self.spec.project)
            owner: pulumi.Input[str] = self.spec.project
        else:  # the provider's default project: known once the provider has checked it
            owner = self.future_reservation.project
        return pulumi.Output.all(owner, self.reservation_name).apply(
            lambda v: self._ref_from(consumer_project, v[0], v[1])
        )

    def _check_shared_with(self, consumer: str, owner: str) -> None:
        if consumer != owner and consumer not in self.spec.share_with:
            shared = ", ".join(self.spec.share_with) or "no project"
            raise DwsValidationError(
                "consumer_project",
                consumer,
                f"cannot consume the reservation of project {owner}: it is shared with "
                f"{shared}; add the project to share_with",
            )

    def _ref_from(self, consumer: str, owner: str | None, name: str) -> str:
        if not owner or consumer == owner:
            return name
        self._check_shared_with(consumer, owner)
        return f"projects/{owner}/reservations/{name}"

    def instance_reservation_affinity(self, consumer_project: str | None = None) -> dict[str, Any]:
        """``reservation_affinity`` for ``gcp.compute.Instance`` / instance templates.

        Give ``consumer_project`` when the VMs live in another project (one of ``share_with``):
        the reservation is then named ``projects/OWNER/reservations/NAME``.
        """
        return {
            "type": "SPECIFIC_RESERVATION",
            "specific_reservation": {
                "key": RESERVATION_NAME_KEY,
                "values": [self._reservation_ref(consumer_project)],
            },
        }

    def instance_scheduling(self) -> dict[str, Any]:
        """``scheduling`` for VMs bound to the reservation: they end when the window ends."""
        return {
            "provisioning_model": "RESERVATION_BOUND",
            "instance_termination_action": "DELETE",
            "on_host_maintenance": "TERMINATE",
            "automatic_restart": False,
        }

    def _consumer_machine(self, machine_type: str | None) -> str:
        """The machine type of the VMs that consume the reservation: the reserved GPU machine
        type, or (TPUs) a machine type of the reserved generation, which must be given."""
        generation = self.spec.tpu_generation
        if generation is None:
            assert self.spec.machine_type is not None
            if machine_type is not None and machine_type != self.spec.machine_type:
                raise DwsValidationError(
                    "machine_type",
                    machine_type,
                    f"does not match the reservation, which holds {self.spec.machine_type} VMs",
                )
            return self.spec.machine_type
        fits = [
            m
            for m in catalog.tpu_machines()
            if catalog.tpu_machine("m", m).generation == generation
        ]
        if machine_type is None or not catalog.is_tpu_machine(machine_type):
            raise DwsValidationError(
                "machine_type",
                machine_type or "(missing)",
                f"must be a {generation.title} machine type to consume TPU chips: one of "
                f"{', '.join(fits)}",
            )
        if catalog.tpu_machine("machine_type", machine_type).generation != generation:
            raise DwsValidationError(
                "machine_type",
                machine_type,
                f"does not match the reservation, which holds {generation.title} chips; use one "
                f"of {', '.join(fits)}",
            )
        return machine_type

    def instance_settings(
        self, consumer_project: str | None = None, *, machine_type: str | None = None
    ) -> dict[str, Any]:
        """Keyword arguments for ``gcp.compute.Instance`` (machine type, zone, affinity,
        scheduling). Templates take no zone: use :meth:`instance_template_settings`.

        For TPU chips give the TPU VM's ``machine_type`` (``ct6e-standard-4t`` for ``v6e``):
        a TPU VM in Compute Engine consumes the reservation as a GPU VM does."""
        return {
            "zone": self.spec.zone,
            **self.instance_template_settings(consumer_project, machine_type=machine_type),
        }

    def instance_template_settings(
        self, consumer_project: str | None = None, *, machine_type: str | None = None
    ) -> dict[str, Any]:
        """Keyword arguments for ``gcp.compute.InstanceTemplate`` / ``RegionInstanceTemplate``
        (no zone: the template's VMs must still be created in :attr:`spec` ``.zone``)."""
        return {
            "machine_type": self._consumer_machine(machine_type),
            "reservation_affinity": self.instance_reservation_affinity(consumer_project),
            "scheduling": self.instance_scheduling(),
        }

    def cloud_tpu_reservation(self, consumer_project: str | None = None) -> pulumi.Output[str]:
        """The reservation as the Cloud TPU API names it,
        ``projects/OWNER/locations/ZONE/reservations/NAME`` (what gcloud's ``--reservation``
        expands a short name to); ``consumer_project`` must be the owner or in ``share_with``."""
        if self.spec.project is not None:
            owner: pulumi.Input[str] = self.spec.project
        else:  # the provider's default project: known once the provider has checked it
            owner = self.future_reservation.project

        def name(values: list[Any]) -> str:
            project, zone, reservation = values
            if consumer_project:
                self._check_shared_with(consumer_project, project)
            return f"projects/{project}/locations/{zone}/reservations/{reservation}"

        return pulumi.Output.all(owner, self.spec.zone, self.reservation_name).apply(name)

    def queued_tpu_settings(
        self, accelerator_type: str, consumer_project: str | None = None
    ) -> dict[str, Any]:
        """Arguments of a Cloud TPU queued resource (``QueuedTpu``) that consumes the reserved
        chips: ``zone``, ``accelerator_type``, ``provisioning: "reservation_bound"`` (required
        for Calendar mode, https://docs.cloud.google.com/tpu/docs/consume-reservation) and the
        full ``reservation`` name. ``accelerator_type`` (``v6e-16``) must be of the reserved
        version and hold no more chips than reserved."""
        generation = self.spec.tpu_generation
        if generation is None:
            raise DwsValidationError(
                "accelerator_type",
                accelerator_type,
                "does not apply: this reservation holds GPU VMs, not TPU chips",
            )
        tpu = catalog.cloud_tpu_slice("accelerator_type", accelerator_type)
        if tpu.generation != generation:
            raise DwsValidationError(
                "accelerator_type",
                accelerator_type,
                f"does not match the reservation, which holds {generation.title} chips "
                f"(e.g. {generation.cloud_tpu_prefix}-{self.spec.tpu_chips})",
            )
        if tpu.chips > self.spec.tpu_chips:
            raise DwsValidationError(
                "accelerator_type",
                accelerator_type,
                f"needs {tpu.chips} chips; the reservation holds {self.spec.tpu_chips}",
            )
        return {
            "zone": self.spec.zone,
            "accelerator_type": accelerator_type,
            "provisioning": "reservation_bound",
            "reservation": self.cloud_tpu_reservation(consumer_project),
        }

    def gke_reservation_affinity(self, consumer_project: str | None = None) -> dict[str, Any]:
        """``node_config.reservation_affinity`` for a ``gcp.container.NodePool``."""
        return {
            "consume_reservation_type": "SPECIFIC_RESERVATION",
            "key": RESERVATION_NAME_KEY,
            "values": [self._reservation_ref(consumer_project)],
        }


def _validated_end(values: list[Any]) -> str:
    start, end = values
    if start and end:
        _check_window(start, end)
        return format_timestamp(parse_timestamp("end_time", end))
    return end


def _auto_created_name(statuses: Sequence[Any] | None) -> str:
    """The name of the first auto-created reservation ("" before Google delivers one).

    ``statuses`` are pulumi-gcp output objects (attribute access) or, from hand-built
    values, camelCase dicts."""
    for status in statuses or []:
        links = getattr(status, "auto_created_reservations", None)
        if links is None and isinstance(status, dict):
            links = status.get("autoCreatedReservations") or status.get("auto_created_reservations")
        for link in links or []:
            return str(link).rstrip("/").split("/")[-1]
    return ""
