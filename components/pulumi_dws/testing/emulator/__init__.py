"""A local emulator of the Google APIs pulumi-dws's dynamic providers call: one package per API
(``compute``, ``advice``, ``aiplatform``, ``tpu``, ``recording``), each with a store per
resource (its state, ``tick`` and ``reset``), handlers routed by convention from the API's
discovery document, and the rules Google documents, each with its source
(``docs/emulator-services.md``), served by :class:`Emulator`."""

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
from .routing import Api, discovered_routes
from .rules import Rules
from .server import Emulator
from .store import Clockwork, Moment, Store

__all__ = [
    "Api",
    "Clockwork",
    "Emulator",
    "FaultPlan",
    "GoogleError",
    "Request",
    "Response",
    "Moment",
    "Route",
    "RouteSpec",
    "Rules",
    "Service",
    "Store",
    "VirtualClock",
    "bind_routes",
    "discovered_routes",
    "google_error",
]
