"""The create of a Vertex AI custom job: the shared job steps
(:class:`~pulumi_dws.providers.jobs.JobCreate`, on ``LroCreate``) in ``OWNER_SEARCH`` mode,
with what is the job's own (see :mod:`pulumi_dws.kinds.vertex_training.provider` for the
behaviour).

Ownership. The job carries the label ``dws_create=<key>``, ``<key>`` a hash of the inputs that
make it what it is (project, region, body) *and* of the resource's own name in the program
(``owner``): two jobs of one program with identical bodies get different keys, so neither ever
adopts the other. A job found with this key after a lost answer is this create's own.

Waiting (``waitFor``: ``queued``, ``running``, ``succeeded``): the job's own queue window
(``scheduling.maxWaitDuration``, Google's default 1 day) plus an hour to provision, and for
``succeeded`` its run limit (``scheduling.timeout``, default 7 days). A job told to wait
indefinitely (``maxWaitDuration: 0``) is waited for as long as the provider's timeout (or
``waitTimeout``); still queued then, it follows the rule of every DWS queue: kept as it is by
default (its place in the queue is the user's choice), cancelled only with ``onTimeout: cancel``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from ...duration import Duration
from ...errors import DwsValidationError
from ...providers.jobs import JobCreate
from .api import job_error

__all__ = ["DEFAULT_MAX_WAIT", "DEFAULT_TIMEOUT", "VertexJobCreate"]

DEFAULT_MAX_WAIT = 86400
"""Google's default queue window (``maxWaitDuration``: "The default is 24 hours")."""
DEFAULT_TIMEOUT = 7 * 86400
"""Google's default run limit (``timeout``: "The default is 7 days")."""


def _scheduling_seconds(body: Any, key: str, default: int) -> int:
    spec = body.get("jobSpec") if isinstance(body, Mapping) else None
    scheduling = spec.get("scheduling") if isinstance(spec, Mapping) else None
    value = scheduling.get(key) if isinstance(scheduling, Mapping) else None
    if value is None:
        return default
    try:
        return Duration.parse(value, key).seconds
    except DwsValidationError:
        return default  # the API refuses it


class VertexJobCreate(JobCreate):
    """The steps of one custom job create: answered with the job itself; found by its label."""

    SUCCEEDED: ClassVar[frozenset[str]] = frozenset(
        {"JOB_STATE_SUCCEEDED", "JOB_STATE_PARTIALLY_SUCCEEDED"}
    )
    LEFTOVER: ClassVar[str] = "The job"

    def queue_seconds(self) -> float | None:
        body = self.target.props.get("body")
        window = _scheduling_seconds(body, "maxWaitDuration", DEFAULT_MAX_WAIT)
        return None if window == 0 else float(window)

    def run_seconds(self) -> float:
        return float(_scheduling_seconds(self.target.props.get("body"), "timeout", DEFAULT_TIMEOUT))

    def why_ended(self, live: dict[str, Any]) -> str:
        return job_error(live)
