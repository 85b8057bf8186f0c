"""pulumi-dws: Pulumi components for Google Cloud's Dynamic Workload Scheduler (DWS).

Components (type tokens ``dws:index:<ClassName>``):

- :class:`CalendarReservation`: GPU VMs reserved for a fixed window (Calendar mode).
- :class:`SlurmCluster`: a managed Slurm cluster with Flex-start GPU partitions.
- :class:`QueuedNodePool`: a GKE GPU node pool DWS fills on demand (queued, Flex-start, reserved).
- :class:`ComputeClass`: a GKE ComputeClass whose priorities reach Calendar blocks, Flex-start,
  Spot or on-demand nodes, in order.
- :class:`KueueQueue`: the Kueue objects that route labelled Jobs to such pools and classes.
- :class:`FlexStartInstance`: one Flex-start GPU VM that can wait up to 2 h in the DWS queue.
- :class:`FlexStartGroup`: N GPU VMs at once (all or nothing) through a MIG resize request.
- :class:`GpuNetwork`: the regular and RDMA VPC networks A3 Ultra, A4, A4X and H4D VMs train
  across (give it to ``FlexStartGroup`` / ``FlexStartInstance`` as ``gpu_network``).
- :class:`QueuedTpu`: a Cloud TPU slice (or multislice) asked for as a queued resource, with
  Flex-start, Spot or a reservation.

The building blocks are public too: :mod:`pulumi_dws.limits` (the service limits table),
:class:`Duration`, :class:`DwsValidationError`, and :mod:`pulumi_dws.testing` (mocks,
emulator, gRPC-host driver) for testing stacks.
"""

from . import catalog, limits, regions
from .duration import Duration
from .errors import DwsValidationError
from .gpu_network import GpuNetwork, GpuNetworkArgs
from .kinds.calendar.component import CalendarReservation, CalendarReservationArgs
from .kinds.compute_class.component import ComputeClass, ComputeClassArgs
from .kinds.flex_group.component import FlexStartGroup, FlexStartGroupArgs
from .kinds.flex_vm.component import FlexStartInstance, FlexStartInstanceArgs
from .kinds.kueue.component import (
    KueueQueue,
    KueueQueueArgs,
    kueue_job,
    kueue_job_fields,
    kueue_manifests,
)
from .kinds.kueue.jobs import kueue_jobset, kueue_ray_job
from .kinds.node_pool.component import QueuedNodePool, QueuedNodePoolArgs
from .kinds.queued_tpu.component import QueuedTpu, QueuedTpuArgs
from .kinds.slurm.component import SlurmCluster, SlurmClusterArgs
from .relative_time import RelativeTime

__all__ = [
    "CalendarReservation",
    "CalendarReservationArgs",
    "ComputeClass",
    "ComputeClassArgs",
    "Duration",
    "DwsValidationError",
    "FlexStartGroup",
    "FlexStartGroupArgs",
    "FlexStartInstance",
    "FlexStartInstanceArgs",
    "GpuNetwork",
    "GpuNetworkArgs",
    "KueueQueue",
    "KueueQueueArgs",
    "QueuedNodePool",
    "QueuedNodePoolArgs",
    "QueuedTpu",
    "QueuedTpuArgs",
    "RelativeTime",
    "SlurmCluster",
    "SlurmClusterArgs",
    "catalog",
    "kueue_job",
    "kueue_job_fields",
    "kueue_jobset",
    "kueue_manifests",
    "kueue_ray_job",
    "limits",
    "regions",
]
