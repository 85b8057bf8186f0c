"""Where the advice methods live: the route table."""

from __future__ import annotations

from ..base import RouteSpec

__all__ = ["ROUTES"]

ADVICE = r"/compute/v1/projects/(?P<project>[^/]+)/regions/(?P<region>[^/]+)/advice/"

ROUTES: list[RouteSpec] = [
    RouteSpec("POST", ADVICE + "calendarMode", "calendar_mode", "compute.advice.calendarMode"),
    RouteSpec("POST", ADVICE + "capacity", "capacity", "compute.advice.capacity"),
]
