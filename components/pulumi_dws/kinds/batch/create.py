"""The create of a Cloud Batch job: the shared job steps
(:class:`~pulumi_dws.providers.jobs.JobCreate`, on ``LroCreate``) in ``REQUEST_ID`` mode, with
what is the job's own (see :mod:`pulumi_dws.kinds.batch.provider` for the behaviour).

Ownership. The program names the job; it carries the label ``dws-create=<key>`` (a hash of its
inputs), so a job found under its id after a crash or a lost answer is adopted when it is this
program's, and refused otherwise (made elsewhere, or from other inputs), saying which.

Waiting (``waitFor``: ``queued``, ``running``, ``succeeded``): Batch has no queue window of its
own, so a job may queue as long as the provider's timeout; for ``succeeded``, its tasks' run
limit too (``maxRunDuration`` times the waves of tasks it runs).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, ClassVar

from ...duration import Duration
from ...errors import DwsValidationError
from ...providers.jobs import JobCreate
from .api import last_event

__all__ = ["BatchJobCreate", "run_hours_of"]


def run_hours_of(body: Any) -> float | None:
    """How long a job of ``body`` may run, in hours: its tasks' ``maxRunDuration`` times the
    waves it runs them in (``taskCount`` over ``parallelism``); None without a run limit."""
    groups = body.get("taskGroups") if isinstance(body, Mapping) else None
    group = groups[0] if isinstance(groups, list) and groups else None
    spec = group.get("taskSpec") if isinstance(group, Mapping) else None
    value = spec.get("maxRunDuration") if isinstance(spec, Mapping) else None
    if value is None or not isinstance(group, Mapping):
        return None
    try:
        seconds = Duration.parse(value, "maxRunDuration").seconds
        tasks = int(group.get("taskCount") or 1)
        at_once = int(group.get("parallelism") or tasks)
    except (DwsValidationError, TypeError, ValueError):
        return None
    return seconds * math.ceil(tasks / max(at_once, 1)) / 3600


class BatchJobCreate(JobCreate):
    """The steps of one Batch job create: answered with the job itself."""

    SUCCEEDED: ClassVar[frozenset[str]] = frozenset({"SUCCEEDED"})
    LEFTOVER: ClassVar[str] = "The failed job"

    def run_seconds(self) -> float:
        hours = run_hours_of(self.target.props.get("body"))
        return self.provider.timeout if hours is None else hours * 3600

    def why_ended(self, live: dict[str, Any]) -> str:
        return last_event(live)
