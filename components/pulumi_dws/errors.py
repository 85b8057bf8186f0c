"""The one error type of pulumi-dws."""

from __future__ import annotations

from typing import Any

__all__ = ["DwsValidationError", "show"]


def show(value: Any) -> str:
    """Render a user value the way error messages quote it (strings bare, others as repr)."""
    if isinstance(value, str):
        return value if value else '""'
    return repr(value)


class DwsValidationError(ValueError):
    """A value a user gave is outside what Google Cloud accepts.

    The message always names the field, the bad value and what is allowed, e.g.
    ``max_run_duration: 8d is above the Flex-start limit of 7d (604800s)``.
    """

    def __init__(self, field: str, value: Any, problem: str) -> None:
        self.field = field
        self.value = value
        self.problem = problem
        super().__init__(f"{field}: {show(value)} {problem}")

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.field, self.value, self.problem))

    def within(self, prefix: str) -> DwsValidationError:
        """The same error with its field qualified by a parent path (``node_pools[1].zone``)."""
        return DwsValidationError(f"{prefix}.{self.field}", self.value, self.problem)
