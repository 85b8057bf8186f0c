"""Where each Compute method lives: the route table of the emulated Compute v1 API.

Each row is ``(HTTP method, path pattern, handler, discovery method id)``: the pattern's named
groups become the request's ``params`` (checked against the discovery document's path
patterns), the handler is the name of a :class:`~.responses.ComputeResponses` method.

The ``v1`` API is served in full; of ``beta`` (the version the pulumi-gcp provider calls) the
methods that create and read what pulumi-gcp registers for a ``FlexStartGroup``: managed
instance groups and workload policies (checked against the beta discovery document).
"""

from __future__ import annotations

from ..base import RouteSpec

__all__ = ["ROUTES"]

PROJECT = r"/compute/v1/projects/(?P<project>[^/]+)"
BETA = r"/compute/beta/projects/(?P<project>[^/]+)"
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


def _policy_routes(region: str) -> list[RouteSpec]:
    policies = region + r"/resourcePolicies"
    policy = policies + r"/(?P<policy>[^/]+)"
    return [
        RouteSpec("POST", policies, "insert_policy", "compute.resourcePolicies.insert"),
        RouteSpec("GET", policy, "get_policy", "compute.resourcePolicies.get"),
        RouteSpec("DELETE", policy, "delete_policy", "compute.resourcePolicies.delete"),
    ]


def _beta_routes() -> list[RouteSpec]:
    """The beta rows: groups (insert, get, delete), workload policies, operations."""
    zone = BETA + r"/zones/(?P<zone>[^/]+)"
    region = BETA + r"/regions/(?P<region>[^/]+)"
    rows: list[RouteSpec] = []
    for scope, prefix in ((zone, "i"), (region, "regionI")):
        groups = scope + r"/instanceGroupManagers"
        group = groups + r"/(?P<group>[^/]+)"
        managers = f"compute.{prefix}nstanceGroupManagers"
        rows += [
            RouteSpec("POST", groups, "insert_group", f"{managers}.insert"),
            RouteSpec("GET", group, "get_group", f"{managers}.get"),
            RouteSpec("DELETE", group, "delete_group", f"{managers}.delete"),
        ]
    rows += _policy_routes(region)
    rows += [
        RouteSpec(
            "GET", zone + r"/operations/(?P<op>[^/]+)", "get_op", "compute.zoneOperations.get"
        ),
        RouteSpec(
            "GET", region + r"/operations/(?P<op>[^/]+)", "get_op", "compute.regionOperations.get"
        ),
    ]
    return rows


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
    *_policy_routes(REGION),
    *_beta_routes(),
]
