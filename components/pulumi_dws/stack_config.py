"""The running Pulumi program's stack config, as pulumi-dws's tables read it.

``dws:limits`` and ``dws:regions`` in ``Pulumi.<stack>.yaml`` change what every component
accepts, in every program of that stack (not only the blueprint), from the first component
constructed: the tables read the config whenever they are consulted, so a program and the
policy pack (which gets the same config) always judge by the same rows.
"""

from __future__ import annotations

import json
from typing import Any

from .errors import DwsValidationError

__all__ = ["raw", "parse"]


def raw(key: str) -> str | None:
    """The config value of ``key`` (``dws:limits``) as Pulumi passed it (JSON text for an
    object), or None outside a Pulumi program or when the stack does not set it."""
    try:
        from pulumi.runtime.config import get_config
    except ImportError:  # pragma: no cover - pulumi is a dependency
        return None
    value = get_config(key)
    if value is None or value == "":
        return None
    return value if isinstance(value, str) else json.dumps(value)


def parse(key: str, text: str) -> dict[str, Any]:
    """``text`` (the stack's value of ``key``) as an object; a clear error otherwise."""
    try:
        data = json.loads(text)
    except ValueError:
        data = text
    if not isinstance(data, dict):
        raise DwsValidationError(key, data, "must be an object (a mapping in Pulumi.<stack>.yaml)")
    return data
