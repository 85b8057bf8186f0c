"""Re-exports :mod:`pulumi_dws.kinds.queued_tpu`:
an import path earlier releases documented."""

from .kinds.queued_tpu import *  # noqa: F403
from .kinds.queued_tpu import __all__ as __all__
