"""A local emulator of the Google APIs pulumi-dws's dynamic providers call: one package per API
(``compute``, ``advice``, ``aiplatform``, ``tpu``, ``recording``), each with its models,
responses and route table (``docs/emulator-services.md``), served by :class:`Emulator`."""

from .base import (
    GoogleError,
    Request,
    Response,
    Route,
    RouteSpec,
    Service,
    VirtualClock,
    bind_routes,
    google_error,
)
from .faults import FaultPlan
from .server import Emulator

__all__ = [
    "Emulator",
    "FaultPlan",
    "GoogleError",
    "Request",
    "Response",
    "Route",
    "RouteSpec",
    "Service",
    "VirtualClock",
    "bind_routes",
    "google_error",
]
