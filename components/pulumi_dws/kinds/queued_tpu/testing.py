"""Test aids of Cloud TPU queued resources (:mod:`pulumi_dws.kinds.queued_tpu.kind`): how a
``QueuedTpu`` dynamic resource and a raw pulumi-gcp ``V2QueuedResource`` behave under
:class:`~pulumi_dws.testing.GcpMocks`, their policy samples and violating examples."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...clock import now
from ...testing.samples import DELETE, Capacity, Example, Sample
from ...validation import format_timestamp
from .provider import TYPE_TOKEN as QUEUED_TPU

if TYPE_CHECKING:
    from ...testing.mocks import GcpMocks

__all__ = ["queued_tpu", "raw_queued_resource", "SAMPLES", "CAPACITY", "EXAMPLES"]

RAW_QUEUED_RESOURCE = "gcp:tpu/v2QueuedResource:V2QueuedResource"


def queued_tpu(mocks: GcpMocks, typ: str, name: str, s: dict[str, Any]) -> str:
    """Like the provider after a successful create: ``state`` ``ACTIVE`` (``WAITING_FOR_
    RESOURCES`` with ``waitFor: accepted``); the id is
    ``projects/<p>/locations/<zone>/queuedResources/<id>``."""
    project = s.get("project") or mocks.project
    zone = s.get("zone") or f"{mocks.region}-a"
    rid = f"projects/{project}/locations/{zone}/queuedResources/{s.get('queuedResourceId') or name}"
    s["name"] = rid
    s["state"] = mocks.lifecycle(
        "WAITING_FOR_RESOURCES" if s.get("waitFor") == "accepted" else "ACTIVE"
    )
    s["observed"] = {"createTime": format_timestamp(now()), "stateInitiator": None}
    s["drift"] = []
    return rid


def raw_queued_resource(mocks: GcpMocks, typ: str, name: str, s: dict[str, Any]) -> str:
    """pulumi-gcp's ``V2QueuedResource``: the id is
    ``projects/<p>/locations/<zone>/queuedResources/<name>``."""
    zone = s.get("zone") or f"{mocks.region}-a"
    return f"projects/{s['project']}/locations/{zone}/queuedResources/{s['name']}"


# ---------------------------------------------------------------------- policy samples
def queued_tpu_body() -> dict[str, Any]:
    """A Flex-start v6e-16 request for a day, as ``QueuedTpu`` passes it to its provider (the
    body gcloud ``--provisioning-model=flex-start --max-run-duration=1d
    --valid-until-duration=2h`` sends)."""
    return {
        "project": "my-project",
        "zone": "us-east5-a",
        "queuedResourceId": "trainer",
        "waitFor": "active",
        "body": {
            "provisioningModel": "FLEX_START",
            "queueingPolicy": {"validUntilDuration": "7200s"},
            "runDuration": {"maxRunDuration": "86400s"},
            "tpu": {
                "nodeSpec": [
                    {
                        "node": {
                            "acceleratorType": "v6e-16",
                            "autocheckpointEnabled": False,
                            "labels": {"team": "ml"},
                            "metadata": {},
                            "networkConfig": {"enableExternalIps": False, "network": "default"},
                            "runtimeVersion": "v2-alpha-tpuv6e",
                            "serviceAccount": {},
                        },
                        "nodeId": "trainer",
                        "parent": "projects/my-project/locations/us-east5-a",
                    }
                ]
            },
        },
    }


def raw_queued_resource_props() -> dict[str, Any]:
    """A raw pulumi-gcp ``V2QueuedResource`` asking for a v5e-8 slice (the ``v2`` API: no
    provisioning model, so on-demand and unbounded in time)."""
    return {
        "project": "my-project",
        "zone": "us-west4-a",
        "name": "raw-v5e",
        "tpu": {
            "nodeSpecs": [
                {
                    "node": {
                        "acceleratorType": "v5litepod-8",
                        "runtimeVersion": "v2-alpha-tpuv5-lite",
                        "networkConfig": {"enableExternalIps": False, "network": "default"},
                    },
                    "nodeId": "raw-v5e",
                    "parent": "projects/my-project/locations/us-west4-a",
                }
            ]
        },
    }


SAMPLES: dict[str, Sample] = {
    "queued_tpu_body": (QUEUED_TPU, queued_tpu_body),
    "raw_queued_resource": (RAW_QUEUED_RESOURCE, raw_queued_resource_props),
}

CAPACITY: dict[str, Capacity] = {
    # a Flex-start v6e-16 for 1 day; pulumi-gcp's V2QueuedResource: v5e-8, no run duration
    "queued_tpu_body": Capacity("v6e", tpu_chips=16, tpu_chip_hours=16 * 24),
    "raw_queued_resource": Capacity("v5e", tpu_chips=8, unbounded=True),
}
"""What each sample asks for (see :func:`pulumi_dws.testing.samples.totals`)."""

_NODE = "body.tpu.nodeSpec.0.node"

EXAMPLES: tuple[Example, ...] = (
    Example(
        "flex-start-max-run-duration",
        "queued_tpu_body",
        (("body.runDuration.maxRunDuration", "691200s"),),
        "body.runDuration.maxRunDuration: 8d (691200s) is above",
        unknown="body.runDuration.maxRunDuration",
    ),
    Example(
        "flex-start-max-run-duration",
        "queued_tpu_body",
        (("body.runDuration", DELETE),),
        "body.runDuration.maxRunDuration is missing",
        unknown="body.provisioningModel",
    ),
    Example(
        "flex-start-max-run-duration",
        "queued_tpu_body",
        (("body.runDuration.maxRunDuration", "432000s"),),
        "policy cap of 3d",
        config={"maxRunDuration": "3d"},
    ),
    Example(
        "flex-start-queue-window",
        "queued_tpu_body",
        (("body.queueingPolicy.validUntilDuration", "30s"),),
        "body.queueingPolicy.validUntilDuration",
        unknown="body.queueingPolicy",
    ),
    Example(
        "flex-start-queue-window",
        "queued_tpu_body",
        (("body.queueingPolicy", DELETE),),
        "waits as long as Google keeps it",
        config={"requireQueueWindow": True},
        unknown="body.queueingPolicy",
    ),
    Example(
        "no-public-ip-on-accelerators",
        "queued_tpu_body",
        ((f"{_NODE}.networkConfig.enableExternalIps", True),),
        "body.tpu.nodeSpec[0].node.networkConfig.enableExternalIps gives a TPU VM a public IP",
        unknown=f"{_NODE}.networkConfig.enableExternalIps",
    ),
    Example(
        "no-public-ip-on-accelerators",
        "raw_queued_resource",
        (("tpu.nodeSpecs.0.node.networkConfig.enableExternalIps", True),),
        "tpu.nodeSpecs[0].node.networkConfig.enableExternalIps gives a TPU VM",
        unknown="tpu.nodeSpecs.0.node.networkConfig.enableExternalIps",
    ),
    Example(
        "required-labels",
        "queued_tpu_body",
        ((f"{_NODE}.labels", DELETE),),
        "body.tpu.nodeSpec[0].node.labels lacks required label(s) team",
        unknown=f"{_NODE}.labels",
    ),
)
"""One per rule a queued resource can break (the TPU chip budget, ``tpu-budget``, is a stack
rule: it counts queued resources with the stack's other TPU capacity). A raw
``V2QueuedResource`` has no labels to require: pulumi-gcp 10.2 has no such input."""
