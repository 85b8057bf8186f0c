"""Dynamic provider for Vertex AI managed Slurm clusters (``modelDevelopmentClusters``, v1beta1).

Resource type ``pulumi-python:dynamic/dws:SlurmCluster``. Inputs: ``project``, ``region``,
``cluster_id`` and ``body`` (the create request body, ``snake_case`` as in seed 002). Outputs: the
inputs, with ``body`` as the cluster really is after a refresh, plus ``name``, ``state``,
``login_nodes``, ``login_address``, ``partitions``, ``create_time`` and ``drift``.

* Create: ``POST {parent}/modelDevelopmentClusters?model_development_cluster_id=ID``, then the
  long-running operation is polled until done. The cluster id is chosen by the program, so a
  create retried after a crash or a lost answer meets ``409 ALREADY_EXISTS`` and *adopts* the
  cluster when it matches the declared spec (else it fails and says what differs). When the
  operation fails, the half-made cluster is deleted before the error is raised; when the wait
  gives up, the error names the cluster and its state (the next ``pulumi up`` adopts it).
* Diff: see :data:`REPLACE_PATHS` / :data:`UPDATE_PATHS`. A replacement deletes first (the
  cluster id and the ``/home`` Filestore are the same for the new cluster).
* Update: ``PATCH {name}?updateMask=...`` with the whole desired body, LRO polled.
* Read: reports drift (``body`` becomes what Google has, ``drift`` lists the paths) and a cluster
  deleted outside Pulumi (empty id).
* Delete: ``DELETE {name}``, LRO polled; 404 is success.

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
    ID_PATTERN,
    OUTPUT_ONLY,
    SlurmClusterError,
    canonical,
    cluster_path,
    describe_status,
    differences,
    outputs_from_live,
    plan_change,
    project_live,
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
        if isinstance(cluster_id, str) and not ID_PATTERN.match(cluster_id):
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
                return CreateResult(path, outputs_from_live(props, live))
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
            operation = client.patch(id_, wire(news["body"]), updateMask=",".join(mask))
            done = self._wait(client, operation, f"update of {id_}")
            if "error" in done:
                raise SlurmClusterError(
                    f"update of cluster {id_} ({', '.join(mask)}) failed: "
                    f"{describe_status(done['error'])}; the cluster keeps its previous settings"
                )
        return UpdateResult(outputs_from_live(news, client.get(id_)))

    def delete(self, id_: str, props: dict[str, Any]) -> None:
        from .rest import ApiError

        client = self._client(_parse_id(id_)[1])
        try:
            operation = client.delete(id_)
        except ApiError as err:
            if err.not_found:
                return
            if err.status in (400, 409) and "FAILED_PRECONDITION" in (err.reason, _status(err)):
                self._wait_gone(client, id_)  # already being deleted
                return
            raise
        done = self._wait(client, operation, f"delete of {id_}")
        if "error" in done and done["error"].get("code") != 5:
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
            if err.status != 409:
                raise SlurmClusterError(f"create of cluster {path} was refused: {err}") from None
            return self._adopt(client, props, path)
        try:
            done = self._wait(client, operation, f"create of {path}")
        except (TimeoutError, ApiError) as err:
            state = self._state(client, path)
            raise SlurmClusterError(
                f"create of cluster {path} was accepted but did not finish ({err}); the cluster "
                f"exists in state {state}. Run `pulumi up` again to adopt it (same cluster_id), "
                "or delete it."
            ) from None
        if "error" in done:
            left = self._remove_failed(client, path)
            raise SlurmClusterError(
                f"create of cluster {path} failed: {describe_status(done['error'])}. {left}"
            )
        return client.get(path)

    def _adopt(
        self, client: GoogleRestClient, props: Mapping[str, Any], path: str
    ) -> dict[str, Any] | None:
        live = client.get(path)
        state = (live.get("clusterStatus") or {}).get("state")
        if state == "STOPPING":
            self._wait_gone(client, path)
            return None
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
            raise SlurmClusterError(
                f"cluster {path} already exists in state ERROR "
                f"({(live.get('clusterStatus') or {}).get('detail', '')}); delete it and retry"
            )
        return live

    def _remove_failed(self, client: GoogleRestClient, path: str) -> str:
        """Delete what a failed create left; say what remains."""
        from .rest import ApiError

        try:
            operation = client.delete(path)
            done = self._wait(client, operation, f"clean-up delete of {path}")
        except ApiError as err:
            if err.not_found:
                return "Nothing was left behind."
            return f"The failed cluster could not be deleted ({err}); delete {path} by hand."
        except TimeoutError:
            return f"Deleting the failed cluster is still running; check {path}."
        if "error" in done:
            return (
                f"The failed cluster could not be deleted ({describe_status(done['error'])}); "
                f"delete {path} by hand."
            )
        return "The partly created cluster was deleted, so nothing is left behind."

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

    def _wait_gone(self, client: GoogleRestClient, path: str) -> None:
        if self._poll(client, path, lambda c: c is None) is not None:
            raise SlurmClusterError(f"cluster {path} is still there after {self.timeout:.0f}s")

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


def _state_of(cluster: Mapping[str, Any]) -> str | None:
    return (cluster.get("clusterStatus") or {}).get("state")


def _status(err: Any) -> str:
    body = getattr(err, "body", None)
    return ((body or {}).get("error") or {}).get("status", "") if isinstance(body, dict) else ""


def _parse_id(id_: str) -> tuple[str, str, str]:
    parts = id_.split("/")
    if len(parts) != 6 or parts[0] != "projects" or parts[4] != COLLECTION:
        raise SlurmClusterError(
            f"{id_!r} is not projects/PROJECT/locations/REGION/{COLLECTION}/CLUSTER_ID"
        )
    return parts[1], parts[3], parts[5]
