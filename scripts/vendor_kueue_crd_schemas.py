#!/usr/bin/env python3
"""Vendor the structural schema of Kueue's CRDs for the tests (no network, no ../shared).

The tests check every Kueue object pulumi-dws writes against the CRDs' OpenAPI schemas, as the
API server's strict field validation would, for every Kueue version pulumi-dws supports. This
script keeps what that check reads (types, properties, enums, required, formats, patterns,
bounds, the ``x-kubernetes-*`` structural markers) and drops the prose (descriptions), the
defaults and the CEL rules, from the upstream CRD files
(``config/components/crd/bases/kueue.x-k8s.io_*.yaml`` of kubernetes-sigs/kueue, Apache
License 2.0). Either from a directory of CRD files::

    python scripts/vendor_kueue_crd_schemas.py --crds PATH/TO/kueue-crds --kueue-version 0.16.1

or straight from a clone of kubernetes-sigs/kueue, one release tag or more::

    python scripts/vendor_kueue_crd_schemas.py --git PATH/TO/kueue --tag v0.12.10 --tag v0.19.2

Each version is added to (or replaces its entry in) ``tests/fixtures/kueue_crd_schemas.json``,
with the controller-gen version and a SHA-256 of each source file; schemas that several
versions share are stored once (``schemas``, keyed by a hash of the structural schema).
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import json
import subprocess
import sys
from collections.abc import Iterable, Iterator
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
    "Topology",
)
CRD_DIR = "config/components/crd/bases"
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
SOURCE = {
    "project": "kubernetes-sigs/kueue",
    "files": f"{CRD_DIR}/kueue.x-k8s.io_*.yaml at each release tag",
    "licence": "Apache License 2.0 (https://github.com/kubernetes-sigs/kueue/blob/main/LICENSE)",
    "by": "scripts/vendor_kueue_crd_schemas.py (structural schema only: no descriptions, "
    "defaults or CEL rules)",
}


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


def schema_key(schema: Any) -> str:
    """A short, stable name for a structural schema (the start of its SHA-256)."""
    text = json.dumps(schema, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def files_in_dir(crds: Path) -> Iterator[tuple[str, bytes]]:
    for path in sorted(crds.glob("kueue.x-k8s.io_*.yaml")):
        yield path.name, path.read_bytes()


def files_at_tag(repo: Path, tag: str) -> Iterator[tuple[str, bytes]]:
    listing = subprocess.run(
        ["git", "-C", str(repo), "ls-tree", "--name-only", f"{tag}:{CRD_DIR}"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    for name in sorted(n for n in listing if n.startswith("kueue.x-k8s.io_")):
        blob = subprocess.run(
            ["git", "-C", str(repo), "show", f"{tag}:{CRD_DIR}/{name}"],
            capture_output=True,
            check=True,
        ).stdout
        yield name, blob


def vendor(
    files: Iterable[tuple[str, bytes]], kueue_version: str, schemas: dict[str, Any]
) -> dict[str, Any]:
    """One version's entry; its structural schemas are added to ``schemas``."""
    found: dict[str, dict[str, Any]] = {}
    sources: dict[str, str] = {}
    generator = set()
    for name, raw in files:
        crd = yaml.safe_load(raw)
        kind = crd["spec"]["names"]["kind"]
        if kind not in KINDS:
            continue
        sources[name] = hashlib.sha256(raw).hexdigest()
        annotations = crd["metadata"].get("annotations") or {}
        generator.add(annotations.get("controller-gen.kubebuilder.io/version", "?"))
        versions: dict[str, Any] = {}
        for version in crd["spec"]["versions"]:
            shape = structural(version["schema"]["openAPIV3Schema"])
            key = schema_key(shape)
            schemas[key] = shape
            versions[version["name"]] = {
                "served": version.get("served", False),
                "storage": version.get("storage", False),
                "schema": key,
            }
        found[kind] = versions
    missing = [k for k in KINDS if k not in found]
    if missing:
        raise SystemExit(f"Kueue {kueue_version}: no CRD for {', '.join(missing)}")
    return {
        "controllerGen": sorted(generator),
        "sha256": sources,
        "vendored": dt.date.today().isoformat(),
        "crds": found,
    }


def _load(output: Path) -> dict[str, Any]:
    if output.exists():
        data = json.loads(output.read_text())
        if "versions" in data:
            return data
    return {"source": SOURCE, "versions": {}, "schemas": {}}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--crds", type=Path, help="directory of the CRD YAML files")
    parser.add_argument("--kueue-version", help="the Kueue release --crds are from")
    parser.add_argument("--git", type=Path, help="a clone of kubernetes-sigs/kueue")
    parser.add_argument("--tag", action="append", default=[], help="a release tag (v0.16.1)")
    parser.add_argument("--output", type=Path, default=OUTPUT)
    args = parser.parse_args(argv)
    data = _load(args.output)
    data["source"] = SOURCE
    schemas: dict[str, Any] = dict(data.get("schemas", {}))
    versions: dict[str, Any] = dict(data.get("versions", {}))
    if args.crds is not None:
        if not args.kueue_version:
            parser.error("--crds needs --kueue-version")
        versions[args.kueue_version.lstrip("v")] = vendor(
            files_in_dir(args.crds), args.kueue_version, schemas
        )
    for tag in args.tag:
        if args.git is None:
            parser.error("--tag needs --git")
        entry = vendor(files_at_tag(args.git, tag), tag, schemas)
        entry["tag"] = tag
        versions[tag.lstrip("v")] = entry
    used = {
        one["schema"]
        for entry in versions.values()
        for kind in entry["crds"].values()
        for one in kind.values()
    }
    data["versions"] = dict(sorted(versions.items(), key=lambda kv: _order(kv[0])))
    data["schemas"] = {k: v for k, v in sorted(schemas.items()) if k in used}
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    print(f"{args.output}: Kueue {', '.join(data['versions'])}", file=sys.stderr)
    return 0


def _order(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))


if __name__ == "__main__":
    sys.exit(main())
