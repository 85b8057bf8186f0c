"""Re-exports :mod:`pulumi_dws.kube` (shared by the Kueue and ComputeClass kinds): the import
path the Kueue kind's package had."""

from ...kube import *  # noqa: F403
from ...kube import __all__ as __all__
