"""Dynamic provider for a Cloud Batch job (``v1`` ``jobs``) whose VMs are Flex-start
(``allocationPolicy.instances[0].policy.provisioningModel: FLEX_START``): what a
``BatchFlexJob`` registers.

Resource type ``pulumi-python:dynamic/dws:BatchJob``. Inputs: ``project``, ``region`` (the job's
location), ``jobId``, ``body`` (the ``Job`` JSON, field for field what ``gcloud batch jobs
submit --config`` sends) and ``waitFor`` (``queued`` | ``running`` | ``succeeded``). Outputs:
the inputs plus ``name`` (``projects/P/locations/R/jobs/ID``), ``state`` (``QUEUED``,
``SCHEDULED``, ``RUNNING``, ``SUCCEEDED``, ``FAILED``...) and ``observed`` (``createTime``,
``uid``, ``event``: the last status event).

* Create: ``POST {parent}/jobs?jobId=ID&requestId=UUID``; an answer lost in any way is sent
  again with the same request id (Batch ignores a repeat for at least 60 minutes), a ``409``
  settled by reading the job of that id (:mod:`~.create`). Then the job is read until it is
  what ``waitFor`` asks. A job that fails, is cancelled, or still queues when the wait ends is
  deleted before the error says nothing is left; one that can't be removed is returned with
  its true state, so the stack tracks it.
* Diff: a job can't be changed: any change of ``project``, ``region``, ``jobId`` or ``body``
  replaces it (deleting first: the id is reused); ``waitFor`` only matters at create time. The
  VMs' labels (``allocationPolicy.labels``, the job's own) that an older release did not send
  are no change.
* Read: the job as it is; one deleted outside Pulumi is gone.
* Delete: ``DELETE {name}`` (Batch stops a job that still runs: ``DELETION_IN_PROGRESS``, "the
  resources used by the Job are still being cleaned up"), the operation polled, then the job
  read until it is gone; 404 is success.

Endpoint: ``DWS_BATCH_ENDPOINT`` or the stack config ``dws:batchEndpoint``, else
``https://batch.googleapis.com/``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

import pulumi

from ...providers.checks import CheckFailures
from ...providers.jobs import WAIT_FOR
from ...providers.lro import LroProvider
from ...providers.rest_resource import DeclaredResource, RestResource, Target
from .api import BATCH_JOB, TYPE_TOKEN, BatchJobError, last_event, state_of
from .create import BatchJobCreate

if TYPE_CHECKING:
    from ...providers.rest import GoogleRestClient

__all__ = ["TYPE_TOKEN", "BatchJobError", "BatchJobProvider", "BatchJobResource"]


def _without_vm_labels(old: Any, new: Mapping[str, Any]) -> Any:
    """``new`` without ``allocationPolicy.labels`` when ``old`` has none there and they are
    the job's labels (what this release adds to an older one's body); else ``new``."""
    allocation = new.get("allocationPolicy")
    old_allocation = old.get("allocationPolicy") if isinstance(old, Mapping) else None
    if (
        not isinstance(allocation, Mapping)
        or not isinstance(old_allocation, Mapping)
        or "labels" in old_allocation
        or allocation.get("labels") != new.get("labels")
    ):
        return new
    trimmed = {k: v for k, v in allocation.items() if k != "labels"}
    return {**dict(new), "allocationPolicy": trimmed}


class BatchJobProvider(LroProvider):
    """CRUD of one Cloud Batch job; see the module docstring."""

    RESOURCE: ClassVar[RestResource] = BATCH_JOB

    def check_inputs(self, news: Mapping[str, Any], failures: CheckFailures) -> None:
        """Every value that goes into a URL is checked in full; ``waitFor`` is one of
        :data:`~pulumi_dws.providers.jobs.WAIT_FOR`; the body's labels leave room for the
        ownership label."""
        self.check_address(news, failures)
        failures.one_of("waitFor", news.get("waitFor", "running"), WAIT_FOR)
        failures.wait_policy(news)
        body = failures.body(news.get("body"), "a Job")
        labels = body.get("labels") if body is not None else None
        if isinstance(labels, Mapping):
            failures.owner_label_room("body", "body.labels", labels)

    def same(self, key: str, old: Any, new: Any) -> bool:
        """As the base's, but a body whose only difference is the VMs' labels, given now as
        the job's own (``allocationPolicy.labels``) where an older release sent none, is the
        same job: it is not run again for it."""
        if key == "body" and old != new and isinstance(new, Mapping):
            return bool(old == _without_vm_labels(old, new))
        return super().same(key, old, new)

    def create_steps(self, client: GoogleRestClient, target: Target) -> BatchJobCreate:
        return BatchJobCreate(self, client, target)

    def outputs(self, target: Target, live: Mapping[str, Any]) -> dict[str, Any]:
        observed = {
            "createTime": live.get("createTime"),
            "uid": live.get("uid"),
            "event": last_event(live).strip(" ()") or None,
        }
        return {
            **dict(target.props),
            "name": target.path,
            "state": state_of(live),
            "observed": observed,
        }

    def delete_and_wait(self, client: GoogleRestClient, target: Target) -> bool:
        """``DELETE`` the job, wait for its operation, then until it is gone; False when there
        was nothing to delete."""
        deleted = super().delete_and_wait(client, target)
        final = self.poll(client, target, lambda job: job is None)
        if final is not None:
            raise TimeoutError(
                f"{target.path} is still {state_of(final)} after {self.timeout:.0f}s"
            )
        return deleted


class BatchJobResource(DeclaredResource, module="dws", name="BatchJob"):
    """The Batch job as a dynamic resource (``pulumi-python:dynamic/dws:BatchJob``)."""

    name: pulumi.Output[str]
    state: pulumi.Output[str]
    observed: pulumi.Output[dict[str, Any]]

    provider_class = BatchJobProvider
