"""The service limits pulumi-dws validates against: one table, each row with its source.

This module holds the machinery and the rows no kind owns (names, labels, disks, Kubernetes
names, TPU v5p slices); each kind's rows live in its package (``kinds/<kind>/limits.py``) and
are registered when it is imported (:func:`register`). Validation reads limits only from here.
When Google changes a limit, override the row instead of patching the library::

    from pulumi_dws import limits
    limits.override("calendar.duration", maximum="180d")

or, per stack, in ``Pulumi.<stack>.yaml`` (honoured by every program that uses pulumi-dws
components, from the first one constructed, and by the policy pack and ``dws plan``)::

    config:
      dws:limits:
        calendar.duration: {maximum: 180d}

``limits.use_profile("seed")`` switches the Calendar-mode rows to the values of the original
DWS announcement (blocks of 7 or 14 days, booked up to 8 weeks ahead).
"""

from __future__ import annotations

import contextlib
import dataclasses
import difflib
import importlib
import re
import threading
from collections.abc import Iterator, Mapping
from contextvars import ContextVar
from dataclasses import dataclass
from types import MappingProxyType
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, ValidationError, ValidationInfo

from . import stack_config
from .catalog.availability import TPU_ZONES
from .duration import Duration, DurationLike
from .errors import NO_VALUE, DwsValidationError
from .outputs import output_aware

__all__ = [
    "Limit",
    "DEFAULT_LIMITS",
    "SEED_PROFILE",
    "get",
    "table",
    "override",
    "overridden",
    "use_profile",
    "reset",
    "apply_config",
    "applied",
    "snapshot",
    "restore",
    "RowChange",
    "check_duration",
    "check_count",
    "check_zone",
    "as_whole_number",
    "from_stack",
    "CONFIG_KEY",
    "DAY",
    "FACTS",
    "TOOLKIT",
    "WEEK",
    "register",
    "seed_profile",
]

Unit = Literal["seconds", "count", "zones"]

FACTS = "dws-facts.md"
CONFIG_KEY = "dws:limits"
# Sources several tables cite (the docs table "How we know" lists them with what each was
# checked for); a kind's own sources are in its ``kinds/<kind>/limits.py``.
TOOLKIT = "GoogleCloudPlatform/cluster-toolkit@1047080375afbb44da4b596be314634e7486af4a"


@dataclass(frozen=True)
class Limit:
    """One service limit: an inclusive range and/or a set of allowed values; or, for a row of
    unit ``zones``, the zones where a product is offered."""

    key: str
    description: str
    unit: Unit
    source: str
    minimum: int | None = None
    maximum: int | None = None
    choices: tuple[int, ...] | None = None
    zones: tuple[str, ...] | None = None

    def render(self, value: int) -> str:
        return Duration(value).describe() if self.unit == "seconds" else str(value)

    def allowed(self) -> str:
        """Human text of what is allowed, e.g. ``30s to 7d (604800s)``."""
        if self.unit == "zones":
            return ", ".join(self.zones) if self.zones else "any zone"
        if self.choices:
            return " or ".join(self.render(c) for c in self.choices)
        if self.minimum is not None and self.maximum is not None:
            return f"{self.render(self.minimum)} to {self.render(self.maximum)}"
        if self.minimum is not None:
            return f"at least {self.render(self.minimum)}"
        if self.maximum is not None:
            return f"at most {self.render(self.maximum)}"
        return "any value"

    def check(self, field: str, value: int, shown: Any = None) -> int:
        """Raise :class:`DwsValidationError` unless ``value`` is inside this limit."""
        if shown is None:
            shown = self.render(value) if self.unit == "seconds" else value
        if self.choices and value not in self.choices:
            raise DwsValidationError(
                field, shown, f"is not an allowed {self.description}: use {self.allowed()}"
            )
        if self.minimum is not None and value < self.minimum:
            raise DwsValidationError(
                field,
                shown,
                f"is below the {self.description} minimum of {self.render(self.minimum)}"
                f"; allowed: {self.allowed()}",
            )
        if self.maximum is not None and value > self.maximum:
            raise DwsValidationError(
                field,
                shown,
                f"is above the {self.description} limit of {self.render(self.maximum)}"
                f"; allowed: {self.allowed()}",
            )
        return value

    def check_zone(self, field: str, zone: str) -> str:
        """Raise :class:`DwsValidationError` unless ``zone`` is one of this row's zones."""
        if self.zones is not None and zone not in self.zones:
            raise DwsValidationError(
                field, zone, f"is not a zone of {self.description}: use {self.allowed()}"
            )
        return zone

    def narrowed(self, minimum: int | None = None, maximum: int | None = None) -> Limit:
        """This row with a tighter range, for a field that allows less than the row (a pool's
        ``max_nodes`` is at least 1 where node counts may be 0): its messages then state
        the range actually enforced."""
        low, high = self.minimum, self.maximum
        if minimum is not None:
            low = minimum if low is None else max(low, minimum)
        if maximum is not None:
            high = maximum if high is None else min(high, maximum)
        return dataclasses.replace(self, minimum=low, maximum=high)


DAY = 86400
WEEK = 7 * DAY

DEFAULT_LIMITS: dict[str, Limit] = {
    row.key: row
    for row in [
        Limit(
            "compute.metadata_key_length",
            "Compute Engine metadata key length",
            "count",
            "Compute Engine instance metadata: keys of 1 to 128 characters",
            minimum=1,
            maximum=128,
        ),
        Limit(
            "kubernetes.name_length",
            "Kubernetes name length",
            "count",
            "Kubernetes DNS-1123 labels, label names and values: at most 63 characters",
            minimum=1,
            maximum=63,
        ),
        Limit(
            "kubernetes.label_prefix_length",
            "Kubernetes label key prefix length",
            "count",
            "Kubernetes label key prefixes are DNS subdomains: at most 253 characters",
            minimum=1,
            maximum=253,
        ),
        Limit(
            "name.length",
            "resource name length",
            "count",
            "RFC 1035 names used by Compute Engine and GKE: 1 to 63 characters",
            minimum=1,
            maximum=63,
        ),
        Limit(
            "labels.key_length",
            "label key length",
            "count",
            "Google Cloud labels: keys are 1 to 63 characters",
            minimum=1,
            maximum=63,
        ),
        Limit(
            "labels.value_length",
            "label value length",
            "count",
            "Google Cloud labels: values are at most 63 characters (may be empty)",
            minimum=0,
            maximum=63,
        ),
        Limit(
            "labels.count",
            "number of labels",
            "count",
            "Google Cloud labels: at most 64 per resource",
            minimum=0,
            maximum=64,
        ),
        Limit(
            "compute.boot_disk_gb",
            "boot disk size in GB",
            "count",
            "Compute Engine persistent disks: 10 GB to 64 TB (65536 GB)",
            minimum=10,
            maximum=65536,
        ),
        Limit(
            "tpu.v5p_cubes",
            "TPU v5p slice size in cubes of 4x4x4 chips",
            "count",
            (
                'https://docs.cloud.google.com/tpu/docs/v5p ("The largest job that can be '
                'scheduled is a 96 cube (6144 chip) job"); shapes beyond the documented ones '
                f"are AxBxC of multiples of 4 ({TOOLKIT} pkg/config/hardware.go "
                "Validate3DTopology, which allows up to 140 cubes)"
            ),
            minimum=1,
            maximum=96,
        ),
        Limit(
            "compute.accelerator_count",
            "number of attached GPUs",
            "count",
            "Compute Engine guestAccelerators on N1/G-series: 1, 2, 4 or 8 per VM",
            choices=(1, 2, 4, 8),
        ),
        # Where each door offers each TPU generation: the catalog's table, one row each.
        *(
            Limit(row.key, row.description, "zones", row.source, zones=row.zones)
            for row in TPU_ZONES
        ),
    ]
}
"""Every row by key: the general ones above, and each kind's (``kinds/<kind>/limits.py``),
added when the kind's rows are imported (importing :mod:`pulumi_dws` imports them all; a
look-up of a row not yet added imports them first)."""

SEED_PROFILE: dict[str, dict[str, Any]] = {}
"""What ``use_profile("seed")`` changes, by row (the Calendar kind's rows add theirs)."""

_loaded = False
_load_lock = threading.RLock()


def register(*rows: Limit, seed: Mapping[str, Mapping[str, Any]] | None = None) -> None:
    """Add a kind's rows (from its ``limits`` module), and what the ``seed`` profile changes in
    them; a key is declared once."""
    with _load_lock:
        for row in rows:
            known = DEFAULT_LIMITS.get(row.key)
            if known is not None and known != row:
                raise ValueError(f"limit {row.key} is declared twice")
            DEFAULT_LIMITS[row.key] = row
        for key, fields in (seed or {}).items():
            if key not in DEFAULT_LIMITS:
                raise ValueError(f"the seed profile changes {key}, which is no row")
            SEED_PROFILE[key] = dict(fields)


def seed_profile() -> dict[str, dict[str, Any]]:
    """What ``use_profile("seed")`` changes, by row (every kind's rows imported first)."""
    _all_rows()
    return SEED_PROFILE


def _all_rows() -> dict[str, Limit]:
    """Every row, each kind's included (imported the first time they are needed)."""
    global _loaded
    if not _loaded:
        with _load_lock:
            if not _loaded:
                _loaded = True
                importlib.import_module("pulumi_dws.kinds").load_limits()
    return DEFAULT_LIMITS


_overrides: ContextVar[Mapping[str, Limit]] = ContextVar(
    "dws_limit_overrides", default=MappingProxyType({})
)
"""The rows overridden in this context (a ``with`` block, a Pulumi program's tasks, a thread):
what one program or test overrides does not leak into another's."""


def _to_unit(row: Limit, field: str, value: Any) -> int:
    """A bound in its row's unit: seconds from any duration form, or a whole number."""
    if row.unit == "seconds":
        return Duration.parse(value, field).seconds
    return as_whole_number(field, value)


_ZONE_SHAPE = re.compile(r"^[a-z]+-[a-z]+[0-9]+-[a-z0-9]+\Z")


def _zone_names(value: Any, info: ValidationInfo) -> Any:
    """The zones of a ``zones`` row: a list of zone names (``us-east5-a``)."""
    row: Limit = (info.context or {})["row"]
    field = f"limits.{row.key}.zones"
    if value is None:
        return None
    if row.unit != "zones":
        raise DwsValidationError(field, value, "only applies to rows of zones")
    if isinstance(value, str) or not isinstance(value, list | tuple):
        raise DwsValidationError(field, value, "must be a list of zones, e.g. [us-east5-a]")
    for zone in value:
        if not isinstance(zone, str) or not _ZONE_SHAPE.match(zone):
            raise DwsValidationError(field, zone, "is not shaped like a zone (us-east5-a)")
    return tuple(value)


def _in_unit(value: Any, info: ValidationInfo) -> Any:
    """A bound, or each of ``choices``, in the unit of the row being changed."""
    row: Limit = (info.context or {})["row"]
    field = f"limits.{row.key}.{info.field_name}"
    if value is None:
        return None
    if info.field_name != "choices":
        return _to_unit(row, field, value)
    if isinstance(value, str) or not isinstance(value, list | tuple):
        raise DwsValidationError(field, value, "must be a list")
    return tuple(_to_unit(row, field, v) for v in value)


class RowChange(BaseModel):
    """What an override may change in a row (:func:`override`, a ``dws:limits`` entry): its
    bounds in the row's unit (``180d`` or 15552000 for a duration row, a whole number for a
    count row), the zones of a ``zones`` row, its source or description."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    minimum: Annotated[int | None, BeforeValidator(_in_unit)] = None
    maximum: Annotated[int | None, BeforeValidator(_in_unit)] = None
    choices: Annotated[tuple[int, ...] | None, BeforeValidator(_in_unit)] = None
    zones: Annotated[tuple[str, ...] | None, BeforeValidator(_zone_names)] = None
    source: str | None = None
    description: str | None = None

    @classmethod
    def of(cls, row: Limit, fields: Mapping[str, Any], where: str) -> dict[str, Any]:
        """The fields ``fields`` changes, checked and converted; a
        :class:`~pulumi_dws.errors.DwsValidationError` under ``where`` (``limits.<key>``)."""
        try:
            change = cls.model_validate(dict(fields), context={"row": row})
        except ValidationError as exc:
            errors = exc.errors(include_url=False)
            unknown = sorted(str(e["loc"][0]) for e in errors if e["type"] == "extra_forbidden")
            if unknown:
                raise DwsValidationError(
                    where, unknown, "has unknown fields; use minimum, maximum, choices, zones"
                ) from None
            first = errors[0]
            name = str(first["loc"][0]) if first["loc"] else ""
            original = (first.get("ctx") or {}).get("error")
            if isinstance(original, DwsValidationError):
                raise DwsValidationError(
                    f"{where}.{name}", original.value, original.problem
                ) from None
            raise DwsValidationError(
                f"{where}.{name}", first.get("input"), "must be text"
            ) from None
        return change.model_dump(exclude_unset=True)


def _check_range(row: Limit, low: int | None, high: int | None, where: str) -> None:
    """An inverted range would reject every value with a message naming only one bound."""
    if low is not None and high is not None and low > high:
        raise DwsValidationError(
            where,
            f"minimum {row.render(low)}, maximum {row.render(high)}",
            "is an empty range: the minimum must not be above the maximum",
        )


def override(key: str, **fields: Any) -> Limit:
    """Replace fields of one row (``minimum``, ``maximum``, ``choices``, ``source``) from now
    on, in this context (the program, test or ``with`` block that overrides it).

    Durations may be given in any :class:`~pulumi_dws.duration.Duration` form.
    """
    row = get(key)
    values = RowChange.of(row, fields, f"limits.{key}")
    if "source" not in values:
        values["source"] = f"overridden by the user (was: {row.source})"
    new = dataclasses.replace(row, **values)
    _check_range(new, new.minimum, new.maximum, f"limits.{key}")
    _overrides.set({**_overrides.get(), key: new})
    return new


def use_profile(name: Literal["current", "seed"]) -> None:
    """``current``: Google's current docs (default). ``seed``: the original announcement."""
    reset()
    if name == "seed":
        rows = _all_rows()
        for key, fields in SEED_PROFILE.items():
            seeded = dataclasses.replace(rows[key], **fields)
            _overrides.set({**_overrides.get(), key: seeded})
    elif name != "current":
        raise DwsValidationError("limits profile", name, "is unknown; use current or seed")


def reset() -> None:
    """Drop every override."""
    _overrides.set({})


@contextlib.contextmanager
def overridden(key: str, **fields: Any) -> Iterator[Limit]:
    """Override one row inside a ``with`` block (handy in tests)."""
    saved = snapshot()
    try:
        yield override(key, **fields)
    finally:
        restore(saved)


def apply_config(config: Mapping[str, Any] | None) -> None:
    """Apply a ``dws:limits`` stack config object: ``{profile: seed, key: {maximum: ...}}``.

    The profile (which starts from a clean table) is applied first, wherever it is written,
    so the rows given beside it are kept. Errors name the ``dws:limits`` path.
    """
    if config is None:
        return
    if not isinstance(config, Mapping):
        raise DwsValidationError(
            "dws:limits",
            config,
            "must be an object of rows, e.g. {calendar.duration: {maximum: 120d}}",
        )
    if "profile" in config:
        try:
            use_profile(config["profile"])
        except DwsValidationError as exc:
            raise DwsValidationError("dws:limits.profile", exc.value, exc.problem) from None
    for key, fields in config.items():
        if key == "profile":
            continue
        if not isinstance(fields, Mapping):
            raise DwsValidationError(f"dws:limits.{key}", fields, "must be a mapping of fields")
        try:
            override(key, **dict(fields))
        except DwsValidationError as exc:
            field = exc.field if exc.field.startswith("limits.") else f"limits.{key}"
            raise DwsValidationError(f"dws:{field}", exc.value, exc.problem) from None


def snapshot() -> dict[str, Limit]:
    """The overrides in force, for :func:`restore` (``dws plan`` isolates each program)."""
    return dict(_overrides.get())


def restore(saved: Mapping[str, Limit]) -> None:
    """Put back the overrides a :func:`snapshot` took."""
    _overrides.set(dict(saved))


@contextlib.contextmanager
def applied(config: Mapping[str, Any] | None) -> Iterator[None]:
    """Apply a ``dws:limits`` config object inside a ``with`` block; the rows in force
    before come back on exit."""
    saved = snapshot()
    try:
        apply_config(config)
        yield
    finally:
        restore(saved)


def get(key: str) -> Limit:
    """The row in force for ``key``: the running stack's ``dws:limits`` over an override
    (:func:`override`), over the default."""
    base = _overrides.get().get(key) or DEFAULT_LIMITS.get(key) or _all_rows().get(key)
    if base is None:
        known = ", ".join(sorted(_all_rows()))
        raise DwsValidationError("limit", key, f"is unknown; known: {known}")
    fields = from_stack().get(key)
    if not fields:
        return base
    source = fields.get("source") or f"{CONFIG_KEY} stack config (was: {base.source})"
    return dataclasses.replace(base, **{**fields, "source": source})


_stack_cache: tuple[str | None, dict[str, dict[str, Any]]] = (None, {})


def from_stack() -> dict[str, dict[str, Any]]:
    """The row fields the running program's ``dws:limits`` stack config sets (``{}`` outside
    a program, or when the stack sets none), checked and converted (``180d`` -> seconds).

    Read on every look-up, so every program that uses pulumi-dws honours its stack's limits
    from the first component on; a bad config fails with its ``dws:limits`` path.
    """
    global _stack_cache
    text = stack_config.raw(CONFIG_KEY)
    if text is None:
        return {}
    if _stack_cache[0] == text:
        return _stack_cache[1]
    fields = _stack_fields(stack_config.parse(CONFIG_KEY, text))
    _stack_cache = (text, fields)
    return fields


def _stack_fields(config: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    fields: dict[str, dict[str, Any]] = {}
    rows = _all_rows()
    profile = config.get("profile", "current")
    if profile == "seed":
        fields.update({key: dict(values) for key, values in seed_profile().items()})
    elif profile != "current":
        raise DwsValidationError(
            f"{CONFIG_KEY}.profile", profile, "is unknown; use current or seed"
        )
    for key, given in config.items():
        if key == "profile":
            continue
        if key not in rows:
            close = difflib.get_close_matches(str(key), list(rows), n=1, cutoff=0.75)
            hint = f"did you mean {close[0]}?" if close else "see `dws limits` for the rows"
            raise DwsValidationError(f"{CONFIG_KEY}.{key}", NO_VALUE, f"is not a limit; {hint}")
        if not isinstance(given, Mapping):
            raise DwsValidationError(f"{CONFIG_KEY}.{key}", given, "must be a mapping of fields")
        row = rows[key]
        merged = {**fields.get(key, {}), **RowChange.of(row, given, f"{CONFIG_KEY}.{key}")}
        low, high = merged.get("minimum", row.minimum), merged.get("maximum", row.maximum)
        _check_range(row, low, high, f"{CONFIG_KEY}.{key}")
        fields[key] = merged
    return fields


def table() -> list[Limit]:
    """Every row in force, by key, for docs and ``dws limits``."""
    return [get(key) for key in sorted(_all_rows())]


@output_aware
def check_duration(field: str, value: DurationLike, key: str) -> Duration:
    """Parse ``value`` and check it against row ``key`` (an Output: once it is known)."""
    duration = Duration.parse(value, field)
    get(key).check(field, duration.seconds, shown=value if isinstance(value, str) else None)
    return duration


def as_whole_number(field: str, value: Any) -> int:
    """An int, or a float that is whole (``2.0`` from YAML or JSON); anything else, a string
    of digits included (``"2"``, quoted in the message), is refused."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise DwsValidationError(field, value, "must be a whole number")
    return value


@output_aware
def check_zone(field: str, zone: str, key: str) -> str:
    """Check a zone against the zones row ``key`` (an Output: once it is known)."""
    return get(key).check_zone(field, zone)


@output_aware
def check_count(field: str, value: int, key: str, *, minimum: int | None = None) -> int:
    """Check a whole number against row ``key`` (an Output: once it is known); ``minimum``
    narrows the row for this field (see :meth:`Limit.narrowed`)."""
    number = as_whole_number(field, value)
    row = get(key) if minimum is None else get(key).narrowed(minimum=minimum)
    return row.check(field, number)
