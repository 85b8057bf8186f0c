"""The rules Google documents for a managed instance group's create request, as the emulated
Compute Engine enforces them (each with the page it comes from); a broken rule is Google's 400.

* Update policy: ``maxSurge`` and ``maxUnavailable`` may not both be 0 (UPDATE); a regional
  group's fixed value is 0 or at least its number of zones (UPDATE_ZONES); a percent needs a
  group of 10 VMs or more (UPDATE).
* Redistribution: a regional group whose target shape is ``BALANCED`` or ``ANY_SINGLE_ZONE``
  must not redistribute proactively (SHAPE).
* Target shape and zones: only a regional group has a distribution policy; its zones are zones
  of its region the emulator knows (:mod:`pulumi_dws.regions`, AI zones included only when
  listed: REGIONAL); unlisted, the group uses three standard zones of the region (REGIONAL).
* Workload policies: the policy exists in the group's region and has a ``workloadPolicy``;
  only the series Google documents take one, with the property of their series, and a group
  of more than one A4X / A4X Max VM needs one (WP); A4X / A4X Max groups are
  reservation-bound only and take no resize requests (A4X).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .... import catalog, regions
from ....catalog.series import A4X_MIG_SOURCE, WORKLOAD_POLICY_SOURCE
from ..base import GoogleError
from .common import last

__all__ = [
    "UPDATE",
    "UPDATE_ZONES",
    "SHAPE",
    "REGIONAL",
    "check_update_policy",
    "check_distribution",
    "check_workload_policy",
    "check_series",
    "check_resize_requests_allowed",
    "DEFAULT_ZONES",
]

UPDATE = (
    "Compute API InstanceGroupManagerUpdatePolicy.maxSurge / maxUnavailable (discovery "
    "20261106): 'At least one of either maxSurge or maxUnavailable must be greater than 0'; a "
    "percentage only 'if the group has 10 or more instances'"
)
UPDATE_ZONES = (
    "terraform-provider-google docs for max_surge_fixed / max_unavailable_fixed before "
    "hashicorp/terraform-provider-google-beta@408062d1: 'It has to be either 0 or at least "
    "equal to the number of zones' (the docs since say only 'Both cannot be 0')"
)
SHAPE = (
    "https://cloud.google.com/compute/docs/instance-groups/regional-mig-set-target-distribution-"
    "shape (Limitations: 'To set the target distribution shape to BALANCED or ANY_SINGLE_ZONE, "
    "you must disable proactive instance redistribution')"
)
REGIONAL = (
    "Compute API DistributionPolicy.zones: 'a regional MIG doesn't automatically select an AI "
    "zone ... you must explicitly specify it'; https://cloud.google.com/compute/docs/instance-"
    "groups/regional-migs: by default the group uses three zones of the region"
)
DEFAULT_ZONES = 3


def _bad(message: str) -> GoogleError:
    return GoogleError(400, message, "invalid")


def _value(spec: Any) -> tuple[str, int] | None:
    """``("fixed"|"percent", n)`` of a FixedOrPercent, or None when it is absent/all null."""
    if not isinstance(spec, Mapping):
        return None
    for kind in ("fixed", "percent"):
        if spec.get(kind) is not None:
            return kind, int(spec[kind])
    return None


def check_update_policy(
    policy: Any, *, regional: bool, zones: int, target_size: int, where: str
) -> None:
    """The update policy's surge and unavailability (UPDATE, UPDATE_ZONES) and, for a regional
    group, its redistribution (checked by :func:`check_distribution`)."""
    policy = policy if isinstance(policy, Mapping) else {}
    default = ("fixed", zones if regional else 1)  # Google's default: the number of zones
    surge = _value(policy.get("maxSurge")) or default
    unavailable = _value(policy.get("maxUnavailable")) or default
    if surge[1] == 0 and unavailable[1] == 0:
        raise _bad(
            f"Invalid value for field 'resource.updatePolicy': '{where}' has maxSurge and "
            f"maxUnavailable both 0; at least one of them must be greater than 0 ({UPDATE})."
        )
    for field, (kind, number) in (("maxSurge", surge), ("maxUnavailable", unavailable)):
        if kind == "percent" and target_size < 10:
            raise _bad(
                f"Invalid value for field 'resource.updatePolicy.{field}.percent': {number}. A "
                f"percentage needs a group of 10 or more instances ({UPDATE})."
            )
        if kind == "fixed" and regional and 0 < number < zones:
            raise _bad(
                f"Invalid value for field 'resource.updatePolicy.{field}.fixed': {number}. A "
                f"regional group's fixed {field} is 0 or at least its {zones} zones "
                f"({UPDATE_ZONES})."
            )


def check_distribution(body: Mapping[str, Any], scope: str, where: str) -> list[str]:
    """The group's zones (a zonal group's own; a regional group's listed ones, else three of
    its region's standard zones) after the distribution-policy rules (SHAPE, REGIONAL)."""
    kind, place = scope.split("/", 1)
    policy = body.get("distributionPolicy")
    if kind == "zones":
        if policy:
            raise _bad(
                "Invalid value for field 'resource.distributionPolicy': a zonal group has no "
                "distribution policy (it is for regional groups)."
            )
        return [place]
    policy = policy if isinstance(policy, Mapping) else {}
    shape = policy.get("targetShape") or "EVEN"
    redistribution = (body.get("updatePolicy") or {}).get("instanceRedistributionType")
    if shape in ("BALANCED", "ANY_SINGLE_ZONE") and (redistribution or "PROACTIVE") != "NONE":
        raise _bad(
            f"Invalid value for field 'resource.updatePolicy.instanceRedistributionType': "
            f"'{redistribution or 'PROACTIVE (default)'}'. '{where}' has target shape {shape}, "
            f"which needs proactive redistribution off (NONE) ({SHAPE})."
        )
    listed = policy.get("zones") or []
    zones: list[str] = []
    for i, entry in enumerate(listed):
        zone = last(str((entry or {}).get("zone") or ""))
        field = f"resource.distributionPolicy.zones[{i}].zone"
        if not regions.is_zone(zone):
            raise _bad(f"Invalid value for field '{field}': '{zone}'. Unknown zone.")
        if regions.region_of_zone(zone) != place:
            raise _bad(
                f"Invalid value for field '{field}': '{zone}'. The zone is not in the group's "
                f"region {place}."
            )
        if zone in zones:
            raise _bad(f"Invalid value for field '{field}': '{zone}' is listed twice.")
        zones.append(zone)
    return zones or regions.zones_of(place)[:DEFAULT_ZONES]


def check_workload_policy(
    policy: Mapping[str, Any] | None, link: str, machine_type: str, region: str
) -> None:
    """A workload policy the group names (WP): it exists (``policy``, looked up by the
    caller, None when not found), is in the group's region, holds a ``workloadPolicy`` whose
    property fits the template's machine series."""
    if policy is None:
        raise GoogleError(
            404, f"The resource '{link}' was not found (resourcePolicies.workloadPolicy).",
            "notFound",
        )  # fmt: skip
    if last(str(policy.get("region") or "")) != region:
        raise _bad(
            f"Invalid value for field 'resource.resourcePolicies.workloadPolicy': '{link}'. The "
            f"policy is not in the group's region {region}."
        )
    workload = policy.get("workloadPolicy")
    if not isinstance(workload, Mapping):
        raise _bad(
            f"Invalid value for field 'resource.resourcePolicies.workloadPolicy': '{link}' is "
            "not a workload policy."
        )
    series = catalog.series_of(machine_type)
    if series is None or series.workload_policy is None:
        raise _bad(
            f"Workload policies can't be used with machine type {machine_type}: they are for "
            f"A4X Max, A4X, A4, A3 Ultra, A3 Mega, A3 High (8 GPUs) and H4D "
            f"({WORKLOAD_POLICY_SOURCE})."
        )
    if workload.get("type") != "HIGH_THROUGHPUT":
        raise _bad(
            f"Workload policy '{link}' has type {workload.get('type')}; a MIG takes only "
            f"HIGH_THROUGHPUT ({WORKLOAD_POLICY_SOURCE})."
        )
    wanted = (
        "acceleratorTopology"
        if series.workload_policy == "accelerator_topology"
        else ("maxTopologyDistance")
    )
    other = "maxTopologyDistance" if wanted == "acceleratorTopology" else "acceleratorTopology"
    if workload.get(other):
        raise _bad(
            f"Workload policy '{link}' sets {other}; {series.name} VMs take {wanted} "
            f"({WORKLOAD_POLICY_SOURCE})."
        )


def check_series(
    properties: Mapping[str, Any], target_size: int, has_workload_policy: bool, where: str
) -> None:
    """A4X / A4X Max groups (A4X): reservation-bound VMs only, and a workload policy when the
    group has more than one VM (WP)."""
    machine = last(str(properties.get("machineType") or ""))
    series = catalog.series_of(machine)
    if series is None or series.resize_requests:
        return
    model = (properties.get("scheduling") or {}).get("provisioningModel")
    if model != "RESERVATION_BOUND":
        raise _bad(
            f"'{where}': {series.name} groups use the RESERVATION_BOUND provisioning model only "
            f"(the template has {model or 'STANDARD'}) ({A4X_MIG_SOURCE})."
        )
    if target_size > 1 and not has_workload_policy:
        raise _bad(
            f"'{where}': a group of {target_size} {series.name} VMs needs a workload policy with "
            f"an accelerator topology ({WORKLOAD_POLICY_SOURCE})."
        )


def check_resize_requests_allowed(properties: Mapping[str, Any], where: str) -> None:
    """A4X / A4X Max groups take no resize requests: their size is the target size (A4X)."""
    machine = last(str(properties.get("machineType") or ""))
    series = catalog.series_of(machine)
    if series is not None and not series.resize_requests:
        raise _bad(
            f"'{where}' runs {series.name} VMs: add them by setting the group's target size, "
            f"not with a resize request ({A4X_MIG_SOURCE})."
        )
