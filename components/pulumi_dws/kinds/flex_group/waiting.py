"""How a ``MigResizeRequest`` waits for its request (and the VMs it brings) to reach what
``waitFor`` asks, and what it says when Google ends it: shared by the create's steps
(:mod:`~.create`) and the provider (:mod:`~.provider`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ...duration import Duration
from ...providers.rest import GoogleRestClient
from .api import ACCEPT_WAIT_SECONDS, RUNNING_WAIT_SECONDS, MigResizeError
from .ops import get_request, managed_instances, poll_until
from .target import ResizeRequest

__all__ = [
    "RequestEnded",
    "await_request",
    "failure_text",
    "google_error",
    "reached",
    "read_view",
]


def reached(rr: ResizeRequest, view: Mapping[str, Any]) -> bool:
    """Whether a request (and its VMs) reached what ``waitFor`` asks."""
    state = view["request"].get("state")
    if rr.wait_for == "accepted":
        return state in ("ACCEPTED", "SUCCEEDED")
    members = view.get("members") or []
    return state == "SUCCEEDED" and all(m.get("instanceStatus") == "RUNNING" for m in members)


def read_view(
    client: GoogleRestClient,
    rr: ResizeRequest,
    seen: Callable[[dict[str, Any]], None] | None = None,
) -> dict[str, Any] | None:
    """The request and (once it SUCCEEDED) the group's managed instances; None when the
    request does not exist. ``seen`` is given the request as soon as it is read (before the
    instances are listed, which may fail)."""

    request = get_request(client, rr.where, rr.name)
    if request is None:
        return None
    if seen is not None:
        seen(request)
    members = managed_instances(client, rr.where) if request.get("state") == "SUCCEEDED" else []
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
        view = read_view(client, rr, lambda request: seen({"request": request, "members": []}))
        if view is None:
            raise MigResizeError(f"{rr.describe()} disappeared while it was awaited")
        seen(view)
        return view

    def done(view: dict[str, Any]) -> bool:
        return view["request"].get("state") in ("FAILED", "CANCELLED") or reached(rr, view)

    budget = ACCEPT_WAIT_SECONDS if rr.wait_for == "accepted" else RUNNING_WAIT_SECONDS
    view, waited = poll_until(client, read, done, budget)
    if reached(rr, view):
        return view
    state = view["request"].get("state")
    if state in ("FAILED", "CANCELLED"):
        raise RequestEnded(view["request"])
    raise TimeoutError(f"it is still {state} after {waited:.0f}s")


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
            f"{rr.describe()} was not ready in time ({exc}; pulumi-dws waits up to "
            f"{Duration(int(RUNNING_WAIT_SECONDS)).human()} for the whole set). To change: "
            "deploy again later, or set wait_for='accepted' to return once the request is "
            "queued."
        )
    if isinstance(exc, MigResizeError):
        return str(exc).rstrip(".") + "."
    return f"{rr.describe()} could not be created: {exc}."
