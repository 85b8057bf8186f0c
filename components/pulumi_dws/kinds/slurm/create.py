"""The create of a managed Slurm cluster, as steps of the shared
:class:`~pulumi_dws.providers.create_machine.CreateMachine` (see
:mod:`pulumi_dws.kinds.slurm.provider` for the behaviour)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ...providers.create_machine import (
    CleanUp,
    Found,
    Outcome,
    Phase,
    Sent,
    kept_unless_gone,
    sent_after,
)
from ...providers.rest import ApiError, is_lro
from .diff import (
    BUSY,
    SlurmClusterError,
    canonical,
    describe_status,
    differences,
    project_live,
    wire,
)

if TYPE_CHECKING:
    from ...providers.rest import GoogleRestClient
    from .provider import SlurmClusterProvider

__all__ = ["SlurmCreate", "is_lro"]


class _Failed(Exception):
    """The create (or an adopted cluster) ended in an error state."""


class SlurmCreate:
    """The steps of one SlurmCluster create (a :class:`CreateSteps`)."""

    settle_seconds = 60.0
    """Waited (virtual under an emulator clock) before a read that concludes nothing is there."""

    def __init__(
        self,
        provider: SlurmClusterProvider,
        client: GoogleRestClient,
        props: Mapping[str, Any],
        path: str,
    ) -> None:
        self.provider = provider
        self.client = client
        self.props = props
        self.path = path

    def _get(self) -> dict[str, Any] | None:
        from .provider import _is_cluster

        return self.client.find(self.path, expect=_is_cluster)

    # ------------------------------------------------------------------ find
    def find(self) -> Found[dict[str, Any]]:
        from .provider import _state_of

        try:
            live = self._get()
            if live is not None and _state_of(live) == "STOPPING":  # wait for that delete
                live = self.provider._poll(  # noqa: SLF001 - the provider's own poller
                    self.client, self.path, lambda c: c is None or _state_of(c) != "STOPPING"
                )
        except ApiError as err:
            return Found(unknown=True, why=str(err))
        if live is None:
            return Found()
        if _state_of(live) == "STOPPING":
            return Found(
                live,
                ours=False,
                why=f"it is still being deleted after {self.provider.timeout:.0f}s",
            )
        declared = canonical(self.props["body"])
        seen = canonical(project_live(self.props["body"], canonical(live)))
        diff = differences(declared, seen)
        if diff:
            return Found(live, ours=False, why=f"it differs from this program at {', '.join(diff)}")
        return Found(live, ours=True)

    # ------------------------------------------------------------------ send
    def send(self, attempt: int) -> Sent[dict[str, Any]]:
        parent = self.path.rsplit("/", 1)[0]
        try:
            op = self.client.post(
                parent,
                wire(self.props["body"]),
                expect=is_lro,
                model_development_cluster_id=self.props["cluster_id"],
            )
        except ApiError as err:
            return sent_after(err)
        return Sent("accepted", op)

    # ------------------------------------------------------------------ follow / adopt
    def follow(self, op: dict[str, Any]) -> Outcome[dict[str, Any]]:
        try:
            done = self.provider._wait(self.client, op, f"create of {self.path}")  # noqa: SLF001
        except Exception as err:  # noqa: BLE001 - accepted: never leave it untracked
            return self._as_it_is(err)
        if "error" in done:
            return Outcome(Phase.FAILED, error=_Failed(describe_status(done["error"])))
        try:
            live = self._get()
        except ApiError as err:
            response = done.get("response")
            if isinstance(response, dict) and "name" in response:
                return Outcome(Phase.RUNNING, response)  # the operation carries the cluster
            return self._as_it_is(err)
        if live is None:
            return Outcome(Phase.FAILED, error=_Failed("the cluster is gone after its create"))
        return self._judge(live)

    def adopt(self, live: dict[str, Any]) -> Outcome[dict[str, Any]]:
        from .provider import _state_of

        if _state_of(live) in BUSY:
            try:
                settled = self.provider._poll(  # noqa: SLF001
                    self.client, self.path, lambda c: c is None or _state_of(c) not in BUSY
                )
            except Exception as err:  # noqa: BLE001
                return self._as_it_is(err)
            if settled is None:
                return Outcome(Phase.FAILED, error=_Failed("it disappeared while being adopted"))
            live = settled
        return self._judge(live)

    def _judge(self, live: dict[str, Any]) -> Outcome[dict[str, Any]]:
        from .provider import _state_of

        state = _state_of(live)
        if state == "ERROR":
            detail = (live.get("clusterStatus") or {}).get("detail", "")
            return Outcome(Phase.FAILED, error=_Failed(f"the cluster is in state ERROR ({detail})"))
        return Outcome(Phase.PENDING if state in BUSY else Phase.RUNNING, live)

    def _as_it_is(self, err: Exception) -> Outcome[dict[str, Any]]:
        """The create was accepted but could not be followed to the end: succeed with the
        cluster as it is, so it stays tracked (or fail when it cannot be read)."""
        try:
            live = self._get()
        except ApiError as lookup:
            return Outcome(Phase.FAILED, error=SlurmClusterError(f"{err}; and {lookup}"))
        if live is None:
            return Outcome(Phase.FAILED, error=_Failed(f"did not finish ({err}), and is gone"))
        return Outcome(Phase.PENDING, live)

    # ------------------------------------------------------------------ failure
    def reached(self, failure: Exception) -> dict[str, Any] | None:
        return None  # a failed cluster is never what was asked for

    def clean_up(self, failure: Exception) -> CleanUp[dict[str, Any]]:
        from .provider import _state_of

        for _ in range(2):  # once more if the cluster came back (a create that arrived late)
            try:
                done = self.provider._delete(self.client, self.path)  # noqa: SLF001
            except (ApiError, TimeoutError, SlurmClusterError) as err:
                return self._kept(f"could not be deleted ({err})")
            if done is not None and "error" in done:
                return self._kept(f"could not be deleted ({describe_status(done['error'])})")
            assert self.client.sleep is not None
            self.client.sleep(self.settle_seconds)
            try:
                live = self._get()
            except ApiError:
                live = None  # the delete was confirmed: trust it
            if live is None:
                return CleanUp(
                    True,
                    "The partly created cluster was deleted, so nothing is left behind."
                    if done is not None
                    else "Nothing was left behind.",
                )
            if _state_of(live) == "STOPPING":
                continue
        return self._kept("came back after it was deleted")

    def _kept(self, why: str) -> CleanUp[dict[str, Any]]:
        return kept_unless_gone("cluster", why, self.path, self._get, ApiError)

    # ------------------------------------------------------------------ messages
    def message(self, phase: Phase, detail: str, error: Exception | None) -> str:
        path = self.path
        if phase is Phase.NOT_OURS:
            return (
                f"cluster {path} already exists and {detail}. Nothing was created or changed. "
                "To change: choose another cluster_id, or delete that cluster and deploy again; "
                "to take over a cluster made elsewhere, declare it with exactly its settings: "
                "`pulumi up` adopts a cluster that matches."
            )
        if phase is Phase.REJECTED:
            if isinstance(error, ApiError) and error.ambiguous:
                return (
                    f"create of cluster {path} got no usable answer ({error}), and no cluster "
                    "of that id exists: nothing was created. To change: deploy again later."
                )
            return f"create of cluster {path} {detail}"
        if phase is Phase.CLEANED_UP:
            return f"create of cluster {path} failed: {error}. {detail}"
        return (
            f"create of cluster {path}: {detail}. It may exist: run `pulumi up` again to adopt "
            "it (same cluster_id and settings), or delete it."
        )
