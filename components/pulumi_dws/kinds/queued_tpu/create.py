"""The create of a Cloud TPU queued resource, as steps of the shared
:class:`~pulumi_dws.providers.create_machine.CreateMachine` (see
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
import uuid
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ...providers.create_machine import (
    OWNER_LABEL,
    CleanUp,
    Found,
    Outcome,
    Phase,
    Sent,
    found_by_owner,
    kept_unless_gone,
    sent_after,
)
from ...providers.rest import ApiError, is_lro, wire

if TYPE_CHECKING:
    from ...providers.rest import GoogleRestClient
    from .provider import QueuedTpuProvider, _Target

__all__ = ["OWNER_LABEL", "QueuedTpuCreate", "create_key", "state_of"]

"""The node label that marks a queued resource as made by a QueuedTpuResource with given inputs."""
SETTLE_SECONDS = 30.0
"""Waited (virtual under an emulator clock) before a lost create is concluded not to exist."""
QUEUED = frozenset({"CREATING", "ACCEPTED", "WAITING_FOR_RESOURCES", "PROVISIONING"})
"""States of a request still on its way to capacity."""
ENDED = frozenset({"FAILED", "SUSPENDING", "SUSPENDED", "DELETING"})
"""States that will never become ``ACTIVE`` on their own."""


def state_of(resource: Mapping[str, Any] | None) -> str | None:
    """``state.state`` of a queued resource (None when it has none)."""
    state = (resource or {}).get("state")
    return state.get("state") if isinstance(state, Mapping) else None


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
    return out


class _Failed(Exception):
    """The request ended where it can never become what was asked."""


class QueuedTpuCreate:
    """The steps of one QueuedTpuResource create (a :class:`CreateSteps`)."""

    def __init__(
        self, provider: QueuedTpuProvider, client: GoogleRestClient, target: _Target
    ) -> None:
        self.provider = provider
        self.client = client
        self.target = target
        self.key = create_key(target.props)
        self.request_ids: dict[int, str] = {}

    # ------------------------------------------------------------------ find
    def find(self) -> Found[dict[str, Any]]:
        try:
            live = self.provider.read_live(self.client, self.target.path)
            if state_of(live) == "DELETING":  # a delete in flight (ours or not): wait it out
                live = self.provider.poll(
                    self.client, self.target.path, lambda r: r is None or state_of(r) != "DELETING"
                )
        except ApiError as err:
            return Found(unknown=True, why=str(err))
        if live is None:
            return Found()
        return found_by_owner(live, owner_mark(live), self.key, "it already exists", "its node")

    # ------------------------------------------------------------------ send
    def send(self, attempt: int) -> Sent[dict[str, Any]]:
        request_id = self.request_ids.setdefault(attempt, str(uuid.uuid4()))
        target = self.target
        try:
            op = self.client.post(
                target.parent,
                with_owner(target.props["body"], self.key),
                expect=is_lro,
                queuedResourceId=target.resource_id,
                requestId=request_id,
            )
        except ApiError as err:
            return sent_after(err)
        return Sent("accepted", op)

    # ------------------------------------------------------------------ follow / adopt
    def follow(self, op: dict[str, Any]) -> Outcome[dict[str, Any]]:
        from .provider import describe_status

        try:
            done = self.provider.wait_operation(self.client, op, f"create of {self.target.path}")
        except Exception as err:  # noqa: BLE001 - accepted: never leave it untracked
            return self._as_it_is(err)
        if isinstance(done.get("error"), Mapping):
            return Outcome(Phase.FAILED, error=_Failed(describe_status(done["error"])))
        return self.adopt(None)

    def adopt(self, live: dict[str, Any] | None) -> Outcome[dict[str, Any]]:
        """Wait for the request until it is what ``waitFor`` asks (or can never be)."""
        wanted = self.target.props.get("waitFor") or "active"

        def settled(resource: dict[str, Any] | None) -> bool:
            state = state_of(resource)
            if resource is None or state in ENDED or state == "ACTIVE":
                return True
            return wanted == "accepted" and state not in ("CREATING", None)

        try:
            live = self.provider.poll(
                self.client,
                self.target.path,
                settled,
                timeout=self.provider.wait_seconds(self.target),
            )
        except Exception as err:  # noqa: BLE001
            return self._as_it_is(err)
        return self._judge(live, wanted)

    def _judge(self, live: dict[str, Any] | None, wanted: str) -> Outcome[dict[str, Any]]:
        from .provider import failure_detail

        if live is None:
            return Outcome(Phase.FAILED, error=_Failed("the queued resource is gone"))
        state = state_of(live)
        if state == "ACTIVE":
            return Outcome(Phase.RUNNING, live)
        if state in ENDED:
            detail = failure_detail(live)
            return Outcome(Phase.FAILED, error=_Failed(f"it is {state}{detail}"))
        if wanted == "accepted" and state in QUEUED:
            return Outcome(Phase.PENDING, live)
        return Outcome(
            Phase.FAILED,
            error=_Failed(
                f"it is still {state} after {self.provider.wait_seconds(self.target):.0f}s"
            ),
        )

    def _as_it_is(self, err: Exception) -> Outcome[dict[str, Any]]:
        """Accepted, but it could not be followed to the end: succeed with the request as it
        is, so it stays tracked (or fail when it cannot be read)."""
        try:
            live = self.provider.read_live(self.client, self.target.path)
        except ApiError as lookup:
            return Outcome(Phase.FAILED, error=_Failed(f"{err}; and it can't be read: {lookup}"))
        if live is None:
            return Outcome(Phase.FAILED, error=_Failed(f"did not finish ({err}), and is gone"))
        return Outcome(Phase.PENDING, live)

    # ------------------------------------------------------------------ failure
    def reached(self, failure: Exception) -> dict[str, Any] | None:
        return None  # a failed or expired request never becomes ACTIVE

    def clean_up(self, failure: Exception) -> CleanUp[dict[str, Any]]:
        from .provider import QueuedTpuError  # a delete whose operation failed

        path = self.target.path
        for _ in range(2):  # once more if it came back (a create that arrived late)
            try:
                gone = self.provider.delete_and_wait(self.client, path)
            except (ApiError, TimeoutError, _Failed, QueuedTpuError) as err:
                return self._kept(f"could not be deleted ({err})")
            assert self.client.sleep is not None
            self.client.sleep(SETTLE_SECONDS)
            try:
                live = self.provider.read_live(self.client, path)
            except ApiError:
                live = None  # the delete was confirmed: trust it
            if live is None:
                return CleanUp(
                    True,
                    "The failed request was deleted, so nothing is left behind."
                    if gone
                    else "Nothing was left behind.",
                )
        return self._kept("came back after it was deleted")

    def _kept(self, why: str) -> CleanUp[dict[str, Any]]:
        path = self.target.path

        def read() -> dict[str, Any] | None:
            return self.provider.read_live(self.client, path)

        return kept_unless_gone("queued resource", why, path, read, ApiError)

    # ------------------------------------------------------------------ messages
    def message(self, phase: Phase, detail: str, error: Exception | None) -> str:
        path = self.target.path
        if phase is Phase.NOT_OURS:
            return (
                f"queued resource {path} {detail}. Nothing was created or changed. To change: "
                "choose another queued_resource_id, or delete that queued resource and deploy "
                "again."
            )
        if phase is Phase.REJECTED:
            if isinstance(error, ApiError) and error.ambiguous:
                return (
                    f"create of queued resource {path} got no usable answer ({error}), and none "
                    "exists: nothing was created. To change: deploy again later."
                )
            return f"create of queued resource {path} {detail}"
        if phase is Phase.CLEANED_UP:
            return f"queued resource {path} failed: {error}. {detail}"
        return (
            f"create of queued resource {path}: {detail}. It may exist: run `pulumi up` again "
            "to adopt it (same inputs), or delete it."
        )
