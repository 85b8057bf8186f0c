"""The outputs of a component class, read from its annotations: what a program in another
language reads from it (``instanceName``, ``status``, ``gpusTotal``...).

An output is a public attribute annotated on the class (``state: pulumi.Output[str]``, with
its docstring under it) or a public property whose return annotation says what it gives
(``def run_ends_at(self) -> pulumi.Output[str | None]``, its docstring the description), of a
value a program can use: an ``Output`` of one, or a plain string, number, boolean, list or
mapping. Child resources, the validated ``spec`` and private names are not outputs, nor
``id`` and ``urn``, which every resource has.
"""

from __future__ import annotations

import inspect
import sys
import types
import typing
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

import pulumi

from .introspect import FieldType, attribute_docstrings, describe_type

__all__ = ["OutputInfo", "component_outputs", "RESERVED"]

RESERVED = frozenset({"id", "urn", "spec"})
"""Names that are never outputs: every resource's ``id`` and ``urn``, and the validated args."""


@dataclass(frozen=True)
class OutputInfo:
    """One output of a component.

    Attributes:
        name: its Python name (``gpus_total``).
        type: the type of its value.
        optional: whether it may be None (``str | None``).
        description: its docstring, as written, or None.
    """

    name: str
    type: FieldType
    optional: bool
    description: str | None


def component_outputs(component: type) -> tuple[OutputInfo, ...]:
    """The outputs of ``component``, annotated attributes first, then properties, each in the
    order the class declares them."""
    return _outputs(component)


@cache
def _outputs(component: type) -> tuple[OutputInfo, ...]:
    docs = attribute_docstrings(component)
    found: dict[str, OutputInfo] = {}
    for name, annotation in _annotations(component).items():
        info = _output(name, annotation, docs.get(name))
        if info is not None:
            found.setdefault(name, info)
    for name, prop in _properties(component):
        hint = _return_hint(prop)
        if hint is None:
            continue
        doc = inspect.cleandoc(prop.__doc__) if prop.__doc__ else None
        info = _output(name, hint, doc)
        if info is not None:
            found.setdefault(name, info)
    return tuple(found.values())


def _namespace(cls: type) -> dict[str, Any]:
    module = sys.modules.get(cls.__module__)
    namespace = dict(vars(module)) if module is not None else {}
    namespace.setdefault("pulumi", pulumi)
    return namespace


def _annotations(component: type) -> dict[str, Any]:
    """The class's own annotations (and its bases' below ``ComponentResource``), resolved one
    by one: a name only a type checker knows leaves that annotation out, not the others."""
    found: dict[str, Any] = {}
    for cls in reversed(component.__mro__):
        if cls is object or not issubclass(cls, pulumi.ComponentResource):
            continue
        if cls is pulumi.ComponentResource or cls.__module__.startswith("pulumi."):
            continue
        namespace = _namespace(cls)
        for name, annotation in inspect.get_annotations(cls).items():
            found[name] = _resolve(annotation, namespace)
    return found


def _resolve(annotation: Any, namespace: dict[str, Any]) -> Any:
    if not isinstance(annotation, str):
        return annotation
    try:
        return eval(annotation, namespace)  # noqa: S307 - the class's own annotation
    except Exception:  # noqa: BLE001 - a name only a type checker knows
        return None


def _properties(component: type) -> list[tuple[str, property]]:
    seen: set[str] = set()
    found: list[tuple[str, property]] = []
    for cls in component.__mro__:
        if cls is pulumi.ComponentResource or cls.__module__.startswith("pulumi."):
            break
        for name, value in vars(cls).items():
            if isinstance(value, property) and name not in seen:
                seen.add(name)
                found.append((name, value))
    return found


def _return_hint(prop: property) -> Any:
    if prop.fget is None:
        return None
    annotation = inspect.get_annotations(prop.fget).get("return")
    if annotation is None:
        return None
    return _resolve(annotation, _namespace_of(prop.fget))


def _namespace_of(func: Any) -> dict[str, Any]:
    namespace = dict(getattr(func, "__globals__", {}))
    namespace.setdefault("pulumi", pulumi)
    return namespace


def _output(name: str, annotation: Any, description: str | None) -> OutputInfo | None:
    if name.startswith("_") or name in RESERVED or annotation is None:
        return None
    value, optional = _value_type(annotation)
    if value is None or not _plain_data(value):
        return None
    return OutputInfo(name, describe_type(value), optional, description)


def _value_type(annotation: Any) -> tuple[Any, bool]:
    """The type of the value an attribute holds (``Output[T]`` and ``T | Output[T]`` hold a
    ``T``), and whether it may be None."""
    origin = typing.get_origin(annotation)
    if origin is pulumi.Output:
        args = typing.get_args(annotation)
        return _value_type(args[0]) if args else (None, False)
    if origin in (typing.Union, types.UnionType):
        members = typing.get_args(annotation)
        optional = type(None) in members
        values = []
        for member in members:
            if member is type(None):
                continue
            value, inner_optional = _value_type(member)
            optional = optional or inner_optional
            values.append(value)
        unique = [v for i, v in enumerate(values) if v not in values[:i]]
        if len(unique) == 1:
            return unique[0], optional
        return None, optional
    return annotation, False


def _plain_data(value: Any) -> bool:
    """A value a program in any language can read: a string, number, boolean, or a list or
    mapping of them (not a resource, a model or another object)."""
    if value in (str, int, float, bool, Any):
        return True
    origin = typing.get_origin(value)
    args = typing.get_args(value)
    if origin in (list, tuple, Sequence):
        return all(_plain_data(a) for a in args if a is not Ellipsis)
    if origin in (dict, Mapping):
        return all(_plain_data(a) for a in args)
    if origin in (typing.Union, types.UnionType):
        return all(a is type(None) or _plain_data(a) for a in args)
    return False  # a resource, a model, any other object
