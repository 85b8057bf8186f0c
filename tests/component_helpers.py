"""What the component tests share: arguments built from a module's defaults, and one component
registered under :class:`~pulumi_dws.testing.GcpMocks`."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any, TypeVar

from pulumi_dws.testing import GcpMocks

C = TypeVar("C")


def args_with(defaults: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    """``defaults`` with ``over`` applied; a field given as ``None`` is left out."""
    return {k: v for k, v in {**defaults, **over}.items() if v is not None}


def build_component(
    make: Callable[[], C], settle: Callable[[C], Any] | None = None
) -> tuple[GcpMocks, C]:
    """Run a program that makes one component (``make()``) under fresh ``GcpMocks``; the program
    returns ``settle(component)`` (outputs to wait for), when given. Returns the mocks and the
    component."""
    mocks = GcpMocks()
    made: list[C] = []

    def program() -> Any:
        made.append(make())
        return settle(made[0]) if settle else None

    mocks.run(program)
    return mocks, made[0]


def stack_default(
    name: str,
    *,
    project: str = "project",
    stack: str = "dev",
    organization: str = "organization",
    length: int = 6,
    separator: str = "-",
) -> str:
    """The default name pulumi-dws gives the resource of component ``name`` in a stack: the
    component's name, then ``length`` hex digits of the SHA-256 of
    ``organization/project/stack`` (what :class:`GcpMocks` runs: organization ``organization``,
    project ``project``, stack ``dev``)."""
    digest = hashlib.sha256(f"{organization}/{project}/{stack}".encode()).hexdigest()
    return f"{name}{separator}{digest[:length]}"
