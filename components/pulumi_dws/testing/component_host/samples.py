"""Arguments of every component as a program writes them, for tests and benchmarks of the
component provider, and the same values spelled as other languages write them.

:data:`COMPONENT_ARGS` holds one good set of arguments per capacity kind (by its component's
name), in the Python API's spelling; :func:`schema_inputs` spells them as the package schema
does (``maxRunDuration``; map keys such as labels as they are), as a TypeScript or YAML program
passes them to ``Construct``. A new kind adds its entry here (a test checks every kind of the
registry has one).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ... import registry
from ...package.introspect import FieldType, ModelInfo, describe
from ...package.names import camel

__all__ = ["COMPONENT_ARGS", "schema_inputs"]

COMPONENT_ARGS: dict[str, dict[str, Any]] = {
    "CalendarReservation": {
        "zone": "us-central1-a",
        "machine_type": "a3-highgpu-8g",
        "count": 2,
        "start_time": "+4w",  # a StableTime: a dynamic resource
        "duration": "7d",
        "labels": {"team": "research"},
    },
    "SlurmCluster": {
        "display_name": "flexvm",
        "login": {"machine_type": "n2-standard-8", "zone": "us-central1-b"},
        "node_pools": [{"id": "a3u", "machine_type": "a3-ultragpu-8g", "max_nodes": 2}],
        "labels": {"team": "research"},
    },
    "QueuedNodePool": {
        "cluster": "ml-cluster",
        "location": "us-central1",
        "node_locations": ["us-central1-a"],
        "machine_type": "a3-highgpu-8g",
        "max_nodes": 4,
        "resource_labels": {"team": "research"},
    },
    "ComputeClass": {
        "priorities": [
            {"capacity": "reservation", "reservation": "h200-block"},
            {"capacity": "flex_start", "max_run_duration": "7d"},
            {"capacity": "spot"},
        ],
        "machine_type": "a3-ultragpu-8g",
        "zones": ["us-central1-b"],
        "cluster": "ml-cluster",
        "location": "us-central1",
    },
    "KueueQueue": {
        "node_pool": "a3-queued",
        "gpu_quota": 32,
        "namespaces": ["default", "research"],
        "cluster": "ml-cluster",
        "location": "us-central1",
    },
    "FlexStartInstance": {
        "zone": "us-central1-a",
        "machine_type": "a3-highgpu-8g",
        "max_run_duration": "3d",
        "request_valid_for": "2h",
        "labels": {"team": "research"},
    },
    "FlexStartGroup": {
        "zone": "us-central1-a",
        "machine_type": "a3-highgpu-8g",
        "count": 4,
        "run_duration": "3d",
    },
    "QueuedTpu": {"zone": "us-east5-a", "accelerator_type": "v6e-16", "max_run_duration": "1d"},
}


def schema_inputs(kind: registry.CapacityKind, args: Mapping[str, Any]) -> dict[str, Any]:
    """``args`` (Python spelling) as ``Construct`` inputs of ``kind``'s component."""
    return _object(describe(kind.spec), args)


def _object(model: ModelInfo, args: Mapping[str, Any]) -> dict[str, Any]:
    fields = {f.name: f for f in model.fields}
    return {
        camel(key): _value(fields[key].type if key in fields else None, value)
        for key, value in args.items()
    }


def _value(kind: FieldType | None, value: Any) -> Any:
    if kind is not None and kind.model is not None and isinstance(value, Mapping):
        return _object(kind.model, value)
    if kind is not None and kind.kind == "list" and isinstance(value, list):
        return [_value(kind.items, item) for item in value]
    return value
