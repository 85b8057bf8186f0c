"""The Kueue CRDs' structural schemas (vendored in tests/fixtures), applied as the API server's
strict field validation applies them: shared by the GPU and TPU Kueue tests."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema

REPO = Path(__file__).resolve().parent.parent
CRD_SCHEMAS = REPO / "tests" / "fixtures" / "kueue_crd_schemas.json"


def _strict(schema: Any) -> Any:
    """The CRD schema as the API server's strict field validation applies it: an object with
    ``properties`` and no ``additionalProperties`` (or preserve-unknown-fields) rejects
    fields it does not declare, instead of silently pruning them. (CEL rules in
    ``x-kubernetes-validations`` are not evaluated here.)"""
    if isinstance(schema, list):
        return [_strict(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out = {k: _strict(v) for k, v in schema.items()}
    pattern = out.get("pattern")
    if isinstance(pattern, str) and pattern.startswith("^(?i)"):
        out["pattern"] = "(?i)^" + pattern[5:]  # RE2 takes inline flags anywhere, Python not
    if (
        "properties" in out
        and "additionalProperties" not in out
        and not out.get("x-kubernetes-preserve-unknown-fields")
    ):
        out["additionalProperties"] = False
    return out


@cache
def _validators() -> dict[tuple[str, str], jsonschema.Validator]:
    """The Kueue CRDs' structural schemas, vendored by scripts/vendor_kueue_crd_schemas.py."""
    vendored = json.loads(CRD_SCHEMAS.read_text())
    return {
        (kind, version): jsonschema.Draft7Validator(_strict(entry["schema"]))
        for kind, versions in vendored["crds"].items()
        for version, entry in versions.items()
    }


def validate(manifest: dict[str, Any]) -> None:
    group, _, version = manifest["apiVersion"].partition("/")
    assert group == "kueue.x-k8s.io"
    validator = _validators()[(manifest["kind"], version)]
    errors = sorted(validator.iter_errors(manifest), key=lambda e: list(e.path))
    assert not errors, [f"{'.'.join(map(str, e.path))}: {e.message}" for e in errors]
