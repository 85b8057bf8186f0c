#!/usr/bin/env python3
"""Generate the schemas ``dws emulator`` validates request bodies with.

The emulator needs only the methods pulumi-dws calls and the schemas they reach: this script
cuts them out of Google's discovery documents (keeping types, formats, enums, ``required``
annotations and the ``pattern`` of names and parameters; dropping the prose) and records
where they came from (the document's revision). Run it from the repository root when
Google's API changes::

    python scripts/generate_emulator_schemas.py            # google-api-python-client's copies
    python scripts/generate_emulator_schemas.py compute.v1 --source compute.v1.json
    python scripts/generate_emulator_schemas.py compute.v1 \\
        --source 'https://compute.googleapis.com/$discovery/rest?version=v1'

The results, ``components/pulumi_dws/testing/emulator/schemas/<api>.<version>.json``, ship in
the package, so ``pip install pulumi-dws`` alone gives a working ``dws emulator``.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import sys
import urllib.request
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

OUTPUT_DIR = Path("components/pulumi_dws/testing/emulator/schemas")
# What each emulated API validates: the methods it serves (their request and response
# schemas, and every schema those reach), and schemas it builds its own from.
TARGETS: dict[str, dict[str, tuple[str, ...]]] = {
    "compute.v1": {
        "methods": (
            "compute.instances.insert",
            "compute.instances.get",
            "compute.instances.list",
            "compute.instances.delete",
            "compute.instances.stop",
            "compute.instances.start",
            "compute.instances.suspend",
            "compute.instances.resume",
            "compute.instances.setLabels",
            "compute.instances.setMetadata",
            "compute.instances.setMachineType",
            "compute.zoneOperations.get",
            "compute.zoneOperations.wait",
            "compute.instanceTemplates.insert",
            "compute.instanceTemplates.get",
            "compute.instanceTemplates.delete",
            "compute.globalOperations.get",
            "compute.regionOperations.get",
            "compute.regionInstanceTemplates.insert",
            "compute.regionInstanceTemplates.get",
            "compute.regionInstanceTemplates.delete",
            "compute.instanceGroupManagers.insert",
            "compute.instanceGroupManagers.get",
            "compute.instanceGroupManagers.delete",
            "compute.instanceGroupManagers.listManagedInstances",
            "compute.instanceGroupManagers.resize",
            "compute.instanceGroupManagers.deleteInstances",
            "compute.regionInstanceGroupManagers.insert",
            "compute.regionInstanceGroupManagers.get",
            "compute.regionInstanceGroupManagers.delete",
            "compute.regionInstanceGroupManagers.listManagedInstances",
            "compute.regionInstanceGroupManagers.resize",
            "compute.regionInstanceGroupManagers.deleteInstances",
            "compute.instanceGroupManagerResizeRequests.insert",
            "compute.instanceGroupManagerResizeRequests.get",
            "compute.instanceGroupManagerResizeRequests.list",
            "compute.instanceGroupManagerResizeRequests.cancel",
            "compute.instanceGroupManagerResizeRequests.delete",
            "compute.regionInstanceGroupManagerResizeRequests.insert",
            "compute.regionInstanceGroupManagerResizeRequests.get",
            "compute.regionInstanceGroupManagerResizeRequests.list",
            "compute.regionInstanceGroupManagerResizeRequests.cancel",
            "compute.regionInstanceGroupManagerResizeRequests.delete",
            "compute.advice.calendarMode",
            "compute.advice.capacity",
            "compute.resourcePolicies.insert",
            "compute.resourcePolicies.get",
            "compute.resourcePolicies.delete",
        ),
        "schemas": (),
    },
    # What the pulumi-gcp provider calls (terraform-provider-google-beta: Compute's beta API):
    # the instance group managers and workload policies it creates, with beta-only fields
    # (InstanceGroupManager.params, updatePolicy.minReadySec).
    "compute.beta": {
        "methods": (
            "compute.instanceGroupManagers.insert",
            "compute.instanceGroupManagers.get",
            "compute.instanceGroupManagers.delete",
            "compute.regionInstanceGroupManagers.insert",
            "compute.regionInstanceGroupManagers.get",
            "compute.regionInstanceGroupManagers.delete",
            "compute.resourcePolicies.insert",
            "compute.resourcePolicies.get",
            "compute.resourcePolicies.delete",
            "compute.zoneOperations.get",
            "compute.regionOperations.get",
        ),
        "schemas": (),
    },
    # The modelDevelopmentClusters schemas and methods are the emulator's own
    # (aiplatform/rules.py); they reuse these two schemas of Google's, and its operations.
    "aiplatform.v1beta1": {
        "methods": ("aiplatform.projects.locations.operations.get",),
        "schemas": (
            "GoogleCloudAiplatformV1beta1MachineSpec",
            "GoogleCloudAiplatformV1beta1DiskSpec",
        ),
    },
    # Cloud TPU queued resources: v2alpha1 is the only version with provisioningModel,
    # runDuration and queueingPolicy (Flex-start).
    "tpu.v2alpha1": {
        "methods": (
            "tpu.projects.locations.queuedResources.create",
            "tpu.projects.locations.queuedResources.get",
            "tpu.projects.locations.queuedResources.list",
            "tpu.projects.locations.queuedResources.delete",
            "tpu.projects.locations.operations.get",
        ),
        "schemas": (),
    },
}  # fmt: skip
# What the emulator's validator reads; descriptions and other prose are left behind.
SCHEMA_KEYS = (
    "id", "type", "format", "enum", "$ref", "items", "properties", "additionalProperties",
    "annotations", "pattern", "required", "minimum", "maximum", "readOnly",
)  # fmt: skip
METHOD_KEYS = (
    "id", "path", "flatPath", "httpMethod", "parameterOrder", "parameters", "request", "response",
)  # fmt: skip
PARAMETER_KEYS = ("type", "format", "location", "required", "pattern", "enum", "repeated")


def load(target: str, source: str | None) -> tuple[dict[str, Any], str]:
    """The discovery document of ``target`` (``compute.v1``) and where it came from."""
    if source is None:
        import googleapiclient

        cache = Path(googleapiclient.__file__).parent / "discovery_cache/documents"
        version = importlib.metadata.version("google-api-python-client")
        text = (cache / f"{target}.json").read_text()
        return json.loads(text), f"google-api-python-client {version} discovery_cache"
    if source.startswith(("http://", "https://")):
        with urllib.request.urlopen(source, timeout=60) as answer:  # noqa: S310 (a URL given)
            return json.loads(answer.read()), source
    return json.loads(Path(source).read_text()), Path(source).name


def method(document: Mapping[str, Any], method_id: str) -> Mapping[str, Any]:
    node: Mapping[str, Any] = document
    parts = method_id.split(".")[1:]
    for resource in parts[:-1]:
        node = node["resources"][resource]
    return node["methods"][parts[-1]]


def refs(value: Any) -> Iterable[str]:
    """Every ``$ref`` inside ``value``."""
    if isinstance(value, Mapping):
        if isinstance(value.get("$ref"), str):
            yield value["$ref"]
        for item in value.values():
            yield from refs(item)
    elif isinstance(value, list):
        for item in value:
            yield from refs(item)


def trimmed(spec: Any) -> Any:
    """A schema with only what validation reads (at every depth)."""
    if not isinstance(spec, Mapping):
        return spec
    out: dict[str, Any] = {}
    for key in SCHEMA_KEYS:
        if key not in spec:
            continue
        value = spec[key]
        if key == "properties":
            value = {name: trimmed(prop) for name, prop in sorted(value.items())}
        elif key in ("items", "additionalProperties"):
            value = trimmed(value)
        out[key] = value
    return out


def generate(target: str, document: Mapping[str, Any], source: str) -> dict[str, Any]:
    """The cut-down document for ``target``."""
    wanted = TARGETS[target]
    resources: dict[str, Any] = {}
    pending: list[str] = list(wanted["schemas"])
    for method_id in wanted["methods"]:
        spec = method(document, method_id)
        kept = {k: spec[k] for k in METHOD_KEYS if k in spec}
        kept["parameters"] = {
            name: {k: p[k] for k in PARAMETER_KEYS if k in p}
            for name, p in sorted(spec.get("parameters", {}).items())
        }
        *path, name = method_id.split(".")[1:]  # <api>.<resource>[.<resource>...].<method>
        node = resources.setdefault(path[0], {})
        for resource in path[1:]:
            node = node.setdefault("resources", {}).setdefault(resource, {})
        node.setdefault("methods", {})[name] = kept
        pending.extend(refs(kept))
    schemas = document["schemas"]
    kept_schemas: set[str] = set()
    while pending:
        name = pending.pop()
        if name not in kept_schemas:
            kept_schemas.add(name)
            pending.extend(refs(schemas[name]))
    return {
        "kind": document.get("kind"),
        "name": document["name"],
        "version": document["version"],
        "revision": document["revision"],
        "rootUrl": document.get("rootUrl"),
        "servicePath": document.get("servicePath"),
        "x-generated": {
            "by": "scripts/generate_emulator_schemas.py",
            "from": source,
            "discoveryRevision": document["revision"],
            "methods": list(wanted["methods"]),
            "schemas": list(wanted["schemas"]),
            "note": "Cut from Google's discovery document (Apache-2.0 licensed API metadata): "
            "types, formats, enums, required annotations and patterns; no descriptions.",
        },
        "resources": resources,
        "schemas": {name: trimmed(schemas[name]) for name in sorted(kept_schemas)},
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("targets", nargs="*", metavar="API.VERSION",
                        help=f"which documents (default: all of {', '.join(TARGETS)})")  # fmt: skip
    parser.add_argument("--source", help="a discovery document file or URL (with one target; "
                        "default: the copy google-api-python-client ships)")  # fmt: skip
    parser.add_argument("--output-dir", type=Path, default=OUTPUT_DIR)
    args = parser.parse_args(argv)
    targets = args.targets or list(TARGETS)
    unknown = [t for t in targets if t not in TARGETS]
    if unknown:
        parser.error(f"unknown {', '.join(unknown)}; choose from {', '.join(TARGETS)}")
    if args.source and len(targets) != 1:
        parser.error("--source takes one target, e.g. compute.v1")
    args.output_dir.mkdir(parents=True, exist_ok=True)
    for target in targets:
        document, source = load(target, args.source)
        result = generate(target, document, source)
        out = args.output_dir / f"{target}.json"
        out.write_text(json.dumps(result, indent=1) + "\n")
        print(
            f"{out}: {len(result['schemas'])} schemas, revision {result['revision']} ({source})",
            file=sys.stderr,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
