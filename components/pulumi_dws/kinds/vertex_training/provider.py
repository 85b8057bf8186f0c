"""Dynamic provider for Vertex AI custom jobs on Flex-start (``v1beta1`` ``customJobs``, with
``jobSpec.scheduling.strategy: FLEX_START``): the training job a ``VertexTrainingJob`` runs.

Resource type ``pulumi-python:dynamic/dws:VertexCustomJob``. Inputs: ``project``, ``region``
(the regional endpoint), ``owner`` (the resource's name in the program: part of the ownership
key), ``body`` (the ``CustomJob`` JSON, field for field what ``gcloud ai custom-jobs create
--config`` sends) and ``waitFor`` (``queued`` | ``running`` | ``succeeded``). Outputs: the
inputs plus ``name`` (``projects/P/locations/R/customJobs/ID``), ``state`` (``JOB_STATE_QUEUED``,
``JOB_STATE_RUNNING``, ``JOB_STATE_SUCCEEDED``...) and ``observed`` (``createTime``,
``startTime``, ``endTime``, ``error``).

* Create: ``POST {parent}/customJobs`` with the ownership label ``dws_create=<key>``; the API
  names the job and dedupes nothing, so the POST is never sent again blindly: a lost answer is
  settled by searching ``customJobs.list`` for the label (:mod:`~.create`), the job adopted when
  found and the create sent again only when nothing is there. Then the job is read until it is
  what ``waitFor`` asks. A job that fails, expires, is cancelled, or is still queued when its
  queue window (plus an hour) has passed is cancelled and deleted before the error says nothing
  is left; one that can't be removed is returned with its true state, so the stack tracks it.
* Diff: a job can't be changed: any change of ``project``, ``region`` or ``body`` replaces it;
  ``waitFor`` only matters at create time.
* Read: the job as it is; one deleted outside Pulumi is gone.
* Delete: a job still queued or running is cancelled first (``:cancel``, then read until it
  rests), as Google's own samples do before ``customJobs.delete`` (googleapis/python-aiplatform
  ``samples/snippets/job_service/create_custom_job_sample_test.py``: cancel, wait for
  ``JOB_STATE_CANCELLED``, delete); then ``DELETE`` and its operation polled; 404 is success.

Declared once (:data:`~pulumi_dws.kinds.vertex_training.api.VERTEX_CUSTOM_JOB`) on the shared
base. Endpoint: ``DWS_AIPLATFORM_ENDPOINT`` or ``dws:aiplatformEndpoint``, else
``https://REGION-aiplatform.googleapis.com/``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

import pulumi
import pulumi.dynamic as dyn

from ...providers.checks import CheckFailures
from ...providers.jobs import WAIT_FOR
from ...providers.lro import LroProvider
from ...providers.rest import ApiError
from ...providers.rest_resource import DeclaredResource, RestResource, Target
from .api import (
    CANCELLABLE,
    OWNER_LABEL,
    STACK_LABEL,
    TERMINAL,
    TYPE_TOKEN,
    VERTEX_CUSTOM_JOB,
    VertexTrainingError,
    job_error,
    state_of,
)
from .create import VertexJobCreate

if TYPE_CHECKING:
    from ...providers.rest import GoogleRestClient

__all__ = [
    "TYPE_TOKEN",
    "WAIT_FOR",
    "VertexCustomJobProvider",
    "VertexCustomJobResource",
    "VertexTrainingError",
]


class VertexCustomJobProvider(LroProvider):
    """CRUD of one Vertex AI custom job; see the module docstring."""

    RESOURCE: ClassVar[RestResource] = VERTEX_CUSTOM_JOB

    def check_inputs(self, news: Mapping[str, Any], failures: CheckFailures) -> None:
        """The project and region can go into a URL; ``waitFor`` is one of :data:`WAIT_FOR`;
        the body is a mapping whose labels leave room for the ownership label."""
        for key in ("project", "region"):
            if news.get(key) is None:
                failures.append(dyn.CheckFailure(key, f"{key} is required"))
            failures.segment(key, news.get(key))
        failures.one_of("waitFor", news.get("waitFor", "running"), WAIT_FOR)
        failures.wait_policy(news)
        body = failures.body(news.get("body"), "a CustomJob")
        labels = body.get("labels") if body is not None else None
        if isinstance(labels, Mapping):
            failures.owner_label_room("body", "body.labels", labels, OWNER_LABEL, STACK_LABEL)

    def create_steps(self, client: GoogleRestClient, target: Target) -> VertexJobCreate:
        return VertexJobCreate(self, client, target)

    def outputs(self, target: Target, live: Mapping[str, Any]) -> dict[str, Any]:
        observed: dict[str, Any] = {
            key: live.get(key) for key in ("createTime", "startTime", "endTime")
        }
        error = job_error(live)
        if error:
            observed["error"] = error.strip(" ()")
        return {
            **dict(target.props),
            "name": target.path,
            "state": state_of(live),
            "observed": observed,
        }

    def delete_and_wait(self, client: GoogleRestClient, target: Target) -> bool:
        """Cancel a job that is still queued or running, wait until it rests, then delete it
        (see the module docstring); False when there was nothing to delete."""
        live = self.read_live(client, target)
        if live is None:
            return False
        if state_of(live) in CANCELLABLE:
            try:
                client.post(f"{target.path}:cancel", {}, idempotent=True)
            except ApiError as err:
                if err.not_found:
                    return False
                if err.status not in (400, 409):  # 400/409: it came to rest meanwhile
                    raise
        if state_of(live) not in TERMINAL:
            live = self.poll(client, target, lambda job: job is None or state_of(job) in TERMINAL)
            if live is None:
                return True
            if state_of(live) not in TERMINAL:
                raise TimeoutError(
                    f"{target.path} is still {state_of(live)} after {self.timeout:.0f}s of "
                    "cancelling"
                )
        return super().delete_and_wait(client, target)


class VertexCustomJobResource(DeclaredResource, module="dws", name="VertexCustomJob"):
    """The custom job as a dynamic resource (``pulumi-python:dynamic/dws:VertexCustomJob``)."""

    name: pulumi.Output[str]
    state: pulumi.Output[str]
    observed: pulumi.Output[dict[str, Any]]

    provider_class = VertexCustomJobProvider
