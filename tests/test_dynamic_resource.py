"""A ``MigResizeRequest`` registers what ``pulumi.dynamic.Resource`` would: the same type, the
same ``__provider`` (a secret pickle that loads back to its provider), its serialization made
once per provider."""

from __future__ import annotations

import base64
from typing import Any

import dill
import pulumi.dynamic as dyn
import pytest

from pulumi_dws.kinds.flex_group.provider import MigResizeRequest, MigResizeRequestProvider
from pulumi_dws.providers import dynamic_resource
from pulumi_dws.testing import GcpMocks


class _Plain(dyn.Resource, module="dws", name="MigResizeRequest"):
    """The same type registered through ``pulumi.dynamic.Resource.__init__``."""

    def __init__(self, name: str, props: dict[str, Any], provider: Any) -> None:
        super().__init__(provider, name, props)


PROPS: dict[str, Any] = {
    "project": "p", "zone": "us-central1-a", "region": None, "group": "g", "name": "g",
    "body": {"name": "g", "resizeBy": 4}, "waitFor": "running",
}  # fmt: skip


def _providers(program: Any) -> list[Any]:
    seen: list[Any] = []

    class Capture(GcpMocks):
        def new_resource(self, args: Any) -> Any:
            seen.append((args.typ, args.inputs.get("__provider")))
            return super().new_resource(args)

    Capture(project="p").run(program)
    return seen


def test_the_registration_equals_pulumi_dynamic_s() -> None:
    provider = MigResizeRequestProvider()

    def ours() -> None:
        MigResizeRequest("a", dict(PROPS), provider=provider)

    def theirs() -> None:
        _Plain("a", {k: None for k in ("state", "observed")} | dict(PROPS), provider)

    assert _providers(ours)[0] == _providers(theirs)[0]
    typ, text = _providers(ours)[0]
    assert typ == "pulumi-python:dynamic/dws:MigResizeRequest"
    assert isinstance(dill.loads(base64.b64decode(text)), MigResizeRequestProvider)


def test_a_provider_is_serialized_once_while_it_is_unchanged(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[Any] = []
    real = dynamic_resource._serialize

    def counting(*args: Any) -> Any:
        calls.append(args)
        return real(*args)

    monkeypatch.setattr(dynamic_resource, "_serialize", counting)
    provider = MigResizeRequestProvider()

    def program() -> None:
        for i in range(5):
            MigResizeRequest(f"r{i}", dict(PROPS, name=f"r{i}"), provider=provider)

    GcpMocks(project="p").run(program)
    assert len(calls) == 1
    provider.endpoint = "http://127.0.0.1:1/"  # another provider state: serialized again
    GcpMocks(project="p").run(program)
    assert len(calls) == 2


def test_a_provider_key_in_the_props_is_refused() -> None:
    with pytest.raises(ValueError, match="__provider"):
        GcpMocks(project="p").run(lambda: MigResizeRequest("a", {**PROPS, "__provider": "x"}))
