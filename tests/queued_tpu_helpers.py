"""Inputs of the QueuedTpu provider tests: one Flex-start v6e-16 request, as the component
sends it (the body gcloud sends for the same flags)."""

from __future__ import annotations

import copy
from typing import Any

PROJECT, ZONE, QR = "p", "us-east5-a", "qr1"
PATH = f"projects/{PROJECT}/locations/{ZONE}/queuedResources/{QR}"
BODY: dict[str, Any] = {
    "provisioningModel": "FLEX_START",
    "queueingPolicy": {"validUntilDuration": "7200s"},
    "runDuration": {"maxRunDuration": "86400s"},
    "tpu": {
        "nodeSpec": [
            {
                "node": {
                    "acceleratorType": "v6e-16",
                    "autocheckpointEnabled": False,
                    "metadata": {},
                    "networkConfig": {"enableExternalIps": False, "network": "default"},
                    "runtimeVersion": "v2-alpha-tpuv6e",
                    "serviceAccount": {},
                },
                "nodeId": QR,
                "parent": f"projects/{PROJECT}/locations/{ZONE}",
            }
        ]
    },
}


def props(wait_for: str = "active", **body_changes: Any) -> dict[str, Any]:
    body = copy.deepcopy(BODY)
    for key, value in body_changes.items():
        if value is None:
            body.pop(key, None)
        else:
            body[key] = value
    return {
        "project": PROJECT,
        "zone": ZONE,
        "queuedResourceId": QR,
        "body": body,
        "waitFor": wait_for,
    }
