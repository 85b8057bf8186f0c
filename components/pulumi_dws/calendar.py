"""Re-exports :mod:`pulumi_dws.kinds.calendar`:
an import path earlier releases documented."""

from .kinds.calendar import *  # noqa: F403
from .kinds.calendar import __all__ as __all__
