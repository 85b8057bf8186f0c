"""Arguments of every component as a program writes them, for tests and benchmarks of the
component provider, and the same values spelled as other languages write them.

:data:`COMPONENT_ARGS` holds one good set of arguments per component the package serves (by
its name: each capacity kind, and each component that holds no capacity), in the Python API's
spelling; :func:`schema_inputs` spells them as the package schema does (``maxRunDuration``; map
keys such as labels as they are), as a TypeScript or YAML program passes them to ``Construct``.
A kind's test aids declare its own (``COMPONENT_ARGS`` in ``kinds/<kind>/testing.py``, gathered
here; a test checks every served component has one), and its refused input for the package's
tests (``PACKAGE_CASE``, :func:`package_cases`); the first kinds' and the plain components' are
listed here.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any

from ... import registry
from ...package.components import ServedComponent
from ...package.introspect import FieldType, ModelInfo, describe
from ...package.names import camel

__all__ = ["COMPONENT_ARGS", "package_cases", "schema_inputs"]

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
    # A component that holds no capacity (pulumi_dws.package.components.PLAIN).
    "GpuNetwork": {
        "zone": "us-central1-b",
        "machine_type": "a4-highgpu-8g",
        "gvnic_ranges": ["10.0.0.0/19", "10.0.64.0/18"],
        "name_prefix": "a4",
    },
}


def _kinds_aids() -> list[tuple[registry.CapacityKind, Any]]:
    return [(k, importlib.import_module(k.test_aids)) for k in registry.kinds() if k.test_aids]


for _kind, _aids in _kinds_aids():  # each kind's own, declared in its test aids
    if hasattr(_aids, "COMPONENT_ARGS"):
        COMPONENT_ARGS.setdefault(_kind.name, dict(_aids.COMPONENT_ARGS))


def package_cases() -> dict[str, dict[str, Any]]:
    """The refused input each kind's test aids declare for the component package's tests
    (``PACKAGE_CASE``: ``bad`` args, the property ``path`` the refusal names, and optionally
    ``bad_outputs`` and ``drop``), by component name."""
    return {
        kind.name: dict(aids.PACKAGE_CASE)
        for kind, aids in _kinds_aids()
        if hasattr(aids, "PACKAGE_CASE")
    }


def schema_inputs(kind: ServedComponent, args: Mapping[str, Any]) -> dict[str, Any]:
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
