"""Where each Cloud TPU ``v2alpha1`` method lives: the route table of the emulated API."""

from __future__ import annotations

from ..base import RouteSpec

__all__ = ["ROUTES"]

PARENT = r"/v2alpha1/projects/(?P<project>[^/]+)/locations/(?P<zone>[^/]+)"
QUEUED = PARENT + r"/queuedResources"
ONE = QUEUED + r"/(?P<queued_resource>[^/:]+)"
_QR = "tpu.projects.locations.queuedResources."

ROUTES: list[RouteSpec] = [
    RouteSpec("POST", QUEUED, "create", _QR + "create"),
    RouteSpec("GET", QUEUED, "list", _QR + "list"),
    RouteSpec("GET", ONE, "get", _QR + "get"),
    RouteSpec("DELETE", ONE, "delete", _QR + "delete"),
    RouteSpec(
        "GET",
        PARENT + r"/operations/(?P<op>[^/:]+)",
        "operation",
        "tpu.projects.locations.operations.get",
    ),
]
