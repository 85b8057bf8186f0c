"""How the emulator is built: every method of the packaged discovery documents is answered by a
handler found by convention, every store resets to what a fresh one holds, and every rule an
emulated API enforces names the page that documents it."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any, ClassVar

import pytest
import requests

from pulumi_dws.testing.clock_helpers import flex_start_body, flex_start_group
from pulumi_dws.testing.emulator import Emulator, Request, Response, VirtualClock
from pulumi_dws.testing.emulator.aiplatform.rules import cluster_schema
from pulumi_dws.testing.emulator.compute.group_rules import GROUP_RULES, REQUEST_RULES
from pulumi_dws.testing.emulator.compute.instance_rules import INSERT_RULES
from pulumi_dws.testing.emulator.discovery import PACKAGED, DiscoverySchema
from pulumi_dws.testing.emulator.routing import Api, discovered_routes, methods_of
from pulumi_dws.testing.emulator.rules import Rules
from pulumi_dws.testing.emulator.server import default_services
from pulumi_dws.testing.emulator.store import Store
from pulumi_dws.testing.emulator.tpu.queued_resource_rules import CREATE_RULES

PROJECT, ZONE = "p", "us-central1-a"


@pytest.fixture
def emu() -> Iterator[Emulator]:
    with Emulator() as emulator:
        yield emulator


def _resources(document: dict[str, Any], prefix: str = "") -> Iterator[str]:
    for name, node in (document.get("resources") or {}).items():
        path = f"{prefix}{name}"
        if node.get("methods"):
            yield path
        yield from _resources(node, path + ".")


def _documents() -> list[DiscoverySchema]:
    packaged = [json.loads(p.read_text()) for p in sorted(PACKAGED.glob("*.json"))]
    out = [DiscoverySchema(d) for d in packaged if d["name"] != "aiplatform"]
    return [*out, cluster_schema()]


def _sample_path(schema: DiscoverySchema, flat: str) -> str:
    filled = re.sub(r"\{[^}]+\}", lambda m: "us-central1" if "region" in m.group() else "x1", flat)
    return "/" + str(schema.document.get("servicePath") or "") + filled


@pytest.mark.parametrize("schema", _documents(), ids=lambda s: s.name)
def test_every_method_of_the_documents_is_routed(emu: Emulator, schema: DiscoverySchema) -> None:
    """No method of a packaged document is left without a handler (a 404 naming no API path
    would say so): the document and the handlers cannot drift apart."""
    for resource in _resources(dict(schema.document)):
        for method in methods_of(schema.document, resource):
            answer = emu.dispatch(Request(method.http, _sample_path(schema, method.flat), {}, None))
            unrouted = "No such API path" in json.dumps(answer.body)
            assert not unrouted, (method.id, answer.body)


class _Half(Api):
    resources: ClassVar[tuple[str, ...]] = ("instances",)

    def get(self, req: Request) -> Response:
        return Response(200, {})


def test_a_method_without_a_handler_is_an_error_when_routes_are_built() -> None:
    with pytest.raises(TypeError, match=r"no handler insert\(\) for compute.instances.insert"):
        discovered_routes(DiscoverySchema.load("compute", "v1"), [_Half()])


def test_routes_name_path_parameters_as_the_document_does(emu: Emulator) -> None:
    """A one-platform flat path's ``queuedResourcesId`` reaches the handler as
    ``queuedResource``; Compute's ``instance`` as it is."""
    seen: list[dict[str, str]] = []

    class Spy(Api):
        resources: ClassVar[tuple[str, ...]] = ("projects.locations.queuedResources",)

        def __getattr__(self, name: str) -> Any:
            def handler(req: Request) -> Response:
                seen.append(dict(req.params))
                return Response(200, {})

            return handler

    routes = discovered_routes(DiscoverySchema.load("tpu", "v2alpha1"), [Spy()])
    path = "/v2alpha1/projects/p/locations/us-east5-a/queuedResources/qr-1"
    route = next(r for r in routes if r.method == "GET" and r.pattern.match(path))
    match = route.pattern.match(path)
    assert match is not None
    assert match.groupdict() == {"project": "p", "location": "us-east5-a", "queuedResource": "qr-1"}


# ---------------------------------------------------------------------------- reset


class _Counter(Store):
    def __init__(self, start: int, shared: list[int]) -> None:
        self.start = start
        self.shared = shared
        self.items: list[int] = []

    def add(self) -> None:
        self.items.append(self.start + len(self.items))


def test_a_store_resets_by_being_made_again() -> None:
    shared: list[int] = [1]
    store = _Counter(10, shared)
    store.add()
    store.late = "set after construction"  # type: ignore[attr-defined]
    store.reset()
    assert store.items == [] and store.start == 10 and store.shared is shared
    assert not hasattr(store, "late")  # nothing kept by hand
    store.add()
    assert store.items == [10]


def test_compute_reset_forgets_resources_request_ids_and_capacity(emu: Emulator) -> None:
    compute = emu["compute"]
    compute.add_capacity(ZONE, "a3-highgpu-8g", 2)
    flex_start_group(emu, "g")
    url = f"{emu.url}compute/v1/projects/{PROJECT}/zones/{ZONE}/instances"
    rid = "0b4c1b7e-2a53-4f61-9c1a-8f0e1d2c3b4a"
    body = flex_start_body("vm-1", zone=ZONE, machine_type="a3-highgpu-8g", max_run=3600)
    assert requests.post(url, json=body, params={"requestId": rid}, timeout=10).ok
    assert compute.instances() and compute.groups() and compute.created
    compute.reset()
    assert compute.instances() == [] and compute.groups() == [] and compute.created == []
    assert compute.capacity.available(ZONE, "a3-highgpu-8g") == 0
    compute.add_capacity(ZONE, "a3-highgpu-8g", 1)
    again = requests.post(url, json=body, params={"requestId": rid}, timeout=10).json()
    assert again["status"] == "DONE" and len(compute.created) == 1  # the id was forgotten


def test_tpu_and_vertex_resets_forget_everything_scripted(emu: Emulator) -> None:
    tpu, vertex = emu["tpu"], emu["aiplatform"]
    tpu.fail_next()
    tpu.lose_answers("POST")
    vertex.fail_next("create")
    vertex.lose_answers("DELETE", 2)
    tpu.reset()
    vertex.reset()
    assert tpu.lost == {} and tpu.store.fail_next == [] and tpu.created == []
    assert vertex.lost == {} and vertex.failures == {"create": [], "update": [], "delete": []}


def test_tpu_reset_forgets_queued_resources_and_capacity(emu: Emulator) -> None:
    """As Compute's: a reset leaves no chips behind, neither those still free nor those a
    forgotten request held (they would come back to no one)."""
    tpu = emu["tpu"]
    zone = "us-east5-a"
    tpu.add_chips(zone, "v6e", 32)
    url = f"{emu.url}v2alpha1/projects/{PROJECT}/locations/{zone}/queuedResources"
    node = {"acceleratorType": "v6e-16", "runtimeVersion": "v2-alpha-tpuv6e"}
    body = {
        "tpu": {
            "nodeSpec": [
                {"parent": f"projects/{PROJECT}/locations/{zone}", "nodeId": "n", "node": node}
            ]
        },
        "spot": {},
    }
    answer = requests.post(url, json=body, params={"queuedResourceId": "qr"}, timeout=10)
    assert answer.ok, answer.text
    emu.clock.advance(3600)  # accepted and provisioned: it holds 16 chips
    assert tpu.queued_resource(PROJECT, zone, "qr")["state"]["state"] == "ACTIVE"
    tpu.reset()
    assert tpu.queued_resources() == []
    assert tpu.capacity.available(zone, "v6e") == 0
    tpu.add_chips(zone, "v6e", 16)
    assert tpu.capacity.available(zone, "v6e") == 16


# ---------------------------------------------------------------------------- rules


def _declared_rules() -> tuple[Rules[Any], ...]:
    default_services(VirtualClock())  # imports every emulated API's package
    return Rules.declared()


def test_every_emulated_api_declares_its_rules() -> None:
    whats = {rules.what for rules in _declared_rules()}
    named = {INSERT_RULES, GROUP_RULES, REQUEST_RULES, CREATE_RULES}
    assert {rules.what for rules in named} <= whats
    assert {
        "aiplatform.projects.locations.customJobs.create",
        "aiplatform.projects.locations.endpoints.deployModel",
        "batch.projects.locations.jobs.create",
    } <= whats


@pytest.mark.parametrize("rules", _declared_rules(), ids=lambda r: r.what)
def test_every_rule_names_the_page_that_documents_it(rules: Rules[Any]) -> None:
    assert len(rules) > 0
    for rule in rules:
        cited = "https://" in rule.source or "discovery document" in rule.source
        assert cited, (rule.name, rule.source)


def test_a_rule_without_a_source_is_refused() -> None:
    rules: Rules[int] = Rules("example", declare=False)
    with pytest.raises(ValueError, match="names the page"):
        rules.rule(" ")
