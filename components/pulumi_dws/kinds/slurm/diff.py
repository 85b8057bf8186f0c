"""Pure helpers of the Slurm cluster provider: comparable forms of a cluster body, drift,
and which changes are in-place updates and which replace the cluster.

What is immutable follows Google's ``ModelDevelopmentCluster`` definition (GoogleCloudPlatform/
magic-modules ``mmv1/products/vertexai/ModelDevelopmentCluster.yaml``, commit 0ab2d4ad2404:
``immutable: true`` on ``network``,
``runtimeSpec``, a node pool's ``id``, ``machineSpec``, ``provisioningModel`` and
``confidentialInstanceConfig`` and on ``slurmSpec.homeDirectoryStorage``; the orchestrator's
``update_mask_fields``) and the ``updateMask`` list of the training-cluster "Manage cluster" page.

The emulator (:mod:`pulumi_dws.testing.emulator.aiplatform.rules`) keeps its own record of what
the API accepts, derived from its schema, on purpose: an emulator that read this table could not
catch a mistake in it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ...limits import get as limit
from ...providers.lro import describe_status
from ...providers.rest import wire
from .api import BUSY, COLLECTION, SlurmClusterError, cluster_path

__all__ = [
    "BUSY",
    "COLLECTION",
    "ID_PATTERN",
    "valid_cluster_id",
    "OUTPUT_ONLY",
    "REPLACE_PATHS",
    "UPDATE_PATHS",
    "SlurmClusterError",
    "canonical",
    "cluster_path",
    "describe_status",
    "differences",
    "outputs_from_live",
    "plan_change",
    "project_live",
    "wire",
]

ID_PATTERN = re.compile(r"^[a-z][a-z0-9]*\Z")  # length: see valid_cluster_id


def valid_cluster_id(value: object) -> bool:
    """A model_development_cluster_id the API accepts (pattern and the limits-table length)."""
    longest = limit("slurm.cluster_id_length").maximum or 0
    return isinstance(value, str) and bool(ID_PATTERN.match(value)) and len(value) <= longest


MAP_FIELDS = frozenset({"labels", "config"})  # keys inside these are user data, not field names
OUTPUT_ONLY = frozenset(
    {
        "name",
        "cluster_status",
        "cluster_events",
        "runtime",
        "create_time",
        "update_time",
        "start_time",
        "effective_flex_start_max_duration",
    }
)

REPLACE_PATHS = (
    "project",
    "region",
    "cluster_id",
    "body.network",
    "body.runtime_spec",
    "body.orchestrator_spec.slurm_spec.home_directory_storage",
    "body.node_pools[].id",
    "body.node_pools[].machine_spec",
    "body.node_pools[].provisioning_model",
    "body.node_pools[].confidential_instance_config",
)
"""Changes that replace the cluster (immutable in the API)."""

UPDATE_PATHS = (
    "display_name",
    "labels",
    "node_pools",
    "orchestrator_spec.slurm_spec.partitions",
    "orchestrator_spec.slurm_spec.login_node_pool_id",
    "orchestrator_spec.slurm_spec.prolog_bash_scripts",
    "orchestrator_spec.slurm_spec.epilog_bash_scripts",
    "orchestrator_spec.slurm_spec.accounting",
    "orchestrator_spec.slurm_spec.scheduling",
    "orchestrator_spec.slurm_spec.config",
    "orchestrator_spec.slurm_spec.default_partition_id",
    "orchestrator_spec.slurm_spec.node_sets",
    "lustre_export_config",
)
"""``updateMask`` paths changed in place (node pools are sent whole: the API replaces the list)."""

_POOL_IMMUTABLE = ("machine_spec", "provisioning_model", "confidential_instance_config")


# ---------------------------------------------------------------------------- pure helpers
def _snake(name: str) -> str:
    return re.sub(r"(?<!^)([A-Z])", r"_\1", name).lower()


def canonical(value: Any, *, _in_map: bool = False) -> Any:
    """A comparable form: ``snake_case`` keys, ``"true"``/``"false"`` as booleans and whole
    floats as ints (protobuf ``Struct`` numbers are doubles)."""
    if isinstance(value, Mapping):
        out = {}
        for key, item in value.items():
            name = key if _in_map else _snake(key)
            out[name] = canonical(item, _in_map=name in MAP_FIELDS and not _in_map)
        return out
    if isinstance(value, (list, tuple)):
        return [canonical(v) for v in value]
    if value in ("true", "false") and isinstance(value, str):
        return value == "true"
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def project_live(declared: Any, live: Any) -> Any:
    """``live`` (canonical) seen through the shape of ``declared``: only the fields the program
    sets, node pools matched by id, booleans written the way the program writes them. Fields the
    server fills in (defaults, outputs) are left out, so they never show up as drift."""
    if isinstance(declared, Mapping) and isinstance(live, Mapping):
        out = {}
        for key, want in declared.items():
            if key == "name" or key not in live:
                if key == "name":
                    out[key] = want  # output-only: the seed sends a placeholder
                continue
            out[key] = project_live(want, live[key])
        return out
    if isinstance(declared, list) and isinstance(live, list):
        if declared and all(isinstance(d, Mapping) and "id" in d for d in declared):
            by_id = {d["id"]: d for d in declared}
            return [
                project_live(by_id[item["id"]], item)
                if isinstance(item, Mapping) and item.get("id") in by_id
                else item
                for item in live
            ]
        return [project_live(declared[0] if declared else None, item) for item in live]
    if isinstance(declared, str) and declared in ("true", "false") and isinstance(live, bool):
        return "true" if live else "false"
    return live


def differences(old: Any, new: Any, path: str = "") -> list[str]:
    """Paths where two canonical values differ (``node_pools[1].scaling_spec.max_node_count``)."""
    if isinstance(old, Mapping) and isinstance(new, Mapping):
        found: list[str] = []
        for key in sorted(set(old) | set(new), key=str):
            sub = f"{path}.{key}" if path else str(key)
            if key not in old or key not in new:
                found.append(sub)
            else:
                found.extend(differences(old[key], new[key], sub))
        return found
    if isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        found = []
        for i, (a, b) in enumerate(zip(old, new, strict=True)):
            found.extend(differences(a, b, f"{path}[{i}]"))
        return found
    return [] if old == new else [path or "(value)"]


def plan_change(
    old_props: Mapping[str, Any], new_props: Mapping[str, Any]
) -> tuple[list[str], list[str]]:
    """``(replaces, update_mask)`` to go from ``old_props`` (state) to ``new_props`` (inputs).

    ``replaces`` names the immutable properties that changed (``body.node_pools[1].machine_spec``);
    ``update_mask`` the API field paths to PATCH. Unknown values (previews) count as changed, and
    as a replacement wherever they could hide an immutable field (a whole unknown ``body`` or
    node pool list): a preview may over-state a change, never hide a delete-and-recreate.
    """
    replaces = [
        k for k in ("project", "region", "cluster_id") if old_props.get(k) != new_props.get(k)
    ]
    old = canonical(old_props.get("body") or {})
    new = canonical(new_props.get("body"))
    if not isinstance(new, Mapping) or not isinstance(old, Mapping):
        return (replaces + ["body"], ["(body)"]) if new != old else (replaces, [])
    mask: list[str] = []
    for key in sorted(set(old) | set(new)):
        if key in OUTPUT_ONLY or old.get(key) == new.get(key):
            continue
        if key == "node_pools":
            replaces.extend(_pool_replaces(old.get(key), new.get(key)))
            mask.append(key)
        elif key == "orchestrator_spec":
            r, m = _orchestrator_change(old.get(key), new.get(key))
            replaces.extend(r)
            mask.extend(m)
        elif key in UPDATE_PATHS:
            mask.append(key)
        else:
            replaces.append(f"body.{key}")
    return replaces, mask


def _pool_replaces(old: Any, new: Any) -> list[str]:
    if not isinstance(new, list):
        return ["body.node_pools"]  # unknown (preview): it may hide an immutable change
    if not isinstance(old, list):
        return []
    before = {p.get("id"): p for p in old if isinstance(p, Mapping)}
    found = []
    for i, pool in enumerate(new):
        if not isinstance(pool, Mapping):
            found.append(f"body.node_pools[{i}]")  # unknown (preview)
            continue
        prior = before.get(pool.get("id"))
        if prior is None:
            continue  # a new pool is added in place
        for name in _POOL_IMMUTABLE:
            if prior.get(name) != pool.get(name):
                found.append(f"body.node_pools[{i}].{name}")
    return found


def _orchestrator_change(old: Any, new: Any) -> tuple[list[str], list[str]]:
    old, new = old if isinstance(old, Mapping) else {}, new if isinstance(new, Mapping) else {}
    replaces = [
        f"body.orchestrator_spec.{k}"
        for k in sorted(set(old) | set(new))
        if k != "slurm_spec" and old.get(k) != new.get(k)
    ]
    o_slurm, n_slurm = old.get("slurm_spec"), new.get("slurm_spec")
    if not isinstance(o_slurm, Mapping) or not isinstance(n_slurm, Mapping):
        replaces.append("body.orchestrator_spec.slurm_spec")
        return replaces, []
    mask = []
    for key in sorted(set(o_slurm) | set(n_slurm)):
        if o_slurm.get(key) == n_slurm.get(key):
            continue
        path = f"orchestrator_spec.slurm_spec.{key}"
        if path in UPDATE_PATHS:
            mask.append(path)
        else:
            replaces.append(f"body.{path}")
    return replaces, mask


def outputs_from_live(props: Mapping[str, Any], live: Mapping[str, Any]) -> dict[str, Any]:
    """The resource outputs: ``props`` plus what Google reports about the cluster."""
    status = live.get("clusterStatus") or {}
    slurm = (live.get("orchestratorSpec") or {}).get("slurmSpec") or {}
    login_pool = slurm.get("loginNodePoolId")
    zones = {p.get("id"): p.get("zone") for p in live.get("nodePools") or []}
    login_nodes = [
        n.get("instanceName")
        for n in status.get("nodesStatus") or []
        if n.get("instanceName")
        and (n.get("nodePoolType") == "NODE_POOL_TYPE_LOGIN" or n.get("nodePoolId") == login_pool)
    ]
    zone = zones.get(login_pool)
    address = (
        f"{login_nodes[0]}.{zone}.c.{props.get('project')}.internal"
        if login_nodes and zone
        else None
    )
    return {
        **dict(props),
        "name": live.get("name"),
        "state": status.get("state"),
        "login_nodes": login_nodes,
        "login_address": address,
        "partitions": [
            {"id": p.get("id"), "node_pool_ids": list(p.get("nodePoolIds") or [])}
            for p in slurm.get("partitions") or []
        ],
        "create_time": live.get("createTime"),
    }
