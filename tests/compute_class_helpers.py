"""The ComputeClass CRD's structural schema (the fields pulumi-dws writes, vendored in
tests/fixtures by scripts/vendor_compute_class_schema.py), applied as the API server's strict
field validation applies it."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema

REPO = Path(__file__).resolve().parent.parent
SCHEMA = REPO / "tests" / "fixtures" / "compute_class_schema.json"


@cache
def vendored() -> dict[str, Any]:
    return json.loads(SCHEMA.read_text())  # type: ignore[no-any-return]


@cache
def _validator() -> jsonschema.Validator:
    return jsonschema.Draft7Validator(vendored()["schema"])


def validate_class(manifest: dict[str, Any]) -> None:
    """Raise AssertionError unless ``manifest`` is a ComputeClass the CRD accepts."""
    assert manifest["apiVersion"] == vendored()["apiVersion"]
    assert manifest["kind"] == vendored()["kind"]
    errors = sorted(_validator().iter_errors(manifest), key=lambda e: list(e.path))
    assert not errors, [f"{'.'.join(map(str, e.path))}: {e.message}" for e in errors]
