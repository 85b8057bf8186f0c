"""Each field of a component is declared alike twice: in its args TypedDict (what users write
and their editor checks) and its spec (what is validated). Nothing else keeps them in step."""

from __future__ import annotations

from typing import Annotated, Any, Literal, TypedDict

import pulumi
import pytest
from typing_extensions import NotRequired, Required

import pulumi_dws
from pulumi_dws import registry
from pulumi_dws.duration import Duration, DurationLike
from pulumi_dws.fields import DurationWithin, MaybeOutput, Zone
from pulumi_dws.models import DwsModel, args_mismatches

KINDS = registry.kinds()


@pytest.mark.parametrize("kind", KINDS, ids=[k.name for k in KINDS])
def test_each_field_is_declared_alike_in_args_and_spec(kind: registry.CapacityKind) -> None:
    assert args_mismatches(kind.args, kind.spec) == []
    assert kind.args.__name__ in pulumi_dws.__all__ and kind.name in pulumi_dws.__all__


class _Nested(TypedDict, total=False):
    id: Required[str]
    size: int


class _Args(TypedDict, total=False):
    zone: Required[str | pulumi.Output[str]]
    run: NotRequired[DurationLike]
    mode: Literal["a", "b"]
    nested: list[_Nested]
    only_here: str


class _NestedSpec(DwsModel):
    id: str
    size: str = "1"


class _Spec(DwsModel):
    zone: MaybeOutput[Zone] | None = None
    run: Annotated[Duration, DurationWithin("calendar.duration")] | None = None
    mode: str = "a"
    nested: list[_NestedSpec] = []
    only_there: Any = None


def test_a_field_declared_differently_is_found() -> None:
    assert sorted(args_mismatches(_Args, _Spec)) == [
        "nested.size: int in _Nested, str in _NestedSpec",
        "only_here: in _Args, not in _Spec",
        "only_there: in _Spec, not in _Args",
        "zone: optional in _Spec, not in _Args",
    ]
