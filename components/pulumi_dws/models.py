"""pydantic plumbing shared by every component's args: one :class:`DwsValidationError`,
with the field's full path, instead of pydantic's multi-error report."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError

from .errors import DwsValidationError

__all__ = ["DwsModel", "parse_args", "field_path"]

M = TypeVar("M", bound=BaseModel)


class DwsModel(BaseModel):
    """Base for validated args: unknown keys rejected, Pulumi Outputs allowed where declared."""

    model_config = ConfigDict(extra="forbid", frozen=True, arbitrary_types_allowed=True)


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


def _convert(exc: ValidationError, prefix: str) -> DwsValidationError:
    err = exc.errors(include_url=False)[0]
    loc = list(err.get("loc", ()))
    original = (err.get("ctx") or {}).get("error")
    if isinstance(original, DwsValidationError):
        # The check names its own field (``labels key``); put it under the model's path.
        parent = field_path(prefix, loc[:-1]) if loc else prefix
        last = str(loc[-1]) if loc else ""
        name = original.field if not last or original.field.startswith(last) else last
        field = f"{parent}.{name}" if parent else name
        return DwsValidationError(field, original.value, original.problem)
    path = field_path(prefix, loc) or prefix or "args"
    kind = err.get("type", "")
    if kind == "missing":
        return DwsValidationError(path, "(missing)", "is required")
    if kind == "extra_forbidden":
        return DwsValidationError(path, err.get("input"), "is not a known argument")
    return DwsValidationError(path, err.get("input"), f"is invalid: {err.get('msg')}")


def parse_args(model: type[M], args: Mapping[str, Any] | None, prefix: str = "") -> M:
    """Validate ``args`` with ``model``; raise one :class:`DwsValidationError` on failure."""
    if args is not None and not isinstance(args, Mapping):
        raise DwsValidationError(prefix or "args", type(args).__name__, "must be a mapping")
    try:
        return model.model_validate(dict(args or {}))
    except ValidationError as exc:
        raise _convert(exc, prefix) from None
