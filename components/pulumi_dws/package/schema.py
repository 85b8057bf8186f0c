"""The package schema of ``dws``: every component it serves, generated from the kind registry
(:func:`pulumi_dws.registry.kinds`) and the components that hold no capacity
(:mod:`.components`), each one's spec and args (:mod:`.introspect`) and its
component's outputs (:mod:`.component_outputs`). Nothing in it is written by hand.

Each component is a resource ``dws:index:<Name>`` with ``isComponent``: its inputs are the
spec's fields spelled as other languages write them (``maxRunDuration``), with their
descriptions; a closed set of values is an enum type (``dws:index:FlexStartInstanceWaitFor``),
a nested object an object type named after its args (``dws:index:SlurmLogin``); a field the
program must know while it runs (:class:`~pulumi_dws.fields.Known`) is ``plain``; a secret one
(:class:`~pulumi_dws.fields.Secret`) is ``secret``. Durations and timestamps are strings
(``"3d"``, ``"2027-03-01T00:00:00Z"``). Defaults are told in the descriptions rather than as
schema defaults, so a generated SDK sends only what the program wrote, as the Python API gets
it.

``provider/schema.json`` is its checked-in copy; regenerate it (with the other generated
files) with ``python scripts/generate.py``, or alone with::

    python -m pulumi_dws.package.schema > provider/schema.json
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable
from functools import cache
from importlib import metadata
from typing import Any

from .. import registry
from ..defaults import type_token
from . import PACKAGE_NAME
from .component_outputs import component_outputs
from .components import ServedComponent, served_components, taken_component
from .introspect import MISSING, FieldInfo, FieldType, ModelInfo, describe
from .names import camel, pascal
from .text import first_paragraph, markdown

__all__ = ["package_schema", "schema_json", "package_version", "ANY", "SERVED_MODULE"]

ANY = "pulumi.json#/Any"
"""The schema's type of a value of any type."""

SERVED_MODULE = registry.SERVED_PREFIX.split(":")[1]
"""The module of the custom resources the provider serves for the components' dynamic
resources (``dws:dynamic:QueuedTpu``); they are not in the schema (programs never register
them, components do)."""

DESCRIPTION = (
    "Pulumi components for Google Cloud's Dynamic Workload Scheduler (DWS): Flex-start GPU VMs "
    "and groups, queued GKE node pools and their Kueue queues, Slurm clusters, Calendar-mode "
    "reservations and Cloud TPU queued resources, and the RDMA networks A3 Ultra, A4, A4X and "
    "H4D VMs train across, with their arguments checked before anything is created."
)


def package_version() -> str:
    """The version of the installed ``pulumi-dws`` distribution (the package's version)."""
    try:
        return metadata.version("pulumi-dws")
    except metadata.PackageNotFoundError:  # pragma: no cover - run from a bare source tree
        return "0.0.0"


def package_schema() -> dict[str, Any]:
    """The package schema, as a JSON-able dict (a new copy each call)."""
    return json.loads(schema_json())


@cache
def schema_json() -> str:
    """The package schema as the provider serves it and ``provider/schema.json`` holds it:
    indented JSON ending with a newline."""
    builder = _Builder()
    for kind in served_components():
        builder.component(kind)
    return json.dumps(builder.schema(), indent=2, ensure_ascii=False) + "\n"


class _Builder:
    def __init__(self) -> None:
        self.resources: dict[str, Any] = {}
        self.types: dict[str, Any] = {}
        self._models: dict[str, ModelInfo] = {}

    def schema(self) -> dict[str, Any]:
        return {
            "name": PACKAGE_NAME,
            "displayName": "pulumi-dws",
            "version": package_version(),
            "description": DESCRIPTION,
            "keywords": ["pulumi", "gcp", "dws", "gpu", "tpu", "kind/component"],
            "license": "Apache-2.0",
            "meta": {"moduleFormat": "(.*)"},
            "language": {
                # A Python SDK generated from this schema must not shadow the library itself.
                "python": {"packageName": "pulumi_dws_sdk", "respectSchemaVersion": True},
                "nodejs": {"respectSchemaVersion": True},
                "go": {"respectSchemaVersion": True},
                "csharp": {"respectSchemaVersion": True},
            },
            "resources": dict(sorted(self.resources.items())),
            "types": dict(sorted(self.types.items())),
        }

    # -------------------------------------------------------------- components
    def component(self, kind: ServedComponent) -> None:
        token = type_token(kind.name)
        component = kind.component
        if not isinstance(component, type):
            raise TypeError(f"{kind.name}: its component is not a class")
        declared = getattr(component, "TYPE", None) or _module_type(component)
        if declared is not None and declared != token:
            raise ValueError(f"{kind.name}: its component's type is {declared}, not {token}")
        model = describe(kind.spec)
        properties, required = self._properties(kind.name, model)
        outputs, always = self._outputs(component)
        self.resources[token] = {
            "description": markdown(first_paragraph(component.__doc__), _renames(model)),
            "isComponent": True,
            "inputProperties": properties,
            "requiredInputs": required,
            "properties": outputs,
            "required": always,
        }

    def _properties(self, owner: str, model: ModelInfo) -> tuple[dict[str, Any], list[str]]:
        names = _renames(model)
        properties: dict[str, Any] = {}
        for info in model.fields:
            known = info.known is not None
            # A list that must be known whose items may be outputs: plain, its items not.
            spec = self._type(
                owner, info.name, info.type, plain=known and not info.outputs_in_items
            )
            if known:
                spec["plain"] = True
            description = _field_description(info, names)
            if description:
                spec["description"] = description
            if info.secret:
                spec["secret"] = True
            properties[camel(info.name)] = spec
        required = [camel(f.name) for f in model.fields if f.required]
        return properties, required

    def _outputs(self, component: type) -> tuple[dict[str, Any], list[str]]:
        properties: dict[str, Any] = {}
        required: list[str] = []
        for output in component_outputs(component):
            spec = self._type(component.__name__, output.name, output.type, plain=False)
            description = markdown(output.description)
            if description:
                spec["description"] = description
            properties[camel(output.name)] = spec
            if not output.optional:
                required.append(camel(output.name))
        return properties, required

    # -------------------------------------------------------------- types
    def _type(self, owner: str, field: str, kind: FieldType, *, plain: bool) -> dict[str, Any]:
        spec = self._bare_type(owner, field, kind, plain=plain)
        if plain:
            spec["plain"] = True
        return spec

    def _bare_type(self, owner: str, field: str, kind: FieldType, *, plain: bool) -> dict[str, Any]:
        if kind.enum:
            return {"$ref": f"#/types/{self._enum(owner, field, kind)}"}
        if kind.kind in ("string", "duration", "timestamp"):
            return {"type": "string"}
        if kind.kind in ("integer", "number", "boolean"):
            return {"type": kind.kind}
        if kind.kind == "list" and kind.items is not None:
            return {"type": "array", "items": self._type(owner, field, kind.items, plain=plain)}
        if kind.kind == "map" and kind.items is not None:
            values = self._type(owner, field, kind.items, plain=plain)
            return {"type": "object", "additionalProperties": values}
        if kind.kind == "object" and kind.model is not None:
            return {"$ref": f"#/types/{self._object(kind.model)}"}
        if kind.kind == "union":
            return {"oneOf": [self._bare_type(owner, field, o, plain=plain) for o in kind.options]}
        taken = taken_component(kind)
        if taken is not None:  # a component of this package, passed as a resource reference
            return {"$ref": f"#/resources/{type_token(taken.name)}"}
        return {"$ref": ANY}

    def _enum(self, owner: str, field: str, kind: FieldType) -> str:
        token = f"{PACKAGE_NAME}:index:{owner}{pascal(field)}"
        primitive = kind.kind if kind.kind in ("integer", "number", "boolean") else "string"
        spec = {
            "description": f"The values of `{camel(field)}` of `{owner}`.",
            "type": primitive,
            "enum": [{"value": value} for value in kind.enum],
        }
        self._add_type(token, spec)
        return token

    def _object(self, model: ModelInfo) -> str:
        token = f"{PACKAGE_NAME}:index:{model.name}"
        known = self._models.get(token)
        if known is not None:
            if known is not model and known != model:
                raise ValueError(f"two argument objects are named {model.name}")
            return token
        self._models[token] = model
        properties, required = self._properties(model.name, model)
        spec: dict[str, Any] = {"type": "object", "properties": properties}
        if required:
            spec["required"] = required
        description = markdown(first_paragraph(model.description), _renames(model))
        if description:
            spec["description"] = description
        self._add_type(token, spec)
        return token

    def _add_type(self, token: str, spec: dict[str, Any]) -> None:
        if token in self.types and self.types[token] != spec:
            raise ValueError(f"two different types are named {token}")
        self.types[token] = spec


def _module_type(component: type) -> str | None:
    module = sys.modules.get(component.__module__)
    token = getattr(module, "TYPE", None)
    return token if isinstance(token, str) else None


def _renames(model: ModelInfo) -> dict[str, str]:
    """Python argument name -> the schema's, for the names a description quotes; a name that
    is also one of the model's values (``flex_start``, a mode) is left as written."""
    values = {str(v) for f in model.fields for v in _enum_values(f.type)}
    return {f.name: camel(f.name) for f in model.fields if f.name not in values}


def _enum_values(kind: FieldType) -> Iterable[Any]:
    yield from kind.enum
    if kind.items is not None:
        yield from _enum_values(kind.items)
    for option in kind.options:
        yield from _enum_values(option)


def _field_description(info: FieldInfo, names: dict[str, str]) -> str:
    parts = [markdown(info.description, names)] if info.description else []
    default = info.default
    mentioned = "default" in (info.description or "").lower()
    if (
        not info.required
        and not mentioned
        and default is not MISSING
        and isinstance(default, str | int | float | bool)
        and not isinstance(default, type)
    ):
        parts.append(f"Default: `{json.dumps(default)}`.")
    if info.known is not None and info.outputs_in_items:
        parts.append(f"A plain list (not an output; its items may be outputs): {info.known}.")
    elif info.known is not None:
        parts.append(f"A plain value (not an output): {info.known}.")
    others = () if taken_component(info.type) is not None else _python_only(info.type)
    if others:
        listed = " or a ".join(f"`{name.rsplit('.', 1)[-1]}`" for name in others)
        parts.append(f"(Python programs may also pass a {listed}.)")
    return " ".join(p for p in parts if p)


def _python_only(kind: FieldType) -> tuple[str, ...]:
    found = list(kind.python_only)
    if kind.items is not None:
        found += _python_only(kind.items)
    return tuple(dict.fromkeys(found))


def main() -> None:
    """Print the package schema (``python -m pulumi_dws.package.schema``)."""
    sys.stdout.write(schema_json())


if __name__ == "__main__":
    main()
