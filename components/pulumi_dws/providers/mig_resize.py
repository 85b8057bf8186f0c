"""The ``MigResizeRequest`` dynamic resource: a resize request on a managed instance group, which
brings N VMs at once (all or nothing) through the Dynamic Workload Scheduler, and its lifecycle.

Type token: ``pulumi-python:dynamic/dws:MigResizeRequest``. Inputs (camelCase, as stored in
state):

``project``; ``zone`` or ``region``
    where the group lives: exactly one of them is a string, the other None (a zonal or a
    regional managed instance group).
``group``
    the managed instance group's name.
``name``
    the resize request's name (RFC 1035; unique within the group).
``body``
    the ``InstanceGroupManagerResizeRequest`` sent to ``resizeRequests.insert``, exactly as
    ``gcloud beta compute instance-groups managed resize-requests create --resize-by=N
    --requested-run-duration=D`` sends it: ``{"name", "resizeBy", "requestedRunDuration":
    {"seconds": "D"}}``.
``waitFor``
    ``accepted`` (return once Google queued the request) or ``running`` (once it SUCCEEDED and
    its VMs run).

Outputs: the inputs plus ``state`` (``CREATING``, ``ACCEPTED``, ``SUCCEEDED``, ``FAILED``,
``CANCELLED``, or ``EXPIRED`` once the run ended and the VMs are gone) and ``observed``:
``selfLink``, ``instances`` (the VM names), ``runEndsAt`` (RFC 3339 or None), ``requestId`` (of
the insert) and ``error`` (None, or Google's message for a failed request).

diff: every input but ``waitFor`` replaces the request (a resize request cannot be changed);
the component registers it with ``delete_before_replace``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import pulumi
import pulumi.dynamic as dyn

__all__ = [
    "MigResizeRequest",
    "MigResizeRequestProvider",
    "MigResizeError",
    "TYPE_TOKEN",
    "INPUT_KEYS",
    "OUTPUT_KEYS",
    "OBSERVED_KEYS",
]

TYPE_TOKEN = "pulumi-python:dynamic/dws:MigResizeRequest"
INPUT_KEYS = ("project", "zone", "region", "group", "name", "body", "waitFor")
OUTPUT_KEYS = ("state", "observed")
OBSERVED_KEYS = ("selfLink", "instances", "runEndsAt", "requestId", "error")


class MigResizeError(Exception):
    """A resize request could not be created, read or deleted. The message says what was
    asked, where, why, what to change, and whether anything was left behind."""


class MigResizeRequestProvider(dyn.ResourceProvider):
    """CRUD for ``MigResizeRequest`` over the Compute v1 REST API (see the module docstring).

    ``sleep`` replaces ``time.sleep`` between retries and polls (tests pass one that advances
    an emulator's virtual clock); it is never set on the provider a stack pickles.
    """

    serialize_as_secret_always = False  # it holds no secret: keep the state readable
    config: dict[str, Any] | None = None
    sleep: Callable[[float], None] | None = None
    poll: Any = None  # a PollPolicy (default: PollPolicy())

    def __init__(self, sleep: Callable[[float], None] | None = None, poll: Any = None) -> None:
        super().__init__()
        if sleep is not None:
            self.sleep = sleep
        if poll is not None:
            self.poll = poll

    def configure(self, req: dyn.ConfigureRequest) -> None:
        """Keep the endpoint override from stack config (``dws:computeEndpoint``)."""
        from .endpoints import COMPUTE

        self.config = {COMPUTE.config_key: req.config.get(COMPUTE.config_key)}

    def check(self, _olds: dict[str, Any], news: dict[str, Any]) -> dyn.CheckResult:
        raise NotImplementedError

    def diff(self, _id: str, olds: dict[str, Any], news: dict[str, Any]) -> dyn.DiffResult:
        raise NotImplementedError

    def create(self, props: dict[str, Any]) -> dyn.CreateResult:
        raise NotImplementedError

    def read(self, id_: str, props: dict[str, Any]) -> dyn.ReadResult:
        raise NotImplementedError

    def update(self, _id: str, olds: dict[str, Any], news: dict[str, Any]) -> dyn.UpdateResult:
        raise NotImplementedError

    def delete(self, _id: str, props: dict[str, Any]) -> None:
        raise NotImplementedError


_PROVIDER: MigResizeRequestProvider | None = None


def default_provider() -> MigResizeRequestProvider:
    """The provider instance every ``MigResizeRequest`` of a program shares."""
    global _PROVIDER
    if _PROVIDER is None:
        _PROVIDER = MigResizeRequestProvider()
    return _PROVIDER


class MigResizeRequest(dyn.Resource, module="dws", name="MigResizeRequest"):
    """A resize request on a managed instance group
    (``pulumi-python:dynamic/dws:MigResizeRequest``).

    Most users want :class:`pulumi_dws.FlexStartGroup`, which builds ``props``. Every input and
    output key (:data:`INPUT_KEYS`, :data:`OUTPUT_KEYS`) is an ``Output`` attribute:
    ``request.state``, ``request.observed`` (a dict), ``request.body``...
    """

    def __init__(
        self,
        name: str,
        props: Mapping[str, Any],
        opts: pulumi.ResourceOptions | None = None,
        provider: MigResizeRequestProvider | None = None,
    ) -> None:
        full = {key: None for key in OUTPUT_KEYS}
        full.update(props)
        super().__init__(provider or default_provider(), name, full, opts)
