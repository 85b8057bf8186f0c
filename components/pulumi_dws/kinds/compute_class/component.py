"""``ComputeClass``: a GKE custom ComputeClass (``cloud.google.com/v1``) built from typed
priorities, the door to Flex-start (and reservations, Spot, on-demand) for Pods on GKE.

GKE tries the priorities in order when a Pod that selects the class needs a node: a Calendar
block or named reservation first, Flex-start when it is full, Spot or on-demand after. Each
priority is one kind of capacity (``capacity``) on one machine shape: a GPU machine type (the
catalog gives its GPUs), a TPU machine type with a topology, or a machine family with a GPU
type and count; class-level ``machine_type`` & co. apply to every priority that sets none.

Pods use the class with ``nodeSelector: {cloud.google.com/compute-class: NAME}`` (the
``node_selector`` output), and a Kueue ``ResourceFlavor`` can point at it (a
:class:`~pulumi_dws.KueueQueue` flavor ``{"compute_class": cls}``).

Every rule is checked at construction, before anything is registered: the CRD's own rules
(Flex-start is not Spot, Specific affinity names a reservation, ...), the rules Google
documents (a reservation needs a machine type or family, TPU reservations are Specific,
reservation blocks are for A3 Ultra, A4 and A4X, Flex-start TPUs are single-host), the zones
of a reservation against the class's zones, and with ``gke_version`` the GKE version each field
needs (:mod:`.versions`). Sources: the CRD reference
(https://docs.cloud.google.com/kubernetes-engine/docs/reference/crds/computeclass) and "About
custom ComputeClasses"
(https://docs.cloud.google.com/kubernetes-engine/docs/concepts/about-custom-compute-classes).
"""

from __future__ import annotations

from typing import Any

import pulumi
import pulumi_kubernetes as kubernetes

from ...defaults import type_token
from ...errors import DwsValidationError
from ...kube import gke_provider, has_kubernetes_provider
from ...models import parse_args
from .checks import ResolvedPriority
from .manifest import class_manifest
from .spec import (
    API_VERSION,
    CAPACITIES,
    COMPUTE_CLASS_LABEL,
    KIND,
    ComputeClassArgs,
    ComputeClassSpec,
    PriorityArgs,
    PrioritySpec,
    check_class_name,
)

__all__ = [
    "TYPE",
    "API_VERSION",
    "KIND",
    "COMPUTE_CLASS_LABEL",
    "CAPACITIES",
    "ComputeClass",
    "ComputeClassArgs",
    "ComputeClassSpec",
    "PriorityArgs",
    "PrioritySpec",
    "compute_class_manifest",
]

TYPE = type_token("ComputeClass")


def compute_class_manifest(name: str, args: ComputeClassArgs) -> dict[str, Any]:
    """The ComputeClass object as a plain dict (pure: no Pulumi, no cluster); ``args`` are
    :class:`ComputeClassArgs` without the provider ones. Raises :class:`DwsValidationError`
    like the component does."""
    spec = parse_args(ComputeClassSpec, {**args, "name": args.get("name") or name})
    return class_manifest(spec, spec.name or name)


class ComputeClass(pulumi.ComponentResource):
    """A GKE custom ComputeClass whose priorities reach Calendar blocks, Flex-start, Spot or
    on-demand nodes, in order.

    Outputs: ``name`` (the class's name), ``node_selector``
    (``{"cloud.google.com/compute-class": name}``, for Pods and Kueue flavors), ``manifest``
    (the object), ``resource`` (the CustomResource), ``provider`` (built when none comes
    through ``opts``), ``priorities`` (each priority's capacity, accelerator and GPUs or TPU
    chips per node), ``flex_start`` (whether a priority is Flex-start), ``tpu`` (whether the
    class's accelerators are TPU chips).
    """

    name: str
    """The class's name."""
    node_selector: dict[str, str]
    """``{"cloud.google.com/compute-class": name}``, for Pods and Kueue flavors."""
    priorities: list[dict[str, Any]]
    """Each priority's capacity, accelerator and GPUs or TPU chips per node, in order."""
    flex_start: bool
    """Whether a priority is Flex-start."""
    tpu: bool
    """Whether the class's accelerators are TPU chips."""

    def __init__(
        self, name: str, args: ComputeClassArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        spec = parse_args(ComputeClassSpec, args)
        class_name = spec.name or check_class_name("name", name)
        has_provider = has_kubernetes_provider(opts)
        if not has_provider and (spec.cluster is None or not spec.location):
            raise DwsValidationError(
                "cluster",
                "(missing)",
                "and location are required to build a Kubernetes provider when no kubernetes "
                "provider comes through opts",
            )
        super().__init__(TYPE, name, None, opts)
        self.spec = spec
        self.provider: kubernetes.Provider | None = None
        if not has_provider:
            assert spec.cluster is not None and spec.location is not None
            self.provider = gke_provider(
                f"{name}-k8s",
                spec.cluster,
                spec.location,
                spec.project,
                opts=pulumi.ResourceOptions(parent=self),
            )
        self.manifest = class_manifest(spec, class_name)
        self.resource = kubernetes.apiextensions.CustomResource(
            f"{name}-compute-class",
            api_version=API_VERSION,
            kind=KIND,
            metadata=self.manifest["metadata"],
            spec=self.manifest["spec"],
            opts=pulumi.ResourceOptions(parent=self, provider=self.provider),
        )
        resolved = spec.resolved()
        self.name = class_name
        self.node_selector = {COMPUTE_CLASS_LABEL: class_name}
        self.resolved_priorities: list[ResolvedPriority] = resolved
        self.priorities = [
            {"capacity": r.capacity, "accelerator": r.accelerator, "per_node": r.per_node}
            for r in resolved
        ]
        self.flex_start = any(r.capacity == "flex_start" for r in resolved)
        kinds = {("tpu" if r.tpu is not None else "gpu") for r in resolved if r.per_node}
        self.tpu = kinds == {"tpu"}
        self.register_outputs(
            {
                "name": self.name,
                "node_selector": self.node_selector,
                "priorities": self.priorities,
                "flex_start": self.flex_start,
            }
        )
