"""Re-exports :mod:`pulumi_dws.kinds.node_pool.testing`:
an import path earlier releases documented."""

from ...kinds.node_pool.testing import *  # noqa: F403
from ...kinds.node_pool.testing import __all__ as __all__
