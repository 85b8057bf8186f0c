"""How a ``MigResizeRequest`` waits for its request (and the VMs it brings) to reach what
``waitFor`` asks, and what it says when Google ends it: shared by the create's steps
(:mod:`~.create`) and the provider (:mod:`~.provider`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ...duration import Duration
from ...providers.rest import ApiError, GoogleRestClient
from .api import MigResizeError
from .ops import get_request, managed_instances, poll_until
from .target import ResizeRequest

__all__ = [
    "RequestEnded",
    "WaitEnded",
    "await_request",
    "failure_text",
    "google_error",
    "reached",
    "read_view",
]


def reached(rr: ResizeRequest, view: Mapping[str, Any]) -> bool:
    """Whether a request (and its VMs) reached what ``waitFor`` asks: ``accepted``, or
    ``SUCCEEDED`` with as many VMs listed as it asked for, all ``RUNNING`` (an empty list right
    after ``SUCCEEDED`` is not the end of the wait)."""
    state = view["request"].get("state")
    if rr.wait_for == "accepted":
        return state in ("ACCEPTED", "SUCCEEDED")
    members = view.get("members") or []
    wanted = rr.body.get("resizeBy")
    enough = len(members) >= wanted if isinstance(wanted, int) else bool(members)
    return (
        state == "SUCCEEDED"
        and enough
        and all(m.get("instanceStatus") == "RUNNING" for m in members)
    )


def read_view(
    client: GoogleRestClient,
    rr: ResizeRequest,
    seen: Callable[[dict[str, Any]], None] | None = None,
    *,
    tolerant: bool = False,
) -> dict[str, Any] | None:
    """The request and (once it SUCCEEDED) the group's managed instances; None when the
    request does not exist. ``seen`` is given the request as soon as it is read (before the
    instances are listed, which may fail). ``tolerant`` (a wait): a listing that fails
    transiently leaves ``members`` None (unknown) rather than failing the read."""

    request = get_request(client, rr.where, rr.name)
    if request is None:
        return None
    if seen is not None:
        seen(request)
    if request.get("state") != "SUCCEEDED":
        return {"request": request, "members": []}
    try:
        members: list[dict[str, Any]] | None = managed_instances(client, rr.where)
    except ApiError as err:
        if not (tolerant and err.transient):
            raise
        members = None
    return {"request": request, "members": members}


def await_request(
    client: GoogleRestClient,
    rr: ResizeRequest,
    seen: Callable[[dict[str, Any]], None] = lambda _view: None,
) -> dict[str, Any]:
    """Poll (growing intervals) until the request reached what ``waitFor`` asks; raise
    :class:`MigResizeError` when it ended FAILED or CANCELLED or disappeared, ``TimeoutError``
    when the wait ran out."""

    def read() -> dict[str, Any]:
        view = read_view(
            client, rr, lambda request: seen({"request": request, "members": []}), tolerant=True
        )
        if view is None:
            raise MigResizeError(f"{rr.describe()} disappeared while it was awaited")
        seen(view)
        return view

    def done(view: dict[str, Any]) -> bool:
        return view["request"].get("state") in ("FAILED", "CANCELLED") or reached(rr, view)

    view, waited = poll_until(client, read, done, rr.wait_timeout)
    if reached(rr, view):
        return view
    state = view["request"].get("state")
    if state in ("FAILED", "CANCELLED"):
        raise RequestEnded(view["request"])
    raise WaitEnded(view, f"it is still {state} after {waited:.0f}s")


class WaitEnded(TimeoutError):
    """The ``waitTimeout`` passed with the request not yet where ``waitFor`` asks (``view``:
    the request as last seen)."""

    def __init__(self, view: Mapping[str, Any], message: str) -> None:
        super().__init__(message)
        self.view = dict(view)


class RequestEnded(MigResizeError):
    """Google ended the request ``FAILED`` or ``CANCELLED``."""

    def __init__(self, request: Mapping[str, Any]) -> None:
        self.request = dict(request)
        self.state = str(request.get("state"))
        self.reason = google_error(request) or "Google gave no reason"
        super().__init__(f"the request ended {self.state}: {self.reason}")


def google_error(request: Mapping[str, Any]) -> str | None:
    """``status.error.errors`` of a request as one line, or None."""
    status = request.get("status")
    error = status.get("error") if isinstance(status, Mapping) else None
    errors = error.get("errors") if isinstance(error, Mapping) else None
    if not isinstance(errors, list) or not errors:
        return None
    return "; ".join(
        f"{e.get('code', '')}: {e.get('message', '')}" if isinstance(e, Mapping) else str(e)
        for e in errors
    )


def failure_text(rr: ResizeRequest, exc: Exception) -> str:
    """Why an accepted create failed, and what to change."""

    if isinstance(exc, RequestEnded):
        return (
            f"{rr.describe()} ended {exc.state}: {exc.reason.rstrip('.')}. To change: deploy "
            "again later, or pick another zone or region (see `dws advise`)."
        )
    if isinstance(exc, TimeoutError):
        return (
            f"{rr.describe()} was not ready in time ({exc}; the wait_timeout is "
            f"{Duration(int(rr.wait_timeout)).human()}, and on_timeout='cancel' cancels the "
            "request then). To change: deploy again later, leave on_timeout at 'keep' to keep "
            "the request queued, or set wait_for='accepted' to return once it is queued."
        )
    if isinstance(exc, MigResizeError):
        return str(exc).rstrip(".") + "."
    return f"{rr.describe()} could not be created: {exc}."
