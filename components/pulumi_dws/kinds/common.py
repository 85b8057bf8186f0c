"""Resource types no capacity kind owns: networks, service accounts and any Kubernetes object.

They are registered after every kind (:mod:`pulumi_dws.kinds`), so a kind's more specific
pattern (Kueue's ProvisioningRequestConfig) is tried before the Kubernetes catch-all.
"""

from __future__ import annotations

from typing import Any

from ..policy.values import dig
from ..policy.view import ResourceView
from ..registry import Ref, ResourceType

__all__ = [
    "RESOURCES",
    "KUBERNETES_PATTERN",
    "kubernetes_summary",
    "network_summary",
    "subnetwork_summary",
]

_AIDS = "pulumi_dws.testing.kinds.common"
KUBERNETES_PATTERN = r"^kubernetes:"


def kubernetes_summary(view: ResourceView) -> dict[str, Any]:
    """A Kubernetes object's kind, API version and namespace (a Helm release's chart)."""
    p = view.props
    return {
        "kind": p.get("kind"),
        "api_version": p.get("apiVersion"),
        "namespace": dig(p, "metadata", "namespace"),
        "chart": p.get("chart"),
        "version": p.get("version") if p.get("chart") else None,
    }


def network_summary(view: ResourceView) -> dict[str, Any]:
    """A VPC network's MTU and network profile (an RDMA network's ``<zone>-vpc-roce``)."""
    profile = view.props.get("networkProfile")
    return {
        "mtu": view.props.get("mtu"),
        "network_profile": profile.rsplit("/", 1)[-1] if isinstance(profile, str) else profile,
    }


def subnetwork_summary(view: ResourceView) -> dict[str, Any]:
    """A subnetwork's region and range."""
    return {"region": view.props.get("region"), "range": view.props.get("ipCidrRange")}


RESOURCES: tuple[ResourceType, ...] = (
    ResourceType(
        "network",
        types=("gcp:compute/network:Network",),
        summary=network_summary,
        mock=Ref(f"{_AIDS}:network"),
    ),
    ResourceType(
        "subnetwork",
        types=("gcp:compute/subnetwork:Subnetwork",),
        summary=subnetwork_summary,
        mock=Ref(f"{_AIDS}:subnetwork"),
    ),
    ResourceType(
        "service_account",
        types=("gcp:serviceaccount/account:Account",),
        mock=Ref(f"{_AIDS}:service_account"),
        autonamed=False,
    ),
    ResourceType(
        "kubernetes",
        pattern=KUBERNETES_PATTERN,
        summary=kubernetes_summary,
        mock=Ref(f"{_AIDS}:kubernetes"),
    ),
)
