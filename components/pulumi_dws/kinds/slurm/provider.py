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

Credentials are fetched per call by :class:`~pulumi_dws.providers.rest.GoogleRestClient` and are
never stored on the provider, so nothing secret is pickled into the state; the provider pickles
to a few hundred bytes (its class by reference, plus a timeout).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, ClassVar

import pulumi
import pulumi.dynamic
from pulumi.dynamic import (
    CheckFailure,
    CheckResult,
    CreateResult,
    DiffResult,
    ReadResult,
    UpdateResult,
)

from ...providers.endpoints import AIPLATFORM, Api
from ...providers.rest_provider import DEFAULT_TIMEOUT, RestProvider
from .create import SlurmCreate, is_lro
from .diff import (
    BUSY,
    COLLECTION,
    OUTPUT_ONLY,
    SlurmClusterError,
    canonical,
    cluster_path,
    describe_status,
    differences,
    outputs_from_live,
    plan_change,
    project_live,
    valid_cluster_id,
    wire,
)

if TYPE_CHECKING:
    from ...providers.rest import GoogleRestClient, PollPolicy

__all__ = [
    "SlurmClusterProvider",
    "SlurmClusterResource",
    "SlurmClusterError",
    "TYPE_TOKEN",
    "cluster_path",
]

TYPE_TOKEN = "pulumi-python:dynamic/dws:SlurmCluster"


def _done(operation: Mapping[str, Any]) -> bool:
    return bool(operation.get("done"))


# ---------------------------------------------------------------------------- the provider
class SlurmClusterProvider(RestProvider):
    """CRUD for one managed Slurm cluster; see the module docstring (``sleep``, ``poll``,
    ``timeout`` and the endpoint, ``dws:aiplatformEndpoint``:
    :class:`~.rest_provider.RestProvider`)."""

    API: ClassVar[Api] = AIPLATFORM

    def __init__(
        self,
        timeout: float = DEFAULT_TIMEOUT,
        sleep: Callable[[float], None] | None = None,
        poll: PollPolicy | None = None,
    ) -> None:
        super().__init__(sleep, poll, timeout)

    def check(self, _olds: dict[str, Any], news: dict[str, Any]) -> CheckResult:
        """Every value that goes into a URL (or a host name: the region) is checked in full; a
        value not known yet (a preview) is never a failure."""
        from pulumi.output import Unknown

        from ...providers.checks import CheckFailures

        failures = CheckFailures()
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
        return CheckResult(news, failures)

    def diff(self, _id: str, olds: dict[str, Any], news: dict[str, Any]) -> DiffResult:
        replaces, mask = plan_change(olds, news)
        changed = bool(replaces or mask)
        return DiffResult(
            changes=changed,
            replaces=replaces,
            delete_before_replace=True if replaces else None,
        )

    def create(self, props: dict[str, Any]) -> CreateResult:
        from ...providers.create_machine import CreateFailed, CreateMachine
        from ...providers.paths import PathValueError

        try:
            path = cluster_path(props["project"], props["region"], props["cluster_id"])
            client = self.client(props["region"])
        except (PathValueError, ValueError) as err:
            raise SlurmClusterError(f"the cluster can't be addressed: {err}") from None
        steps = SlurmCreate(self, client, props, path)
        assert client.sleep is not None
        sleep = client.sleep
        machine = CreateMachine(steps, settle=lambda: sleep(steps.settle_seconds))
        try:
            live = machine.run()
        except CreateFailed as err:
            raise SlurmClusterError(str(err)) from None
        return CreateResult(path, {**outputs_from_live(props, live), "drift": []})

    def read(self, id_: str, props: dict[str, Any]) -> ReadResult:
        from ...providers.rest import ApiError

        project, region, cluster_id = _parse_id(id_)
        client = self.client(region)
        try:
            live = client.find(cluster_path(project, region, cluster_id), expect=_is_cluster)
        except ApiError as err:
            raise SlurmClusterError(
                f"cluster {id_} could not be read: {err}. Nothing was changed; run `pulumi "
                "refresh` again once the API answers."
            ) from None
        if live is None:
            return ReadResult(None, {})
        base = {"project": project, "region": region, "cluster_id": cluster_id, **props}
        declared = base.get("body")
        if declared is None:  # import: adopt what is there
            declared = {k: v for k, v in canonical(live).items() if k not in OUTPUT_ONLY}
        seen = project_live(declared, canonical(live))
        outs = outputs_from_live({**base, "body": seen}, live)
        outs["drift"] = differences(canonical(declared), canonical(seen))
        return ReadResult(id_, outs)

    def update(self, id_: str, olds: dict[str, Any], news: dict[str, Any]) -> UpdateResult:
        from ...providers.rest import ApiError

        _, mask = plan_change(olds, news)
        project, region, cluster_id = _parse_id(id_)
        path = cluster_path(project, region, cluster_id)
        client = self.client(news["region"])
        try:
            if mask:
                operation = self._patch(client, path, wire(news["body"]), ",".join(mask))
                done = self._wait(client, operation, f"update of {id_}")
                if "error" in done:
                    raise SlurmClusterError(
                        f"update of cluster {id_} ({', '.join(mask)}) failed: "
                        f"{describe_status(done['error'])}; the cluster keeps its previous "
                        "settings"
                    )
            live = client.get(path, expect=_is_cluster)
        except (ApiError, TimeoutError) as err:
            raise SlurmClusterError(
                f"update of cluster {id_} ({', '.join(mask) or 'nothing to change'}) could not "
                f"be confirmed: {err}. The change may or may not have been applied; run `pulumi "
                "up --refresh` again: it reads the cluster and sends what still differs."
            ) from None
        return UpdateResult({**outputs_from_live(news, live), "drift": []})

    def delete(self, id_: str, props: dict[str, Any]) -> None:
        from ...providers.rest import ApiError

        project, region, cluster_id = _parse_id(id_)
        path = cluster_path(project, region, cluster_id)
        try:
            done = self._delete(self.client(region), path)
        except (ApiError, TimeoutError) as err:
            raise SlurmClusterError(
                f"delete of cluster {id_} could not be confirmed: {err}. It is still in the "
                "stack: run `pulumi destroy` (or `pulumi up`) again."
            ) from None
        if done is not None and "error" in done and done["error"].get("code") != 5:
            raise SlurmClusterError(
                f"delete of cluster {id_} failed: {describe_status(done['error'])}"
            )

    # ------------------------------------------------------------------ internals
    def _delete(self, client: GoogleRestClient, path: str) -> dict[str, Any] | None:
        """DELETE ``path`` and wait: the finished operation, or None when there was nothing
        to delete. A DELETE refused because the cluster is busy (being deleted already, e.g. by
        a retry whose first answer was lost; provisioning; updating) waits for it to be gone or
        to settle, then is sent again."""
        from ...providers.rest import ApiError

        for attempt in range(2):
            try:
                operation = client.delete(path, expect=is_lro)
                break
            except ApiError as err:
                if err.not_found:
                    return None
                if not _busy(err):
                    raise
                live = self._poll(client, path, lambda c: c is None or _state_of(c) not in _MOVING)
                if live is None:
                    return {"done": True}  # the delete in flight finished it
                if attempt or _state_of(live) in _MOVING:
                    raise
        return self._wait(client, operation, f"delete of {path}")

    def _patch(
        self, client: GoogleRestClient, id_: str, body: dict[str, Any], mask: str
    ) -> dict[str, Any]:
        """PATCH; when a retry finds the cluster busy with the PATCH whose answer was lost (or
        any other change), wait for it to settle and send the PATCH again."""
        from ...providers.rest import ApiError

        try:
            return client.patch(id_, body, expect=is_lro, updateMask=mask)
        except ApiError as err:
            if not _busy(err):
                raise
            live = self._poll(client, id_, lambda c: c is None or _state_of(c) not in BUSY)
            if live is None or _state_of(live) in BUSY:
                raise
        return client.patch(id_, body, expect=is_lro, updateMask=mask)

    def _wait(
        self, client: GoogleRestClient, operation: dict[str, Any], what: str
    ) -> dict[str, Any]:
        from ...providers.paths import PathValueError, operation_name_path

        try:
            poll = operation_name_path(operation.get("name"))
        except PathValueError:
            raise SlurmClusterError(
                f"{what}: the API answered without a usable operation: {str(operation)[:200]}"
            ) from None
        return client.wait(operation, poll, is_done=_done, timeout=self.timeout, expect=is_lro)

    def _poll(
        self,
        client: GoogleRestClient,
        path: str,
        until: Callable[[dict[str, Any] | None], bool],
    ) -> dict[str, Any] | None:
        """GET ``path`` with growing intervals until ``until(cluster or None)``."""
        return client.poll_resource(path, until, timeout=self.timeout, expect=_is_cluster)


_MOVING = BUSY | {"STOPPING"}


def _state_of(cluster: Mapping[str, Any]) -> str | None:
    status = cluster.get("clusterStatus")
    return status.get("state") if isinstance(status, Mapping) else None


def _is_cluster(answer: Mapping[str, Any]) -> bool:
    """A cluster as the API returns it: a name and, if any, a status object."""
    status = answer.get("clusterStatus")
    return isinstance(answer.get("name"), str) and (status is None or isinstance(status, Mapping))


def _status(err: Any) -> str:
    body = getattr(err, "body", None)
    return ((body or {}).get("error") or {}).get("status", "") if isinstance(body, dict) else ""


def _busy(err: Any) -> bool:
    """``FAILED_PRECONDITION``: the cluster is busy (being deleted, updated, provisioned)."""
    return err.status in (400, 409) and "FAILED_PRECONDITION" in (err.reason, _status(err))


def _parse_id(id_: str) -> tuple[str, str, str]:
    """``(project, region, cluster_id)`` of a resource id, each part checked in full."""
    from ...providers.paths import segment_problem

    parts = id_.split("/") if isinstance(id_, str) else []
    if (
        len(parts) != 6
        or parts[0] != "projects"
        or parts[2] != "locations"
        or parts[4] != COLLECTION
        or segment_problem("project", parts[1])
        or segment_problem("region", parts[3])
        or segment_problem("cluster_id", parts[5])
    ):
        raise SlurmClusterError(
            f"{id_!r} is not projects/PROJECT/locations/REGION/{COLLECTION}/CLUSTER_ID"
        )
    return parts[1], parts[3], parts[5]


class SlurmClusterResource(pulumi.dynamic.Resource, module="dws", name="SlurmCluster"):
    """The cluster as a dynamic resource (``pulumi-python:dynamic/dws:SlurmCluster``).

    Swap point: pulumi-gcp 10.5.0 has ``gcp.vertex.AiModelDevelopmentCluster`` (Pulumi registry:
    https://www.pulumi.com/registry/packages/gcp/api-docs/vertex/aimodeldevelopmentcluster/), but
    the newest release installable here is 10.2.0; once 10.5.0 is, this child is replaced by that
    resource with an alias to this one (see the README section on Slurm).
    """

    name: pulumi.Output[str]
    state: pulumi.Output[str]
    login_nodes: pulumi.Output[list[str]]
    login_address: pulumi.Output[str | None]
    partitions: pulumi.Output[list[dict[str, Any]]]
    body: pulumi.Output[dict[str, Any]]
    drift: pulumi.Output[list[str]]

    def __init__(
        self,
        name: str,
        props: dict[str, Any],
        opts: pulumi.ResourceOptions | None = None,
        provider: SlurmClusterProvider | None = None,
    ) -> None:
        outputs = dict.fromkeys(
            ("name", "state", "login_nodes", "login_address", "partitions", "create_time", "drift")
        )
        super().__init__(provider or SlurmClusterProvider(), name, {**outputs, **props}, opts)
