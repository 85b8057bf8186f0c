"""Re-exports :mod:`pulumi_dws.kinds.flex_group.provider`:
providers pickled into stacks' state by earlier releases name this module."""

from ..kinds.flex_group.provider import *  # noqa: F403
from ..kinds.flex_group.provider import __all__ as __all__
