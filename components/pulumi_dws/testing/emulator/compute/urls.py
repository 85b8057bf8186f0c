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
REGION = PROJECT + r"/regions/(?P<region>[^/]+)"
REGION_TEMPLATES = REGION + r"/instanceTemplates"


def _group_routes(scope: str, prefix: str) -> list[RouteSpec]:
    """The managed-instance-group and resize-request rows of one scope (zonal ``ZONE`` with
    ``instanceGroupManagers``, regional ``REGION`` with ``regionInstanceGroupManagers``)."""
    groups = scope + r"/instanceGroupManagers"
    group = groups + r"/(?P<group>[^/]+)"
    requests = group + r"/resizeRequests"
    request = requests + r"/(?P<request>[^/]+)"
    managers = f"compute.{prefix}nstanceGroupManagers"
    resize = f"compute.{prefix}nstanceGroupManagerResizeRequests"
    return [
        RouteSpec("POST", groups, "insert_group", f"{managers}.insert"),
        RouteSpec("GET", group, "get_group", f"{managers}.get"),
        RouteSpec("DELETE", group, "delete_group", f"{managers}.delete"),
        RouteSpec(
            "POST",
            group + r"/listManagedInstances",
            "list_managed_instances",
            f"{managers}.listManagedInstances",
        ),
        RouteSpec("POST", group + r"/resize", "resize_group", f"{managers}.resize"),
        RouteSpec(
            "POST",
            group + r"/deleteInstances",
            "delete_group_instances",
            f"{managers}.deleteInstances",
        ),
        RouteSpec("POST", requests, "insert_resize_request", f"{resize}.insert"),
        RouteSpec("GET", requests, "list_resize_requests", f"{resize}.list"),
        RouteSpec("GET", request, "get_resize_request", f"{resize}.get"),
        RouteSpec("POST", request + r"/cancel", "cancel_resize_request", f"{resize}.cancel"),
        RouteSpec("DELETE", request, "delete_resize_request", f"{resize}.delete"),
    ]


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
    RouteSpec(
        "GET", REGION + r"/operations/(?P<op>[^/]+)", "get_op", "compute.regionOperations.get"
    ),
    RouteSpec(
        "POST", REGION_TEMPLATES, "insert_region_template", "compute.regionInstanceTemplates.insert"
    ),
    RouteSpec(
        "GET",
        REGION_TEMPLATES + r"/(?P<name>[^/]+)",
        "get_region_template",
        "compute.regionInstanceTemplates.get",
    ),
    RouteSpec(
        "DELETE",
        REGION_TEMPLATES + r"/(?P<name>[^/]+)",
        "delete_region_template",
        "compute.regionInstanceTemplates.delete",
    ),
    *_group_routes(ZONE, "i"),
    *_group_routes(REGION, "regionI"),
]
