"""Re-exports :mod:`pulumi_dws.kinds.flex_vm.provider`:
providers pickled into stacks' state by earlier releases name this module."""

from ..kinds.flex_vm.provider import *  # noqa: F403
from ..kinds.flex_vm.provider import __all__ as __all__
