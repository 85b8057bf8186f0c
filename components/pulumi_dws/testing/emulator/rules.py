"""The rules Google documents for a resource, each with the page that documents it.

An emulated resource checks what Google checks, not only what the discovery schema says: a
Flex-start VM needs ``maxRunDuration``, a group that takes resize requests must not repair its
VMs... Each rule is a function registered on its resource's :class:`Rules` with its source,
and raises the error Google answers (``GoogleError`` or ``ServiceError``)::

    GROUP_RULES: Rules[NewGroup] = Rules("instanceGroupManagers.insert")

    @GROUP_RULES.rule("https://docs.cloud.google.com/compute/docs/instance-groups/...")
    def flex_start_groups_start_empty(group: NewGroup) -> None:
        if group.flex_start and group.size:
            raise GoogleError(400, "...", "invalid")

The store runs ``GROUP_RULES.check(subject)`` where Google would refuse the request; a test
keeps every rule's source a Google page (or another citable source): it finds every
:class:`Rules` an emulated API declares through :meth:`Rules.declared`, so a new API's rules are
checked without being named there.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

__all__ = ["Rule", "Rules"]

T = TypeVar("T")
F = TypeVar("F", bound=Callable[..., None])


@dataclass(frozen=True)
class Rule(Generic[T]):
    """One documented rule: its name (the function's), its source, and its check."""

    name: str
    source: str
    check: Callable[[T], None]


class Rules(Generic[T]):
    """The rules of one request or resource, checked in the order they were registered."""

    def __init__(self, what: str, *, declare: bool = True) -> None:
        """``what``: the request or resource (a discovery method id such as
        ``compute.instances.insert``); ``declare=False`` keeps a test's own set out of
        :meth:`declared`."""
        self.what = what
        self._rules: list[Rule[T]] = []
        if declare:
            _DECLARED[what] = self

    @staticmethod
    def declared() -> tuple[Rules[Any], ...]:
        """Every set declared by the modules imported so far (an emulated API declares its own
        when its package is imported), one per ``what``."""
        return tuple(_DECLARED.values())

    def rule(self, source: str) -> Callable[[Callable[[T], None]], Callable[[T], None]]:
        """Register the decorated function as a rule documented at ``source``."""
        if not source.strip():
            raise ValueError("a rule names the page that documents it")

        def register(check: Callable[[T], None]) -> Callable[[T], None]:
            self._rules.append(Rule(check.__name__, source, check))
            return check

        return register

    def check(self, subject: T) -> None:
        """Run every rule on ``subject``: the first that fails raises Google's error."""
        for rule in self._rules:
            rule.check(subject)

    def __iter__(self) -> Iterator[Rule[T]]:
        return iter(self._rules)

    def __len__(self) -> int:
        return len(self._rules)


_DECLARED: dict[str, Rules[Any]] = {}
