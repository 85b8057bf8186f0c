"""pulumi-dws: Pulumi components for Google Cloud's Dynamic Workload Scheduler (DWS).

Components (type tokens ``dws:index:<ClassName>``):

- :class:`CalendarReservation`: GPU VMs reserved for a fixed window (Calendar mode).

The building blocks are public too: :mod:`pulumi_dws.limits` (the service limits table),
:class:`Duration`, :class:`DwsValidationError`, and :mod:`pulumi_dws.testing` (mocks,
emulator, gRPC-host driver) for testing stacks.
"""

from . import catalog, limits
from .calendar import CalendarReservation, CalendarReservationArgs
from .duration import Duration
from .errors import DwsValidationError
from .relative_time import RelativeTime

__all__ = [
    "CalendarReservation",
    "CalendarReservationArgs",
    "Duration",
    "DwsValidationError",
    "RelativeTime",
    "catalog",
    "limits",
]
