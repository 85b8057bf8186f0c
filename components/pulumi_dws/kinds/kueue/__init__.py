"""Kueue queues routing jobs to DWS node pools and ComputeClasses: ``KueueQueue``, its flavors,
and the job helpers (a ``batch/v1`` Job, a RayJob, a JobSet).

The kind's package: ``component`` (the component), ``spec`` (its args, their validated form, the
Kueue releases and what each serves), ``manifests`` (the objects), ``flavors`` (the pools and
classes a queue admits to, in order), ``jobs`` and ``merge`` (multi-pod-set jobs and what Kueue
asks GKE for them), ``kind`` (its declaration to :mod:`pulumi_dws.registry`) and ``testing``
(its test aids, loaded only by :mod:`pulumi_dws.testing`)."""

from .component import *  # noqa: F403
from .component import __all__ as _component
from .jobs import kueue_jobset, kueue_ray_job, provisioning_request_pod_sets

__all__ = [*_component, "kueue_ray_job", "kueue_jobset", "provisioning_request_pod_sets"]
