"""From a ``Construct`` request's inputs to a component's Python args, and from a
:class:`~pulumi_dws.errors.DwsValidationError` back to what the caller reads.

Inputs arrive spelled as the schema spells them (``maxRunDuration``, nested objects too; map
keys such as labels stay as written); :func:`python_args` gives the args the Python API takes
(``max_run_duration``), whole numbers as ``int`` (every language but Python sends numbers as
floats), and refuses a property the schema does not have, as the Python API refuses an unknown
argument (``unknown argument; did you mean maxRunDuration?``).

:func:`problem_of` turns the Python API's error into the caller's: the same message with the
argument path spelled as the caller spells it (``nodePools[1].maxNodes``), and ``[secret]``
for a value that came as a secret (or that a :class:`~pulumi_dws.fields.Secret` field holds),
never the value itself.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pulumi.runtime import rpc

from ..errors import NO_VALUE, DwsValidationError, redact
from ..models import suggest
from ..outputs import is_output
from .introspect import FieldInfo, FieldType, ModelInfo
from .names import Segment, camel, path_segments, property_path

__all__ = [
    "python_args",
    "is_unknown",
    "PropertyProblem",
    "problem_of",
    "secret_fields",
    "SECRET",
]

SECRET = "[secret]"
"""How a secret value is shown in a message."""


@dataclass(frozen=True)
class PropertyProblem:
    """What a caller reads of a bad input.

    Attributes:
        path: the Pulumi property path (``nodePools[1].maxNodes``); empty when the stack's
            config, not an input, is at fault.
        message: the whole message (``nodePools[1].maxNodes: 0 is below ...``).
        reason: the message without its path (``0 is below ...``).
    """

    path: str
    message: str
    reason: str


def python_args(model: ModelInfo, inputs: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """``inputs`` (schema spelling) as the component's args (Python spelling).

    Raises :class:`DwsValidationError` (its field the property path as the caller wrote it)
    for a property the schema does not have."""
    by_schema = {camel(f.name): f for f in model.fields}
    args: dict[str, Any] = {}
    for key, value in inputs.items():
        info = by_schema.get(key)
        if info is None:
            raise _unknown(model, key, inputs, prefix)
        args[info.name] = _value(info.type, value, f"{prefix}.{key}" if prefix else key)
    return args


def _unknown(
    model: ModelInfo, key: str, given: Mapping[str, Any], prefix: str
) -> DwsValidationError:
    path = f"{prefix}.{key}" if prefix else key
    known = [camel(f.name) for f in model.fields]
    taken = [k for k in given if k != key]
    close = suggest(key, known, taken) or suggest(camel(key), known, taken)
    if close:
        return DwsValidationError(path, NO_VALUE, f"unknown argument; did you mean {close}?")
    return DwsValidationError(path, NO_VALUE, f"unknown argument; known: {', '.join(known)}")


def _value(kind: FieldType, value: Any, path: str) -> Any:
    """One input value as the Python API takes it (an unknown as it is; an Output of one,
    converted once known)."""
    if is_output(value):
        return value.apply(lambda known: _value(kind, known, path))
    if value is None or is_unknown(value):
        return value
    if rpc.is_rpc_secret(value):
        return rpc.wrap_rpc_secret(_value(kind, rpc.unwrap_rpc_secret(value), path))
    if kind.kind == "object" and kind.model is not None and isinstance(value, Mapping):
        return python_args(kind.model, value, path)
    if kind.kind == "list" and kind.items is not None and isinstance(value, list):
        return [_value(kind.items, item, f"{path}[{i}]") for i, item in enumerate(value)]
    if kind.kind == "map" and kind.items is not None and isinstance(value, Mapping):
        return {k: _value(kind.items, item, f"{path}[{k}]") for k, item in value.items()}
    if kind.kind == "number":
        return value
    # Other languages send every number as a float: 2.0 is the 2 a Python program passes, also
    # inside a value of another shape than the field's (its refusal quotes it as written).
    return _whole(value)


def _whole(value: Any) -> Any:
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, list):
        return [_whole(item) for item in value]
    if isinstance(value, Mapping) and not rpc.is_rpc_secret(value):
        return {k: _whole(item) for k, item in value.items()}
    return value


def is_unknown(value: Any) -> bool:
    """A value not known yet (during a preview): the engine's marker or the SDK's."""
    from pulumi.output import Unknown

    return isinstance(value, Unknown) or (isinstance(value, str) and value == rpc.UNKNOWN)


# ---------------------------------------------------------------------------- errors
def secret_fields(model: ModelInfo, prefix: str = "") -> Iterator[str]:
    """The Python paths of the fields marked :class:`~pulumi_dws.fields.Secret` (a list's or
    map's items under ``[*]``)."""
    for info in model.fields:
        yield from _secret_paths(info, f"{prefix}.{info.name}" if prefix else info.name)


def _secret_paths(info: FieldInfo, path: str) -> Iterator[str]:
    if info.secret:
        yield path
    kind = info.type
    while kind.items is not None:
        kind = kind.items
        path += "[*]"
    if kind.model is not None:
        yield from secret_fields(kind.model, path)


def problem_of(
    err: DwsValidationError,
    *,
    secret_paths: Collection[str] = (),
    secret_values: Collection[Any] = (),
    rename: bool = True,
) -> PropertyProblem:
    """What the caller reads of ``err``: its path as a property path in the schema's spelling
    (``rename``, for a field the Python API named), its value ``[secret]`` when the path is at
    or under one of ``secret_paths`` (Python paths, ``[*]`` for any item), and any of
    ``secret_values`` found in its words replaced by ``[secret]``; an error about a secret
    leaves out its hint (a suggestion built from the value), as :meth:`DwsValidationError.hidden`
    does in the Python API."""
    field = err.field
    if field.startswith(("dws:", "gcp:")) or not path_segments(field):
        message = redact(str(err), secret_values)
        return PropertyProblem("", message, message)
    path = property_path(field, rename=rename)
    # A check may name more than the path ("labels key"): the words after it stay.
    words = field[len(field.split(" ", 1)[0]) :]
    hidden = _under(field, secret_paths) or (
        err.value is not NO_VALUE and _holds(err.value, secret_values)
    )
    problem = err.problem
    if hidden or redact(problem, secret_values) != problem:
        problem = err.hidden(*secret_values).problem  # and no hint: it is built from a secret
    shown = DwsValidationError(path + words, SECRET if hidden else err.value, problem)
    message = str(shown)
    return PropertyProblem(path, message, message[len(path + words) + 2 :])


def _under(field: str, secret_paths: Collection[str]) -> bool:
    """Whether the argument at ``field`` is, or is inside, one of ``secret_paths`` (whose
    ``[*]`` stands for any item)."""
    segments = path_segments(field)
    for secret in secret_paths:
        wanted = path_segments(secret)
        if len(segments) >= len(wanted) and all(
            _same(got, want) for got, want in zip(segments, wanted, strict=False)
        ):
            return True
    return False


def _same(got: Segment, want: Segment) -> bool:
    if want.kind == "key" and want.value == "*":  # [*]: any item of a list or map
        return got.kind in ("index", "key")
    return got.kind == want.kind and got.value == want.value


def _holds(value: Any, secrets: Collection[Any]) -> bool:
    if not secrets:
        return False
    if isinstance(value, Mapping):
        return any(_holds(v, secrets) or _holds(k, secrets) for k, v in value.items())
    if isinstance(value, Sequence) and not isinstance(value, str):
        return any(_holds(v, secrets) for v in value)
    return any(value == s for s in secrets)
