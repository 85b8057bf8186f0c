"""What the providers' ``check`` share: whether a value is known yet (a preview carries
unknowns), and a list of failures that turns a validation error into a
``CheckFailure`` for its property."""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from typing import Any

import pulumi.dynamic as dyn
from pulumi.output import Unknown

from .. import limits
from ..errors import DwsValidationError
from .create_machine import OWNER_LABEL
from .ownership import STACK_LABEL
from .paths import segment_problem

__all__ = ["CheckFailures", "MARKS", "ON_TIMEOUT", "WAIT_KEYS", "known"]

MARKS = (OWNER_LABEL, STACK_LABEL)
"""The labels a create adds to what it makes (see :mod:`~.ownership`)."""
WAIT_KEYS = ("waitFor", "waitTimeout", "onTimeout")
"""The inputs that say how a create waits in a DWS queue (they matter at create time only)."""
ON_TIMEOUT = ("keep", "cancel")


def known(value: Any) -> bool:
    """True when ``value`` holds no unknown (a preview's not-yet-computed value) at any depth."""
    if isinstance(value, Unknown):
        return False
    if isinstance(value, Mapping):
        return all(known(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return all(known(v) for v in value)
    return True


class CheckFailures(list[dyn.CheckFailure]):
    """The failures of one ``check``."""

    def run(self, prop: str, check: Callable[[], Any]) -> None:
        """Run ``check``; a validation error it raises becomes a failure of ``prop``."""
        try:
            check()
        except (DwsValidationError, KeyError, TypeError, ValueError) as err:
            self.append(dyn.CheckFailure(prop, str(err)))

    def segment(self, prop: str, value: Any, kind: str | None = None) -> None:
        """Check ``value``, which goes into a URL path as a ``kind`` (default: ``prop``)
        segment, in full; a value that is None or not known yet (a preview) is let be."""
        if value is None or not known(value):
            return
        problem = segment_problem(kind or prop, value)
        if problem:
            self.append(dyn.CheckFailure(prop, f"{prop}: {problem}"))

    def one_of(self, prop: str, value: Any, allowed: Collection[str]) -> None:
        """``value`` (not known yet in a preview: let be) is one of ``allowed``."""
        if not isinstance(value, Unknown) and value not in allowed:
            self.append(dyn.CheckFailure(prop, f"{prop}: one of {', '.join(allowed)}"))

    def body(self, value: Any, what: str) -> Mapping[str, Any] | None:
        """The ``body`` input when it is an object (a failure, ``body is required (what)``,
        when it is not; None too while it is not known)."""
        if isinstance(value, Mapping):
            return value
        if not isinstance(value, Unknown):
            self.append(dyn.CheckFailure("body", f"body is required ({what})"))
        return None

    def wait_policy(self, news: Mapping[str, Any]) -> None:
        """``waitTimeout`` (seconds, when set) is a positive number and ``onTimeout`` (when
        set) ``keep`` or ``cancel``."""
        timeout = news.get("waitTimeout")
        number = isinstance(timeout, (int, float)) and not isinstance(timeout, bool)
        if timeout is not None and known(timeout) and not (number and timeout > 0):
            message = "waitTimeout: a positive number of seconds"
            self.append(dyn.CheckFailure("waitTimeout", message))
        on_timeout = news.get("onTimeout")
        if on_timeout is not None and known(on_timeout) and on_timeout not in ON_TIMEOUT:
            self.append(dyn.CheckFailure("onTimeout", "onTimeout: keep or cancel"))

    def owner_label_room(
        self,
        prop: str,
        where: str,
        labels: Mapping[str, Any],
        label: str = OWNER_LABEL,
        stack_label: str = STACK_LABEL,
    ) -> None:
        """``labels`` (at ``where`` in ``prop``) don't set the ownership labels the create adds
        (``label``: :data:`~.create_machine.OWNER_LABEL` unless the resource declares another;
        ``stack_label``: :data:`~.ownership.STACK_LABEL`, likewise), and leave room for them
        under Google's label count limit."""
        marks = (label, stack_label)
        for mark in marks:
            if mark in labels:
                message = f"{where}: {mark} is set by pulumi-dws itself"
                self.append(dyn.CheckFailure(prop, message))
        most = (limits.get("labels.count").maximum or 64) - len(marks)
        if len(labels) > most:
            self.append(
                dyn.CheckFailure(
                    prop,
                    f"{where}: {len(labels)} labels; at most {most} (pulumi-dws adds "
                    f"{' and '.join(marks)})",
                )
            )
