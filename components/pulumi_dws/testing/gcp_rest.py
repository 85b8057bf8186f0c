"""pulumi-gcp inputs as the Compute REST bodies the pulumi-gcp provider sends for them.

Use it to create, in the Compute emulator (or compare with gcloud's requests), what a program
registered under :class:`~pulumi_dws.testing.GcpMocks`: an instance template
(``InstanceTemplate`` / ``RegionInstanceTemplate``) and a managed instance group
(``InstanceGroupManager`` / ``RegionInstanceGroupManager``)::

    template = mocks.one("gcp:compute/instanceTemplate:InstanceTemplate")
    body = template_body(template.outputs["name"], template.inputs)
    requests.post(f"{emu.url}compute/v1/projects/p/global/instanceTemplates", json=body)

The mapping follows terraform-provider-google's expanders for the fields pulumi-dws sets:
``reservation_affinity.type`` is ``consumeReservationType`` and ``specific_reservation`` its
``key``/``values``; ``metadata`` a list of ``items``; a boot disk's image, size and type go to
``initializeParams``; ``guest_accelerators`` are ``acceleratorType``/``acceleratorCount``; an
empty ``access_configs`` entry is a one-to-one NAT; ``max_surge_fixed`` is ``maxSurge.fixed``;
a group without ``target_size`` is sent with ``targetSize: 0``; int64 values are strings.
Pulumi carries every number as a float: whole numbers come back as ints.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["template_body", "group_body", "template_properties"]


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


def group_body(inputs: Mapping[str, Any]) -> dict[str, Any]:
    """The ``instanceGroupManagers.insert`` body (zonal or regional) of a pulumi-gcp group's
    inputs."""
    body: dict[str, Any] = {
        "name": inputs["name"],
        "baseInstanceName": inputs["baseInstanceName"],
        "targetSize": _whole(inputs.get("targetSize") or 0),
        "versions": [
            {k: v for k, v in version.items() if k in ("name", "instanceTemplate")}
            for version in inputs.get("versions") or []
        ],
    }
    policy = inputs.get("instanceLifecyclePolicy")
    if policy:
        body["instanceLifecyclePolicy"] = dict(policy)
    shape = inputs.get("distributionPolicyTargetShape")
    zones = inputs.get("distributionPolicyZones")
    if shape or zones:
        body["distributionPolicy"] = {}
        if shape:
            body["distributionPolicy"]["targetShape"] = shape
        if zones:
            body["distributionPolicy"]["zones"] = [{"zone": f"zones/{z}"} for z in zones]
    update = inputs.get("updatePolicy")
    if update:
        out = {k: v for k, v in update.items() if not k.startswith("maxSurge")}
        if update.get("maxSurgeFixed") is not None:
            out["maxSurge"] = {"fixed": _whole(update["maxSurgeFixed"])}
        body["updatePolicy"] = out
    return body
