"""The components' dynamic resources as the ``dws`` provider serves them to programs in other
languages (``dws:dynamic:<Name>``), over gRPC, against the emulated Cloud TPU API: what
``Construct`` registers is what the same provider process then checks, creates, reads, diffs
and deletes, with the provider class its ``__provider`` names, configured from the package's
config (``tpuEndpoint``) as a dynamic provider is from ``dws:tpuEndpoint``."""

from __future__ import annotations

import base64
import os
import pickle
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from queued_tpu_helpers import PATH, PROJECT, QR, ZONE, props

from pulumi_dws.package.served import dynamic_type, load_provider, served_type
from pulumi_dws.testing import GcpMocks
from pulumi_dws.testing.component_host import ComponentProviderHost, ProviderCallError
from pulumi_dws.testing.emulator import Emulator
from pulumi_dws.testing.emulator.tpu import TpuService

SERVED = "dws:dynamic:QueuedTpu"


@pytest.fixture(scope="module")
def emulator() -> Iterator[Emulator]:
    with Emulator([]) as emu:
        emu.add(TpuService(emu.clock))
        yield emu


@pytest.fixture(scope="module")
def host(emulator: Emulator) -> Iterator[ComponentProviderHost]:
    assert "DWS_TPU_ENDPOINT" not in os.environ  # the endpoint comes from the package config
    with ComponentProviderHost(env={"DWS_VIRTUAL_CLOCK_URL": emulator.clock_url}) as running:
        running.configure({"tpuEndpoint": emulator.url})
        yield running


@pytest.fixture
def tpu(emulator: Emulator) -> Iterator[TpuService]:
    service: TpuService = emulator["tpu"]
    yield service
    for key in service.queued_resources():
        service.remove(*key)
    service.take_all_chips(ZONE, "v6e")


def _constructed_inputs(host: ComponentProviderHost) -> dict[str, Any]:
    """The served resource's inputs as ``Construct`` of a ``QueuedTpu`` registers them."""
    with host.deployment(mocks=GcpMocks(project=PROJECT)) as deployment:
        deployment.construct(
            "dws:index:QueuedTpu",
            "trainer",
            {
                "zone": ZONE,
                "acceleratorType": "v6e-16",
                "maxRunDuration": "1d",
                "requestValidFor": "2h",
                "queuedResourceId": QR,
            },
        )
    resource = next(r for r in deployment.registered if r.type == SERVED)
    return {k: v for k, v in resource.inputs.items() if v is not None}


def test_served_and_dynamic_types_name_each_other() -> None:
    assert served_type("pulumi-python:dynamic/dws:QueuedTpu") == SERVED
    assert dynamic_type(SERVED) == "pulumi-python:dynamic/dws:QueuedTpu"
    assert served_type("gcp:compute/instance:Instance") is None
    assert dynamic_type("dws:index:QueuedTpu") is None


def test_what_construct_registers_the_provider_creates_and_deletes(
    host: ComponentProviderHost, tpu: TpuService
) -> None:
    inputs = _constructed_inputs(host)
    # the request is named as asked; the program's stack identity rides along (owner)
    assert {k: v for k, v in inputs.items() if k not in ("__provider", "owner")} == props()
    assert inputs["owner"]["stack"] and inputs["owner"]["name"] == "trainer-queued-resource"
    checked, failures = host.check(SERVED, "trainer-queued-resource", {}, inputs)
    assert failures == [] and checked == inputs
    tpu.add_chips(ZONE, "v6e", 16, after=1800)  # capacity in 30 minutes: the request queues
    rid, outs = host.create(SERVED, "trainer-queued-resource", checked)
    assert rid == PATH and outs["state"] == "ACTIVE"
    assert outs["__provider"] == inputs["__provider"]
    assert tpu.queued_resource(PROJECT, ZONE, QR) is not None
    diff = host.diff(SERVED, "trainer-queued-resource", rid, outs, inputs)
    assert diff.changes == diff.DIFF_NONE
    read_id, read_outs = host.read(SERVED, "trainer-queued-resource", rid, outs)
    assert read_id == rid and read_outs["state"] == "ACTIVE"
    host.delete(SERVED, "trainer-queued-resource", rid, outs)
    assert tpu.queued_resource(PROJECT, ZONE, QR) is None


def test_check_reports_the_providers_own_failures(host: ComponentProviderHost) -> None:
    inputs = _constructed_inputs(host)
    broken = {**inputs, "body": {**inputs["body"], "tpu": {"nodeSpec": "one"}}}
    _, failures = host.check(SERVED, "trainer-queued-resource", {}, broken)
    assert [f.path for f in failures] == ["body"]
    assert "nodeSpec must be a list" in failures[0].reason


class _Planted:
    """A pickle that, loaded by an ordinary unpickler, would make a directory."""

    def __init__(self, path: str) -> None:
        self.path = path

    def __reduce__(self) -> tuple[Any, ...]:
        return (os.mkdir, (self.path,))


def test_a_provider_that_is_not_pulumi_dws_is_never_loaded(
    host: ComponentProviderHost, tmp_path: Path
) -> None:
    planted = tmp_path / "planted"
    payload = base64.b64encode(pickle.dumps(_Planted(str(planted)))).decode()
    inputs = {**props(), "__provider": payload}
    for call in (
        lambda: host.create(SERVED, "x", inputs),
        lambda: host.check(SERVED, "x", {}, inputs),
        lambda: host.delete(SERVED, "x", PATH, inputs),
    ):
        with pytest.raises(ProviderCallError) as info:
            call()
        assert info.value.code == grpc.StatusCode.INVALID_ARGUMENT
        assert "mkdir is not a pulumi-dws dynamic provider" in info.value.message
    assert not planted.exists()
    with pytest.raises(ProviderCallError) as missing:
        host.create(SERVED, "x", props())
    assert "the resource has no __provider" in missing.value.message
    assert host.returncode is None


def test_load_provider_refuses_damage() -> None:
    with pytest.raises(Exception, match="not a pickled provider"):
        load_provider("not base64!")
    with pytest.raises(Exception, match="holds a dict"):
        load_provider(base64.b64encode(pickle.dumps({"a": 1})).decode())


def _dynamic_examples() -> list[Any]:
    from pulumi_dws.testing.samples import examples

    return [e for e in examples() if e.type.startswith("pulumi-python:dynamic/dws:")]


@pytest.mark.parametrize("example", _dynamic_examples(), ids=str)
def test_the_policy_rules_read_a_served_resource_as_its_dynamic_twin(example: Any) -> None:
    """A program in another language puts ``dws:dynamic:<Name>`` in its stack: the policy
    pack judges it as the Python program's ``pulumi-python:dynamic/dws:<Name>``."""
    from pulumi_dws import clock
    from pulumi_dws.policy import ResourceView, evaluate
    from pulumi_dws.testing.samples import SAMPLE_NOW

    token = served_type(example.type)
    assert token is not None

    def found(type_: str) -> list[tuple[str, str]]:
        view = ResourceView(type_, "r", f"urn:pulumi:dev::p::{type_}::r", example.props())
        with clock.frozen(SAMPLE_NOW):
            return [
                (v.rule, v.message.replace(type_, "<type>"))
                for v in evaluate([view], {example.rule: example.config or {}})
            ]

    dynamic = found(example.type)
    assert any(rule == example.rule for rule, _ in dynamic)
    assert found(token) == dynamic


def _global_call(module: str, name: str, *args: str) -> str:
    """A ``__provider`` value whose pickle calls ``module``'s ``name`` (protocol 4: a dotted
    name is looked up attribute by attribute) with ``args``."""
    out = b"\x80\x04"
    for text in (module, name):
        raw = text.encode()
        out += b"\x8c" + bytes([len(raw)]) + raw
    out += b"\x93"  # STACK_GLOBAL
    for text in args:
        raw = text.encode()
        out += b"\x8c" + bytes([len(raw)]) + raw
    out += bytes([0x85 if len(args) == 1 else 0x86]) + b"R."  # TUPLE1/2, REDUCE, STOP
    return base64.b64encode(out).decode()


@pytest.mark.parametrize(
    ("module", "name"),
    [
        # Through a pulumi-dws module, what it imported: os.mkdir.
        ("pulumi_dws.testing.component_host.host", "os.mkdir"),
        ("pulumi_dws.package.served", "threading._os.mkdir"),
        ("pulumi_dws.testing.dynamic_host.process", "subprocess.os.system"),
    ],
)
def test_a_pulumi_dws_module_is_no_way_to_other_code(
    module: str, name: str, tmp_path: Path
) -> None:
    planted = tmp_path / "planted"
    args = (str(planted),) if name.endswith("mkdir") else (f"mkdir '{planted}'",)
    with pytest.raises(Exception, match="is not a pulumi-dws dynamic provider"):
        load_provider(_global_call(module, name, *args))
    assert not planted.exists()


def test_only_provider_classes_load() -> None:
    # A pulumi-dws class that is no provider (its constructor could do anything).
    payload = _global_call("pulumi_dws.testing.emulator", "Emulator", "x")
    with pytest.raises(Exception, match="is not a pulumi-dws dynamic provider"):
        load_provider(payload)


def test_every_provider_a_component_registers_loads() -> None:
    """The pickles every component's dynamic resources carry (and the old ones in users'
    state) still load through the served path."""
    from test_provider_pickles import STATE_BEFORE_THE_MOVE

    from pulumi_dws import registry
    from pulumi_dws.testing.component_host import COMPONENT_ARGS
    from pulumi_dws.testing.dynamic_host import unwrap_secrets

    found: dict[str, str] = {}
    for kind in registry.kinds():
        mocks = GcpMocks()
        mocks.run(lambda kind=kind: kind.component("c", dict(COMPONENT_ARGS[kind.name])))
        for resource in mocks.registered:
            if "__provider" in resource.inputs:
                found[resource.type] = unwrap_secrets(resource.inputs["__provider"])
    assert found  # the components register dynamic resources
    for serialized in [*found.values(), *(text for text, _ in STATE_BEFORE_THE_MOVE.values())]:
        assert load_provider(serialized) is not None


def test_waiting_creates_leave_the_plugin_answering(emulator: Emulator, tpu: TpuService) -> None:
    """A TPU slice waits in the queue for hours: a program of several slices has as many
    creates waiting in the plugin at once. Each reaches the API, and the plugin's other calls
    (a check, a component's registrations) are still answered."""
    import time
    from concurrent.futures import ThreadPoolExecutor

    waiting = 8  # more than the threads Python's default executor has on a 2-core machine
    # No virtual clock: the creates wait in real time, until the plugin stops.
    with ComponentProviderHost(rpc_timeout=15, shutdown_grace=1) as plugin:
        plugin.configure({"tpuEndpoint": emulator.url})
        inputs = _constructed_inputs(plugin)
        node = inputs["body"]["tpu"]["nodeSpec"][0]
        with ThreadPoolExecutor(waiting) as pool:
            for i in range(waiting):
                qr = f"waiting{i}"
                body = {**inputs["body"], "tpu": {"nodeSpec": [{**node, "nodeId": qr}]}}
                props = {**inputs, "queuedResourceId": qr, "body": body}
                pool.submit(plugin.create, SERVED, qr, props)
            deadline = time.monotonic() + 10
            while len(tpu.queued_resources()) < waiting and time.monotonic() < deadline:
                time.sleep(0.05)
            assert len(tpu.queued_resources()) == waiting  # every create is in its wait
            _, failures = plugin.check(SERVED, "another", {}, inputs)
            assert failures == []
            _constructed_inputs(plugin)  # a component's registrations go through
            plugin.close()  # ends the waits (their calls fail: the plugin is gone)
