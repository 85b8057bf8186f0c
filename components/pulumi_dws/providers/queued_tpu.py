"""Re-exports :mod:`pulumi_dws.kinds.queued_tpu.provider`:
providers pickled into stacks' state by earlier releases name this module."""

from ..kinds.queued_tpu.provider import *  # noqa: F403
from ..kinds.queued_tpu.provider import __all__ as __all__
