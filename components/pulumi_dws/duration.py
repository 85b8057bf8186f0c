"""One duration type for every field that takes a length of time.

Accepts ``"90s"``, ``"45m"``, ``"2h"``, ``"3d"``, ``"1w"``, compounds like ``"1d12h"``,
Google's ``"604800s"`` form, an int of seconds, or a :class:`datetime.timedelta`, and renders
the API forms: ``{"seconds": N}`` (Compute ``Duration``) and ``"Ns"`` (protobuf JSON).
"""

from __future__ import annotations

import datetime as _dt
import re
from functools import total_ordering
from typing import Any, Union

from pydantic import GetCoreSchemaHandler
from pydantic_core import core_schema

from .errors import DwsValidationError

__all__ = ["Duration", "DurationLike", "parse_duration"]

UNIT_SECONDS: dict[str, int] = {"w": 604800, "d": 86400, "h": 3600, "m": 60, "s": 1}
# ASCII digits only: ``str.isdigit`` and ``\d`` also accept other scripts' digits and "²".
_PART = re.compile(r"([0-9]+)([wdhms])")
_WHOLE = re.compile(r"^(?:[0-9]+[wdhms])+\Z")
_DIGITS = re.compile(r"^[0-9]+\Z")


@total_ordering
class Duration:
    """A whole, non-negative number of seconds."""

    __slots__ = ("seconds",)

    def __init__(self, seconds: int) -> None:
        if isinstance(seconds, bool) or not isinstance(seconds, int) or seconds < 0:
            raise DwsValidationError("duration", seconds, "is not a whole number of seconds >= 0")
        self.seconds = seconds

    @classmethod
    def parse(cls, value: DurationLike, field: str = "duration") -> Duration:
        """Parse any accepted form; raise :class:`DwsValidationError` naming ``field``."""
        if isinstance(value, Duration):
            return value
        if isinstance(value, bool):
            raise DwsValidationError(field, value, _FORMS)
        if isinstance(value, int):
            if value < 0:
                raise DwsValidationError(field, value, "is negative; " + _FORMS)
            return cls(value)
        if isinstance(value, float) and value.is_integer() and value >= 0:
            return cls(int(value))
        if isinstance(value, _dt.timedelta):
            total = value.total_seconds()
            if total < 0 or not float(total).is_integer():
                raise DwsValidationError(field, str(value), "is not a whole number of seconds >= 0")
            return cls(int(total))
        if isinstance(value, str):
            text = value.strip().lower().replace(" ", "")
            if _DIGITS.match(text):
                return cls(int(text))
            if _WHOLE.match(text):
                return cls(sum(int(n) * UNIT_SECONDS[u] for n, u in _PART.findall(text)))
        raise DwsValidationError(field, value, _FORMS)

    # --- API forms -------------------------------------------------------------------------
    def to_api(self) -> dict[str, str]:
        """Compute API ``Duration`` object; int64 travels as a JSON string, as gcloud sends it."""
        return {"seconds": str(self.seconds)}

    def to_proto_string(self) -> str:
        """Protobuf JSON duration, e.g. ``"604800s"`` (GKE, Vertex AI)."""
        return f"{self.seconds}s"

    def human(self) -> str:
        """Shortest exact rendering in one unit: ``7d``, ``2h``, ``90s`` (weeks shown as days)."""
        for unit in ("d", "h", "m"):
            size = UNIT_SECONDS[unit]
            if self.seconds and self.seconds % size == 0:
                return f"{self.seconds // size}{unit}"
        return f"{self.seconds}s"

    def describe(self) -> str:
        """``7d (604800s)``: the human form with the exact seconds, for messages."""
        human = self.human()
        return human if human.endswith("s") else f"{human} ({self.seconds}s)"

    def timedelta(self) -> _dt.timedelta:
        return _dt.timedelta(seconds=self.seconds)

    # --- value semantics -------------------------------------------------------------------
    def __eq__(self, other: object) -> bool:
        return isinstance(other, Duration) and other.seconds == self.seconds

    def __lt__(self, other: Duration) -> bool:
        return self.seconds < other.seconds

    def __hash__(self) -> int:
        return hash(self.seconds)

    def __repr__(self) -> str:
        return f"Duration({self.human()!r})"

    def __str__(self) -> str:
        return self.human()

    @classmethod
    def __get_pydantic_core_schema__(
        cls, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        return core_schema.no_info_plain_validator_function(
            lambda v: cls.parse(v),
            serialization=core_schema.plain_serializer_function_ser_schema(lambda d: d.human()),
        )


_FORMS = (
    "is not a duration; use seconds (3600), a timedelta, or a string such as "
    "90s, 45m, 2h, 3d, 1w, 1d12h or 604800s"
)

DurationLike = Union[Duration, str, int, _dt.timedelta]  # noqa: UP007 (runtime alias)


def parse_duration(value: DurationLike, field: str = "duration") -> Duration:
    """Shorthand for :meth:`Duration.parse`."""
    return Duration.parse(value, field)
