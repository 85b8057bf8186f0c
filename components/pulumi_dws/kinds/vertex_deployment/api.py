"""Vertex AI ``v1beta1`` ``endpoints.deployModel`` / ``undeployModel`` as the
``FlexStartDeployment`` resource uses them: its declaration (:data:`FLEX_START_DEPLOYED_MODEL`),
the error its provider raises, and how a deployed model reads.

A deployed model has no REST path of its own: it is an entry of its endpoint's
``deployedModels``, named by its ``id`` (1 to 10 digits, which the program may choose). The
resource's id is ``projects/P/locations/R/endpoints/E/deployedModels/ID``; it is read by reading
the endpoint. ``deployModel`` takes no ``requestId``, and Vertex AI documents nothing of a
second deployment with the id of the first: so the create runs in ``OWNER_SEARCH`` mode, never
sending ``deployModel`` again blindly. The deployed model's id is derived from the ownership key
(:func:`deployed_model_id`): the search for it is a read of the endpoint.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...providers.checks import WAIT_KEYS
from ...providers.create_machine import Idempotency
from ...providers.endpoints import AIPLATFORM
from ...providers.paths import PathTemplate
from ...providers.rest_resource import RestResource, States

__all__ = [
    "DEPLOYED",
    "DEPLOYING",
    "ENDPOINT",
    "FLEX_START_DEPLOYED_MODEL",
    "FlexStartDeploymentError",
    "OPERATION",
    "TYPE_TOKEN",
    "deployed_model_id",
    "is_deployed_model",
]

TYPE_TOKEN = "pulumi-python:dynamic/dws:FlexStartDeployedModel"
DEPLOYED = "DEPLOYED"
"""Every replica it asked for (``minReplicaCount``) is available."""
DEPLOYING = "DEPLOYING"
"""Listed on the endpoint, waiting for Flex-start capacity or being provisioned."""
ENDPOINT = PathTemplate("projects/{project}/locations/{region}/endpoints/{endpoint:numeric_id}")
OPERATION = PathTemplate(
    "projects/{project}/locations/{region}/endpoints/{endpoint:numeric_id}/operations/"
    "{operation:numeric_id}"
)
"""A deployment's operation, named under its endpoint as Vertex AI names them."""


class FlexStartDeploymentError(Exception):
    """A deployment call failed; the message says what happened and what to do."""


def deployed_model_id(key: str) -> str:
    """The deployed model's id for ownership key ``key`` (20 hex digits): 10 digits, the first
    not 0 (the API's ``1-10 characters, /[0-9]/``)."""
    return str(1_000_000_000 + int(key, 16) % 9_000_000_000)


def is_deployed_model(answer: Mapping[str, Any]) -> bool:
    """A deployed model as the provider reads it: an ``id`` and a ``state``."""
    return isinstance(answer.get("id"), str) and isinstance(answer.get("state"), str)


FLEX_START_DEPLOYED_MODEL = RestResource(
    name="FlexStartDeployedModel",
    api=AIPLATFORM,
    path=PathTemplate(
        "projects/{project}/locations/{region}/endpoints/{endpoint:numeric_id}/deployedModels/"
        "{deployedModelId:numeric_id}",
        labels={"deployedModelId": "deployed model id"},
    ),
    noun="deployed model",
    error=FlexStartDeploymentError,
    idempotency=Idempotency.OWNER_SEARCH,
    region_key="region",
    replace_keys=("project", "region", "endpoint", "body"),
    in_place_keys=WAIT_KEYS,
    outputs=("name", "state", "observed"),
    states=States(
        at=("state",),
        ready=frozenset({DEPLOYED}),
        pending=frozenset({DEPLOYING}),
        queued=frozenset({DEPLOYING}),  # serving nothing yet: an interrupted create undeploys it
    ),
    is_resource=is_deployed_model,
    api_name="Vertex AI",
)
"""The ``FlexStartDeployedModel`` dynamic resource, declared (see :mod:`~.provider`)."""
