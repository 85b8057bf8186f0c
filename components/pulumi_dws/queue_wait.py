"""How long a component waits in a DWS queue, and what then: ``wait_timeout`` and
``on_timeout``, shared by every component whose resource waits in one: ``FlexStartGroup``,
``QueuedTpu``, ``FlexStartInstance``, ``VertexTrainingJob``, ``FlexStartDeployment`` and
``BatchFlexJob``.

DWS keeps a request queued until capacity and quota exist (a Flex-start VM until its own
``request_valid_for`` window ends). A create waits for it up to ``wait_timeout`` (each kind
documents its default); when that passes with the request still queued:

``on_timeout: "keep"`` (default)
    the create succeeds with the request's true state (``ACCEPTED``, ``WAITING_FOR_RESOURCES``,
    ``PENDING``: still queued), a warning says so, and ``pulumi refresh`` follows it: the place
    in the queue is kept.
``on_timeout: "cancel"``
    the request is cancelled and deleted, and the create fails saying so (nothing is left).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from typing_extensions import NotRequired, TypedDict

from .duration import Duration, DurationLike
from .errors import DwsValidationError
from .fields import Check

__all__ = ["OnTimeout", "QueueWaitArgs", "WaitTimeout", "wait_policy"]

OnTimeout = Literal["keep", "cancel"]


def _positive(field: str, value: Duration) -> Duration:
    if value.seconds <= 0:
        raise DwsValidationError(field, value.human(), "must be longer than 0s")
    return value


WaitTimeout = Annotated[Duration, Check(_positive, before=False)]
"""A ``wait_timeout`` field: a duration longer than 0s (``"3h"``, ``7200``)."""


class QueueWaitArgs(TypedDict, total=False):
    """The queue-wait arguments of a component (see the module docstring)."""

    wait_timeout: NotRequired[DurationLike]
    """How long a create waits for ``wait_for`` (default: the kind's own)."""
    on_timeout: NotRequired[OnTimeout]
    """``keep`` (default) or ``cancel`` the request when ``wait_timeout`` passes."""


def wait_policy(wait_timeout: Duration | None, on_timeout: str | None) -> dict[str, Any]:
    """The dynamic resource's inputs for them: ``waitTimeout`` (seconds) and ``onTimeout``,
    each only when the program sets it (so a stack made before they existed sees no change)."""
    inputs: dict[str, Any] = {}
    if wait_timeout is not None:
        inputs["waitTimeout"] = wait_timeout.seconds
    if on_timeout is not None:
        inputs["onTimeout"] = on_timeout
    return inputs
