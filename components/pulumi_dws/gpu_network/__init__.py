"""``GpuNetwork``: the regular and RDMA VPC networks A3 Ultra, A4, A4X and H4D VMs train across
(see :mod:`.component`). A plain component, not a capacity kind: it holds no GPUs."""

from .component import *  # noqa: F403
from .component import __all__ as __all__
