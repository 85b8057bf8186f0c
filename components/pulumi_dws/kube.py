"""A Kubernetes provider for an existing GKE cluster, authenticated by ``gke-gcloud-auth-plugin``.

The kubeconfig carries no credentials: ``kubectl``-style exec auth runs the plugin (installed
with ``gcloud components install gke-gcloud-auth-plugin``) whenever Pulumi talks to the cluster.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import pulumi
import pulumi_gcp as gcp
import pulumi_kubernetes as kubernetes

from .errors import DwsValidationError

__all__ = [
    "AUTH_PLUGIN",
    "cluster_name",
    "kubeconfig",
    "cluster_kubeconfig",
    "gke_provider",
    "has_kubernetes_provider",
]

AUTH_PLUGIN = "gke-gcloud-auth-plugin"
_INSTALL_HINT = (
    "Install gke-gcloud-auth-plugin: gcloud components install gke-gcloud-auth-plugin "
    "(https://cloud.google.com/kubernetes-engine/docs/how-to/cluster-access-for-kubectl)"
)


def cluster_name(cluster: str) -> str:
    """``projects/p/locations/l/clusters/NAME`` (or a plain name) -> ``NAME``."""
    return cluster.rsplit("/", 1)[-1]


def kubeconfig(endpoint: str, ca_certificate: str, context: str = "gke") -> str:
    """A kubeconfig (JSON, which is valid YAML) for ``https://endpoint`` with exec auth.

    ``ca_certificate`` is the base64 PEM GKE returns as ``masterAuth.clusterCaCertificate``.
    """
    config: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [
            {
                "name": context,
                "cluster": {
                    "server": f"https://{endpoint}",
                    "certificate-authority-data": ca_certificate,
                },
            }
        ],
        "contexts": [{"name": context, "context": {"cluster": context, "user": context}}],
        "current-context": context,
        "users": [
            {
                "name": context,
                "user": {
                    "exec": {
                        "apiVersion": "client.authentication.k8s.io/v1beta1",
                        "command": AUTH_PLUGIN,
                        "installHint": _INSTALL_HINT,
                        "provideClusterInfo": True,
                        "interactiveMode": "Never",
                    }
                },
            }
        ],
    }
    return json.dumps(config, indent=2)


def cluster_kubeconfig(
    cluster: pulumi.Input[str],
    location: pulumi.Input[str],
    project: pulumi.Input[str] | None = None,
    opts: pulumi.InvokeOutputOptions | None = None,
) -> pulumi.Output[str]:
    """Look the cluster up (``gcp.container.get_cluster_output``) and build its kubeconfig.

    A lookup without an endpoint or a CA certificate (a cluster still being created, or mocks
    that answer ``getCluster`` with less) raises :class:`DwsValidationError` naming the cluster
    and saying to pass a Kubernetes provider instead.
    """
    name = pulumi.Output.from_input(cluster).apply(cluster_name)
    found = gcp.container.get_cluster_output(
        name=name, location=location, project=project, opts=opts
    )
    return pulumi.Output.all(name, location, found.endpoint, found.master_auths).apply(
        lambda a: _kubeconfig_of(a[0], a[1], a[2], a[3])
    )


def _kubeconfig_of(name: str, location: Any, endpoint: Any, master_auths: Any) -> str:
    missing = [
        what
        for what, value in (("endpoint", endpoint), ("CA certificate", _ca(master_auths)))
        if not value
    ]
    if missing:
        raise DwsValidationError(
            "cluster",
            name,
            f"in {location} has no {' or '.join(missing)} in its getCluster lookup (a cluster "
            "still being created, or mocks without them), so no Kubernetes provider can be "
            "built for it; pass a kubernetes.Provider through "
            "opts=pulumi.ResourceOptions(provider=...)",
        )
    return kubeconfig(endpoint, _ca(master_auths) or "", f"gke_{name}")


def gke_provider(
    name: str,
    cluster: pulumi.Input[str],
    location: pulumi.Input[str],
    project: pulumi.Input[str] | None = None,
    opts: pulumi.ResourceOptions | None = None,
) -> kubernetes.Provider:
    """A ``kubernetes.Provider`` for the GKE cluster ``cluster`` in ``location``."""
    parent = opts.parent if opts is not None else None
    invoke = pulumi.InvokeOutputOptions(parent=parent) if parent is not None else None
    return kubernetes.Provider(
        name,
        kubeconfig=cluster_kubeconfig(cluster, location, project, invoke),
        opts=opts,
    )


def _ca(master_auths: Any) -> str | None:
    """The CA certificate from ``getCluster``'s ``master_auths`` (typed or plain dicts), or
    None when the lookup has none."""
    if not isinstance(master_auths, (list, tuple)) or not master_auths:
        return None
    first = master_auths[0]
    for key in ("cluster_ca_certificate", "clusterCaCertificate"):
        value = getattr(first, key, None) or (first.get(key) if isinstance(first, dict) else None)
        if value:
            return str(value)
    return None


def has_kubernetes_provider(opts: pulumi.ResourceOptions | None) -> bool:
    """Whether ``opts`` (or the parent they name) brings a Kubernetes provider."""
    if opts is None:
        return False
    if getattr(opts.provider, "package", None) == "kubernetes":
        return True
    providers = opts.providers
    if isinstance(providers, Mapping):
        if "kubernetes" in providers:
            return True
    elif any(getattr(p, "package", None) == "kubernetes" for p in providers or []):
        return True
    inherited = getattr(opts.parent, "_providers", None) or {}
    return "kubernetes" in inherited
