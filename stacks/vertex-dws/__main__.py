"""Vertex AI on Dynamic Workload Scheduler: a custom training job that waits for its GPUs
(``scheduling.strategy: FLEX_START``: every replica provisioned at once) and a model deployed on
an endpoint from Flex-start VMs for a bounded time (Preview).

Config (``Pulumi.<stack>.yaml``, namespace ``vertex-dws``): ``region``, ``trainingImage``,
``trainingMachineType``, ``workers`` (replicas of the worker pool beside the chief),
``maxWait`` (how long the job may queue), ``maxRunDuration`` (its run limit, at most 7 days),
``model`` (a model uploaded to the Vertex AI Model Registry), ``servingMachineType``,
``servingRuntime`` (how long it serves, at most 7 days), ``team`` (a cost label).
"""

import pulumi
import pulumi_gcp as gcp

from pulumi_dws import FlexStartDeployment, VertexTrainingJob

config = pulumi.Config()
region = config.get("region") or "us-central1"
team = config.get("team") or "research"

training = VertexTrainingJob(
    "finetune",
    {
        "region": region,
        "machine_type": config.get("trainingMachineType") or "a3-highgpu-8g",
        "image": config.require("trainingImage"),
        "args": ["--epochs=3"],
        "worker_pools": [
            {"replica_count": 1},  # the chief
            {"replica_count": config.get_int("workers") or 2},
        ],
        "max_wait": config.get("maxWait") or "6h",
        "max_run_duration": config.get("maxRunDuration") or "2d",
        "labels": {"team": team},
    },
)

endpoint = gcp.vertex.AiEndpoint(
    "serving",
    name="4711",
    location=region,
    region=region,
    display_name="serving",
    labels={"team": team},
)

serving = FlexStartDeployment(
    "llm",
    {
        "endpoint": endpoint,
        "model": config.require("model"),
        "machine_type": config.get("servingMachineType") or "g2-standard-24",
        "min_replicas": 1,
        "max_replicas": 2,
        "max_runtime_duration": config.get("servingRuntime") or "3d",
    },
)

pulumi.export("trainingJob", training.job_name)
pulumi.export("trainingState", training.state)
pulumi.export("trainingGpus", training.gpus)
pulumi.export("endpoint", endpoint.name)
pulumi.export("deployedModel", serving.deployed_model_name)
pulumi.export("servingState", serving.state)
