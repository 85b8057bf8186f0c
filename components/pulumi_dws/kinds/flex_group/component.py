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
from typing import Annotated, Any, Literal, cast

import pulumi
import pulumi_gcp as gcp
from pydantic import model_validator

from ... import catalog, limits
from ...defaults import resolve_project, stack_default_name, type_token
from ...duration import Duration
from ...errors import DwsValidationError
from ...fields import (
    Check,
    DurationWithin,
    Known,
    MaybeOutput,
    Name,
    ProjectId,
    Takes,
    Within,
    Zone,
    Zones,
)
from ...models import parse_args
from ...providers.ownership import OWNER_INPUT, owner_input
from ...queue_wait import OnTimeout, WaitTimeout, wait_policy
from ...validation import check_name, check_region, check_zone_in_region, is_output, region_of
from ...vm_settings import VmSettings, template_args
from ..calendar.component import CalendarReservation
from ..calendar.consumers import check_vm_consumer, reservation_spec
from ..flex_vm.shapes import fingerprint, shareable
from . import limits as _rows  # noqa: F401 (registers this kind's limit rows)
from .args import FlexStartGroupArgs, PlacementArgs
from .placement import PlacementSpec, check_placement, workload_policy
from .provider import MigResizeRequest, resize_request_body
from .shapes import TEMPLATE_TYPES, shared_group_template, template_path

__all__ = [
    "FlexStartGroup",
    "FlexStartGroupArgs",
    "FlexStartGroupSpec",
    "PlacementArgs",
    "FIXED_SETTINGS",
    "RESERVATION_NAME_KEY",
    "DEFAULT_ZONE_COUNT",
    "TYPE",
    "update_policy",
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
    "distribution_policy_zones": "list a regional group's zones with zones (Google picks the "
    "one, ANY_SINGLE_ZONE, where the whole set fits)",
    "instance_redistribution_type": "regional groups never redistribute (NONE)",
    "update_policy": "fixed: no redistribution, opportunistic updates, at most the group's "
    "zones unavailable (see update_policy())",
    "placement_policy": "Flex-start cannot be combined with a placement policy; workload "
    "policies go in placement",
    "resource_policies": "give the group's workload policy with placement",
    "standby_policy": "the standby pool stays manual (Google's requirement)",
}
"""MIG settings a ``FlexStartGroup`` fixes as Google's resize-request docs require (see
``limits`` rows ``mig.*`` and docs/flex-start-group.md); asking for one is refused
with the reason."""

DEFAULT_ZONE_COUNT = 3
"""The zones a regional group runs in when none are listed ("By default, a regional MIG
distributes its managed instances evenly across three zones", https://cloud.google.com/compute/
docs/instance-groups/regional-migs#zone_selection)."""


def update_policy(zones: int) -> dict[str, Any]:
    """A regional group's ``update_policy`` (pulumi-gcp inputs): opportunistic updates
    (``REPLACE`` when one is applied), no redistribution (``ANY_SINGLE_ZONE`` requires it), no
    surge (a Flex-start group holds exactly the VMs DWS gave it) and at most ``zones`` VMs
    unavailable during an update.

    pulumi-gcp sends both fixed values whenever ``update_policy`` is set (an unset one as 0:
    terraform-provider-google-beta ``expandRegionUpdatePolicy``, see
    :mod:`pulumi_dws.testing.gcp_rest`), and Google refuses ``maxSurge`` and ``maxUnavailable``
    both 0 ("At least one of either maxSurge or maxUnavailable must be greater than 0",
    Compute API ``InstanceGroupManagerUpdatePolicy``; pulumi-gcp docs: "Both cannot be 0"). A
    regional group's fixed value is 0 or at least its number of zones (terraform-provider-google
    docs before hashicorp/terraform-provider-google-beta@408062d1): ``zones`` is that number."""
    return {
        "type": "OPPORTUNISTIC",
        "minimal_action": "REPLACE",
        "instance_redistribution_type": "NONE",
        "max_surge_fixed": 0,
        "max_unavailable_fixed": zones,
    }


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
    """Arguments of :class:`FlexStartGroup` (the VM settings of
    :class:`~pulumi_dws.vm_settings.VmSettingsArgs` included)."""

    # The one declaration of each field: FlexStartGroupArgs is generated from it (python
    # scripts/generate.py). Also the shape of this kind's dws:capacity entries.

    zone: MaybeOutput[Zone] | None = None
    """Zone of a zonal group (give ``zone`` or ``region``)."""
    region: MaybeOutput[Annotated[str, Check(_region)]] | None = None
    """Region of a regional group: Google places the whole set in one zone of it."""
    zones: Annotated[Zones, Known("it decides the group's zones")] | None = None
    """A regional group's zones (default: three of the region's standard zones, Google's
    pick). A regional group never uses an AI zone (``us-central1-ai1a``) unless it is listed;
    with ``gpu_network``, list the network's zone (RDMA networks are zonal)."""
    machine_type: Annotated[str, Known("it decides the GPUs the group asks for")]
    """A GPU machine type (``a3-highgpu-8g``), H4D, or any type plus ``accelerators``."""
    count: Annotated[int, Within("mig.resize_by"), Known("it decides the VMs requested")]
    """How many VMs the request adds, all at once (1 to 1000; 2000 for a regional group)."""
    placement: PlacementSpec | None = None
    """The group's workload policy (A4X Max, A4X, A4, A3 Ultra, A3 Mega, A3 High 8-GPU, H4D):
    ``{"max_topology_distance": "BLOCK"}``, ``{"accelerator_topology": "1x72"}`` (required for
    A4X groups of more than one VM), or ``{"policy": <existing policy>}``."""
    run_duration: Annotated[
        Annotated[Duration, DurationWithin("mig.requested_run_duration")] | None,
        Known("it is written into the resize request as it is built"),
    ] = None
    """How long the VMs run once created (10 minutes to 7 days); Google deletes them at the end.
    Required for Flex-start; optional with a reservation (the VMs then run until it ends)."""
    provisioning: Annotated[
        Literal["flex_start", "reservation_bound"],
        Known("it decides the template's provisioning model"),
    ] = "flex_start"
    """``flex_start`` (default): capacity from DWS's Flex-start pool. ``reservation_bound``:
    consume ``reservation`` (a Calendar-mode reservation). A4X and A4X Max groups are
    reservation-bound only, and created at their size (Google takes no resize request for
    them)."""
    reservation: (
        MaybeOutput[Annotated[Any, Check(_reservation), Takes(CalendarReservation | str)]] | None
    ) = None
    """The reservation to consume (``reservation_bound`` only): a :class:`CalendarReservation`
    or a name (``my-res`` or ``projects/OWNER/reservations/NAME``)."""
    wait_for: Literal["accepted", "running"] = "running"
    """``running`` (default): the deployment waits until every VM runs. ``accepted``: it returns
    once Google queued the request."""
    wait_timeout: WaitTimeout | None = None
    """How long the deployment waits for ``wait_for`` (default 2h10m for ``running``, 15m for
    ``accepted``); see ``on_timeout``."""
    on_timeout: OnTimeout | None = None
    """When ``wait_timeout`` passes with the request still queued: ``keep`` (default: the
    deployment succeeds with the request's true state, warns, and ``pulumi refresh`` follows
    it; DWS keeps it queued until capacity and quota exist) or ``cancel`` (cancelled and
    deleted)."""
    project: MaybeOutput[ProjectId] | None = None
    """Project (default: the ``gcp:project`` stack config)."""
    group_name: Name | None = None
    """Name of the managed instance group, its VMs' prefix and the request's name (default: the
    component's name)."""

    def wait_policy(self) -> dict[str, Any]:
        """The request's ``waitTimeout``/``onTimeout`` inputs (only those given)."""
        return wait_policy(self.wait_timeout, self.on_timeout)

    @model_validator(mode="wrap")
    @classmethod
    def _rules(cls, data: Any, handler: Any) -> FlexStartGroupSpec:
        _fixed(data)
        spec: FlexStartGroupSpec = handler(data)
        spec.check_startup_script()
        spec.checked_machine(spec.machine_type, flex_start=spec.provisioning == "flex_start")
        if (spec.zone is None) == (spec.region is None):
            given = "both" if spec.zone is not None else "neither"
            raise DwsValidationError(
                "zone", spec.zone or "(missing)", f"give zone or region, not {given}"
            )
        size = "mig.regional_group_size" if spec.regional else "mig.zonal_group_size"
        limits.get(size).check("count", spec.count)
        spec._check_zones()
        spec._check_series()
        spec.check_gpu_network(spec.machine_type)
        spec._check_network_zone()
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

    def _check_zones(self) -> None:
        if self.zones is None:
            return
        if not self.regional:
            raise DwsValidationError(
                "zones",
                self.zones,
                "is for regional groups (give region); a zonal group's zone is zone",
            )
        region: Any = self.region  # an Output: checked once known
        for i, zone in enumerate(self.zones):
            check_zone_in_region(f"zones[{i}]", zone, region)
            if zone in self.zones[:i]:
                raise DwsValidationError(f"zones[{i}]", zone, "is listed twice")

    def _check_series(self) -> None:
        series = catalog.series_of(self.machine_type)
        if series is not None and not series.resize_requests and self.run_duration is not None:
            raise DwsValidationError(
                "run_duration",
                self.run_duration.human(),
                f"can't be given for {series.name}: Google takes no resize request for "
                f"{series.name} groups, so the group is created at its size and its VMs run "
                f"until the reservation ends ({catalog.series.A4X_MIG_SOURCE})",
            )
        check_placement(self.placement, self.machine_type, self.count, self.gpus_per_vm)

    def _check_network_zone(self) -> None:
        network = self.gpu_network
        if network is None:
            return
        if not self.regional:
            network.check_zone("zone", self.zone)
            return
        if self.zones is None or network.zone not in self.zones:
            raise DwsValidationError(
                "zones",
                self.zones or "(missing)",
                f"must list {network.zone}, the zone of gpu_network {network._name}: RDMA "
                "networks are zonal, and a regional group creates its VMs only in the zone of "
                f"its network's profile ({catalog.series.A4X_MIG_SOURCE})",
            )

    # ------------------------------------------------------------------ derived values
    @property
    def regional(self) -> bool:
        return self.region is not None

    @property
    def gpus_per_vm(self) -> int:
        """GPUs of one VM: the machine type's, or the attached ones (0 for H4D)."""
        if self.accelerators:
            return sum(a.count for a in self.accelerators)
        if self.machine_type in catalog.known():
            return catalog.machine_shape("machine_type", self.machine_type).gpus
        return 0

    @property
    def takes_resize_requests(self) -> bool:
        """False for A4X and A4X Max: the group is created at its size instead."""
        series = catalog.series_of(self.machine_type)
        return series is None or series.resize_requests

    @property
    def zone_count(self) -> int:
        """The zones a regional group runs in: the listed ones, else Google's three."""
        return len(self.zones) if self.zones else DEFAULT_ZONE_COUNT

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
    ``SUCCEEDED``, ``FAILED``, ``CANCELLED``, ``EXPIRED``...; None for a group created at its
    size), ``instance_names`` (the VMs, once created), ``run_ends_at`` (RFC 3339, once they
    run), ``group_name``. Children: ``template``, ``group`` and ``request`` (None for A4X: the
    group is created at its size); ``policy`` is the workload policy declared for it (shared by
    the program's groups that ask for the same one; None without ``placement`` or with an
    existing policy); ``spec`` is the validated args.
    """

    self_link: pulumi.Output[str]
    """The managed instance group's URL."""
    request_state: pulumi.Output[str | None]
    """The resize request's state: ``ACCEPTED``, ``SUCCEEDED``, ``FAILED``, ``CANCELLED``...;
    empty (None) for a group created at its size (A4X on a reservation)."""
    group_name: str
    """Name of the managed instance group (and the prefix of its VMs' names)."""

    def __init__(
        self,
        name: str,
        args: FlexStartGroupArgs,
        opts: pulumi.ResourceOptions | None = None,
    ) -> None:
        spec = parse_args(FlexStartGroupSpec, args)
        named = stack_default_name("group_name", spec.group_name, name, check_name)
        group_name = named.value
        super().__init__(TYPE, name, {}, opts)
        project = resolve_project(spec.project, self)
        self.spec = spec

        template_kwargs = template_args(
            spec,
            project=project,
            machine_type=spec.machine_type,
            scheduling=spec.scheduling(),
            reservation_affinity=spec.reservation_affinity(project),
            instance_settings=True,
        )
        sized = not spec.takes_resize_requests  # A4X: the group is created at its size
        group_kwargs: dict[str, Any] = {
            "project": project,
            "name": group_name,
            "base_instance_name": group_name,
            "instance_lifecycle_policy": {"default_action_on_failure": "DO_NOTHING"},
            "wait_for_instances": sized and spec.wait_for == "running",
        }
        if sized:
            group_kwargs["target_size"] = spec.count
        self.policy: pulumi.CustomResource | None = None
        if spec.placement is not None:
            zone: Any = spec.zone
            region = spec.region if spec.regional else region_of(zone)
            self.policy, policy_link = workload_policy(
                spec.placement, project=project, region=region, component=self, opts=opts
            )
            group_kwargs["resource_policies"] = {"workload_policy": policy_link}
        kept = named.kept("name", "baseInstanceName")  # a group made with an earlier default
        group_opts = pulumi.ResourceOptions(
            parent=self, ignore_changes=kept if sized else ["targetSize", *kept]
        )
        self.template, link = self._template(name, template_kwargs, project, opts)
        group_kwargs["versions"] = [{"instance_template": link}]
        if spec.regional:
            if spec.zones:
                group_kwargs["distribution_policy_zones"] = list(spec.zones)
            self.group: pulumi.CustomResource = gcp.compute.RegionInstanceGroupManager(
                f"{name}-group",
                region=spec.region,
                distribution_policy_target_shape="ANY_SINGLE_ZONE",
                update_policy=cast(Any, update_policy(spec.zone_count)),
                **group_kwargs,
                opts=group_opts,
            )
        else:
            self.group = gcp.compute.InstanceGroupManager(
                f"{name}-group", zone=spec.zone, **group_kwargs, opts=group_opts
            )

        self.request: pulumi.CustomResource | None = None
        if not sized:
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
                    **spec.wait_policy(),
                    OWNER_INPUT: owner_input(f"{name}-request"),
                },
                # The request names self.group.name: it depends on the group through it.
                pulumi.ResourceOptions(
                    parent=self,
                    delete_before_replace=True,
                    ignore_changes=named.kept("name", "body.name"),
                ),
            )
        self.self_link = self.group.self_link
        self.request_state = (
            self.request.state  # type: ignore[attr-defined]
            if self.request is not None
            else pulumi.Output.from_input(None)
        )
        self.group_name = group_name
        """The group's name as asked for (the stack's default, unless given); a group made before
        defaults carried the stack keeps its own name: ``self.group.name`` is always the one
        it has."""
        shown: Any = self.group.name if named.defaulted else group_name
        self.register_outputs({"group_name": shown, "zone": spec.zone, "region": spec.region})

    def _template(
        self,
        name: str,
        inputs: dict[str, Any],
        project: Any,
        opts: pulumi.ResourceOptions | None,
    ) -> tuple[pulumi.CustomResource, Any]:
        """The group's template and the link its version names: a template shared by the
        program's groups of one shape (:mod:`.shapes`), or a ``<name>-template`` child."""
        spec = self.spec
        region = spec.region if spec.regional else None
        given = {**inputs, **({"region": region} if region else {})}
        typ = TEMPLATE_TYPES[1] if region else TEMPLATE_TYPES[0]
        provider = self.get_provider(typ)
        shape = (
            fingerprint({"type": typ, **given}, provider)
            if shareable(self, opts) and isinstance(project, str)
            else None
        )
        if shape is not None:
            template = shared_group_template(shape, given, provider)
            where = region if isinstance(region, str) else None  # plain: it has a fingerprint
            return template, template_path(template, project, where)
        child = pulumi.ResourceOptions(parent=self)
        if region:
            made: pulumi.CustomResource = gcp.compute.RegionInstanceTemplate(
                f"{name}-template", **given, opts=child
            )
        else:
            made = gcp.compute.InstanceTemplate(f"{name}-template", **given, opts=child)
        return made, made.self_link  # type: ignore[attr-defined]

    def _observed(self, key: str) -> pulumi.Output[Any]:
        if self.request is None:
            return pulumi.Output.from_input(None)
        observed: pulumi.Output[Any] = self.request.observed  # type: ignore[attr-defined]
        return observed.apply(lambda value: (value or {}).get(key))

    @property
    def instance_names(self) -> pulumi.Output[list[str]]:
        """The VMs the request created (empty until they exist; empty for a group created at
        its size, whose VMs the group manages)."""
        return self._observed("instances").apply(lambda names: list(names or []))

    @property
    def run_ends_at(self) -> pulumi.Output[str | None]:
        """When Google deletes the VMs (RFC 3339), once they run (None without a request)."""
        return self._observed("runEndsAt")
