"""What a component's spec model says about each of its arguments, without running anything.

The spec (a :class:`~pulumi_dws.models.DwsModel`) is the one declaration of a component's
fields: :func:`describe` reads it and returns a :class:`ModelInfo`: for every field its type
(:class:`FieldType`: string, integer, duration, list, map, nested object, union...), the Python
type users write (:attr:`FieldInfo.python_type`), whether it is required, its default, its
description, its closed set of values (a ``Literal`` or :func:`~pulumi_dws.fields.OneOf`), the
limits row that bounds it (:func:`~pulumi_dws.fields.Within`), whether it must be known while
the program runs (:class:`~pulumi_dws.fields.Known`) and whether it is secret
(:class:`~pulumi_dws.fields.Secret`)::

    from pulumi_dws import registry
    from pulumi_dws.package.introspect import describe

    kind = registry.kind("queued_tpus")
    info = describe(kind.spec)
    [(f.name, f.type.kind, f.required) for f in info.fields]

The package schema (:mod:`.schema`), the args ``TypedDict`` s users write (:mod:`.args`) and
the components' pages under ``docs/components/`` (:mod:`.docs`) are generated from it.

Where the spec takes anything (``Any``, a field whose own check decides), its
:class:`~pulumi_dws.fields.Takes` says what users may write. Python objects a field also takes
(a :class:`datetime.timedelta`, a ``CalendarReservation``...) are listed as
:attr:`FieldType.python_only`: other languages write the plain value instead. Descriptions are
the attribute docstrings written under the spec's fields (a base spec's for the fields it
declares), or a field's ``description``.
"""

from __future__ import annotations

import ast
import datetime as dt
import inspect
import textwrap
import types
import typing
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import pulumi
from pydantic import BaseModel

from ..duration import Duration
from ..fields import Known, Secret, Takes
from .python_types import PyType, args_name, python_type

__all__ = [
    "MISSING",
    "FieldType",
    "FieldInfo",
    "ModelInfo",
    "describe",
    "describe_type",
    "attribute_docstrings",
]

MISSING: Any = inspect.Parameter.empty
"""The default of a field that has none (a required one)."""

KINDS = (
    "string",
    "integer",
    "number",
    "boolean",
    "duration",
    "timestamp",
    "list",
    "map",
    "object",
    "union",
    "any",
)
"""Every :attr:`FieldType.kind`."""


@dataclass(frozen=True)
class FieldType:
    """The type of a field (or of an item of a list or map).

    Attributes:
        kind: one of :data:`KINDS`. ``duration``: a length of time (``"3d"``, ``"90m"``, a
            number of seconds); ``timestamp``: an RFC 3339 time; ``union``: one of
            :attr:`options`.
        items: the type of a list's items or a map's values.
        model: a nested object's fields.
        enum: the closed set of values, if any (in the order declared).
        options: a union's members.
        python_only: Python types the field also takes, which other languages cannot send
            (``RelativeTime``, ``timedelta``, ``CalendarReservation``...).
    """

    kind: str
    items: FieldType | None = None
    model: ModelInfo | None = None
    enum: tuple[Any, ...] = ()
    options: tuple[FieldType, ...] = ()
    python_only: tuple[str, ...] = ()


@dataclass(frozen=True)
class FieldInfo:
    """One argument of a component (or of a nested object).

    Attributes:
        name: its Python name (``max_run_duration``).
        type: its type.
        required: whether it must be given.
        default: its default (:data:`MISSING` for a required field); a ``None`` default means
            "not set".
        description: its docstring, as written (reStructuredText), or None.
        python_type: the Python type users write for it (in its args ``TypedDict``).
        known: why its value must be known while the program runs (an Output is refused), or
            None when an Output is taken (and checked once known).
        secret: whether it holds a secret.
        limits: the :mod:`pulumi_dws.limits` row that bounds it, if any.
        shared: whether it is one of the settings the spec shares with other components
            (:attr:`~pulumi_dws.models.DwsModel.shared_fields`).
        outputs_in_items: a list that must be known (``known``) whose items may be Outputs.
    """

    name: str
    type: FieldType
    required: bool
    default: Any = MISSING
    description: str | None = None
    known: str | None = None
    secret: bool = False
    limits: str | None = None
    shared: bool = False
    outputs_in_items: bool = False
    python_type: PyType | None = None


@dataclass(frozen=True)
class ModelInfo:
    """A spec model (a component's args or a nested object of them).

    Attributes:
        name: its public name: the spec's without a leading ``_`` and a trailing ``Spec``
            (``_SlurmLoginSpec``: ``SlurmLogin``), the name of its schema type.
        spec: the spec model.
        description: the spec's docstring, or None.
        fields: its fields, in the order users read them (own first, then shared settings).
    """

    name: str
    spec: type[BaseModel]
    description: str | None
    fields: tuple[FieldInfo, ...] = field(default=())

    def field(self, name: str) -> FieldInfo | None:
        """The field named ``name`` (its Python name), or None."""
        return next((f for f in self.fields if f.name == name), None)

    @property
    def args_name(self) -> str:
        """The name of its generated args ``TypedDict`` (``SlurmLoginArgs``)."""
        return args_name(self.spec)


# ---------------------------------------------------------------------------- models
def describe(spec: type[BaseModel], args: type | None = None) -> ModelInfo:
    """What ``spec`` says about each field. (``args``, its args ``TypedDict``, is not read: it
    is generated from the spec; the parameter stays for callers that pass it.)"""
    return _describe(spec)


@cache
def _describe(spec: type[BaseModel]) -> ModelInfo:
    docs = attribute_docstrings(spec)
    shared: frozenset[str] = getattr(spec, "shared_fields", frozenset())
    ordered = [n for n in spec.model_fields if n not in shared] + [
        n for n in spec.model_fields if n in shared
    ]
    fields = []
    for name in ordered:
        info = spec.model_fields[name]
        metadata = list(info.metadata)
        annotation = info.annotation
        required = info.is_required()
        default = MISSING if required else info.get_default(call_default_factory=True)
        fields.append(
            FieldInfo(
                name=name,
                type=_field_type(annotation, metadata, None),
                required=required,
                default=default,
                description=info.description or docs.get(name),
                known=_known(annotation, metadata),
                outputs_in_items=_outputs_in_items(annotation, metadata),
                secret=_marked(annotation, metadata, Secret),
                limits=_limits(annotation, metadata),
                shared=name in shared,
                python_type=python_type(annotation, metadata),
            )
        )
    return ModelInfo(
        name=_public_name(spec),
        spec=spec,
        description=_doc(spec),
        fields=tuple(fields),
    )


def _public_name(spec: type[BaseModel]) -> str:
    return args_name(spec)[: -len("Args")]


def _doc(cls: type | None) -> str | None:
    if cls is None or cls.__doc__ is None:
        return None
    inherited = [base.__doc__ for base in cls.__mro__[1:] if base.__doc__]
    if cls.__doc__ in inherited:  # a pydantic model without one of its own
        return None
    return inspect.cleandoc(cls.__doc__)


# ---------------------------------------------------------------------------- docstrings
def attribute_docstrings(cls: type | None) -> dict[str, str]:
    """The docstrings written under a class's annotated attributes (``name: str`` then
    ``\"\"\"Its text.\"\"\"``), its bases' included; a subclass's own docstring wins."""
    if cls is None:
        return {}
    return dict(_attribute_docstrings(cls))


@cache
def _attribute_docstrings(cls: type) -> tuple[tuple[str, str], ...]:
    found: dict[str, str] = {}
    for base in reversed(_bases(cls)):
        found.update(_own_docstrings(base))
    found.update(_own_docstrings(cls))
    return tuple(found.items())


def _bases(cls: type) -> list[type]:
    """The classes ``cls`` inherits attributes from (nearest first)."""
    return [base for base in cls.__mro__[1:] if base not in (object, BaseModel)]


def _class_node(cls: type) -> ast.ClassDef | None:
    try:
        source = textwrap.dedent(inspect.getsource(cls))
    except (OSError, TypeError):  # no source (a class made at run time)
        return None
    return next((n for n in ast.parse(source).body if isinstance(n, ast.ClassDef)), None)


def _own_docstrings(cls: type) -> dict[str, str]:
    node = _class_node(cls)
    if node is None:
        return {}
    docs: dict[str, str] = {}
    body = node.body
    for stmt, after in zip(body, body[1:], strict=False):
        if (
            isinstance(stmt, ast.AnnAssign)
            and isinstance(stmt.target, ast.Name)
            and isinstance(after, ast.Expr)
            and isinstance(after.value, ast.Constant)
            and isinstance(after.value.value, str)
        ):
            docs[stmt.target.id] = inspect.cleandoc(after.value.value)
    return docs


# ---------------------------------------------------------------------------- types
def describe_type(annotation: Any, hint: Any = None) -> FieldType:
    """The :class:`FieldType` of an annotation (a spec's, or any Python type hint such as a
    component's output), with ``hint`` (the args' annotation) for what the spec leaves open."""
    return _field_type(annotation, [], hint)


def _field_type(annotation: Any, metadata: Sequence[Any], hint: Any) -> FieldType:
    base, meta = _unwrap(annotation)
    meta = [*metadata, *meta]
    takes = next((m.resolve() for m in meta if isinstance(m, Takes)), None)
    hint = takes if takes is not None else hint
    choices = _choices(meta)
    found = _type_of(base, _unwrap(hint)[0] if hint is not None else None)
    if choices and found.kind in ("string", "integer", "number") and not found.enum:
        found = FieldType(found.kind, enum=choices, python_only=found.python_only)
    return found


def _unwrap(annotation: Any) -> tuple[Any, list[Any]]:
    """``annotation`` without ``Annotated``, ``Required``/``NotRequired``, ``None`` and Pulumi
    ``Output``/``Input`` wrappers; the ``Annotated`` metadata met on the way."""
    meta: list[Any] = []
    while True:
        origin = typing.get_origin(annotation)
        args = typing.get_args(annotation)
        if origin is typing.Annotated:
            meta.extend(annotation.__metadata__)
            annotation = args[0]
            continue
        if getattr(origin, "_name", None) in ("Required", "NotRequired") or str(origin).endswith(
            ("Required", "NotRequired")
        ):
            annotation = args[0]
            continue
        if origin in (typing.Union, types.UnionType):
            members = [a for a in args if a is not type(None) and not _is_wrapper(a)]
            if len(members) == 1:
                annotation = members[0]
                continue
            if len(members) != len(args):
                annotation = typing.Union[tuple(members)]  # noqa: UP007 (a runtime union)
                continue
        if origin is pulumi.Output or origin is typing.Awaitable:
            annotation = args[0] if args else Any
            continue
        return annotation, meta


def _is_wrapper(annotation: Any) -> bool:
    """An Output/Awaitable of the same value (``str | Output[str]``) or a bare type variable."""
    origin = typing.get_origin(annotation)
    from collections.abc import Awaitable

    return (
        origin in (pulumi.Output, Awaitable, typing.Awaitable)
        or annotation is pulumi.Output
        or isinstance(annotation, typing.TypeVar)
    )


_PYTHON_ONLY_SCALARS: dict[Any, str] = {
    dt.timedelta: "datetime.timedelta",
    dt.datetime: "datetime.datetime",
}


def _type_of(annotation: Any, hint: Any) -> FieldType:
    """The type of an unwrapped annotation; ``hint`` (unwrapped too) when it says more."""
    if annotation is Any or isinstance(annotation, typing.TypeVar):
        if hint is not None and hint is not Any:
            return _type_of(hint, None)
        return FieldType("any")
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is typing.Literal:
        kinds = {_scalar_kind(type(v)) for v in args}
        only = kinds.pop() if len(kinds) == 1 else None
        return FieldType(only or "any", enum=tuple(args))
    if origin in (typing.Union, types.UnionType):
        hint_members = _union_members(hint)
        return _union([_type_of(a, _matching(a, hint_members)) for a in args])
    if annotation is Duration:
        return FieldType("duration", python_only=("pulumi_dws.Duration", "datetime.timedelta"))
    if annotation in _PYTHON_ONLY_SCALARS:
        kind = "timestamp" if annotation is dt.datetime else "duration"
        return FieldType(kind, python_only=(_PYTHON_ONLY_SCALARS[annotation],))
    scalar = _scalar_kind(annotation)
    if scalar is not None:
        return FieldType(scalar)
    container = origin or annotation
    if isinstance(container, type) and issubclass(container, BaseModel):
        return FieldType("object", model=_describe(container))
    if isinstance(container, type) and issubclass(container, Mapping | dict):
        value = args[1] if len(args) == 2 else Any
        hint_args = typing.get_args(hint) if hint is not None else ()
        hint_value = _unwrap(hint_args[1])[0] if len(hint_args) == 2 else None
        return FieldType("map", items=_type_of(_unwrap(value)[0], hint_value))
    if (
        isinstance(container, type)
        and issubclass(container, list | tuple | Sequence)
        and container is not str
    ):
        item = args[0] if args else Any
        hint_args = typing.get_args(hint) if hint is not None else ()
        hint_item = _unwrap(hint_args[0])[0] if hint_args else None
        item_type, item_meta = _unwrap(item)
        return FieldType("list", items=_field_type(item_type, item_meta, hint_item))
    if isinstance(annotation, type):
        return FieldType("any", python_only=(f"{annotation.__module__}.{annotation.__name__}",))
    return FieldType("any")


def _scalar_kind(annotation: Any) -> str | None:
    if annotation is bool:
        return "boolean"
    if annotation is int:
        return "integer"
    if annotation is float:
        return "number"
    if annotation is str:
        return "string"
    return None


def _union_members(hint: Any) -> list[Any]:
    if hint is None:
        return []
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        return [_unwrap(a)[0] for a in typing.get_args(hint)]
    return [hint]


def _matching(annotation: Any, members: list[Any]) -> Any:
    """The member of the args' union that stands for ``annotation`` (same origin), if any."""
    wanted = typing.get_origin(annotation) or annotation
    for member in members:
        if (typing.get_origin(member) or member) is wanted:
            return member
    return None


def _union(members: list[FieldType]) -> FieldType:
    """A union, simplified: Python-only members leave it (as :attr:`FieldType.python_only`),
    strings, durations and timestamps (all written as strings) merge, one member is itself."""
    python_only = tuple(p for m in members if m.kind == "any" for p in m.python_only)
    python_only += tuple(p for m in members if m.kind != "any" for p in m.python_only)
    kept = [m for m in members if not (m.kind == "any" and m.python_only)]
    if any(m.kind == "any" and not m.python_only for m in members):
        return FieldType("any", python_only=python_only)
    unique: list[FieldType] = []
    for member in kept:
        bare = FieldType(member.kind, member.items, member.model, member.enum, member.options)
        if bare not in unique:
            unique.append(bare)
    textual = {"string", "duration", "timestamp"}
    if len(unique) > 1 and all(m.kind in textual and not m.enum for m in unique):
        kinds = {m.kind for m in unique}
        kind = "string" if "string" in kinds or len(kinds) > 1 else kinds.pop()
        unique = [FieldType(kind)]
    if not unique:
        return FieldType("any", python_only=python_only)
    if len(unique) == 1:
        only = unique[0]
        return FieldType(only.kind, only.items, only.model, only.enum, only.options, python_only)
    return FieldType("union", options=tuple(unique), python_only=python_only)


# ---------------------------------------------------------------------------- markers
def _markers(annotation: Any, metadata: Sequence[Any]) -> list[Any]:
    """The metadata of a field and of the ``Annotated`` types inside its annotation."""
    found = list(metadata)
    pending = [annotation]
    while pending:
        current = pending.pop()
        if typing.get_origin(current) is typing.Annotated:
            found.extend(current.__metadata__)
            pending.append(typing.get_args(current)[0])
        elif typing.get_origin(current) in (typing.Union, types.UnionType):
            pending.extend(typing.get_args(current))
    return found


def _known(annotation: Any, metadata: Sequence[Any]) -> str | None:
    return next((m.reason for m in _markers(annotation, metadata) if isinstance(m, Known)), None)


def _outputs_in_items(annotation: Any, metadata: Sequence[Any]) -> bool:
    markers = _markers(annotation, metadata)
    return any(isinstance(m, Known) and m.outputs_in_items for m in markers)


def _marked(annotation: Any, metadata: Sequence[Any], marker: type) -> bool:
    return any(isinstance(m, marker) for m in _markers(annotation, metadata))


def _limits(annotation: Any, metadata: Sequence[Any]) -> str | None:
    for item in _markers(annotation, metadata):
        key = getattr(getattr(item, "func", None), "dws_limits", None)
        if key is not None:
            return str(key)
    return None


def _choices(metadata: Sequence[Any]) -> tuple[Any, ...]:
    for item in metadata:
        choices = getattr(getattr(item, "func", None), "dws_choices", None)
        if choices:
            return tuple(choices)
    return ()
