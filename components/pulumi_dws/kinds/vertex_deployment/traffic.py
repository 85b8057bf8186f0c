"""What a Flex-start deployment does to its endpoint's traffic split, read from the endpoint
as it is.

Vertex AI routes an endpoint's traffic by its ``trafficSplit`` (deployed model id ->
percentage, adding up to 100, or empty: no traffic). From the ``aiplatform`` ``v1beta1``
discovery document:

* a deployed model receives traffic only once the split names it ("Endpoint.traffic_split must
  be updated for the DeployedModel to start receiving traffic", ``DeployModelRequest``); the
  request's ``trafficSplit`` overwrites the endpoint's, ``"0"`` standing for the new model;
* "A DeployedModel will be successfully undeployed only if it doesn't have any traffic assigned
  to it ..., or if this field unassigns any traffic to it"; the last one leaves the split
  empty (``UndeployModelRequest``).

So, as the Vertex AI SDK's ``Endpoint.deploy`` and ``Endpoint.undeploy`` do
(googleapis/python-aiplatform ``google/cloud/aiplatform/models.py``, ``_deploy_call``,
``_unallocate_traffic``): a deployment on an endpoint that serves nothing takes all its traffic
(:func:`deploy_split`), one beside models that serve leaves the split as it is (it then gets
none until the split is changed, e.g. the ``AiEndpoint``'s ``traffic_split``); a delete gives
the model's share to the other models in proportion to theirs (:func:`undeploy_plan`). When the
others had none, no traffic is moved onto them: the split is cleared first (the endpoint then
serves nothing, as it would once the model left), which ``endpoints.patch`` with
``updateMask=traffic_split`` does.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["NEW_MODEL", "UndeployPlan", "deploy_split", "share_of", "split_of", "undeploy_plan"]

NEW_MODEL = "0"
"""The key a ``deployModel`` request names the model it deploys by."""


def split_of(endpoint: Mapping[str, Any] | None) -> dict[str, int]:
    """The endpoint's traffic split (empty when it has none), percentages as numbers."""
    split = (endpoint or {}).get("trafficSplit")
    if not isinstance(split, Mapping):
        return {}
    out: dict[str, int] = {}
    for key, share in split.items():
        try:
            out[str(key)] = int(share)
        except (TypeError, ValueError):
            continue
    return out


def share_of(endpoint: Mapping[str, Any] | None, model_id: str) -> int:
    """The percentage of the endpoint's traffic ``model_id`` receives."""
    return split_of(endpoint).get(model_id, 0)


def deploy_split(endpoint: Mapping[str, Any] | None) -> dict[str, int] | None:
    """The ``trafficSplit`` a deployment on ``endpoint`` sends: all of it on an endpoint that
    serves nothing, else none (the endpoint's split is left as it is)."""
    if endpoint is not None and not any(split_of(endpoint).values()):
        return {NEW_MODEL: 100}
    return None


@dataclass(frozen=True)
class UndeployPlan:
    """How a model leaves its endpoint: ``clear`` the endpoint's split first (the others had
    no traffic), and the ``split`` the undeploy sends (None: none)."""

    clear: bool = False
    split: dict[str, int] | None = None


def _deployed_ids(endpoint: Mapping[str, Any]) -> list[str]:
    models = endpoint.get("deployedModels")
    return [
        str(m.get("id")) for m in models or [] if isinstance(m, Mapping) and m.get("id") is not None
    ]


def undeploy_plan(endpoint: Mapping[str, Any], model_id: str) -> UndeployPlan:
    """What the undeploy of ``model_id`` sends (see the module docstring)."""
    split = split_of(endpoint)
    others = [i for i in _deployed_ids(endpoint) if i != model_id]
    if not split.get(model_id) or not others:
        return UndeployPlan()
    rest = {key: split.get(key, 0) for key in others}
    left = sum(rest.values())
    if left <= 0:
        return UndeployPlan(clear=True)
    scaled = {key: share * 100 // left for key, share in rest.items()}
    missing = 100 - sum(scaled.values())
    for key in sorted(rest, key=lambda k: (-(rest[k] * 100 % left), others.index(k))):
        if missing <= 0:
            break
        scaled[key] += 1
        missing -= 1
    return UndeployPlan(split={key: share for key, share in scaled.items() if share})
