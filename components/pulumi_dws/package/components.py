"""The components the ``dws`` package serves: every capacity kind of the registry
(:func:`pulumi_dws.registry.kinds`), then the few components that hold no capacity, declared
here (:data:`PLAIN`).

A component that holds no capacity (``GpuNetwork``: the networks an A4 group trains across) is
not a registry kind: a kind is what ``dws plan``, the policy pack, the blueprint's
``dws:capacity``, ``GcpMocks``' readers and the capacity summaries count, and it would give it a
``dws:capacity`` key, readers claiming its resource types (a program's own VPC networks would
read as a GpuNetwork's) and samples with no capacity in them. What the package needs of a
component is less: its name (its type token, ``dws:index:<Name>``), its class, its args and its
spec, the one declaration of its fields. Both kinds of entry give those, so the schema, the
args ``TypedDict`` s, the component pages and the provider's ``Construct`` and ``Check`` serve
them alike.
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import registry
from ..gpu_network import GpuNetwork, GpuNetworkArgs, GpuNetworkSpec
from .introspect import FieldType

__all__ = [
    "PlainComponent",
    "ServedComponent",
    "PLAIN",
    "served_components",
    "is_capacity_kind",
    "taken_component",
]


@dataclass(frozen=True)
class PlainComponent:
    """A component the package serves that holds no capacity.

    Attributes:
        name: the component's class name (its type token is ``dws:index:<name>``).
        component: the component class.
        args: its args ``TypedDict`` (generated from ``spec``).
        spec: its validated args model, the one declaration of its fields.
        summary: what it is, in a line (the components' index).
    """

    name: str
    component: type
    args: type
    spec: type
    summary: str


ServedComponent = registry.CapacityKind | PlainComponent
"""What the package serves as ``dws:index:<name>``: a capacity kind or a plain component."""

PLAIN: tuple[PlainComponent, ...] = (
    PlainComponent(
        name="GpuNetwork",
        component=GpuNetwork,
        args=GpuNetworkArgs,
        spec=GpuNetworkSpec,
        summary="The regular and RDMA VPC networks A3 Ultra, A4, A4X and H4D VMs train across "
        "(`gpu_network` of `FlexStartGroup` and `FlexStartInstance`); it holds no capacity.",
    ),
)
"""The components that hold no capacity, served beside the kinds."""


def served_components() -> tuple[ServedComponent, ...]:
    """Every component the package serves: the registry's kinds, then :data:`PLAIN`."""
    kinds = registry.kinds()
    taken = {kind.name for kind in kinds}
    clash = [plain.name for plain in PLAIN if plain.name in taken]
    if clash:
        raise ValueError(f"{', '.join(clash)}: declared as a kind and as a plain component")
    return (*kinds, *PLAIN)


def is_capacity_kind(component: ServedComponent) -> bool:
    """Whether ``component`` is a capacity kind of the registry (with a ``dws:capacity`` key,
    resource types and rules)."""
    return isinstance(component, registry.CapacityKind)


def taken_component(kind: FieldType) -> PlainComponent | None:
    """The plain component a field takes, if it takes one and nothing else
    (``gpu_network``: ``Takes(GpuNetwork)``): other languages pass it as a resource reference
    (``$ref: #/resources/dws:index:GpuNetwork``, :mod:`.references`)."""
    if kind.kind != "any" or len(kind.python_only) != 1:
        return None
    (name,) = kind.python_only
    for plain in PLAIN:
        if name == f"{plain.component.__module__}.{plain.component.__name__}":
            return plain
    return None
