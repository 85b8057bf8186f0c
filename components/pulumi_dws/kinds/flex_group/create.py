"""The create of a MIG resize request, as steps of the shared
:class:`~pulumi_dws.providers.create_machine.CreateMachine`.

Crash adoption. A resize request's name is unique within its group, so the request itself is
the ownership mark: a request of that name whose body (``resizeBy``, ``requestedRunDuration``,
``description``) is the one these inputs send is this create's own (a ``pulumi up`` that died
after the insert reached Google, or an insert whose answer was lost) and is adopted; one with
another body is someone else's, and is refused. The insert carries a **deterministic request
id** derived from the inputs (the scheme of ``FlexStartVm``), so an insert sent again is
deduplicated by Compute.

The stale-answer trap is the same as for VMs: after a deliberate delete, a create with the same
inputs gets the old, finished insert operation while no request exists. It is detected (a
finished insert whose request is gone, or an operation older than this create) and the create
goes on with a fresh, random id.

A request of ours that already ended ``FAILED`` or ``CANCELLED`` (a ``pulumi up`` that died while
it waited or cleaned up) holds no VMs: it is deleted, and the create asks again.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ...duration import Duration
from ...providers.cancellation import GraceExpired
from ...providers.compute_insert import (
    AttemptIds,
    insert_answer,
    unconfirmed_text,
)
from ...providers.compute_ops import create_request_id, is_operation
from ...providers.create_machine import CleanUp, Found, Outcome, Phase, Sent, withdrawn
from ...providers.ownership import Owner, owner_key
from ...providers.rest import ApiError, OperationError
from .api import ENDED, RESIZE_REQUEST, MigResizeError, typed_body
from .ops import get_request, managed_instances, other_live_request, tear_down
from .target import ResizeRequest
from .waiting import WaitEnded, await_request, failure_text, reached, read_view

if TYPE_CHECKING:
    from ...providers.rest import GoogleRestClient

__all__ = ["MigCreate", "create_key", "typed_body", "same_request"]

_SHAPE = ("resizeBy", "requestedRunDuration", "description", "instances")


def _shape(request: Mapping[str, Any]) -> dict[str, Any]:
    typed = typed_body(request)
    shape = {k: typed.get(k) for k in _SHAPE if typed.get(k) is not None}
    run = shape.get("requestedRunDuration")
    if isinstance(run, Mapping):  # "0" nanos and absent nanos are the same duration
        shape["requestedRunDuration"] = {k: v for k, v in run.items() if v not in (0, None)}
    return shape


def same_request(request: Mapping[str, Any], body: Mapping[str, Any]) -> bool:
    """Whether an existing request asks for what ``body`` asks for."""
    return _shape(request) == _shape(body)


def create_key(props: Mapping[str, Any]) -> str:
    """20 hex digits of an HMAC, keyed with the stack that creates, of the inputs that make the
    request what it is (see :func:`~pulumi_dws.providers.ownership.owner_key`): its request
    ids derive from it, so two stacks never share one."""
    identity = {
        "project": props.get("project"),
        "zone": props.get("zone"),
        "region": props.get("region"),
        "group": props.get("group"),
        "name": props.get("name"),
        "body": _shape(dict(props.get("body") or {})),
    }
    return owner_key(Owner.of(props), identity)


class MigCreate:
    """The steps of one MigResizeRequest create (a :class:`CreateSteps`). What it finds and
    returns is a *view*: ``{"request": <the resize request>, "members": <managed instances>}``."""

    def __init__(self, client: GoogleRestClient, rr: ResizeRequest) -> None:
        self.client = client
        self.rr = rr
        self.key = create_key(rr.props)
        self.request_id: str | None = None
        self.started: float | None = None
        self.failure: Exception | None = None
        self.last: dict[str, Any] | None = None  # the request as last seen
        self.blocked_by: str | None = None  # another request that holds the group
        where = rr.where
        self._ids = AttemptIds(
            create_request_id(
                where.project,
                where.location,
                f"{where.group}/resizeRequests/{rr.name}",
                f"{self.key}#0",
            )
        )

    # ------------------------------------------------------------------ find
    def find(self) -> Found[dict[str, Any]]:
        rr = self.rr
        try:
            request = get_request(self.client, rr.where, rr.name)
        except ApiError as err:
            return Found(unknown=True, why=str(err))
        finally:
            if self.started is None:
                self.started = self.client.server_time
        if request is None:
            return self._group_taken()
        self.last = request
        view = {"request": request, "members": []}
        if same_request(request, rr.body):
            if request.get("state") in ENDED and self._removed():
                return self._group_taken()  # an earlier create's request ended: ask again
            return Found(view, ours=True)
        theirs = json.dumps(_shape(request), sort_keys=True)
        ours = json.dumps(_shape(rr.body), sort_keys=True)
        return Found(
            view,
            ours=False,
            why=(
                f"a resize request named {rr.name} already exists in group {rr.where.group} "
                f"and asks for something else ({theirs}; these inputs ask for {ours})"
            ),
        )

    def _removed(self) -> bool:
        """Delete an ended request of ours (FAILED or CANCELLED: it holds no VMs); whether it
        is gone. If not, it is adopted, and its end reported."""
        try:
            tear_down(self.client, self.rr.where, self.rr.name)
        except Exception:  # noqa: BLE001 - then it is adopted as it is
            return False
        self.last = None
        return True

    def _group_taken(self) -> Found[dict[str, Any]]:
        """Refuse a group that already has another request with VMs (deleting either would
        delete them all); a failed read lets the create go on, as a failed ``get`` does."""
        rr = self.rr
        try:
            other = other_live_request(self.client, rr.where, rr.name)
        except ApiError:
            return Found()
        if other is None:
            return Found()
        self.blocked_by = str(other["name"])
        return Found(
            {"request": other, "members": []},
            ours=False,
            why=(
                f"group {rr.where.group} already has resize request {other['name']} "
                f"({other['state']}); the VMs of a group can't be told apart by request, so a "
                "group takes one request at a time"
            ),
        )

    # ------------------------------------------------------------------ send
    def send(self, attempt: int) -> Sent[dict[str, Any]]:
        rr = self.rr
        self.request_id = self._ids(attempt)
        return insert_answer(
            lambda: self.client.post(
                rr.where.request_path(),
                typed_body(rr.body),
                expect=is_operation,
                requestId=self.request_id,
            ),
            started=self.started,
            current=lambda: get_request(self.client, rr.where, rr.name),
            what="resize request",
        )

    # ------------------------------------------------------------------ follow / adopt
    def follow(self, op: dict[str, Any]) -> Outcome[dict[str, Any]]:
        try:
            self.rr.where.wait(self.client, op)
        except Exception as exc:  # noqa: BLE001 - every failure must settle or clean up first
            return Outcome(Phase.FAILED, error=exc)
        return self._await()

    def adopt(self, view: dict[str, Any]) -> Outcome[dict[str, Any]]:
        return self._await()

    def _await(self) -> Outcome[dict[str, Any]]:
        try:
            view = await_request(self.client, self.rr, self._seen)
        except WaitEnded as ended:
            if self.rr.on_timeout == "keep":
                return Outcome(Phase.PENDING, ended.view, note=self._kept(ended.view))
            return Outcome(Phase.FAILED, error=ended)
        except Exception as exc:  # noqa: BLE001 - every failure must settle or clean up first
            return Outcome(Phase.FAILED, error=exc)
        return Outcome(_phase_of(view), view)

    def _kept(self, view: Mapping[str, Any]) -> str:
        rr = self.rr
        state = view["request"].get("state")
        return (
            f"the wait_timeout ({Duration(int(rr.wait_timeout)).human()}) passed with the "
            f"request {state}, not yet what wait_for={rr.wait_for!r} asks: it is kept as it is "
            "(DWS keeps a resize request queued until capacity and quota exist), and `pulumi "
            "refresh` follows it. To cancel it at the wait_timeout instead, set "
            "on_timeout='cancel'."
        )

    def _seen(self, view: dict[str, Any]) -> None:
        self.last = view["request"]

    def _seen_request(self, request: dict[str, Any]) -> None:
        self.last = request

    def _left_without_request(self) -> dict[str, Any] | None:
        """What a clean-up cut short left once the request is gone: the group's VMs (the
        request SUCCEEDED if any run; None when there are none: nothing is left), or the
        request as last seen with its VMs unknown."""
        try:
            members = managed_instances(self.client, self.rr.where)
        except Exception:  # noqa: BLE001 - unknown, not none
            return {"request": self.last, "members": None} if self.last is not None else None
        if not members:
            return None
        return {"request": {**(self.last or {}), "state": "SUCCEEDED"}, "members": members}

    # ------------------------------------------------------------------ failure
    def reached(self, failure: Exception) -> dict[str, Any] | None:
        if isinstance(failure, (OperationError, MigResizeError)):
            return None  # Google said the request failed, or it is gone
        try:
            view = read_view(self.client, self.rr, self._seen_request)
        except Exception:  # noqa: BLE001 - then clean up
            return None
        return view if view is not None and reached(self.rr, view) else None

    def clean_up(self, failure: Exception) -> CleanUp[dict[str, Any]]:
        rr = self.rr
        self.failure = failure
        try:
            deleted = tear_down(self.client, rr.where, rr.name)
        except Exception as err:  # noqa: BLE001 - then say what is left
            try:
                view = read_view(self.client, rr)
            except Exception:  # noqa: BLE001
                return CleanUp(False, self._maybe_left(err))
            if view is None:
                view = self._left_without_request()
                if view is None and self.last is not None:  # it was deleted, it brought none
                    return CleanUp(True, "Nothing was left behind: the request was deleted.")
            if view is None:
                return CleanUp(False, self._maybe_left(err))
            return CleanUp(
                False,
                f"The request could not be removed ({err}); it is kept in the stack with its "
                f"true state ({view['request'].get('state')}), so `pulumi up`, `refresh` and "
                "`destroy` reach it and its VMs.",
                left=view,
            )
        what = f"the request and its {len(deleted)} VM(s) were" if deleted else "the request was"
        return CleanUp(True, f"Nothing was left behind: {what} deleted.")

    def _maybe_left(self, err: Exception) -> str:
        rr = self.rr
        return (
            f"The request may still exist and could not be removed ({err}). Run `pulumi up` "
            "again with the same inputs to adopt it (the same name and body), or remove it and "
            f"its VMs with {rr.removal()}."
        )

    # ------------------------------------------------------------------ interrupted
    def withdraw(self, reason: str) -> CleanUp[dict[str, Any]]:
        """Interrupted: a request of ours still ``CREATING`` or ``ACCEPTED`` (no VM yet) is
        cancelled and deleted; one that ``SUCCEEDED`` is kept with its VMs (see
        :func:`~pulumi_dws.providers.create_machine.withdrawn`)."""
        rr = self.rr
        try:
            request = get_request(self.client, rr.where, rr.name)
        except ApiError as err:
            found: Found[dict[str, Any]] = Found(unknown=True, why=str(err))
        else:
            if request is None:
                found = Found()
            else:
                seen: dict[str, Any] = {"request": request, "members": []}
                found = Found(seen, ours=same_request(request, rr.body))

        def remove(_view: dict[str, Any]) -> str:
            try:
                tear_down(self.client, rr.where, rr.name)
            except GraceExpired:
                return "its cancel was sent (not confirmed within the grace the engine gives)"
            return "the request was cancelled and deleted"

        def queued(view: dict[str, Any]) -> bool:
            return view["request"].get("state") in RESIZE_REQUEST.states.queued

        left = withdrawn(
            found, queued=queued, remove=remove, what=f"request {rr.name}", reason=reason
        )
        if left.left is not None:  # with capacity: returned with its VMs
            try:
                now = read_view(self.client, rr)
            except Exception:  # noqa: BLE001 - as it was found
                now = None
            if now is not None:
                return CleanUp(False, left.message, left=now)
        return left

    # ------------------------------------------------------------------ messages
    def message(self, phase: Phase, detail: str, error: Exception | None) -> str:
        rr = self.rr
        if phase is Phase.WITHDRAWN:
            return f"{rr.describe()} was not created: {detail}"
        if phase is Phase.NOT_OURS and self.blocked_by is not None:
            return (
                f"{rr.describe()}: {detail}. Nothing was created or changed. To change: use "
                f"another group, or wait until request {self.blocked_by}'s VMs are gone, or "
                f"remove it and its VMs with {rr.removal(self.blocked_by)}, and deploy again."
            )
        if phase is Phase.NOT_OURS:
            return (
                f"{rr.describe()}: {detail}. Nothing was created or changed. To change: choose "
                f"another request name, or remove that request and its VMs with "
                f"{rr.removal()}, and deploy again."
            )
        if phase is Phase.REJECTED:
            if isinstance(error, ApiError) and error.ambiguous:
                return unconfirmed_text(rr.describe(), error, "request")
            return (
                f"{rr.describe()} was rejected by Compute Engine: {error or detail}. Nothing "
                "was created."
            )
        if phase is Phase.CLEANED_UP:
            return f"{failure_text(rr, error or RuntimeError(detail))} {detail}"
        if self.failure is not None:
            return f"{failure_text(rr, self.failure)} {detail}"
        return (
            f"{rr.describe()}: {detail}. Whether the request was created cannot be read now. "
            "If it was, run `pulumi up` again with the same inputs and it is adopted (one "
            f"request, nothing duplicated); or check with `{rr.gcloud('describe')}`."
        )


def _phase_of(view: Mapping[str, Any]) -> Phase:
    return Phase.RUNNING if view["request"].get("state") == "SUCCEEDED" else Phase.PENDING
