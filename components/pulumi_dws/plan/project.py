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
    "ProjectError",
    "StackNotFoundError",
    "load_project",
    "load_stack_config",
    "stack_files",
    "SECRET_PLACEHOLDER",
]

SECRET_PLACEHOLDER = "[secret]"
SECURE_STAND_IN = "secret"
"""What a ``secure:`` value reads as in an offline plan (it is never decrypted): a word that
passes as a label value, a name or a script, so the entry still validates and plans. The key
holding it is marked secret, so the program treats what comes from it as secret and the plan
shows it as ``[secret]``."""
# The keys of a project config schema entry (Pulumi.yaml ``config:``); any other object is a value.
_SCHEMA_KEYS = {"type", "description", "default", "value", "secret", "items"}
_STACK_SUFFIXES = (".yaml", ".yml", ".json")


class _ConfigLoader(yaml.SafeLoader):
    """YAML as Pulumi hands stack config to a program: an unquoted date or time
    (``start_time: 2027-03-01T00:00:00Z``) stays the text written, as the engine passes it,
    not a Python ``datetime``."""


_ConfigLoader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


def load_yaml(text: str) -> Any:
    """Parse YAML the way stack config is read: dates and times stay text."""
    return yaml.load(text, Loader=_ConfigLoader)  # noqa: S506 - a SafeLoader subclass


class ProjectError(ValueError):
    """The directory is not a usable Pulumi Python project (or the stack's config is not)."""


class StackNotFoundError(ProjectError):
    """``--stack`` names a stack with no config file while the project has others (a typo?)."""


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
        raw = load_yaml(path.read_text()) or {}
    except yaml.YAMLError as exc:
        raise ProjectError(f"{path}: not valid YAML: {_one_line(exc)}") from None
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


def short_stack_name(stack: str) -> str:
    """``org/project/dev`` -> ``dev``: the name in ``Pulumi.dev.yaml`` and ``get_stack()``."""
    return stack.rstrip("/").split("/")[-1]


def _stack_dir(project: PulumiProject) -> Path:
    """Where the stack files live: the project directory, or its ``stackConfigDir``."""
    configured = project.raw.get("stackConfigDir")
    return (project.directory / configured).resolve() if configured else project.directory


def stack_files(project: PulumiProject) -> dict[str, Path]:
    """Every ``Pulumi.<stack>.yaml`` (``.yml``, ``.json``) of the project, by stack name."""
    found: dict[str, Path] = {}
    folder = _stack_dir(project)
    for suffix in _STACK_SUFFIXES:
        for path in sorted(folder.glob(f"Pulumi.*{suffix}")):
            stack = path.name[len("Pulumi.") : -len(suffix)]
            if stack and path.is_file():
                found.setdefault(stack, path)
    return found


def _is_secure(value: Any) -> bool:
    return isinstance(value, dict) and set(value) == {"secure"}


def _mask_secure(value: Any) -> tuple[Any, bool]:
    """``value`` with every ``{secure: ...}`` inside it replaced by :data:`SECURE_STAND_IN`; and
    whether there was one (the engine then hands the whole key to the program as a secret)."""
    if _is_secure(value):
        return SECURE_STAND_IN, True
    if isinstance(value, dict):
        pairs = {k: _mask_secure(v) for k, v in value.items()}
        return {k: v for k, (v, _) in pairs.items()}, any(s for _, s in pairs.values())
    if isinstance(value, list):
        items = [_mask_secure(v) for v in value]
        return [v for v, _ in items], any(s for _, s in items)
    return value, False


def _read_stack_file(path: Path) -> dict[str, Any]:
    try:
        raw = load_yaml(path.read_text()) or {}
    except yaml.YAMLError as exc:
        raise ProjectError(f"{path}: not valid YAML: {_one_line(exc)}") from None
    if not isinstance(raw, dict):
        raise ProjectError(f"{path}: a stack file is a mapping with a 'config' key")
    config = raw.get("config") or {}
    if not isinstance(config, dict):
        raise ProjectError(f"{path}: 'config' must be a mapping of keys to values")
    return config


def load_stack_config(project: PulumiProject, stack: str) -> StackConfig:
    """Read ``Pulumi.<stack>.yaml``; secure values stay encrypted (a top-level one reads as
    ``[secret]``, one inside a structured value as :data:`SECURE_STAND_IN`).

    Project-level config (``config:`` in Pulumi.yaml: a plain value, or a schema with
    ``default``/``value``) applies first, as the engine does; the engine's checks follow:
    a schema key without a default must be set, and set to a value of its ``type``.

    A stack without a config file is fine when the project has no stack files at all (a
    program that needs no config); when it has others, the name is more likely a typo, and
    :class:`StackNotFoundError` lists the stacks there are.
    """
    stack = short_stack_name(stack)
    values: dict[str, str] = {}
    secrets: list[str] = []
    schema = project.raw.get("config") or {}
    if not isinstance(schema, dict):
        raise ProjectError(f"{project.directory / 'Pulumi.yaml'}: 'config' must be a mapping")
    for key, spec in schema.items():
        is_schema = isinstance(spec, dict) and bool(set(spec) & _SCHEMA_KEYS)
        default = spec.get("value", spec.get("default")) if is_schema else spec
        if default is not None:
            values[_qualify(key, project.name)] = _encode(default)
    files = stack_files(project)
    path = files.get(stack)
    if path is None and files:
        raise StackNotFoundError(
            f"no config file for stack {stack!r} in {_stack_dir(project)}; its stacks: "
            f"{', '.join(sorted(files))} (for a stack without config, create "
            f"Pulumi.{stack}.yaml holding 'config: {{}}')"
        )
    if path is not None:
        for key, value in _read_stack_file(path).items():
            full = _qualify(str(key), project.name)
            masked, secret = _mask_secure(value)
            if _is_secure(value):
                masked = SECRET_PLACEHOLDER  # a whole secret value: shown, never validated
            values[full] = _encode(masked)
            if secret:
                secrets.append(full)
    _check_schema(project, stack, schema, values, secrets)
    return StackConfig(stack, values, secrets)


_TYPES = {"string", "integer", "boolean", "array"}


def _check_schema(
    project: PulumiProject,
    stack: str,
    schema: dict[str, Any],
    values: dict[str, str],
    secrets: list[str],
) -> None:
    """What the engine checks before it runs the program, with its wording."""
    for key, spec in schema.items():
        if not (isinstance(spec, dict) and set(spec) & _SCHEMA_KEYS):
            continue
        full = _qualify(key, project.name)
        if full not in values:
            if "type" in spec:
                raise ProjectError(f"Stack '{stack}' is missing configuration value '{key}'")
            continue
        if spec.get("secret") and full not in secrets:
            raise ProjectError(
                f"Stack '{stack}' with configuration key '{key}' must be encrypted as it's "
                "secret (pulumi config set --secret)"
            )
        kind = spec.get("type")
        if kind in _TYPES and full not in secrets and not _has_type(values[full], kind):
            raise ProjectError(
                f"Stack '{stack}' with configuration key '{key}' must be of type '{kind}'"
            )


def _has_type(text: str, kind: str) -> bool:
    if kind == "string":
        return True
    if kind == "boolean":
        return text in ("true", "false")
    try:
        parsed = json.loads(text)
    except ValueError:
        return False
    if kind == "integer":
        return isinstance(parsed, int) and not isinstance(parsed, bool)
    return isinstance(parsed, list)


def _encode(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    # Values YAML may give that JSON has no form for (bytes of a !!binary, a !!set) become
    # text: the program then reports them as a value it does not take, on one line.
    return json.dumps(value, default=_as_text)


def _as_text(value: Any) -> Any:
    if isinstance(value, set | frozenset):
        return sorted(value, key=str)
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return str(value)


def _one_line(exc: BaseException) -> str:
    return " ".join(part.strip() for part in str(exc).splitlines() if part.strip())
