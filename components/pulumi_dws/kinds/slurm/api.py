"""The Vertex AI ``v1beta1`` ``modelDevelopmentClusters`` API as the ``SlurmCluster`` resource
uses it: its declaration (:data:`SLURM_CLUSTER`: path, states, outputs, idempotency), the
error its provider raises, and how its answers read."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...providers.create_machine import Idempotency
from ...providers.endpoints import AIPLATFORM
from ...providers.paths import PathTemplate
from ...providers.rest_resource import RestResource, StateField, States

__all__ = [
    "BUSY",
    "CLUSTER",
    "COLLECTION",
    "MOVING",
    "SLURM_CLUSTER",
    "SlurmClusterError",
    "TYPE_TOKEN",
    "cluster_path",
    "is_cluster",
    "state_of",
]

TYPE_TOKEN = "pulumi-python:dynamic/dws:SlurmCluster"
COLLECTION = "modelDevelopmentClusters"
CLUSTER = PathTemplate(f"projects/{{project}}/locations/{{region}}/{COLLECTION}/{{cluster_id}}")
"""A cluster (relative to the Vertex AI base URL); its path is the resource id."""
BUSY = frozenset({"PROVISIONING", "UPDATING"})
"""States of a cluster that refuses changes until it settles."""
MOVING = BUSY | {"STOPPING"}


class SlurmClusterError(Exception):
    """A cluster operation failed; the message says what happened to the cluster."""


def cluster_path(project: str, region: str, cluster_id: str) -> str:
    """``projects/{p}/locations/{r}/modelDevelopmentClusters/{id}`` (the resource id), every
    part checked in full and quoted (see :mod:`~pulumi_dws.providers.paths`)."""
    return CLUSTER.path({"project": project, "region": region, "cluster_id": cluster_id})


def is_cluster(answer: Mapping[str, Any]) -> bool:
    """A cluster as the API returns it: a name and, if any, a status object."""
    status = answer.get("clusterStatus")
    return isinstance(answer.get("name"), str) and (status is None or isinstance(status, Mapping))


def state_of(cluster: Mapping[str, Any] | None) -> str | None:
    """``clusterStatus.state`` of a cluster (None when it has none)."""
    return SLURM_CLUSTER.states.of(cluster)


SLURM_CLUSTER = RestResource(
    name="SlurmCluster",
    api=AIPLATFORM,
    path=CLUSTER,
    noun="cluster",
    error=SlurmClusterError,
    # Slurm creates carry no request id: the program names the cluster, so a create sent again
    # meets 409 ALREADY_EXISTS and is settled by reading the cluster of that id
    idempotency=Idempotency.CALLER_ID,
    id_param="model_development_cluster_id",
    region_key="region",
    outputs=("name", "state", "login_nodes", "login_address", "partitions", "create_time", "drift"),
    states=States(
        at=("clusterStatus", "state"),
        ready=frozenset({"RUNNING"}),
        pending=BUSY,
        ended=frozenset({"ERROR"}),
        busy=BUSY,
        deleting=frozenset({"STOPPING"}),
    ),
    is_resource=is_cluster,
    settle_seconds=60.0,
    state={
        "project": StateField((str,), required=True),
        "region": StateField((str,), required=True),
        "cluster_id": StateField((str,), required=True),
        "body": StateField((dict,), required=True),
        "name": StateField((str,)),
        "state": StateField((str,)),
        "login_nodes": StateField((list,)),
        "login_address": StateField((str,)),
        "partitions": StateField((list,)),
        "create_time": StateField((str,)),
        "drift": StateField((list,)),
    },
)
"""The ``SlurmCluster`` dynamic resource, declared (see :mod:`~.provider` for its behaviour;
its diff, which updates most changes in place, is :func:`~.diff.plan_change`)."""
