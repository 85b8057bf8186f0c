"""The rules Google documents for managed instance groups and their resize requests, each with
its source (see :mod:`pulumi_dws.testing.emulator.rules`).

A group's create request (:data:`GROUP_RULES`, on a :class:`NewGroup`):

* a Flex-start group starts empty; a group holds at most the VMs of its limits row
  (``mig.zonal_group_size``, ``mig.regional_group_size``);
* update policy: ``maxSurge`` and ``maxUnavailable`` are not both 0; a percentage needs a group
  of 10 VMs or more (the discovery document, :data:`UPDATE`); a regional group's fixed value is
  0 or at least its number of zones (:data:`UPDATE_ZONES`);
* redistribution: a regional group whose target shape is ``BALANCED`` or ``ANY_SINGLE_ZONE``
  does not redistribute proactively (:data:`SHAPE`);
* zones: only a regional group has a distribution policy; its listed zones are zones of its
  region (AI zones included, only when listed; unlisted, three standard zones: :data:`ZONES`);
* workload policies: the policy the group names exists in its region, is a ``HIGH_THROUGHPUT``
  workload policy, and only the series Google documents take one, each with the property of
  its series (:data:`~pulumi_dws.catalog.series.WORKLOAD_POLICY_SOURCE`); A4X / A4X Max groups
  are reservation-bound, and more than one VM of them needs a workload policy
  (:data:`~pulumi_dws.catalog.series.A4X_MIG_SOURCE`).

A group's resize request (:data:`REQUEST_RULES`): repairs off, ``ANY_SINGLE_ZONE`` for a
regional group, and no A4X / A4X Max group (they take none).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from .... import catalog, limits, regions
from ....catalog.series import A4X_MIG_SOURCE, WORKLOAD_POLICY_SOURCE
from ..base import GoogleError
from ..rules import Rules
from .common import last

__all__ = [
    "ABOUT_RESIZE_REQUESTS",
    "DEFAULT_ZONES",
    "GROUP_RULES",
    "GROUP_SIZE_ROWS",
    "NewGroup",
    "REQUEST_RULES",
    "SHAPE",
    "TakingRequests",
    "UPDATE",
    "UPDATE_ZONES",
    "ZONES",
    "flex_start",
]

ABOUT_RESIZE_REQUESTS = (
    "https://docs.cloud.google.com/compute/docs/instance-groups/about-resize-requests-mig"
)
AI_OPTIMIZED_MIG = (
    "https://docs.cloud.google.com/ai-hypercomputer/docs/create/create-mig-with-a4-or-a3ultra"
)
UPDATE = (
    "Compute discovery document (20261106), InstanceGroupManagerUpdatePolicy.maxSurge / "
    "maxUnavailable: 'At least one of either maxSurge or maxUnavailable must be greater than "
    "0'; a percentage only 'if the group has 10 or more instances'"
)
UPDATE_ZONES = (
    "https://github.com/hashicorp/terraform-provider-google-beta/blob/"
    "408062d1387498971b1bc395b23dee28a9f1e635%5E/website/docs/r/"
    "compute_region_instance_group_manager.html.markdown (max_surge_fixed, "
    "max_unavailable_fixed: 'It has to be either 0 or at least equal to the number of zones'; "
    "the docs since 408062d1 say only 'Both cannot be 0': the emulator keeps the older, "
    "stricter words)"
)
SHAPE = (
    "https://cloud.google.com/compute/docs/instance-groups/regional-mig-set-target-distribution-"
    "shape (Limitations: 'To set the target distribution shape to BALANCED or ANY_SINGLE_ZONE, "
    "you must disable proactive instance redistribution')"
)
ZONES = (
    "Compute discovery document, DistributionPolicy.zones ('a regional MIG doesn't "
    "automatically select an AI zone ... you must explicitly specify it'); "
    "https://cloud.google.com/compute/docs/instance-groups/regional-migs (by default a regional "
    "group uses three zones of its region); https://docs.cloud.google.com/ai-hypercomputer/"
    "docs/ai-zones"
)
GROUP_SIZE = (
    "Compute discovery document, InstanceGroupManager (a zonal group holds up to 1000 VMs, a "
    "regional one 2000); https://cloud.google.com/compute/docs/instance-groups/regional-migs"
)
DEFAULT_ZONES = 3
"""How many of its region's zones a regional group uses when it lists none."""
GROUP_SIZE_ROWS = {"zones": "mig.zonal_group_size", "regions": "mig.regional_group_size"}
"""The limits row that bounds a group's size, by scope kind."""


def flex_start(properties: dict[str, Any]) -> bool:
    """Whether a template's properties use the ``FLEX_START`` provisioning model."""
    return (properties.get("scheduling") or {}).get("provisioningModel") == "FLEX_START"


@dataclass(frozen=True)
class NewGroup:
    """An ``instanceGroupManagers.insert`` body with its template's properties, where it is
    made (``scope``: ``zones/<z>`` or ``regions/<r>``; ``path``) and the workload policy it
    names as the resource policy store found it (None: none found)."""

    body: dict[str, Any]
    properties: dict[str, Any]
    scope: str = "zones/-"
    path: str = ""
    policy: Mapping[str, Any] | None = None

    @property
    def size(self) -> int:
        return int(self.body.get("targetSize") or 0)

    @property
    def regional(self) -> bool:
        return self.scope.startswith("regions/")

    @property
    def region(self) -> str:
        place = self.scope.split("/", 1)[1]
        return place if self.regional else place.rsplit("-", 1)[0]

    @property
    def machine_type(self) -> str:
        return last(str(self.properties.get("machineType") or ""))

    @property
    def policy_link(self) -> str:
        """The workload policy the group names (empty: none)."""
        return str((self.body.get("resourcePolicies") or {}).get("workloadPolicy") or "")

    @property
    def listed_zones(self) -> list[str]:
        policy = self.body.get("distributionPolicy") or {}
        return [last(str((z or {}).get("zone") or "")) for z in policy.get("zones") or []]

    @cached_property
    def zones(self) -> list[str]:
        """The zones it places VMs in: a zonal group's own; a regional group's listed ones,
        else :data:`DEFAULT_ZONES` standard zones of its region."""
        place = self.scope.split("/", 1)[1]
        if not self.regional:
            return [place]
        return self.listed_zones or regions.zones_of(place)[:DEFAULT_ZONES]


def _bad(message: str) -> GoogleError:
    return GoogleError(400, message, "invalid")


def _fixed_or_percent(spec: Any) -> tuple[str, int] | None:
    """``("fixed"|"percent", n)`` of a FixedOrPercent, or None when it is absent/all null."""
    if not isinstance(spec, Mapping):
        return None
    for kind in ("fixed", "percent"):
        if spec.get(kind) is not None:
            return kind, int(spec[kind])
    return None


def _surge_and_unavailable(new: NewGroup) -> list[tuple[str, tuple[str, int]]]:
    policy = new.body.get("updatePolicy") or {}
    default = ("fixed", len(new.zones) if new.regional else 1)  # Google's default
    return [
        (field, _fixed_or_percent(policy.get(field)) or default)
        for field in ("maxSurge", "maxUnavailable")
    ]


GROUP_RULES: Rules[NewGroup] = Rules("compute.instanceGroupManagers.insert")


@GROUP_RULES.rule(f"{ABOUT_RESIZE_REQUESTS} (a Flex-start MIG is created with a target size of 0)")
def flex_start_groups_start_empty(new: NewGroup) -> None:
    """A group of Flex-start VMs grows only through resize requests."""
    if new.size and flex_start(new.properties):
        raise GoogleError(
            400,
            "Invalid value for field 'resource.targetSize': "
            f"{new.size}. A group whose instance template uses the FLEX_START provisioning "
            "model must be created with targetSize 0; add VMs with resize requests.",
            "invalid",
        )


@GROUP_RULES.rule(GROUP_SIZE)
def groups_hold_what_their_scope_allows(new: NewGroup) -> None:
    """A zonal group holds up to 1000 VMs, a regional one 2000 (the limits rows)."""
    row = limits.get(GROUP_SIZE_ROWS[new.scope.split("/", 1)[0]])
    if row.maximum is not None and new.size > row.maximum:
        raise _bad(
            f"Invalid value for field 'resource.targetSize': {new.size}. Allowed: {row.allowed()}."
        )


@GROUP_RULES.rule(UPDATE)
def updates_may_surge_or_lose_a_vm(new: NewGroup) -> None:
    """``maxSurge`` and ``maxUnavailable`` are not both 0."""
    values = _surge_and_unavailable(new)
    if all(number == 0 for _, (_, number) in values):
        raise _bad(
            f"Invalid value for field 'resource.updatePolicy': '{new.path}' has maxSurge and "
            f"maxUnavailable both 0; at least one of them must be greater than 0 ({UPDATE})."
        )


@GROUP_RULES.rule(UPDATE)
def update_percentages_need_ten_vms(new: NewGroup) -> None:
    """A percentage needs a group of 10 VMs or more."""
    for field, (kind, number) in _surge_and_unavailable(new):
        if kind == "percent" and new.size < 10:
            raise _bad(
                f"Invalid value for field 'resource.updatePolicy.{field}.percent': {number}. A "
                f"percentage needs a group of 10 or more instances ({UPDATE})."
            )


@GROUP_RULES.rule(UPDATE_ZONES)
def regional_fixed_values_cover_the_zones(new: NewGroup) -> None:
    """A regional group's fixed ``maxSurge`` / ``maxUnavailable`` is 0 or at least its number
    of zones."""
    zones = len(new.zones)
    for field, (kind, number) in _surge_and_unavailable(new):
        if kind == "fixed" and new.regional and 0 < number < zones:
            raise _bad(
                f"Invalid value for field 'resource.updatePolicy.{field}.fixed': {number}. A "
                f"regional group's fixed {field} is 0 or at least its {zones} zones "
                f"({UPDATE_ZONES})."
            )


@GROUP_RULES.rule(SHAPE)
def one_zone_shapes_do_not_redistribute(new: NewGroup) -> None:
    """``BALANCED`` and ``ANY_SINGLE_ZONE`` need proactive redistribution off."""
    if not new.regional:
        return
    shape = (new.body.get("distributionPolicy") or {}).get("targetShape") or "EVEN"
    redistribution = (new.body.get("updatePolicy") or {}).get("instanceRedistributionType")
    if shape in ("BALANCED", "ANY_SINGLE_ZONE") and (redistribution or "PROACTIVE") != "NONE":
        raise _bad(
            "Invalid value for field 'resource.updatePolicy.instanceRedistributionType': "
            f"'{redistribution or 'PROACTIVE (default)'}'. '{new.path}' has target shape {shape}, "
            f"which needs proactive redistribution off (NONE) ({SHAPE})."
        )


@GROUP_RULES.rule(ZONES)
def listed_zones_are_the_regions(new: NewGroup) -> None:
    """Only a regional group has a distribution policy; the zones it lists are zones of its
    region (an AI zone only when listed), each once."""
    if not new.regional:
        if new.body.get("distributionPolicy"):
            raise _bad(
                "Invalid value for field 'resource.distributionPolicy': a zonal group has no "
                "distribution policy (it is for regional groups)."
            )
        return
    seen: set[str] = set()
    for i, zone in enumerate(new.listed_zones):
        field = f"resource.distributionPolicy.zones[{i}].zone"
        if not regions.is_zone(zone):
            raise _bad(f"Invalid value for field '{field}': '{zone}'. Unknown zone.")
        if regions.region_of_zone(zone) != new.region:
            raise _bad(
                f"Invalid value for field '{field}': '{zone}'. The zone is not in the group's "
                f"region {new.region}."
            )
        if zone in seen:
            raise _bad(f"Invalid value for field '{field}': '{zone}' is listed twice.")
        seen.add(zone)


@GROUP_RULES.rule(WORKLOAD_POLICY_SOURCE)
def workload_policies_suit_the_series(new: NewGroup) -> None:
    """The workload policy the group names exists in its region, is a ``HIGH_THROUGHPUT``
    workload policy, and only the documented series take one, each with its property."""
    link = new.policy_link
    if not link:
        return
    policy = new.policy
    if policy is None:
        raise GoogleError(
            404, f"The resource '{link}' was not found (resourcePolicies.workloadPolicy).",
            "notFound",
        )  # fmt: skip
    field = "resource.resourcePolicies.workloadPolicy"
    if last(str(policy.get("region") or "")) != new.region:
        raise _bad(
            f"Invalid value for field '{field}': '{link}'. The policy is not in the group's "
            f"region {new.region}."
        )
    workload = policy.get("workloadPolicy")
    if not isinstance(workload, Mapping):
        raise _bad(f"Invalid value for field '{field}': '{link}' is not a workload policy.")
    series = catalog.series_of(new.machine_type)
    if series is None or series.workload_policy is None:
        raise _bad(
            f"Workload policies can't be used with machine type {new.machine_type}: they are "
            f"for A4X Max, A4X, A4, A3 Ultra, A3 Mega, A3 High (8 GPUs) and H4D "
            f"({WORKLOAD_POLICY_SOURCE})."
        )
    if workload.get("type") != "HIGH_THROUGHPUT":
        raise _bad(
            f"Workload policy '{link}' has type {workload.get('type')}; a MIG takes only "
            f"HIGH_THROUGHPUT ({WORKLOAD_POLICY_SOURCE})."
        )
    topology = series.workload_policy == "accelerator_topology"
    wanted = "acceleratorTopology" if topology else "maxTopologyDistance"
    other = "maxTopologyDistance" if topology else "acceleratorTopology"
    if workload.get(other):
        raise _bad(
            f"Workload policy '{link}' sets {other}; {series.name} VMs take {wanted} "
            f"({WORKLOAD_POLICY_SOURCE})."
        )


@GROUP_RULES.rule(f"{A4X_MIG_SOURCE}; {WORKLOAD_POLICY_SOURCE}")
def a4x_groups_are_reservation_bound_blocks(new: NewGroup) -> None:
    """A4X / A4X Max groups use reservation-bound VMs only, and more than one VM of them
    needs a workload policy."""
    series = catalog.series_of(new.machine_type)
    if series is None or series.resize_requests:
        return
    model = (new.properties.get("scheduling") or {}).get("provisioningModel")
    if model != "RESERVATION_BOUND":
        raise _bad(
            f"'{new.path}': {series.name} groups use the RESERVATION_BOUND provisioning model "
            f"only (the template has {model or 'STANDARD'}) ({A4X_MIG_SOURCE})."
        )
    if new.size > 1 and not new.policy_link:
        raise _bad(
            f"'{new.path}': a group of {new.size} {series.name} VMs needs a workload policy "
            f"with an accelerator topology ({WORKLOAD_POLICY_SOURCE})."
        )


@dataclass(frozen=True)
class TakingRequests:
    """A group about to take a resize request: its path, its API resource, its template's
    properties and whether it is regional."""

    path: str
    resource: dict[str, Any]
    properties: dict[str, Any]
    regional: bool


REQUEST_RULES: Rules[TakingRequests] = Rules("compute.instanceGroupManagerResizeRequests.insert")


@REQUEST_RULES.rule(f"{AI_OPTIMIZED_MIG} (repairs off); {ABOUT_RESIZE_REQUESTS} (limitations)")
def no_repairs_under_flex_start(group: TakingRequests) -> None:
    """A Flex-start group that takes resize requests does not repair its VMs."""
    action = (group.resource.get("instanceLifecyclePolicy") or {}).get("defaultActionOnFailure")
    if flex_start(group.properties) and action != "DO_NOTHING":
        raise GoogleError(
            400,
            f"'{group.path}' repairs its VMs (instanceLifecyclePolicy.defaultActionOnFailure "
            f"is {action or 'REPAIR'}): turn repairs off (DO_NOTHING) to use resize requests.",
            "invalid",
        )


@REQUEST_RULES.rule(f"{AI_OPTIMIZED_MIG} (a regional MIG supports only ANY_SINGLE_ZONE)")
def regional_groups_use_one_zone(group: TakingRequests) -> None:
    """A regional group takes resize requests only with the ``ANY_SINGLE_ZONE`` shape."""
    shape = (group.resource.get("distributionPolicy") or {}).get("targetShape") or "EVEN"
    if group.regional and shape != "ANY_SINGLE_ZONE":
        raise GoogleError(
            400,
            f"'{group.path}' has distributionPolicy.targetShape {shape}: a regional group "
            "takes resize requests only with ANY_SINGLE_ZONE.",
            "invalid",
        )


@REQUEST_RULES.rule(A4X_MIG_SOURCE)
def a4x_groups_take_no_resize_requests(group: TakingRequests) -> None:
    """A4X / A4X Max groups take no resize requests: their size is their target size."""
    series = catalog.series_of(last(str(group.properties.get("machineType") or "")))
    if series is not None and not series.resize_requests:
        raise _bad(
            f"'{group.path}' runs {series.name} VMs: add them by setting the group's target "
            f"size, not with a resize request ({A4X_MIG_SOURCE})."
        )
