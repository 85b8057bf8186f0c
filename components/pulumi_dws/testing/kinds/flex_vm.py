"""Re-exports :mod:`pulumi_dws.kinds.flex_vm.testing`:
an import path earlier releases documented."""

from ...kinds.flex_vm.testing import *  # noqa: F403
from ...kinds.flex_vm.testing import __all__ as __all__
