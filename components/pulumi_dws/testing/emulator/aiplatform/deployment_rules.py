"""The rules Vertex AI applies to ``endpoints.deployModel`` beyond its schema, each with its
source (see :mod:`pulumi_dws.testing.emulator.rules`)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .... import catalog, limits
from ....errors import DwsValidationError
from ..rules import Rules
from .custom_job_rules import invalid, seconds

__all__ = ["DEPLOY_RULES", "FLEX_START_MAX", "NewDeployment"]

FLEX_INFERENCE = "https://docs.cloud.google.com/vertex-ai/docs/predictions/use-flex-start-vms"
DISCOVERY = "aiplatform v1beta1 discovery document (schemas/aiplatform.v1beta1.json)"
FLEX_START_MAX = 7 * 86400
_DEPLOYED_ID = re.compile(r"[0-9]{1,10}")


def _count(value: Any) -> int | None:
    """An int32 as JSON carries it: a number or a decimal string."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.isdigit():
        return int(value)
    return None


@dataclass(frozen=True)
class NewDeployment:
    """A ``deployModel`` request: the ``DeployedModel`` it asks for."""

    body: Mapping[str, Any]

    @property
    def model(self) -> Mapping[str, Any]:
        model = self.body.get("deployedModel")
        return model if isinstance(model, Mapping) else {}

    @property
    def resources(self) -> Mapping[str, Any]:
        found = self.model.get("dedicatedResources")
        return found if isinstance(found, Mapping) else {}

    @property
    def machine(self) -> Mapping[str, Any]:
        found = self.resources.get("machineSpec")
        return found if isinstance(found, Mapping) else {}

    @property
    def flex_start(self) -> Mapping[str, Any] | None:
        found = self.resources.get("flexStart")
        return found if isinstance(found, Mapping) else None

    @property
    def machine_gpus(self) -> int | None:
        """The GPUs of its machine type (None: not a GPU machine type of the catalog)."""
        machine = self.machine.get("machineType")
        if not isinstance(machine, str):
            return None
        try:
            return catalog.machine_shape("machineType", machine).gpus
        except DwsValidationError:
            return None

    def vms(self, replicas: int) -> int:
        """The VMs ``replicas`` replicas take: several share one when each takes half of the
        machine's GPUs or fewer (:func:`accelerators_of_the_machine`)."""
        whole, count = self.machine_gpus, _count(self.machine.get("acceleratorCount"))
        if not whole or not count or count > whole // 2:
            return replicas
        return -(-replicas // (whole // count))


DEPLOY_RULES: Rules[NewDeployment] = Rules("aiplatform.projects.locations.endpoints.deployModel")


@DEPLOY_RULES.rule(f"{DISCOVERY} (DeployModelRequest.deployedModel, DeployedModel.model: Required)")
def a_model_to_deploy(new: NewDeployment) -> None:
    if not new.model:
        raise invalid("deployed_model", "is required.")
    if not new.model.get("model"):
        raise invalid("deployed_model.model", "is required.")


@DEPLOY_RULES.rule(f"{DISCOVERY} (DeployedModel.id: 1-10 characters, valid characters are /[0-9]/)")
def a_numeric_deployed_model_id(new: NewDeployment) -> None:
    given = new.model.get("id")
    if given is not None and not (isinstance(given, str) and _DEPLOYED_ID.fullmatch(given)):
        raise invalid("deployed_model.id", f"{given!r} must be 1 to 10 digits.")


@DEPLOY_RULES.rule(
    f"{DISCOVERY} (DedicatedResources.machineSpec: Required; minReplicaCount: Required, "
    '"must be greater than or equal to 1")'
)
def dedicated_replicas(new: NewDeployment) -> None:
    if not new.resources:
        return  # automaticResources: not what Flex-start uses
    if not new.machine.get("machineType"):
        raise invalid(
            "deployed_model.dedicated_resources.machine_spec.machine_type", "is required."
        )
    low = _count(new.resources.get("minReplicaCount"))
    if low is None or low < 1:
        raise invalid(
            "deployed_model.dedicated_resources.min_replica_count",
            f"{new.resources.get('minReplicaCount')!r} must be greater than or equal to 1.",
        )
    given = new.resources.get("maxReplicaCount")
    high = _count(given)
    if given is not None and (high is None or high < low):
        raise invalid(
            "deployed_model.dedicated_resources.max_replica_count",
            f"{given!r} must be at least min_replica_count ({low}).",
        )


@DEPLOY_RULES.rule(
    f'{FLEX_INFERENCE} ("Flex-start VMs have a maximum usage duration of seven days. Any '
    'deployment request for a longer duration will be rejected.")'
)
def flex_start_runs_at_most_seven_days(new: NewDeployment) -> None:
    flex = new.flex_start
    if flex is None:
        return
    runtime = flex.get("maxRuntimeDuration")
    if runtime is None:
        raise invalid(
            "deployed_model.dedicated_resources.flex_start.max_runtime_duration", "is required."
        )
    most = limits.get("vertex_deployment.max_runtime_duration").maximum or FLEX_START_MAX
    if seconds(runtime, 0) > most:
        raise invalid(
            "deployed_model.dedicated_resources.flex_start.max_runtime_duration",
            f"{runtime!r} is longer than {most}s.",
        )


@DEPLOY_RULES.rule(f'{FLEX_INFERENCE} ("Using Flex-start VMs with TPU Pods isn\'t supported")')
def flex_start_no_tpu_pods(new: NewDeployment) -> None:
    if new.flex_start is not None and new.machine.get("tpuTopology"):
        raise invalid(
            "deployed_model.dedicated_resources.machine_spec.tpu_topology",
            "Flex-start deployments can't use TPU Pods.",
        )


@DEPLOY_RULES.rule(
    f'{DISCOVERY} (MachineSpec.acceleratorCount: "One may set the accelerator_count from 1 to N '
    "for machine with N GPUs. If accelerator_count is less than or equal to N / 2, ... "
    'co-schedules the replicas of the model into the same VM")'
)
def accelerators_of_the_machine(new: NewDeployment) -> None:
    whole, count = new.machine_gpus, _count(new.machine.get("acceleratorCount"))
    if whole and count is not None and not 1 <= count <= whole:
        raise invalid(
            "deployed_model.dedicated_resources.machine_spec.accelerator_count",
            f"{count} is not 1 to {whole}, the GPUs of {new.machine.get('machineType')}.",
        )
