"""The multi-language examples (``examples/yaml-flex-start``, a Pulumi YAML program, and
``examples/typescript-flex-start``, a TypeScript one) use only what the ``dws`` package schema
has: every resource type, input property (and its type) and output they name is checked here,
and their resources are built through the provider (``Construct``) with the values they give."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml
from pulumi.runtime import rpc

from pulumi_dws.package.schema import package_schema
from pulumi_dws.testing.component_host import ComponentProviderHost

ROOT = Path(__file__).resolve().parents[1]
YAML_PROJECT = ROOT / "examples" / "yaml-flex-start"
TS_PROJECT = ROOT / "examples" / "typescript-flex-start"
SCHEMA = package_schema()


@dataclass(frozen=True)
class Ref:
    """A value another resource gives (``${trainer.status}``, ``trainer.status``), or the
    resource itself (``${a4-net}``, ``network``: ``output`` empty)."""

    resource: str
    output: str


@dataclass(frozen=True)
class Use:
    """One resource a program declares: its logical name, type and properties."""

    name: str
    type: str
    properties: dict[str, Any]


# ---------------------------------------------------------------- reading the programs
_INTERPOLATION = re.compile(r"^\$\{([A-Za-z0-9_-]+)(?:\.([A-Za-z0-9_]+))?\}$")


def _yaml_value(value: Any) -> Any:
    if isinstance(value, str) and _INTERPOLATION.match(value):
        resource, output = _INTERPOLATION.match(value).groups()  # type: ignore[union-attr]
        return Ref(resource, output or "")
    if isinstance(value, dict):
        return {k: _yaml_value(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_yaml_value(v) for v in value]
    return value


def yaml_program() -> tuple[list[Use], dict[str, Any]]:
    project = yaml.safe_load((YAML_PROJECT / "Pulumi.yaml").read_text())
    uses = [
        Use(name, spec["type"], _yaml_value(spec.get("properties") or {}))
        for name, spec in project["resources"].items()
    ]
    return uses, {k: _yaml_value(v) for k, v in (project.get("outputs") or {}).items()}


_TOKEN = re.compile(
    r"""\s*(?:(?P<str>"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')|(?P<num>-?\d+(?:\.\d+)?)"""
    r"""|(?P<name>[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)|(?P<punct>[{}\[\]:,]))"""
)


class _Literal:
    """A TypeScript object literal of plain values (strings, numbers, booleans, arrays, nested
    objects) and references to other resources' outputs (``trainer.status``)."""

    def __init__(self, text: str, start: int) -> None:
        self.text = text
        self.pos = start

    def _next(self) -> tuple[str, str]:
        match = _TOKEN.match(self.text, self.pos)
        assert match is not None, self.text[self.pos : self.pos + 40]
        self.pos = match.end()
        kind = match.lastgroup
        assert kind is not None
        return kind, match.group(kind)

    def _peek(self) -> tuple[str, str]:
        saved = self.pos
        try:
            return self._next()
        finally:
            self.pos = saved

    def value(self) -> Any:
        kind, text = self._next()
        if kind == "str":
            return json.loads('"' + text[1:-1].replace('"', '\\"') + '"')
        if kind == "num":
            return float(text) if "." in text else int(text)
        if kind == "name":
            if text in ("true", "false"):
                return text == "true"
            resource, _, output = text.partition(".")
            return Ref(resource, output)
        if text == "{":
            found: dict[str, Any] = {}
            while self._peek() != ("punct", "}"):
                key_kind, key = self._next()
                key = json.loads(key) if key_kind == "str" else key
                assert self._next() == ("punct", ":")
                found[key] = self.value()
                if self._peek() == ("punct", ","):
                    self._next()
            self._next()
            return found
        if text == "[":
            items: list[Any] = []
            while self._peek() != ("punct", "]"):
                items.append(self.value())
                if self._peek() == ("punct", ","):
                    self._next()
            self._next()
            return items
        raise AssertionError(f"unexpected {text!r}")


_NEW = re.compile(r"const\s+(\w+)\s*=\s*new\s+dws\.(\w+)\(\s*\"([^\"]+)\"\s*,\s*(?=\{)")
_EXPORT = re.compile(r"export\s+const\s+(\w+)\s*=\s*(\w+)\.(\w+)\s*;")


def typescript_program() -> tuple[list[Use], dict[str, Any]]:
    source = (TS_PROJECT / "index.ts").read_text()
    variables: dict[str, str] = {}
    uses = []
    for match in _NEW.finditer(source):
        variable, type_name, name = match.groups()
        variables[variable] = name
        properties = _Literal(source, match.end()).value()
        uses.append(Use(name, f"dws:index:{type_name}", properties))
    assert len(uses) == source.count("new dws."), "every resource is read"

    def named(value: Any) -> Any:  # TS refers to a resource by its variable
        if isinstance(value, Ref):
            return Ref(variables.get(value.resource, value.resource), value.output)
        if isinstance(value, dict):
            return {k: named(v) for k, v in value.items()}
        return value

    uses = [Use(u.name, u.type, named(u.properties)) for u in uses]
    outputs = {key: Ref(variables.get(var, var), out) for key, var, out in _EXPORT.findall(source)}
    return uses, outputs


PROGRAMS = {"yaml": yaml_program, "typescript": typescript_program}


# ---------------------------------------------------------------- checking against the schema
def _types_match(spec: dict[str, Any], value: Any, where: str) -> list[str]:
    if isinstance(value, Ref):
        return []
    ref = spec.get("$ref")
    if ref and ref.startswith("#/types/"):
        target = SCHEMA["types"][ref.split("/", 2)[-1]]
        if "enum" in target:
            allowed = [v["value"] for v in target["enum"]]
            return [] if value in allowed else [f"{where}: {value!r} is not one of {allowed}"]
        return _object_matches(target, value, where)
    if ref == "pulumi.json#/Any":
        return []
    if "oneOf" in spec:
        if any(not _types_match(option, value, where) for option in spec["oneOf"]):
            return []
        return [f"{where}: {value!r} matches none of {spec['oneOf']}"]
    kind = spec.get("type")
    if kind == "string":
        return [] if isinstance(value, str) else [f"{where}: {value!r} is not a string"]
    if kind == "integer":
        ok = isinstance(value, int) and not isinstance(value, bool)
        return [] if ok else [f"{where}: {value!r} is not an integer"]
    if kind == "number":
        ok = isinstance(value, int | float) and not isinstance(value, bool)
        return [] if ok else [f"{where}: {value!r} is not a number"]
    if kind == "boolean":
        return [] if isinstance(value, bool) else [f"{where}: {value!r} is not a boolean"]
    if kind == "array":
        if not isinstance(value, list):
            return [f"{where}: {value!r} is not a list"]
        return [
            e for i, v in enumerate(value) for e in _types_match(spec["items"], v, f"{where}[{i}]")
        ]
    if kind == "object":
        if not isinstance(value, dict):
            return [f"{where}: {value!r} is not a map"]
        items = spec.get("additionalProperties", {"type": "string"})
        return [e for k, v in value.items() for e in _types_match(items, v, f"{where}[{k}]")]
    return [f"{where}: no type in {spec}"]


def _object_matches(spec: dict[str, Any], value: Any, where: str) -> list[str]:
    if not isinstance(value, dict):
        return [f"{where}: {value!r} is not an object"]
    problems = [f"{where}.{k}: not a property" for k in value if k not in spec["properties"]]
    problems += [f"{where}.{k}: required" for k in spec.get("required", []) if k not in value]
    for key, item in value.items():
        if key in spec["properties"]:
            problems += _types_match(spec["properties"][key], item, f"{where}.{key}")
    return problems


def schema_problems(uses: list[Use], outputs: dict[str, Any]) -> list[str]:
    """What of a program the schema does not have (empty when it all checks)."""
    problems: list[str] = []
    types = {u.name: u.type for u in uses}
    for use in uses:
        resource = SCHEMA["resources"].get(use.type)
        if resource is None:
            problems.append(f"{use.name}: no resource type {use.type}")
            continue
        problems += [
            f"{use.name}.{k}: required"
            for k in resource["requiredInputs"]
            if k not in use.properties
        ]
        for key, value in use.properties.items():
            spec = resource["inputProperties"].get(key)
            if spec is None:
                problems.append(f"{use.name}.{key}: not an input of {use.type}")
            elif isinstance(value, Ref) and not value.output:  # a resource given whole
                wanted = f"#/resources/{types.get(value.resource)}"
                if spec.get("$ref") != wanted:
                    problems.append(f"{use.name}.{key}: takes no {types.get(value.resource)}")
            else:
                problems += _types_match(spec, value, f"{use.name}.{key}")
            refs = [value] if isinstance(value, Ref) else []
            problems += _ref_problems(refs, types)
    problems += _ref_problems([v for v in outputs.values() if isinstance(v, Ref)], types)
    return problems


def _ref_problems(refs: list[Ref], types: dict[str, str]) -> list[str]:
    problems = []
    for ref in refs:
        type_ = types.get(ref.resource)
        if type_ is None:
            problems.append(f"{ref}: no such resource")
        elif ref.output and ref.output not in SCHEMA["resources"][type_]["properties"]:
            problems.append(f"{ref.resource}.{ref.output}: not an output of {type_}")
    return problems


# ---------------------------------------------------------------- tests
@pytest.mark.parametrize("language", sorted(PROGRAMS))
def test_the_example_uses_only_what_the_schema_has(language: str) -> None:
    uses, outputs = PROGRAMS[language]()
    assert uses and outputs
    assert {u.type for u in uses} <= set(SCHEMA["resources"])
    assert schema_problems(uses, outputs) == []


def test_the_schema_check_finds_what_is_wrong() -> None:
    uses, outputs = yaml_program()
    broken = [
        Use(uses[0].name, uses[0].type, {**uses[0].properties, "count": "2", "colour": "red"}),
        Use("x", "dws:index:FlexStartVm", {}),
        *uses[1:],
    ]
    broken.append(Use("y", "dws:index:FlexStartGroup", {"gpuNetwork": Ref("trainer", "")}))
    problems = schema_problems(broken, {**outputs, "bad": Ref("trainer", "colour")})
    assert "y.gpuNetwork: takes no dws:index:FlexStartInstance" in problems
    assert f"{uses[0].name}.colour: not an input of {uses[0].type}" in problems
    assert f"{uses[0].name}.count: '2' is not an integer" in problems
    assert "x: no resource type dws:index:FlexStartVm" in problems
    assert "trainer.colour: not an output of dws:index:FlexStartInstance" in problems


@pytest.mark.parametrize("language", sorted(PROGRAMS))
def test_the_examples_packages_point_at_the_plugin(language: str) -> None:
    project_dir = {"yaml": YAML_PROJECT, "typescript": TS_PROJECT}[language]
    project = yaml.safe_load((project_dir / "Pulumi.yaml").read_text())
    plugin = (project_dir / project["packages"]["dws"]).resolve()
    assert yaml.safe_load((plugin / "PulumiPlugin.yaml").read_text()) == {"runtime": "python"}
    assert (plugin / "__main__.py").is_file() and (plugin / "schema.json").is_file()
    if language == "typescript":
        package = json.loads((TS_PROJECT / "package.json").read_text())
        assert package["dependencies"]["@pulumi/dws"] == "file:sdks/dws"


@pytest.fixture(scope="module")
def host() -> Iterator[ComponentProviderHost]:
    with ComponentProviderHost() as running:
        yield running


@pytest.mark.parametrize("language", sorted(PROGRAMS))
def test_the_examples_resources_construct(host: ComponentProviderHost, language: str) -> None:
    """Each resource built through the provider with the program's values, in order, a value
    another resource gives taken from that resource's state."""
    uses, outputs = PROGRAMS[language]()
    states: dict[str, dict[str, Any]] = {}
    urns: dict[str, str] = {}

    def given(value: Any) -> Any:
        if isinstance(value, Ref) and not value.output:  # the resource, as a reference
            return {
                rpc._special_sig_key: rpc._special_resource_sig,  # noqa: SLF001
                "urn": urns[value.resource],
                "packageVersion": SCHEMA["version"],
            }
        if isinstance(value, Ref):
            return states[value.resource][value.output]
        if isinstance(value, dict):
            return {k: given(v) for k, v in value.items()}
        return value

    with host.deployment() as deployment:
        for use in uses:
            whole = {
                k: [urns[v.resource]]
                for k, v in use.properties.items()
                if isinstance(v, Ref) and not v.output
            }
            out = deployment.construct(
                use.type, use.name, given(use.properties), dependencies=whole
            )
            states[use.name] = out.state
            urns[use.name] = out.urn
    for ref in outputs.values():
        assert (
            ref.output in states[ref.resource]
            or ref.output
            in (
                SCHEMA["resources"][next(u.type for u in uses if u.name == ref.resource)][
                    "properties"
                ]
            )
        )
    assert {r.type for r in deployment.registered} >= {u.type for u in uses}
