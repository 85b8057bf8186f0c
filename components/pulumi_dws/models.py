"""pydantic plumbing shared by every component's args: one :class:`DwsValidationError`,
with the field's full path, instead of pydantic's multi-error report.

* An unknown argument is reported first, as a typo when it is close to a known one
  (``max_run_duraton: unknown argument; did you mean max_run_duration?``), before any
  "is required" that the typo caused.
* Messages name what is expected in plain words (``must be a whole number``), never a
  pydantic or Python class name.
* Any argument may be a Pulumi ``Output``: its checks run once the value is known, and a bad
  value fails the run with the argument's path. Arguments that decide what a component
  registers while the program runs are declared :class:`~pulumi_dws.fields.Known`; an Output
  there is refused with the reason.
"""

from __future__ import annotations

import datetime as dt
import difflib
import inspect
import types
import typing
from collections.abc import Awaitable, Callable, Collection, Iterator, Mapping, Sequence
from functools import partial
from typing import Any, ClassVar, TypeVar

import pulumi
from pydantic import BaseModel, ConfigDict, ValidationError, field_validator
from pydantic_core import ErrorDetails

from .errors import NO_VALUE, DwsValidationError
from .fields import field_reasons, items_taking_outputs
from .outputs import is_output, path_of, qualify, tagged, when_known

__all__ = [
    "DwsModel",
    "parse_args",
    "tag_outputs",
    "first_error",
    "field_path",
    "suggest",
    "declared_fields",
    "signature_mismatches",
]

M = TypeVar("M", bound=BaseModel)


class DwsModel(BaseModel):
    """Base for validated args: unknown keys rejected, Pulumi Outputs checked once known."""

    model_config = ConfigDict(extra="forbid", frozen=True, arbitrary_types_allowed=True)

    known_at_construction: ClassVar[Mapping[str, str]] = {}
    """Field -> why its value must be known while the program runs (an Output is refused):
    the fields declared with :class:`~pulumi_dws.fields.Known`."""

    known_list_items_take_outputs: ClassVar[frozenset[str]] = frozenset()
    """The fields of :attr:`known_at_construction` whose items may be Outputs (the list itself
    must be known: ``Known(..., outputs_in_items=True)``)."""

    outputs_within: ClassVar[bool] = False
    """In a list field declared :class:`~pulumi_dws.fields.Known` (a queue's ``flavors``), an
    Output for the list or one of its items is refused, and the fields of each item take
    Outputs as their own declarations say (a flavor's quota may be an Output)."""

    shared_fields: ClassVar[frozenset[str]] = frozenset()
    """Fields shared with other components' args (declared in a base spec): messages list them
    after the component's own."""

    def model_dump(self, **kwargs: Any) -> dict[str, Any]:
        """As pydantic's, without warnings for fields that hold an Output (checked later)."""
        kwargs.setdefault("warnings", False)
        return super().model_dump(**kwargs)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # Set here, after the class body, so it is the outermost validator of every field:
        # a field's own before/after validators then only ever see known values.
        cls._dws_once_known = field_validator("*", mode="wrap")(classmethod(_once_known))  # type: ignore[attr-defined]

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        metadata = {
            name: [*info.metadata, *_union_metadata(info.annotation)]
            for name, info in cls.model_fields.items()
        }
        cls.known_at_construction = field_reasons(metadata)
        cls.known_list_items_take_outputs = items_taking_outputs(metadata)


def _once_known(cls: type[BaseModel], value: Any, handler: Any, info: Any) -> Any:
    """Validate an Output's value when it arrives, with the field's own rules; a mapping or
    list with Outputs inside is validated now without them, and each Output later."""
    field = cls.model_fields.get(info.field_name)
    annotation = field.annotation if field is not None else Any
    if is_output(value):
        where = path_of(value) or info.field_name

        def known_value(known: Any) -> Any:
            _exact_scalar(where, annotation, known)
            return _run(handler, known, where)

        return when_known(value, known_value)
    _exact_scalar(info.field_name, annotation, value)
    try:
        if _model_in(annotation) is not None:
            return handler(value)  # nested args: their own fields take care of Outputs
        if isinstance(value, Mapping) and any(is_output(v) for v in value.values()):
            return _mapping_with_outputs(handler, value, path_of_field(info.field_name, value))
        if isinstance(value, list | tuple) and any(is_output(v) for v in value):
            return _list_with_outputs(handler, list(value), info.field_name)
        return handler(value)
    except TypeError:
        # A field's own check stumbled on a value of the wrong kind: say what it takes.
        raise DwsValidationError(info.field_name, value, _kind_wanted(annotation)) from None


def _exact_scalar(field: str, annotation: Any, value: Any) -> None:
    """Numbers as numbers and booleans as booleans, in every component alike: pydantic would
    take ``"16"`` for 16 and ``"yes"`` for True (and send a public IP); both are refused with
    what the field takes. (Whole floats such as ``2.0``, as YAML and the engine give them, are
    numbers.)"""
    if value is None:
        return
    kinds = _kinds(annotation)
    if not kinds or "any" in kinds:
        return
    if kinds <= {"int", "float"} and (isinstance(value, str | bool)):
        wanted = "must be a whole number" if kinds == {"int"} else "must be a number"
        raise DwsValidationError(field, value, wanted)
    if kinds == {"bool"} and not isinstance(value, bool):
        raise DwsValidationError(field, value, "must be true or false")


def _kind_wanted(annotation: Any) -> str:
    """``must be a mapping`` / ``must be a list`` / ... from a field's annotation."""
    origin = typing.get_origin(annotation)
    members = typing.get_args(annotation) if origin in (typing.Union, types.UnionType) else ()
    kinds = {typing.get_origin(a) or a for a in (members or (annotation,))}
    if kinds & {dict, Mapping}:
        return "must be a mapping"
    if kinds & {list, tuple, Sequence}:
        return "must be a list"
    if str in kinds:
        return "must be a string"
    return "is not a value this argument takes"


def path_of_field(field: str, value: Mapping[str, Any]) -> str:
    """The argument path of a mapping field, from the tags of the Outputs inside it."""
    for item in value.values():
        tag = path_of(item)
        if tag and "[" in tag:
            return tag.rsplit("[", 1)[0]
    return field


def _run(handler: Any, value: Any, where: str) -> Any:
    """A field's validation on its own (an Output's value); ``where`` is the field's path."""
    try:
        return handler(value)
    except ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        original = (first.get("ctx") or {}).get("error")
        if isinstance(original, DwsValidationError) and not first.get("loc"):
            raise qualify(original, where) from None
        raise first_error(exc.errors(include_url=False), where, None, value) from None


def _mapping_with_outputs(handler: Any, value: Mapping[str, Any], where: str) -> Any:
    """Plain entries now; each Output entry once known, checked with the whole mapping."""
    plain = {k: v for k, v in value.items() if not is_output(v)}
    checked = dict(_run(handler, plain, where))
    result: dict[str, Any] = {}

    def entry(key: str, known: Any) -> Any:
        return _run(handler, {**plain, key: known}, where)[key]

    for key, item in value.items():
        if is_output(item):
            result[key] = when_known(item, partial(entry, key))
        else:
            result[key] = checked.get(key, item)
    return result


def _list_with_outputs(handler: Any, value: list[Any], field: str) -> Any:
    """Plain items now (when there are any); each Output item once known, checked in the
    list with the plain items around it."""
    plain = [v for v in value if not is_output(v)]
    checked = list(_run(handler, plain, field)) if plain else plain
    result: list[Any] = []
    seen_plain = 0
    for item in value:
        if not is_output(item):
            result.append(checked[seen_plain])
            seen_plain += 1
            continue
        at = seen_plain
        where = path_of(item) or field

        def check(known: Any, at: int = at, where: str = where) -> Any:
            trial = [*plain[:at], known, *plain[at:]]
            return _run(handler, trial, where.rsplit("[", 1)[0])[at]

        result.append(when_known(item, check))
    return result


# ------------------------------------------------------------------------------ structure
def _union_metadata(annotation: Any) -> list[Any]:
    """The ``Annotated`` metadata of a union's members (``Annotated[str, Known(...)] | None``
    keeps its :class:`~pulumi_dws.fields.Known` there, not in the field's own metadata)."""
    origin = typing.get_origin(annotation)
    if origin not in (typing.Union, types.UnionType):
        return []
    found: list[Any] = []
    for member in typing.get_args(annotation):
        if typing.get_origin(member) is typing.Annotated:
            found.extend(member.__metadata__)
    return found


def _model_in(annotation: Any) -> type[BaseModel] | None:
    """The pydantic model inside an annotation (``_LoginSpec``, ``list[_NodePoolSpec]``,
    ``_Retry | None``), if any."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    origin = typing.get_origin(annotation)
    if origin is None:
        return None
    for arg in typing.get_args(annotation):
        found = _model_in(arg)
        if found is not None:
            return found
    return None


def _model_at(model: type[BaseModel], loc: Sequence[Any]) -> type[BaseModel] | None:
    """The model that holds the field at ``loc`` (``("login", "zone")`` -> the login model)."""
    current: type[BaseModel] | None = model
    for part in loc:
        if current is None:
            return None
        if isinstance(part, int) or str(part).startswith(("function-", "model-")):
            continue
        field = current.model_fields.get(str(part))
        if field is None:
            return None
        current = _model_in(field.annotation)
    return current


def _value_at(data: Any, loc: Sequence[Any]) -> Any:
    for part in loc:
        inside_list = isinstance(part, int) and isinstance(data, list) and part < len(data)
        if not (inside_list or (isinstance(data, Mapping) and part in data)):
            return None
        data = data[part]
    return data


def suggest(name: str, known: Sequence[str], taken: Sequence[str] = ()) -> str | None:
    """The known name closest to ``name``, if it is close enough to be a typo."""
    candidates = [k for k in known if k not in taken] or list(known)
    close = difflib.get_close_matches(name, candidates, n=1, cutoff=0.75)
    return close[0] if close else None


def field_path(prefix: str, loc: Sequence[Any]) -> str:
    """``("node_pools", 1, "zone")`` -> ``node_pools[1].zone`` (under ``prefix``)."""
    path = prefix
    for part in loc:
        if isinstance(part, int):
            path += f"[{part}]"
        elif str(part).startswith(("function-", "model-")):
            continue
        else:
            path = f"{path}.{part}" if path else str(part)
    return path


# ------------------------------------------------------------------------------ messages
_PLAIN_WORDS = {
    "string_type": "must be a string",
    "int_type": "must be a whole number",
    "int_parsing": "must be a whole number",
    "int_from_float": "must be a whole number",
    "float_type": "must be a number",
    "float_parsing": "must be a number",
    "bool_type": "must be true or false",
    "bool_parsing": "must be true or false",
    "list_type": "must be a list",
    "tuple_type": "must be a list",
    "set_type": "must be a list",
    "dict_type": "must be a mapping",
    "mapping_type": "must be a mapping",
    "none_required": "must be left out",
}


def declared_fields(model: type[BaseModel]) -> list[str]:
    """A model's fields as users read them: settings it shares with other components
    (:attr:`DwsModel.shared_fields`, e.g. the VM settings) after its own."""
    shared: frozenset[str] = getattr(model, "shared_fields", frozenset())
    return [n for n in model.model_fields if n not in shared] + [
        n for n in model.model_fields if n in shared
    ]


def _expected(err: Mapping[str, Any], owner: type[BaseModel] | None) -> str:
    """What pydantic expected, in words a user of the component understands."""
    kind = err.get("type", "")
    if kind in _PLAIN_WORDS:
        return _PLAIN_WORDS[kind]
    if kind in ("model_type", "model_attributes_type", "dataclass_type"):
        fields = declared_fields(owner) if owner is not None else []
        some = ", ".join(fields[:4]) + (", ..." if len(fields) > 4 else "")
        return f"must be a mapping of arguments ({some})" if fields else "must be a mapping"
    if kind in ("literal_error", "enum"):
        expected = str((err.get("ctx") or {}).get("expected", ""))
        return "is not allowed; use one of " + expected.replace("'", "").replace(" or ", ", ")
    message = str(err.get("msg", "is invalid"))
    return "is invalid: " + message[0].lower() + message[1:]


def _pick(errors: list[Any]) -> Any:
    """The error to report: an unknown argument first (a typo makes others "missing")."""
    for err in errors:
        if err.get("type") == "extra_forbidden":
            return err
    return errors[0]


def first_error(
    errors: Sequence[ErrorDetails], prefix: str, model: type[BaseModel] | None, data: Any
) -> DwsValidationError:
    """The one :class:`DwsValidationError` to report for pydantic's ``errors`` (an unknown
    argument first), its field under ``prefix``; ``model`` is the model that was validated
    (its fields name the path and the known arguments), ``data`` what it was given."""
    err = _pick(list(errors))
    loc = list(err.get("loc", ()))
    original = (err.get("ctx") or {}).get("error")
    if isinstance(original, DwsValidationError) and original.field.startswith("dws:"):
        return original  # the stack's config (dws:limits, dws:regions) is at fault, not the arg
    if isinstance(original, DwsValidationError):
        last = str(loc[-1]) if loc else ""
        if loc and not original.field.startswith(last) and _holds_model(model, loc):
            # A nested model's own rule (``node_pools[1]``, ``retry_strategy``): its field
            # names one of that model's fields.
            return original.within(_text(model, prefix, loc))
        # The check names its own field (``labels key``); put it under the model's path.
        parent = field_path(prefix, loc[:-1]) if loc else prefix
        name = original.field if not last or original.field.startswith(last) else last
        field = f"{parent}.{name}" if parent else name
        return original.at(field)
    path = _text(model, prefix, loc) or "args"
    kind = err.get("type", "")
    if kind == "missing":
        return DwsValidationError(path, "(missing)", "is required")
    if kind == "extra_forbidden":
        parent = _text(model, prefix, loc[:-1])
        path = f"{parent}.{loc[-1]}" if parent else str(loc[-1])
        owner = _model_at(model, loc[:-1]) if model is not None else None
        known = declared_fields(owner) if owner is not None else []
        given = _value_at(data, loc[:-1])
        taken = [k for k in given if k != loc[-1]] if isinstance(given, Mapping) else []
        close = suggest(str(loc[-1]), known, taken)
        if close:
            return DwsValidationError(path, NO_VALUE, f"unknown argument; did you mean {close}?")
        listed = ", ".join(known)
        return DwsValidationError(
            path, NO_VALUE, f"unknown argument; known: {listed}" if listed else "unknown argument"
        )
    owner = _model_at(model, loc) if model is not None else None
    value = err.get("input")
    if is_output(value):
        return DwsValidationError(
            path, NO_VALUE, "must be known when the program runs, not an Output"
        )
    return DwsValidationError(path, value, _expected(err, owner))


def _text(model: type[BaseModel] | None, prefix: str, loc: Sequence[Any]) -> str:
    return _path_text(model, prefix, loc) if model is not None else field_path(prefix, loc)


def _holds_model(model: type[BaseModel] | None, loc: Sequence[Any]) -> bool:
    """Whether ``loc`` is a nested model (``login``, ``node_pools[1]``), not a plain field."""
    return model is not None and bool(loc) and _model_at(model, loc) is not None


# ------------------------------------------------------------------------------ Outputs
def _walk(value: Any, loc: tuple[Any, ...]) -> Iterator[tuple[tuple[Any, ...], Any]]:
    """Every Output in the args, with where it is (``("login", "zone")``)."""
    if is_output(value):
        yield loc, value
    elif isinstance(value, Mapping):
        for key, item in value.items():
            yield from _walk(item, (*loc, key))
    elif isinstance(value, list | tuple):
        for i, item in enumerate(value):
            yield from _walk(item, (*loc, i))


def _path_text(model: type[BaseModel], prefix: str, loc: Sequence[Any]) -> str:
    """``("labels", "team")`` -> ``labels[team]`` (a mapping entry), ``("login", "zone")``
    -> ``login.zone`` (a field)."""
    path = prefix
    owner: type[BaseModel] | None = model
    for part in loc:
        if isinstance(part, int):
            path += f"[{part}]"
            continue
        if str(part).startswith(("function-", "model-")):
            continue
        if owner is not None and part in owner.model_fields:
            path = f"{path}.{part}" if path else str(part)
            owner = _model_in(owner.model_fields[part].annotation)
        else:
            path += f"[{part}]"
            owner = None
    return path


def _known_at_construction(model: type[BaseModel], loc: Sequence[Any]) -> str | None:
    """Why the field at ``loc`` (or the one that contains it) must be known, if it must."""
    owner: type[BaseModel] | None = model
    for depth, part in enumerate(loc):
        if owner is None or isinstance(part, int):
            continue
        reasons = getattr(owner, "known_at_construction", {})
        field = owner.model_fields.get(str(part))
        inner = _model_in(field.annotation) if field is not None else None
        if part in reasons:
            items: frozenset[str] = getattr(owner, "known_list_items_take_outputs", frozenset())
            if part in items and depth + 1 < len(loc):
                return None  # an item of a list that must be known: it may be an Output
            deeper = [p for p in loc[depth + 1 :] if not isinstance(p, int)]
            if not (deeper and getattr(inner, "outputs_within", False)):
                return str(reasons[part])
        owner = inner
    return None


def tag_outputs(model: type[BaseModel], data: Any, prefix: str = "") -> Any:
    """A copy of ``data`` whose Outputs know their argument paths (for messages); an Output
    where the value must be known now is refused with the reason."""
    found = list(_walk(data, ()))
    if not found:
        return data
    copy = _copy_containers(data)
    for loc, output in found:
        path = _path_text(model, prefix, loc)
        reason = _known_at_construction(model, loc)
        if reason is not None:
            raise DwsValidationError(
                path, NO_VALUE, f"must be known when the program runs, not an Output: {reason}"
            )
        holder = copy
        for part in loc[:-1]:
            holder = holder[part]
        holder[loc[-1]] = tagged(output, path)
    return copy


def _copy_containers(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {k: _copy_containers(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_copy_containers(v) for v in value]
    return value


def parse_args(model: type[M], args: Mapping[str, Any] | None, prefix: str = "") -> M:
    """Validate ``args`` with ``model``; raise one :class:`DwsValidationError` on failure."""
    if args is not None and not isinstance(args, Mapping):
        raise DwsValidationError(
            prefix or "args", args, "must be a mapping of arguments, e.g. {'zone': ...}"
        )
    data = tag_outputs(model, dict(args or {}), prefix)
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise first_error(exc.errors(include_url=False), prefix, model, data) from None


# ------------------------------------------------------------------------------ signatures
def signature_mismatches(
    func: Callable[..., Any], model: type[BaseModel], also: Collection[str] = ()
) -> list[str]:
    """How a function's parameters (those named in ``also`` aside) differ from a model's
    fields, when the function is to take exactly the model's fields: a field it does not take
    or a parameter the model lacks, required fields not taken positionally in the model's
    order, an optional field not taken by keyword with the model's default, or a parameter
    that takes less than its field holds (their kinds of value). Empty when they agree."""
    params = {n: p for n, p in inspect.signature(func).parameters.items() if n not in also}
    hints = typing.get_type_hints(func, include_extras=True)
    fields = model.model_fields
    owner = model.__name__
    problems = [
        f"{name}: a field of {owner}, not a parameter" for name in fields if name not in params
    ]
    problems += [
        f"{name}: a parameter, not a field of {owner}" for name in params if name not in fields
    ]
    required = [name for name, info in fields.items() if info.is_required()]
    positional = [
        name
        for name, param in params.items()
        if name in fields and param.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD
    ]
    if positional != required:
        problems.append(
            f"positional {', '.join(positional)}; required in {owner}: {', '.join(required)}"
        )
    for name, info in fields.items():
        param = params.get(name)
        if param is None:
            continue
        if not info.is_required() and param.kind is not inspect.Parameter.KEYWORD_ONLY:
            problems.append(f"{name}: optional in {owner}, so keyword-only")
        if not info.is_required() and param.default != info.default:
            problems.append(f"{name}: default {param.default!r}, {info.default!r} in {owner}")
        held, taken = _kinds(_annotated(info)), _kinds(hints.get(name, Any))
        if not ("any" in taken or held <= taken):
            takes, holds = " | ".join(sorted(taken)), " | ".join(sorted(held))
            problems.append(f"{name}: takes {takes}, {owner} holds {holds}")
    return problems


def _annotated(info: Any) -> Any:
    if not info.metadata:
        return info.annotation
    args = (info.annotation, *info.metadata)
    return typing.Annotated[args]


def _kinds(annotation: Any) -> set[str]:
    """The kinds of value an annotation takes (``str``, ``int``, ``list``, ``duration``...),
    ``None``, Outputs and awaitables aside."""
    from .duration import Duration

    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if annotation is Any:
        return {"any"}
    if annotation in (None, type(None)) or origin in (pulumi.Output, Awaitable):
        return set()
    if origin is typing.Annotated or str(origin).endswith(("Required", "NotRequired")):
        return _kinds(args[0])
    if origin in (typing.Union, types.UnionType):
        members = set(args)
        if Duration in members and dt.timedelta in members:
            return {"duration"}
        return set().union(*(_kinds(a) for a in args))
    if origin is typing.Literal:
        return {type(value).__name__ for value in args}
    if annotation is Duration:
        return {"duration"}
    container = origin or annotation
    if typing.is_typeddict(annotation) or (
        isinstance(container, type) and issubclass(container, BaseModel | Mapping | dict)
    ):
        return {"mapping"}
    if (
        isinstance(container, type)
        and issubclass(container, list | tuple | Sequence)
        and (container is not str)
    ):
        return {"list"}
    return {getattr(annotation, "__name__", str(annotation))}
