"""The create of a Cloud TPU queued resource: the shared
:class:`~pulumi_dws.providers.lro.LroCreate` steps, with what is the queued resource's own (see
:mod:`pulumi_dws.kinds.queued_tpu.provider` for the behaviour).

Ownership. The program chooses the queued resource's id, so a create run again after a crash
(or after a lost answer) finds the resource, or meets ``409 ALREADY_EXISTS``. It is *ours* when
its node carries the label ``dws-create=<key>``, ``<key>`` a hash of the inputs (project, zone,
id, body): then it is adopted; a resource without that label (made elsewhere) or with another
key (made from other inputs) is refused, saying which.

Request ids. Each create attempt sends a random ``requestId`` and keeps it for every retry of
that attempt (a create sent again after a lost answer is deduplicated by the API); a crash is
covered by the id and the label, so no id is ever derived from the inputs and none can be stale.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any, ClassVar

from ...duration import Duration
from ...errors import DwsValidationError
from ...providers.create_machine import OWNER_LABEL, Outcome, Phase
from ...providers.lro import Ended, LroCreate
from ...providers.rest import wire
from .api import ENDED, QUEUED, failure_detail, state_of

__all__ = ["OWNER_LABEL", "QueuedTpuCreate", "create_key", "owner_mark", "with_owner"]

SETTLE_SECONDS = 30.0
"""Waited (virtual under an emulator clock) before a lost create is concluded not to exist."""
WAIT_MARGIN = 3600.0
"""Past the queue window, how long a create waits for provisioning to finish."""


def create_key(props: Mapping[str, Any]) -> str:
    """The ownership key of a queued resource's inputs: 20 hex digits (a valid label value)."""
    identity = {
        "project": props.get("project"),
        "zone": props.get("zone"),
        "id": props.get("queuedResourceId"),
        "body": wire(props.get("body")),
    }
    text = json.dumps(identity, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:20]


def _specs(resource: Mapping[str, Any]) -> list[Any]:
    tpu = resource.get("tpu")
    specs = tpu.get("nodeSpec") if isinstance(tpu, Mapping) else None
    return specs if isinstance(specs, list) else []


def owner_mark(resource: Mapping[str, Any]) -> str | None:
    """The ownership label of a queued resource's (first) node, if any."""
    specs = _specs(resource)
    node = (specs[0].get("node") if specs and isinstance(specs[0], Mapping) else None) or {}
    labels = node.get("labels") if isinstance(node, Mapping) else None
    return labels.get(OWNER_LABEL) if isinstance(labels, Mapping) else None


def with_owner(body: Mapping[str, Any], key: str) -> dict[str, Any]:
    """``body`` with the ownership label on every node (a part that is not an object is sent
    as it is, for the API to refuse)."""
    out = wire(body)
    for spec in _specs(out):
        node = spec.setdefault("node", {}) if isinstance(spec, dict) else None
        if isinstance(node, dict) and isinstance(node.get("labels") or {}, Mapping):
            node["labels"] = {**dict(node.get("labels") or {}), OWNER_LABEL: key}
    return dict(out)


class QueuedTpuCreate(LroCreate):
    """The steps of one QueuedTpuResource create: the label is on the nodes, and the wait
    follows ``waitFor`` and the request's queue window."""

    OWNER_HOLDER: ClassVar[str] = "its node"
    LEFTOVER: ClassVar[str] = "The failed request"

    def owner_key(self) -> str:
        return create_key(self.target.props)

    def owner_mark(self, live: Mapping[str, Any]) -> str | None:
        return owner_mark(live)

    def with_owner(self, body: Mapping[str, Any]) -> dict[str, Any]:
        return with_owner(body, self.key)

    @property
    def wanted(self) -> str:
        """What ``waitFor`` asks: ``accepted`` or ``active``."""
        return str(self.target.props.get("waitFor") or "active")

    def wait_seconds(self) -> float:
        """The queue window plus an hour to provision, or ``timeout`` when the request has no
        window."""
        body = self.target.props.get("body")
        policy = body.get("queueingPolicy") if isinstance(body, Mapping) else None
        window = policy.get("validUntilDuration") if isinstance(policy, Mapping) else None
        if isinstance(window, str):
            try:
                return Duration.parse(window, "validUntilDuration").seconds + WAIT_MARGIN
            except DwsValidationError:
                pass  # the API refuses it
        return self.provider.timeout

    def settled(self, live: dict[str, Any] | None) -> bool:
        state = state_of(live)
        if live is None or state in ENDED or state == "ACTIVE":
            return True
        return self.wanted == "accepted" and state not in ("CREATING", None)

    def judge(self, live: dict[str, Any] | None) -> Outcome[dict[str, Any]]:
        if live is None:
            return Outcome(Phase.FAILED, error=Ended("the queued resource is gone"))
        state = state_of(live)
        if state == "ACTIVE":
            return Outcome(Phase.RUNNING, live)
        if state in ENDED:
            return Outcome(Phase.FAILED, error=Ended(f"it is {state}{failure_detail(live)}"))
        if self.wanted == "accepted" and state in QUEUED:
            return Outcome(Phase.PENDING, live)
        return Outcome(
            Phase.FAILED, error=Ended(f"it is still {state} after {self.wait_seconds():.0f}s")
        )
