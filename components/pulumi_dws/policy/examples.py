"""Moved to :mod:`pulumi_dws.testing.samples` (``Example``, and ``examples()`` gathered from
each kind's test aids).

This module re-exports them for code that imports the old path, and warns
(:class:`DeprecationWarning`); importing :mod:`pulumi_dws.policy` does not load it.
"""

from typing import Any

from .._moved import warn_moved
from ..testing.samples import Example, examples

__all__ = ["Example", "EXAMPLES"]  # noqa: F822 (EXAMPLES: from __getattr__)

warn_moved(__name__, "pulumi_dws.testing.samples")


def __getattr__(name: str) -> Any:
    if name == "EXAMPLES":  # gathered when asked for, as pulumi_dws.testing.samples does
        return examples()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
