"""The ``dws`` component provider as a program in another language meets it: the plugin runs as
a real subprocess (``python provider <engine>``), and ``GetSchema``, ``Construct`` and ``Check``
go over gRPC, each ``Construct``'s registrations answered by a fake resource monitor that
behaves as :class:`~pulumi_dws.testing.GcpMocks`.

What a component registers through ``Construct`` equals what the Python API registers for the
same inputs under the same mocks (types, names, parents, inputs, outputs): the one difference is
the type of the dynamic resources, served by the provider itself (``dws:dynamic:<Name>`` for
``pulumi-python:dynamic/dws:<Name>``). A bad input is refused with ``INVALID_ARGUMENT``, the
Python API's message and the property path as the caller spells it."""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
import pulumi
import pytest
from pulumi.runtime import rpc

from pulumi_dws import clock, registry
from pulumi_dws.defaults import type_token
from pulumi_dws.errors import DwsValidationError
from pulumi_dws.package.component_outputs import component_outputs
from pulumi_dws.package.components import ServedComponent, served_components
from pulumi_dws.package.names import camel, property_path
from pulumi_dws.package.schema import schema_json
from pulumi_dws.package.served import served_type
from pulumi_dws.testing import GcpMocks, Registered
from pulumi_dws.testing.component_host import (
    COMPONENT_ARGS,
    ComponentProviderHost,
    Deployment,
    PropertyError,
    ProviderCallError,
    package_cases,
    schema_inputs,
)
from pulumi_dws.testing.dynamic_host import UNKNOWN, secret

NOW = dt.datetime(2026, 11, 2, 12, 0, tzinfo=dt.timezone.utc)
KINDS = served_components()


@dataclass(frozen=True)
class Case:
    """A component's inputs as a Python program writes them, and one bad input: what replaces
    or adds to them, the property path the refusal names, and the inputs given as outputs
    (with a dependency, as the engine sends a value another resource gives)."""

    args: dict[str, Any]
    bad: dict[str, Any]
    path: str
    bad_outputs: tuple[str, ...] = ()
    drop: tuple[str, ...] = field(default=())


CASES: dict[str, Case] = {
    "CalendarReservation": Case(COMPONENT_ARGS["CalendarReservation"], {"count": 0}, "count"),
    "SlurmCluster": Case(  # a nested path
        COMPONENT_ARGS["SlurmCluster"],
        {"node_pools": [{"id": "a3u", "machine_type": "a3-ultragpu-8g", "max_nodes": 0}]},
        "nodePools[0].maxNodes",
    ),
    "QueuedNodePool": Case(  # a value outside a closed set
        COMPONENT_ARGS["QueuedNodePool"], {"mode": "fastest"}, "mode"
    ),
    "ComputeClass": Case(  # a nested value outside a closed set
        COMPONENT_ARGS["ComputeClass"],
        {"priorities": [{"capacity": "someday"}]},
        "priorities[0].capacity",
    ),
    "KueueQueue": Case(  # the wrong type
        COMPONENT_ARGS["KueueQueue"], {"namespaces": "default"}, "namespaces"
    ),
    "FlexStartInstance": Case(  # a value outside its limits
        COMPONENT_ARGS["FlexStartInstance"], {"max_run_duration": "8d"}, "maxRunDuration"
    ),
    "FlexStartGroup": Case(  # an Output where a plain value is required
        COMPONENT_ARGS["FlexStartGroup"], {}, "machineType", bad_outputs=("machine_type",)
    ),
    "QueuedTpu": Case(  # an unknown property (a typo)
        COMPONENT_ARGS["QueuedTpu"],
        {"max_run_duraton": "1d"},
        "maxRunDuraton",
        drop=("max_run_duration",),
    ),
    "GpuNetwork": Case(  # a NIC layout that does not fit the machine type
        COMPONENT_ARGS["GpuNetwork"], {"rdma_nics": 4}, "rdmaNics"
    ),
}


CASES.update(  # a kind's own, declared in its test aids (PACKAGE_CASE)
    {name: Case(COMPONENT_ARGS[name], **case) for name, case in package_cases().items()}
)


def test_every_served_component_has_a_case() -> None:
    assert set(CASES) == {k.name for k in KINDS}


@pytest.fixture(scope="module")
def host() -> Iterator[ComponentProviderHost]:
    with ComponentProviderHost(env={"DWS_NOW": NOW.isoformat()}) as running:
        yield running


@pytest.fixture(autouse=True)
def _frozen() -> Iterator[None]:
    with clock.frozen(NOW):
        yield


# ---------------------------------------------------------------- both sides of a comparison
def _python_run(kind: ServedComponent, name: str, args: Mapping[str, Any]) -> GcpMocks:
    mocks = GcpMocks()

    def program() -> Any:
        component = kind.component(name, dict(args))
        outputs = {o.name: getattr(component, o.name) for o in component_outputs(kind.component)}
        return pulumi.Output.all(**outputs)

    mocks.values = mocks.run(program)  # type: ignore[attr-defined]
    return mocks


def _python_error(kind: ServedComponent, args: Mapping[str, Any]) -> DwsValidationError:
    with pytest.raises(DwsValidationError) as info:
        GcpMocks().run(lambda: kind.component("bad", dict(args)))
    return info.value


def _same_type(token: str) -> str:
    """A type as the comparison reads it: a served resource is its dynamic twin."""
    if token.startswith("dws:dynamic:"):
        return "pulumi-python:dynamic/dws:" + token.split(":")[-1]
    return token


def _urn(urn: str) -> str:
    """A parent URN as the comparison reads it: the stack and no parent are the top level (a
    Python program's top-level resources are the stack's; a provider registers them with no
    parent, and the engine puts them at the top)."""
    if urn.split("::")[2:3] == ["pulumi:pulumi:Stack"]:
        return ""
    # The mock monitor keeps the stack in its children's URNs; the engine does not.
    urn = urn.replace("::pulumi:pulumi:Stack$", "::")
    return urn.replace("dws:dynamic:", "pulumi-python:dynamic/dws:")


def _registrations(found: list[Registered]) -> list[tuple[Any, ...]]:
    return sorted(
        (
            _same_type(r.type),
            r.name,
            _urn(r.parent),
            r.custom,
            json.dumps(r.inputs, sort_keys=True, default=str),
            sorted(_urn(d) for d in r.dependencies),
        )
        for r in found
    )


def _construct(
    deployment: Deployment,
    kind: ServedComponent,
    name: str,
    args: Mapping[str, Any],
    **kw: Any,
) -> Any:
    return deployment.construct(type_token(kind.name), name, schema_inputs(kind, args), **kw)


# ---------------------------------------------------------------- GetSchema
def test_get_schema_serves_the_generated_schema(host: ComponentProviderHost) -> None:
    assert host.get_schema() == schema_json()
    assert host.plugin_version == json.loads(schema_json())["version"]


# ---------------------------------------------------------------- Construct
@pytest.mark.parametrize("kind", KINDS, ids=[k.name for k in KINDS])
def test_construct_registers_what_the_python_api_registers(
    host: ComponentProviderHost, kind: ServedComponent
) -> None:
    case = CASES[kind.name]
    python = _python_run(kind, "capacity", case.args)
    with host.deployment() as deployment:
        out = _construct(deployment, kind, "capacity", case.args)
    assert out.urn == f"urn:pulumi:dev::project::{type_token(kind.name)}::capacity"
    assert _registrations(deployment.registered) == _registrations(python.registered)
    assert len(deployment.registered) > 1  # the component and its children
    served = [r.type for r in deployment.registered if r.type.startswith("dws:dynamic:")]
    dynamic = [r.type for r in python.registered if r.type.startswith("pulumi-python:dynamic/")]
    assert served == [served_type(t) for t in dynamic]
    values = python.values  # type: ignore[attr-defined]
    for output in component_outputs(kind.component):
        expected = values[output.name]
        if expected is None:
            assert out.state.get(camel(output.name)) is None, output.name
        else:
            assert out.state[camel(output.name)] == expected, output.name


def test_the_served_resources_keep_their_python_inputs(host: ComponentProviderHost) -> None:
    kind = registry.kind("queued_tpus")
    assert kind is not None
    with host.deployment() as deployment:
        _construct(deployment, kind, "tpu", CASES["QueuedTpu"].args)
    request = next(r for r in deployment.monitor.requests if r.type == "dws:dynamic:QueuedTpu")
    assert request.custom and request.version == json.loads(schema_json())["version"]
    resource = next(r for r in deployment.registered if r.type == "dws:dynamic:QueuedTpu")
    assert set(resource.inputs) >= {"__provider", "body", "project", "zone", "queuedResourceId"}
    assert resource.parent == "urn:pulumi:dev::project::dws:index:QueuedTpu::tpu"


def test_vms_of_one_shape_share_one_template_across_constructs(
    host: ComponentProviderHost,
) -> None:
    """A program in another language makes one Construct call per component: the Flex-start
    VMs of one shape still share one template, as in a Python program."""
    kind = registry.kind("flex_start_vms")
    assert kind is not None
    args = CASES["FlexStartInstance"].args
    python = GcpMocks()
    python.run(lambda: [kind.component(n, dict(args)) for n in ("a", "b")])
    with host.deployment() as deployment:
        for name in ("a", "b"):
            _construct(deployment, kind, name, args)
    templates = [r for r in deployment.registered if r.type.endswith("InstanceTemplate")]
    assert len(templates) == 1 and _urn(templates[0].parent) == ""
    assert _registrations(deployment.registered) == _registrations(python.registered)


def test_a_deployment_of_its_own_registers_its_own_template(host: ComponentProviderHost) -> None:
    kind = registry.kind("flex_start_vms")
    assert kind is not None
    for _ in range(2):
        with host.deployment() as deployment:
            _construct(deployment, kind, "a", CASES["FlexStartInstance"].args)
        assert sum(r.type.endswith("InstanceTemplate") for r in deployment.registered) == 1


def test_an_input_with_a_dependency_keeps_it(host: ComponentProviderHost) -> None:
    kind = registry.kind("flex_start_vms")
    assert kind is not None
    network = "urn:pulumi:dev::project::gcp:compute/network:Network::vpc"
    with host.deployment() as deployment:
        _construct(
            deployment,
            kind,
            "a",
            {**CASES["FlexStartInstance"].args, "network": "vpc"},
            dependencies={"network": [network]},
        )
    template = next(r for r in deployment.registered if r.type.endswith("InstanceTemplate"))
    assert network in template.dependencies
    assert template.parent.endswith("dws:index:FlexStartInstance::a")  # an Output: its own


# ---------------------------------------------------------------- refusals
def _expected_message(err: DwsValidationError) -> str:
    """The Python API's message, its argument path (and a suggested argument) spelled as the
    schema spells it."""
    head, words = err.field.split(" ", 1)[0], err.field[len(err.field.split(" ", 1)[0]) :]
    problem = err.problem
    if problem.startswith("unknown argument; did you mean "):
        suggested = problem.removeprefix("unknown argument; did you mean ").rstrip("?")
        problem = f"unknown argument; did you mean {camel(suggested)}?"
    return str(DwsValidationError(property_path(head) + words, err.value, problem))


@pytest.mark.parametrize("kind", KINDS, ids=[k.name for k in KINDS])
def test_a_bad_input_is_refused_with_the_python_message(
    host: ComponentProviderHost, kind: ServedComponent
) -> None:
    case = CASES[kind.name]
    args = {k: v for k, v in case.args.items() if k not in case.drop} | case.bad
    python_args = {
        k: pulumi.Output.from_input(v) if k in case.bad_outputs else v for k, v in args.items()
    }
    expected = _python_error(kind, python_args)
    dependencies = {
        camel(k): ["urn:pulumi:dev::project::gcp:compute/network:Network::x"]
        for k in case.bad_outputs
    }
    with host.deployment() as deployment, pytest.raises(ProviderCallError) as info:
        _construct(deployment, kind, "bad", args, dependencies=dependencies)
    refused = info.value
    assert refused.code == grpc.StatusCode.INVALID_ARGUMENT
    assert refused.message == _expected_message(expected)
    assert refused.errors == [
        PropertyError(case.path, refused.message[len(refused.message.split(": ", 1)[0]) + 2 :])
    ]
    assert refused.errors[0].path == case.path
    assert [r for r in deployment.registered] == []  # refused before anything was registered


@pytest.mark.parametrize(
    ("key", "bad"),
    [("zone", ["us-east5-a", 1]), ("labels", [1, 2]), ("max_run_duration", {"days": 2})],
)
def test_a_value_of_another_shape_is_refused_with_the_python_message(
    host: ComponentProviderHost, key: str, bad: Any
) -> None:
    """A TypeScript program's ``zone: ["us-east5-a", 1]`` (its numbers come as floats on the
    wire): the refusal quotes the value as the program wrote it, as the Python API does
    (``1``, not ``1.0``)."""
    kind = registry.kind("queued_tpus")
    assert kind is not None
    args = {**CASES["QueuedTpu"].args, key: bad}
    expected = _python_error(kind, args)
    with host.deployment() as deployment, pytest.raises(ProviderCallError) as info:
        _construct(deployment, kind, "tpu", args)
    assert info.value.message == _expected_message(expected)


def test_a_secret_value_is_never_shown(host: ComponentProviderHost) -> None:
    kind = registry.kind("queued_tpus")
    assert kind is not None
    args = {**CASES["QueuedTpu"].args, "zone": secret("us-hidden9-a")}
    with host.deployment() as deployment, pytest.raises(ProviderCallError) as info:
        _construct(deployment, kind, "tpu", args)
    refused = info.value
    assert refused.code == grpc.StatusCode.INVALID_ARGUMENT
    assert refused.message.startswith("zone: [secret] is not a Google Cloud zone")
    assert "hidden" not in refused.message + repr(refused.errors)
    assert "hidden" not in host.stderr + "".join(r.message for r in host.engine.logs)  # type: ignore[union-attr]


def test_a_secret_inside_a_longer_word_of_the_refusal_takes_the_whole_word(
    host: ComponentProviderHost,
) -> None:
    """A secret ``waitFor`` with a typo (``runnin``) is inside a word of what the refusal
    allows (``running``): the whole word is ``[secret]``, as in the Python API's errors. The
    served refusal once hid only the secret's letters, ``[secret]g``, which told the secret."""
    kind = registry.kind("flex_start_groups")
    assert kind is not None
    for typo in ("runnin", "accept"):
        args = {**COMPONENT_ARGS["FlexStartGroup"], "wait_for": secret(typo)}
        with host.deployment() as deployment, pytest.raises(ProviderCallError) as info:
            _construct(deployment, kind, "g", args)
        message = info.value.message
        assert message.startswith("waitFor: [secret] is not allowed"), message
        assert not re.search(r"\w\[secret\]|\[secret\]\w", message), message
        assert typo not in message


@pytest.mark.parametrize(
    ("zone", "hints"),
    [("us-eest5-a", ("did you mean", "us-east5")), ("us-west4-q", ("zones are", "us-west4"))],
)
def test_nothing_built_from_a_secret_is_suggested(
    host: ComponentProviderHost, zone: str, hints: tuple[str, ...]
) -> None:
    """As in the Python API: a secret zone the table refuses gets no suggestion and no list of
    its region's zones (``did you mean us-east5-a?`` told the secret ``us-eest5-a``)."""
    kind = registry.kind("queued_tpus")
    assert kind is not None
    args = {**CASES["QueuedTpu"].args, "zone": secret(zone)}
    with host.deployment() as deployment, pytest.raises(ProviderCallError) as info:
        _construct(deployment, kind, "tpu", args)
    message = info.value.message + repr(info.value.errors)
    assert info.value.message.startswith("zone: [secret] is not a"), message
    for hint in hints:
        assert hint not in message, message


def test_a_secret_tpu_type_is_not_told_by_the_sizes_its_version_offers(
    host: ComponentProviderHost,
) -> None:
    """A secret accelerator type of a size its version lacks (``v6e-17``: other languages may
    pass it as a secret, which the Python API's plain-only field never is): the refusal tells
    neither the version (``Trillium``, ``v6e-N``) nor its sizes. Not secret, it tells both."""
    kind = registry.kind("queued_tpus")
    assert kind is not None
    for given, told in ((secret("v6e-17"), False), ("v6e-17", True)):
        args = {**CASES["QueuedTpu"].args, "accelerator_type": given}
        with host.deployment() as deployment, pytest.raises(ProviderCallError) as info:
            _construct(deployment, kind, "tpu", args)
        message = info.value.message + repr(info.value.errors)
        assert info.value.message.startswith("acceleratorType: "), message
        assert "slice size" in message
        for hint in ("Trillium", "v6e", "128"):
            assert (hint in message) is told, message


def test_a_good_secret_value_is_taken(host: ComponentProviderHost) -> None:
    kind = registry.kind("queued_tpus")
    assert kind is not None
    args = {**CASES["QueuedTpu"].args, "labels": secret({"team": "ml"})}
    with host.deployment() as deployment:
        _construct(deployment, kind, "tpu", args)
    resource = next(r for r in deployment.registered if r.type == "dws:dynamic:QueuedTpu")
    assert "labels" in json.dumps(resource.inputs["body"])


def test_numbers_from_other_languages_are_whole_numbers(host: ComponentProviderHost) -> None:
    kind = registry.kind("flex_start_groups")
    assert kind is not None
    with host.deployment() as deployment:
        deployment.construct(
            type_token(kind.name),
            "g",
            {
                "zone": "us-central1-a",
                "machineType": "a3-highgpu-8g",
                "count": 2.0,
                "runDuration": "1d",
            },
        )
    request = next(r for r in deployment.registered if r.type == "dws:dynamic:MigResizeRequest")
    assert request.inputs["body"]["resizeBy"] == 2


def test_the_provider_survives_what_it_refuses(host: ComponentProviderHost) -> None:
    with host.deployment() as deployment, pytest.raises(ProviderCallError) as info:
        deployment.construct("dws:index:Nothing", "x", {})
    assert "unknown resource type dws:index:Nothing" in info.value.message
    for bad in ({"zone": 5}, {"zone": ["a"], "acceleratorType": None}, {"nope": {"deep": 1}}):
        with host.deployment() as deployment, pytest.raises(ProviderCallError) as refused:
            deployment.construct("dws:index:QueuedTpu", "x", bad)
        assert refused.value.code == grpc.StatusCode.INVALID_ARGUMENT
    assert host.returncode is None
    assert host.get_schema() == schema_json()


# ---------------------------------------------------------------- Check
@pytest.mark.parametrize("kind", KINDS, ids=[k.name for k in KINDS])
def test_check_finds_what_construct_refuses(
    host: ComponentProviderHost, kind: ServedComponent
) -> None:
    case = CASES[kind.name]
    good = schema_inputs(kind, case.args)
    inputs, failures = host.check(type_token(kind.name), "c", {}, good)
    assert failures == [] and inputs == good
    if case.bad_outputs:
        return  # a plain value given as an output: Check sees only the value
    bad = schema_inputs(kind, {k: v for k, v in case.args.items() if k not in case.drop} | case.bad)
    _, failures = host.check(type_token(kind.name), "c", {}, bad)
    assert [f.path for f in failures] == [case.path]


def test_check_of_an_unknown_type_is_refused(host: ComponentProviderHost) -> None:
    with pytest.raises(ProviderCallError) as info:
        host.check("dws:index:Nothing", "x", {}, {})
    assert info.value.code == grpc.StatusCode.INVALID_ARGUMENT


def test_the_messages_docs_show_are_the_providers(host: ComponentProviderHost) -> None:
    doc = (Path(__file__).resolve().parents[1] / "docs" / "multi-language.md").read_text()
    block = doc.split("A bad input fails", 1)[1].split("```", 2)[1]
    shown = [line.strip() for line in block.splitlines() if line.strip()]
    refused = []
    for type_, inputs in [
        (
            "dws:index:FlexStartInstance",
            {"zone": "us-central1-a", "machineType": "a3-highgpu-8g", "maxRunDuration": "8d"},
        ),
        (
            "dws:index:SlurmCluster",
            {
                "displayName": "x",
                "login": {"zone": "us-central1-b"},
                "nodePools": [{"id": "a", "machineType": "a3-ultragpu-8g", "maxNodes": 0}],
            },
        ),
        (
            "dws:index:QueuedTpu",
            {"zone": "us-east5-a", "acceleratorType": "v6e-16", "maxRunDuraton": "1d"},
        ),
    ]:
        with host.deployment() as deployment, pytest.raises(ProviderCallError) as info:
            deployment.construct(type_, "x", inputs)
        refused.append(info.value.message)
    assert refused == shown


# ---------------------------------------------------------------- outputs as the engine sends them
NETWORK = "urn:pulumi:dev::project::gcp:compute/network:Network::vpc"


def _output(
    value: Any = None, *, secret: bool = False, known: bool = True, deps: tuple[str, ...] = ()
) -> dict[str, Any]:
    """An output value in the engine's wire form (what it sends a provider that accepts
    outputs, as ``Configure`` answers): known or not, secret or not, with its dependencies."""
    wire: dict[str, Any] = {rpc._special_sig_key: rpc._special_output_value_sig}  # noqa: SLF001
    if known:
        wire["value"] = value
    if secret:
        wire["secret"] = True
    if deps:
        wire["dependencies"] = list(deps)
    return wire


TPU = {"zone": "us-east5-a", "acceleratorType": "v6e-16", "maxRunDuration": "1d"}


@pytest.mark.parametrize(
    ("inputs", "path"),
    [
        (  # a secret zone of no region, beside labels another resource gives
            {
                **TPU,
                "zone": _output("us-hidden9-a", secret=True),
                "labels": _output(known=False, deps=(NETWORK,)),
            },
            "zone",
        ),
        (  # a secret label value, beside metadata not known yet
            {
                **TPU,
                "labels": {"team": _output("Hidden Team!", secret=True)},
                "metadata": _output(known=False, deps=(NETWORK,)),
            },
            'labels["team"]',
        ),
    ],
    ids=["zone", "label"],
)
def test_a_secret_is_checked_and_hidden_while_other_values_are_unknown(
    host: ComponentProviderHost, inputs: dict[str, Any], path: str
) -> None:
    """In a preview, a value another resource gives is unknown: the values that are known (a
    secret among them) are still checked before anything is registered, and a refusal shows
    the secret as [secret]."""
    with host.deployment(preview=True) as deployment, pytest.raises(ProviderCallError) as info:
        deployment.construct("dws:index:QueuedTpu", "tpu", inputs)
    refused = info.value
    assert refused.code == grpc.StatusCode.INVALID_ARGUMENT
    assert refused.message.startswith(f"{path}: [secret] ")
    assert [e.path for e in refused.errors] == [path]
    assert "hidden" not in (refused.message + repr(refused.errors)).lower()
    assert deployment.registered == []


def test_a_value_refused_once_known_is_an_input_error(host: ComponentProviderHost) -> None:
    """A check that can only run on an Output's value (a relative start given by another
    resource) refuses it as the Python API does, as INVALID_ARGUMENT naming the property."""
    kind = registry.kind("calendar_reservations")
    assert kind is not None
    args = schema_inputs(kind, CASES["CalendarReservation"].args)
    inputs = {**args, "startTime": _output("+4w", deps=(NETWORK,))}
    expected = _python_error(
        kind, {**CASES["CalendarReservation"].args, "start_time": pulumi.Output.from_input("+4w")}
    )
    with host.deployment() as deployment, pytest.raises(ProviderCallError) as info:
        deployment.construct(type_token(kind.name), "block", inputs)
    assert info.value.code == grpc.StatusCode.INVALID_ARGUMENT
    assert info.value.message == _expected_message(expected)
    assert [e.path for e in info.value.errors] == ["startTime"]


def test_an_unknown_without_dependencies_is_an_unknown_output(host: ComponentProviderHost) -> None:
    """An engine that does not send output values marks an unknown with the wire's unknown
    value (with or without dependencies): the component gets an unknown Output, as when
    the value comes with a dependency."""
    with host.deployment(preview=True) as deployment:
        deployment.construct("dws:index:QueuedTpu", "tpu", {**TPU, "labels": UNKNOWN})
    resource = next(r for r in deployment.registered if r.type == "dws:dynamic:QueuedTpu")
    assert resource.parent.endswith("dws:index:QueuedTpu::tpu")


def test_the_served_resources_use_the_components_dws_provider(host: ComponentProviderHost) -> None:
    """A program that gives a component its own dws provider (``{provider: p}``) has the
    component's served resources handled by that provider, as Pulumi does for the children
    of a component of the provider's package (not by the default one)."""
    ref = "urn:pulumi:dev::project::pulumi:providers:dws::mine::0f3c1f2e-1111-2222-3333-4444"
    with host.deployment() as deployment:
        request = deployment.construct_request("dws:index:QueuedTpu", "tpu", TPU)
        request.providers["dws"] = ref
        host.call("Construct", request)
    served = [r for r in deployment.monitor.requests if r.type == "dws:dynamic:QueuedTpu"]
    assert [r.provider for r in served] == [ref]
    with host.deployment() as deployment:  # none given: the default provider of the version
        deployment.construct("dws:index:QueuedTpu", "tpu", TPU)
    served = [r for r in deployment.monitor.requests if r.type == "dws:dynamic:QueuedTpu"]
    assert [(r.provider, bool(r.version)) for r in served] == [("", True)]


def test_a_deployment_on_an_endpoint_not_known_in_the_preview_is_constructed(
    host: ComponentProviderHost,
) -> None:
    """Another language passes ``endpoint: aiEndpoint.id``, unknown in a preview: the
    deployment reads its region from it once known, so it is not refused for the region it
    does not need."""
    kind = registry.kind("flex_start_deployments")
    assert kind is not None
    args = {k: v for k, v in CASES[kind.name].args.items() if k != "region"}
    inputs = {**schema_inputs(kind, args), "endpoint": UNKNOWN}
    with host.deployment(preview=True) as deployment:
        deployment.construct(type_token(kind.name), "llm", inputs)
    served = [r for r in deployment.registered if r.type == "dws:dynamic:FlexStartDeployedModel"]
    assert len(served) == 1 and served[0].parent.endswith("dws:index:FlexStartDeployment::llm")


# ---------------------------------------------------------------- a component given to another
def _reference(urn: str) -> dict[str, Any]:
    """A resource reference in the engine's wire form (``gpuNetwork: net`` in TypeScript)."""
    return {
        rpc._special_sig_key: rpc._special_resource_sig,  # noqa: SLF001
        "urn": urn,
        "packageVersion": json.loads(schema_json())["version"],
    }


A4_GROUP = {
    "zone": "us-central1-b",
    "machine_type": "a4-highgpu-8g",
    "count": 2,
    "run_duration": "1d",
}


def test_a_gpu_network_given_to_a_group_gives_it_every_nic(host: ComponentProviderHost) -> None:
    """A program in another language makes its GpuNetwork, then passes it to a FlexStartGroup
    (a resource reference): the group takes the network this provider built and registers what
    the Python API registers for the same program, every NIC included."""
    network = next(c for c in KINDS if c.name == "GpuNetwork")
    group = registry.kind("flex_start_groups")
    assert group is not None
    net_args = CASES["GpuNetwork"].args
    python = GcpMocks()
    python.run(
        lambda: group.component(
            "a4", {**A4_GROUP, "gpu_network": network.component("net", dict(net_args))}
        )
    )
    with host.deployment() as deployment:
        net = _construct(deployment, network, "net", net_args)
        _construct(
            deployment,
            group,
            "a4",
            A4_GROUP | {"gpu_network": _reference(net.urn)},
            dependencies={"gpuNetwork": [net.urn]},
        )
    assert _registrations(deployment.registered) == _registrations(python.registered)
    template = next(r for r in deployment.registered if r.type.endswith("InstanceTemplate"))
    nics = [nic["nicType"] for nic in template.inputs["networkInterfaces"]]
    assert nics == ["GVNIC"] * 2 + ["MRDMA"] * 8


def test_a_gpu_network_this_deployment_did_not_build_is_refused(
    host: ComponentProviderHost,
) -> None:
    """A reference to a GpuNetwork of another deployment (or another provider) is no network
    the group can take its NICs from: refused, naming gpuNetwork, before anything registers."""
    group = registry.kind("flex_start_groups")
    assert group is not None
    elsewhere = "urn:pulumi:other::project::dws:index:GpuNetwork::net"
    with host.deployment() as deployment, pytest.raises(ProviderCallError) as info:
        _construct(
            deployment,
            group,
            "a4",
            A4_GROUP | {"gpu_network": _reference(elsewhere)},
            dependencies={"gpuNetwork": [elsewhere]},
        )
    assert info.value.code == grpc.StatusCode.INVALID_ARGUMENT
    assert [e.path for e in info.value.errors] == ["gpuNetwork"]
    assert deployment.registered == []


def test_check_leaves_a_component_given_whole_to_construct(host: ComponentProviderHost) -> None:
    """``Check`` runs outside any deployment, so it cannot know the network a reference names:
    it checks the other inputs and leaves the reference to ``Construct``."""
    group = registry.kind("flex_start_groups")
    assert group is not None
    net = _reference("urn:pulumi:dev::project::dws:index:GpuNetwork::net")
    good = schema_inputs(group, A4_GROUP) | {"gpuNetwork": net}
    _, failures = host.check(type_token(group.name), "g", {}, good)
    assert failures == []
    _, failures = host.check(type_token(group.name), "g", {}, good | {"count": 0})
    assert [f.path for f in failures] == ["count"]
