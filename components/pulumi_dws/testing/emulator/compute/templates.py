"""Instance templates of the emulated Compute API, global (``instanceTemplates``) and regional
(``regionInstanceTemplates``): stored as inserted, read by instances (``sourceInstanceTemplate``)
and by managed instance groups."""

from __future__ import annotations

import copy
import itertools
from typing import Any, ClassVar

from ..base import GoogleError, Request, Response
from ..discovery import DiscoverySchema
from ..routing import Api
from .common import COMPUTE_SELF_LINK_ROOT, Operation, last, not_found, timestamp
from .operations import ComputeStore, Shared, request_id

__all__ = ["TemplateStore", "TemplatesApi"]


class TemplateStore(ComputeStore):
    """Every instance template, by ``(project, scope, name)``; the scope is ``global`` or
    ``regions/<region>``."""

    def __init__(self, shared: Shared) -> None:
        super().__init__(shared)
        self._templates: dict[tuple[str, str, str], dict[str, Any]] = {}
        self._ids = itertools.count(1)

    @staticmethod
    def path(project: str, scope: str, name: str) -> str:
        return f"projects/{project}/{scope}/instanceTemplates/{name}"

    def put(self, project: str, body: dict[str, Any], scope: str = "global") -> str:
        """Store a template (Google's 400 without a name, 409 for a name taken); its
        selfLink."""
        name = body.get("name")
        if not name:
            raise GoogleError(400, "Required field 'resource.name' not specified", "required")
        target = self.path(project, scope, str(name))
        if (project, scope, name) in self._templates:
            raise GoogleError(409, f"The resource '{target}' already exists", "alreadyExists")
        stored = copy.deepcopy(body)
        stored.update(
            kind="compute#instanceTemplate",
            id=str(6_000_000_000 + next(self._ids)),
            selfLink=COMPUTE_SELF_LINK_ROOT + target,
        )
        if scope != "global":
            stored["region"] = f"{COMPUTE_SELF_LINK_ROOT}projects/{project}/{scope}"
        stored["creationTimestamp"] = timestamp(self.moment.at)
        self._templates[(project, scope, str(name))] = stored
        return str(stored["selfLink"])

    def found(self, project: str, scope: str, name: str) -> dict[str, Any]:
        """The stored template, or Google's 404."""
        template = self._templates.get((project, scope, name))
        if template is None:
            raise not_found(self.path(project, scope, name))
        return template

    def insert(
        self, project: str, scope: str, body: dict[str, Any], *, request_id: str | None = None
    ) -> Operation:
        def action() -> Operation:
            link = self.put(project, body, scope)
            target = link[len(COMPUTE_SELF_LINK_ROOT) :]
            return self.operations.new(project, "insert", target, scope=scope)

        return self.operations.once(project, request_id, action)

    def get(self, project: str, scope: str, name: str) -> dict[str, Any]:
        with self.lock:
            return copy.deepcopy(self.found(project, scope, name))

    def delete(
        self, project: str, scope: str, name: str, *, request_id: str | None = None
    ) -> Operation:
        def action() -> Operation:
            self.found(project, scope, name)
            del self._templates[(project, scope, name)]
            return self.operations.new(
                project, "delete", self.path(project, scope, name), scope=scope
            )

        return self.operations.once(project, request_id, action)

    def properties(self, project: str, url: str) -> dict[str, Any]:
        """A copy of the properties of the template ``url`` names (global or regional, in
        ``project`` when the URL names none); Google's 404 when there is none."""
        parts = url.split("/")
        owner = parts[parts.index("projects") + 1] if "projects" in parts[:-1] else project
        scope = "global"
        if "regions" in parts[:-1]:
            scope = f"regions/{parts[parts.index('regions') + 1]}"
        found = self.found(owner, scope, last(url))
        return copy.deepcopy(found.get("properties") or {})


class TemplatesApi(Api):
    """``instanceTemplates`` and ``regionInstanceTemplates``: insert, get, delete."""

    resources: ClassVar[tuple[str, ...]] = ("instanceTemplates", "regionInstanceTemplates")

    def __init__(self, templates: TemplateStore, schema: DiscoverySchema) -> None:
        self.templates = templates
        self.schema = schema

    @staticmethod
    def _scope(req: Request) -> str:
        region = req.params.get("region")
        return f"regions/{region}" if region else "global"

    def insert(self, req: Request) -> Response:
        body = req.body or {}
        self.schema.require("InstanceTemplate", body, root="instance_template")
        op = self.templates.insert(
            req.params["project"], self._scope(req), body, request_id=request_id(req)
        )
        return Response(200, op)

    def get(self, req: Request) -> Response:
        p = req.params
        return Response(
            200, self.templates.get(p["project"], self._scope(req), p["instanceTemplate"])
        )

    def delete(self, req: Request) -> Response:
        p = req.params
        op = self.templates.delete(
            p["project"], self._scope(req), p["instanceTemplate"], request_id=request_id(req)
        )
        return Response(200, op)
