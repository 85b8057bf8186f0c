"""The create of a managed Slurm cluster: the shared
:class:`~pulumi_dws.providers.lro.LroCreate` steps, with what is the cluster's own (see
:mod:`pulumi_dws.kinds.slurm.provider` for the behaviour).

Ownership. Slurm clusters carry no ownership label: the program chooses the cluster id, and a
cluster found under it is this program's when it matches the declared spec (a cluster made
elsewhere with exactly these settings is adopted too), someone else's otherwise, saying what
differs."""

from __future__ import annotations

from typing import Any, ClassVar

from ...providers.create_machine import OWNER_LABEL, Found, Outcome, Phase
from ...providers.lro import Ended, LroCreate
from ...providers.ownership import STACK_LABEL, owner_key
from ...providers.rest import ApiError, is_lro
from .api import BUSY, state_of
from .diff import canonical, differences, project_live

__all__ = ["SlurmCreate", "is_lro"]


class SlurmCreate(LroCreate):
    """The steps of one SlurmCluster create."""

    LEFTOVER: ClassVar[str] = "The partly created cluster"
    MESSAGES: ClassVar[dict[str, str]] = {
        **LroCreate.MESSAGES,
        "not-ours": (
            "cluster {path} already exists and {detail}. Nothing was created or changed. To "
            "change: choose another cluster_id, or delete that cluster and deploy again; to "
            "take over a cluster made elsewhere, declare it with exactly its settings: `pulumi "
            "up` adopts a cluster that matches."
        ),
        "lost": (
            "create of cluster {path} got no usable answer ({error}), and no cluster of that id "
            "exists: nothing was created. To change: deploy again later."
        ),
        "cleaned-up": "create of cluster {path} failed: {error}. {detail}",
        "unknown": (
            "create of cluster {path}: {detail}. It may exist: run `pulumi up` again to adopt "
            "it (same cluster_id and settings), or delete it."
        ),
    }

    def owner_key(self) -> str:
        """The ownership key: the cluster's address and spec (secret-bearing fields left out),
        keyed with the stack that creates."""
        props = self.target.props
        identity = {k: props.get(k) for k in ("project", "region", "cluster_id", "body")}
        return owner_key(self.owner, identity)

    def body(self) -> dict[str, Any]:
        return self.with_owner(self.target.props["body"])

    def owned(self, live: dict[str, Any]) -> Found[dict[str, Any]]:
        """Ours when it carries this create's ownership label; a cluster marked by pulumi-dws
        otherwise (another stack's, a leftover, other inputs) is not. A cluster with no marks
        (made elsewhere, or by a release without them) is ours when it matches the declared
        spec. A cluster still being deleted is not."""
        if state_of(live) == "STOPPING":
            return Found(
                live,
                ours=False,
                why=f"it is still being deleted after {self.provider.timeout:.0f}s",
            )
        declared = canonical(self.target.props["body"])
        seen = canonical(project_live(self.target.props["body"], canonical(live)))
        diff = differences(declared, seen)
        differs = f"it differs from this program at {', '.join(diff)}" if diff else ""
        labels = self.owner_labels(live)
        if OWNER_LABEL in labels or STACK_LABEL in labels:  # made by pulumi-dws: the marks decide
            found = super().owned(live)
            if found.ours:
                return found
            whose = found.why.split(", and ", 1)[-1]
            return Found(live, ours=False, why=f"{differs or 'it has the same settings'}; {whose}")
        if diff:
            return Found(live, ours=False, why=differs)
        return Found(live, ours=True)

    def after_operation(self, done: dict[str, Any]) -> Outcome[dict[str, Any]]:
        """Read the cluster the operation made (or, when it can't be read, take the one the
        operation carries)."""
        try:
            live = self.read()
        except ApiError as err:
            response = done.get("response")
            if isinstance(response, dict) and "name" in response:
                return Outcome(Phase.RUNNING, response)  # the operation carries the cluster
            return self.as_it_is(err)
        if live is None:
            return Outcome(Phase.FAILED, error=Ended("the cluster is gone after its create"))
        return self.judge(live)

    def settled(self, live: dict[str, Any] | None) -> bool:
        return live is None or state_of(live) not in BUSY

    def judge(self, live: dict[str, Any] | None) -> Outcome[dict[str, Any]]:
        if live is None:
            return Outcome(Phase.FAILED, error=Ended("it disappeared while being adopted"))
        state = state_of(live)
        if state == "ERROR":
            detail = (live.get("clusterStatus") or {}).get("detail", "")
            return Outcome(Phase.FAILED, error=Ended(f"the cluster is in state ERROR ({detail})"))
        return Outcome(Phase.PENDING if state in BUSY else Phase.RUNNING, live)
