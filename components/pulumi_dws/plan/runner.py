"""Running a Pulumi Python program offline, in preview mode, under :class:`GcpMocks`."""

from __future__ import annotations

import contextlib
import os
import runpy
import sys
import traceback
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pulumi.runtime import config, rpc

from .. import limits, regions
from ..errors import DwsValidationError
from ..policy.view import ResourceView
from ..testing.mocks import GcpMocks, Registered
from .project import (
    SECRET_PLACEHOLDER,
    PulumiProject,
    StackConfig,
    StackNotFoundError,
    load_project,
    load_stack_config,
    short_stack_name,
)
from .summary import key_properties

__all__ = ["Plan", "PlannedResource", "PlanError", "UnknownStackError", "run_plan"]


class PlanError(Exception):
    """The program could not be planned: a validation error, a program error, a bad project."""


class UnknownStackError(PlanError):
    """The stack has no config file, and the project has other stacks (a typo in --stack?)."""


@dataclass
class PlannedResource:
    """One resource the program would register, with the properties worth showing."""

    urn: str
    type: str
    name: str
    parent: str
    custom: bool
    properties: dict[str, Any]
    inputs: dict[str, Any]
    """The inputs as shown: secret values are ``[secret]``."""
    protect: bool = False
    raw_inputs: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)
    """The inputs with secret values (wire-format wrappers), for the policy rules only:
    ``pulumi preview --policy-pack`` hands rules the plain values too."""

    @classmethod
    def of(cls, reg: Registered, stack: Sequence[Registered] = ()) -> PlannedResource:
        """``reg`` as planned; ``stack``: every registration (a resize request's GPUs are its
        group's template's)."""
        raw = {k: v for k, v in reg.inputs.items() if k != "__provider"}
        shown = _mask_secrets(raw)
        return cls(
            urn=reg.urn,
            type=reg.type,
            name=reg.name,
            parent=reg.parent,
            custom=reg.custom,
            properties=key_properties(
                reg.type, shown, ResourceView.from_registered(reg), [r for r in stack if r.custom]
            ),
            inputs=shown,
            protect=reg.protect,
            raw_inputs=raw,
        )


@dataclass
class Plan:
    """What ``pulumi up`` would create, as seen offline."""

    project: PulumiProject
    stack: StackConfig
    resources: list[PlannedResource]
    outputs: dict[str, Any]
    registered: list[Registered] = field(default_factory=list)


@contextlib.contextmanager
def _program_context(project: PulumiProject) -> Iterator[None]:
    """cwd and sys.path as the Pulumi language host sets them; undone afterwards.

    The engine runs a program in its ``main`` directory (the project directory unless
    Pulumi.yaml says ``main:``), with that directory first on ``sys.path``. The limits table
    is the program's own too (a ``pulumi up`` starts a fresh process): the ``dws:limits``
    a program applies are dropped when it ends.
    """
    saved_cwd, saved_path = os.getcwd(), list(sys.path)
    saved_modules = set(sys.modules)
    saved_limits, saved_regions = limits.snapshot(), regions.snapshot()
    saved_config = dict(config.CONFIG.get())
    program_dir = str(project.program.parent)
    os.chdir(program_dir)
    sys.path.insert(0, program_dir)
    try:
        yield
    finally:
        os.chdir(saved_cwd)
        sys.path[:] = saved_path
        limits.restore(saved_limits)
        regions.restore(saved_regions)
        config.CONFIG.set(saved_config)  # the stack's dws:limits and dws:regions end with it
        for name in set(sys.modules) - saved_modules:
            if _is_program_module(name, Path(program_dir)):
                del sys.modules[name]


def _is_program_module(name: str, program_dir: Path) -> bool:
    """True for modules imported from the program's own directory (its helpers), which must
    not leak into the next plan; never for libraries, even when a virtualenv lives there."""
    top = name.split(".")[0]
    module = sys.modules.get(name)
    origin = getattr(module, "__file__", None) or ""
    for candidate in (program_dir / f"{top}.py", program_dir / top):
        if candidate.exists() and origin.startswith(str(candidate)):
            return True
    return False


def _where(exc: BaseException, program_dir: Path) -> str:
    """``file:line`` of the deepest frame inside the program, for error messages."""
    frames = [
        f
        for f in traceback.extract_tb(exc.__traceback__)
        if f.filename.startswith(str(program_dir))
    ]
    if not frames:
        return ""
    frame = frames[-1]
    return f" (at {os.path.relpath(frame.filename)}:{frame.lineno})"


def run_plan(
    directory: str | Path = ".",
    stack: str = "dev",
    *,
    mocks: GcpMocks | None = None,
    preview: bool = True,
) -> Plan:
    """Plan the Pulumi project in ``directory`` for ``stack`` without credentials.

    Raises :class:`PlanError` with a one-line message for a bad project, a validation error or
    an exception in the program (:class:`UnknownStackError` for a stack with no config file in
    a project that has others). ``preview=False`` runs it as ``pulumi up`` (for mocks that
    create resources, :mod:`pulumi_dws.testing.emulated`). Resources are listed parents
    first; siblings after what they depend on, else by name: the same program gives the same
    plan every time.
    """
    try:
        project = load_project(directory)
        config = load_stack_config(project, stack)
    except StackNotFoundError as exc:
        raise UnknownStackError(str(exc)) from None
    except ValueError as exc:
        raise PlanError(str(exc)) from None
    mocks = mocks or GcpMocks(project=_gcp_project(config))

    def program() -> None:
        try:
            runpy.run_path(str(project.program), run_name="__main__")
        except SystemExit as exc:
            if exc.code not in (None, 0):  # sys.exit() / sys.exit(0): a normal end
                raise

    with _program_context(project):
        try:
            outputs = mocks.run_program(
                program,
                project=project.name,
                stack=short_stack_name(stack),
                preview=preview,
                config=config.values,
                secret_keys=config.secret_keys,
            )
        except DwsValidationError as exc:
            raise PlanError(f"invalid configuration: {exc}") from None
        except SystemExit as exc:
            status = exc.code if isinstance(exc.code, int) else 1
            why = "" if isinstance(exc.code, int) else f": {exc.code}"
            raise PlanError(f"the program exited with status {status}{why}") from None
        except Exception as exc:  # noqa: BLE001 - any program error becomes one clear line
            where = _where(exc, project.program.parent)
            raise PlanError(f"the program failed{where}: {_one_line(exc)}") from None
    registered = _tree_order(mocks.registered)
    resources = [PlannedResource.of(r, registered) for r in registered]
    return Plan(project, config, resources, _mask_secrets(outputs), registered)


def _one_line(exc: BaseException) -> str:
    """``Type: message`` on one line (Pulumi's wrapped errors span several)."""
    text = " ".join(part.strip() for part in str(exc).splitlines() if part.strip())
    return f"{type(exc).__name__}: {text}"


def _tree_order(registered: list[Registered]) -> list[Registered]:
    """A stable order, like the one Pulumi shows: parents before their children, and among
    siblings a resource after those it depends on (through its own or its children's
    inputs); otherwise by name, then type. (Registrations that wait for other resources'
    outputs reach the mocks in an order that varies with timing.)"""
    known = {r.urn for r in registered}
    children: dict[str, list[Registered]] = {}
    for r in registered:
        children.setdefault(r.parent if r.parent in known else "", []).append(r)

    def subtree(r: Registered) -> list[Registered]:
        found = [r]
        for child in children.get(r.urn, []):
            found.extend(subtree(child))
        return found

    ordered: list[Registered] = []

    def walk(parent: str) -> None:
        siblings = children.get(parent, [])
        owner = {m.urn: s.urn for s in siblings for m in subtree(s)}
        after: dict[str, set[str]] = {
            s.urn: {owner[d] for m in subtree(s) for d in m.dependencies if d in owner} - {s.urn}
            for s in siblings
        }
        pending = sorted(siblings, key=lambda r: (r.name, r.type, r.urn))
        placed: set[str] = set()
        while pending:
            ready = next((r for r in pending if after[r.urn] <= placed), pending[0])
            pending.remove(ready)
            placed.add(ready.urn)
            ordered.append(ready)
            walk(ready.urn)

    walk("")
    return ordered


def _mask_secrets(value: Any) -> Any:
    """Secret values (wire-format wrappers) are shown as ``[secret]``, never their value."""
    if rpc.is_rpc_secret(value):
        return SECRET_PLACEHOLDER
    if isinstance(value, dict):
        return {k: _mask_secrets(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_mask_secrets(v) for v in value]
    return value


def _gcp_project(config: StackConfig) -> str:
    return config.values.get("gcp:project", "mock-project")
