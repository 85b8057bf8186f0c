"""Every value that goes into a Google API URL, checked and quoted in one place.

A project id, zone, region, name, cluster id or operation name is only ever put in a URL path
after it matched its pattern *in full* (``fullmatch``: a trailing newline is not a match) and
was percent-quoted; a region only becomes part of a host name through
:func:`~pulumi_dws.providers.endpoints.resolve_root`, which checks it the same way. So a project
of ``p/zones/us-central1-a/instances/victim#`` can never address VM ``victim``, and a region of
``evil.example#`` never becomes a host.

The patterns are those of Compute's discovery document (``compute.instances.get`` parameters)
and of the Vertex AI ``modelDevelopmentClusters`` API.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import quote

__all__ = [
    "PathValueError",
    "PATTERNS",
    "check_segment",
    "segment_problem",
    "instance_path",
    "zone_operation_path",
    "location_path",
    "group_path",
    "resize_request_path",
    "scoped_operation_path",
    "cluster_path",
    "cluster_parent",
    "operation_name_path",
    "queued_resource_path",
]

PATTERNS: dict[str, re.Pattern[str]] = {
    # compute.instances.get: project (domain-scoped ids too), zone, instance
    "project": re.compile(
        r"(?:(?:[-a-z0-9]{1,63}\.)*(?:[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?):)?"
        r"(?:[0-9]{1,19}|(?:[a-z0-9](?:[-a-z0-9]{0,61}[a-z0-9])?))"
    ),
    "zone": re.compile(r"[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?"),
    "name": re.compile(r"[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?"),
    "operation": re.compile(r"[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?|[1-9][0-9]{0,19}"),
    "region": re.compile(r"[a-z]+-[a-z]+[0-9]+"),
    "cluster_id": re.compile(r"[a-z][a-z0-9]{0,62}"),
}
_SHOWN = {
    "project": "a project id such as my-project",
    "zone": "a zone such as us-central1-a",
    "name": "an RFC 1035 name (lowercase letters, digits, hyphens; 1-63 characters)",
    "operation": "an operation name",
    "region": "a region such as us-central1",
    "cluster_id": "a cluster id (a lowercase letter, then lowercase letters or digits)",
}


class PathValueError(ValueError):
    """A value that would go into a URL does not match its pattern."""

    def __init__(self, field: str, kind: str, value: Any) -> None:
        self.field = field
        self.value = value
        super().__init__(f"{field}: {value!r} is not {_SHOWN[kind]}")


def segment_problem(kind: str, value: Any) -> str | None:
    """Why ``value`` can't be a ``kind`` path segment, or None when it can."""
    if isinstance(value, str) and PATTERNS[kind].fullmatch(value):
        return None
    return f"{value!r} is not {_SHOWN[kind]}"


def check_segment(kind: str, value: Any, field: str | None = None) -> str:
    """``value`` percent-quoted for a URL path, once it matched the ``kind`` pattern in full."""
    if segment_problem(kind, value) is not None:
        raise PathValueError(field or kind, kind, value)
    return quote(value, safe=":")


def instance_path(project: str, zone: str, name: str | None = None) -> str:
    """``projects/p/zones/z/instances[/name]`` (relative to the Compute base URL)."""
    base = (
        f"projects/{check_segment('project', project)}/zones/{check_segment('zone', zone)}"
        "/instances"
    )
    return f"{base}/{check_segment('name', name)}" if name is not None else base


def zone_operation_path(project: str, zone: str, operation: str) -> str:
    """``projects/p/zones/z/operations/op`` (from the operation's name, never its selfLink)."""
    return (
        f"projects/{check_segment('project', project)}/zones/{check_segment('zone', zone)}"
        f"/operations/{check_segment('operation', operation, 'operation name')}"
    )


def location_path(project: str, zone: str | None = None, region: str | None = None) -> str:
    """``projects/p/zones/z`` or ``projects/p/regions/r`` (exactly one of zone and region)."""
    if (zone is None) == (region is None):
        raise PathValueError("zone/region", "zone", (zone, region))
    where = (
        f"zones/{check_segment('zone', zone)}"
        if zone is not None
        else f"regions/{check_segment('region', region)}"
    )
    return f"projects/{check_segment('project', project)}/{where}"


def group_path(
    project: str, group: str, *, zone: str | None = None, region: str | None = None
) -> str:
    """``projects/p/{zones/z|regions/r}/instanceGroupManagers/group``."""
    return (
        f"{location_path(project, zone, region)}/instanceGroupManagers/"
        f"{check_segment('name', group, 'group')}"
    )


def resize_request_path(
    project: str,
    group: str,
    name: str | None = None,
    *,
    zone: str | None = None,
    region: str | None = None,
) -> str:
    """``.../instanceGroupManagers/group/resizeRequests[/name]`` (zonal or regional)."""
    base = f"{group_path(project, group, zone=zone, region=region)}/resizeRequests"
    return f"{base}/{check_segment('name', name)}" if name is not None else base


def scoped_operation_path(
    project: str, operation: str, *, zone: str | None = None, region: str | None = None
) -> str:
    """The poll path of a zone or region operation (from its name, never its selfLink)."""
    return (
        f"{location_path(project, zone, region)}/operations/"
        f"{check_segment('operation', operation, 'operation name')}"
    )


COLLECTION = "modelDevelopmentClusters"


def cluster_parent(project: str, region: str) -> str:
    """``projects/p/locations/r/modelDevelopmentClusters``."""
    return (
        f"projects/{check_segment('project', project)}/locations/"
        f"{check_segment('region', region)}/{COLLECTION}"
    )


def cluster_path(project: str, region: str, cluster_id: str) -> str:
    """``projects/p/locations/r/modelDevelopmentClusters/id`` (the resource id)."""
    return f"{cluster_parent(project, region)}/{check_segment('cluster_id', cluster_id)}"


_OPERATION_NAME = re.compile(r"projects/([^/]+)/locations/([^/]+)/operations/([^/]+)")


def operation_name_path(name: Any, location: str = "region") -> str:
    """The poll path of a long-running operation from the ``name`` the API gave it
    (``projects/<project>/locations/<location>/operations/<id>``), each segment checked;
    ``location`` is the pattern of the location segment (Vertex AI: ``region``; Cloud TPU:
    ``zone``)."""
    match = _OPERATION_NAME.fullmatch(name) if isinstance(name, str) else None
    if match is None:
        raise PathValueError("operation name", "operation", name)
    project, where, op_id = match.groups()
    return (
        f"projects/{check_segment('project', project, 'operation name')}/locations/"
        f"{check_segment(location, where, 'operation name')}/operations/"
        f"{check_segment('operation', op_id, 'operation name')}"
    )


def queued_resource_path(project: str, zone: str, queued_resource_id: str | None = None) -> str:
    """``projects/p/locations/z/queuedResources[/id]`` (Cloud TPU; relative to its base URL).
    Ids are RFC 1035 names here: a subset of what the API takes (``^[A-Za-z0-9_.~+%-]+$``)
    that needs no quoting."""
    base = (
        f"projects/{check_segment('project', project)}/locations/"
        f"{check_segment('zone', zone)}/queuedResources"
    )
    if queued_resource_id is None:
        return base
    return f"{base}/{check_segment('name', queued_resource_id, 'queued_resource_id')}"
