"""Test aids of Cloud TPU queued resources (:mod:`pulumi_dws.kinds.queued_tpu`): how a
``QueuedTpu`` dynamic resource behaves under :class:`~pulumi_dws.testing.GcpMocks`, and its
policy sample."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...clock import now
from ...providers.queued_tpu import TYPE_TOKEN as QUEUED_TPU
from ...validation import format_timestamp
from ..samples import Example, Sample

if TYPE_CHECKING:
    from ..mocks import GcpMocks

__all__ = ["queued_tpu", "SAMPLES", "EXAMPLES"]


def queued_tpu(mocks: GcpMocks, typ: str, name: str, s: dict[str, Any]) -> str:
    """Like the provider after a successful create: ``state`` ``ACTIVE`` (``WAITING_FOR_
    RESOURCES`` with ``waitFor: accepted``); the id is
    ``projects/<p>/locations/<zone>/queuedResources/<id>``."""
    project = s.get("project") or mocks.project
    zone = s.get("zone") or f"{mocks.region}-a"
    rid = f"projects/{project}/locations/{zone}/queuedResources/{s.get('queuedResourceId') or name}"
    s["name"] = rid
    s["state"] = "WAITING_FOR_RESOURCES" if s.get("waitFor") == "accepted" else "ACTIVE"
    s["observed"] = {"createTime": format_timestamp(now()), "stateInitiator": None}
    return rid


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


SAMPLES: dict[str, Sample] = {"queued_tpu_body": (QUEUED_TPU, queued_tpu_body)}

EXAMPLES: tuple[Example, ...] = ()
"""No resource rule reads queued resources yet; the TPU chip budget (``tpu-budget``) counts
them with the stack's other TPU capacity (see the tests)."""
