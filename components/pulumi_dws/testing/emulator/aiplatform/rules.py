"""The rules of the emulated ``modelDevelopmentClusters`` API: its request schema (derived; see
the package doc), field-name canonicalisation, the checks Google applies to a cluster, and
Google's error shape for them."""

from __future__ import annotations

import copy
import re
from typing import Any

from ..base import ServiceError
from ..discovery import DiscoverySchema

__all__ = [
    "CLUSTER_SCHEMA",
    "CREATE_METHOD",
    "FLEX_START_MAX",
    "FLEX_START_MIN",
    "UPDATABLE_PATHS",
    "ServiceError",
    "canonical",
    "check_cluster_id",
    "check_immutable_pools",
    "check_semantics",
    "cluster_schema",
    "has_path",
    "invalid",
    "put_path",
    "snake_path",
    "take_path",
]

CREATE_METHOD = "aiplatform.projects.locations.modelDevelopmentClusters.create"
CLUSTER_SCHEMA = "GoogleCloudAiplatformV1beta1ModelDevelopmentCluster"

_CLUSTER_ID = re.compile(r"^[a-z][a-z0-9]{0,9}\Z")  # with slurm_spec: no hyphens, 1-10 chars
_POOL_ID = re.compile(r"^[a-z]([a-z0-9-]{0,61}[a-z0-9])?\Z")
_REGION = re.compile(r"^[a-z]+-[a-z]+[0-9]+\Z")
_FILESTORE = re.compile(r"^projects/[^/]+/locations/[^/]+/instances/[^/]+\Z")
_NETWORK = re.compile(r"^projects/[^/]+/global/networks/[^/]+\Z")
_SUBNETWORK = re.compile(r"^projects/[^/]+/regions/[^/]+/subnetworks/[^/]+\Z")
_DURATION = re.compile(r"^(\d+)(?:\.\d{1,9})?s\Z")
# A reservation, block or sub-block, as machine_spec.reservation_affinity.values names it.
_RESERVATION = re.compile(
    r"^projects/[^/]+/zones/(?P<zone>[^/]+)/reservations/[^/]+"
    r"(/reservationBlocks/[^/]+(/reservationSubBlocks/[^/]+)?)?\Z"
)
FLEX_START_MIN, FLEX_START_MAX = 30, 7 * 86400

_IMMUTABLE = {"immutable": True}
"""Marks a schema property Google won't change after create (``immutable: true`` in magic-modules
``mmv1/products/vertexai/ModelDevelopmentCluster.yaml``, commit 0ab2d4ad2404).
What the emulator accepts in an ``updateMask`` is derived from these marks (see
:data:`UPDATABLE_PATHS`), independently of the provider's own table, so that each can catch a
mistake in the other."""


# ---------------------------------------------------------------------------- the schema
def _req() -> dict[str, Any]:
    return {"annotations": {"required": [CREATE_METHOD]}}


def _string(**extra: Any) -> dict[str, Any]:
    return {"type": "string", **extra}


def _map() -> dict[str, Any]:
    return {"type": "object", "additionalProperties": {"type": "string"}}


def _list(items: dict[str, Any]) -> dict[str, Any]:
    return {"type": "array", "items": items}


_P = "GoogleCloudAiplatformV1beta1"
_OWN_SCHEMAS: dict[str, Any] = {
    CLUSTER_SCHEMA: {
        "id": CLUSTER_SCHEMA,
        "type": "object",
        "properties": {
            "name": _string(readOnly=True),
            "displayName": _string(),
            "labels": _map(),
            "network": {"$ref": f"{_P}ModelDevelopmentClusterNetworkSpec", **_IMMUTABLE},
            "nodePools": {**_list({"$ref": f"{_P}ModelDevelopmentClusterNodePool"}), **_req()},
            "orchestratorSpec": {
                "$ref": f"{_P}ModelDevelopmentClusterOrchestratorSpec",
                **_req(),
            },
            "runtimeSpec": {
                "type": "object",
                "properties": {"serviceAccount": _string()},
                **_IMMUTABLE,
            },
            "lustreExportConfig": {
                "type": "object",
                "properties": {
                    "destinationBucket": _string(),
                    "lustres": _list(_string()),
                    "daysOfWeek": _list(_string()),
                    "startTime": {
                        "type": "object",
                        "properties": {
                            "hours": {"type": "integer", "format": "int32"},
                            "minutes": {"type": "integer", "format": "int32"},
                        },
                    },
                },
            },
            "clusterStatus": {"type": "any", "readOnly": True},
            "clusterEvents": {"type": "any", "readOnly": True},
            "runtime": {"type": "any", "readOnly": True},
            "createTime": _string(format="google-datetime", readOnly=True),
            "updateTime": _string(format="google-datetime", readOnly=True),
            "startTime": _string(format="google-datetime", readOnly=True),
        },
    },
    f"{_P}ModelDevelopmentClusterNetworkSpec": {
        "type": "object",
        "properties": {"network": _string(), "subnetwork": _string()},
    },
    f"{_P}ModelDevelopmentClusterNodePool": {
        "type": "object",
        "properties": {
            "id": {**_string(), **_req(), **_IMMUTABLE},
            "machineSpec": {
                "$ref": f"{_P}ModelDevelopmentClusterMachineSpec",
                **_req(),
                **_IMMUTABLE,
            },
            "provisioningModel": _string(
                enum=[
                    "PROVISIONING_MODEL_UNSPECIFIED",
                    "ON_DEMAND",
                    "RESERVATION",
                    "SPOT",
                    "FLEX_START",
                ],
                **_IMMUTABLE,
            ),
            "flexStartMaxDuration": _string(format="google-duration"),
            "effectiveFlexStartMaxDuration": _string(format="google-duration", readOnly=True),
            "scalingSpec": {
                "type": "object",
                "properties": {
                    "minNodeCount": {"type": "integer", "format": "int32"},
                    "maxNodeCount": {"type": "integer", "format": "int32"},
                },
            },
            "zone": _string(),
            "enablePublicIps": {"type": "boolean"},
            "bootDisk": {"$ref": f"{_P}DiskSpec"},
            "filestores": _list(_string()),
            "lustres": _list(_string()),
            "nodeImage": _string(),
            "startupScript": _string(),
            "labels": _map(),
            "confidentialInstanceConfig": {
                "type": "object",
                "properties": {"confidentialInstanceType": _string(enum=["SEV", "SEV_SNP", "TDX"])},
                **_IMMUTABLE,
            },
        },
    },
    f"{_P}ModelDevelopmentClusterOrchestratorSpec": {
        "type": "object",
        "properties": {"slurmSpec": {"$ref": f"{_P}ModelDevelopmentClusterSlurmSpec"}},
    },
    f"{_P}ModelDevelopmentClusterSlurmSpec": {
        "type": "object",
        "properties": {
            "homeDirectoryStorage": {**_string(), **_req(), **_IMMUTABLE},
            "loginNodePoolId": {**_string(), **_req()},
            "partitions": _list(
                {
                    "type": "object",
                    "properties": {
                        "id": {**_string(), **_req()},
                        "nodePoolIds": {**_list(_string()), **_req()},
                        "config": _map(),
                    },
                }
            ),
            "prologBashScripts": _list(_string()),
            "epilogBashScripts": _list(_string()),
            "accounting": {
                "type": "object",
                "properties": {"accountingStorageEnforce": _string()},
            },
            "scheduling": {"type": "any"},
            "config": _map(),
            "defaultPartitionId": _string(),
            "nodeSets": _list(
                {
                    "type": "object",
                    "properties": {"nodePoolId": _string(), "config": _map()},
                }
            ),
        },
    },
}


_PARENT = "^projects/[^/]+/locations/[^/]+$"
_CLUSTERS_FLAT = "v1beta1/projects/{projectsId}/locations/{locationsId}/modelDevelopmentClusters"


def _method(name: str, http: str, *, one: bool, body: bool = False) -> dict[str, Any]:
    """A discovery-shaped method of the clusters collection (``one``: of one cluster), as
    magic-modules' definition describes them (base_url, ``create_url``, ``update_verb``
    PATCH)."""
    param = "name" if one else "parent"
    pattern = _PARENT[:-1] + "/modelDevelopmentClusters/[^/]+$" if one else _PARENT
    method: dict[str, Any] = {
        "id": f"aiplatform.projects.locations.modelDevelopmentClusters.{name}",
        "path": "v1beta1/{+name}" if one else "v1beta1/{+parent}/modelDevelopmentClusters",
        "flatPath": _CLUSTERS_FLAT + ("/{modelDevelopmentClustersId}" if one else ""),
        "httpMethod": http,
        "parameters": {
            param: {"type": "string", "location": "path", "required": True, "pattern": pattern}
        },
    }
    if body:
        method["request"] = {"$ref": CLUSTER_SCHEMA}
    return method


_OWN_METHODS: dict[str, Any] = {
    "create": _method("create", "POST", one=False, body=True),
    "list": _method("list", "GET", one=False),
    "get": _method("get", "GET", one=True),
    "patch": _method("patch", "PATCH", one=True, body=True),
    "delete": _method("delete", "DELETE", one=True),
}


def cluster_schema() -> DiscoverySchema:
    """The ``aiplatform.v1beta1`` discovery document plus the derived cluster schemas and
    methods."""
    global _SCHEMA
    if _SCHEMA is None:
        base = DiscoverySchema.load("aiplatform", "v1beta1").document
        schemas = base.get("schemas", {})
        # The API's own MachineSpec, with machine_type required (as the cluster API has it).
        machine = copy.deepcopy(schemas[f"{_P}MachineSpec"])
        machine["properties"]["machineType"].update(_req())
        document = copy.deepcopy(dict(base))
        document["schemas"] = {
            **schemas,
            **_OWN_SCHEMAS,
            f"{_P}ModelDevelopmentClusterMachineSpec": machine,
        }
        locations = document["resources"]["projects"]["resources"]["locations"]["resources"]
        locations["modelDevelopmentClusters"] = {"methods": _OWN_METHODS}
        _SCHEMA = DiscoverySchema(document)
    return _SCHEMA


_SCHEMA: DiscoverySchema | None = None


def _mutable(schema: dict[str, Any]) -> list[str]:
    """The properties of ``schema`` a PATCH may change: neither output-only nor immutable."""
    return [
        name
        for name, prop in schema["properties"].items()
        if not prop.get("readOnly") and not prop.get("immutable")
    ]


def _updatable_paths() -> frozenset[str]:
    """``updateMask`` paths the API accepts: each mutable top-level field, except the
    orchestrator, which is updated through its mutable Slurm fields (magic-modules
    ``update_mask_fields``)."""
    cluster = _OWN_SCHEMAS[CLUSTER_SCHEMA]
    slurm = _OWN_SCHEMAS[f"{_P}ModelDevelopmentClusterSlurmSpec"]
    top = [_snake(n) for n in _mutable(cluster) if n != "orchestratorSpec"]
    return frozenset(top + [f"orchestrator_spec.slurm_spec.{_snake(n)}" for n in _mutable(slurm)])


def _immutable_pool_fields() -> tuple[str, ...]:
    pool = _OWN_SCHEMAS[f"{_P}ModelDevelopmentClusterNodePool"]["properties"]
    return tuple(name for name, prop in pool.items() if prop.get("immutable") and name != "id")


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(p[:1].upper() + p[1:] for p in rest)


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)([A-Z])", r"_\1", name).lower()


def canonical(schema: DiscoverySchema, spec: dict[str, Any], value: Any) -> Any:
    """``value`` with JSON (camelCase) field names and ``"true"``/``"false"`` booleans."""
    while "$ref" in spec:
        spec = schema.schemas[spec["$ref"]]
    kind = spec.get("type")
    if isinstance(value, dict) and "properties" in spec:
        props = spec["properties"]
        out: dict[str, Any] = {}
        for key, item in value.items():
            name = key if key in props else _camel(key)
            out[name] = canonical(schema, props[name], item) if name in props else item
        return out
    if isinstance(value, list) and kind == "array":
        return [canonical(schema, spec.get("items", {}), v) for v in value]
    if kind == "boolean" and value in ("true", "false"):
        return value == "true"
    return value


UPDATABLE_PATHS = _updatable_paths()
"""``updateMask`` paths the API accepts (Google's manage-cluster page and magic-modules)."""

_IMMUTABLE_POOL_FIELDS = _immutable_pool_fields()


# ---------------------------------------------------------------------------- errors
def invalid(field_path: str, description: str) -> ServiceError:
    return ServiceError(400, f"{field_path}: {description}", violations=[(field_path, description)])


def check_cluster_id(cluster_id: str, location: str) -> None:
    """The cluster id (1-10 characters, no hyphens with ``slurm_spec``) and the location."""
    if not _CLUSTER_ID.match(cluster_id):
        raise invalid(
            "model_development_cluster_id",
            f"{cluster_id!r} must be 1-10 characters: a lowercase letter, then lowercase "
            "letters or digits (no hyphens with slurm_spec).",
        )
    if not _REGION.match(location):
        raise invalid("parent", f"location {location!r} is not a region.")


def check_semantics(resource: dict[str, Any], location: str) -> None:
    pools = resource.get("nodePools") or []
    if not pools:
        raise invalid("node_pools", "at least one node pool is required.")
    slurm = (resource.get("orchestratorSpec") or {}).get("slurmSpec")
    if not slurm:
        raise invalid("orchestrator_spec.slurm_spec", "is required.")
    ids: set[str] = set()
    for i, pool in enumerate(pools):
        _check_pool(pool, f"node_pools[{i}]", location, ids)
    login = slurm.get("loginNodePoolId")
    if login not in ids:
        raise invalid(
            "orchestrator_spec.slurm_spec.login_node_pool_id",
            f"{login!r} is not the id of a node pool.",
        )
    login_scaling = next(p for p in pools if p.get("id") == login).get("scalingSpec") or {}
    if login_scaling.get("minNodeCount", 0) != login_scaling.get("maxNodeCount", 0) or (
        login_scaling.get("minNodeCount", 0) < 1
    ):
        raise invalid(
            f"node_pools[{login}].scaling_spec",
            "the login node pool needs min_node_count == max_node_count >= 1.",
        )
    home = slurm.get("homeDirectoryStorage", "")
    if not _FILESTORE.match(home):
        raise invalid(
            "orchestrator_spec.slurm_spec.home_directory_storage",
            f"{home!r} is not projects/PROJECT/locations/LOCATION/instances/INSTANCE.",
        )
    seen: set[str] = set()
    for i, part in enumerate(slurm.get("partitions") or []):
        where = f"orchestrator_spec.slurm_spec.partitions[{i}]"
        if part.get("id") in seen:
            raise invalid(f"{where}.id", f"{part.get('id')!r} is used twice.")
        seen.add(part.get("id"))
        for pool_id in part.get("nodePoolIds") or []:
            if pool_id not in ids or pool_id == login:
                raise invalid(
                    f"{where}.node_pool_ids",
                    f"{pool_id!r} is not the id of a compute node pool.",
                )
    network = resource.get("network") or {}
    if network.get("network") and not _NETWORK.match(network["network"]):
        raise invalid("network.network", "must be projects/P/global/networks/N.")
    if network.get("subnetwork") and not _SUBNETWORK.match(network["subnetwork"]):
        raise invalid("network.subnetwork", "must be projects/P/regions/R/subnetworks/S.")


# ---------------------------------------------------------------------------- pure helpers
def _check_pool(pool: dict[str, Any], where: str, location: str, ids: set[str]) -> None:
    pool_id = pool.get("id", "")
    if not isinstance(pool.get("machineSpec"), dict):
        raise invalid(f"{where}.machine_spec", "is required.")
    if not _POOL_ID.match(pool_id):
        raise invalid(f"{where}.id", f"{pool_id!r} is not a valid node pool id.")
    if pool_id in ids:
        raise invalid(f"{where}.id", f"{pool_id!r} is used by two node pools.")
    ids.add(pool_id)
    zone = pool.get("zone")
    if zone and not zone.startswith(location + "-"):
        raise invalid(f"{where}.zone", f"{zone!r} is not in region {location}.")
    scaling = pool.get("scalingSpec") or {}
    low, high = int(scaling.get("minNodeCount", 0)), int(scaling.get("maxNodeCount", 0))
    if low < 0 or high < low:
        raise invalid(f"{where}.scaling_spec", "needs 0 <= min_node_count <= max_node_count.")
    spec = pool["machineSpec"]
    model = pool.get("provisioningModel", "PROVISIONING_MODEL_UNSPECIFIED")
    affinity = spec.get("reservationAffinity")
    gpu = spec.get("acceleratorType") not in (None, "ACCELERATOR_TYPE_UNSPECIFIED")
    if gpu and model == "PROVISIONING_MODEL_UNSPECIFIED" and not affinity:
        raise invalid(
            f"{where}.provisioning_model",
            "an explicit provisioning_model is required for a GPU node pool without a "
            "reservation_affinity.",
        )
    if affinity and model in ("ON_DEMAND", "SPOT", "FLEX_START"):
        raise invalid(
            f"{where}.machine_spec.reservation_affinity", f"must not be set with {model}."
        )
    if model == "RESERVATION" and not affinity:
        raise invalid(f"{where}.machine_spec.reservation_affinity", "is required with RESERVATION.")
    if affinity:
        _check_affinity(affinity, f"{where}.machine_spec.reservation_affinity", zone)
    duration = pool.get("flexStartMaxDuration")
    if duration is not None:
        if model != "FLEX_START":
            raise invalid(f"{where}.flex_start_max_duration", "is only allowed with FLEX_START.")
        match = _DURATION.match(duration)
        seconds = int(match.group(1)) if match else -1
        if not FLEX_START_MIN <= seconds <= FLEX_START_MAX:
            raise invalid(
                f"{where}.flex_start_max_duration",
                f"{duration!r} must be between {FLEX_START_MIN}s and {FLEX_START_MAX}s.",
            )


def _check_affinity(affinity: dict[str, Any], where: str, zone: Any) -> None:
    """A SPECIFIC_RESERVATION affinity names at least one reservation (or block) by its full
    name, in the pool's zone (Google's create-cluster docs; the ``values`` description of the
    API's ReservationAffinity)."""
    kind = affinity.get("reservationAffinityType", "TYPE_UNSPECIFIED")
    if kind == "TYPE_UNSPECIFIED":
        raise invalid(f"{where}.reservation_affinity_type", "is required.")
    values = affinity.get("values") or []
    if kind != "SPECIFIC_RESERVATION":
        if values:
            raise invalid(f"{where}.values", f"must be empty with {kind}.")
        return
    if not values:
        raise invalid(f"{where}.values", "must name the reservation with SPECIFIC_RESERVATION.")
    for value in values:
        match = _RESERVATION.match(str(value))
        if match is None:
            raise invalid(
                f"{where}.values",
                f"{value!r} is not projects/PROJECT/zones/ZONE/reservations/RESERVATION.",
            )
        if zone and match["zone"] != zone:
            raise invalid(f"{where}.values", f"{value!r} is not in the node pool's zone {zone}.")


def check_immutable_pools(old: dict[str, Any], new: dict[str, Any]) -> None:
    before = {p.get("id"): p for p in old.get("nodePools", [])}
    for pool in new.get("nodePools", []):
        prior = before.get(pool.get("id"))
        if prior is None:
            continue
        for name in _IMMUTABLE_POOL_FIELDS:
            if name in pool and pool.get(name) != prior.get(name):
                raise invalid(
                    f"node_pools[{pool['id']}].{_snake(name)}",
                    "is immutable; create a new cluster to change it.",
                )


def snake_path(path: str) -> str:
    return ".".join(_snake(part.strip()) for part in path.strip().split("."))


def _json_path(path: str) -> list[str]:
    return [_camel(p) for p in path.split(".")]


def has_path(resource: dict[str, Any], path: str) -> bool:
    node: Any = resource
    for part in _json_path(path):
        if not isinstance(node, dict) or part not in node:
            return False
        node = node[part]
    return True


def take_path(resource: dict[str, Any], path: str) -> Any:
    node: Any = resource
    for part in _json_path(path):
        node = node.get(part) if isinstance(node, dict) else None
    return copy.deepcopy(node)


def put_path(resource: dict[str, Any], path: str, value: Any) -> None:
    *parents, last = _json_path(path)
    node = resource
    for part in parents:
        node = node.setdefault(part, {})
    if value is None:
        node.pop(last, None)
    else:
        node[last] = value
