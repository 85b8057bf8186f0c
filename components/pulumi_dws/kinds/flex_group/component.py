"""``FlexStartGroup``: N GPU VMs at once, all or nothing, through a managed instance group
(MIG) resize request queued in Google's Dynamic Workload Scheduler.

    group = FlexStartGroup("trainers", {
        "zone": "us-central1-a",          # or "region": "us-central1"
        "machine_type": "a3-highgpu-8g",
        "count": 4,
        "run_duration": "3d",
    })

Children (``parent=self``):

* ``<name>-template``: a pulumi-gcp ``gcp.compute.InstanceTemplate`` (zonal group) or
  ``RegionInstanceTemplate`` (regional group) with the VMs' shape, labels and metadata, and the
  scheduling ``gcloud beta compute instance-templates create`` sends for the provisioning model:
  Flex-start (``FLEX_START``, ``DELETE`` at the end, ``TERMINATE`` on maintenance, no restart,
  ``NO_RESERVATION``, max run duration = ``run_duration``) or reservation-bound
  (``RESERVATION_BOUND`` with ``SPECIFIC_RESERVATION`` affinity to the reservation).
* ``<name>-group``: a pulumi-gcp ``InstanceGroupManager`` / ``RegionInstanceGroupManager``
  created at target size 0 that only resize requests grow: no ``target_size`` input and
  ``ignore_changes=["targetSize"]`` (a later ``pulumi up`` never resizes it back and deletes the
  VMs), no autoscaler, repairs off (``DO_NOTHING``); regional groups take the
  ``ANY_SINGLE_ZONE`` target shape and no redistribution, as Google requires for resize
  requests.
* ``<name>-request``: a :class:`~pulumi_dws.kinds.flex_group.provider.MigResizeRequest` whose
  body is
  what ``gcloud beta compute instance-groups managed resize-requests create --resize-by=N
  --requested-run-duration=D`` sends, and which waits (``wait_for``) until Google accepted it
  or until the VMs run.

Replace, not add: a resize request cannot be changed, and deleting one leaves its VMs. So a new
``count`` or ``run_duration`` replaces the request (``delete_before_replace``): the running VMs
are deleted and a new all-or-nothing set of ``count`` VMs is requested. Deleting the component
deletes the VMs and the group.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Literal

import pulumi
import pulumi_gcp as gcp
from pydantic import model_validator
from typing_extensions import NotRequired, Required

from ...defaults import default_name, resolve_project, type_token
from ...duration import Duration, DurationLike
from ...errors import DwsValidationError
from ...fields import Check, DurationWithin, Known, MaybeOutput, Name, ProjectId, Within, Zone
from ...models import parse_args
from ...validation import check_name, check_region, is_output
from ...vm_settings import VmSettings, VmSettingsArgs, template_args
from ..calendar.component import CalendarReservation
from ..calendar.consumers import check_vm_consumer, reservation_spec
from . import limits as _rows  # noqa: F401 (registers this kind's limit rows)
from .provider import MigResizeRequest, resize_request_body

__all__ = [
    "FlexStartGroup",
    "FlexStartGroupArgs",
    "FlexStartGroupSpec",
    "FIXED_SETTINGS",
    "RESERVATION_NAME_KEY",
    "TYPE",
]

TYPE = type_token("FlexStartGroup")
RESERVATION_NAME_KEY = "compute.googleapis.com/reservation-name"

FIXED_SETTINGS: Mapping[str, str] = {
    "autoscaler": "a MIG that takes resize requests must not be autoscaled",
    "autoscaling": "a MIG that takes resize requests must not be autoscaled",
    "target_size": "the resize requests own the group's size (it starts at 0)",
    "default_action_on_failure": "repairs are off (DO_NOTHING), as resize requests require",
    "distribution_policy_target_shape": "regional groups use ANY_SINGLE_ZONE, the only shape "
    "resize requests support",
    "target_shape": "regional groups use ANY_SINGLE_ZONE, the only shape resize requests support",
    "distribution_policy_zones": "Google picks the zone (ANY_SINGLE_ZONE) where the whole set fits",
    "instance_redistribution_type": "regional groups never redistribute (NONE)",
    "update_policy": "fixed: no redistribution, opportunistic updates",
    "placement_policy": "Flex-start cannot be combined with a placement policy",
    "resource_policies": "no workload or placement policy with resize requests",
    "standby_policy": "the standby pool stays manual (Google's requirement)",
}
"""MIG settings a ``FlexStartGroup`` fixes as Google's resize-request docs require (see
``limits`` rows ``mig.*`` and the README's "FlexStartGroup" section); asking for one is refused
with the reason."""


class FlexStartGroupArgs(VmSettingsArgs, total=False):
    """Arguments of :class:`FlexStartGroup` (the VM settings of
    :class:`~pulumi_dws.vm_settings.VmSettingsArgs` included)."""

    zone: NotRequired[str | pulumi.Output[str]]
    """Zone of a zonal group (give ``zone`` or ``region``)."""
    region: NotRequired[str | pulumi.Output[str]]
    """Region of a regional group: Google places the whole set in one zone of it."""
    machine_type: Required[str]
    """A GPU machine type (``a3-highgpu-8g``), or any type plus ``accelerators``."""
    count: Required[int]
    """How many VMs the request adds, all at once (1 to 1000)."""
    run_duration: NotRequired[DurationLike]
    """How long the VMs run once created (10 minutes to 7 days); Google deletes them at the end.
    Required for Flex-start; optional with a reservation (the VMs then run until it ends)."""
    provisioning: NotRequired[Literal["flex_start", "reservation_bound"]]
    """``flex_start`` (default): capacity from DWS's Flex-start pool. ``reservation_bound``:
    consume ``reservation`` (a Calendar-mode reservation)."""
    reservation: NotRequired[CalendarReservation | str | pulumi.Output[str]]
    """The reservation to consume (``reservation_bound`` only): a :class:`CalendarReservation`
    or a name (``my-res`` or ``projects/OWNER/reservations/NAME``)."""
    wait_for: NotRequired[Literal["accepted", "running"]]
    """``running`` (default): the deployment waits until every VM runs. ``accepted``: it returns
    once Google queued the request."""
    project: NotRequired[str | pulumi.Output[str]]
    """Project (default: the ``gcp:project`` stack config)."""
    group_name: NotRequired[str]
    """Name of the managed instance group, its VMs' prefix and the request's name (default: the
    component's name)."""


def _fixed(data: Any) -> None:
    if not isinstance(data, Mapping):
        return
    for key, reason in FIXED_SETTINGS.items():
        if key in data:
            raise DwsValidationError(key, data[key], f"cannot be set: {reason}")


def _reservation(field: str, value: Any) -> Any:
    if reservation_spec(value) is not None or is_output(value):
        return value
    if isinstance(value, str) and value:
        name = value.rsplit("/", 1)[-1]
        if value != name and not value.startswith("projects/"):
            raise DwsValidationError(
                field, value, "must be a name or projects/OWNER/reservations/NAME"
            )
        check_name(field, name)
        return value
    raise DwsValidationError(field, value, "must be a CalendarReservation or a reservation name")


def _region(field: str, value: Any) -> str:
    return check_region(field, value)


class FlexStartGroupSpec(VmSettings):
    """Validated :class:`FlexStartGroupArgs` (also the ``dws:capacity`` config shape)."""

    zone: MaybeOutput[Zone] | None = None
    region: MaybeOutput[Annotated[str, Check(_region)]] | None = None
    machine_type: Annotated[str, Known("it decides the GPUs the group asks for")]
    count: Annotated[int, Within("mig.resize_by"), Known("it decides the VMs requested")]
    run_duration: Annotated[
        Annotated[Duration, DurationWithin("mig.requested_run_duration")] | None,
        Known("it is written into the resize request as it is built"),
    ] = None
    provisioning: Annotated[
        Literal["flex_start", "reservation_bound"],
        Known("it decides the template's provisioning model"),
    ] = "flex_start"
    reservation: Annotated[Any, Check(_reservation)] | None = None
    wait_for: Literal["accepted", "running"] = "running"
    project: MaybeOutput[ProjectId] | None = None
    group_name: Name | None = None

    @model_validator(mode="wrap")
    @classmethod
    def _rules(cls, data: Any, handler: Any) -> FlexStartGroupSpec:
        _fixed(data)
        spec: FlexStartGroupSpec = handler(data)
        spec.check_startup_script()
        spec.checked_machine(spec.machine_type)
        if (spec.zone is None) == (spec.region is None):
            given = "both" if spec.zone is not None else "neither"
            raise DwsValidationError(
                "zone", spec.zone or "(missing)", f"give zone or region, not {given}"
            )
        spec.check_subnetwork_in(zone=spec.zone, region=spec.region)
        if spec.provisioning == "flex_start":
            if spec.reservation is not None:
                raise DwsValidationError(
                    "reservation",
                    _shown(spec.reservation),
                    "cannot be used with provisioning flex_start (Flex-start VMs consume no "
                    "reservation); use provisioning reservation_bound",
                )
            if spec.run_duration is None:
                raise DwsValidationError(
                    "run_duration", "(missing)", "is required with provisioning flex_start"
                )
        else:
            if spec.reservation is None:
                raise DwsValidationError(
                    "reservation", "(missing)", "is required with provisioning reservation_bound"
                )
            check_vm_consumer(
                spec.reservation,
                machine_type=spec.machine_type,
                count=spec.count,
                zone=spec.zone,
                region=spec.region,
            )
        return spec

    # ------------------------------------------------------------------ derived values
    @property
    def regional(self) -> bool:
        return self.region is not None

    def scheduling(self) -> dict[str, Any]:
        """The template's ``scheduling`` (pulumi-gcp inputs)."""
        if self.provisioning == "reservation_bound":
            return {
                "provisioning_model": "RESERVATION_BOUND",
                "instance_termination_action": "DELETE",
                "automatic_restart": False,
                "on_host_maintenance": "TERMINATE",
            }
        assert self.run_duration is not None
        return {
            "provisioning_model": "FLEX_START",
            "max_run_duration": {"seconds": self.run_duration.seconds},
            "instance_termination_action": "DELETE",
            "automatic_restart": False,
            "on_host_maintenance": "TERMINATE",
        }

    def reservation_affinity(self, project: Any) -> dict[str, Any]:
        """The template's ``reservation_affinity`` (pulumi-gcp inputs)."""
        if self.provisioning == "flex_start":
            return {"type": "NO_RESERVATION"}
        if isinstance(self.reservation, CalendarReservation):
            consumer = project if isinstance(project, str) else None
            return self.reservation.instance_reservation_affinity(consumer)
        return {
            "type": "SPECIFIC_RESERVATION",
            "specific_reservation": {"key": RESERVATION_NAME_KEY, "values": [self.reservation]},
        }

    def request_body(self, name: str) -> dict[str, Any]:
        """The resize request, as ``gcloud beta compute instance-groups managed resize-requests
        create NAME --resize-by=N [--requested-run-duration=D]`` sends it (built by
        :func:`~pulumi_dws.kinds.flex_group.provider.resize_request_body`, the provider's
        builder)."""
        run = self.run_duration.seconds if self.run_duration is not None else None
        return resize_request_body(name, self.count, run)


def _shown(value: Any) -> Any:
    return getattr(value, "_name", value) if isinstance(value, CalendarReservation) else value


class FlexStartGroup(pulumi.ComponentResource):
    """``count`` GPU VMs at once through a MIG resize request (see the module docstring).

    Outputs (``pulumi.Output``): ``self_link`` (the group's), ``request_state`` (``ACCEPTED``,
    ``SUCCEEDED``, ``FAILED``, ``CANCELLED``, ``EXPIRED``...), ``instance_names`` (the VMs, once
    created), ``run_ends_at`` (RFC 3339, once they run), ``group_name``. Children:
    ``template``, ``group`` and ``request``; ``spec`` is the validated args.
    """

    self_link: pulumi.Output[str]
    """The managed instance group's URL."""
    request_state: pulumi.Output[str]
    """The resize request's state: ``ACCEPTED``, ``SUCCEEDED``, ``FAILED``, ``CANCELLED``..."""
    group_name: str
    """Name of the managed instance group (and the prefix of its VMs' names)."""

    def __init__(
        self,
        name: str,
        args: FlexStartGroupArgs,
        opts: pulumi.ResourceOptions | None = None,
    ) -> None:
        spec = parse_args(FlexStartGroupSpec, args)
        group_name = default_name("group_name", spec.group_name, name, check_name)
        super().__init__(TYPE, name, {}, opts)
        project = resolve_project(spec.project, self)
        self.spec = spec
        child = pulumi.ResourceOptions(parent=self)

        template_kwargs = template_args(
            spec,
            project=project,
            machine_type=spec.machine_type,
            scheduling=spec.scheduling(),
            reservation_affinity=spec.reservation_affinity(project),
            instance_settings=True,
        )
        group_kwargs: dict[str, Any] = {
            "project": project,
            "name": group_name,
            "base_instance_name": group_name,
            "instance_lifecycle_policy": {"default_action_on_failure": "DO_NOTHING"},
            "wait_for_instances": False,
        }
        group_opts = pulumi.ResourceOptions(parent=self, ignore_changes=["targetSize"])
        if spec.regional:
            self.template: pulumi.CustomResource = gcp.compute.RegionInstanceTemplate(
                f"{name}-template", region=spec.region, **template_kwargs, opts=child
            )
            group_kwargs["versions"] = [{"instance_template": self.template.self_link}]
            self.group: pulumi.CustomResource = gcp.compute.RegionInstanceGroupManager(
                f"{name}-group",
                region=spec.region,
                distribution_policy_target_shape="ANY_SINGLE_ZONE",
                update_policy={
                    "type": "OPPORTUNISTIC",
                    "minimal_action": "REPLACE",
                    "instance_redistribution_type": "NONE",
                    "max_surge_fixed": 0,
                },
                **group_kwargs,
                opts=group_opts,
            )
        else:
            self.template = gcp.compute.InstanceTemplate(
                f"{name}-template", **template_kwargs, opts=child
            )
            group_kwargs["versions"] = [{"instance_template": self.template.self_link}]
            self.group = gcp.compute.InstanceGroupManager(
                f"{name}-group", zone=spec.zone, **group_kwargs, opts=group_opts
            )

        self.request = MigResizeRequest(
            f"{name}-request",
            {
                "project": project,
                "zone": spec.zone,
                "region": spec.region,
                "group": self.group.name,
                "name": group_name,
                "body": spec.request_body(group_name),
                "waitFor": spec.wait_for,
            },
            pulumi.ResourceOptions(
                parent=self, depends_on=[self.group], delete_before_replace=True
            ),
        )
        self.self_link = self.group.self_link
        self.request_state = self.request.state  # type: ignore[attr-defined]
        self.group_name = group_name
        self.register_outputs({"group_name": group_name, "zone": spec.zone, "region": spec.region})

    def _observed(self, key: str) -> pulumi.Output[Any]:
        observed: pulumi.Output[Any] = self.request.observed  # type: ignore[attr-defined]
        return observed.apply(lambda value: (value or {}).get(key))

    @property
    def instance_names(self) -> pulumi.Output[list[str]]:
        """The VMs the request created (empty until they exist)."""
        return self._observed("instances").apply(lambda names: list(names or []))

    @property
    def run_ends_at(self) -> pulumi.Output[str | None]:
        """When Google deletes the VMs (RFC 3339), once they run."""
        return self._observed("runEndsAt")
