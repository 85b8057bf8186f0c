"""Test aids of models deployed on Flex-start (:mod:`pulumi_dws.kinds.vertex_deployment.kind`):
how a ``FlexStartDeployedModel`` behaves under :class:`~pulumi_dws.testing.GcpMocks`, its
policy samples, what each asks for, and violating examples."""

from __future__ import annotations

import zlib
from typing import TYPE_CHECKING, Any

from ...testing.emulator.aiplatform import AiPlatformService
from ...testing.fault_proxy import ProxyFaultPlan
from ...testing.fault_run import (
    POLL,
    STACK_A,
    STACK_B,
    FaultRunReport,
    Interrupter,
    KindFaultRun,
    OtherStack,
    create_then_delete,
    interruption,
    owned,
    run_cycles,
    two_stack_cycle,
)
from ...testing.samples import Capacity, Example, Sample
from .provider import TYPE_TOKEN as DEPLOYED_MODEL
from .provider import FlexStartDeployedModelProvider, FlexStartDeploymentError

if TYPE_CHECKING:
    from ...testing.mocks import GcpMocks

__all__ = [
    "CAPACITY",
    "COMPONENT_ARGS",
    "EXAMPLES",
    "FAULT_RUN",
    "PACKAGE_CASE",
    "SAMPLES",
    "deployed_model",
]


def deployed_model(mocks: GcpMocks, typ: str, name: str, s: dict[str, Any]) -> str:
    """Like the provider after a create: ``DEPLOYED`` (``DEPLOYING`` with ``waitFor:
    queued``); the id is ``projects/<p>/locations/<r>/endpoints/<e>/deployedModels/<id>``."""
    project = s.get("project") or mocks.project
    region = s.get("region") or mocks.region
    model_id = str(1_000_000_000 + zlib.crc32(name.encode()) % 9_000_000_000)
    deployed = (
        f"projects/{project}/locations/{region}/endpoints/{s.get('endpoint')}/deployedModels/"
        f"{model_id}"
    )
    s["name"] = deployed
    s["state"] = mocks.lifecycle("DEPLOYING" if s.get("waitFor") == "queued" else "DEPLOYED")
    s["observed"] = {"createTime": None, "availableReplicaCount": None, "trafficPercentage": None}
    return deployed


# ---------------------------------------------------------------------- policy samples
def deployed_model_props() -> dict[str, Any]:
    """A model on g2-standard-24 (2 L4s per replica), 1 to 2 replicas for 3 days, as
    ``FlexStartDeployment`` passes it to its provider."""
    return {
        "project": "my-project",
        "region": "us-central1",
        "endpoint": "1234567",
        "owner": "llm-deployment",
        "waitFor": "deployed",
        "body": {
            "deployedModel": {
                "dedicatedResources": {
                    "flexStart": {"maxRuntimeDuration": "259200s"},
                    "machineSpec": {
                        "acceleratorCount": 2,
                        "acceleratorType": "NVIDIA_L4",
                        "machineType": "g2-standard-24",
                    },
                    "maxReplicaCount": 2,
                    "minReplicaCount": 1,
                },
                "displayName": "llm",
                "model": "projects/my-project/locations/us-central1/models/987",
            }
        },
    }


SAMPLES: dict[str, Sample] = {"deployed_model": (DEPLOYED_MODEL, deployed_model_props)}

CAPACITY: dict[str, Capacity] = {
    # up to 2 replicas x 2 L4s for 3 days
    "deployed_model": Capacity("nvidia-l4", gpus=4, gpu_hours=4 * 72),
}
"""What each sample asks for (see :func:`pulumi_dws.testing.samples.totals`)."""

COMPONENT_ARGS: dict[str, Any] = {
    "endpoint": "projects/my-project/locations/us-central1/endpoints/1234567",
    "model": "projects/my-project/locations/us-central1/models/987",
    "machine_type": "g2-standard-24",
    "min_replicas": 1,
    "max_replicas": 2,
    "max_runtime_duration": "3d",
}
"""The component's arguments as a program writes them (the component package's samples)."""

PACKAGE_CASE: dict[str, Any] = {  # a run beyond Flex-start's 7 days
    "bad": {"max_runtime_duration": "8d"},
    "path": "maxRuntimeDuration",
}
"""The refused input of the component package's tests."""

_RUNTIME = "body.deployedModel.dedicatedResources.flexStart.maxRuntimeDuration"

EXAMPLES: tuple[Example, ...] = (
    Example(
        "flex-start-max-run-duration",
        "deployed_model",
        ((_RUNTIME, "691200s"),),
        f"{_RUNTIME}: 8d (691200s) is above",
        unknown=_RUNTIME,
    ),
    Example(
        "flex-start-max-run-duration",
        "deployed_model",
        ((_RUNTIME, "345600s"),),
        "policy cap of 3d",
        config={"maxRunDuration": "3d"},
    ),
)
"""One per rule a deployment can break (the GPU budget, ``gpu-budget``, is a stack rule)."""


# ---------------------------------------------------------------------- fault run
ENDPOINT_ID = "1234567"


def deployed_model_fault_run(
    emu: Any,
    proxy: Any,
    *,
    cycles: int = 200,
    rate: float = 0.25,
    seed: int = 1,
    names: int = 4,
    deadline: float = 0.1,
    held_weight: float = 0.05,
) -> FaultRunReport:
    """``cycles`` create/delete cycles of ``FlexStartDeployedModel`` (2 L4 replicas at most, 1
    at least) on one endpoint through ``proxy`` (see :mod:`pulumi_dws.testing.fault_run`):
    ``deployModel`` takes no request id, so every lost create is settled by reading the
    endpoint. Every fourth deployment queues for capacity, every seventh fails once provisioned,
    every tenth finds none before its run would end; every third returns once queued. An orphan
    is a deployed model no successful create returned; a duplicate, a second deployment started
    by one create."""
    svc = emu["aiplatform"]
    svc.add_endpoint("my-project", "us-central1", ENDPOINT_ID)
    report = FaultRunReport("FlexStartDeployedModel")
    interrupter = Interrupter(emu, seed)
    provider = FlexStartDeployedModelProvider(sleep=interrupter, poll=POLL)
    region, machine = "us-central1", "g2-standard-24"
    other = OtherStack(
        emu, report, provider, FlexStartDeploymentError, lambda: len(svc.deployments_started)
    )

    def cycle(i: int) -> None:
        props = deployed_model_props()
        props["waitFor"] = "queued" if i % 3 == 2 else "deployed"
        svc.take_all_capacity(region, machine)
        if i % 10 != 9:
            svc.add_capacity(region, machine, 1, after=1800 if i % 4 == 1 else 0)
        if i % 7 == 6:
            svc.fail_next_deployment()
        before = other.start()
        name = f"deployment-{i % names}"
        tracked = create_then_delete(
            report,
            provider,
            owned(props, STACK_A, name),
            FlexStartDeploymentError,
            lambda r: r.id.rsplit("/", 1)[-1],
            interrupter=interrupter,
            interrupt=interruption(i),
            meanwhile=other.meanwhile(owned(props, STACK_B, name)) if two_stack_cycle(i) else None,
        )
        svc.endpoints.fail_next.clear()
        other.duplicates(before)
        emu.clock.advance(3600)  # let any undeploy in flight finish
        for endpoint, model_id in svc.deployments():
            if model_id not in tracked:
                report.orphans += 1
            svc.remove_deployment(endpoint, model_id)

    plan = ProxyFaultPlan(rate=rate, seed=seed, held_weight=held_weight)
    return run_cycles(report, proxy, plan, "DWS_AIPLATFORM_ENDPOINT", deadline, cycles, cycle)


def _services(clock: Any) -> list[Any]:
    return [AiPlatformService(clock)]


FAULT_RUN = KindFaultRun("FlexStartDeployedModel", _services, deployed_model_fault_run)
"""This kind's fault run (``benchmarks/fault_run.py``, ``tests/test_kind_fault_runs.py``)."""
