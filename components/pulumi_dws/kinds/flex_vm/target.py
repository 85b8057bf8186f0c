"""The Flex-start VM one call is about (:class:`FlexVm`): what the provider's steps, waits and
messages read from its inputs."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...duration import Duration
from ...providers.rest_resource import RestResource, Target
from .api import FLEX_VM

__all__ = ["FlexVm"]


class FlexVm(Target):
    """A ``FlexStartVm``'s inputs, read as the VM they declare."""

    def __init__(self, resource: RestResource, props: Mapping[str, Any]) -> None:
        super().__init__(resource, props)
        body = props.get("body") or {}
        self.project = str(props["project"])
        self.zone = str(props["zone"])
        self.name = str(props["name"])
        self.machine_type = str(body.get("machineType") or "").rsplit("/", 1)[-1]
        self.template = str(props.get("sourceInstanceTemplate") or "")
        self.body: dict[str, Any] = dict(body)
        self.desired = str(props.get("desiredStatus") or "RUNNING")
        self.wait_for = str(props.get("waitFor") or "running")
        given = props.get("waitTimeout")
        self.wait_timeout: float | None = None
        if isinstance(given, (int, float)) and not isinstance(given, bool) and given > 0:
            self.wait_timeout = float(given)
        """``waitTimeout`` (seconds), when the program sets it: shorter than the queue window,
        the wait ends then (see :attr:`on_timeout`)."""
        self.on_timeout = "cancel" if props.get("onTimeout") == "cancel" else "keep"

    @classmethod
    def of(cls, props: Mapping[str, Any]) -> FlexVm:
        """The VM ``props`` (a ``FlexStartVm``'s inputs) declare."""
        return cls(FLEX_VM, props)

    @property
    def window(self) -> int | None:
        """The queue window (``params.requestValidForDuration``) in seconds, if any."""
        spec = (self.body.get("params") or {}).get("requestValidForDuration") or {}
        return int(float(spec["seconds"])) if spec.get("seconds") is not None else None

    @property
    def run(self) -> int | None:
        """The run duration (``scheduling.maxRunDuration``) in seconds, if any."""
        spec = (self.body.get("scheduling") or {}).get("maxRunDuration") or {}
        return int(float(spec["seconds"])) if spec.get("seconds") is not None else None

    def describe(self) -> str:
        parts = [f"{self.machine_type or 'VM'} in {self.zone}", f"project {self.project}"]
        if self.run:
            parts.append(f"max run {Duration(self.run).human()}")
        parts.append(f"queue window {Duration(self.window).human()}" if self.window else "no queue")
        return f"Flex-start VM '{self.name}' ({', '.join(parts)})"

    def gcloud(self, verb: str) -> str:
        """The gcloud command that does ``verb`` (``delete``, ``stop``...) to this VM."""
        return (
            f"gcloud compute instances {verb} {self.name} --zone {self.zone} "
            f"--project {self.project}"
        )
