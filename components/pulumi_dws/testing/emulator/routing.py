"""Routes found by convention: an emulated resource's handlers are named after its API methods,
and where each method lives comes from the API's discovery document.

An :class:`Api` says which resources of the document it answers (``resources = ("instances",)``,
``("projects.locations.queuedResources",)``) and has one handler per method of theirs, named
as the method in snake_case (``insert``, ``set_labels``, ``list_managed_instances``).
:func:`discovered_routes` reads each method's HTTP verb and path from the document and binds it
to its handler: a method without a handler is an error when the routes are built, so the
document (``scripts/generate_emulator_schemas.py`` cuts it to the methods the emulator serves)
and the handlers cannot drift apart. Path parameters are named as the document names them
(``project``, ``zone``, ``instance``; a one-platform API's ``projectsId`` is ``project``, its
``queuedResourcesId`` is ``queuedResource``) and checked against the document's patterns
before the handler runs, as Google checks them (a ``400``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar
from urllib.parse import unquote

from .base import Handler, Request, Response, Route
from .discovery import DiscoverySchema

__all__ = ["Api", "Method", "discovered_routes", "methods_of", "snake"]

_PARAM = re.compile(r"\{(\+?)([A-Za-z0-9_]+)\}")
_CAMEL = re.compile(r"(?<!^)([A-Z])")


def snake(name: str) -> str:
    """``setLabels`` -> ``set_labels``: a method's handler name."""
    return _CAMEL.sub(r"_\1", name).lower()


def _param_name(flat: str) -> str:
    """A flat path's ``projectsId`` / ``queuedResourcesId`` -> ``project`` / ``queuedResource``;
    other names as they are."""
    if flat.endswith("sId"):
        return flat[: -len("sId")]
    return flat


class Api:
    """The HTTP side of one emulated resource: one handler per method of the discovery
    resources it answers (see the module doc).

    Attributes:
        resources: the document's resource paths it answers (``instances``,
            ``projects.locations.queuedResources``).
        check_paths: whether path parameters are checked against the document's patterns
            before a handler runs.
    """

    resources: ClassVar[tuple[str, ...]] = ()
    check_paths: ClassVar[bool] = True


@dataclass(frozen=True)
class Method:
    """One method of a discovery document: its id, HTTP verb, and path templates (``path``
    with ``{+name}`` parameters; ``flat`` with one parameter per segment)."""

    id: str
    http: str
    path: str
    flat: str

    @property
    def name(self) -> str:
        return self.id.rsplit(".", 1)[-1]

    def patterns_for(self, prefix: str, versions: Mapping[str, str]) -> tuple[str, str]:
        """The regex a request path must match (each flat parameter one segment; the last one
        stops at ``:``, where a custom verb begins), and the regex that reads the method's
        path parameters (``{+parent}`` spans segments) from the same path."""
        head, flat, path = _literal(prefix), self.flat, self.path
        for version, alternative in versions.items():
            if flat.startswith(version + "/") and path.startswith(version + "/"):
                head += alternative + "/"
                flat, path = flat[len(version) + 1 :], path[len(version) + 1 :]
                break
        return head + _template(flat, flat=True), head + _template(path, flat=False)


def _template(template: str, *, flat: bool) -> str:
    params = list(_PARAM.finditer(template))
    out, at = "", 0
    for i, found in enumerate(params):
        out += _literal(template[at : found.start()])
        if flat:
            last = i == len(params) - 1 and found.end() == len(template)
            name, segment = _param_name(found.group(2)), r"[^/:]+" if last else r"[^/]+"
        else:
            name, segment = found.group(2), r".+?" if found.group(1) else r"[^/]+"
        out += f"(?P<{name}>{segment})"
        at = found.end()
    return out + _literal(template[at:])


def _literal(text: str) -> str:
    return re.escape(text).replace(r"\/", "/")


def methods_of(document: Mapping[str, Any], resource: str) -> Iterator[Method]:
    """The methods of ``resource`` (a dotted path under the document's ``resources``)."""
    node: Mapping[str, Any] = document
    for part in resource.split("."):
        node = (node.get("resources") or {}).get(part) or {}
    for spec in (node.get("methods") or {}).values():
        path = str(spec["path"])
        yield Method(
            str(spec["id"]), str(spec["httpMethod"]), path, str(spec.get("flatPath") or path)
        )


def discovered_routes(
    schema: DiscoverySchema,
    apis: list[Api],
    *,
    versions: Mapping[str, str] | None = None,
    wrap: Callable[[Handler], Handler] | None = None,
) -> list[Route]:
    """The routes of every method the ``apis`` answer, from ``schema``'s document.

    ``versions`` lets a path's version segment take other spellings (Vertex AI answers
    ``v1`` operation paths too: ``{"v1beta1": "v1(?:beta1)?"}``); ``wrap`` wraps each handler
    (a service that loses answers on request).
    """
    prefix = "/" + str(schema.document.get("servicePath") or "")
    routes: list[Route] = []
    for api in apis:
        if not api.resources:
            raise TypeError(f"{type(api).__name__} names no API resource it answers")
        for resource in api.resources:
            found = list(methods_of(schema.document, resource))
            if not found:
                raise TypeError(f"{schema.name} has no methods under {resource!r}")
            for method in found:
                handler = getattr(api, snake(method.name), None)
                if handler is None:
                    raise TypeError(
                        f"{type(api).__name__} has no handler {snake(method.name)}() for "
                        f"{method.id}"
                    )
                pattern, reads = method.patterns_for(prefix, versions or {})
                bound = _checked(schema, method, handler, reads) if api.check_paths else handler
                routes.append(Route.of(method.http, pattern, wrap(bound) if wrap else bound))
    return routes


def _checked(schema: DiscoverySchema, method: Method, handler: Handler, reads: str) -> Handler:
    shape = re.compile(r"\A" + reads + r"\Z")

    def run(request: Request) -> Response:
        match = shape.match(request.path)
        if match is not None:
            values = {name: unquote(value) for name, value in match.groupdict().items()}
            schema.check_path(method.id, values, {})
        return handler(request)

    return run
