"""Request-body validation against a Google API discovery document, as Google's front end does.

The emulated services reject what Google would reject before any business logic runs::

    from pulumi_dws.testing.emulator.discovery import DiscoverySchema

    compute = DiscoverySchema.load("compute", "v1")   # googleapiclient's discovery_cache copy
    errors = compute.validate("Instance", body)        # [] when the body fits
    compute.require("Instance", body, root="instance") # raises GoogleError(400, ...) otherwise

What is checked (following the proto3 JSON mapping Google's APIs parse request bodies with):

* unknown fields (at any depth; a field's proto name, ``max_run_duration``, is accepted as an
  alias of its JSON name, ``maxRunDuration``, as Google's parser does);
* JSON types: ``string``, ``boolean``, ``integer``, ``number``, ``object``, ``array``, ``any``;
* formats: ``int32``/``uint32`` (integers in range, as a number or an integer string),
  ``int64``/``uint64`` (an integer as a JSON string or a whole number, never ``"1.5"`` or
  ``1.5``), ``float``/``double`` (a number, a numeric string, ``"NaN"``, ``"Infinity"``),
  ``byte`` (base64), ``google-datetime`` (RFC 3339), ``google-duration`` (``"3.5s"``),
  ``google-fieldmask``;
* enum values; string ``pattern`` s (the whole string must match: ``UPPER_case`` or a trailing
  newline in a name is refused); nested ``$ref`` schemas; arrays (each item);
  ``additionalProperties`` maps (each value); ``null`` is accepted anywhere (it means
  "default", as in proto3 JSON);
* optionally, with ``method=`` (e.g. ``"compute.instances.insert"``), fields annotated as
  required for that method.

Output-only fields are accepted and left to the service to ignore, as Google does.
"""

from __future__ import annotations

import base64
import binascii
import datetime as dt
import functools
import json
import math
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .base import GoogleError

__all__ = ["DiscoverySchema", "discovery_path"]

_INT_TEXT = re.compile(r"-?\d+")  # always fullmatch
_AT = "\x00AT\x00"  # stands for the value's path in scalar messages
_DURATION = re.compile(r"-?\d+(\.\d{1,9})?s")  # always fullmatch
_FIELDMASK = re.compile(  # always fullmatch
    r"([A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*)?"
    r"(,[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*)*"
)
_RFC3339 = re.compile(  # always fullmatch
    r"\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})"
)
_CAMEL = re.compile(r"(?<!^)([A-Z])")
_INT_RANGES: dict[str, tuple[int, int]] = {
    "int32": (-(2**31), 2**31 - 1),
    "uint32": (0, 2**32 - 1),
    "int64": (-(2**63), 2**63 - 1),
    "uint64": (0, 2**64 - 1),
}
_PROTO_TYPE = {
    "int32": "TYPE_INT32",
    "uint32": "TYPE_UINT32",
    "int64": "TYPE_INT64",
    "uint64": "TYPE_UINT64",
    "float": "TYPE_FLOAT",
    "double": "TYPE_DOUBLE",
    "byte": "TYPE_BYTES",
}


PACKAGED = Path(__file__).parent / "schemas"
"""Schemas that ship with pulumi-dws (``compute.v1.json``, cut from Google's discovery document
by ``scripts/generate_compute_schema.py``): the emulator needs no extra package for them."""


def discovery_path(api: str, version: str) -> Path:
    """``<api>.<version>.json``: the packaged copy if there is one, else googleapiclient's."""
    packaged = PACKAGED / f"{api}.{version}.json"
    if packaged.exists():
        return packaged
    try:
        import googleapiclient
    except ImportError:
        raise FileNotFoundError(
            f"no discovery document for {api} {version}: pulumi-dws ships only "
            f"{', '.join(sorted(p.stem for p in PACKAGED.glob('*.json')))}; install "
            "google-api-python-client for the others"
        ) from None

    return (
        Path(googleapiclient.__file__).parent
        / "discovery_cache"
        / "documents"
        / f"{api}.{version}.json"
    )


def _proto_name(json_name: str) -> str:
    return _CAMEL.sub(r"_\1", json_name).lower()


class DiscoverySchema:
    """The schemas of one API version, and a validator for request bodies against them."""

    def __init__(self, document: Mapping[str, Any]) -> None:
        self.document = document
        self.schemas: Mapping[str, Any] = document.get("schemas", {})
        self.name = f"{document.get('name', '?')}.{document.get('version', '?')}"
        self._aliases: dict[int, dict[str, str]] = {}

    @classmethod
    def load(cls, api: str, version: str) -> DiscoverySchema:
        """The discovery document ``<api>.<version>.json`` shipped with google-api-python-client
        (parsed once per process)."""
        return _load(api, version)

    # ------------------------------------------------------------------ methods
    def method(self, method_id: str) -> Mapping[str, Any]:
        """The description of a REST method, e.g. ``compute.instances.insert``."""
        parts = method_id.split(".")[1:]
        node: Mapping[str, Any] = self.document
        try:
            for resource in parts[:-1]:
                node = node["resources"][resource]
            return node["methods"][parts[-1]]
        except KeyError:
            raise KeyError(f"{self.name} has no method {method_id}") from None

    def check_path(
        self, method_id: str, params: Mapping[str, str], aliases: Mapping[str, str]
    ) -> None:
        """Raise ``GoogleError(400)`` when a path parameter of ``method_id`` does not match the
        ``pattern`` the discovery document gives it (``aliases`` maps route group names to the
        method's parameter names, e.g. ``{"name": "instance"}``)."""
        declared = self.method(method_id).get("parameters") or {}
        for group, value in params.items():
            spec = declared.get(aliases.get(group, group)) or {}
            pattern = spec.get("pattern")
            if pattern and not _compiled(pattern).fullmatch(value):
                raise GoogleError(
                    400,
                    f"Invalid value for field '{aliases.get(group, group)}': {value!r}. Must be "
                    f"a match of regex '{pattern}'",
                    "invalid",
                )

    def request_schema(self, method_id: str) -> str | None:
        """The schema name of a method's request body (``Instance`` for instances.insert)."""
        return (self.method(method_id).get("request") or {}).get("$ref")

    # ------------------------------------------------------------------ validation
    def validate(
        self, schema_name: str, body: Any, *, root: str = "", method: str | None = None
    ) -> list[str]:
        """Every way ``body`` does not fit schema ``schema_name``; empty when it fits.

        Each message names the path of the offending value (``root`` prefixes it, e.g.
        ``instance``), in the words Google's 400 answers use.
        """
        if schema_name not in self.schemas:
            raise KeyError(f"{self.name} has no schema {schema_name}")
        errors: list[str] = []
        self._check({"$ref": schema_name}, body, root, errors, method)
        return errors

    def require(
        self, schema_name: str, body: Any, *, root: str = "", method: str | None = None
    ) -> None:
        """Raise ``GoogleError(400)`` (Google's ``Invalid JSON payload received.``) unless
        ``body`` fits."""
        errors = self.validate(schema_name, body, root=root, method=method)
        if errors:
            raise GoogleError(400, "Invalid JSON payload received. " + " ".join(errors), "invalid")

    def _resolve(self, spec: Mapping[str, Any]) -> Mapping[str, Any]:
        seen = 0
        while "$ref" in spec:
            spec = self.schemas[spec["$ref"]]
            seen += 1
            if seen > 50:  # pragma: no cover - malformed document
                raise ValueError("$ref cycle")
        return spec

    def _aliases_of(self, spec: Mapping[str, Any]) -> dict[str, str]:
        key = id(spec)
        aliases = self._aliases.get(key)
        if aliases is None:
            props = spec.get("properties") or {}
            aliases = {name: name for name in props}
            for name in props:
                aliases.setdefault(_proto_name(name), name)
            self._aliases[key] = aliases
        return aliases

    def _check(
        self,
        spec: Mapping[str, Any],
        value: Any,
        path: str,
        errors: list[str],
        method: str | None,
    ) -> None:
        if value is None:
            return
        spec = self._resolve(spec)
        kind = spec.get("type")
        at = f"'{path}'" if path else "the request body"
        if kind == "any":
            return
        if kind == "object" or "properties" in spec or "additionalProperties" in spec:
            if not isinstance(value, dict):
                errors.append(
                    f"Invalid value at {at} (TYPE_MESSAGE), {_show(value)}: expected a JSON object."
                )
                return
            if "additionalProperties" in spec and "properties" not in spec:
                for key, item in value.items():
                    self._check(
                        spec["additionalProperties"], item, _join(path, key), errors, method
                    )
                return
            self._check_message(spec, value, path, errors, method)
            return
        if kind == "array":
            if not isinstance(value, list):
                errors.append(f"Invalid value at {at}, {_show(value)}: expected a JSON array.")
                return
            for i, item in enumerate(value):
                self._check(spec.get("items", {}), item, f"{path}[{i}]", errors, method)
            return
        problem = _scalar_problem(spec, value)
        if problem:
            errors.append(problem.replace(_AT, at))

    def _check_message(
        self,
        spec: Mapping[str, Any],
        value: dict[str, Any],
        path: str,
        errors: list[str],
        method: str | None,
    ) -> None:
        props = spec.get("properties") or {}
        aliases = self._aliases_of(spec)
        given: set[str] = set()
        for key, item in value.items():
            name = aliases.get(key)
            if name is None and "additionalProperties" in spec:
                self._check(spec["additionalProperties"], item, _join(path, key), errors, method)
                continue
            if name is None:
                where = f"'{path}'" if path else "root"
                errors.append(f'Unknown name "{key}" at {where}: Cannot find field.')
                continue
            given.add(name)
            self._check(props[name], item, _join(path, name), errors, method)
        if method:
            for name, prop in props.items():
                needed = (prop.get("annotations") or {}).get("required") or []
                if method in needed and name not in given:
                    errors.append(f"Required field '{_join(path, name)}' not specified.")


def _join(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


def _show(value: Any) -> str:
    return json.dumps(value) if not isinstance(value, float) or math.isfinite(value) else str(value)


def _scalar_problem(spec: Mapping[str, Any], value: Any) -> str | None:
    """A message (with ``_AT`` standing for the path) if ``value`` does not fit a scalar schema."""
    kind, fmt = spec.get("type"), spec.get("format")
    if fmt in _INT_RANGES:
        return _integer_problem(fmt, value)
    if fmt in ("float", "double") or kind == "number":
        ok = (isinstance(value, (int, float)) and not isinstance(value, bool)) or (
            isinstance(value, str) and _is_float_text(value)
        )
        return None if ok else _bad(fmt or "double", value, "a number")
    if kind == "boolean":
        return None if isinstance(value, bool) else _bad("bool", value, "true or false")
    if kind == "string":
        if not isinstance(value, str):
            return _bad("string", value, "a JSON string")
        enum = spec.get("enum")
        if enum and value not in enum:
            return (
                f"Invalid value at \x00AT\x00 (TYPE_ENUM), {_show(value)}: not one of "
                f"{', '.join(enum)}."
            )
        pattern = spec.get("pattern")
        if pattern and not _compiled(pattern).fullmatch(value):
            return (
                f"Invalid value at \x00AT\x00 (TYPE_STRING), {_show(value)}: must be a match "
                f"of regex '{pattern}'."
            )
        return _string_format_problem(fmt, value)
    return None


def _bad(proto: str, value: Any, wanted: str) -> str:
    name = _PROTO_TYPE.get(proto, f"TYPE_{proto.upper()}")
    return f"Invalid value at \x00AT\x00 ({name}), {_show(value)}: expected {wanted}."


def _integer_problem(fmt: str, value: Any) -> str | None:
    wanted = f"an integer in the {fmt} range"
    if fmt in ("int64", "uint64"):
        wanted += ", as a JSON string or a whole number"
    if isinstance(value, bool):
        return _bad(fmt, value, wanted)
    if isinstance(value, int):
        number = value
    elif isinstance(value, float) and value.is_integer():
        number = int(value)
    elif isinstance(value, str) and _INT_TEXT.fullmatch(value.strip()):
        number = int(value.strip())
    else:
        return _bad(fmt, value, wanted)
    low, high = _INT_RANGES[fmt]
    return None if low <= number <= high else _bad(fmt, value, wanted)


def _is_float_text(text: str) -> bool:
    if text in ("NaN", "Infinity", "-Infinity"):
        return True
    try:
        return math.isfinite(float(text))
    except ValueError:
        return False


def _string_format_problem(fmt: str | None, value: str) -> str | None:
    if fmt == "byte":
        padded = value + "=" * (-len(value) % 4)
        try:
            base64.b64decode(padded.replace("-", "+").replace("_", "/"), validate=True)
        except (binascii.Error, ValueError):
            return _bad("byte", value, "base64 data")
    elif fmt == "google-datetime":
        if not _RFC3339.fullmatch(value) or not _valid_date(value):
            return (
                "Invalid value at \x00AT\x00 (type.googleapis.com/google.protobuf.Timestamp), "
                f"{_show(value)}: expected an RFC 3339 timestamp."
            )
    elif fmt == "google-duration" and not _DURATION.fullmatch(value):
        return (
            "Invalid value at \x00AT\x00 (type.googleapis.com/google.protobuf.Duration), "
            f"{_show(value)}: expected seconds with an 's' suffix, e.g. \"3600s\"."
        )
    elif fmt == "google-fieldmask" and not _FIELDMASK.fullmatch(value):
        return (
            "Invalid value at \x00AT\x00 (type.googleapis.com/google.protobuf.FieldMask), "
            f"{_show(value)}: expected comma-separated field paths."
        )
    return None


def _valid_date(value: str) -> bool:
    try:
        dt.datetime.strptime(value[:19].upper(), "%Y-%m-%dT%H:%M:%S")
    except ValueError:
        return False
    return True


@functools.cache
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


@functools.cache
def _load(api: str, version: str) -> DiscoverySchema:
    path = discovery_path(api, version)
    if not path.exists():
        raise FileNotFoundError(f"no discovery document for {api} {version} at {path}")
    return DiscoverySchema(json.loads(path.read_text()))
