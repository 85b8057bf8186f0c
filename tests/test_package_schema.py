"""The ``dws`` package schema: generated from the kind registry, valid against Pulumi's package
metaschema (vendored: tests/fixtures/pulumi_package_metaschema.json), and the same as the
checked-in ``provider/schema.json`` (regenerating it with a change fails here, so CI fails)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any, Literal

import jsonschema
import pulumi
import pytest

from pulumi_dws import registry
from pulumi_dws.defaults import type_token
from pulumi_dws.fields import Known, MaybeOutput, OneOf, Secret, Within, Zone
from pulumi_dws.models import DwsModel
from pulumi_dws.package.component_outputs import component_outputs
from pulumi_dws.package.components import ServedComponent, served_components
from pulumi_dws.package.introspect import attribute_docstrings, describe
from pulumi_dws.package.names import camel, property_path, snake
from pulumi_dws.package.schema import _Builder, package_schema, schema_json

ROOT = Path(__file__).resolve().parents[1]
CHECKED_IN = ROOT / "provider" / "schema.json"
METASCHEMA = Path(__file__).parent / "fixtures" / "pulumi_package_metaschema.json"
KINDS = served_components()
SCHEMA = package_schema()


def _validator() -> jsonschema.protocols.Validator:
    meta = json.loads(METASCHEMA.read_text())
    meta.pop("x-vendored")
    cls = jsonschema.validators.validator_for(meta)
    cls.check_schema(meta)
    return cls(meta, format_checker=cls.FORMAT_CHECKER)


def test_the_checked_in_schema_is_the_generated_one() -> None:
    """Regenerate it (``python scripts/generate.py``) when an argument, an output or a
    description changes; the diff shows in review."""
    assert CHECKED_IN.read_text() == schema_json(), (
        "provider/schema.json is stale: run python scripts/generate.py"
    )


def test_the_schema_is_valid_against_pulumis_metaschema() -> None:
    errors = [f"{list(e.path)}: {e.message}" for e in _validator().iter_errors(SCHEMA)]
    assert errors == []


def test_the_metaschema_check_can_fail() -> None:
    broken = json.loads(schema_json())
    token = type_token("FlexStartInstance")
    broken["resources"][token]["inputProperties"]["zone"]["type"] = "text"
    broken["resources"]["dws:index:"] = {}
    errors = list(_validator().iter_errors(broken))
    assert {tuple(e.path)[:3] for e in errors} >= {
        ("resources", token, "inputProperties"),
        ("resources",),
    }


def _refs(node: Any) -> list[str]:
    if isinstance(node, dict):
        found = [node["$ref"]] if isinstance(node.get("$ref"), str) else []
        return found + [r for value in node.values() for r in _refs(value)]
    if isinstance(node, list):
        return [r for item in node for r in _refs(item)]
    return []


def test_every_type_reference_resolves_and_every_type_is_used() -> None:
    """What Pulumi's schema binder checks beyond the metaschema."""
    refs = set(_refs(SCHEMA))
    local = {r.split("#/types/", 1)[1] for r in refs if r.startswith("#/types/")}
    assert local <= set(SCHEMA["types"])
    assert set(SCHEMA["types"]) <= local
    resources = {r.split("#/resources/", 1)[1] for r in refs if r.startswith("#/resources/")}
    assert resources <= set(SCHEMA["resources"])  # a component given whole to another
    others = refs - {f"#/types/{t}" for t in local} - {f"#/resources/{r}" for r in resources}
    assert others <= {"pulumi.json#/Any"}
    for token, spec in SCHEMA["types"].items():
        assert set(spec.get("required", [])) <= set(spec.get("properties", {})), token
        for value in spec.get("enum", []):
            assert (
                type(value["value"]).__name__ == {"string": "str", "integer": "int"}[spec["type"]]
            )


@pytest.mark.parametrize("kind", KINDS, ids=[k.name for k in KINDS])
def test_every_component_is_in_the_schema_with_every_argument(kind: ServedComponent) -> None:
    resource = SCHEMA["resources"][type_token(kind.name)]
    assert resource["isComponent"] is True and resource["description"]
    model = describe(kind.spec)
    assert list(resource["inputProperties"]) == [camel(f.name) for f in model.fields]
    assert resource["requiredInputs"] == [camel(f.name) for f in model.fields if f.required]
    assert set(resource["requiredInputs"]) == {
        camel(n) for n, info in kind.spec.model_fields.items() if info.is_required()
    }
    for info in model.fields:
        prop = resource["inputProperties"][camel(info.name)]
        assert prop.get("plain", False) is (info.known is not None), info.name
    outputs = component_outputs(kind.component)
    assert outputs, f"{kind.name} declares no outputs"
    assert list(resource["properties"]) == [camel(o.name) for o in outputs]
    assert set(resource["required"]) == {camel(o.name) for o in outputs if not o.optional}


def test_only_the_served_components_are_resources() -> None:
    assert set(SCHEMA["resources"]) == {type_token(k.name) for k in KINDS}


def test_a_component_that_holds_no_capacity_is_served_but_is_no_kind() -> None:
    """GpuNetwork is in the schema with its inputs and outputs, and no kind of the registry:
    dws plan, the policy pack, the blueprint and the capacity summaries never see it."""
    network = SCHEMA["resources"]["dws:index:GpuNetwork"]
    assert network["requiredInputs"] == ["zone", "machineType"]
    assert network["inputProperties"]["machineType"]["plain"] is True
    assert network["inputProperties"]["gvnicRanges"]["type"] == "array"
    assert {"zone", "region", "gvnicSubnetworkLinks", "rdmaSubnetworkLinks"} <= set(
        network["properties"]
    )
    assert all(k.name != "GpuNetwork" for k in registry.kinds())
    for vm in ("FlexStartGroup", "FlexStartInstance"):  # passed as a resource reference
        taken = SCHEMA["resources"][f"dws:index:{vm}"]["inputProperties"]["gpuNetwork"]
        assert taken["$ref"] == "#/resources/dws:index:GpuNetwork"
        assert "Python programs" not in taken["description"]


def test_closed_sets_are_enums_from_literals_and_one_of() -> None:
    resources = SCHEMA["resources"]
    action = resources["dws:index:FlexStartInstance"]["inputProperties"]["terminationAction"]
    assert SCHEMA["types"][action["$ref"].split("/")[-1]]["enum"] == [
        {"value": "STOP"},
        {"value": "DELETE"},
    ]
    mode = resources["dws:index:QueuedNodePool"]["inputProperties"]["mode"]  # OneOf(MODES)
    values = [v["value"] for v in SCHEMA["types"][mode["$ref"].split("/")[-1]]["enum"]]
    assert values == ["queued", "flex_start", "reserved"]


def test_nested_objects_are_types_named_after_their_args() -> None:
    slurm = SCHEMA["resources"]["dws:index:SlurmCluster"]["inputProperties"]
    assert slurm["login"]["$ref"] == "#/types/dws:index:SlurmLogin"
    assert slurm["nodePools"]["items"]["$ref"] == "#/types/dws:index:SlurmNodePool"
    pool = SCHEMA["types"]["dws:index:SlurmNodePool"]
    assert pool["required"] == ["id", "machineType", "maxNodes"]
    assert pool["properties"]["maxNodes"]["type"] == "integer"


def test_descriptions_come_from_the_spec_docstrings_with_the_schemas_names() -> None:
    kind = registry.kind("flex_start_vms")
    assert kind is not None
    written = attribute_docstrings(kind.spec)["machine_type"]
    assert "``accelerators``" in written
    prop = SCHEMA["resources"]["dws:index:FlexStartInstance"]["inputProperties"]["machineType"]
    assert prop["description"].startswith(written.replace("``", "`").split("\n")[0])
    # a shared setting documented in the base spec (VmSettings)
    image = SCHEMA["resources"]["dws:index:FlexStartInstance"]["inputProperties"]["image"]
    assert image["description"].startswith("Boot image")
    tpu = SCHEMA["resources"]["dws:index:QueuedTpu"]["inputProperties"]["nodeId"]
    assert "`nodeCount`" in tpu["description"] and "node_count" not in tpu["description"]


def test_python_only_forms_and_durations_are_told() -> None:
    calendar = SCHEMA["resources"]["dws:index:CalendarReservation"]["inputProperties"]
    assert calendar["startTime"]["type"] == "string"
    assert "`RelativeTime`" in calendar["startTime"]["description"]
    assert calendar["duration"]["type"] == "string"


def test_outputs_are_typed() -> None:
    pool = SCHEMA["resources"]["dws:index:QueuedNodePool"]["properties"]
    assert pool["gpusTotal"]["type"] == "integer"
    assert pool["nodeSelector"] == {
        "type": "object",
        "additionalProperties": {"type": "string"},
        "description": pool["nodeSelector"]["description"],
    }
    vm = SCHEMA["resources"]["dws:index:FlexStartInstance"]
    assert vm["properties"]["status"]["type"] == "string"
    assert "status" not in vm["required"] and "instanceName" in vm["required"]
    assert SCHEMA["resources"]["dws:index:QueuedTpu"]["properties"]["chips"]["type"] == "integer"


@pytest.mark.parametrize("kind", KINDS, ids=[k.name for k in KINDS])
def test_schema_names_turn_back_into_python_names(kind: ServedComponent) -> None:
    def names(model: Any) -> list[str]:
        found = [f.name for f in model.fields]
        for f in model.fields:
            t = f.type
            while t.items is not None:
                t = t.items
            if t.model is not None:
                found += names(t.model)
        return found

    every = names(describe(kind.spec))
    assert all(snake(camel(n)) == n for n in every)
    model = describe(kind.spec)
    assert len({camel(f.name) for f in model.fields}) == len(model.fields)


def test_property_paths() -> None:
    assert property_path("node_pools[1].max_nodes") == "nodePools[1].maxNodes"
    assert property_path("labels[team]") == 'labels["team"]'
    assert property_path("labels key") == "labels"
    assert property_path("login.boot_disk_size_gb") == "login.bootDiskSizeGb"


# ---------------------------------------------------------------- a kind added later
class _GadgetSpec(DwsModel):
    zone: MaybeOutput[Zone]
    """Where the gadget goes."""
    token: Annotated[str, Secret()] | None = None
    """An API token."""
    size: Annotated[int, Within("compute.accelerator_count")] = 1
    mode: Literal["fast", "slow"] = "fast"
    tier: Annotated[str, OneOf(("gold", "silver"))] = "gold"
    shape: Annotated[str, Known("it decides what is registered")] = "box"


class Gadget(pulumi.ComponentResource):
    """A gadget: any kind registered later is described alike."""

    count: int
    """How many."""


def test_a_kind_added_later_is_described_from_its_spec() -> None:
    builder = _Builder()
    builder.component(
        registry.CapacityKind(
            name="Gadget",
            component=Gadget,
            args=dict,
            spec=_GadgetSpec,
            key="gadgets",  # args unread
        )
    )
    schema = builder.schema()
    gadget = schema["resources"]["dws:index:Gadget"]
    props = gadget["inputProperties"]
    assert props["zone"] == {"type": "string", "description": "Where the gadget goes."}
    assert props["token"]["secret"] is True
    assert props["size"]["description"] == "Default: `1`."
    assert schema["types"]["dws:index:GadgetMode"]["enum"] == [{"value": "fast"}, {"value": "slow"}]
    assert schema["types"]["dws:index:GadgetTier"]["enum"] == [
        {"value": "gold"},
        {"value": "silver"},
    ]
    assert props["shape"]["plain"] is True
    assert gadget["properties"] == {"count": {"type": "integer", "description": "How many."}}
    assert gadget["requiredInputs"] == ["zone"]
    info = describe(_GadgetSpec)
    size = info.field("size")
    assert size is not None and size.limits == "compute.accelerator_count"


def test_a_known_list_whose_items_take_outputs_is_plain_and_its_items_not() -> None:
    """``Known(..., outputs_in_items=True)``: other languages give the list as a value, each
    zone as a value or an output (a QueuedNodePool's node_locations)."""
    zones = SCHEMA["resources"]["dws:index:QueuedNodePool"]["inputProperties"]["nodeLocations"]
    assert zones["plain"] is True and "plain" not in zones["items"]
    namespaces = SCHEMA["resources"]["dws:index:KueueQueue"]["inputProperties"]["namespaces"]
    assert namespaces["plain"] is True and namespaces["items"]["plain"] is True
