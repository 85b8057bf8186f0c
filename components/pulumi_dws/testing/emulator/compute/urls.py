"""Where each Compute method lives: the route table of the emulated Compute v1 API.

Each row is ``(HTTP method, path pattern, handler, discovery method id)``: the pattern's named
groups become the request's ``params`` (checked against the discovery document's path
patterns), the handler is the name of a :class:`~.responses.ComputeResponses` method.
"""

from __future__ import annotations

from ..base import RouteSpec

__all__ = ["ROUTES"]

PROJECT = r"/compute/v1/projects/(?P<project>[^/]+)"
ZONE = PROJECT + r"/zones/(?P<zone>[^/]+)"
INSTANCE = ZONE + r"/instances/(?P<name>[^/:]+)"
TEMPLATES = PROJECT + r"/global/instanceTemplates"

ROUTES: list[RouteSpec] = [
    RouteSpec("POST", ZONE + r"/instances", "insert", "compute.instances.insert"),
    RouteSpec("GET", ZONE + r"/instances", "list", "compute.instances.list"),
    RouteSpec("GET", INSTANCE, "get", "compute.instances.get"),
    RouteSpec("DELETE", INSTANCE, "delete", "compute.instances.delete"),
    RouteSpec("POST", INSTANCE + r"/stop", "stop", "compute.instances.stop"),
    RouteSpec("POST", INSTANCE + r"/start", "start", "compute.instances.start"),
    RouteSpec("POST", INSTANCE + r"/suspend", "suspend", "compute.instances.suspend"),
    RouteSpec("POST", INSTANCE + r"/resume", "resume", "compute.instances.resume"),
    RouteSpec("POST", INSTANCE + r"/setLabels", "set_labels", "compute.instances.setLabels"),
    RouteSpec("POST", INSTANCE + r"/setMetadata", "set_metadata", "compute.instances.setMetadata"),
    RouteSpec(
        "POST",
        INSTANCE + r"/setMachineType",
        "set_machine_type",
        "compute.instances.setMachineType",
    ),
    RouteSpec("GET", ZONE + r"/operations/(?P<op>[^/]+)", "get_op", "compute.zoneOperations.get"),
    RouteSpec(
        "POST", ZONE + r"/operations/(?P<op>[^/]+)/wait", "get_op", "compute.zoneOperations.wait"
    ),
    RouteSpec("POST", TEMPLATES, "insert_template", "compute.instanceTemplates.insert"),
    RouteSpec(
        "GET", TEMPLATES + r"/(?P<name>[^/]+)", "get_template", "compute.instanceTemplates.get"
    ),
    RouteSpec(
        "DELETE",
        TEMPLATES + r"/(?P<name>[^/]+)",
        "delete_template",
        "compute.instanceTemplates.delete",
    ),
    RouteSpec(
        "GET",
        PROJECT + r"/global/operations/(?P<op>[^/]+)",
        "get_op",
        "compute.globalOperations.get",
    ),
]
