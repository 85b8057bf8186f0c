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

from collections.abc import Mapping
from typing import Any, ClassVar

from ...duration import Duration
from ...errors import DwsValidationError
from ...providers.create_machine import OWNER_LABEL, Outcome, Phase
from ...providers.lro import Ended, LroCreate
from ...providers.ownership import Owner, owner_key
from ...providers.rest import wire
from .api import ENDED, QUEUED, failure_detail, state_of

__all__ = [
    "OWNER_LABEL",
    "QueuedTpuCreate",
    "create_key",
    "node_labels",
    "owner_mark",
    "with_owner",
]

SETTLE_SECONDS = 30.0
"""Waited (virtual under an emulator clock) before a lost create is concluded not to exist."""
WAIT_MARGIN = 3600.0
"""Past the queue window, how long a create waits for provisioning to finish."""


def create_key(props: Mapping[str, Any]) -> str:
    """The ownership key of a queued resource's inputs: 20 hex digits (a valid label value),
    keyed with the stack that creates (see :func:`~pulumi_dws.providers.ownership.owner_key`:
    node metadata and labels are left out, so a startup script never shapes a label)."""
    identity = {
        "project": props.get("project"),
        "zone": props.get("zone"),
        "id": props.get("queuedResourceId"),
        "body": props.get("body"),
    }
    return owner_key(Owner.of(props), identity)


def _specs(resource: Mapping[str, Any]) -> list[Any]:
    tpu = resource.get("tpu")
    specs = tpu.get("nodeSpec") if isinstance(tpu, Mapping) else None
    return specs if isinstance(specs, list) else []


def node_labels(resource: Mapping[str, Any]) -> Mapping[str, Any]:
    """The labels of a queued resource's (first) node (empty when it has none)."""
    specs = _specs(resource)
    node = (specs[0].get("node") if specs and isinstance(specs[0], Mapping) else None) or {}
    labels = node.get("labels") if isinstance(node, Mapping) else None
    return labels if isinstance(labels, Mapping) else {}


def owner_mark(resource: Mapping[str, Any]) -> str | None:
    """The ownership label of a queued resource's (first) node, if any."""
    mark = node_labels(resource).get(OWNER_LABEL)
    return mark if isinstance(mark, str) else None


def with_owner(body: Mapping[str, Any], key: str | Mapping[str, str]) -> dict[str, Any]:
    """``body`` with the ownership labels (``key``: the ownership key, or every mark) on every
    node (a part that is not an object is sent as it is, for the API to refuse)."""
    marks = {OWNER_LABEL: key} if isinstance(key, str) else dict(key)
    out = wire(body)
    for spec in _specs(out):
        node = spec.setdefault("node", {}) if isinstance(spec, dict) else None
        if isinstance(node, dict) and isinstance(node.get("labels") or {}, Mapping):
            node["labels"] = {**dict(node.get("labels") or {}), **marks}
    return dict(out)


class QueuedTpuCreate(LroCreate):
    """The steps of one QueuedTpuResource create: the label is on the nodes, and the wait
    follows ``waitFor`` and the request's queue window."""

    OWNER_HOLDER: ClassVar[str] = "its node"
    LEFTOVER: ClassVar[str] = "The failed request"

    def owner_key(self) -> str:
        return create_key(self.target.props)

    def owner_labels(self, live: Mapping[str, Any]) -> Mapping[str, Any]:
        return node_labels(live)

    def removal(self) -> str:
        """``gcloud`` that deletes the request and its nodes (``--force``)."""
        props = self.target.props
        return (
            f"gcloud alpha compute tpus queued-resources delete {props.get('queuedResourceId')} "
            f"--zone {props.get('zone')} --project {props.get('project')} --force"
        )

    def with_owner(self, body: Mapping[str, Any]) -> dict[str, Any]:
        return with_owner(body, self.marks())

    @property
    def wanted(self) -> str:
        """What ``waitFor`` asks: ``accepted`` or ``active``."""
        return str(self.target.props.get("waitFor") or "active")

    def wait_seconds(self) -> float:
        """The ``waitTimeout`` input when there is one; else the queue window plus an hour to
        provision, or ``timeout`` when the request has no window."""
        given = self.target.props.get("waitTimeout")
        if isinstance(given, (int, float)) and not isinstance(given, bool) and given > 0:
            return float(given)
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
        """Ended, active, or (``waitFor: accepted``) queued past ``CREATING``; gone once
        confirmed (:meth:`~pulumi_dws.providers.lro.LroCreate.absent`). A state the API adds,
        or ``STATE_UNSPECIFIED``, ends nothing."""
        if live is None:
            return self.absent()
        state = state_of(live)
        if state in ENDED or state == "ACTIVE":
            return True
        return self.wanted == "accepted" and state in QUEUED - {"CREATING"}

    def judge(self, live: dict[str, Any] | None) -> Outcome[dict[str, Any]]:
        if live is None:
            return Outcome(Phase.FAILED, error=Ended("the queued resource is gone"))
        state = state_of(live)
        if state == "ACTIVE":
            return Outcome(Phase.RUNNING, live)
        if state in ENDED:
            return Outcome(Phase.FAILED, error=Ended(f"it is {state}{failure_detail(live)}"))
        if self.wanted == "accepted" and state in QUEUED - {"CREATING"}:
            return Outcome(Phase.PENDING, live)
        return self.timed_out(live)
