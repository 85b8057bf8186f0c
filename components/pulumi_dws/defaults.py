"""What every component works out the same way: its type token, a name that defaults to the
component's own, and the project it deploys to."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pulumi
import pulumi_gcp as gcp

from .errors import DwsValidationError
from .outputs import is_output

__all__ = ["type_token", "default_name", "resolve_project"]


def type_token(component: str) -> str:
    """``dws:index:<component>``: the type of a pulumi-dws component in users' state (never
    renamed without an alias)."""
    return f"dws:index:{component}"


def default_name(
    field: str,
    given: str | None,
    component_name: str,
    check: Callable[[str, str], str],
    *,
    arg: str | None = None,
) -> str:
    """``given``, else the component's name, which must then pass ``check`` as ``field``; a
    bad one says where it came from and which argument (``arg``, default ``args['<field>']``)
    chooses another."""
    if given is not None:
        return given
    try:
        return check(field, component_name)
    except DwsValidationError as err:
        raise DwsValidationError(
            field,
            component_name,
            f"{err.problem} (the component's name is the default {field}); "
            f"pass {arg or f'args[{field!r}]'}",
        ) from None


def resolve_project(given: Any, parent: pulumi.Resource, field: str = "project") -> Any:
    """The project: ``given``, else the ``gcp:project`` stack config, else the Google
    provider's own (``getClientConfig``: ``GOOGLE_PROJECT``, Application Default Credentials'
    project...), which fails the run when it has none."""
    if given is not None and (is_output(given) or given):
        return given
    configured = pulumi.Config("gcp").get("project")
    if configured:
        return configured
    config = gcp.organizations.get_client_config_output(opts=pulumi.InvokeOptions(parent=parent))

    def required(value: Any) -> str:
        if not value:
            raise DwsValidationError(
                field, "(missing)", "is not set; pass project= or set the gcp:project config"
            )
        return str(value)

    return config.project.apply(required)
