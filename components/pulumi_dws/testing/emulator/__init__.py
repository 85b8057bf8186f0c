"""A local emulator of the Google APIs pulumi-dws's dynamic providers call."""

from .base import GoogleError, Request, Response, Route, Service, VirtualClock, google_error
from .faults import FaultPlan
from .server import Emulator

__all__ = [
    "Emulator",
    "FaultPlan",
    "GoogleError",
    "Request",
    "Response",
    "Route",
    "Service",
    "VirtualClock",
    "google_error",
]
