"""The Kueue objects of a :class:`~pulumi_dws.KueueQueue`, as plain dicts: the Topology, a
ResourceFlavor per flavor, the ProvisioningRequestConfig and AdmissionCheck of its queued pools,
the ClusterQueue and a LocalQueue per namespace (:func:`kueue_manifests` needs no Pulumi)."""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any

from ...models import parse_args
from .flavors import Flavor
from .spec import (
    API_GROUP,
    GPU_TOLERATION,
    POD_SET_UPDATES,
    POD_SET_UPDATES_SINCE,
    PROVISIONING_CLASS,
    PROVISIONING_CONTROLLER,
    QUEUED_TOLERATION,
    TPU_TOLERATION,
    UNBOUNDED_EPHEMERAL,
    KueueQueueSpec,
    kueue_release,
)

__all__ = [
    "kueue_manifests",
    "build_manifests",
    "object_names",
    "flavor_body",
    "label_values",
    "quotas",
]


def flavor_body(spec: KueueQueueSpec, flavor: Flavor, label_value: Any) -> dict[str, Any]:
    """The ResourceFlavor's spec: the pool's (or class's) nodes, and their taints tolerated."""
    key, _ = flavor.label
    labels: dict[str, Any] = {key: label_value}
    body: dict[str, Any] = {"nodeLabels": labels}
    if flavor.compute_class is not None or flavor.class_name is not None:
        # GKE adds the tolerations a class's nodes need (and Autopilot refuses GPU tolerations
        # on Pods that request no GPU, which a flavor would give every pod set it admits).
        pass
    elif not flavor.tpu:
        tolerations = [dict(GPU_TOLERATION)]
        if flavor.queued and spec.pod_set_merge_policy is not None:
            # Merged pod sets after the first get neither the request's nodeSelector nor GKE's
            # consume annotations (see POD_SET_UPDATES): without this they could not start on
            # the queued pool's tainted nodes at all.
            tolerations.append(dict(QUEUED_TOLERATION))
        body["tolerations"] = tolerations
    else:
        if flavor.slice is not None:
            labels.update(flavor.slice.gke_node_labels())
        tolerations = [dict(TPU_TOLERATION)]
        if flavor.queued:
            tolerations.append(dict(QUEUED_TOLERATION))
        body["tolerations"] = tolerations
    if spec.topology is not False:
        body["topologyName"] = "__topology__"
    return body


def object_names(spec: KueueQueueSpec, default_name: str) -> dict[str, str]:
    """The Kueue objects' names (:meth:`KueueQueueSpec.object_names`), those whose spec Kueue
    freezes ending in a fingerprint of it: the Topology (its ``levels``, immutable in every
    Kueue release) and each flavor with a ``topologyName`` (its whole spec until Kueue 0.16,
    its node labels, tolerations and topology from 0.17: the ResourceFlavor CRD's CEL rules).
    A change there is then a new object that the ClusterQueue lists instead, and the old one
    goes once Kueue's finalizer lets it (no ClusterQueue lists it, no flavor uses it), where
    an update would be refused and a delete-before-replace would wait for ever on that
    finalizer."""
    if spec.topology is False:
        return spec.object_names(default_name)
    levels = [{"nodeLabel": key} for key in spec.topology_levels]
    topology = spec.object_names(default_name, {"topology": levels})["topology"]
    frozen: dict[str, Any] = {"topology": levels}
    for flavor in spec.resolved_flavors():
        body = flavor_body(spec, flavor, flavor.known_label)
        body["topologyName"] = topology
        frozen["flavor" if spec.flavors is None else f"flavor:{flavor.suffix}"] = body
    return spec.object_names(default_name, frozen)


def build_manifests(
    spec: KueueQueueSpec,
    names: Mapping[str, str],
    label_values: Sequence[Any],
    quotas: Sequence[Any],
) -> list[dict[str, Any]]:
    """The manifests; each flavor's label value (a pool or class name) and quota (GPUs or TPU
    chips) may be Pulumi Outputs."""
    api = f"{API_GROUP}/{spec.api_version}"
    flavors = spec.resolved_flavors()
    queued = [f for f in flavors if f.queued]
    resource = spec.resource
    release = kueue_release(spec.kueue_version)

    def obj(
        kind: str, name: str, body: dict[str, Any], namespace: str | None = None, version: str = api
    ) -> dict[str, Any]:
        meta = {"name": name, **({"namespace": namespace} if namespace else {})}
        return {"apiVersion": version, "kind": kind, "metadata": meta, "spec": body}

    out: list[dict[str, Any]] = []
    if spec.topology is not False:
        levels = [{"nodeLabel": key} for key in spec.topology_levels]
        version = f"{API_GROUP}/{spec.topology_api_version}"
        out.append(obj("Topology", names["topology"], {"levels": levels}, version=version))
    for flavor, label_value in zip(flavors, label_values, strict=True):
        body = flavor_body(spec, flavor, label_value)
        if "topologyName" in body:
            body["topologyName"] = names["topology"]
        out.append(obj("ResourceFlavor", spec.flavor_name(names, flavor), body))
    if queued:
        config: dict[str, Any] = {
            "provisioningClassName": PROVISIONING_CLASS,
            "managedResources": [resource],
        }
        if release[:2] >= POD_SET_UPDATES_SINCE:
            config["podSetUpdates"] = copy.deepcopy(POD_SET_UPDATES)
        config["retryStrategy"] = spec.retry_strategy.manifest()
        if spec.pod_set_merge_policy is not None:
            config["podSetMergePolicy"] = spec.pod_set_merge_policy
        parameters = spec.request_parameters(flavors)
        if parameters:
            config["parameters"] = parameters
        out.append(obj("ProvisioningRequestConfig", names["config"], config))
        check = {
            "controllerName": PROVISIONING_CONTROLLER,
            "parameters": {
                "apiGroup": API_GROUP,
                "kind": "ProvisioningRequestConfig",
                "name": names["config"],
            },
        }
        out.append(obj("AdmissionCheck", names["check"], check))
    covered = ["cpu", "memory", "ephemeral-storage", resource]
    flavor_quotas = []
    for flavor, quota in zip(flavors, quotas, strict=True):
        values = [
            ("cpu", spec.cpu_quota),
            ("memory", spec.memory_quota),
            ("ephemeral-storage", UNBOUNDED_EPHEMERAL),
            (resource, quota),
        ]
        flavor_quotas.append(
            {
                "name": spec.flavor_name(names, flavor),
                "resources": [{"name": n, "nominalQuota": q} for n, q in values],
            }
        )
    cluster_queue: dict[str, Any] = {
        "namespaceSelector": {
            "matchExpressions": [
                {
                    "key": "kubernetes.io/metadata.name",
                    "operator": "In",
                    "values": list(spec.namespaces),
                }
            ]
        },
        "queueingStrategy": spec.queueing_strategy,
        "resourceGroups": [{"coveredResources": covered, "flavors": flavor_quotas}],
    }
    if queued:
        if spec.flavors is not None:
            # Only the queued pools' flavors wait for a ProvisioningRequest (as Google's
            # reservation + DWS sample); the strategy is in v1beta1 and v1beta2, and v1beta2
            # has no top-level admissionChecks.
            on = [spec.flavor_name(names, f) for f in queued]
            entry: dict[str, Any] = {"name": names["check"]}
            if len(on) < len(flavors):
                entry["onFlavors"] = on
            cluster_queue["admissionChecksStrategy"] = {"admissionChecks": [entry]}
        elif spec.api_version == "v1beta2":
            cluster_queue["admissionChecksStrategy"] = {
                "admissionChecks": [{"name": names["check"]}]
            }
        else:
            cluster_queue["admissionChecks"] = [names["check"]]
    out.append(obj("ClusterQueue", names["cluster_queue"], cluster_queue))
    for ns in spec.namespaces:
        out.append(
            obj("LocalQueue", names["local_queue"], {"clusterQueue": names["cluster_queue"]}, ns)
        )
    return out


def label_values(flavors: Sequence[Flavor]) -> list[Any]:
    return [f.label[1] for f in flavors]


def quotas(flavors: Sequence[Flavor]) -> list[Any]:
    out = []
    for flavor in flavors:
        quota = flavor.quota
        if quota is None:
            assert flavor.pool is not None
            quota = flavor.pool.tpu_chips_total if flavor.tpu else flavor.pool.gpus_total
        out.append(quota)
    return out


def kueue_manifests(
    pool_name: str | None,
    namespaces: Sequence[str],
    gpu_quota: int | None = None,
    *,
    name: str = "dws",
    **options: Any,
) -> list[dict[str, Any]]:
    """The Kueue objects for one DWS pool (or, with ``pool_name`` None and ``flavors`` in
    ``options``, for flavors given by name) as plain dicts (pure: no Pulumi, no cluster).

    ``options`` are the other :class:`KueueQueueArgs` (``tpu_quota`` instead of ``gpu_quota``
    for a TPU pool, ``api_version``, ``kueue_version``, ``max_run_duration``,
    ``provisioning_request``, ``local_queue_name``, ``retry_strategy``,
    ``pod_set_merge_policy``, ``topology``, ``cpu_quota``, ``memory_quota``,
    ``queueing_strategy``). Raises :class:`DwsValidationError` like the component does.
    """
    args: dict[str, Any] = {"namespaces": namespaces, "name": name, **options}
    if pool_name is not None:
        args["node_pool"] = pool_name
    if gpu_quota is not None:
        args["gpu_quota"] = gpu_quota
    spec = parse_args(KueueQueueSpec, args)
    flavors = spec.resolved_flavors()
    return build_manifests(spec, object_names(spec, name), label_values(flavors), quotas(flavors))
