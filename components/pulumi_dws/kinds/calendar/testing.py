"""Test aids of Calendar-mode reservations (:mod:`pulumi_dws.kinds.calendar.kind`): how future and
standing reservations and ``StableTime`` behave under :class:`~pulumi_dws.testing.GcpMocks`,
and the policy samples and violating examples of future reservations."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...providers.stable_time import StableTimeProvider
from ...testing.mocks import COMPUTE_BETA, compute_zonal, short_hash
from ...testing.samples import DELETE, Capacity, Example, Sample

if TYPE_CHECKING:
    from ...testing.mocks import GcpMocks

__all__ = ["future_reservation", "reservation", "stable_time", "SAMPLES", "CAPACITY", "EXAMPLES"]


def future_reservation(mocks: GcpMocks, typ: str, name: str, s: dict[str, Any]) -> str:
    rid = compute_zonal("futureReservations", COMPUTE_BETA)(mocks, typ, name, s)
    s.setdefault("selfLinkWithId", s["selfLink"] + "/" + str(int(short_hash(rid, length=12), 16)))
    s.setdefault(
        "statuses",
        [{"procurementStatus": "PENDING_APPROVAL", "autoCreatedReservations": []}],
    )
    return rid


reservation = compute_zonal("reservations")


def stable_time(mocks: GcpMocks, typ: str, name: str, s: dict[str, Any]) -> str:
    """The real provider's ``create``: the offset resolved from ``pulumi_dws.clock.now()``, as
    at first deploy."""
    created = StableTimeProvider().create(dict(s))
    s.update(created.outs or {})
    return str(created.id)


# ---------------------------------------------------------------------- policy samples
def calendar_reservation() -> dict[str, Any]:
    """A raw ``gcp.compute.FutureReservation`` in Calendar mode (4 weeks after SAMPLE_NOW)."""
    return {
        "name": "h100-week",
        "zone": "us-central1-a",
        "reservationMode": "CALENDAR",
        "planningStatus": "SUBMITTED",
        "autoDeleteAutoCreatedReservations": True,
        "specificReservationRequired": True,
        "timeWindow": {"startTime": "2027-03-01T00:00:00Z", "duration": {"seconds": 604800}},
        "specificSkuProperties": {
            "totalCount": "2",
            "instanceProperties": {"machineType": "a3-highgpu-8g"},
        },
    }


def tpu_calendar_reservation() -> dict[str, Any]:
    """A raw ``gcp.compute.FutureReservation`` of 16 TPU v6e chips in Calendar mode, as gcloud
    ``future-reservations create --tpu-version=V6E --chip-count=16`` sends it."""
    return {
        "name": "v6e-week",
        "zone": "us-east5-b",
        "reservationMode": "CALENDAR",
        "planningStatus": "SUBMITTED",
        "autoDeleteAutoCreatedReservations": True,
        "timeWindow": {"startTime": "2027-03-01T00:00:00Z", "duration": {"seconds": 604800}},
        "aggregateReservation": {
            "reservedResources": [{"accelerator": {"acceleratorCount": 16}}],
            "vmFamily": "VM_FAMILY_CLOUD_TPU_LITE_POD_SLICE_CT6E",
            "workloadType": "BATCH",
        },
    }


SAMPLES: dict[str, Sample] = {
    "calendar_reservation": (
        "gcp:compute/futureReservation:FutureReservation",
        calendar_reservation,
    ),
    "tpu_calendar_reservation": (
        "gcp:compute/futureReservation:FutureReservation",
        tpu_calendar_reservation,
    ),
}

CAPACITY: dict[str, Capacity] = {
    # 2 a3-highgpu-8g VMs for the 7-day window; 16 v6e chips for the same window
    "calendar_reservation": Capacity("nvidia-h100-80gb", gpus=16, gpu_hours=16 * 168),
    "tpu_calendar_reservation": Capacity("v6e", tpu_chips=16, tpu_chip_hours=16 * 168),
}
"""What each sample asks for (see :func:`pulumi_dws.testing.samples.totals`)."""

EXAMPLES: tuple[Example, ...] = (
    Example(
        "calendar-tpu-request",
        "tpu_calendar_reservation",
        (("aggregateReservation.reservedResources.0.accelerator.acceleratorCount", 12),),
        "calendar.tpu_chips.v6e",
    ),
    Example(
        "calendar-tpu-request",
        "tpu_calendar_reservation",
        (
            ("aggregateReservation.vmFamily", "VM_FAMILY_CLOUD_TPU_LITE_POD_SLICE_CT5LP"),
            ("aggregateReservation.workloadType", "SERVING"),
            ("zone", "us-south1-a"),
        ),
        "1 or 4 or 8",
        unknown="aggregateReservation.workloadType",
    ),
    Example(
        "calendar-tpu-request",
        "tpu_calendar_reservation",
        (("zone", "us-central1-a"),),
        "Calendar mode: use asia-northeast1-b",
    ),
    Example(
        "calendar-tpu-request",
        "tpu_calendar_reservation",
        (("aggregateReservation.vmFamily", "VM_FAMILY_CLOUD_TPU_POD_SLICE_TPU7X"),),
        "not offered in Calendar mode",
    ),
    Example(
        "calendar-vm-request",
        "calendar_reservation",
        (("specificSkuProperties.totalCount", "81"),),
        "calendar.count",
    ),
    Example(
        "calendar-vm-request",
        "calendar_reservation",
        (
            ("specificSkuProperties.instanceProperties.machineType", "h4d-highmem-192"),
            ("specificSkuProperties.totalCount", "257"),
        ),
        "calendar.count_h4d",
    ),
    Example(
        "calendar-vm-request",
        "calendar_reservation",
        (("specificSkuProperties.instanceProperties.machineType", "h4d-highcpu-192"),),
        "is not an H4D machine type",
    ),
    Example(
        "calendar-auto-delete",
        "calendar_reservation",
        (("autoDeleteAutoCreatedReservations", False),),
        "is false",
    ),
    Example(
        "calendar-auto-delete",
        "calendar_reservation",
        (("autoDeleteAutoCreatedReservations", DELETE),),
        "missing (default false)",
    ),
    Example(
        "calendar-auto-delete",
        "calendar_reservation",
        (("autoDeleteAutoCreatedReservations", False),),
        "is false",
        unknown="reservationMode",
    ),
    Example(
        "calendar-window",
        "calendar_reservation",
        (("timeWindow.duration.seconds", 100 * 86400),),
        "calendar.duration",
    ),
    Example(
        "calendar-window", "calendar_reservation", (("timeWindow.duration.seconds", 3600),), "below"
    ),
    Example(
        "calendar-window",
        "calendar_reservation",
        (("timeWindow.duration", DELETE), ("timeWindow.endTime", "2027-08-01T00:00:00Z")),
        "calendar.duration",
    ),
    Example(
        "calendar-window",
        "calendar_reservation",
        (("timeWindow.startTime", "2027-07-01T00:00:00Z"),),
        "calendar.start_ahead",
    ),
)
