"""The recording service answers every path: Compute (any version), GKE (``v1``, ``v1beta1``,
``v1alpha1``), Cloud TPU (``v2alpha1``, ``v2``), and anything else with a 404 (recorded too)."""

from __future__ import annotations

from ..base import RouteSpec

__all__ = ["ROUTES"]

_METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE")

ROUTES: list[RouteSpec] = [
    RouteSpec(method, pattern, "answer")
    for pattern in (r"/compute/.*", r"/v1(?:alpha1|beta1)?/.*", r"/.*")
    for method in _METHODS
]
