"""The create steps of a *job*: a resource that queues for capacity, runs, and ends on its own
(a Vertex AI custom job, a Cloud Batch job), on the shared
:class:`~pulumi_dws.providers.lro.LroCreate`.

``waitFor`` says when a create is done: ``queued`` (the job exists), ``running`` (its capacity
was found: it runs) or ``succeeded`` (it ended well). The declaration's states say what the
API's states mean (``pending``: on its way; ``ready``: running; ``ended``: will never run again);
:attr:`JobCreate.SUCCEEDED` the states of a job that ended well. A kind says how long the job
may queue (:meth:`~JobCreate.queue_seconds`) and run (:meth:`~JobCreate.run_seconds`); the wait
is the queue (plus :data:`PROVISION_MARGIN`), and for ``succeeded`` the run too, unless the
program sets ``waitTimeout``. A job that failed is a failed create (the machine removes it);
one still running when ``succeeded`` was asked is returned as it is (its own run limit ends
it). A job still queued when the wait ends follows the rule of every DWS queue
(:meth:`~pulumi_dws.providers.lro.LroCreate.timed_out`, docs/reliability.md "Queues that are
kept"): by default (``onTimeout: keep``) the create succeeds with the job still queued and
says so, and ``pulumi refresh`` follows it; ``onTimeout: cancel`` removes it instead.
"""

from __future__ import annotations

from typing import Any, ClassVar

from .create_machine import Outcome, Phase
from .lro import Ended, LroCreate

__all__ = ["PROVISION_MARGIN", "WAIT_FOR", "JobCreate"]

WAIT_FOR = ("queued", "running", "succeeded")
PROVISION_MARGIN = 3600.0
"""Past the queue window, how long a create waits for the job's capacity to be provisioned."""


class JobCreate(LroCreate):
    """The steps of one job create (see the module docstring). A subclass sets
    :attr:`SUCCEEDED` and writes :meth:`queue_seconds`, :meth:`run_seconds` and
    :meth:`why_ended`."""

    CREATE_ANSWER: ClassVar[str] = "resource"
    SUCCEEDED: ClassVar[frozenset[str]] = frozenset()
    """States of a job that ended well."""

    @property
    def wanted(self) -> str:
        """What ``waitFor`` asks: ``queued``, ``running`` or ``succeeded``."""
        return str(self.target.props.get("waitFor") or "running")

    def queue_seconds(self) -> float | None:
        """Hook: how long the job may wait for capacity (None: as long as the API keeps it,
        bounded by the provider's timeout)."""
        return None

    def run_seconds(self) -> float:
        """Hook: how long the job may run once it has its capacity."""
        return self.provider.timeout

    def why_ended(self, live: dict[str, Any]) -> str:
        """Hook: why a job ended as it did (`` (code: message)``), or ""."""
        return ""

    def wait_seconds(self) -> float:
        if self.wanted == "queued":
            return 0.0
        asked = self.asked_wait()
        if asked is not None:
            return asked
        queue = self.queue_seconds()
        waited = self.provider.timeout if queue is None else queue + PROVISION_MARGIN
        return waited + (self.run_seconds() if self.wanted == "succeeded" else 0.0)

    def settled(self, live: dict[str, Any] | None) -> bool:
        states = self.resource.states
        state = states.of(live)
        if live is None or self.wanted == "queued":
            return True
        if state in self.SUCCEEDED or state in states.ended:
            return True
        return self.wanted == "running" and state in states.ready

    def judge(self, live: dict[str, Any] | None) -> Outcome[dict[str, Any]]:
        if live is None:
            return Outcome(Phase.FAILED, error=Ended(f"the {self.resource.noun} is gone"))
        states = self.resource.states
        state = states.of(live)
        if state in self.SUCCEEDED:
            return Outcome(Phase.RUNNING, live)
        if state in states.ready:
            # asked to succeed, still running: its own run limit ends it, never cut short here
            return Outcome(Phase.RUNNING if self.wanted != "succeeded" else Phase.PENDING, live)
        if state in states.ended:
            return Outcome(Phase.FAILED, error=Ended(f"it is {state}{self.why_ended(live)}"))
        if self.wanted == "queued":
            return Outcome(Phase.PENDING, live)
        return self.timed_out(live)  # still queued (or a state not known) when the wait ended
