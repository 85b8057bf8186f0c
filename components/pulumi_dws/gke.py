"""Re-exports :mod:`pulumi_dws.kinds.node_pool`:
an import path earlier releases documented."""

from .kinds.node_pool import *  # noqa: F403
from .kinds.node_pool import __all__ as __all__
