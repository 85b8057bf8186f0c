"""The flavors of a :class:`~pulumi_dws.KueueQueue`: each node pool or ComputeClass the queue
admits Jobs to, in the order Kueue tries them, with its quota.

A queue with one flavor (``node_pool``) is what it always was. With ``flavors`` the
ClusterQueue lists them in order (a reservation or Calendar-block pool first, the DWS pool
next, as Google's "Reservation and Dynamic Workload Scheduler node pool setup" does:
https://docs.cloud.google.com/kubernetes-engine/docs/how-to/provisioningrequest), each with its
own quota, and the ProvisioningRequest admission check applies only to the flavors of queued
pools (``admissionChecksStrategy.admissionChecks[].onFlavors``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Annotated, Any

from ... import catalog, limits
from ...errors import DwsValidationError
from ...fields import Check, Known, MaybeOutput
from ...models import DwsModel
from ...validation import check_name, is_output
from ..compute_class.component import COMPUTE_CLASS_LABEL, ComputeClass
from ..node_pool.component import NODE_POOL_LABEL, QueuedNodePool
from .args import FlavorArgs

__all__ = [
    "FlavorArgs",
    "FlavorSpec",
    "Flavor",
    "resolve_flavors",
    "whole_quota",
    "check_pod_fits",
    "check_accelerator_type",
    "TAS_MACHINES",
]

# Machine types whose GKE nodes carry the topology labels TAS reads (AI Hypercomputer,
# "Schedule GKE workloads with Topology Aware Scheduling": A4X, A4, A3 Ultra, A3 Mega and
# A3 High with 8 GPUs; https://docs.cloud.google.com/ai-hypercomputer/docs/workloads/
# schedule-gke-workloads-tas).
TAS_MACHINES = (
    "a4x-highgpu-4g",
    "a4-highgpu-8g",
    "a3-ultragpu-8g",
    "a3-megagpu-8g",
    "a3-highgpu-8g",
)


def _pool(field: str, value: Any) -> Any:
    if value is None or isinstance(value, QueuedNodePool) or is_output(value):
        return value
    if isinstance(value, str):
        return check_name(field, value)
    raise DwsValidationError(field, value, "must be a QueuedNodePool or a node pool name")


def _class(field: str, value: Any) -> Any:
    if value is None or isinstance(value, ComputeClass):
        return value
    if isinstance(value, str):
        return check_name(field, value)
    raise DwsValidationError(field, value, "must be a ComputeClass or a ComputeClass name")


def whole_quota(field: str, value: Any, what: str = "") -> int:
    """A quota: a whole number >= 1 (``32``, or ``32.0`` as YAML and the engine give numbers;
    ``32.5``, ``"32"`` and booleans are refused)."""
    try:
        number = limits.as_whole_number(field, value)
    except DwsValidationError:
        number = 0
    if number < 1:
        raise DwsValidationError(field, value, f"must be a whole number{what} >= 1")
    return number


def _quota(field: str, value: Any) -> int:
    return whole_quota(field, value)


class FlavorSpec(DwsModel):
    """One flavor of a queue: ``node_pool`` (a QueuedNodePool or a pool name) or
    ``compute_class`` (a ComputeClass or a class name), its quota (``gpu_quota`` or
    ``tpu_quota``; a pool object's default is its GPUs or chips, a class needs one), and
    ``name`` (the ResourceFlavor's name suffix). A pool given by name is taken as a queued
    pool unless ``provisioning_request`` is False."""

    # The one declaration of each field: FlavorArgs is generated from it (scripts/generate.py).

    # A flavor's quota may be an Output, though the list of flavors is known
    # (:attr:`~pulumi_dws.models.DwsModel.outputs_within`).
    outputs_within = True

    node_pool: Annotated[Any, Check(_pool)] = None
    """A :class:`~pulumi_dws.QueuedNodePool` or a pool name (give ``node_pool`` or
    ``compute_class``)."""
    compute_class: Annotated[Any, Check(_class)] = None
    """A :class:`~pulumi_dws.ComputeClass` or a class name (give ``node_pool`` or
    ``compute_class``)."""
    gpu_quota: MaybeOutput[Annotated[int, Check(_quota)]] | None = None
    """GPUs of this flavor the queue admits (default: a pool object's GPUs; required with a name or
    a class)."""
    tpu_quota: MaybeOutput[Annotated[int, Check(_quota)]] | None = None
    """TPU chips of this flavor the queue admits (default: a pool object's chips; required with a
    name or a class)."""
    name: Annotated[str, Check(check_name, before=False), Known("it names the flavor")] | None = (
        None
    )
    """Suffix of the ResourceFlavor's name (default: a pool object's mode; ``queued`` or ``pool``
    for a pool's name; ``class`` for a class)."""
    provisioning_request: Annotated[bool, Known("it decides the admission check")] | None = None
    """A pool given by name: whether it is a queued pool (default True); a pool object's mode
    decides."""


@dataclass(frozen=True)
class Flavor:
    """A flavor resolved: what it selects, its quota and whether DWS queues for it."""

    where: str
    suffix: str
    pool: QueuedNodePool | None
    pool_name: Any
    compute_class: ComputeClass | None
    class_name: Any
    quota: Any
    tpu: bool
    queued: bool
    machine_type: str | None
    slice: catalog.TpuSlice | None

    @property
    def node_shapes(self) -> list[tuple[str, int]]:
        """``(accelerator, GPUs or TPU chips per node)`` of the nodes the flavor reaches (a GPU's
        Compute name, a TPU's GKE accelerator label); empty for a pool or class given by name."""
        if self.pool is not None:
            per_node = self.pool.tpu_chips_per_node if self.tpu else self.pool.gpus_per_node
            return [(self.pool.accelerator_type, per_node)]
        if self.compute_class is None:
            return []
        shapes: list[tuple[str, int]] = []
        for rule in self.compute_class.resolved_priorities:
            if rule.tpu is not None:
                shapes.append((rule.tpu.generation.gke_accelerator, rule.tpu.chips_per_vm))
            elif rule.gpu is not None:
                shapes.append(rule.gpu)
        return shapes

    @property
    def known_label(self) -> Any:
        """The value of :attr:`label` as known while the program runs: a class's name, a pool
        object's name (its :attr:`label` is the pool's Output), or the pool name given (an
        Output if one was given)."""
        if self.compute_class is not None or self.class_name is not None:
            return self.class_name
        if self.pool is not None:
            return self.pool.node_pool_name
        return self.pool_name

    @property
    def label(self) -> tuple[str, Any]:
        """The node label the flavor selects: the pool's or the class's."""
        if self.compute_class is not None or self.class_name is not None:
            return COMPUTE_CLASS_LABEL, self.class_name
        return NODE_POOL_LABEL, self.pool_name


def _one_kind(where: str, flavor: FlavorSpec) -> None:
    if (flavor.node_pool is None) == (flavor.compute_class is None):
        raise DwsValidationError(
            f"{where}node_pool",
            "(both)" if flavor.node_pool is not None else "(missing)",
            "give node_pool (a QueuedNodePool or pool name) or compute_class, one of them",
        )
    if flavor.gpu_quota is not None and flavor.tpu_quota is not None:
        raise DwsValidationError(
            f"{where}tpu_quota", "(set)", "give gpu_quota (a GPU pool) or tpu_quota (a TPU pool)"
        )


def _class_flavor(where: str, spec: FlavorSpec) -> Flavor:
    cls = spec.compute_class if isinstance(spec.compute_class, ComputeClass) else None
    if spec.provisioning_request:
        raise DwsValidationError(
            f"{where}provisioning_request",
            True,
            "does not apply to a ComputeClass: GKE's queued provisioning serves node pools "
            "with queued provisioning, a class's Flex-start nodes come one by one",
        )
    tpu = spec.tpu_quota is not None
    if cls is not None:
        kinds = {
            ("tpu" if r.tpu is not None else "gpu") for r in cls.resolved_priorities if r.per_node
        }
        if len(kinds) > 1:
            raise DwsValidationError(
                f"{where}compute_class",
                cls.name,
                "mixes GPU and TPU priorities; a flavor manages one of them (give the queue one "
                "class per accelerator)",
            )
        tpu = kinds == {"tpu"}
        if tpu and spec.gpu_quota is not None:
            raise DwsValidationError(
                f"{where}gpu_quota", spec.gpu_quota, f"does not fit {cls.name}, a TPU class"
            )
        if not tpu and spec.tpu_quota is not None:
            raise DwsValidationError(
                f"{where}tpu_quota", spec.tpu_quota, f"does not fit {cls.name}, a GPU class"
            )
    quota = spec.tpu_quota if tpu else spec.gpu_quota
    if quota is None:
        raise DwsValidationError(
            f"{where}gpu_quota",
            "(missing)",
            "is required for a ComputeClass flavor (a class sets no maximum of its own): the "
            "GPUs (or tpu_quota, TPU chips) the queue may admit on it",
        )
    machines = {r.machine_type for r in cls.resolved_priorities} if cls is not None else set()
    machine = next(iter(machines)) if len(machines) == 1 else None
    name = cls.name if cls is not None else spec.compute_class
    return Flavor(
        where=where,
        suffix=spec.name or "class",
        pool=None,
        pool_name=None,
        compute_class=cls,
        class_name=name,
        quota=quota,
        tpu=tpu,
        queued=False,
        machine_type=machine,
        slice=None,
    )


def _pool_flavor(where: str, spec: FlavorSpec, default_queued: bool | None) -> Flavor:
    pool = spec.node_pool if isinstance(spec.node_pool, QueuedNodePool) else None
    if pool is not None:
        tpu = pool.tpu is not None
        if tpu and spec.gpu_quota is not None:
            raise DwsValidationError(
                f"{where}gpu_quota",
                spec.gpu_quota,
                f"is not allowed: the pool has TPUs ({pool.machine_type}); give tpu_quota "
                "(chips) or leave it to the pool",
            )
        if not tpu and spec.tpu_quota is not None:
            raise DwsValidationError(
                f"{where}tpu_quota",
                spec.tpu_quota,
                f"is not allowed: the pool has GPUs ({pool.machine_type}); give gpu_quota",
            )
        queued = pool.queued
        wanted = spec.provisioning_request
        if wanted is None:
            wanted = default_queued
        if wanted is False and queued:
            raise DwsValidationError(
                f"{where}provisioning_request",
                False,
                "is not allowed: a pool in mode queued only gets nodes through "
                "ProvisioningRequests; leave provisioning_request on",
            )
        if wanted and not queued:
            raise DwsValidationError(
                f"{where}provisioning_request",
                True,
                f"is not allowed: the pool is in mode {pool.mode}; ProvisioningRequests "
                "(queued-provisioning.gke.io) need a pool in mode queued",
            )
        quota = spec.tpu_quota if tpu else spec.gpu_quota
        return Flavor(
            where=where,
            suffix=spec.name or pool.mode,
            pool=pool,
            pool_name=pool.name,
            compute_class=None,
            class_name=None,
            quota=quota,
            tpu=tpu,
            queued=queued,
            machine_type=pool.machine_type,
            slice=pool.tpu,
        )
    if spec.gpu_quota is None and spec.tpu_quota is None:
        raise DwsValidationError(
            f"{where}gpu_quota",
            "(missing)",
            "is required when node_pool is a name, not a pool (or tpu_quota for a TPU pool)",
        )
    queued = next((v for v in (spec.provisioning_request, default_queued) if v is not None), True)
    return Flavor(
        where=where,
        suffix=spec.name or ("queued" if queued else "pool"),
        pool=None,
        pool_name=spec.node_pool,
        compute_class=None,
        class_name=None,
        quota=spec.tpu_quota if spec.tpu_quota is not None else spec.gpu_quota,
        tpu=spec.tpu_quota is not None,
        queued=queued,
        machine_type=None,
        slice=None,
    )


def check_pod_fits(flavors: Sequence[Flavor], field: str, count: int, tpu: bool) -> None:
    """A Pod asking for ``count`` GPUs (or TPU chips) fits a node of at least one flavor whose
    nodes are known: a Pod runs on one node, and one that fits none is never scheduled."""
    shapes = [shape for flavor in flavors for shape in flavor.node_shapes]
    if not shapes or any(count <= per_node for _, per_node in shapes):
        return
    accelerator, most = max(shapes, key=lambda shape: shape[1])
    unit = "TPU chips" if tpu else "GPUs"
    raise DwsValidationError(
        field,
        count,
        f"is more than a node of the queue has: {most} {unit} ({accelerator}); a Pod runs on one "
        f"node, so it asks for at most {most}",
    )


def check_accelerator_type(flavors: Sequence[Flavor], field: str, value: Any, tpu: bool) -> str:
    """``value`` as the node label value of the queue's accelerator: a GPU's Compute name
    (``nvidia-h200-141gb``; a Vertex AI name is translated) or a TPU's GKE accelerator
    (``tpu-v6e-slice``), one that the queue's known nodes carry."""
    if tpu:
        names = sorted({g.gke_accelerator for g in catalog.tpu_generations()})
        if value not in names:
            raise DwsValidationError(
                field, value, f"is not a GKE TPU accelerator; use one of {', '.join(names)}"
            )
        name = str(value)
    else:
        if not isinstance(value, str):
            raise DwsValidationError(field, value, "must be a GPU accelerator name")
        name = catalog.accelerator(field, value).compute_name
    carried = sorted({accelerator for flavor in flavors for accelerator, _ in flavor.node_shapes})
    if carried and name not in carried:
        raise DwsValidationError(
            field,
            value,
            f"is not carried by the queue's nodes ({', '.join(carried)}): Pods that select it "
            "would match no node",
        )
    return name


def resolve_flavors(
    flavors: Sequence[FlavorSpec], default_queued: bool | None, single: bool
) -> list[Flavor]:
    """The flavors in order, checked: one accelerator (GPUs or TPU chips) for all, unique
    names. ``single``: the queue's ``node_pool`` (its path is the queue's own fields)."""
    out: list[Flavor] = []
    for i, spec in enumerate(flavors):
        where = "" if single else f"flavors[{i}]."
        _one_kind(where, spec)
        if spec.compute_class is not None:
            out.append(_class_flavor(where, spec))
        else:
            out.append(_pool_flavor(where, spec, default_queued))
    if not out:
        raise DwsValidationError("flavors", [], "must list at least one flavor")
    first = out[0]
    for flavor in out[1:]:
        if flavor.tpu != first.tpu:
            what = "TPU chips" if first.tpu else "GPUs"
            raise DwsValidationError(
                f"{flavor.where.rstrip('.')}",
                flavor.suffix,
                f"manages {'TPU chips' if flavor.tpu else 'GPUs'} while the queue's first flavor "
                f"manages {what}: one queue, one accelerator",
            )
    named = [f.suffix for f, s in zip(out, flavors, strict=True) if s.name is not None]
    for name in named:
        if named.count(name) > 1:
            raise DwsValidationError("flavors", name, "names two flavors; give each its own name")
    counts = {f.suffix: sum(1 for g in out if g.suffix == f.suffix) for f in out}
    return [
        replace(f, suffix=f"{f.suffix}-{i}") if counts[f.suffix] > 1 and not single else f
        for i, f in enumerate(out)
    ]
