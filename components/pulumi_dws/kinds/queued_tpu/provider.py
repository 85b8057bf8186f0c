"""Dynamic provider for Cloud TPU queued resources (``v2alpha1`` ``queuedResources``): the
Flex-start, Spot and reservation-bound TPU requests pulumi-gcp cannot express.

Resource type ``pulumi-python:dynamic/dws:QueuedTpu``. Inputs: ``project``, ``zone``,
``queuedResourceId``, ``body`` (the ``QueuedResource`` JSON, field for field what ``gcloud alpha
compute tpus queued-resources create`` sends) and ``waitFor`` (``accepted`` | ``active``).
Outputs: the inputs plus ``name``, ``state`` (``WAITING_FOR_RESOURCES``, ``PROVISIONING``,
``ACTIVE``, ``FAILED``, ``SUSPENDED``...), ``observed`` (``createTime``, ``stateInitiator``,
``error``: why it ``FAILED``) and ``drift`` (the body paths a read found changed).

* Create: ``POST {parent}/queuedResources?queuedResourceId=ID&requestId=UUID``, the operation
  polled, then the request read back until it is what ``waitFor`` asks: ``accepted`` (waiting
  for capacity, provisioning or active) or ``active``. The steps run on the shared create state
  machine (:mod:`~pulumi_dws.kinds.queued_tpu.create`, on
  :class:`~pulumi_dws.providers.lro.LroCreate`): an answer lost in any way is sent
  again with the same request id, then settled by reading; a request found under the id is
  adopted when its node carries this resource's ownership label (a crashed ``pulumi up``) and
  refused otherwise. Once the API accepted the create nothing is orphaned: a request that
  ``FAILED`` (its queue window passed), was ``SUSPENDED`` or is still queued when the wait ends
  (the queue window plus an hour, or ``timeout``) is deleted, and read again after the delete
  settles, before the error says nothing is left; one that can't be deleted, or can't be
  followed, is returned with its true ``state`` so the stack tracks it.
* Diff: a queued resource can't be changed: any change of ``project``, ``zone``,
  ``queuedResourceId`` or ``body`` replaces it (delete first: the id is reused); ``waitFor``
  only matters at create time.
* Read: the request as it is: ``state``, and drift (:mod:`~pulumi_dws.kinds.queued_tpu.drift`):
  ``body`` takes the accelerator type, multislice node count and node labels Google has, and
  ``drift`` lists the paths that differ (so the next ``pulumi up`` replaces a request made again
  outside Pulumi); one deleted outside Pulumi is gone.
* Delete: ``DELETE {name}?requestId=UUID``, with ``force=true`` when the request has (or may be
  making) TPU nodes (the API refuses to delete those otherwise), the operation polled, then read
  until it is gone; 404 is success.

The resource is declared once (:data:`~pulumi_dws.kinds.queued_tpu.api.QUEUED_TPU`: path, id,
replace keys, outputs, states, idempotency) on the shared base
(:mod:`~pulumi_dws.providers.rest_resource`), which supplies the target, id parsing, segment
checks, the diff, failure wrapping and the ``Resource`` class; this module adds what is the
queued resource's own. Endpoint: ``DWS_TPU_ENDPOINT`` or the stack config ``dws:tpuEndpoint``
(anonymous on loopback), else ``https://tpu.googleapis.com/`` with Application Default
Credentials fetched per call. The provider pickles to a few hundred bytes: no client, no
credentials.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

import pulumi
import pulumi.dynamic as dyn
from pulumi.output import Unknown

from ...providers.checks import WAIT_KEYS, CheckFailures
from ...providers.lro import LroProvider
from ...providers.rest import ApiError, is_lro
from ...providers.rest_resource import DeclaredResource, RestResource, Target
from .api import (
    ENDED,
    NO_NODES,
    QUEUED_TPU,
    REPLACE_KEYS,
    TYPE_TOKEN,
    QueuedTpuError,
    describe_status,
    failure_detail,
    is_queued_resource,
    state_of,
)
from .create import QueuedTpuCreate, owner_mark
from .drift import seen_body

if TYPE_CHECKING:
    from ...providers.rest import GoogleRestClient

__all__ = [
    "QueuedTpuProvider",
    "QueuedTpuResource",
    "QueuedTpuError",
    "TYPE_TOKEN",
    "REPLACE_KEYS",
    "ENDED",
    "is_queued_resource",
    "describe_status",
    "failure_detail",
]


def _node_specs(body: Any) -> tuple[list[tuple[int, Any]], str | None]:
    """``([(index, node spec)], problem)``: the known node specs of ``body``, or why
    ``body.tpu.nodeSpec`` is not a list of objects (parts not known yet are let be)."""
    tpu = body.get("tpu") if isinstance(body, Mapping) else None
    if tpu is None or isinstance(tpu, Unknown):
        return [], None
    if not isinstance(tpu, Mapping):
        return [], "body.tpu must be an object (a Tpu)"
    specs = tpu.get("nodeSpec")
    if specs is None or isinstance(specs, Unknown):
        return [], None
    if not isinstance(specs, list):
        return [], "body.tpu.nodeSpec must be a list of node specs"
    known_specs: list[tuple[int, Any]] = []
    for i, spec in enumerate(specs):
        if isinstance(spec, Unknown):
            continue
        if not isinstance(spec, Mapping):
            return [], f"body.tpu.nodeSpec[{i}] must be an object (a NodeSpec)"
        node = spec.get("node")
        if node is not None and not isinstance(node, (Mapping, Unknown)):
            return [], f"body.tpu.nodeSpec[{i}].node must be an object (a Node)"
        labels = node.get("labels") if isinstance(node, Mapping) else None
        if labels is not None and not isinstance(labels, (Mapping, Unknown)):
            return [], f"body.tpu.nodeSpec[{i}].node.labels must be an object"
        known_specs.append((i, spec))
    return known_specs, None


def _check_body(body: Any, failures: CheckFailures) -> None:
    """The node specs are objects, and their labels leave room for the ownership label the
    create adds (and don't set it)."""
    specs, problem = _node_specs(body)
    if problem:
        failures.append(dyn.CheckFailure("body", problem))
        return
    for i, spec in specs:
        node = spec.get("node")
        labels = node.get("labels") if isinstance(node, Mapping) else None
        if isinstance(labels, Mapping):  # its keys are known even when a value is not
            failures.owner_label_room("body", f"body.tpu.nodeSpec[{i}].node.labels", labels)


class QueuedTpuProvider(LroProvider):
    """CRUD for one Cloud TPU queued resource; see the module docstring (``sleep``, ``poll``,
    ``timeout`` and the endpoint, ``dws:tpuEndpoint``: :class:`~.rest_provider.RestProvider`)."""

    RESOURCE: ClassVar[RestResource] = QUEUED_TPU
    OPERATION_LOCATION: ClassVar[str] = "zone"

    def check_inputs(self, news: Mapping[str, Any], failures: CheckFailures) -> None:
        """Every value that goes into a URL is checked in full; a value not known yet (a
        preview) is never a failure."""
        self.check_address(news, failures)
        wait_for = news.get("waitFor", "active")
        if not isinstance(wait_for, Unknown) and wait_for not in ("accepted", "active"):
            failures.append(dyn.CheckFailure("waitFor", "waitFor: accepted or active"))
        failures.wait_policy(news)
        if not isinstance(news.get("body"), (Mapping, Unknown)):
            failures.append(dyn.CheckFailure("body", "body is required (a QueuedResource)"))
        _check_body(news.get("body"), failures)

    def create_steps(self, client: GoogleRestClient, target: Target) -> QueuedTpuCreate:
        return QueuedTpuCreate(self, client, target)

    def live_mark(self, live: Mapping[str, Any]) -> str | None:
        """The ownership label is on the request's nodes."""
        return owner_mark(live)

    def outputs(self, target: Target, live: Mapping[str, Any]) -> dict[str, Any]:
        state = live.get("state") if isinstance(live.get("state"), Mapping) else {}
        observed: dict[str, Any] = {
            "createTime": live.get("createTime"),
            "stateInitiator": (state or {}).get("stateInitiator"),
        }
        detail = failure_detail(live)
        if detail:
            observed["error"] = detail.strip(" ()")
        return {
            **dict(target.props),
            "name": live.get("name"),
            "state": state_of(live),
            "observed": observed,
            "drift": [],
        }

    def read_outputs(self, target: Target, live: Mapping[str, Any]) -> dict[str, Any]:
        """The request as it is, and drift (:mod:`~pulumi_dws.kinds.queued_tpu.drift`)."""
        base = dict(target.props)
        body, drift = seen_body(base.get("body"), live)
        if "body" in base:
            base["body"] = body
        return {**self.outputs(self.target(base), live), "drift": drift}

    def update(self, id_: str, olds: dict[str, Any], news: dict[str, Any]) -> dyn.UpdateResult:
        # Only how a create waits can differ without a replacement: it matters then only.
        waits = {key: news.get(key) for key in WAIT_KEYS if key in news or key in olds}
        return dyn.UpdateResult({**olds, **waits})

    def describe_status(self, status: Mapping[str, Any]) -> str:
        return describe_status(status)

    def delete_and_wait(self, client: GoogleRestClient, target: Target) -> bool:
        """Delete the queued resource (``force`` when it may have nodes) and wait until it is
        gone; False when there was nothing to delete."""
        path = target.path
        live = self.read_live(client, target)
        if live is None:  # one read of absence is no conclusion: a delete by name confirms it
            try:
                op = client.delete(path, expect=is_lro, requestId=str(uuid.uuid4()), force="true")
            except ApiError as err:
                if err.not_found:
                    return False
                raise
            done = self.wait_operation(client, op, f"delete of {path}")
            self.check_operation(done, f"delete of {path}")
            live = {"state": {"state": "DELETING"}}
        if state_of(live) != "DELETING":
            request_id = str(uuid.uuid4())
            force = state_of(live) not in NO_NODES
            for attempt in range(2):
                params: dict[str, Any] = {"requestId": request_id}
                if force:
                    params["force"] = "true"
                try:
                    op = client.delete(path, expect=is_lro, **params)
                except ApiError as err:
                    if err.not_found:
                        return True
                    if attempt == 0 and err.status in (400, 409) and not force:
                        force, request_id = True, str(uuid.uuid4())  # nodes appeared meanwhile
                        continue
                    raise
                done = self.wait_operation(client, op, f"delete of {path}")
                self.check_operation(done, f"delete of {path}")
                break
        final = self.poll(client, target, lambda r: r is None)
        if final is not None:
            raise TimeoutError(f"{path} is still {state_of(final)} after {self.timeout:.0f}s")
        return True


class QueuedTpuResource(DeclaredResource, module="dws", name="QueuedTpu"):
    """The queued resource as a dynamic resource (``pulumi-python:dynamic/dws:QueuedTpu``)."""

    name: pulumi.Output[str]
    state: pulumi.Output[str]
    observed: pulumi.Output[dict[str, Any]]
    drift: pulumi.Output[list[str]]

    provider_class = QueuedTpuProvider
