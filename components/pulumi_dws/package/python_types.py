"""The Python types users write for a spec's fields, as source: what the generated args
``TypedDict`` s declare (:mod:`.args`), so that an editor and mypy check a program's arguments.

:func:`python_type` reads a spec field's annotation:

* ``str``, ``int``, ``float``, ``bool``, ``None`` and ``Literal[...]`` are themselves; a string
  checked with :func:`~pulumi_dws.fields.OneOf` is a ``Literal`` of its values (in both cases
  when they are compared upper-cased);
* a :class:`~pulumi_dws.duration.Duration` is a ``DurationLike``, a list a ``Sequence``, a
  dict a ``Mapping``, a nested spec its args ``TypedDict`` (:func:`args_name`);
* :data:`~pulumi_dws.fields.MaybeOutput` adds ``pulumi.Output[...]`` of the same data (an
  Output carries strings, numbers, lists, mappings: never a Python object such as a
  ``CalendarReservation`` or a ``datetime``);
* :class:`~pulumi_dws.fields.Takes` says what a field takes where its validated type says less
  (``Any`` with a check of its own, a mapping of any values);
* any other class is itself, imported from its module.

A :class:`PyType` renders as source (``str | pulumi.Output[str]``), with the imports it needs
(:meth:`PyType.imports`) and laid out as ``ruff format`` lays it out (:func:`annotation_lines`).
"""

from __future__ import annotations

import datetime as dt
import types
import typing
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import pulumi
from pydantic import BaseModel

from ..duration import Duration
from ..fields import Takes

__all__ = [
    "SDK_PACKAGES",
    "LINE_LENGTH",
    "PyType",
    "Import",
    "args_name",
    "args_module",
    "python_type",
    "annotation_lines",
]

LINE_LENGTH = 100
"""The line length of the repository (``ruff`` and ``ruff format``)."""


@dataclass(frozen=True, order=True)
class Import:
    """What a type needs imported: ``import module`` (``name`` empty) or ``from module import
    name``."""

    module: str
    name: str = ""

    def line(self) -> str:
        return f"from {self.module} import {self.name}" if self.name else f"import {self.module}"


@dataclass(frozen=True)
class PyType:
    """A type users write, as source.

    Attributes:
        shape: ``name`` (a name: ``str``, ``pulumi.Output``, ``SlurmLoginArgs``), ``generic``
            (``name[args...]``), ``union`` (``args[0] | args[1]...``) or ``literal``.
        name: a name's (or a generic's) source text.
        imported: what the name needs imported, if anything.
        args: a generic's arguments or a union's members.
        values: a literal's values.
        obj: whether a value of it is a Python object (an Output never carries one).
        carries: what an Output of it carries instead, if not itself (a ``DurationLike`` is
            carried as a string or a number).
    """

    shape: str
    name: str = ""
    imported: Import | None = None
    args: tuple[PyType, ...] = ()
    values: tuple[Any, ...] = ()
    obj: bool = False
    carries: PyType | None = None

    @classmethod
    def named(
        cls, name: str, module: str = "", *, obj: bool = False, carries: PyType | None = None
    ) -> PyType:
        """A name, imported from ``module`` (``import module`` when ``name`` is dotted)."""
        imported = None
        if module:
            imported = Import(module) if "." in name else Import(module, name)
        return cls("name", name=name, imported=imported, obj=obj, carries=carries)

    def __getitem__(self, args: PyType | tuple[PyType, ...]) -> PyType:
        items = args if isinstance(args, tuple) else (args,)
        return PyType("generic", name=self.name, imported=self.imported, args=items)

    def __or__(self, other: PyType) -> PyType:
        return union((self, other))

    def render(self) -> str:
        """The type on one line."""
        if self.shape == "union":
            return " | ".join(member.render() for member in self.args)
        if self.shape == "literal":
            return f"Literal[{', '.join(_literal(v) for v in self.values)}]"
        if self.shape == "generic":
            return f"{self.name}[{', '.join(a.render() for a in self.args)}]"
        return self.name

    def imports(self) -> set[Import]:
        """Every import the type needs."""
        found = {self.imported} if self.imported is not None else set()
        if self.shape == "literal":
            found.add(Import("typing", "Literal"))
        for arg in self.args:
            found |= arg.imports()
        return found

    def carried(self) -> PyType | None:
        """What an Output of this type carries: the type without its Python objects and
        Outputs (None when nothing of it can be carried)."""
        if self.shape == "union":
            kept = [c for c in (m.carried() for m in self.args if m != NONE) if c is not None]
            return union(kept) if kept else None
        if self.shape == "generic":
            args = [a.carried() for a in self.args]
            if self.name == OUTPUT.name or None in args:
                return None
            return replace(self, args=tuple(a for a in args if a is not None))
        if self.obj:
            return None
        return self.carries or self


def union(members: Iterable[PyType]) -> PyType:
    """``a | b | ...``, flattened, each member once, ``None`` last (``Any`` if one is)."""
    flat: list[PyType] = []
    for member in members:
        for item in member.args if member.shape == "union" else (member,):
            if item not in flat:
                flat.append(item)
    if ANY in flat:
        return ANY
    if NONE in flat:
        flat = [m for m in flat if m != NONE] + [NONE]
    return flat[0] if len(flat) == 1 else PyType("union", args=tuple(flat))


def _literal(value: Any) -> str:
    if isinstance(value, str) and '"' not in value and "\\" not in value:
        return f'"{value}"'
    return repr(value)


NONE = PyType.named("None")
ANY = PyType.named("Any", "typing")
OUTPUT = PyType.named("pulumi.Output", "pulumi")
SEQUENCE = PyType.named("Sequence", "collections.abc")
MAPPING = PyType.named("Mapping", "collections.abc")
_STR, _INT = PyType.named("str"), PyType.named("int")
DURATION_LIKE = PyType.named("DurationLike", "pulumi_dws.duration", carries=_STR | _INT)
_SCALARS = {str: _STR, int: _INT, float: PyType.named("float"), bool: PyType.named("bool")}
_OBJECTS = {
    dt.datetime: PyType.named("datetime.datetime", "datetime", obj=True),
    dt.timedelta: PyType.named("datetime.timedelta", "datetime", obj=True),
}


# ---------------------------------------------------------------------------- names
def args_name(spec: type[BaseModel]) -> str:
    """The name of the args ``TypedDict`` generated from ``spec``: its name without a leading
    ``_`` and a trailing ``Spec``, then ``Args`` (``QueuedTpuSpec`` -> ``QueuedTpuArgs``,
    ``_SlurmLoginSpec`` -> ``SlurmLoginArgs``, ``VmSettings`` -> ``VmSettingsArgs``)."""
    name = spec.__name__.lstrip("_")
    return (name[: -len("Spec")] if name.endswith("Spec") and name != "Spec" else name) + "Args"


def args_module(spec: type[BaseModel]) -> str:
    """The module the args of ``spec`` are generated into: a kind's ``args`` module
    (``pulumi_dws.kinds.queued_tpu.args``) for a spec in a kind's package, else
    ``<module>_args`` beside the spec's module (``pulumi_dws.vm_settings_args``)."""
    parts = spec.__module__.split(".")
    if len(parts) > 3 and parts[:2] == ["pulumi_dws", "kinds"]:
        return ".".join([*parts[:3], "args"])
    return f"{spec.__module__}_args"


# ---------------------------------------------------------------------------- types
def python_type(annotation: Any, metadata: Sequence[Any] = ()) -> PyType:
    """The type users write for a spec field of ``annotation`` (with its field ``metadata``)."""
    return _annotated(annotation, metadata) if metadata else _convert(annotation)


def _convert(annotation: Any) -> PyType:
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is typing.Annotated:
        return _annotated(args[0], annotation.__metadata__)
    if annotation is None or annotation is type(None):
        return NONE
    if annotation is Any or isinstance(annotation, typing.TypeVar):
        return ANY
    if origin in (typing.Union, types.UnionType):
        return union(_convert(a) for a in args)
    if origin is typing.Literal:
        return PyType("literal", values=args)
    if annotation in _SCALARS:
        return _SCALARS[annotation]
    if annotation is Duration:
        return DURATION_LIKE
    if annotation in _OBJECTS:
        return _OBJECTS[annotation]
    if origin is pulumi.Output:
        return OUTPUT[_convert(args[0]) if args else ANY]
    container = origin or annotation
    if isinstance(container, type) and issubclass(container, BaseModel):
        module = args_module(container)
        return PyType.named(args_name(container), module)
    if isinstance(container, type) and issubclass(container, Mapping | dict):
        key, value = args if len(args) == 2 else (Any, Any)
        return MAPPING[_convert(key), _convert(value)]
    if isinstance(container, type) and issubclass(container, list | tuple | Sequence):
        return SEQUENCE[_convert(args[0]) if args else ANY]
    if isinstance(annotation, type):
        return PyType.named(annotation.__name__, _public_module(annotation), obj=True)
    return ANY


SDK_PACKAGES = ("pulumi_gcp.", "pulumi_kubernetes.")
"""Generated Pulumi SDKs: a resource class lives in a module of its own
(``pulumi_gcp.compute.resource_policy``) and is exported by its package, which the SDK loads
lazily; importing the module itself breaks that package's attributes
(``gcp.compute.ResourcePolicy`` is then missing), so the package is named instead."""


def _public_module(cls: type) -> str:
    """The module to import ``cls`` from: its own, or for a Pulumi SDK's resource the package
    that exports it (``pulumi_gcp.compute``)."""
    module = cls.__module__
    if module.startswith(SDK_PACKAGES) and module.count(".") >= 2:
        return module.rsplit(".", 1)[0]
    return module


def _annotated(base: Any, metadata: Sequence[Any]) -> PyType:
    takes = next((m.resolve() for m in metadata if isinstance(m, Takes)), None)
    found = _convert(takes if takes is not None else base)
    choices, upper = _choices(metadata)
    if choices and takes is None and found.render() in ("str", "int"):
        values = list(choices)
        if upper:
            values += [v.lower() for v in choices if isinstance(v, str) and v.lower() != v]
        found = PyType("literal", values=tuple(values))
    if any(repr(m) == "MaybeOutput" for m in metadata):
        carried = found.carried()
        if carried is not None:
            found = union((found, OUTPUT[carried]))
    return found


def _choices(metadata: Sequence[Any]) -> tuple[tuple[Any, ...], bool]:
    for item in metadata:
        func = getattr(item, "func", None)
        choices = getattr(func, "dws_choices", None)
        if choices:
            return tuple(choices), bool(getattr(func, "dws_upper", False))
    return (), False


# ---------------------------------------------------------------------------- layout
def annotation_lines(prefix: str, annotation: PyType, indent: int = 4) -> list[str]:
    """``prefix`` (``"name: "``) and ``annotation`` at ``indent``, split over lines as ``ruff
    format`` splits a type that does not fit in :data:`LINE_LENGTH`: inside its last brackets
    first, then at each ``|`` of a union, then one item a line (with a trailing comma)."""
    return _lines(annotation, indent, prefix, "", inside=False)


def _lines(node: PyType, indent: int, prefix: str, suffix: str, *, inside: bool) -> list[str]:
    pad = " " * indent
    flat = f"{pad}{prefix}{node.render()}{suffix}"
    if len(flat) <= LINE_LENGTH:
        return [flat]
    if node.shape == "union" and inside:  # inside brackets: one member a line
        last = len(node.args) - 1
        lines: list[str] = []
        for i, member in enumerate(node.args):
            first, end = prefix if i == 0 else "| ", suffix if i == last else ""
            lines += _lines(member, indent, first, end, inside=True)
        return lines
    if node.shape not in ("generic", "literal"):
        return [flat]
    opener = "Literal" if node.shape == "literal" else node.name
    items = [PyType.named(_literal(v)) for v in node.values] if node.shape == "literal" else []
    items = items or list(node.args)
    inner = " " * (indent + 4)
    if len(items) == 1:
        body = _lines(items[0], indent + 4, "", "", inside=True)
    elif len(f"{inner}{', '.join(i.render() for i in items)}") <= LINE_LENGTH:
        body = [f"{inner}{', '.join(i.render() for i in items)}"]
    else:
        body = [ln for item in items for ln in _lines(item, indent + 4, "", ",", inside=True)]
    return [f"{pad}{prefix}{opener}[", *body, f"{pad}]{suffix}"]
