"""Where each ``modelDevelopmentClusters`` method lives: the route table. ``{v}`` is
``v1beta1``, or ``v1`` for operations, as Google's docs poll them."""

from __future__ import annotations

from ..base import RouteSpec
from .models import COLLECTION

__all__ = ["ROUTES"]

_V = r"/v1(?:beta1)?"
PARENT = _V + r"/projects/(?P<project>[^/]+)/locations/(?P<location>[^/]+)"
CLUSTERS = PARENT + f"/{COLLECTION}"
CLUSTER = CLUSTERS + r"/(?P<cluster>[^/:]+)"

ROUTES: list[RouteSpec] = [
    RouteSpec("POST", CLUSTERS, "create"),
    RouteSpec("GET", CLUSTERS, "list"),
    RouteSpec("GET", CLUSTER, "get"),
    RouteSpec("PATCH", CLUSTER, "patch"),
    RouteSpec("DELETE", CLUSTER, "delete"),
    RouteSpec("GET", PARENT + r"/operations/(?P<op>[^/:]+)", "operation"),
]
