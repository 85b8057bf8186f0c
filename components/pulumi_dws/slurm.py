"""Re-exports :mod:`pulumi_dws.kinds.slurm`:
an import path earlier releases documented."""

from .kinds.slurm import *  # noqa: F403
from .kinds.slurm import __all__ as __all__
