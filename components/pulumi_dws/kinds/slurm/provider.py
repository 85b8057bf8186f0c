"""Dynamic provider for Vertex AI managed Slurm clusters (``modelDevelopmentClusters``, v1beta1).

Resource type ``pulumi-python:dynamic/dws:SlurmCluster``. Inputs: ``project``, ``region``,
``cluster_id`` and ``body`` (the create request body, ``snake_case`` as in seed 002). Outputs: the
inputs, with ``body`` as the cluster really is after a refresh, plus ``name``, ``state``,
``login_nodes``, ``login_address``, ``partitions``, ``create_time`` and ``drift``.

* Create: ``POST {parent}/modelDevelopmentClusters?model_development_cluster_id=ID``, then the
  long-running operation is polled until done, as steps of the shared create state machine
  (:mod:`~pulumi_dws.providers.create_machine`). Slurm creates carry no request id; the cluster
  id is chosen by the program, so a create run again after a crash or a lost answer finds the
  cluster (or meets ``409 ALREADY_EXISTS``) and *adopts* it when it matches the declared spec
  (else it is refused, saying what differs). An answer lost in any way (dropped, reset,
  truncated, HTML, empty, not JSON, a string ``error``) is settled by reading what exists and
  asking again. Once Google has accepted the create, nothing is orphaned: when the operation
  fails (or an adopted cluster is in ``ERROR``) the half-made cluster is deleted, and read
  again after that delete settles (a create that arrived late would show), before the error
  says nothing is left; when it can't be deleted, or the wait gives up (timeout, the operation
  can't be polled), the create *succeeds* with the cluster's true ``state`` (``ERROR``,
  ``PROVISIONING``), so Pulumi tracks it and ``pulumi refresh`` / ``destroy`` reach it.
* Diff: see :data:`REPLACE_PATHS` / :data:`UPDATE_PATHS`. A replacement deletes first (the
  cluster id and the ``/home`` Filestore are the same for the new cluster). Unknown values
  (previews) that could hide an immutable field count as a replacement.
* Update: ``PATCH {name}?updateMask=...`` with the whole desired body, LRO polled. A PATCH retried
  after a lost answer finds the cluster ``UPDATING``: the update in flight is waited out and the
  PATCH sent again (it is idempotent).
* Read: reports drift (``body`` becomes what Google has, ``drift`` lists the paths) and a cluster
  deleted outside Pulumi (empty id).
* Delete: ``DELETE {name}``, LRO polled; 404 is success. A DELETE refused because the cluster
  is busy (a delete in flight, e.g. from a retry whose first answer was lost; a create or an
  update) waits for it to be gone or to settle, then is sent again.

The resource is declared once (:data:`~pulumi_dws.kinds.slurm.api.SLURM_CLUSTER`: path, id,
outputs, states, idempotency) on the shared base (:mod:`~pulumi_dws.providers.rest_resource`,
:mod:`~pulumi_dws.providers.lro`), which supplies the target, id parsing, failure wrapping,
delete-and-wait and the ``Resource`` class. Credentials are fetched per call by
:class:`~pulumi_dws.providers.rest.GoogleRestClient` and are never stored on the provider, so
nothing secret is pickled into the state; the provider pickles to a few hundred bytes (its class
by reference, plus a timeout).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

import pulumi
from pulumi.dynamic import CheckFailure, DiffResult, UpdateResult
from pulumi.output import Unknown

from ...providers.checks import MARKS, CheckFailures
from ...providers.lro import LroProvider, OperationFailed, busy_refusal
from ...providers.rest import ApiError
from ...providers.rest_resource import DeclaredResource, RestResource, Target
from .api import (
    BUSY,
    SLURM_CLUSTER,
    TYPE_TOKEN,
    SlurmClusterError,
    cluster_path,
    is_cluster,
    state_of,
)
from .create import SlurmCreate, is_lro
from .diff import (
    OUTPUT_ONLY,
    canonical,
    describe_status,
    differences,
    outputs_from_live,
    plan_change,
    project_live,
    valid_cluster_id,
    wire,
)

if TYPE_CHECKING:
    from ...providers.rest import GoogleRestClient

__all__ = [
    "SlurmClusterProvider",
    "SlurmClusterResource",
    "SlurmClusterError",
    "TYPE_TOKEN",
    "cluster_path",
]


# ---------------------------------------------------------------------------- the provider
class SlurmClusterProvider(LroProvider):
    """CRUD for one managed Slurm cluster; see the module docstring (``sleep``, ``poll``,
    ``timeout`` and the endpoint, ``dws:aiplatformEndpoint``:
    :class:`~.rest_provider.RestProvider`)."""

    RESOURCE: ClassVar[RestResource] = SLURM_CLUSTER

    def check_inputs(self, news: Mapping[str, Any], failures: CheckFailures) -> None:
        """Every value that goes into a URL (or a host name: the region) is checked in full; a
        value not known yet (a preview) is never a failure."""
        cluster_id = news.get("cluster_id")
        if not isinstance(cluster_id, Unknown) and not valid_cluster_id(cluster_id):
            failures.append(
                CheckFailure(
                    "cluster_id",
                    f"{cluster_id!r}: 1-10 characters, a lowercase letter then letters or digits",
                )
            )
        for key in ("project", "region"):
            failures.segment(key, news.get(key))
        for key in ("project", "region", "body"):
            if news.get(key) is None:
                failures.append(CheckFailure(key, f"{key} is required"))

    def diff(self, _id: str, olds: dict[str, Any], news: dict[str, Any]) -> DiffResult:
        """See :func:`~.diff.plan_change`: most changes are updates in place."""
        replaces, mask = plan_change(olds, news)
        changed = bool(replaces or mask)
        return DiffResult(
            changes=changed,
            replaces=replaces,
            delete_before_replace=True if replaces else None,
        )

    def create_steps(self, client: GoogleRestClient, target: Target) -> SlurmCreate:
        return SlurmCreate(self, client, target)

    def outputs(self, target: Target, live: Mapping[str, Any]) -> dict[str, Any]:
        return {**outputs_from_live(target.props, live), "drift": []}

    def read_outputs(self, target: Target, live: Mapping[str, Any]) -> dict[str, Any]:
        """The cluster as it is: ``body`` as Google has it (seen through the declared shape),
        ``drift`` the paths that differ; a cluster imported by id adopts what is there."""
        base = dict(target.props)
        declared = base.get("body")
        if declared is None:  # import: adopt what is there
            declared = {k: v for k, v in canonical(live).items() if k not in OUTPUT_ONLY}
        seen = project_live(declared, canonical(live))
        outs = outputs_from_live({**base, "body": seen}, live)
        outs["drift"] = differences(canonical(declared), canonical(seen))
        return outs

    def update(self, id_: str, olds: dict[str, Any], news: dict[str, Any]) -> UpdateResult:
        _, mask = plan_change(olds, news)
        target = self.target_of_id(id_, {})
        client = self.client(news["region"])
        try:
            if mask:
                body = self._keeping_marks(client, target, wire(news["body"]), mask)
                operation = self._patch(client, target, body, ",".join(mask))
                done = self.wait_operation(client, operation, f"update of {id_}")
                if "error" in done:
                    raise SlurmClusterError(
                        f"update of cluster {id_} ({', '.join(mask)}) failed: "
                        f"{describe_status(done['error'])}; the cluster keeps its previous "
                        "settings"
                    )
            live = client.get(target.path, expect=is_cluster)
        except (ApiError, TimeoutError) as err:
            raise SlurmClusterError(
                f"update of cluster {id_} ({', '.join(mask) or 'nothing to change'}) could not "
                f"be confirmed: {err}. The change may or may not have been applied; run `pulumi "
                "up --refresh` again: it reads the cluster and sends what still differs."
            ) from None
        return UpdateResult({**outputs_from_live(news, live), "drift": []})

    def undeletable(self, target: Target, id_: str, err: Exception) -> str:
        if isinstance(err, OperationFailed):
            return f"delete of cluster {id_} failed: {err.text}"
        return super().undeletable(target, id_, err)

    # ------------------------------------------------------------------ internals
    def _keeping_marks(
        self, client: GoogleRestClient, target: Target, body: dict[str, Any], mask: list[str]
    ) -> dict[str, Any]:
        """``body`` for a PATCH: when it replaces the labels, with the ownership labels the
        cluster carries kept (a PATCH of ``labels`` replaces them all)."""
        if not any(path == "labels" or path.startswith("labels.") for path in mask):
            return body
        live = client.find(target.path, expect=is_cluster) or {}
        labels = live.get("labels") if isinstance(live.get("labels"), Mapping) else {}
        kept = {k: v for k, v in (labels or {}).items() if k in MARKS}
        return {**body, "labels": {**dict(body.get("labels") or {}), **kept}}

    def _patch(
        self, client: GoogleRestClient, target: Target, body: dict[str, Any], mask: str
    ) -> dict[str, Any]:
        """PATCH (the whole desired body: sending it again is safe); when a retry finds the
        cluster busy with the PATCH whose answer was lost (or any other change), wait for it to
        settle and send the PATCH again."""
        path = target.path
        try:
            return client.patch(path, body, expect=is_lro, idempotent=True, updateMask=mask)
        except ApiError as err:
            if not busy_refusal(err):
                raise
            live = self.poll(client, target, lambda c: c is None or state_of(c) not in BUSY)
            if live is None or state_of(live) in BUSY:
                raise
        return client.patch(path, body, expect=is_lro, idempotent=True, updateMask=mask)


class SlurmClusterResource(DeclaredResource, module="dws", name="SlurmCluster"):
    """The cluster as a dynamic resource (``pulumi-python:dynamic/dws:SlurmCluster``).

    Swap point: pulumi-gcp 10.5.0 has ``gcp.vertex.AiModelDevelopmentCluster`` (Pulumi registry:
    https://www.pulumi.com/registry/packages/gcp/api-docs/vertex/aimodeldevelopmentcluster/), but
    the newest release installable here is 10.2.0; once 10.5.0 is, this child is replaced by that
    resource with an alias to this one (see docs/slurm.md).
    """

    name: pulumi.Output[str]
    state: pulumi.Output[str]
    login_nodes: pulumi.Output[list[str]]
    login_address: pulumi.Output[str | None]
    partitions: pulumi.Output[list[dict[str, Any]]]
    body: pulumi.Output[dict[str, Any]]
    drift: pulumi.Output[list[str]]

    provider_class = SlurmClusterProvider
