"""pulumi-gcp inputs as the Compute REST requests the pulumi-gcp provider sends for them.

Use it to create, in the Compute emulator (or compare with gcloud's requests), what a program
registered under :class:`~pulumi_dws.testing.GcpMocks`: instance templates, managed instance
groups, workload policies, networks and subnetworks::

    group = mocks.one("gcp:compute/regionInstanceGroupManager:RegionInstanceGroupManager")
    path, body = group_request(group.inputs)      # "compute/beta/projects/p/regions/r/..."
    requests.post(f"{emu.url}{path}", json=body)

pulumi-gcp bridges terraform-provider-google-beta, which calls Compute's ``beta`` API
(``{{ComputeBasePath}}`` is ``https://compute.googleapis.com/compute/beta/``). What it sends
was read from hashicorp/terraform-provider-google-beta@93c65b2d60fea598528f2769b5b09de856f8cb8c
(``GROUP_SOURCE``, ``ZONAL_GROUP_SOURCE``, ``POLICY_SOURCE``, ``NETWORK_SOURCE``,
``SUBNETWORK_SOURCE``), including the values it fills in or forces:

* a managed instance group's create body always carries ``targetSize`` (0 when unset),
  ``listManagedInstancesResults: PAGELESS``, ``statefulPolicy: {preservedState: {}}``,
  ``resourcePolicies`` (``{workloadPolicy: null}`` without one), ``standbyPolicy: {}`` and
  (``params``) ``{}``; each version's ``targetSize`` is ``{}``; ``instanceLifecyclePolicy``
  gets the schema defaults ``forceUpdateOnRepair: NO`` and ``onFailedHealthCheck:
  DEFAULT_ACTION``;
* a regional group's ``update_policy``, once given, becomes ``expandRegionUpdatePolicy``'s map:
  ``minReadySec`` (0), ``mostDisruptiveAllowedAction`` (null when unset) and **both**
  ``maxSurge`` and ``maxUnavailable`` as ``{fixed: N, percent: null}``, an unset fixed value
  going out as 0 (a percent above 0 instead gives ``{percent: N, fixed: null}``); a zonal
  group's (``expandUpdatePolicy``) likewise, with ``replacementMethod`` always sent;
* ``distribution_policy_zones`` become ``{zone: "zones/<zone>"}`` entries;
* a workload policy's ``region`` is sent as ``projects/P/regions/R`` and a null
  ``diskConsistencyGroupPolicy``; a subnetwork's ``network`` and ``region`` as relative links.

Templates follow the expanders for the fields pulumi-dws sets: ``reservation_affinity.type``
is ``consumeReservationType`` and ``specific_reservation`` its ``key``/``values``; ``metadata``
a list of ``items``; a boot disk's image, size and type go to ``initializeParams``;
``guest_accelerators`` are ``acceleratorType``/``acceleratorCount``; an empty
``access_configs`` entry is a one-to-one NAT; ``nic_type`` is ``nicType``; int64 values are
strings. Pulumi carries every number as a float: whole numbers come back as ints.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = [
    "API_VERSION",
    "GROUP_SOURCE",
    "ZONAL_GROUP_SOURCE",
    "POLICY_SOURCE",
    "NETWORK_SOURCE",
    "SUBNETWORK_SOURCE",
    "template_body",
    "template_properties",
    "group_body",
    "group_request",
    "region_update_policy",
    "resource_policy_body",
    "network_body",
    "subnetwork_body",
]

API_VERSION = "beta"
"""The Compute API version the pulumi-gcp provider calls (terraform-provider-google-beta)."""
_TPG = "hashicorp/terraform-provider-google-beta@93c65b2d60fea598528f2769b5b09de856f8cb8c"
GROUP_SOURCE = (
    f"{_TPG} google-beta/services/compute/resource_compute_region_instance_group_manager.go "
    "(resourceComputeRegionInstanceGroupManagerCreate, expandRegionUpdatePolicy, "
    "expandDistributionPolicyForCreate)"
)
ZONAL_GROUP_SOURCE = (
    f"{_TPG} google-beta/services/compute/resource_compute_instance_group_manager.go "
    "(resourceComputeInstanceGroupManagerCreate, expandUpdatePolicy, expandVersionsV2, "
    "expandInstanceLifecyclePolicy, expandStatefulPolicy, expandResourcePolicies)"
)
POLICY_SOURCE = (
    f"{_TPG} google-beta/services/compute/resource_compute_resource_policy.go "
    "(resourceComputeResourcePolicyCreate, expandComputeResourcePolicyWorkloadPolicy)"
)
NETWORK_SOURCE = (
    f"{_TPG} google-beta/services/compute/resource_compute_network.go "
    "(resourceComputeNetworkCreate, resourceComputeNetworkEncoder)"
)
SUBNETWORK_SOURCE = (
    f"{_TPG} google-beta/services/compute/resource_compute_subnetwork.go "
    "(resourceComputeSubnetworkCreate, expandComputeSubnetworkNetwork)"
)


def _whole(value: Any) -> Any:
    return int(value) if isinstance(value, float) and value.is_integer() else value


def _int64(value: Any) -> str:
    return str(int(float(value)))


def _network(project: str, value: str, collection: str) -> str:
    if "/" in value:
        return value
    return f"projects/{project}/{collection}/{value}"


def _disk(disk: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "PERSISTENT", "mode": "READ_WRITE"}
    for key in ("boot", "autoDelete", "deviceName"):
        if disk.get(key) is not None:
            out[key] = disk[key]
    params: dict[str, Any] = {}
    if disk.get("sourceImage"):
        params["sourceImage"] = disk["sourceImage"]
    if disk.get("diskSizeGb") is not None:
        params["diskSizeGb"] = _int64(disk["diskSizeGb"])
    if disk.get("diskType"):
        params["diskType"] = disk["diskType"]
    if params:
        out["initializeParams"] = params
    return out


def _interface(project: str, region: str | None, nic: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if nic.get("network"):
        out["network"] = _network(project, str(nic["network"]), "global/networks")
    if nic.get("subnetwork"):
        where = f"regions/{region}/subnetworks" if region else "subnetworks"
        out["subnetwork"] = _network(project, str(nic["subnetwork"]), where)
    if nic.get("nicType"):
        out["nicType"] = nic["nicType"]
    configs = nic.get("accessConfigs")
    if configs:
        out["accessConfigs"] = [
            {"type": "ONE_TO_ONE_NAT", "name": "external-nat", **dict(c or {})} for c in configs
        ]
    return out


def _scheduling(scheduling: Mapping[str, Any]) -> dict[str, Any]:
    out = {k: _whole(v) for k, v in scheduling.items() if k != "maxRunDuration"}
    run = scheduling.get("maxRunDuration")
    if run:
        out["maxRunDuration"] = {"seconds": _int64(run["seconds"])}
    return out


def _affinity(affinity: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"consumeReservationType": affinity["type"]}
    specific = affinity.get("specificReservation") or {}
    out.update({k: specific[k] for k in ("key", "values") if k in specific})
    return out


def template_properties(inputs: Mapping[str, Any], region: str | None = None) -> dict[str, Any]:
    """The ``properties`` of the ``InstanceTemplate`` a pulumi-gcp template's inputs (as
    registered: camelCase) become."""
    project = str(inputs.get("project") or "")
    props: dict[str, Any] = {"machineType": inputs["machineType"]}
    if inputs.get("disks"):
        props["disks"] = [_disk(d) for d in inputs["disks"]]
    if inputs.get("networkInterfaces"):
        props["networkInterfaces"] = [
            _interface(project, region, nic) for nic in inputs["networkInterfaces"]
        ]
    account = inputs.get("serviceAccount")
    if account:
        props["serviceAccounts"] = [
            {"email": account.get("email") or "default", "scopes": list(account["scopes"])}
        ]
    if inputs.get("guestAccelerators"):
        props["guestAccelerators"] = [
            {"acceleratorType": a["type"], "acceleratorCount": _whole(a["count"])}
            for a in inputs["guestAccelerators"]
        ]
    if inputs.get("scheduling"):
        props["scheduling"] = _scheduling(inputs["scheduling"])
    if inputs.get("reservationAffinity"):
        props["reservationAffinity"] = _affinity(inputs["reservationAffinity"])
    if inputs.get("labels"):
        props["labels"] = dict(inputs["labels"])
    if inputs.get("metadata"):
        props["metadata"] = {
            "items": [{"key": k, "value": v} for k, v in sorted(inputs["metadata"].items())]
        }
    return props


def template_body(name: str, inputs: Mapping[str, Any]) -> dict[str, Any]:
    """The ``instanceTemplates.insert`` body (``regionInstanceTemplates.insert`` when the
    inputs have a ``region``) of a pulumi-gcp template named ``name``."""
    region = inputs.get("region")
    body: dict[str, Any] = {"name": name, "properties": template_properties(inputs, region)}
    if region:
        body["region"] = region
    return body


def _lifecycle(policy: Mapping[str, Any] | None) -> dict[str, Any]:
    """``expandInstanceLifecyclePolicy``: the given block with the schema's defaults filled in
    (``force_update_on_repair`` NO, ``on_failed_health_check`` DEFAULT_ACTION, an empty
    ``onRepair``); no block, no field."""
    if not policy:
        return {}
    return {
        "forceUpdateOnRepair": policy.get("forceUpdateOnRepair") or "NO",
        "defaultActionOnFailure": policy.get("defaultActionOnFailure") or "REPAIR",
        "onFailedHealthCheck": policy.get("onFailedHealthCheck") or "DEFAULT_ACTION",
        "onRepair": dict(policy.get("onRepair") or {}),
    }


def _fixed_or_percent(policy: Mapping[str, Any], name: str) -> dict[str, Any]:
    percent = _whole(policy.get(f"{name}Percent") or 0)
    if percent > 0:
        return {"percent": percent, "fixed": None}
    return {"fixed": _whole(policy.get(f"{name}Fixed") or 0), "percent": None}


def region_update_policy(policy: Mapping[str, Any] | None) -> dict[str, Any]:
    """``expandRegionUpdatePolicy`` (GROUP_SOURCE) of a regional group's ``update_policy``
    inputs: both fixed values forced (an unset one as 0), ``minReadySec`` 0; nothing given:
    an empty map (Google then uses its defaults)."""
    if not policy:
        return {}
    out: dict[str, Any] = {
        "minimalAction": policy.get("minimalAction"),
        "mostDisruptiveAllowedAction": policy.get("mostDisruptiveAllowedAction") or None,
        "type": policy.get("type"),
        "instanceRedistributionType": policy.get("instanceRedistributionType") or "",
        "minReadySec": _whole(policy.get("minReadySec") or 0),
        "maxSurge": _fixed_or_percent(policy, "maxSurge"),
        "maxUnavailable": _fixed_or_percent(policy, "maxUnavailable"),
    }
    if policy.get("replacementMethod"):
        out["replacementMethod"] = policy["replacementMethod"]
    return out


def _zonal_update_policy(policy: Mapping[str, Any] | None) -> dict[str, Any]:
    """``expandUpdatePolicy`` (ZONAL_GROUP_SOURCE): as the regional one without
    redistribution, ``replacementMethod`` always sent."""
    if not policy:
        return {}
    out = region_update_policy(policy)
    out.pop("instanceRedistributionType")
    out["replacementMethod"] = policy.get("replacementMethod") or ""
    return out


def group_body(inputs: Mapping[str, Any]) -> dict[str, Any]:
    """The ``instanceGroupManagers.insert`` body (zonal, or regional when the inputs have a
    ``region``) the pulumi-gcp provider sends for a group's inputs (as registered: camelCase),
    forced values included (see the module docstring)."""
    regional = bool(inputs.get("region"))
    workload = (inputs.get("resourcePolicies") or {}).get("workloadPolicy")
    versions = []
    for version in inputs.get("versions") or []:
        entry: dict[str, Any] = {"instanceTemplate": version.get("instanceTemplate")}
        if version.get("name") or not regional:  # the zonal (map) expander sends "" too
            entry["name"] = version.get("name") or ""
        entry["targetSize"] = {}
        versions.append(entry)
    body: dict[str, Any] = {
        "name": inputs["name"],
        "baseInstanceName": inputs["baseInstanceName"],
        "targetSize": _whole(inputs.get("targetSize") or 0),
        "listManagedInstancesResults": inputs.get("listManagedInstancesResults") or "PAGELESS",
        "versions": versions,
        "updatePolicy": (
            region_update_policy(inputs.get("updatePolicy"))
            if regional
            else _zonal_update_policy(inputs.get("updatePolicy"))
        ),
        "instanceLifecyclePolicy": _lifecycle(inputs.get("instanceLifecyclePolicy")),
        "statefulPolicy": {"preservedState": {}},
        "resourcePolicies": {"workloadPolicy": workload or None},
        "standbyPolicy": {},
        "params": {},
    }
    if not regional:
        body["description"] = inputs.get("description") or ""
    elif inputs.get("description"):
        body["description"] = inputs["description"]
    shape = inputs.get("distributionPolicyTargetShape")
    zones = inputs.get("distributionPolicyZones")
    if regional and (shape or zones):
        body["distributionPolicy"] = {}
        if zones:
            body["distributionPolicy"]["zones"] = [{"zone": f"zones/{z}"} for z in zones]
        if shape:
            body["distributionPolicy"]["targetShape"] = shape
    return body


def group_request(inputs: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    """``(path, body)`` of the group's insert: ``compute/beta/projects/P/<scope>/
    instanceGroupManagers`` (the provider's API version) and :func:`group_body`."""
    project = inputs.get("project")
    scope = f"regions/{inputs['region']}" if inputs.get("region") else f"zones/{inputs['zone']}"
    path = f"compute/{API_VERSION}/projects/{project}/{scope}/instanceGroupManagers"
    return path, group_body(inputs)


def resource_policy_body(inputs: Mapping[str, Any], name: str | None = None) -> dict[str, Any]:
    """The ``resourcePolicies.insert`` body of a pulumi-gcp ``ResourcePolicy``'s inputs with a
    ``workload_policy`` (POLICY_SOURCE): ``name`` (``name``: the one the provider gave an
    autonamed policy), ``workloadPolicy`` (empty values left out), ``region`` as
    ``projects/P/regions/R`` and ``diskConsistencyGroupPolicy: null``."""
    body: dict[str, Any] = {"name": name or inputs["name"]}
    if inputs.get("description"):
        body["description"] = inputs["description"]
    body["diskConsistencyGroupPolicy"] = None
    workload = inputs.get("workloadPolicy")
    if workload:
        body["workloadPolicy"] = {
            key: workload[key]
            for key in ("type", "maxTopologyDistance", "acceleratorTopology",
                        "acceleratorTopologyMode")
            if workload.get(key)
        }  # fmt: skip
    project, region = inputs.get("project"), inputs.get("region")
    body["region"] = f"projects/{project}/regions/{region}"
    return body


def network_body(inputs: Mapping[str, Any]) -> dict[str, Any]:
    """The ``networks.insert`` body of a pulumi-gcp ``Network``'s inputs (NETWORK_SOURCE):
    ``autoCreateSubnetworks`` always sent (the schema default true), ``routingConfig`` only
    with a routing mode (and then ``deleteBgpAlwaysCompareMed: false``, the encoder's)."""
    body: dict[str, Any] = {"name": inputs["name"]}
    if inputs.get("description"):
        body["description"] = inputs["description"]
    auto = inputs.get("autoCreateSubnetworks")
    body["autoCreateSubnetworks"] = True if auto is None else bool(auto)
    if inputs.get("routingMode"):
        body["routingConfig"] = {
            "routingMode": inputs["routingMode"],
            "deleteBgpAlwaysCompareMed": False,
        }
    if inputs.get("mtu"):
        body["mtu"] = _whole(inputs["mtu"])
    if inputs.get("networkProfile"):
        body["networkProfile"] = inputs["networkProfile"]
    return body


def _relative(value: str, project: str, collection: str) -> str:
    """``ParseGlobalFieldValue(...).RelativeLink()``: a name or link as
    ``projects/P/<collection>/NAME``."""
    if "projects/" in value:
        return "projects/" + value.split("projects/", 1)[1]
    return f"projects/{project}/{collection}/{value}"


def subnetwork_body(inputs: Mapping[str, Any]) -> dict[str, Any]:
    """The ``subnetworks.insert`` body of a pulumi-gcp ``Subnetwork``'s inputs
    (SUBNETWORK_SOURCE): ``network`` and ``region`` as relative links."""
    project = str(inputs.get("project") or "")
    return {
        "ipCidrRange": inputs["ipCidrRange"],
        "name": inputs["name"],
        "network": _relative(str(inputs["network"]), project, "global/networks"),
        "region": _relative(str(inputs["region"]), project, "regions"),
    }
