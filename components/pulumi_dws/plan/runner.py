"""Running a Pulumi Python program offline, in preview mode, under :class:`GcpMocks`."""

from __future__ import annotations

import contextlib
import os
import runpy
import sys
import traceback
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pulumi.runtime import rpc

from ..errors import DwsValidationError
from ..testing.mocks import GcpMocks, Registered
from .project import (
    SECRET_PLACEHOLDER,
    PulumiProject,
    StackConfig,
    load_project,
    load_stack_config,
)
from .summary import key_properties

__all__ = ["Plan", "PlannedResource", "PlanError", "run_plan"]


class PlanError(Exception):
    """The program could not be planned: a validation error, a program error, a bad project."""


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
    protect: bool = False

    @classmethod
    def of(cls, reg: Registered) -> PlannedResource:
        return cls(
            urn=reg.urn,
            type=reg.type,
            name=reg.name,
            parent=reg.parent,
            custom=reg.custom,
            properties=key_properties(reg.type, reg.inputs),
            inputs={k: v for k, v in reg.inputs.items() if k != "__provider"},
            protect=reg.protect,
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
    """cwd and sys.path as the Pulumi language host sets them; undone afterwards."""
    saved_cwd, saved_path = os.getcwd(), list(sys.path)
    saved_modules = set(sys.modules)
    program_dir = str(project.program.parent)
    os.chdir(project.directory)
    sys.path.insert(0, program_dir)
    try:
        yield
    finally:
        os.chdir(saved_cwd)
        sys.path[:] = saved_path
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
) -> Plan:
    """Plan the Pulumi project in ``directory`` for ``stack`` without credentials.

    Raises :class:`PlanError` with a one-line message for a bad project, a validation error or
    an exception in the program.
    """
    try:
        project = load_project(directory)
    except ValueError as exc:
        raise PlanError(str(exc)) from None
    config = load_stack_config(project, stack)
    mocks = mocks or GcpMocks(project=_gcp_project(config))
    with _program_context(project):
        try:
            outputs = mocks.run_program(
                lambda: runpy.run_path(str(project.program), run_name="__main__"),
                project=project.name,
                stack=stack,
                preview=True,
                config=config.values,
                secret_keys=config.secret_keys,
            )
        except DwsValidationError as exc:
            raise PlanError(f"invalid configuration: {exc}") from None
        except SystemExit as exc:
            raise PlanError(f"the program exited with status {exc.code}") from None
        except Exception as exc:  # noqa: BLE001 - any program error becomes one clear line
            where = _where(exc, project.program.parent)
            raise PlanError(f"the program failed{where}: {type(exc).__name__}: {exc}") from None
    resources = [PlannedResource.of(r) for r in mocks.registered]
    return Plan(project, config, resources, _mask_secrets(outputs), list(mocks.registered))


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
