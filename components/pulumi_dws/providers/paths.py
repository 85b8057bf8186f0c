"""How every value that goes into a Google API URL is checked and quoted, and the resource
path templates built on it.

A project id, zone, region, name, cluster id or operation name is only ever put in a URL path
after it matched its pattern *in full* (``fullmatch``: a trailing newline is not a match) and
was percent-quoted; a region only becomes part of a host name through
:func:`~pulumi_dws.providers.endpoints.resolve_root`, which checks it the same way. So a project
of ``p/zones/us-central1-a/instances/victim#`` can never address VM ``victim``, and a region of
``evil.example#`` never becomes a host.

Each API's own paths are declared next to the kind that calls it, as a :class:`PathTemplate`
(``kinds/<kind>/api.py``; Compute's shared ones in :mod:`~pulumi_dws.providers.compute_ops`).
Only what every API shares is here: the segment patterns (those of Compute's discovery document,
``compute.instances.get`` parameters, and of the Vertex AI ``modelDevelopmentClusters`` API), the
template, and the poll path of a ``google.longrunning`` operation.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote

__all__ = [
    "PathValueError",
    "PATTERNS",
    "PathTemplate",
    "check_segment",
    "segment_problem",
    "operation_name_path",
]

PATTERNS: dict[str, re.Pattern[str]] = {
    # compute.instances.get: project (domain-scoped ids too), zone, instance
    "project": re.compile(
        r"(?:(?:[-a-z0-9]{1,63}\.)*(?:[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?):)?"
        r"(?:[0-9]{1,19}|(?:[a-z0-9](?:[-a-z0-9]{0,61}[a-z0-9])?))"
    ),
    "zone": re.compile(r"[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?"),
    "name": re.compile(r"[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?"),
    "operation": re.compile(r"[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?|[1-9][0-9]{0,19}"),
    "region": re.compile(r"[a-z]+-[a-z]+[0-9]+"),
    "cluster_id": re.compile(r"[a-z][a-z0-9]{0,62}"),
    # an id the API assigns (Vertex AI jobs: a number)
    "numeric_id": re.compile(r"[1-9][0-9]{0,19}"),
}
_SHOWN = {
    "project": "a project id such as my-project",
    "zone": "a zone such as us-central1-a",
    "name": "an RFC 1035 name (lowercase letters, digits, hyphens; 1-63 characters)",
    "operation": "an operation name",
    "region": "a region such as us-central1",
    "cluster_id": "a cluster id (a lowercase letter, then lowercase letters or digits)",
    "numeric_id": "an id the API assigned (a number)",
}


class PathValueError(ValueError):
    """A value that would go into a URL does not match its pattern."""

    def __init__(self, field: str, kind: str, value: Any) -> None:
        self.field = field
        self.value = value
        super().__init__(f"{field}: {value!r} is not {_SHOWN[kind]}")


def segment_problem(kind: str, value: Any) -> str | None:
    """Why ``value`` can't be a ``kind`` path segment, or None when it can."""
    if isinstance(value, str) and PATTERNS[kind].fullmatch(value):
        return None
    return f"{value!r} is not {_SHOWN[kind]}"


def check_segment(kind: str, value: Any, field: str | None = None) -> str:
    """``value`` percent-quoted for a URL path, once it matched the ``kind`` pattern in full."""
    if segment_problem(kind, value) is not None:
        raise PathValueError(field or kind, kind, value)
    return quote(value, safe=":")


_FIELD = re.compile(r"\{(\w+)(?::(\w+))?\}")


class PathTemplate:
    """A resource path declared once, as text: ``"projects/{project}/zones/{zone}/instances/
    {name}"``. Each ``{key}`` is an input (a key of the resource's props) whose value goes into
    the path only after it matched the pattern of its kind in full (``{key:kind}``; the kind is
    the key when not given; see :data:`PATTERNS`), and was quoted. From that one text the
    template builds paths (:meth:`path`, :meth:`collection`), reads ids back (:meth:`parse`)
    and says what a value cannot be (:meth:`problems`).

    A resource that lives under one of several parents (a zonal or a regional group) gives one
    template per parent: :meth:`path` takes the first whose inputs are all set, :meth:`parse`
    the first the id fits. ``labels`` name an input in error messages (default: its key).
    """

    def __init__(self, *templates: str, labels: Mapping[str, str] | None = None) -> None:
        if not templates:
            raise ValueError("a PathTemplate needs at least one template")
        self.templates = templates
        self.labels = dict(labels or {})
        self._variants = [tuple(part.split("/")) for part in templates]
        for kind in (kind for _, kind in self.fields):
            if kind not in PATTERNS:
                raise ValueError(f"{kind!r} is not a segment kind: one of {sorted(PATTERNS)}")

    def __repr__(self) -> str:
        return f"PathTemplate{self.templates!r}"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, PathTemplate):
            return NotImplemented
        return (self.templates, self.labels) == (other.templates, other.labels)

    def __hash__(self) -> int:
        return hash(self.templates)

    @property
    def fields(self) -> tuple[tuple[str, str], ...]:
        """``(key, kind)`` of every input the templates take, in order, each once."""
        seen: dict[str, str] = {}
        for template in self.templates:
            for match in _FIELD.finditer(template):
                seen.setdefault(match[1], match[2] or match[1])
        return tuple(seen.items())

    @property
    def keys(self) -> tuple[str, ...]:
        """The inputs the templates take."""
        return tuple(key for key, _ in self.fields)

    def shape(self, variant: int = 0) -> str:
        """A template as a person reads it: ``projects/PROJECT/zones/ZONE/instances/NAME``."""
        return _FIELD.sub(lambda m: self.label(m[1]).upper(), self.templates[variant])

    def label(self, key: str) -> str:
        """What messages call input ``key``."""
        return self.labels.get(key, key)

    def _variant(self, values: Mapping[str, Any], depth: int | None) -> tuple[str, ...]:
        """The template whose inputs (in its first ``depth`` parts) are all set; else the one
        with the most set (its first unset input is then the error)."""

        def set_and_unset(parts: tuple[str, ...]) -> tuple[int, int]:
            keys = [f[1] for f in map(_FIELD.fullmatch, parts[:depth]) if f]
            given = sum(values.get(key) not in (None, "") for key in keys)
            return given, len(keys) - given

        scored = [(set_and_unset(parts), parts) for parts in self._variants]
        for (_, unset), parts in scored:
            if not unset:
                return parts
        return max(scored, key=lambda item: item[0][0])[1]

    def path(self, values: Mapping[str, Any], *, depth: int | None = None) -> str:
        """The path of the resource ``values`` (its props) name, each input checked in full and
        quoted; :class:`PathValueError` when one can't go into a URL. ``depth`` keeps only the
        first ``depth`` parts."""
        out: list[str] = []
        for part in self._variant(values, depth)[:depth]:
            field = _FIELD.fullmatch(part)
            if field is None:
                out.append(part)
                continue
            key, kind = field[1], field[2] or field[1]
            out.append(check_segment(kind, values.get(key), self.label(key)))
        return "/".join(out)

    def collection(self, values: Mapping[str, Any]) -> str:
        """The collection the resource is created in: its path without its own id
        (``projects/p/zones/z/instances``)."""
        return self.path(values, depth=-1)

    def parse(self, id_: Any) -> dict[str, str] | None:
        """The inputs an id (a path this template built) names, each checked in full; None
        when ``id_`` is not such a path."""
        parts = id_.split("/") if isinstance(id_, str) else []
        for variant in self._variants:
            if len(parts) != len(variant):
                continue
            values: dict[str, str] = {}
            for part, given in zip(variant, parts, strict=True):
                field = _FIELD.fullmatch(part)
                if field is None and part != given:
                    break
                if field is not None:
                    if segment_problem(field[2] or field[1], given):
                        break
                    values[field[1]] = given
            else:
                return values
        return None

    def problems(self, values: Mapping[str, Any]) -> list[tuple[str, str]]:
        """``(key, why)`` for each input of ``values`` that is set and can't go into a URL
        (values not known yet, as in a preview, are let be by the caller)."""
        found = []
        for key, kind in self.fields:
            value = values.get(key)
            if value is None:
                continue
            problem = segment_problem(kind, value)
            if problem:
                found.append((key, problem))
        return found


_OPERATION_NAME = re.compile(r"projects/([^/]+)/locations/([^/]+)/operations/([^/]+)")


def operation_name_path(name: Any, location: str = "region") -> str:
    """The poll path of a long-running operation from the ``name`` the API gave it
    (``projects/<project>/locations/<location>/operations/<id>``), each segment checked;
    ``location`` is the pattern of the location segment (Vertex AI: ``region``; Cloud TPU:
    ``zone``)."""
    match = _OPERATION_NAME.fullmatch(name) if isinstance(name, str) else None
    if match is None:
        raise PathValueError("operation name", "operation", name)
    project, where, op_id = match.groups()
    return (
        f"projects/{check_segment('project', project, 'operation name')}/locations/"
        f"{check_segment(location, where, 'operation name')}/operations/"
        f"{check_segment('operation', op_id, 'operation name')}"
    )
