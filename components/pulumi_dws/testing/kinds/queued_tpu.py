"""Re-exports :mod:`pulumi_dws.kinds.queued_tpu.testing`:
an import path earlier releases documented."""

from ...kinds.queued_tpu.testing import *  # noqa: F403
from ...kinds.queued_tpu.testing import __all__ as __all__
