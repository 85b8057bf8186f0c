"""Re-exports :mod:`pulumi_dws.kinds.slurm.provider`:
providers pickled into stacks' state by earlier releases name this module."""

from ..kinds.slurm.provider import *  # noqa: F403
from ..kinds.slurm.provider import __all__ as __all__
