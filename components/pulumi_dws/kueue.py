"""Re-exports :mod:`pulumi_dws.kinds.kueue`:
an import path earlier releases documented."""

from .kinds.kueue import *  # noqa: F403
from .kinds.kueue import __all__ as __all__
