"""Moved to :mod:`pulumi_dws.testing.policy` (the policy's test aids live with the others).

This module re-exports it for code that imports the old path, and warns
(:class:`DeprecationWarning`); importing :mod:`pulumi_dws.policy` does not load it.
"""

from .._moved import warn_moved
from ..testing.policy import *  # noqa: F403
from ..testing.policy import __all__ as __all__

warn_moved(__name__, "pulumi_dws.testing.policy")
