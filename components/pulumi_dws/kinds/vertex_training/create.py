"""The create of a Vertex AI custom job: the shared :class:`~pulumi_dws.providers.lro.LroCreate`
steps in ``OWNER_SEARCH`` mode, with what is the job's own (see
:mod:`pulumi_dws.kinds.vertex_training.provider` for the behaviour).

Ownership. The job carries the label ``dws_create=<key>``, ``<key>`` a hash of the inputs that
make it what it is (project, region, body) *and* of the resource's own name in the program
(``owner``): two jobs of one program with identical bodies get different keys, so neither ever
adopts the other. A job found with this key after a lost answer is this create's own.

Waiting. ``waitFor`` says when the create is done: ``queued`` (the job exists), ``running``
(Flex-start found the capacity: the job runs) or ``succeeded`` (the job finished). The wait
lasts the job's own queue window (``scheduling.maxWaitDuration``, Google's default 1 day) plus
an hour to provision, and for ``succeeded`` its run limit too (``scheduling.timeout``, default
7 days); with a queue window of 0 (wait indefinitely) the provider's timeout bounds it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any, ClassVar

from ...duration import Duration
from ...errors import DwsValidationError
from ...providers.create_machine import Outcome, Phase
from ...providers.lro import Ended, LroCreate
from .api import ENDED, QUEUED, TERMINAL, job_error, state_of

__all__ = ["WAIT_MARGIN", "VertexJobCreate", "wait_seconds"]

WAIT_MARGIN = 3600.0
"""Past the queue window, how long a create waits for the job to be provisioned."""
DEFAULT_MAX_WAIT = 86400
"""Google's default queue window (``maxWaitDuration``: "The default is 24 hours")."""
DEFAULT_TIMEOUT = 7 * 86400
"""Google's default run limit (``timeout``: "The default is 7 days")."""


def _seconds(scheduling: Any, key: str, default: int) -> int:
    value = scheduling.get(key) if isinstance(scheduling, Mapping) else None
    if value is None:
        return default
    try:
        return Duration.parse(value, key).seconds
    except DwsValidationError:
        return default  # the API refuses it


def wait_seconds(body: Any, wanted: str, timeout: float) -> float:
    """How long a create waits for a job of ``body`` to be what ``wanted`` asks (see the module
    docstring); ``timeout`` bounds a queue window of 0."""
    spec = body.get("jobSpec") if isinstance(body, Mapping) else None
    scheduling = spec.get("scheduling") if isinstance(spec, Mapping) else None
    if wanted == "queued":
        return 0.0
    window = _seconds(scheduling, "maxWaitDuration", DEFAULT_MAX_WAIT)
    queue = timeout if window == 0 else window + WAIT_MARGIN
    if wanted == "succeeded":
        return queue + _seconds(scheduling, "timeout", DEFAULT_TIMEOUT)
    return queue


class VertexJobCreate(LroCreate):
    """The steps of one custom job create: answered with the job itself; found by its label."""

    CREATE_ANSWER: ClassVar[str] = "resource"
    LEFTOVER: ClassVar[str] = "The job"

    def owner_key(self) -> str:
        """The inputs' key (:meth:`LroCreate.owner_key`) joined with the resource's own name in
        the program (``owner``), so two identical jobs never share one."""
        inputs = super().owner_key()
        owner = str(self.target.props.get("owner") or "")
        return hashlib.sha256(f"{inputs}/{owner}".encode()).hexdigest()[:20]

    @property
    def wanted(self) -> str:
        """What ``waitFor`` asks: ``queued``, ``running`` or ``succeeded``."""
        return str(self.target.props.get("waitFor") or "running")

    def wait_seconds(self) -> float:
        return wait_seconds(self.target.props.get("body"), self.wanted, self.provider.timeout)

    def settled(self, live: dict[str, Any] | None) -> bool:
        state = state_of(live)
        if live is None or state in TERMINAL or state in ENDED:
            return True
        if self.wanted == "queued":
            return True
        return self.wanted == "running" and state == "JOB_STATE_RUNNING"

    def judge(self, live: dict[str, Any] | None) -> Outcome[dict[str, Any]]:
        if live is None:
            return Outcome(Phase.FAILED, error=Ended("the job is gone"))
        state = state_of(live)
        if state in ("JOB_STATE_SUCCEEDED", "JOB_STATE_RUNNING"):
            if state == "JOB_STATE_RUNNING" and self.wanted == "succeeded":
                # Vertex AI ends it at its own run limit: it is never cut short here
                return Outcome(Phase.PENDING, live)
            return Outcome(Phase.RUNNING, live)
        if state in ENDED or state in TERMINAL:
            return Outcome(Phase.FAILED, error=Ended(f"it is {state}{job_error(live)}"))
        if self.wanted == "queued":
            return Outcome(Phase.PENDING, live)
        waited = f"{self.wait_seconds():.0f}s"
        if state in QUEUED:
            why = f"it is still {state} after {waited}: no capacity came in its queue window"
        else:
            why = f"it is still {state} after {waited}"
        return Outcome(Phase.FAILED, error=Ended(why))
