"""The Kueue CRDs' structural schemas, one set per Kueue release (vendored in tests/fixtures),
applied as the API server's strict field validation applies them: shared by the GPU, TPU,
fallback-flavor and job tests."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema

from pulumi_dws.kinds.kueue.component import KUEUE_VERSION

REPO = Path(__file__).resolve().parent.parent
CRD_SCHEMAS = REPO / "tests" / "fixtures" / "kueue_crd_schemas.json"


def strict(schema: Any) -> Any:
    """The CRD schema as the API server's strict field validation applies it: an object with
    ``properties`` and no ``additionalProperties`` (or preserve-unknown-fields) rejects
    fields it does not declare, instead of silently pruning them. (CEL rules in
    ``x-kubernetes-validations`` are not evaluated here.)"""
    if isinstance(schema, list):
        return [strict(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out = {k: strict(v) for k, v in schema.items()}
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
def vendored() -> dict[str, Any]:
    """The file scripts/vendor_kueue_crd_schemas.py writes."""
    return json.loads(CRD_SCHEMAS.read_text())  # type: ignore[no-any-return]


def kueue_versions() -> list[str]:
    """Every Kueue release whose CRDs are vendored, oldest first."""
    return list(vendored()["versions"])


@cache
def _validator(kueue_version: str, kind: str, api_version: str) -> jsonschema.Validator:
    entry = vendored()["versions"][kueue_version]["crds"][kind]
    if api_version not in entry:
        raise AssertionError(
            f"Kueue {kueue_version} does not serve {kind} {api_version} (it serves "
            f"{', '.join(entry)})"
        )
    schema = vendored()["schemas"][entry[api_version]["schema"]]
    return jsonschema.Draft7Validator(strict(schema))


def validate(manifest: dict[str, Any], kueue_version: str = KUEUE_VERSION) -> None:
    """Raise AssertionError unless ``manifest`` is valid for the CRDs of ``kueue_version``
    (default: the release pulumi-dws installs)."""
    group, _, version = manifest["apiVersion"].partition("/")
    assert group == "kueue.x-k8s.io"
    validator = _validator(kueue_version, manifest["kind"], version)
    errors = sorted(validator.iter_errors(manifest), key=lambda e: list(e.path))
    assert not errors, [f"{'.'.join(map(str, e.path))}: {e.message}" for e in errors]


def frozen_change(old: dict[str, Any], new: dict[str, Any], kueue_version: str) -> str | None:
    """What Kueue's CEL transition rules refuse in updating ``old`` to ``new`` (one object, same
    kind and name), or None. From the CRDs of each release (kubernetes-sigs/kueue
    ``config/components/crd/bases``): a Topology's ``levels`` are immutable (0.11 to 0.19); a
    ResourceFlavor with a ``topologyName`` keeps its whole spec until 0.16, and its
    ``nodeLabels``, ``tolerations`` and ``topologyName`` from 0.17; a LocalQueue's
    ``clusterQueue`` is immutable; an AdmissionCheck's ``controllerName`` too."""
    from pulumi_dws.kinds.kueue.spec import kueue_release

    kind, before, after = old["kind"], old["spec"], new["spec"]
    if kind == "Topology" and before["levels"] != after["levels"]:
        return "Topology levels"
    if kind == "ResourceFlavor" and "topologyName" in before:
        frozen = (
            ("nodeLabels", "tolerations", "topologyName")
            if kueue_release(kueue_version)[:2] >= (0, 17)
            else tuple(set(before) | set(after))
        )
        for field in frozen:
            if before.get(field) != after.get(field):
                return f"ResourceFlavor {field}"
    if kind == "LocalQueue" and before["clusterQueue"] != after["clusterQueue"]:
        return "LocalQueue clusterQueue"
    if kind == "AdmissionCheck" and before["controllerName"] != after["controllerName"]:
        return "AdmissionCheck controllerName"
    return None
