"""How the answer to a Compute insert (a VM, a resize request) moves the shared create machine
(:mod:`~pulumi_dws.providers.create_machine`), and the request ids its attempts carry.

The first attempt's ``requestId`` is derived from the inputs, so an insert sent again after a
crash or a lost answer is deduplicated by Compute. Compute remembers an id for a while (at least
an hour): after a deliberate delete, the same inputs' id is answered with the *old*, finished
operation while nothing exists, and an old failed operation is replayed the same way. Such
stale answers are told apart (a finished insert whose resource is gone, or an operation older
than this create, by the server's own clock) and the create moves on to a random id.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping
from typing import Any

from .compute_ops import is_done, operation_errors, operation_time
from .create_machine import Sent, sent_after
from .rest import ApiError

__all__ = ["AttemptIds", "insert_answer", "name_taken_text", "unconfirmed_text"]


class AttemptIds:
    """The ``requestId`` of each create attempt: ``first`` (derived from the inputs) for
    attempt 0, a random one for each later attempt (after a stale answer), stable per attempt."""

    def __init__(self, first: str) -> None:
        self._ids = {0: first}

    def __call__(self, attempt: int) -> str:
        return self._ids.setdefault(attempt, str(uuid.uuid4()))


def insert_answer(
    post: Callable[[], dict[str, Any]],
    *,
    started: float | None,
    current: Callable[[], Mapping[str, Any] | None],
    what: str,
) -> Sent[dict[str, Any]]:
    """Send an insert (``post``) and say what its answer means: ``accepted`` (an operation to
    follow), ``conflict`` (the name is taken), ``stale`` (a replay of an earlier create's
    insert), ``lost`` or ``rejected``. ``current`` reads the resource by name (None: there is
    none); ``started`` is when this create began by the server's clock; ``what`` names the
    resource in messages."""
    try:
        op = post()
    except ApiError as err:
        return sent_after(err, "the insert")
    if not is_done(op):
        return Sent("accepted", op)
    if operation_errors(op):
        began = operation_time(op)
        if started is not None and began is not None and began < started:
            return Sent("stale", why="its request id replayed a failed insert of an earlier create")
        return Sent("accepted", op)
    try:
        found = current()
    except ApiError:
        return Sent("accepted", op)  # following it reads the resource again
    if found is None:
        return Sent("stale", why=f"its request id replayed an insert whose {what} is gone")
    if str(found.get("id")) != str(op.get("targetId")):
        return Sent("conflict", why=f"the {what} of that name is not the one this insert made")
    return Sent("accepted", op)


def name_taken_text(described: str, detail: str, name: str, what: str, delete: str) -> str:
    """The message of an insert refused because the name is taken by something this create did
    not make: ``described`` is the resource as messages describe it, ``name`` the input that
    names it, ``what`` what it is (``VM``), ``delete`` the command that deletes the other one."""
    return (
        f"{described}: {detail}. Nothing was created or changed. To change: choose another "
        f"{name}, or delete that {what} (`{delete}`) and deploy again."
    )


def unconfirmed_text(described: str, error: Exception, what: str) -> str:
    """The message of an insert that got no usable answer while nothing of that name exists."""
    return (
        f"{described} could not be created: Compute Engine did not confirm the insert "
        f"({error}), and no {what} of that name exists. Nothing was created. To change: deploy "
        "again later."
    )
