"""Re-exports :mod:`pulumi_dws.kinds.flex_vm`:
an import path earlier releases documented."""

from .kinds.flex_vm import *  # noqa: F403
from .kinds.flex_vm import __all__ as __all__
