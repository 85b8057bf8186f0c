"""What a dynamic resource's state must hold, declared (:class:`StateField`), and the check that
turns old or hand-edited state into one clean error naming the key (:func:`state_problem`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["StateField", "describe_type", "state_problem"]

_NAMES: dict[type, str] = {
    dict: "an object",
    list: "a list",
    str: "a string",
    bool: "true or false",
    int: "a number",
    float: "a number",
    type(None): "null",
}


def describe_type(types: tuple[type, ...]) -> str:
    """``a string or null``."""
    names: list[str] = []
    for kind in types:
        name = _NAMES.get(kind, kind.__name__)
        if name not in names:
            names.append(name)
    return " or ".join(names)


@dataclass(frozen=True)
class StateField:
    """One key of a resource's state (``body``, or a nested one: ``observed.requestId``): the
    types it may have when present (JSON: ``dict`` an object, ``float`` a number), and whether
    a state without it can't be acted on (``required``)."""

    types: tuple[type, ...]
    required: bool = False


def _lookup(props: Mapping[str, Any], path: str) -> tuple[bool, Any]:
    value: Any = props
    for part in path.split("."):
        if not isinstance(value, Mapping) or part not in value:
            return False, None
        value = value[part]
    return True, value


def _fits(value: Any, types: tuple[type, ...]) -> bool:
    if isinstance(value, bool):
        return bool in types
    if isinstance(value, (int, float)):
        return int in types or float in types
    if isinstance(value, Mapping):
        return dict in types
    if isinstance(value, (list, tuple)):
        return list in types
    return any(isinstance(value, kind) for kind in types)


def state_problem(props: Mapping[str, Any], fields: Mapping[str, StateField]) -> str | None:
    """What is wrong with ``props`` (a state) against ``fields``: ``'body' is missing`` or
    ``'observed.instances' is a string, not a list``; None when nothing is."""
    for path, spec in fields.items():
        present, value = _lookup(props, path)
        if not present:
            parent = path.rsplit(".", 1)[0] if "." in path else None
            if spec.required and (parent is None or _lookup(props, parent)[0]):
                return f"{path!r} is missing"
            continue
        if value is None and spec.required and type(None) not in spec.types:
            return f"{path!r} is missing (null)"
        if value is not None and not _fits(value, spec.types):
            shown = describe_type((type(value),))
            return f"{path!r} is {shown}, not {describe_type(spec.types)}"
    return None
