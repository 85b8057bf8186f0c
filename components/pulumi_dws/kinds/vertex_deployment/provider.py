"""Dynamic provider for a model deployed on Vertex AI Flex-start capacity (``v1beta1``
``endpoints.deployModel`` with ``dedicatedResources.flexStart.maxRuntimeDuration``): what a
``FlexStartDeployment`` registers.

Resource type ``pulumi-python:dynamic/dws:FlexStartDeployedModel``. Inputs: ``project``,
``region``, ``endpoint`` (the endpoint's id), ``owner`` (the resource's name in the program:
part of the ownership key), ``body`` (the ``DeployModelRequest`` JSON without the deployed
model's id, which the create derives from the ownership key) and ``waitFor`` (``deployed`` |
``queued``). Outputs: the inputs plus ``name``
(``projects/P/locations/R/endpoints/E/deployedModels/ID``), ``state`` (``DEPLOYING`` until
every replica asked for is available, then ``DEPLOYED``) and ``observed`` (``createTime``,
``availableReplicaCount``).

* Create: ``POST {endpoint}:deployModel``, never sent again blindly: a lost answer is settled by
  reading the endpoint for the deployed model's id (:mod:`~.create`). Then the endpoint is read
  until the deployed model is what ``waitFor`` asks. One that leaves the endpoint (its
  deployment failed) or is still waiting when its run would end is undeployed before the error
  says nothing is left.
* Diff: a deployment can't be changed: any change of ``project``, ``region``, ``endpoint`` or
  ``body`` replaces it (undeploying first); ``waitFor`` only matters at create time.
* Read: the deployed model as its endpoint lists it. Vertex AI undeploys a Flex-start model at
  the end of its ``maxRuntimeDuration`` (https://docs.cloud.google.com/vertex-ai/docs/
  predictions/use-flex-start-vms, "Automatic undeployment"): a refresh then reads it as gone.
* Delete: ``POST {endpoint}:undeployModel`` with its id and, when the model has traffic, the
  split that gives it to the other models (cleared first when they had none: Vertex AI
  undeploys a model only once it has no traffic, :mod:`~.traffic`); the operation polled, then
  the endpoint read until the model left it; a model (or an endpoint) already gone is success.
* Traffic: a deployment on an endpoint that serves nothing takes all its traffic; beside models
  that serve, it gets none until the endpoint's split names it (``observed.trafficPercentage``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

import pulumi
import pulumi.dynamic as dyn
from pulumi.output import Unknown

from ...providers.checks import CheckFailures
from ...providers.lro import LroProvider, busy_refusal
from ...providers.rest import ApiError, is_lro
from ...providers.rest_resource import DeclaredResource, RestResource, Target
from .api import (
    DEPLOYED,
    DEPLOYING,
    ENDPOINT,
    FLEX_START_DEPLOYED_MODEL,
    OPERATION,
    TYPE_TOKEN,
    FlexStartDeploymentError,
)
from .create import DeploymentCreate
from .traffic import share_of, undeploy_plan

if TYPE_CHECKING:
    from ...providers.rest import GoogleRestClient

__all__ = [
    "TYPE_TOKEN",
    "WAIT_FOR",
    "FlexStartDeployedModelProvider",
    "FlexStartDeployedModelResource",
    "FlexStartDeploymentError",
]

WAIT_FOR = ("deployed", "queued")


def _replicas(model: Mapping[str, Any]) -> int:
    resources = model.get("dedicatedResources")
    low = resources.get("minReplicaCount") if isinstance(resources, Mapping) else None
    return int(low) if isinstance(low, int | float | str) and str(low).isdigit() else 1


class FlexStartDeployedModelProvider(LroProvider):
    """CRUD of one model deployed on Flex-start capacity; see the module docstring."""

    RESOURCE: ClassVar[RestResource] = FLEX_START_DEPLOYED_MODEL
    MARKED: ClassVar[bool] = False
    """A deployed model carries no labels: its id, derived from the ownership key (the stack's
    identity among what it hashes), is the mark; a delete by that id deletes this stack's own."""

    def check_inputs(self, news: Mapping[str, Any], failures: CheckFailures) -> None:
        """The project, region and endpoint can go into a URL; ``waitFor`` is one of
        :data:`WAIT_FOR`; the body holds a ``deployedModel`` (without an id: the create
        chooses it)."""
        for key, kind in (("project", "project"), ("region", "region"), ("endpoint", "numeric_id")):
            if news.get(key) is None:
                failures.append(dyn.CheckFailure(key, f"{key} is required"))
            failures.segment(key, news.get(key), kind)
        failures.one_of("waitFor", news.get("waitFor", "deployed"), WAIT_FOR)
        failures.wait_policy(news)
        body = failures.body(news.get("body"), "a DeployModelRequest")
        model = body.get("deployedModel") if body is not None else None
        if body is not None and not isinstance(model, (Mapping, Unknown)):
            failures.append(dyn.CheckFailure("body", "body is required (a DeployModelRequest)"))
        elif isinstance(model, Mapping) and "id" in model:
            failures.append(
                dyn.CheckFailure("body", "body.deployedModel.id is chosen by pulumi-dws itself")
            )

    def create_steps(self, client: GoogleRestClient, target: Target) -> DeploymentCreate:
        return DeploymentCreate(self, client, target)

    def operation_path(self, name: Any) -> str:
        """A deployment's operation is named under its endpoint; others under the location."""
        nested = OPERATION.parse(name)
        return OPERATION.path(nested) if nested is not None else super().operation_path(name)

    # ------------------------------------------------------------------ reading
    def read_live(self, client: GoogleRestClient, target: Target) -> dict[str, Any] | None:
        """The deployed model as its endpoint lists it (None: not there, or no endpoint), with
        the resource's ``name``, a ``state`` and its ``trafficPercentage``."""
        return self._in(client.find(ENDPOINT.path(target.props)), target)

    def _in(self, endpoint: Mapping[str, Any] | None, target: Target) -> dict[str, Any] | None:
        """The deployed model of ``target`` as ``endpoint`` lists it (see :meth:`read_live`)."""
        wanted = str(target.props.get("deployedModelId"))
        for model in (endpoint or {}).get("deployedModels") or []:
            if isinstance(model, Mapping) and str(model.get("id")) == wanted:
                status = model.get("status") if isinstance(model.get("status"), Mapping) else {}
                ready = int((status or {}).get("availableReplicaCount") or 0)
                state = DEPLOYED if ready >= _replicas(model) else DEPLOYING
                return {
                    **dict(model),
                    "name": target.path,
                    "state": state,
                    "trafficPercentage": share_of(endpoint, wanted),
                }
        return None

    def search(self, client: GoogleRestClient, target: Target, key: str) -> list[dict[str, Any]]:
        """The deployed model of this create's id (derived from ``key``), if its endpoint lists
        it."""
        live = self.read_live(client, target)
        return [live] if live is not None else []

    def outputs(self, target: Target, live: Mapping[str, Any]) -> dict[str, Any]:
        status = live.get("status") if isinstance(live.get("status"), Mapping) else {}
        return {
            **dict(target.props),
            "name": target.path,
            "state": live.get("state"),
            "observed": {
                "createTime": live.get("createTime"),
                "availableReplicaCount": (status or {}).get("availableReplicaCount"),
                "trafficPercentage": live.get("trafficPercentage"),
            },
        }

    # ------------------------------------------------------------------ delete
    def delete_and_wait(self, client: GoogleRestClient, target: Target) -> bool:
        """Give the model's traffic to the others (:func:`~.traffic.undeploy_plan`), undeploy
        it, wait for the operation, then until it left its endpoint; False when there was
        nothing to undeploy."""
        endpoint_path = ENDPOINT.path(target.props)
        model_id = str(target.props.get("deployedModelId"))
        for attempt in range(2):  # once more when the split changed in between
            endpoint = client.find(endpoint_path)
            if self._in(endpoint, target) is None:
                return False
            assert endpoint is not None
            plan = undeploy_plan(endpoint, model_id)
            if plan.clear:
                client.patch(
                    endpoint_path,
                    {"trafficSplit": {}},
                    idempotent=True,  # clearing twice clears once
                    updateMask="traffic_split",
                )
            body: dict[str, Any] = {"deployedModelId": model_id}
            if plan.split is not None:
                body["trafficSplit"] = plan.split
            try:
                operation = client.post(
                    f"{endpoint_path}:undeployModel",
                    body,
                    expect=is_lro,
                    idempotent=True,  # undeploying one model twice removes it once
                )
            except ApiError as err:
                if err.not_found:
                    return False
                if attempt or not busy_refusal(err):
                    raise
                continue
            break
        done = self.wait_operation(client, operation, f"undeploy of {target.path}")
        self.check_operation(done, f"undeploy of {target.path}")
        final = self.poll(client, target, lambda model: model is None)
        if final is not None:
            raise TimeoutError(f"{target.path} is still on its endpoint after {self.timeout:.0f}s")
        return True


class FlexStartDeployedModelResource(DeclaredResource, module="dws", name="FlexStartDeployedModel"):
    """The deployed model as a dynamic resource
    (``pulumi-python:dynamic/dws:FlexStartDeployedModel``)."""

    name: pulumi.Output[str]
    state: pulumi.Output[str]
    observed: pulumi.Output[dict[str, Any]]

    provider_class = FlexStartDeployedModelProvider
