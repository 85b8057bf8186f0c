"""What every component works out the same way: its type token, a name that defaults to the
component's own, and the project it deploys to."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pulumi
import pulumi_gcp as gcp

from .errors import DwsValidationError
from .outputs import is_output

__all__ = [
    "type_token",
    "default_name",
    "resolve_project",
    "stack_default_name",
    "stack_id",
    "stack_suffix",
    "StackName",
]


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


def stack_suffix(length: int = 6) -> str:
    """``length`` hex digits of a hash of the running stack (``organization/project/stack``):
    what sets apart the default names two stacks of one program give their resources."""
    return hashlib.sha256(stack_id().encode()).hexdigest()[:length]


def stack_id() -> str:
    """``organization/project/stack`` of the running program (the organization is
    ``organization`` where the SDK reports none, as Pulumi's own DIY backends name it)."""
    organization = pulumi.get_organization() or "organization"
    return f"{organization}/{pulumi.get_project()}/{pulumi.get_stack()}"


@dataclass(frozen=True)
class StackName:
    """A name, and whether it is the stack's default (then the component keeps the name a
    resource already has: ``ignore_changes`` on the paths that hold it, see
    :func:`stack_default_name`)."""

    value: str
    defaulted: bool

    def kept(self, *paths: str) -> list[str]:
        """The ``ignore_changes`` that keep an existing resource's name: ``paths`` when the name
        is defaulted, else none (a name the user gives is theirs to change)."""
        return list(paths) if self.defaulted else []


def stack_default_name(
    field: str,
    given: str | None,
    component_name: str,
    check: Callable[[str, str], str],
    *,
    arg: str | None = None,
    limit: int = 63,
    separator: str = "-",
    suffix_length: int = 6,
) -> StackName:
    """``given``, else the component's name and a suffix of the stack
    (:func:`stack_suffix`): ``trainer-1a2b3c``, at most ``limit`` characters, which must pass
    ``check``. Two stacks of one program in one project then never name a resource alike (as
    pulumi-gcp's auto-names never do).

    Upgrading: a resource made by a release whose default was the component's name alone keeps
    that name. The component registers the defaulted name's paths in ``ignore_changes``
    (:meth:`StackName.kept`): the engine then sends the provider the name the resource has in
    the state (``pkg/resource/deploy/step_generator.go`` ``processIgnoreChanges``), so nothing
    is replaced, while a new resource takes the new default."""
    if given is not None:
        return StackName(given, False)
    suffix = stack_suffix(suffix_length)
    room = max(1, limit - len(separator) - len(suffix))
    value = f"{component_name[:room].rstrip('-_.')}{separator}{suffix}"
    try:
        return StackName(check(field, value), True)
    except DwsValidationError as err:
        raise DwsValidationError(
            field,
            component_name,
            f"{err.problem} (the component's name plus a suffix of the stack is the default "
            f"{field}); pass {arg or f'args[{field!r}]'}",
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
