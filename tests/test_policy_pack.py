"""The policy pack: real pulumi-policy objects, the runtime's servicer, and the pack process."""

from __future__ import annotations

import ast
import copy
import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import jsonschema
import pytest
import yaml
from pulumi.runtime import config as pulumi_config
from pulumi.runtime import proto
from pulumi_policy import (
    EnforcementLevel,
    ResourceValidationPolicy,
    StackValidationPolicy,
)
from pulumi_policy.proxy import UnknownValueError

from pulumi_dws import FlexStartGroup, clock
from pulumi_dws.policy import ResourceView, all_rules, rule
from pulumi_dws.policy.pack import PACK_NAME, policies
from pulumi_dws.testing import GcpMocks
from pulumi_dws.testing.policy import (
    UNKNOWN,
    UNKNOWN_ARRAY,
    UNKNOWN_BOOL,
    UNKNOWN_NUMBER,
    UNKNOWN_OBJECT,
    Analyzer,
    find_policy,
    make_urn,
    resource_args,
    validate_resource,
    validate_stack,
    wire_props,
)
from pulumi_dws.testing.samples import EXAMPLES, SAMPLE_NOW, SAMPLES, Example, totals, variant

ROOT = Path(__file__).resolve().parent.parent
POLICIES = policies()


@pytest.fixture(autouse=True)
def _isolated() -> Iterator[None]:
    """Pinned clock; no stack config left over from other tests (the pack reads dws:limits)."""
    saved = pulumi_config.CONFIG.get()
    pulumi_config.CONFIG.set({})
    try:
        with clock.frozen(SAMPLE_NOW):
            yield
    finally:
        pulumi_config.CONFIG.set(saved)


def sentinel_for(value: Any) -> str:
    """The engine's unknown sentinel for a value of this type."""
    if isinstance(value, bool):
        return UNKNOWN_BOOL
    if isinstance(value, (int, float)):
        return UNKNOWN_NUMBER
    if isinstance(value, list):
        return UNKNOWN_ARRAY
    if isinstance(value, dict):
        return UNKNOWN_OBJECT
    return UNKNOWN


def offending(example: Example) -> Any:
    node: Any = example.props()
    for step in (example.unknown or example.changes[-1][0]).split("."):
        if node is None:
            return None
        node = node[int(step)] if isinstance(node, list) else node.get(step)
    return node


# ---------------------------------------------------------------- the pack's shape


def test_pack_has_one_policy_per_rule_with_levels_and_kinds() -> None:
    expected = [r for r in all_rules() if r.scope != "plan"]
    assert [p.name for p in POLICIES] == [r.name for r in expected]
    for policy, r in zip(POLICIES, expected, strict=True):
        assert policy.enforcement_level == EnforcementLevel(r.level)
        kind = ResourceValidationPolicy if r.scope == "resource" else StackValidationPolicy
        assert isinstance(policy, kind)
    assert "calendar-delete-or-replace" not in {p.name for p in POLICIES}


def test_config_schemas_are_valid_json_schema() -> None:
    for policy in POLICIES:
        if policy.config_schema is None:
            continue
        schema = {"type": "object", "properties": policy.config_schema.properties}
        jsonschema.Draft7Validator.check_schema(schema)
        defaults = {
            k: v["default"] for k, v in policy.config_schema.properties.items() if "default" in v
        }
        jsonschema.validate(defaults, schema)


def test_policy_pack_yaml_and_main() -> None:
    project = yaml.safe_load((ROOT / "policy" / "PulumiPolicy.yaml").read_text())
    assert project["runtime"] == "python" and project["version"]
    main = ast.parse((ROOT / "policy" / "__main__.py").read_text())
    # Thin: it imports the pack from pulumi_dws and serves it; the rules live in the library.
    imported = {n.module for n in ast.walk(main) if isinstance(n, ast.ImportFrom)}
    assert "pulumi_dws.policy.pack" in imported
    assert not [n for n in ast.walk(main) if isinstance(n, (ast.FunctionDef, ast.ClassDef))]


# ---------------------------------------------------------------- harness: every example


@pytest.mark.parametrize("example", EXAMPLES, ids=str)
def test_pack_reports_example_like_the_pure_rule(example: Example) -> None:
    policy = find_policy(example.rule, POLICIES)
    props = example.props()
    reported = validate_resource(policy, example.type, props, name="r", config=example.config)
    pure = rule(example.rule)(ResourceView(example.type, "r", "", props), example.config)
    assert sorted(r.detail for r in reported) == sorted(v.message for v in pure)
    assert all(r.level == rule(example.rule).level for r in reported)
    assert all(r.message == f"{policy.description}\n{r.detail}" for r in reported)
    assert not any(r.preview_unknown for r in reported)


@pytest.mark.parametrize("example", EXAMPLES, ids=str)
def test_pack_is_silent_when_the_offending_value_is_unknown(example: Example) -> None:
    policy = find_policy(example.rule, POLICIES)
    props = example.unknown_props(sentinel_for(offending(example)))
    assert validate_resource(policy, example.type, props, config=example.config) == []


def _leaf_paths(value: Any, path: tuple = ()) -> Iterator[tuple]:
    items = value.items() if isinstance(value, dict) else enumerate(value)
    for key, item in items:
        yield (*path, key)
        if isinstance(item, (dict, list)):
            yield from _leaf_paths(item, (*path, key))


@pytest.mark.parametrize("sample", sorted(SAMPLES))
def test_clean_samples_through_the_runtime_proxy_with_unknowns(sample: str) -> None:
    """Each value replaced by the engine's sentinel: no violation, and no policy trips over
    the unknown-checking proxy (which would give the runtime's "can't run" advisory)."""
    rtype, factory = SAMPLES[sample]
    props = factory()
    resource_policies = [p for p in POLICIES if isinstance(p, ResourceValidationPolicy)]
    for policy in resource_policies:
        assert validate_resource(policy, rtype, props) == [], policy.name
    for path in _leaf_paths(props):
        changed = copy.deepcopy(props)
        node = changed
        for step in path[:-1]:
            node = node[step]
        node[path[-1]] = sentinel_for(node[path[-1]])
        for policy in resource_policies:
            assert validate_resource(policy, rtype, changed) == [], (policy.name, path)


def test_runtime_wire_form_is_what_rules_see() -> None:
    props = {"count": 8, "seconds": "259200", "unknown": UNKNOWN, "nested": {"b": UNKNOWN_BOOL}}
    wired = wire_props(props)
    assert wired["count"] == 8.0 and isinstance(wired["count"], float)  # protobuf double
    args = resource_args("gcp:compute/instance:Instance", props)
    with pytest.raises(UnknownValueError):
        args.props["unknown"]  # noqa: B018 (the proxy raises on access)
    with pytest.raises(UnknownValueError):  # .get() goes through __getitem__ too
        args.props["nested"].get("b")
    view = ResourceView.from_policy_args(args)
    assert view.props["unknown"] is not None and repr(view.props["nested"]["b"]) == "UNKNOWN"


def test_a_naive_policy_trips_over_unknowns_ours_do_not() -> None:
    def naive(args: Any, report: Any) -> None:
        if args.props["machineType"].startswith("a3"):
            report("GPU VM")

    policy = ResourceValidationPolicy(name="naive", description="naive", validate=naive)
    found = validate_resource(policy, "gcp:compute/instance:Instance", {"machineType": UNKNOWN})
    assert len(found) == 1 and found[0].preview_unknown and found[0].level == "advisory"
    assert "can't be known during preview" in found[0].detail


def test_config_and_level_through_the_harness() -> None:
    policy = find_policy("required-labels", POLICIES)
    props = SAMPLES["flex_instance"][1]()
    config = {"enforcementLevel": "mandatory", "requiredLabels": ["team", "cost-center"]}
    found = validate_resource(policy, "gcp:compute/instance:Instance", props, config=config)
    assert [(r.level, "cost-center" in r.detail) for r in found] == [("mandatory", True)]
    assert validate_resource(policy, "gcp:compute/instance:Instance", props, level="disabled") == []


# ---------------------------------------------------------------- the stack policy


def _stack(**changes: Any) -> list[ResourceView]:
    out = []
    for name, (rtype, factory) in SAMPLES.items():
        props = factory()
        for path, value in changes.get(name, {}).items():
            props = variant(props, path, value)
        out.append(ResourceView(rtype, name, make_urn(rtype, name), props))
    return out


def test_gpu_budget_stack_policy() -> None:
    budget = find_policy("gpu-budget", POLICIES)
    expected = totals(SAMPLES)
    gpus, hours = expected.gpus, expected.gpu_hours
    assert validate_stack(budget, _stack()) == []  # no caps configured
    assert validate_stack(budget, _stack(), config={"maxGpus": gpus, "maxGpuHours": hours}) == []
    over = validate_stack(budget, _stack(), config={"maxGpus": gpus - 1})
    assert [(r.level, r.urn) for r in over] == [("mandatory", "")]
    assert f"asks for {gpus} GPUs" in over[0].detail
    standard = {"flex_instance": {"scheduling": {"provisioningModel": "STANDARD"}}}
    unbounded = validate_stack(budget, _stack(**standard), config={"maxGpuHours": 1e6})
    assert [r.urn for r in unbounded] == [
        make_urn("gcp:compute/instance:Instance", "flex_instance")
    ]


def test_gpu_budget_stack_policy_counts_a_flex_start_group_through_the_runtime() -> None:
    """A resize request's GPUs are its group's template's: the pack's stack resources carry
    their parent, so the request finds its sibling template as dws plan does."""
    mocks = GcpMocks(project="p")
    mocks.run(
        lambda: FlexStartGroup(
            "trainers",
            {"zone": "us-central1-a", "machine_type": "a3-highgpu-8g", "count": 4}
            | {"run_duration": "3d", "labels": {"team": "ml"}},
        )
    )
    views = [ResourceView.from_registered(r) for r in mocks.registered if r.custom]
    budget = find_policy("gpu-budget", POLICIES)
    over = validate_stack(budget, views, config={"maxGpus": 16})
    assert len(over) == 1 and "asks for 32 GPUs" in over[0].detail
    assert validate_stack(budget, views, config={"maxGpus": 32, "maxGpuHours": 2304}) == []


def test_gpu_budget_stack_policy_with_unknowns() -> None:
    """Only the known GPUs are summed: under the cap with one pool unknown is "can't tell yet",
    over it is a violation (the totals are the samples' own declarations)."""
    unknown = {"queued_node_pool": {"autoscaling.totalMaxNodeCount": UNKNOWN_NUMBER}}
    known = totals(name for name in SAMPLES if name != "queued_node_pool").gpus
    assert known < totals(SAMPLES).gpus  # the pool's GPUs are no longer known
    budget = find_policy("gpu-budget", POLICIES)
    assert validate_stack(budget, _stack(**unknown), config={"maxGpus": known}) == []
    assert validate_stack(budget, _stack(**unknown), config={"maxGpus": known - 1})


# ---------------------------------------------------------------- the runtime's own servicer


def test_analyzer_servicer_info_configure_analyze() -> None:
    analyzer = Analyzer.in_process(POLICIES, PACK_NAME)
    info = analyzer.info()
    assert info["name"] == PACK_NAME and info["supportsConfig"] is True
    listed = {p["name"]: p for p in info["policies"]}
    assert listed["gpu-budget"]["configSchema"]["properties"]["maxGpus"]["type"] == "integer"
    assert listed["required-labels"].get("enforcementLevel", "ADVISORY") == "ADVISORY"

    bad = next(e for e in EXAMPLES if e.rule == "no-public-ip-on-accelerators")
    found = analyzer.analyze(bad.type, bad.props(), name="vm")
    assert [(d["policy"], d["level"]) for d in found] == [
        ("no-public-ip-on-accelerators", "mandatory")
    ]
    analyzer.configure(
        {"all": "advisory", "no-public-ip-on-accelerators": {"allowedResources": ["v*"]}}
    )
    assert analyzer.analyze(bad.type, bad.props(), name="vm") == []
    assert analyzer.analyze(bad.type, bad.props(), name="x")[0]["level"] == "advisory"
    analyzer.configure({"no-public-ip-on-accelerators": "disabled"})
    assert analyzer.analyze(bad.type, bad.props(), name="x") == []

    analyzer.configure({"gpu-budget": {"maxGpus": 8}})
    stack = analyzer.analyze_stack(_stack())
    assert [(d["policy"], d["level"]) for d in stack] == [("gpu-budget", "mandatory")]


# ---------------------------------------------------------------- the pack as the CLI runs it


class PackProcess:
    """``python -m pulumi.policy <engine> .`` in policy/, as the CLI's analyzer shim starts it."""

    def __init__(self, env: dict[str, str]) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-u", "-m", "pulumi.policy", "127.0.0.1:1", "."],
            cwd=ROOT / "policy",
            env={**os.environ, **env},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        line: list[str] = []
        reader = threading.Thread(target=lambda: line.append(self.proc.stdout.readline()))
        reader.start()
        reader.join(timeout=60)
        if not line or not line[0].strip().isdigit():
            self.close()
            raise AssertionError(f"pack did not start: {self.proc.stderr.read()[-2000:]}")
        self.channel = grpc.insecure_channel(f"127.0.0.1:{line[0].strip()}")
        self.analyzer = Analyzer(proto.AnalyzerStub(self.channel))

    def close(self) -> None:
        if getattr(self, "channel", None):
            self.channel.close()
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


@pytest.fixture(scope="module")
def pack_process() -> Iterator[PackProcess]:
    limits = json.dumps({"flex_start.max_run_duration": {"maximum": "10d"}})
    process = PackProcess({"PULUMI_CONFIG": json.dumps({"dws:limits": limits})})
    try:
        yield process
    finally:
        process.close()


def test_pack_process_serves_the_rules_over_grpc(pack_process: PackProcess) -> None:
    analyzer = pack_process.analyzer
    info = analyzer.info()
    assert info["name"] == PACK_NAME
    assert [p["name"] for p in info["policies"]] == [p.name for p in POLICIES]
    public = next(e for e in EXAMPLES if e.rule == "no-public-ip-on-accelerators")
    found = analyzer.analyze(public.type, public.props(), name="vm")
    assert [d["policy"] for d in found] == ["no-public-ip-on-accelerators"]
    unknown = public.unknown_props(UNKNOWN_ARRAY)
    assert analyzer.analyze(public.type, unknown, name="vm") == []


def test_pack_process_applies_stack_limits_from_pulumi_config(pack_process: PackProcess) -> None:
    eight_days = variant(
        SAMPLES["flex_instance"][1](), "scheduling.maxRunDuration.seconds", 8 * 86400
    )
    # dws:limits raised the Flex-start limit to 10d for this stack, as the program sees it.
    assert pack_process.analyzer.analyze("gcp:compute/instance:Instance", eight_days) == []
    in_process = Analyzer.in_process(POLICIES)
    found = in_process.analyze("gcp:compute/instance:Instance", eight_days)
    assert [d["policy"] for d in found] == ["flex-start-max-run-duration"]


def test_pack_process_stack_analysis_with_config(pack_process: PackProcess) -> None:
    pack_process.analyzer.configure({"gpu-budget": {"maxGpus": 10, "maxGpuHours": 100}})
    found = pack_process.analyzer.analyze_stack(_stack())
    assert [d["policy"] for d in found] == ["gpu-budget", "gpu-budget"]
    assert all(d["level"] == "mandatory" for d in found)
