"""Checks on values that are Pulumi Outputs: run once the value is known.

Every argument that takes a string or a number also takes an ``Output`` of one. Its check
cannot run while the program builds resources, so it runs when the value arrives, and a bad
value fails the Pulumi run with the same message a plain value gets, naming the argument's
full path (``node_pools[0].max_nodes``)::

    zone = when_known(args["zone"], lambda z: check_zone("zone", z))

:func:`pulumi_dws.models.parse_args` marks each Output in a component's args with its path
(:func:`tagged`), so a check that only knows its own field name (``max_nodes``) reports the
whole path.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar, cast

import pulumi

from .errors import DwsValidationError

__all__ = ["is_output", "when_known", "output_aware", "tagged", "path_of", "qualify"]

R = TypeVar("R")
C = TypeVar("C", bound=Callable[..., Any])

_PATH_ATTR = "_dws_argument_path"


def is_output(value: Any) -> bool:
    """True for a Pulumi ``Output`` (a value that may not be known yet)."""
    return isinstance(value, pulumi.Output)


def path_of(value: Any) -> str | None:
    """The argument path :func:`tagged` gave an Output (None for other values)."""
    # Not getattr: an Output answers every attribute with an Output of it.
    return vars(value).get(_PATH_ATTR) if is_output(value) else None


def tagged(value: pulumi.Output[Any], path: str) -> pulumi.Output[Any]:
    """A new Output with the same value (and secrecy, dependencies) that knows it is the
    argument at ``path``; the caller's Output is left alone (it may be used elsewhere)."""
    out = value.apply(lambda known: known)
    setattr(out, _PATH_ATTR, path)
    return out


def qualify(err: DwsValidationError, path: str | None) -> DwsValidationError:
    """``err`` with its field put under ``path``'s parent when the check named only the last
    part (``max_nodes`` under ``node_pools[0].max_nodes``)."""
    if not path or err.field == path or err.field.startswith((path, "dws:")):
        return err
    parent, _, last = path.rpartition(".")
    name = last.split("[", 1)[0]
    if name and err.field.startswith(name):
        return err.at(f"{parent}.{err.field}" if parent else err.field)
    return err


def when_known(value: Any, check: Callable[[Any], R]) -> Any:
    """``check(value)`` now for a plain value; for an Output, an Output of ``check``'s result,
    run once the value is known (a failing check fails the Pulumi run with its message)."""
    if not is_output(value):
        return check(value)
    path = path_of(value)

    def run(pair: list[Any]) -> R:
        known, secret = pair
        try:
            return check(known)
        except DwsValidationError as err:
            found = qualify(err, path)
            raise (found.hidden(known) if secret else found) from None

    # the value and whether it is secret, together: a secret value never shows in the message
    secret = pulumi.Output.from_input(value.is_secret())
    out = pulumi.Output.all(value, secret).apply(run)
    if path:
        setattr(out, _PATH_ATTR, path)
    return out


def output_aware(check: C) -> C:
    """Make a check ``check(field, value, ...)`` take an Output ``value`` too: it then returns
    an Output of the check's result, run once the value is known (see :func:`when_known`).

    Every check in :mod:`pulumi_dws.validation` and :mod:`pulumi_dws.limits` is made so, once,
    here."""

    @functools.wraps(check)
    def checked(field: str, value: Any, *args: Any, **kwargs: Any) -> Any:
        if is_output(value):
            return when_known(value, lambda known: check(field, known, *args, **kwargs))
        return check(field, value, *args, **kwargs)

    return cast(C, checked)
