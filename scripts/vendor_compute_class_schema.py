#!/usr/bin/env python3
"""Vendor the structural schema of the GKE ComputeClass fields pulumi-dws writes, for the tests.

The tests check every ComputeClass pulumi-dws registers against the CRD's OpenAPI schema as the
API server's strict field validation would. GKE installs the CRD
(``computeclasses.cloud.google.com``, ``cloud.google.com/v1``) in every cluster; its schema is
published as JSON by datreeio/CRDs-catalog (``cloud.google.com/computeclass_v1.json``, MIT,
extracted from GKE 1.33 and later clusters) and its fields are documented on Google's CRD
reference page (https://docs.cloud.google.com/kubernetes-engine/docs/reference/crds/computeclass).

This script keeps only the fields pulumi-dws uses (:data:`FIELDS`), and of those only what the
structural check reads (types, enums, required, bounds, patterns); descriptions, defaults and
CEL rules (``x-kubernetes-validations``, which the component checks itself, with the CRD's
messages cited beside each check) are left out::

    python scripts/vendor_compute_class_schema.py --schema PATH/TO/computeclass_v1.json \\
        --source 'datreeio/CRDs-catalog@<commit> cloud.google.com/computeclass_v1.json'

It writes ``tests/fixtures/compute_class_schema.json`` with the source, the date and the SHA-256
of the file it read. A field missing upstream fails the run.
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import json
import sys
from pathlib import Path
from typing import Any

OUTPUT = Path("tests/fixtures/compute_class_schema.json")
REFERENCE = "https://docs.cloud.google.com/kubernetes-engine/docs/reference/crds/computeclass"
# The paths pulumi-dws writes, under the object's root ("[]" steps into an array's items).
FIELDS = (
    "apiVersion",
    "kind",
    "metadata",
    "spec.whenUnsatisfiable",
    "spec.nodePoolAutoCreation.enabled",
    "spec.activeMigration.optimizeRulePriority",
    "spec.priorityDefaults.location.zones",
    "spec.priorities[].machineFamily",
    "spec.priorities[].machineType",
    "spec.priorities[].spot",
    "spec.priorities[].maxRunDurationSeconds",
    "spec.priorities[].flexStart.enabled",
    "spec.priorities[].flexStart.nodeRecycling.leadTimeSeconds",
    "spec.priorities[].gpu.type",
    "spec.priorities[].gpu.count",
    "spec.priorities[].gpu.driverVersion",
    "spec.priorities[].tpu.type",
    "spec.priorities[].tpu.count",
    "spec.priorities[].tpu.topology",
    "spec.priorities[].reservations.affinity",
    "spec.priorities[].reservations.specific[].name",
    "spec.priorities[].reservations.specific[].project",
    "spec.priorities[].reservations.specific[].reservationBlock.name",
    "spec.priorities[].reservations.specific[].reservationBlock.reservationSubBlock.name",
    "spec.priorities[].placement.policyName",
    "spec.priorities[].nodepools",
)
KEEP = {
    "type", "format", "enum", "pattern", "items", "maxItems", "minItems", "maxLength",
    "minLength", "maximum", "minimum", "minProperties", "maxProperties",
    "x-kubernetes-int-or-string", "x-kubernetes-preserve-unknown-fields",
}  # fmt: skip


def _steps(path: str) -> list[str]:
    out: list[str] = []
    for part in path.split("."):
        if part.endswith("[]"):
            out += [part[:-2], "[]"]
        else:
            out.append(part)
    return out


def _leaf(schema: dict[str, Any]) -> dict[str, Any]:
    """A field's own keywords; its children are added only when a path names them."""
    out = {k: v for k, v in schema.items() if k in KEEP and k != "items"}
    if "items" in schema and "properties" not in schema["items"]:
        out["items"] = _leaf(schema["items"])
    return out


def trimmed(crd: dict[str, Any], fields: tuple[str, ...] = FIELDS) -> dict[str, Any]:
    """The CRD's schema with only ``fields`` (and the objects on the way to them), each object
    closed to other properties and keeping the ``required`` entries it still has."""
    root: dict[str, Any] = {"type": "object", "properties": {}}
    for path in fields:
        source: dict[str, Any] = crd
        target = root
        for step in _steps(path):
            if step == "[]":
                source = source["items"]
                target = target.setdefault("items", {"type": "object", "properties": {}})
                continue
            props = source.get("properties") or {}
            if step not in props:
                raise SystemExit(f"{path}: no field {step!r} upstream")
            source = props[step]
            target.setdefault("properties", {})
            if step not in target["properties"]:
                target["properties"][step] = _leaf(source)
            target = target["properties"][step]
            if "properties" in source or source.get("type") == "array":
                target.setdefault("type", source.get("type"))
    _close(root, crd)
    return root


def _close(target: dict[str, Any], source: dict[str, Any]) -> None:
    if "properties" in target:
        target["additionalProperties"] = False
        kept = [r for r in source.get("required", []) if r in target["properties"]]
        if kept:
            target["required"] = kept
        for name, child in target["properties"].items():
            _close(child, source["properties"][name])
    if isinstance(target.get("items"), dict) and "properties" in target["items"]:
        _close(target["items"], source["items"])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--schema", type=Path, required=True, help="computeclass_v1.json")
    parser.add_argument("--source", required=True, help="where the file comes from")
    parser.add_argument("--output", type=Path, default=OUTPUT)
    args = parser.parse_args(argv)
    raw = args.schema.read_bytes()
    crd = json.loads(raw)
    result = {
        "source": {
            "file": args.source,
            "sha256": hashlib.sha256(raw).hexdigest(),
            "reference": REFERENCE,
            "licence": "MIT (datreeio/CRDs-catalog); the CRD itself is GKE's",
            "vendored": dt.date.today().isoformat(),
            "by": "scripts/vendor_compute_class_schema.py (the fields pulumi-dws writes, "
            "structural keywords only: no descriptions, defaults or CEL rules)",
        },
        "apiVersion": "cloud.google.com/v1",
        "kind": "ComputeClass",
        "fields": list(FIELDS),
        "schema": trimmed(crd),
    }
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(result, indent=1, sort_keys=True) + "\n")
    print(f"{args.output}: {len(FIELDS)} fields from {args.source}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
