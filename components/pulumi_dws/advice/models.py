"""Typed request and response bodies of the Compute v1 ``advice`` methods.

Transcribed from the Compute v1 discovery document (``compute.v1.json``, schemas
``CalendarModeAdviceRequest`` / ``CalendarModeAdviceResponse`` and ``CapacityAdviceRequest`` /
``CapacityAdviceResponse``). Python names are snake_case; the wire names are the camelCase
aliases. Unknown fields the API adds later are kept (``extra="allow"``), and response enums are
plain strings so a new enum value never breaks parsing. ``int64`` fields travel as JSON strings
and ``google-duration`` as ``"604800s"``, as Google's own clients send them.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Annotated, Any, Literal

from pydantic import AwareDatetime, BaseModel, BeforeValidator, ConfigDict, PlainSerializer
from pydantic.alias_generators import to_camel

from ..duration import Duration
from ..validation import format_timestamp

__all__ = [
    "ApiModel",
    "Int64",
    "Timestamp",
    "GoogleDuration",
    "FlexibleTimeRange",
    "FutureResourcesSpecSpecificSKUResources",
    "FutureResourcesSpecAggregateResources",
    "FutureResourcesSpecLocalSsdPartition",
    "FutureResourcesSpecTargetResources",
    "FutureResourcesSpecLocationPolicyLocation",
    "FutureResourcesSpecLocationPolicy",
    "FutureResourcesSpec",
    "CalendarModeAdviceRequest",
    "FutureResourcesRecommendationOtherLocation",
    "FutureResourcesRecommendation",
    "CalendarModeRecommendation",
    "CalendarModeAdviceResponse",
    "AcceleratorConfig",
    "CapacityAdviceRequestInstanceSelection",
    "CapacityAdviceRequestInstanceFlexibilityPolicy",
    "CapacityAdviceRequestScheduling",
    "CapacityAdviceRequestInstanceProperties",
    "CapacityAdviceRequestZoneConfiguration",
    "CapacityAdviceRequestDistributionPolicy",
    "CapacityAdviceRequest",
    "CapacityAdviceResponseRecommendationScores",
    "CapacityAdviceResponseRecommendationShard",
    "CapacityAdviceResponseRecommendation",
    "CapacityAdviceResponse",
    "ProvisioningModel",
    "TargetShape",
]

_PROTO_DURATION = re.compile(r"^(\d+)(?:\.\d+)?s\Z")


def _to_duration(value: Any) -> Duration:
    """Accept ``"3600s"``, ``"3600.5s"`` (fraction dropped) or any :class:`Duration` form."""
    if isinstance(value, str):
        match = _PROTO_DURATION.match(value.strip())
        if match:
            return Duration(int(match.group(1)))
    return Duration.parse(value)


Int64 = Annotated[int, PlainSerializer(str, return_type=str, when_used="json")]
"""An ``int64`` field: an int in Python, a decimal string on the wire."""

Timestamp = Annotated[
    AwareDatetime, PlainSerializer(format_timestamp, return_type=str, when_used="json")
]
"""A ``google-datetime`` field: an aware datetime, sent as ``2027-03-01T00:00:00Z``."""

GoogleDuration = Annotated[
    Duration,
    BeforeValidator(_to_duration),
    PlainSerializer(lambda d: d.to_proto_string(), return_type=str, when_used="json"),
]
"""A ``google-duration`` field: a :class:`Duration`, sent as ``"604800s"``."""

ProvisioningModel = Literal["FLEX_START", "RESERVATION_BOUND", "SPOT", "STANDARD"]
TargetShape = Literal["ANY", "ANY_SINGLE_ZONE", "BALANCED", "TARGET_SHAPE_UNSPECIFIED"]


class ApiModel(BaseModel):
    """Base of every wire model: camelCase aliases, unknown fields kept."""

    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        extra="allow",
        arbitrary_types_allowed=True,
    )

    def to_api(self) -> dict[str, Any]:
        """The JSON body Google expects (aliases, no ``None`` fields)."""
        return self.model_dump(mode="json", by_alias=True, exclude_none=True)

    @classmethod
    def from_api(cls, data: Any) -> Any:
        """Parse a JSON body (``None`` or ``{}`` give an empty model)."""
        return cls.model_validate(data or {})


# --------------------------------------------------------------------------- calendarMode
class FlexibleTimeRange(ApiModel):
    """When the reservation may start, and how long it may last."""

    min_duration: GoogleDuration | None = None
    max_duration: GoogleDuration | None = None
    start_time_not_earlier_than: Timestamp | None = None
    start_time_not_later_than: Timestamp | None = None


class FutureResourcesSpecLocalSsdPartition(ApiModel):
    disk_interface: Literal["NVME", "SCSI"] | None = None
    disk_size_gb: Int64 | None = None


class FutureResourcesSpecSpecificSKUResources(ApiModel):
    """A number of VMs of one machine type (GPU reservations)."""

    instance_count: Int64 | None = None
    machine_type: str | None = None
    local_ssd_partitions: list[FutureResourcesSpecLocalSsdPartition] | None = None


class FutureResourcesSpecAggregateResources(ApiModel):
    """A number of accelerator chips (TPU reservations)."""

    accelerator_count: Int64 | None = None
    vm_family: str | None = None
    workload_type: Literal["BATCH", "SERVING", "UNSPECIFIED"] | None = None


class FutureResourcesSpecTargetResources(ApiModel):
    specific_sku_resources: FutureResourcesSpecSpecificSKUResources | None = None
    aggregate_resources: FutureResourcesSpecAggregateResources | None = None


class FutureResourcesSpecLocationPolicyLocation(ApiModel):
    preference: Literal["ALLOW", "DENY", "PREFERENCE_UNSPECIFIED"] | None = None


class FutureResourcesSpecLocationPolicy(ApiModel):
    """Keys are ``zones/<zone>``; zones not listed are allowed."""

    locations: dict[str, FutureResourcesSpecLocationPolicyLocation] | None = None


class FutureResourcesSpec(ApiModel):
    deployment_type: Literal["DENSE", "DEPLOYMENT_TYPE_UNSPECIFIED"] | None = None
    location_policy: FutureResourcesSpecLocationPolicy | None = None
    target_resources: FutureResourcesSpecTargetResources | None = None
    time_range_spec: FlexibleTimeRange | None = None


class CalendarModeAdviceRequest(ApiModel):
    """Body of ``POST projects/{project}/regions/{region}/advice/calendarMode``.

    ``future_resources_specs`` maps a caller-chosen key to one spec (Google allows one).
    """

    future_resources_specs: dict[str, FutureResourcesSpec] | None = None


class FutureResourcesRecommendationOtherLocation(ApiModel):
    """Why a zone was not the one recommended.

    ``status``: CONDITIONS_NOT_MET, NOT_SUPPORTED, NO_CAPACITY, RECOMMENDED,
    OTHER_LOCATION_STATUS_UNDEFINED.
    """

    details: str | None = None
    status: str | None = None


class FutureResourcesRecommendation(ApiModel):
    """One window: ``location`` is ``zones/<zone>``, absent when nothing is recommended."""

    end_time: Timestamp | None = None
    location: str | None = None
    other_locations: dict[str, FutureResourcesRecommendationOtherLocation] | None = None
    recommendation_id: str | None = None
    recommendation_type: str | None = None
    start_time: Timestamp | None = None


class CalendarModeRecommendation(ApiModel):
    """Per-spec recommendations, keyed like the request's ``future_resources_specs``."""

    recommendations_per_spec: dict[str, FutureResourcesRecommendation] | None = None


class CalendarModeAdviceResponse(ApiModel):
    recommendations: list[CalendarModeRecommendation] | None = None


# --------------------------------------------------------------------------- capacity
class AcceleratorConfig(ApiModel):
    accelerator_count: int | None = None
    accelerator_type: str | None = None


class CapacityAdviceRequestInstanceSelection(ApiModel):
    """``CapacityAdviceRequestInstanceFlexibilityPolicyInstanceSelection``: machine shapes
    considered together; lower ``rank`` first."""

    machine_types: list[str] | None = None
    guest_accelerators: list[AcceleratorConfig] | None = None
    disks: list[dict[str, Any]] | None = None
    rank: Int64 | None = None


class CapacityAdviceRequestInstanceFlexibilityPolicy(ApiModel):
    """Keys of ``instance_selections`` are caller-chosen RFC 1035 names."""

    instance_selections: dict[str, CapacityAdviceRequestInstanceSelection] | None = None


class CapacityAdviceRequestScheduling(ApiModel):
    provisioning_model: ProvisioningModel | None = None


class CapacityAdviceRequestInstanceProperties(ApiModel):
    scheduling: CapacityAdviceRequestScheduling | None = None


class CapacityAdviceRequestZoneConfiguration(ApiModel):
    """``zone``: ``zones/<zone>``, ``projects/<p>/zones/<zone>`` or a full URL."""

    zone: str | None = None


class CapacityAdviceRequestDistributionPolicy(ApiModel):
    target_shape: TargetShape | None = None
    zones: list[CapacityAdviceRequestZoneConfiguration] | None = None


class CapacityAdviceRequest(ApiModel):
    """Body of ``POST projects/{project}/regions/{region}/advice/capacity``."""

    distribution_policy: CapacityAdviceRequestDistributionPolicy | None = None
    instance_flexibility_policy: CapacityAdviceRequestInstanceFlexibilityPolicy | None = None
    instance_properties: CapacityAdviceRequestInstanceProperties | None = None
    size: int | None = None


class CapacityAdviceResponseRecommendationScores(ApiModel):
    """``obtainability``: 0.0 to 1.0, higher is better; ``estimated_uptime`` for Spot VMs."""

    estimated_uptime: GoogleDuration | None = None
    obtainability: float | None = None


class CapacityAdviceResponseRecommendationShard(ApiModel):
    """A block of uniform capacity: one zone, one machine type, a number of VMs."""

    instance_count: int | None = None
    machine_type: str | None = None
    provisioning_model: str | None = None
    zone: str | None = None


class CapacityAdviceResponseRecommendation(ApiModel):
    scores: CapacityAdviceResponseRecommendationScores | None = None
    shards: list[CapacityAdviceResponseRecommendationShard] | None = None


class CapacityAdviceResponse(ApiModel):
    recommendations: list[CapacityAdviceResponseRecommendation] | None = None


def zone_name(location: str | None) -> str:
    """``zones/us-central1-a`` or a zone URL -> ``us-central1-a``."""
    return (location or "").rstrip("/").rsplit("/", 1)[-1]


def utc(value: dt.datetime) -> dt.datetime:
    """The same instant in UTC."""
    return value.astimezone(dt.timezone.utc)
