"""The resize request one call is about (:class:`ResizeRequest`): what the provider's steps,
waits and messages read from its inputs."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...duration import Duration
from ...providers.rest_resource import RestResource, Target
from .api import ACCEPT_WAIT_SECONDS, RESIZE_REQUEST, RUNNING_WAIT_SECONDS, typed_body
from .ops import Group

__all__ = ["ResizeRequest"]


class ResizeRequest(Target):
    """A ``MigResizeRequest``'s inputs, read as the request they declare: where it lives
    (``where``, its group), its ``name``, its ``body`` (numbers typed as the API types them)
    and what ``waitFor`` asks."""

    def __init__(self, resource: RestResource, props: Mapping[str, Any]) -> None:
        super().__init__(resource, props)
        self.where = Group(
            str(props["project"]),
            str(props["group"]),
            zone=str(props["zone"]) if props.get("zone") else None,
            region=str(props["region"]) if props.get("region") else None,
        )
        self.name = str(props["name"])
        self.body = typed_body(props.get("body") or {})  # numbers arrive as protobuf doubles
        self.wait_for = str(props.get("waitFor") or "running")
        timeout = props.get("waitTimeout")
        default = ACCEPT_WAIT_SECONDS if self.wait_for == "accepted" else RUNNING_WAIT_SECONDS
        self.wait_timeout = float(timeout) if isinstance(timeout, (int, float)) else default
        """Seconds ``waitFor`` is waited for (``waitTimeout``; default
        :data:`~.api.RUNNING_WAIT_SECONDS`, or :data:`~.api.ACCEPT_WAIT_SECONDS` for
        ``accepted``)."""
        self.on_timeout = "cancel" if props.get("onTimeout") == "cancel" else "keep"

    @classmethod
    def of(cls, props: Mapping[str, Any]) -> ResizeRequest:
        """The request ``props`` (a ``MigResizeRequest``'s inputs) declare."""
        return cls(RESIZE_REQUEST, props)

    @property
    def path(self) -> str:
        return self.where.request_path(self.name)

    @property
    def run(self) -> int | None:
        """The requested run duration in seconds, if any."""
        spec = self.body.get("requestedRunDuration") or {}
        return int(float(spec["seconds"])) if spec.get("seconds") is not None else None

    def describe(self) -> str:
        w = self.where
        parts = [f"+{self.body.get('resizeBy', '?')} VMs"]
        if self.run:
            parts.append(f"run {Duration(self.run).human()}")
        parts.append(f"group {w.group} in {w.location}, project {w.project}")
        return f"Resize request '{self.name}' ({', '.join(parts)})"

    def removal(self, name: str | None = None) -> str:
        """The gcloud commands that remove request ``name`` (default: this one) *and its VMs*:
        cancel it (while queued), delete it, then resize the group to 0 (deleting a request
        alone leaves its VMs running; a group holds one request's VMs)."""
        w = self.where
        where = f"--zone {w.zone}" if w.zone else f"--region {w.region}"
        request = name or self.name
        base = "gcloud beta compute instance-groups managed resize-requests"
        return (
            f"`{base} cancel {w.group} --resize-requests={request} {where} --project "
            f"{w.project}` (while it is queued), `{base} delete {w.group} "
            f"--resize-requests={request} {where} --project {w.project}`, then `gcloud compute "
            f"instance-groups managed resize {w.group} --size=0 {where} --project {w.project}` "
            "(its VMs)"
        )

    def gcloud(self, verb: str) -> str:
        """The gcloud command that does ``verb`` (``describe``, ``cancel``, ``delete``) to this
        request."""
        w = self.where
        where = f"--zone {w.zone}" if w.zone else f"--region {w.region}"
        flag = "--resize-request" if verb == "describe" else "--resize-requests"
        return (
            f"gcloud beta compute instance-groups managed resize-requests {verb} {w.group} "
            f"{flag}={self.name} {where} --project {w.project}"
        )
