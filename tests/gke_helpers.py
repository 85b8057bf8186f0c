"""How GKE reads a node pool: the request body the pulumi-gcp (Terraform) provider sends for
NodePool inputs, compared as GKE reads JSON. Shared by the GPU and TPU node pool tests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pulumi_dws.kinds.node_pool.component import GKE_DEFAULT_SCOPES

# Registered inputs are what the Pulumi engine hands the pulumi-gcp (Terraform) provider;
# the provider turns them into the GKE request with expandNodePool/expandNodeConfig
# (terraform-provider-google, google/services/container/resource_container_node_pool.go and
# node_config.go). ``api_body`` below is that translation for every input this component
# sets, and refuses inputs it does not know, so a new input must be mapped (and compared).
_TOP = {"name", "cluster", "location", "project", "nodeLocations", "initialNodeCount"}
_TOP |= {"autoscaling", "management", "queuedProvisioning", "nodeConfig", "version"}
_TOP |= {"placementPolicy"}
_CONFIG = {"machineType", "guestAccelerators", "reservationAffinity", "oauthScopes"}
_CONFIG |= {"flexStart", "maxRunDuration", "labels", "resourceLabels", "taints"}
_CONFIG |= {"serviceAccount", "diskSizeGb", "diskType", "imageType"}


def _ints(value: Any) -> Any:
    """Undo protobuf Struct's float-only numbers."""
    if isinstance(value, dict):
        return {k: _ints(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_ints(v) for v in value]
    return int(value) if isinstance(value, float) and value.is_integer() else value


def api_body(inputs: dict[str, Any]) -> dict[str, Any]:
    """The ``nodePool`` the Terraform provider sends for these NodePool inputs."""
    inputs = _ints(inputs)
    assert set(inputs) <= _TOP, f"unmapped NodePool inputs: {set(inputs) - _TOP}"
    cfg = inputs.get("nodeConfig") or {}
    assert set(cfg) <= _CONFIG, f"unmapped nodeConfig inputs: {set(cfg) - _CONFIG}"
    config: dict[str, Any] = {
        "machineType": cfg.get("machineType"),
        "oauthScopes": cfg.get("oauthScopes") or list(GKE_DEFAULT_SCOPES),  # TF default
        "accelerators": [
            {
                "acceleratorCount": a["count"],
                "acceleratorType": a["type"],
                "gpuDriverInstallationConfig": a.get("gpuDriverInstallationConfig"),
            }
            for a in cfg.get("guestAccelerators") or []
            if a["count"]
        ],
    }
    if "reservationAffinity" in cfg:
        config["reservationAffinity"] = dict(cfg["reservationAffinity"])
    simple = ("flexStart", "maxRunDuration", "labels", "resourceLabels", "taints")
    simple += ("serviceAccount", "diskSizeGb", "diskType", "imageType")
    config.update({k: cfg[k] for k in simple if k in cfg})
    body: dict[str, Any] = {
        "name": inputs["name"],
        "initialNodeCount": inputs.get("initialNodeCount", 0),
        "config": config,
        "locations": inputs.get("nodeLocations"),
        "version": inputs.get("version", ""),
        "networkConfig": {},  # expandNodeNetworkConfig always returns a (here empty) struct
    }
    if "autoscaling" in inputs:
        a = inputs["autoscaling"]
        body["autoscaling"] = {
            "enabled": True,
            "minNodeCount": a.get("minNodeCount", 0),
            "maxNodeCount": a.get("maxNodeCount", 0),
            "totalMinNodeCount": a.get("totalMinNodeCount", 0),
            "totalMaxNodeCount": a.get("totalMaxNodeCount", 0),
            "locationPolicy": a.get("locationPolicy", ""),
        }
    if "queuedProvisioning" in inputs:
        body["queuedProvisioning"] = {"enabled": inputs["queuedProvisioning"]["enabled"]}
    if "placementPolicy" in inputs:
        placement = inputs["placementPolicy"]
        assert set(placement) <= {"type", "tpuTopology"}, placement
        body["placementPolicy"] = dict(placement)
    if "management" in inputs:
        m = inputs["management"]
        body["management"] = {
            "autoRepair": m.get("autoRepair", False),
            "autoUpgrade": m.get("autoUpgrade", False),
        }
    return _wire(body)


def _wire(body: dict[str, Any]) -> dict[str, Any]:
    """JSON encoding of the Go client: int64 fields travel as strings (per the discovery doc)."""
    try:
        import googleapiclient
    except ImportError:  # pragma: no cover - the test extra installs it
        pytest.skip("google-api-python-client (discovery documents) is not installed")
    doc = Path(googleapiclient.__file__).parent / "discovery_cache/documents/container.v1.json"
    schemas = json.loads(doc.read_text())["schemas"]

    def walk(value: Any, schema: dict[str, Any]) -> Any:
        if "$ref" in schema:
            schema = schemas[schema["$ref"]]
        if isinstance(value, dict):
            props, extra = schema.get("properties", {}), schema.get("additionalProperties", {})
            return {k: walk(v, props.get(k) or extra) for k, v in value.items()}
        if isinstance(value, list):
            return [walk(v, schema.get("items", {})) for v in value]
        if schema.get("format") in ("int64", "uint64") and isinstance(value, int):
            return str(value)
        return value

    return walk(body, {"$ref": "NodePool"})


def proto3(value: Any) -> Any:
    """Compare as GKE reads JSON: a scalar at its default (0, false, "", []) is the same as
    absent; messages stay (an empty message is not an absent one); scopes are a set."""
    if isinstance(value, dict):
        out = {k: proto3(v) for k, v in value.items()}
        return {
            k: v for k, v in out.items() if v not in (0, False, "", None, []) or isinstance(v, dict)
        }
    if isinstance(value, list):
        items = [proto3(v) for v in value]
        return sorted(items) if all(isinstance(i, str) for i in items) else items
    return value


# Differences that mean the same to GKE, each with its reason.
ALLOWED = {
    "networkConfig": "the Terraform provider always sends an empty NodeNetworkConfig, "
    "i.e. no per-pool network settings, as gcloud does by leaving it out",
    "upgradeSettings": "gcloud spells out maxSurge 1, GKE's default surge setting",
}
