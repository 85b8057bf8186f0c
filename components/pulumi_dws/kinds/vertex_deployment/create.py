"""The create of a model deployment on Flex-start: the shared
:class:`~pulumi_dws.providers.lro.LroCreate` steps in ``OWNER_SEARCH`` mode, with what is the
deployment's own (see :mod:`pulumi_dws.kinds.vertex_deployment.provider`).

Ownership. The deployed model's id is derived from the ownership key (a hash of the inputs and
of the resource's own name in the program, ``owner``): a deployed model of that id on the
endpoint is this create's own; none other can be (no two keys give one id but by a one in nine
billion chance).

Traffic. On an endpoint that serves nothing the deployment takes all its traffic; beside models
that serve, the endpoint's split is left as it is (:mod:`~.traffic`).

Waiting. ``waitFor`` ``deployed`` (default) waits until every replica asked for is available,
at most ``waitTimeout`` or else the deployment's own run (``maxRuntimeDuration``: Vertex AI
undeploys it then, counted from the request); ``queued`` returns once the deployment is listed
on the endpoint. One still waiting for capacity when the wait ends is kept and the create says
so (``onTimeout: keep``, the default), or undeployed (``onTimeout: cancel``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from ...duration import Duration
from ...errors import DwsValidationError
from ...providers.create_machine import Found, Outcome, Phase
from ...providers.lro import Ended, LroCreate, LroProvider
from ...providers.rest import ApiError, wire
from ...providers.rest_resource import Target
from .api import DEPLOYED, ENDPOINT, deployed_model_id
from .traffic import deploy_split

if TYPE_CHECKING:
    from ...providers.rest import GoogleRestClient

__all__ = ["DeploymentCreate", "runtime_seconds"]


def runtime_seconds(body: Any) -> int | None:
    """``flexStart.maxRuntimeDuration`` of a deploy body, in seconds (None: none readable)."""
    model = body.get("deployedModel") if isinstance(body, Mapping) else None
    resources = model.get("dedicatedResources") if isinstance(model, Mapping) else None
    flex = resources.get("flexStart") if isinstance(resources, Mapping) else None
    value = flex.get("maxRuntimeDuration") if isinstance(flex, Mapping) else None
    if value is None:
        return None
    try:
        return Duration.parse(value, "maxRuntimeDuration").seconds
    except DwsValidationError:
        return None


class DeploymentCreate(LroCreate):
    """The steps of one deployment: ``deployModel`` on the endpoint, then the endpoint read until
    the deployed model is what ``waitFor`` asks."""

    LEFTOVER: ClassVar[str] = "The deployment"
    MESSAGES: ClassVar[dict[str, str]] = {
        **LroCreate.MESSAGES,
        "not-ours": (
            "{noun} {path} {detail}. Nothing was created or changed. To change: undeploy that "
            "model from the endpoint and deploy again."
        ),
    }

    def __init__(self, provider: LroProvider, client: GoogleRestClient, target: Target) -> None:
        super().__init__(provider, client, target)
        self.model_id = deployed_model_id(self.key)
        self.target = provider.target({**dict(target.props), "deployedModelId": self.model_id})
        self.operation: Mapping[str, Any] | None = None

    def owned(self, live: dict[str, Any]) -> Found[dict[str, Any]]:
        """The deployed model of this create's id is its own (see the module docstring)."""
        return Found(live, ours=live.get("id") == self.model_id)

    def create_path(self) -> str:
        return f"{ENDPOINT.path(self.target.props)}:deployModel"

    def body(self) -> dict[str, Any]:
        """The request with the deployed model's id, and on an endpoint that serves nothing
        all its traffic (:func:`~.traffic.deploy_split`: without it the model gets none)."""
        body = dict(wire(self.target.props.get("body") or {}))
        model = dict(body.get("deployedModel") or {})
        body["deployedModel"] = {**model, "id": self.model_id}
        split = deploy_split(self.client.find(ENDPOINT.path(self.target.props)))
        if split is not None:
            body["trafficSplit"] = split
        return body

    @property
    def wanted(self) -> str:
        """What ``waitFor`` asks: ``deployed`` or ``queued``."""
        return str(self.target.props.get("waitFor") or "deployed")

    def wait_seconds(self) -> float:
        asked = self.asked_wait()
        if asked is not None:
            return asked
        runtime = runtime_seconds(self.target.props.get("body"))
        return float(runtime) if runtime else self.provider.timeout

    def follow(self, handle: dict[str, Any]) -> Outcome[dict[str, Any]]:
        """The operation of a Flex-start deployment lasts while it waits for capacity: the
        deployed model itself is followed (read from its endpoint), its operation only read
        for its error when the model leaves the endpoint."""
        self.operation = handle
        return self.adopt(None)

    def settled(self, live: dict[str, Any] | None) -> bool:
        return live is None or self.wanted == "queued" or live.get("state") == DEPLOYED

    def judge(self, live: dict[str, Any] | None) -> Outcome[dict[str, Any]]:
        if live is None:
            return Outcome(Phase.FAILED, error=Ended(f"it left the endpoint{self._why()}"))
        if live.get("state") == DEPLOYED:
            return Outcome(Phase.RUNNING, live)
        if self.wanted == "queued":
            return Outcome(Phase.PENDING, live)
        return self.timed_out(live)  # still waiting for capacity: kept unless onTimeout: cancel

    def _why(self) -> str:
        """`` (the operation's error)``, when the deployment's operation says why."""
        name = (self.operation or {}).get("name")
        if not isinstance(name, str):
            return ""
        try:
            done = self.client.get(self.provider.operation_path(name))
        except (ApiError, ValueError):
            return ""
        error = done.get("error")
        if isinstance(error, Mapping):
            return f" ({self.provider.describe_status(error)})"
        return ""
