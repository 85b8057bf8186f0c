"""One duration type for every field that takes a length of time.

Accepts what gcloud accepts for a duration (``gcloud topic datetimes``): ``"90s"``, ``"45m"``,
``"2h"``, ``"3d"``, ``"1w"``, compounds like ``"1d12h"`` or ``"1h30m"``, decimals such as
``"1.5h"`` (5400 s), the ISO 8601 forms ``"PT1H30M"`` / ``"P3D"``, Google's ``"604800s"``, a
whole number of seconds (``3600`` or ``7200.0``), or a :class:`datetime.timedelta`. Whatever the
form, the total must be whole seconds: ``"600.5s"`` is rejected. Years and months (``"P1M"``)
have no fixed length and are rejected too. Renders the API forms: ``{"seconds": N}`` (Compute
``Duration``) and ``"Ns"`` (protobuf JSON).
"""

from __future__ import annotations

import datetime as _dt
import math
import re
from fractions import Fraction
from functools import total_ordering
from typing import Any, Union

from pydantic import GetCoreSchemaHandler
from pydantic_core import core_schema

from .errors import DwsValidationError

__all__ = ["Duration", "DurationLike", "parse_duration"]

UNIT_SECONDS: dict[str, int] = {"w": 604800, "d": 86400, "h": 3600, "m": 60, "s": 1}
_SUB_SECOND: dict[str, int] = {"ms": 1000, "us": 1000000, "ns": 1000000000}
# ASCII digits only: ``str.isdigit`` and ``\d`` also accept other scripts' digits and "²".
_NUMBER = r"[0-9]+(?:[.,][0-9]*)?|[.,][0-9]+"
_PART = re.compile(rf"({_NUMBER})(ms|us|ns|[ywdhms])")
_PLAIN = re.compile(rf"(?:{_NUMBER})\Z")


@total_ordering
class Duration:
    """A whole, non-negative number of seconds."""

    __slots__ = ("seconds",)

    def __init__(self, seconds: int) -> None:
        if isinstance(seconds, bool) or not isinstance(seconds, int) or seconds < 0:
            raise DwsValidationError("duration", seconds, "is not a whole number of seconds >= 0")
        self.seconds = seconds

    @classmethod
    def parse(cls, value: DurationLike | float, field: str = "duration") -> Duration:
        """Parse any accepted form; raise :class:`DwsValidationError` naming ``field``."""
        if isinstance(value, Duration):
            return value
        if isinstance(value, bool):
            raise DwsValidationError(field, value, _FORMS)
        if isinstance(value, int):
            if value < 0:
                raise DwsValidationError(field, value, "is negative; " + _FORMS)
            return cls(value)
        if isinstance(value, float):
            if not math.isfinite(value) or value < 0:
                raise DwsValidationError(field, value, "is not a duration >= 0; " + _FORMS)
            return cls(_whole_seconds(field, value, Fraction(value)))
        if isinstance(value, _dt.timedelta):
            total = value.total_seconds()
            if total < 0 or not float(total).is_integer():
                raise DwsValidationError(field, str(value), "is not a whole number of seconds >= 0")
            return cls(int(total))
        if isinstance(value, str):
            return cls(_whole_seconds(field, value, _parse_text(field, value)))
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
    "90s, 45m, 2h, 1.5h, 1h30m, 3d, 1w, PT2H or 604800s"
)


def _number(text: str) -> Fraction:
    """``"1.5"`` / ``"1,5"`` / ``".5"`` / ``"2."`` as an exact fraction."""
    whole, _, frac = text.replace(",", ".").partition(".")
    return Fraction(int(whole or "0")) + (Fraction(int(frac), 10 ** len(frac)) if frac else 0)


def _parse_text(field: str, value: str) -> Fraction:
    """Seconds in a gcloud duration string (``gcloud topic datetimes``), exactly.

    Without a leading ``P`` a time part is implied, so ``m`` is minutes (as gcloud reads
    ``--max-run-duration=45m``); with one, ``P1M`` is a month, which has no fixed length.
    """
    text = value.strip().lower().replace(" ", "")
    if _PLAIN.match(text):
        return _number(text)  # a bare number is seconds, as gcloud's default unit
    if not _PART.search(text):
        raise DwsValidationError(field, value, _FORMS)
    iso = text.startswith("p")
    body = text[1:] if iso else text
    time_part = not iso
    total = Fraction(0)
    pos = 0
    for match in _PART.finditer(body):
        gap = body[pos : match.start()]
        if gap == "t":
            time_part = True
        elif gap:
            raise DwsValidationError(field, value, _FORMS)
        pos = match.end()
        amount, unit = _number(match.group(1)), match.group(2)
        if unit == "y" or (unit == "m" and not time_part):
            what = "years" if unit == "y" else "months (P1M; minutes are PT1M)"
            raise DwsValidationError(
                field, value, f"uses {what}, which have no fixed length; use days, e.g. 30d"
            )
        if unit in _SUB_SECOND:
            total += amount / _SUB_SECOND[unit]
        else:
            total += amount * UNIT_SECONDS[unit]
        if unit in ("h", "m", "s"):
            time_part = True
    if body[pos:] not in ("", "t"):
        raise DwsValidationError(field, value, _FORMS)
    return total


def _whole_seconds(field: str, value: object, seconds: Fraction) -> int:
    """The whole number of seconds ``seconds`` is, or a message naming the fraction."""
    if seconds.denominator != 1:
        exact = f"{float(seconds):.9g}s"
        said = str(value).strip().lower().replace(" ", "")
        what = "is" if said in (exact, exact[:-1]) else f"comes to {exact}, which is"
        raise DwsValidationError(
            field,
            value,
            f"{what} not a whole number of seconds; use e.g. "
            f"{math.floor(seconds)}s or {math.ceil(seconds)}s",
        )
    return int(seconds)


DurationLike = Union[Duration, str, int, _dt.timedelta]  # noqa: UP007 (runtime alias)


def parse_duration(value: DurationLike, field: str = "duration") -> Duration:
    """Shorthand for :meth:`Duration.parse`."""
    return Duration.parse(value, field)
