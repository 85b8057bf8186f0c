"""Re-exports :mod:`pulumi_dws.kinds.calendar.testing`:
an import path earlier releases documented."""

from ...kinds.calendar.testing import *  # noqa: F403
from ...kinds.calendar.testing import __all__ as __all__
