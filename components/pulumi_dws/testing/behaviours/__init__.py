"""How each pulumi-dws dynamic resource behaves under :class:`~pulumi_dws.testing.GcpMocks`.

One module per dynamic resource type registers itself with ``@dynamic_behaviour(<Name>)``;
import it here.
"""

from . import flex_vm, slurm, stable_time  # noqa: F401
