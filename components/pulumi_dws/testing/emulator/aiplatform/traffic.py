"""An endpoint's traffic split as Vertex AI documents it (the ``aiplatform`` ``v1beta1``
discovery document): a map from deployed model id to a percentage of the endpoint's traffic.

* ``Endpoint.trafficSplit``: "If a DeployedModel's ID is not listed in this map, then it
  receives no traffic. The traffic percentage values must add up to 100, or map must be empty
  if the Endpoint is to not accept any traffic at a moment."
* ``DeployModelRequest.trafficSplit``: "If this field is non-empty, then the Endpoint's
  traffic_split will be overwritten with it. To refer to the ID of the just being deployed
  Model, a "0" should be used ... The traffic percentage values must add up to 100. If this
  field is empty, then the Endpoint's traffic_split is not updated." (``DeployedModel``: "Note
  that Endpoint.traffic_split must be updated for the DeployedModel to start receiving
  traffic".)
* ``UndeployModelRequest.trafficSplit``: "If this field is provided, then the Endpoint's
  traffic_split will be overwritten with it. If last DeployedModel is being undeployed from the
  Endpoint, the [Endpoint.traffic_split] will always end up empty when this call returns. A
  DeployedModel will be successfully undeployed only if it doesn't have any traffic assigned to
  it when this method executes, or if this field unassigns any traffic to it."

What the document leaves open, and the emulator's choice: a deployment's split is applied when
its operation finishes well (a deployment that fails changes nothing); a model Vertex AI
undeploys itself at the end of its Flex-start run leaves the split without its entry.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from ..base import ServiceError
from .custom_job_rules import invalid

__all__ = ["NEW_MODEL", "SOURCE", "has_traffic_refusal", "split_of", "without"]

SOURCE = (
    "aiplatform v1beta1 discovery document (schemas/aiplatform.v1beta1.json): Endpoint, "
    "DeployModelRequest and UndeployModelRequest trafficSplit"
)
NEW_MODEL = "0"
"""The key a ``deployModel`` request names the model it deploys by."""


def split_of(value: Any, field: str, known: Collection[str]) -> dict[str, int]:
    """The traffic split ``value`` of a request (empty: none given), checked: percentages
    (whole numbers, 0 to 100) of models in ``known`` that add up to 100; else a ``400`` naming
    ``field``."""
    if value is None or value == {}:
        return {}
    if not isinstance(value, dict):
        raise invalid(field, f"{value!r} is not a map of deployed model ids to percentages.")
    split: dict[str, int] = {}
    for key, share in value.items():
        if isinstance(share, bool) or not isinstance(share, int) or not 0 <= share <= 100:
            raise invalid(f"{field}[{key}]", f"{share!r} is not a percentage.")
        if key not in known:
            raise invalid(f"{field}[{key}]", "is not a model deployed on this endpoint.")
        split[str(key)] = share
    if sum(split.values()) != 100:
        raise invalid(field, f"the percentages add up to {sum(split.values())}, not 100.")
    return split


def without(split: dict[str, int], model_id: str, remaining: Collection[str]) -> dict[str, int]:
    """``split`` once ``model_id`` left its endpoint (empty when no model is left)."""
    if not remaining:
        return {}
    return {key: share for key, share in split.items() if key != model_id}


def has_traffic_refusal(endpoint: str, model_id: str, share: int) -> ServiceError:
    """The ``400 FAILED_PRECONDITION`` of an undeploy that leaves a model its traffic."""
    return ServiceError(
        400,
        f"DeployedModel {model_id} of {endpoint} has {share}% of its traffic: give the traffic "
        "to other deployed models (traffic_split) before undeploying it.",
        "FAILED_PRECONDITION",
    )
