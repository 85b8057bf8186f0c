"""Components a program in another language passes to another component: a ``GpuNetwork``
given to a ``FlexStartGroup`` or ``FlexStartInstance`` as ``gpuNetwork``.

Such a program passes the component as a resource reference (its URN; in the schema the
property is ``$ref: #/resources/dws:index:GpuNetwork``). The Python SDK turns a reference into
an object through the resource module registered for its package and module
(``pulumi.runtime.register_resource_module``); without one it gives the bare URN, which the
component taking it refuses. The object the component needs is the one this provider built for
the same deployment (its children give the NICs), so :func:`remember` keeps each component of
:data:`~.components.PLAIN` a ``Construct`` builds, by its deployment's resource monitor and its
URN, and the resource module :func:`install` registers gives it back. A reference to one this
provider did not build (another deployment's, another provider's) stays a URN, refused by the
component that takes it as a value of the wrong type, naming the property.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any

import pulumi
from pulumi.runtime import rpc, settings

from ..defaults import type_token
from . import PACKAGE_NAME
from .components import PLAIN

__all__ = ["install", "remember", "checkable"]

_LOCK = threading.RLock()
_BUILT: dict[int, tuple[Any, dict[str, pulumi.Resource]]] = {}
"""id(monitor) -> (the monitor, kept alive so its id is not reused; URN -> component)."""
_TYPES = tuple(plain.component for plain in PLAIN)
_TOKENS = frozenset(type_token(plain.name) for plain in PLAIN)
_installed = False


def _table() -> dict[str, pulumi.Resource]:
    monitor = settings.SETTINGS.monitor
    with _LOCK:
        found = _BUILT.get(id(monitor))
        if found is None or found[0] is not monitor:
            found = _BUILT[id(monitor)] = (monitor, {})
        return found[1]


def remember(component: pulumi.Resource) -> None:
    """Keep ``component`` (built by a ``Construct``) for the references a later ``Construct``
    of the same deployment makes to it, if it is a component other components take."""
    if not isinstance(component, _TYPES):
        return
    table = _table()

    def keep(urn: str) -> None:
        with _LOCK:
            table[urn] = component

    component.urn.apply(keep)


class _Module(rpc.ResourceModule):
    """The resource module of ``dws:index``: a reference to a component this provider built for
    the current deployment is that component; any other stays its URN."""

    def version(self) -> Any:
        return None

    def construct(self, name: str, typ: str, urn: str) -> Any:
        with _LOCK:
            found = _table().get(urn)
        return found if found is not None else urn


def install() -> None:
    """Register the resource module (once a process)."""
    global _installed
    with _LOCK:
        if _installed:
            return
        _installed = True
    rpc.register_resource_module(PACKAGE_NAME, "index", _Module())


def checkable(inputs: Mapping[str, Any]) -> dict[str, Any]:
    """``inputs`` without the references to components this provider does not hold (what a
    reference became without its component: its URN), for ``Check``: it runs outside any
    deployment, so such a reference is judged by ``Construct``, and the other inputs now."""
    return {key: value for key, value in inputs.items() if not _unresolved(value)}


def _unresolved(value: Any) -> bool:
    if not isinstance(value, str) or not value.startswith("urn:pulumi:"):
        return False
    parts = value.split("::")
    return len(parts) >= 4 and parts[2].rsplit("$", 1)[-1] in _TOKENS
