"""Re-exports :mod:`pulumi_dws.kinds.flex_group`:
an import path earlier releases documented."""

from .kinds.flex_group import *  # noqa: F403
from .kinds.flex_group import __all__ as __all__
