#!/usr/bin/env python3
"""Vendor the structural schema of Kueue's CRDs for the tests (no network, no ../shared).

The tests check every Kueue object pulumi-dws writes against the CRDs' OpenAPI schemas, as the
API server's strict field validation would. This script keeps what that check reads (types,
properties, enums, required, formats, patterns, bounds, the ``x-kubernetes-*`` structural
markers) and drops the prose (descriptions), the defaults and the CEL rules, from the upstream
CRD files (``config/components/crd/bases/kueue.x-k8s.io_*.yaml`` of kubernetes-sigs/kueue,
Apache License 2.0)::

    python scripts/vendor_kueue_crd_schemas.py --crds PATH/TO/kueue-crds --kueue-version 0.16.1

It writes ``tests/fixtures/kueue_crd_schemas.json`` with the Kueue version given, the
controller-gen version and a SHA-256 of each source file.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path
from typing import Any

import yaml

OUTPUT = Path("tests/fixtures/kueue_crd_schemas.json")
KINDS = (
    "ResourceFlavor",
    "ProvisioningRequestConfig",
    "AdmissionCheck",
    "ClusterQueue",
    "LocalQueue",
)
# Schema keywords the structural check reads; everything else (description, default, example,
# x-kubernetes-validations with its CEL and messages) is left out.
KEEP = {
    "type", "format", "enum", "required", "pattern", "nullable",
    "items", "properties", "additionalProperties", "anyOf", "oneOf", "allOf", "not",
    "maxItems", "minItems", "maxLength", "minLength", "maximum", "minimum",
    "exclusiveMaximum", "exclusiveMinimum", "maxProperties", "minProperties", "uniqueItems",
    "x-kubernetes-int-or-string", "x-kubernetes-preserve-unknown-fields",
    "x-kubernetes-embedded-resource", "x-kubernetes-list-type", "x-kubernetes-list-map-keys",
    "x-kubernetes-map-type",
}  # fmt: skip


def structural(schema: Any) -> Any:
    """``schema`` with only the keywords in :data:`KEEP`, at every depth (property names are
    data, not keywords: a field called ``description`` stays)."""
    if isinstance(schema, list):
        return [structural(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key not in KEEP:
            continue
        if key == "properties":
            out[key] = {name: structural(prop) for name, prop in value.items()}
        elif key in ("items", "additionalProperties", "not", "anyOf", "oneOf", "allOf"):
            out[key] = structural(value)
        else:
            out[key] = value
    return out


def vendor(crds: Path, kueue_version: str) -> dict[str, Any]:
    found: dict[str, dict[str, Any]] = {}
    sources: dict[str, str] = {}
    generator = set()
    for path in sorted(crds.glob("kueue.x-k8s.io_*.yaml")):
        crd = yaml.safe_load(path.read_text())
        kind = crd["spec"]["names"]["kind"]
        if kind not in KINDS:
            continue
        sources[path.name] = hashlib.sha256(path.read_bytes()).hexdigest()
        annotations = crd["metadata"].get("annotations") or {}
        generator.add(annotations.get("controller-gen.kubebuilder.io/version", "?"))
        found[kind] = {
            version["name"]: {
                "served": version.get("served", False),
                "storage": version.get("storage", False),
                "schema": structural(version["schema"]["openAPIV3Schema"]),
            }
            for version in crd["spec"]["versions"]
        }
    missing = [k for k in KINDS if k not in found]
    if missing:
        raise SystemExit(f"{crds}: no CRD for {', '.join(missing)}")
    return {
        "source": {
            "project": "kubernetes-sigs/kueue",
            "files": "config/components/crd/bases/kueue.x-k8s.io_*.yaml",
            "kueueVersion": kueue_version,
            "controllerGen": sorted(generator),
            "licence": "Apache License 2.0 (https://github.com/kubernetes-sigs/kueue/blob/main/LICENSE)",
            "sha256": sources,
            "by": "scripts/vendor_kueue_crd_schemas.py (structural schema only: no descriptions, "
            "defaults or CEL rules)",
        },
        "crds": found,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--crds", type=Path, required=True, help="directory of the CRD YAML files")
    parser.add_argument("--kueue-version", required=True, help="the Kueue release they are from")
    parser.add_argument("--output", type=Path, default=OUTPUT)
    args = parser.parse_args(argv)
    result = vendor(args.crds, args.kueue_version)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(result, indent=1, sort_keys=True) + "\n")
    kinds = ", ".join(result["crds"])
    print(f"{args.output}: {kinds} (Kueue {args.kueue_version})", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
