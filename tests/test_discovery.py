"""Request-body validation against Google's discovery documents (the emulators' 400s)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pulumi_dws.testing.emulator import GoogleError
from pulumi_dws.testing.emulator.discovery import DiscoverySchema


@pytest.fixture(scope="module")
def compute() -> DiscoverySchema:
    return DiscoverySchema.load("compute", "v1")


def flex_body(**overrides: object) -> dict:
    body = {
        "name": "vm-1",
        "machineType": "zones/us-central1-a/machineTypes/a3-highgpu-8g",
        "scheduling": {
            "provisioningModel": "FLEX_START",
            "maxRunDuration": {"seconds": "259200"},
            "instanceTerminationAction": "STOP",
            "automaticRestart": False,
            "onHostMaintenance": "TERMINATE",
        },
        "params": {"requestValidForDuration": {"seconds": "7200"}},
        "labels": {"team": "ml"},
        "metadata": {"items": [{"key": "startup-script", "value": "echo hi"}]},
        "disks": [{"boot": True, "autoDelete": True, "initializeParams": {"diskSizeGb": "200"}}],
        "networkInterfaces": [{"network": "global/networks/default"}],
    }
    body.update(overrides)
    return body


def test_load_is_cached_and_exposes_methods(compute: DiscoverySchema) -> None:
    assert DiscoverySchema.load("compute", "v1") is compute
    assert compute.request_schema("compute.instances.insert") == "Instance"
    assert compute.request_schema("compute.instances.setLabels") == "InstancesSetLabelsRequest"
    with pytest.raises(KeyError):
        compute.method("compute.instances.fly")
    with pytest.raises(FileNotFoundError):
        DiscoverySchema.load("compute", "v0")


def test_a_valid_flex_start_body_passes(compute: DiscoverySchema) -> None:
    assert compute.validate("Instance", flex_body(), method="compute.instances.insert") == []


def test_unknown_field_is_reported_with_its_path(compute: DiscoverySchema) -> None:
    body = flex_body(params={"requestValidFor": {"seconds": "7200"}})
    errors = compute.validate("Instance", body, root="instance")
    assert errors == ["Unknown name \"requestValidFor\" at 'instance.params': Cannot find field."]


def test_unknown_top_level_field(compute: DiscoverySchema) -> None:
    assert compute.validate("Instance", {"name": "a", "bogus": 1}) == [
        'Unknown name "bogus" at root: Cannot find field.'
    ]


def test_proto_field_names_are_accepted_as_aliases(compute: DiscoverySchema) -> None:
    body = flex_body(scheduling={"provisioning_model": "FLEX_START", "max_run_duration": {}})
    assert compute.validate("Instance", body) == []


@pytest.mark.parametrize("seconds", ["1.5", "ten", "", 1.5, True, [], {"s": 1}, "1e3"])
def test_int64_must_be_an_integer(compute: DiscoverySchema, seconds: object) -> None:
    body = flex_body(params={"requestValidForDuration": {"seconds": seconds}})
    errors = compute.validate("Instance", body)
    assert len(errors) == 1
    assert "params.requestValidForDuration.seconds" in errors[0]
    assert "TYPE_INT64" in errors[0]


@pytest.mark.parametrize("seconds", ["7200", 7200, 7200.0, "-1", "0"])
def test_int64_accepts_strings_and_whole_numbers(compute: DiscoverySchema, seconds: object) -> None:
    body = flex_body(params={"requestValidForDuration": {"seconds": seconds}})
    assert compute.validate("Instance", body) == []


def test_int64_and_uint64_ranges(compute: DiscoverySchema) -> None:
    too_big = str(2**63)
    assert compute.validate("Duration", {"seconds": too_big})
    assert compute.validate("Duration", {"seconds": str(2**63 - 1)}) == []
    # Instance.id is uint64: negative values do not fit.
    assert compute.validate("Instance", {"id": "-1"})
    assert compute.validate("Instance", {"id": str(2**64 - 1)}) == []


def test_int32_range_and_type(compute: DiscoverySchema) -> None:
    assert compute.validate("Duration", {"nanos": 2**31})
    assert compute.validate("Duration", {"nanos": "12"}) == []
    assert compute.validate("Duration", {"nanos": "x"})


def test_enum_values_are_checked(compute: DiscoverySchema) -> None:
    body = flex_body()
    body["scheduling"]["instanceTerminationAction"] = "PAUSE"
    errors = compute.validate("Instance", body)
    assert len(errors) == 1 and "TYPE_ENUM" in errors[0] and "STOP" in errors[0]


def test_wrong_types(compute: DiscoverySchema) -> None:
    body = flex_body(name=7, labels=["a"], disks={"boot": True})
    body["scheduling"]["automaticRestart"] = "false"
    errors = compute.validate("Instance", body)
    assert len(errors) == 4
    joined = "\n".join(errors)
    for path in ("'name'", "'labels'", "'disks'", "'scheduling.automaticRestart'"):
        assert path in joined


def test_nested_arrays_and_refs(compute: DiscoverySchema) -> None:
    body = flex_body(
        networkInterfaces=[{"accessConfigs": [{"type": "ONE_TO_ONE_NAT", "nattIP": "x"}]}]
    )
    assert compute.validate("Instance", body) == [
        "Unknown name \"nattIP\" at 'networkInterfaces[0].accessConfigs[0]': Cannot find field."
    ]


def test_additional_properties_maps(compute: DiscoverySchema) -> None:
    assert compute.validate("Instance", {"labels": {"a": "b", "c": "d"}}) == []
    errors = compute.validate("Instance", {"labels": {"a": 1}})
    assert errors == ["Invalid value at 'labels.a' (TYPE_STRING), 1: expected a JSON string."]


def test_bytes_format(compute: DiscoverySchema) -> None:
    assert compute.validate("Metadata", {"fingerprint": "qmQ0q1Z3Yxk="}) == []
    assert compute.validate("Metadata", {"fingerprint": "not base64!"})


def test_null_means_default(compute: DiscoverySchema) -> None:
    assert compute.validate("Instance", {"name": "a", "scheduling": None, "labels": None}) == []


def test_required_fields_per_method(compute: DiscoverySchema) -> None:
    errors = compute.validate("Instance", {"labels": {}}, method="compute.instances.insert")
    assert errors == ["Required field 'name' not specified."]


def test_body_must_be_an_object(compute: DiscoverySchema) -> None:
    assert compute.validate("Instance", ["x"])
    with pytest.raises(KeyError):
        compute.validate("NoSuchSchema", {})


def test_require_raises_googles_400(compute: DiscoverySchema) -> None:
    with pytest.raises(GoogleError) as info:
        compute.require("Instance", {"nope": 1}, root="instance")
    assert info.value.status == 400
    assert info.value.message.startswith("Invalid JSON payload received.")
    assert "nope" in info.value.message
    compute.require("Instance", flex_body())


def test_protobuf_json_formats_in_aiplatform() -> None:
    # The whole document google-api-python-client ships (the packaged one keeps only what the
    # emulator needs), for its Duration and Timestamp fields.
    import googleapiclient

    cache = Path(googleapiclient.__file__).parent / "discovery_cache" / "documents"
    ai = DiscoverySchema(json.loads((cache / "aiplatform.v1beta1.json").read_text()))
    name = "GoogleCloudAiplatformV1beta1Scheduling"
    assert ai.validate(name, {"timeout": "3600s"}) == []
    assert ai.validate(name, {"timeout": "1.5s"}) == []
    assert ai.validate(name, {"timeout": "3600"})
    assert ai.validate(name, {"timeout": 3600})
    schedule = "GoogleCloudAiplatformV1beta1Schedule"
    assert ai.validate(schedule, {"startTime": "2026-01-05T00:00:00Z"}) == []
    assert ai.validate(schedule, {"startTime": "2026-01-05T00:00:00.123456789+01:00"}) == []
    assert ai.validate(schedule, {"startTime": "2026-13-05T00:00:00Z"})
    assert ai.validate(schedule, {"startTime": "2026-01-05"})


@given(st.integers(min_value=-(2**63), max_value=2**63 - 1))
def test_any_int64_as_string_or_number_passes(n: int) -> None:
    compute = DiscoverySchema.load("compute", "v1")
    assert compute.validate("Duration", {"seconds": str(n)}) == []
    assert compute.validate("Duration", {"seconds": n}) == []


@given(st.floats(allow_nan=False, allow_infinity=False).filter(lambda f: not f.is_integer()))
def test_fractional_int64_always_fails(x: float) -> None:
    compute = DiscoverySchema.load("compute", "v1")
    assert compute.validate("Duration", {"seconds": x})
    assert compute.validate("Duration", {"seconds": repr(x)})


def test_the_packaged_compute_schema_names_its_source_and_keeps_patterns(
    compute: DiscoverySchema,
) -> None:
    """The emulator's Compute schema ships in the package (no google-api-python-client):
    cut from Google's discovery document, with the revision it was cut from, and the
    ``pattern`` of names kept."""
    from pulumi_dws.testing.emulator.discovery import PACKAGED, discovery_path

    assert discovery_path("compute", "v1") == PACKAGED / "compute.v1.json"
    document = compute.document
    assert document["x-generated"]["by"] == "scripts/generate_emulator_schemas.py"
    assert document["x-generated"]["discoveryRevision"] == document["revision"]
    assert compute.schemas["Instance"]["properties"]["name"]["pattern"].startswith("[a-z]")
    insert = compute.method("compute.instances.insert")
    assert insert["parameters"]["zone"]["pattern"] and insert["request"]["$ref"] == "Instance"
    assert "description" not in json.dumps(compute.schemas["Scheduling"])


def test_the_generator_reproduces_the_packaged_schemas() -> None:
    """scripts/generate_emulator_schemas.py on the same discovery revision writes the same file
    (a newer client's document may carry a newer revision: then it must still cut cleanly)."""
    import importlib.util

    import googleapiclient

    from pulumi_dws.testing.emulator.discovery import PACKAGED

    script = Path(__file__).resolve().parent.parent / "scripts" / "generate_emulator_schemas.py"
    spec = importlib.util.spec_from_file_location("generate_emulator_schemas", script)
    assert spec is not None and spec.loader is not None
    generator = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generator)
    cache = Path(googleapiclient.__file__).parent / "discovery_cache" / "documents"
    for target in generator.TARGETS:
        source = json.loads((cache / f"{target}.json").read_text())
        packaged = json.loads((PACKAGED / f"{target}.json").read_text())
        made = generator.generate(target, source, packaged["x-generated"]["from"])
        if source["revision"] == packaged["revision"]:
            assert made == packaged
        else:
            assert set(made["schemas"]) >= set(generator.TARGETS[target]["schemas"])


def _numeric_paths(schemas: dict, name: str) -> dict[str, str]:
    """Every integer field of schema ``name`` (by path, ``[]`` for list items) and its format."""
    found: dict[str, str] = {}

    def walk(spec: dict, path: str, seen: frozenset[str]) -> None:
        ref = spec.get("$ref")
        if ref is not None:
            if ref not in seen:
                walk(schemas[ref], path, seen | {ref})
        elif spec.get("type") == "array":
            walk(spec["items"], f"{path}[]", seen)
        elif "properties" in spec:
            for key, sub in spec["properties"].items():
                walk(sub, f"{path}.{key}" if path else key, seen)
        elif spec.get("format") in ("int32", "int64", "uint32", "uint64"):
            found[path] = spec["format"]

    walk(schemas[name], "", frozenset({name}))
    return found


@pytest.mark.parametrize(
    ("schema", "table", "output_only"),
    [
        ("Instance", "INSTANCE_NUMBERS", ("id", "resourceStatus.")),
        ("InstanceGroupManagerResizeRequest", "RESIZE_REQUEST_NUMBERS", ("id",)),
    ],
)
def test_the_providers_number_tables_equal_the_discovery_document(
    compute: DiscoverySchema, schema: str, table: str, output_only: tuple[str, ...]
) -> None:
    """The fields a provider types back from protobuf doubles are exactly the request body's
    integer fields (output-only ones, which a request never carries, aside)."""
    from pulumi_dws.providers import compute_ops

    wanted = {
        path: fmt
        for path, fmt in _numeric_paths(compute.schemas, schema).items()
        if not any(path == o or (o.endswith(".") and path.startswith(o)) for o in output_only)
    }
    assert getattr(compute_ops, table) == wanted
