"""Re-exports :mod:`pulumi_dws.kinds.slurm.testing`:
an import path earlier releases documented."""

from ...kinds.slurm.testing import *  # noqa: F403
from ...kinds.slurm.testing import __all__ as __all__
