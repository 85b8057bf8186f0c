"""Dynamic provider for Vertex AI managed Slurm clusters (``modelDevelopmentClusters``, v1beta1).

Resource type ``pulumi-python:dynamic/dws:SlurmCluster``. Inputs: ``project``, ``region``,
``cluster_id`` and ``body`` (the create request body, ``snake_case`` as in seed 002). Outputs: the
inputs, with ``body`` as the cluster really is after a refresh, plus ``name``, ``state``,
``login_nodes``, ``login_address``, ``partitions``, ``create_time`` and ``drift``.

* Create: ``POST {parent}/modelDevelopmentClusters?model_development_cluster_id=ID``, then the
  long-running operation is polled until done. The cluster id is chosen by the program, so a
  create retried after a crash or a lost answer meets ``409 ALREADY_EXISTS`` and *adopts* the
  cluster when it matches the declared spec (else it fails and says what differs); a POST whose
  every answer was lost (429/5xx/dropped after the retries) also looks for the cluster before
  failing. Once Google has accepted the create, nothing is orphaned: when the operation fails
  (or an adopted cluster is in ``ERROR``) the half-made cluster is deleted before the error is
  raised; when it can't be deleted, or the wait gives up (timeout, the operation can't be
  polled), the create *succeeds* with the cluster's true ``state`` (``ERROR``,
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
from typing import TYPE_CHECKING, Any

from pulumi.dynamic import (
    CheckFailure,
    CheckResult,
    ConfigureRequest,
    CreateResult,
    DiffResult,
    ReadResult,
    ResourceProvider,
    UpdateResult,
)

from .slurm_diff import (
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
    from .rest import GoogleRestClient

__all__ = ["SlurmClusterProvider", "SlurmClusterError", "cluster_path"]


def _done(operation: Mapping[str, Any]) -> bool:
    return bool(operation.get("done"))


# ---------------------------------------------------------------------------- the provider
class SlurmClusterProvider(ResourceProvider):
    """CRUD for one managed Slurm cluster; see the module docstring."""

    serialize_as_secret_always = False  # nothing secret is pickled

    def __init__(self, timeout: float = 7200.0) -> None:
        super().__init__()
        self.timeout = timeout
        self.endpoint: str | None = None

    # ------------------------------------------------------------------ engine hooks
    def configure(self, req: ConfigureRequest) -> None:
        """Pick up ``dws:aiplatformEndpoint`` from stack config (the env var still wins)."""
        self.endpoint = req.config.get("dws:aiplatformEndpoint")

    def check(self, _olds: dict[str, Any], news: dict[str, Any]) -> CheckResult:
        failures = []
        cluster_id = news.get("cluster_id")
        if isinstance(cluster_id, str) and not valid_cluster_id(cluster_id):
            failures.append(
                CheckFailure(
                    "cluster_id",
                    f"{cluster_id!r}: 1-10 characters, a lowercase letter then letters or digits",
                )
            )
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
        path = cluster_path(props["project"], props["region"], props["cluster_id"])
        client = self._client(props["region"])
        for _ in range(2):
            live = self._create_once(client, props, path)
            if live is not None:
                return CreateResult(path, {**outputs_from_live(props, live), "drift": []})
        raise SlurmClusterError(f"cluster {path} kept reappearing while being deleted")

    def read(self, id_: str, props: dict[str, Any]) -> ReadResult:
        from .rest import ApiError

        project, region, cluster_id = _parse_id(id_)
        client = self._client(region)
        try:
            live = client.get(id_)
        except ApiError as err:
            if err.not_found:
                return ReadResult(None, {})
            raise
        base = {"project": project, "region": region, "cluster_id": cluster_id, **props}
        declared = base.get("body")
        if declared is None:  # import: adopt what is there
            declared = {k: v for k, v in canonical(live).items() if k not in OUTPUT_ONLY}
        seen = project_live(declared, canonical(live))
        outs = outputs_from_live({**base, "body": seen}, live)
        outs["drift"] = differences(canonical(declared), canonical(seen))
        return ReadResult(id_, outs)

    def update(self, id_: str, olds: dict[str, Any], news: dict[str, Any]) -> UpdateResult:
        _, mask = plan_change(olds, news)
        client = self._client(news["region"])
        if mask:
            operation = self._patch(client, id_, wire(news["body"]), ",".join(mask))
            done = self._wait(client, operation, f"update of {id_}")
            if "error" in done:
                raise SlurmClusterError(
                    f"update of cluster {id_} ({', '.join(mask)}) failed: "
                    f"{describe_status(done['error'])}; the cluster keeps its previous settings"
                )
        return UpdateResult({**outputs_from_live(news, client.get(id_)), "drift": []})

    def delete(self, id_: str, props: dict[str, Any]) -> None:
        done = self._delete(self._client(_parse_id(id_)[1]), id_)
        if done is not None and "error" in done and done["error"].get("code") != 5:
            raise SlurmClusterError(
                f"delete of cluster {id_} failed: {describe_status(done['error'])}"
            )

    # ------------------------------------------------------------------ internals
    def _client(self, region: str) -> GoogleRestClient:
        from .endpoints import AIPLATFORM
        from .rest import GoogleRestClient

        config = {AIPLATFORM.config_key: self.endpoint} if self.endpoint else None
        return GoogleRestClient(AIPLATFORM.base(region, config))

    def _create_once(
        self, client: GoogleRestClient, props: Mapping[str, Any], path: str
    ) -> dict[str, Any] | None:
        """Create (or adopt) the cluster; None when a dying cluster of that id was waited out."""
        from .rest import ApiError

        parent = path.rsplit("/", 2)[0] + f"/{COLLECTION}"
        try:
            operation = client.post(
                parent, wire(props["body"]), model_development_cluster_id=props["cluster_id"]
            )
        except ApiError as err:
            if err.status == 409:
                return self._adopt(client, props, path)
            if _answer_lost(err):  # one of the attempts may have been accepted
                state = self._state(client, path)
                if state != "gone" and not state.startswith("unknown ("):
                    return self._adopt(client, props, path)
                if state != "gone":
                    raise SlurmClusterError(
                        f"create of cluster {path} got no answer ({err}) and its state can't be "
                        f"read ({state}). It may exist: run `pulumi up` again to adopt it (same "
                        "cluster_id), or delete it."
                    ) from None
            raise SlurmClusterError(f"create of cluster {path} was refused: {err}") from None
        try:
            done = self._wait(client, operation, f"create of {path}")
        except Exception as err:  # noqa: BLE001 - accepted: never leave it untracked
            return self._unfinished(client, path, err)
        if "error" in done:
            return self._failed(client, path, describe_status(done["error"]))
        try:
            return client.get(path)
        except ApiError as err:
            response = done.get("response")
            if err.not_found or not isinstance(response, dict) or "name" not in response:
                raise
            return response  # the operation carries the cluster (google.rpc LRO response)

    def _unfinished(self, client: GoogleRestClient, path: str, err: Exception) -> dict[str, Any]:
        """The create was accepted but its operation could not be followed to the end: the
        cluster as it is (success with its true state), or an error when it is gone."""
        from .rest import ApiError

        try:
            return client.get(path)
        except ApiError as lookup:
            if lookup.not_found:
                raise SlurmClusterError(
                    f"create of cluster {path} was accepted but did not finish ({err}), and the "
                    "cluster is gone: nothing was left behind."
                ) from None
            raise SlurmClusterError(
                f"create of cluster {path} was accepted but did not finish ({err}), and its "
                f"state can't be read ({lookup}). It may exist: run `pulumi up` again to adopt "
                "it (same cluster_id), or delete it."
            ) from None

    def _failed(self, client: GoogleRestClient, path: str, why: str) -> dict[str, Any]:
        """A create that ended in an error: delete what it left and raise; when the cluster
        can't be deleted, succeed with its true state (``ERROR``) so that it stays tracked."""
        left, live = self._remove_failed(client, path)
        if live is not None:
            return live
        raise SlurmClusterError(f"create of cluster {path} failed: {why}. {left}")

    def _adopt(
        self, client: GoogleRestClient, props: Mapping[str, Any], path: str
    ) -> dict[str, Any] | None:
        from .rest import ApiError

        try:
            live = client.get(path)
        except ApiError as err:
            if err.not_found:
                return None  # gone since the 409: create it again
            raise
        state = (live.get("clusterStatus") or {}).get("state")
        if state == "STOPPING":  # wait for that delete: gone, or back if it failed
            live = self._poll(client, path, lambda c: c is None or _state_of(c) != "STOPPING")
            if live is None:
                return None
            state = _state_of(live)
            if state == "STOPPING":
                raise SlurmClusterError(
                    f"cluster {path} is still being deleted after {self.timeout:.0f}s"
                )
        declared = canonical(props["body"])
        seen = canonical(project_live(props["body"], canonical(live)))
        diff = differences(declared, seen)
        if diff:
            raise SlurmClusterError(
                f"cluster {path} already exists and differs from this program at "
                f"{', '.join(diff)}; choose another cluster_id, delete it, or `pulumi import` it"
            )
        if state in BUSY:
            live = self._poll(client, path, lambda c: c is None or _state_of(c) not in BUSY)
            if live is None:
                raise SlurmClusterError(f"cluster {path} disappeared while being adopted")
            state = _state_of(live)
        if state == "ERROR":
            detail = (live.get("clusterStatus") or {}).get("detail", "")
            return self._failed(client, path, f"the cluster is in state ERROR ({detail})")
        return live

    def _remove_failed(
        self, client: GoogleRestClient, path: str
    ) -> tuple[str, dict[str, Any] | None]:
        """Delete what a failed create left: ``(what happened, the cluster if it remains)``."""
        from .rest import ApiError

        try:
            done = self._delete(client, path)
        except ApiError as err:
            return self._kept(client, path, f"could not be deleted ({err})")
        except (TimeoutError, SlurmClusterError):
            return f"Deleting the failed cluster is still running; check {path}.", None
        if done is None:
            return "Nothing was left behind.", None
        if "error" in done:
            return self._kept(
                client, path, f"could not be deleted ({describe_status(done['error'])})"
            )
        return "The partly created cluster was deleted, so nothing is left behind.", None

    def _kept(
        self, client: GoogleRestClient, path: str, why: str
    ) -> tuple[str, dict[str, Any] | None]:
        from .rest import ApiError

        message = f"The failed cluster {why}; delete {path} by hand."
        try:
            return message, client.get(path)
        except ApiError:
            return message, None

    def _delete(self, client: GoogleRestClient, path: str) -> dict[str, Any] | None:
        """DELETE ``path`` and wait: the finished operation, or None when there was nothing
        to delete. A DELETE refused because the cluster is busy (being deleted already, e.g. by
        a retry whose first answer was lost; provisioning; updating) waits for it to be gone or
        to settle, then is sent again."""
        from .rest import ApiError

        for attempt in range(2):
            try:
                operation = client.delete(path)
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
        from .rest import ApiError

        try:
            return client.patch(id_, body, updateMask=mask)
        except ApiError as err:
            if not _busy(err):
                raise
            live = self._poll(client, id_, lambda c: c is None or _state_of(c) not in BUSY)
            if live is None or _state_of(live) in BUSY:
                raise
        return client.patch(id_, body, updateMask=mask)

    def _wait(
        self, client: GoogleRestClient, operation: dict[str, Any], what: str
    ) -> dict[str, Any]:
        name = operation.get("name")
        if not name:
            raise SlurmClusterError(f"{what}: the API answered without an operation: {operation}")
        return client.wait(operation, name, is_done=_done, timeout=self.timeout)

    def _state(self, client: GoogleRestClient, path: str) -> str:
        from .rest import ApiError

        try:
            return _state_of(client.get(path)) or "unknown"
        except ApiError as err:
            return "gone" if err.not_found else f"unknown ({err})"

    def _poll(
        self,
        client: GoogleRestClient,
        path: str,
        until: Callable[[dict[str, Any] | None], bool],
    ) -> dict[str, Any] | None:
        """GET ``path`` with growing intervals until ``until(cluster or None)``."""
        from .rest import ApiError

        waited, interval = 0.0, client.poll.initial
        while True:
            try:
                current: dict[str, Any] | None = client.get(path)
            except ApiError as err:
                if not err.not_found:
                    raise
                current = None
            if until(current) or waited >= self.timeout:
                return current
            assert client.sleep is not None
            client.sleep(interval)
            waited += interval
            interval = min(client.poll.cap, interval * client.poll.factor)


_MOVING = BUSY | {"STOPPING"}


def _state_of(cluster: Mapping[str, Any]) -> str | None:
    return (cluster.get("clusterStatus") or {}).get("state")


def _status(err: Any) -> str:
    body = getattr(err, "body", None)
    return ((body or {}).get("error") or {}).get("status", "") if isinstance(body, dict) else ""


def _busy(err: Any) -> bool:
    """``FAILED_PRECONDITION``: the cluster is busy (being deleted, updated, provisioned)."""
    return err.status in (400, 409) and "FAILED_PRECONDITION" in (err.reason, _status(err))


def _answer_lost(err: Any) -> bool:
    """The client gave up on 429, 5xx or dropped connections (status 0): no answer came back."""
    return err.status in (0, 429) or err.status >= 500


def _parse_id(id_: str) -> tuple[str, str, str]:
    parts = id_.split("/")
    if len(parts) != 6 or parts[0] != "projects" or parts[4] != COLLECTION:
        raise SlurmClusterError(
            f"{id_!r} is not projects/PROJECT/locations/REGION/{COLLECTION}/CLUSTER_ID"
        )
    return parts[1], parts[3], parts[5]
