"""How ``pulumi-python:dynamic/dws:FlexStartVm`` behaves under :class:`GcpMocks`.

Like the provider after a successful create: ``status`` ``RUNNING`` (or ``PENDING`` for a queued
request with ``waitFor: accepted``, ``TERMINATED`` for ``desiredStatus: TERMINATED``), and
``observed`` with an internal IP, the time the run ends, the request id...; the resource id is
``projects/<p>/zones/<z>/instances/<name>``.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import uuid
from typing import Any

from ...clock import now
from ...providers.compute_ops import create_request_id
from ...providers.flex_vm import vm_id
from ...validation import format_timestamp
from ..mocks import COMPUTE, GcpMocks, dynamic_behaviour


@dynamic_behaviour("FlexStartVm")
def flex_start_vm(props: dict[str, Any], mocks: GcpMocks, name: str) -> tuple[str, dict[str, Any]]:
    project = props.get("project") or mocks.project
    zone = props.get("zone") or f"{mocks.region}-a"
    vm_name = props.get("name") or name
    body = props.get("body") or {}
    queued = bool((body.get("params") or {}).get("requestValidForDuration"))
    if props.get("desiredStatus") == "TERMINATED":
        status = "TERMINATED"
    elif queued and props.get("waitFor") == "accepted":
        status = "PENDING"
    else:
        status = "RUNNING"
    rid = vm_id(project, zone, vm_name)
    digest = hashlib.sha256(rid.encode()).hexdigest()
    started = now()
    seconds = int(((body.get("scheduling") or {}).get("maxRunDuration") or {}).get("seconds", 0))
    running = status == "RUNNING"
    outs = dict(props)
    outs["status"] = status
    outs["observed"] = {
        "instanceId": str(int(digest[:12], 16)),
        "selfLink": COMPUTE + rid,
        "internalIp": f"10.128.0.{int(digest[:2], 16) % 250 + 2}",
        "externalIp": None,
        "runEndsAt": (
            format_timestamp(started + dt.timedelta(seconds=seconds))
            if running and seconds
            else None
        ),
        "lastStartTimestamp": format_timestamp(started) if running else None,
        "requestId": create_request_id(project, zone, vm_name, str(uuid.UUID(digest[:32]))),
    }
    return rid, outs
