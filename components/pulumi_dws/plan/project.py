"""Reading a Pulumi project directory: ``Pulumi.yaml`` and ``Pulumi.<stack>.yaml``."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

__all__ = [
    "PulumiProject",
    "StackConfig",
    "load_project",
    "load_stack_config",
    "SECRET_PLACEHOLDER",
]

SECRET_PLACEHOLDER = "[secret]"


class ProjectError(ValueError):
    """The directory is not a usable Pulumi Python project."""


@dataclass(frozen=True)
class PulumiProject:
    """The parts of ``Pulumi.yaml`` a plan needs."""

    directory: Path
    name: str
    runtime: str
    main: Path
    raw: dict[str, Any]

    @property
    def program(self) -> Path:
        """The program file: ``__main__.py`` in ``main`` (or ``main`` itself if it is a file)."""
        return self.main if self.main.suffix == ".py" else self.main / "__main__.py"


@dataclass(frozen=True)
class StackConfig:
    """Stack config as the Pulumi engine hands it to a program: ``ns:key`` -> string."""

    stack: str
    values: dict[str, str] = field(default_factory=dict)
    secret_keys: list[str] = field(default_factory=list)


def load_project(directory: str | Path) -> PulumiProject:
    """Parse and check ``Pulumi.yaml`` (name, python runtime, program present)."""
    root = Path(directory).resolve()
    path = next((root / n for n in ("Pulumi.yaml", "Pulumi.yml") if (root / n).is_file()), None)
    if path is None:
        raise ProjectError(f"{root}: no Pulumi.yaml here")
    try:
        raw = yaml.safe_load(path.read_text()) or {}
    except yaml.YAMLError as exc:
        raise ProjectError(f"{path}: not valid YAML: {exc}") from None
    if not isinstance(raw, dict) or not isinstance(raw.get("name"), str) or not raw["name"]:
        raise ProjectError(f"{path}: a Pulumi project needs a 'name'")
    runtime = raw.get("runtime")
    runtime_name = runtime.get("name") if isinstance(runtime, dict) else runtime
    if runtime_name != "python":
        raise ProjectError(f"{path}: runtime is {runtime_name!r}; dws plan runs python programs")
    main = (root / raw.get("main", ".")).resolve()
    project = PulumiProject(root, raw["name"], runtime_name, main, raw)
    if not project.program.is_file():
        raise ProjectError(f"{path}: program {project.program} not found")
    return project


def _qualify(key: str, project: str) -> str:
    return key if ":" in key else f"{project}:{key}"


def load_stack_config(project: PulumiProject, stack: str) -> StackConfig:
    """Read ``Pulumi.<stack>.yaml``; secure values stay encrypted and show as ``[secret]``.

    Project-level defaults (``config:`` in Pulumi.yaml with ``default``/``value``) apply
    first, as the engine does.
    """
    values: dict[str, str] = {}
    secrets: list[str] = []
    for key, spec in (project.raw.get("config") or {}).items():
        default = spec.get("value", spec.get("default")) if isinstance(spec, dict) else spec
        if default is not None:
            values[_qualify(key, project.name)] = _encode(default)
    path = project.directory / f"Pulumi.{stack}.yaml"
    if path.is_file():
        raw = yaml.safe_load(path.read_text()) or {}
        for key, value in (raw.get("config") or {}).items():
            full = _qualify(key, project.name)
            if isinstance(value, dict) and set(value) == {"secure"}:
                values[full] = SECRET_PLACEHOLDER
                secrets.append(full)
            else:
                values[full] = _encode(value)
    return StackConfig(stack, values, secrets)


def _encode(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    return json.dumps(value)
