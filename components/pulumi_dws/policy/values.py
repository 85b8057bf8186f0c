"""Plain values for rules: one ``UNKNOWN`` marker, and readers that never guess.

A resource property reaches a rule from three places, each with its own way of saying "not
known yet" during a preview:

* the pulumi-policy runtime (``pulumi preview --policy-pack``): the engine marshals unknowns as
  sentinel *strings* (``"04da6b54-80e4-46f7-96ec-b56ff0331ba9"`` for a string, one UUID per
  kind), and pulumi-policy wraps ``args.props`` in a proxy whose ``__getitem__`` (and so
  ``.get()``, ``.items()``) raises ``UnknownValueError`` on such a value;
* Pulumi mocks (``dws plan``): ``pulumi.output.Unknown`` instances in preview mode;
* hand-built views: ``pulumi.Output`` objects, or :data:`UNKNOWN` itself.

:func:`normalize` turns all of them into :data:`UNKNOWN` (and unwraps the proxies and secret
wrappers without touching the unknown check), so rules see plain dicts, lists and scalars.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable, Mapping
from typing import Any

from ..duration import Duration
from ..errors import DwsValidationError

__all__ = [
    "UNKNOWN",
    "UNKNOWN_SENTINELS",
    "Unknown",
    "is_unknown",
    "normalize",
    "dig",
    "pick",
    "as_int",
    "as_bool",
    "as_str",
    "seconds_of",
    "last_segment",
    "matches_any",
    "is_called",
]


class Unknown:
    """The type of :data:`UNKNOWN`: a value Pulumi can't know until the update runs."""

    _instance: Unknown | None = None

    def __new__(cls) -> Unknown:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "UNKNOWN"

    def __bool__(self) -> bool:
        return False

    def __reduce__(self) -> str:
        return "UNKNOWN"


UNKNOWN = Unknown()
"""The one marker rules see for a value not known during preview."""

# pulumi_policy.proxy / the engine's plugin.Unknown*Value strings (bool, number, string, array,
# asset, archive, object). pulumi.runtime.rpc.UNKNOWN is the string one.
UNKNOWN_SENTINELS: frozenset[str] = frozenset(
    {
        "1c4a061d-8072-4f0a-a4cb-0ff528b18fe7",
        "3eeb2bf0-c639-47a8-9e75-3b44932eb421",
        "04da6b54-80e4-46f7-96ec-b56ff0331ba9",
        "6a19a0b0-7e62-4c92-b797-7f8e31da9cc2",
        "030794c1-ac77-496b-92df-f27374a8bd58",
        "e48ece36-62e2-4504-bad9-02848725956a",
        "dd056dcd-154b-4c76-9bd3-c8f88648b5ff",
    }
)

_SIG_KEY = "4dabf18193072939515e22adb298388d"
_SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270"
_INT64 = 2**63
_PROXY_TYPES = {"_DictProxy", "_ListProxy", "_DictSecretsProxy", "_ListSecretsProxy"}


def is_unknown(value: Any) -> bool:
    """True for every representation of "not known during preview" (see the module doc)."""
    if value is UNKNOWN:
        return True
    if isinstance(value, str):
        return value in UNKNOWN_SENTINELS
    kind = type(value)
    return kind.__module__.startswith("pulumi.") and kind.__name__ in ("Unknown", "Output")


def normalize(value: Any) -> Any:
    """A plain copy of ``value``: proxies and secrets unwrapped, every unknown as UNKNOWN."""
    kind = type(value)
    if kind.__name__ in _PROXY_TYPES and kind.__module__.startswith("pulumi_policy"):
        return normalize(value["__target"])  # the raw container: no unknown check fires
    if is_unknown(value):
        return UNKNOWN
    if kind.__name__ == "Secret" and kind.__module__.startswith("pulumi_policy"):
        return normalize(value.value)
    if isinstance(value, Mapping):
        if value.get(_SIG_KEY) == _SECRET_SIG:
            return normalize(value.get("value"))
        return {str(k): normalize(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [normalize(v) for v in value]
    return value


def dig(value: Any, *path: str | int) -> Any:
    """Follow ``path`` through dicts and lists: the value, ``None`` if absent, or UNKNOWN
    if anything on the way is unknown."""
    for step in path:
        if value is UNKNOWN:
            return UNKNOWN
        if isinstance(step, int):
            if not isinstance(value, list) or not -len(value) <= step < len(value):
                return None
            value = value[step]
        else:
            if not isinstance(value, Mapping):
                return None
            value = value.get(step)
    return value


def pick(value: Any, *names: str) -> Any:
    """The first of ``names`` present in a dict (snake_case and camelCase spellings)."""
    if value is UNKNOWN:
        return UNKNOWN
    if not isinstance(value, Mapping):
        return None
    for name in names:
        if name in value and value[name] is not None:
            return value[name]
    return None


def as_int(value: Any) -> int | Unknown | None:
    """An integer from an int, an integral float (protobuf numbers arrive as floats) or a
    decimal string (int64 fields travel as strings); None if absent, not a number or outside
    int64."""
    if value is UNKNOWN:
        return UNKNOWN
    if isinstance(value, bool) or value is None:
        return None
    number: int | None = None
    if isinstance(value, int):
        number = value
    elif isinstance(value, float) and value.is_integer():
        number = int(value)
    elif isinstance(value, str) and value.strip().lstrip("-").isdigit():
        number = int(value.strip())
    return number if number is not None and abs(number) < _INT64 else None


def as_bool(value: Any) -> bool | Unknown | None:
    """A bool (also from "true"/"false" strings); None if absent."""
    if value is UNKNOWN or isinstance(value, bool) or value is None:
        return value
    if isinstance(value, str) and value.lower() in ("true", "false"):
        return value.lower() == "true"
    return None


def as_str(value: Any) -> str | Unknown | None:
    """A string, UNKNOWN, or None."""
    if value is UNKNOWN or isinstance(value, str):
        return value
    return None


def seconds_of(value: Any, field: str) -> int | Unknown | None:
    """Seconds of a duration in any API form: ``{"seconds": "259200"}`` (Compute, int64 as a
    string), ``{"seconds": 3600.0}`` (pulumi-gcp), ``"3600s"`` (GKE, Vertex AI), or a number.

    Raises :class:`DwsValidationError` naming ``field`` for a value that is not a duration.
    """
    if value is UNKNOWN or value is None:
        return value
    if isinstance(value, Mapping):
        seconds = value.get("seconds")
        if seconds is UNKNOWN:
            return UNKNOWN
        nanos = as_int(value.get("nanos")) or 0
        if seconds is None and nanos:
            return 0
        value = seconds
        if value is None:
            return None
    as_number = as_int(value)
    if isinstance(as_number, int):
        if as_number < 0:
            raise DwsValidationError(field, value, "is negative")
        return as_number
    if isinstance(value, (str, float)):
        return Duration.parse(value, field).seconds
    raise DwsValidationError(field, value, "is not a duration")


def last_segment(value: Any) -> Any:
    """``zones/us-central1-a/machineTypes/a3-highgpu-8g`` -> ``a3-highgpu-8g`` (UNKNOWN kept)."""
    if isinstance(value, str):
        return value.rstrip("/").rsplit("/", 1)[-1]
    return value


def matches_any(patterns: Iterable[str], *candidates: str) -> bool:
    """True if a candidate (a name, a URN) matches one of the glob ``patterns``."""
    return any(
        fnmatch.fnmatchcase(candidate, pattern)
        for pattern in patterns
        for candidate in candidates
        if candidate
    )


def is_called(props: Any, logical_name: str, name: str) -> bool:
    """Whether a resource whose inputs are ``props`` and whose logical name is
    ``logical_name`` is the cloud resource ``name``: its ``name`` input, else (autonamed) its
    logical name, or its logical name with Pulumi's random suffix (``<logical>-<7 hex>``)."""
    given = props.get("name") if isinstance(props, dict) else None
    if isinstance(given, str) and given:
        return given == name
    head, _, suffix = name.rpartition("-")
    return name == logical_name or (head == logical_name and len(suffix) == 7)
