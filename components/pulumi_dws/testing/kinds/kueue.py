"""Re-exports :mod:`pulumi_dws.kinds.kueue.testing`:
an import path earlier releases documented."""

from ...kinds.kueue.testing import *  # noqa: F403
from ...kinds.kueue.testing import __all__ as __all__
