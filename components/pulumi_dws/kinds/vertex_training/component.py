"""``VertexTrainingJob``: a Vertex AI custom training job that waits for Flex-start capacity
(Dynamic Workload Scheduler: ``scheduling.strategy: FLEX_START``).

    job = VertexTrainingJob("finetune", {
        "region": "us-central1",
        "machine_type": "a3-highgpu-8g",           # 8 H100s per replica
        "image": "us-docker.pkg.dev/my-project/train/llm:1",
        "args": ["--epochs=3"],
        "worker_pools": [{"replica_count": 1}, {"replica_count": 3}],   # 4 VMs, 32 GPUs
        "max_wait": "6h",                          # wait up to 6 h in the queue (0: forever)
        "max_run_duration": "2d",                  # Vertex AI stops it after 2 days
    })

pulumi-gcp has no custom job: the child is a dynamic resource, ``<name>-job``
(:class:`~pulumi_dws.kinds.vertex_training.provider.VertexCustomJobResource`), whose ``body`` is
field for field what ``gcloud ai custom-jobs create --config`` sends for the same job (gcloud
528 has no scheduling flags: the strategy, the queue window and the run limit go in the
config's ``scheduling``, as Google's page says).

What Google requires of a Flex-start training job
(https://cloud.google.com/vertex-ai/docs/training/schedule-jobs-dws), checked before anything
is registered: L4, A100, H100, H200 or B200 GPUs; a run limit (``timeout``) of 7 days or less;
the same machine configuration in every worker pool (one ``machine_type`` serves them all here).
``max_wait``: Google's default 1 day when left out; ``0`` waits indefinitely. The first worker
pool is the primary replica (one replica); later pools take 1 or more.

``wait_for``: ``running`` (default: the deployment waits until the job has its capacity and
runs), ``queued`` (it returns once the job exists) or ``succeeded`` (until the job finished).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Annotated, Any, Literal

import pulumi
from pydantic import model_validator

from ... import limits
from ...defaults import resolve_project, type_token
from ...duration import Duration
from ...errors import DwsValidationError
from ...fields import (
    Check,
    DurationWithin,
    Known,
    Labels,
    MaybeOutput,
    ProjectId,
    ServiceAccount,
    Takes,
    Within,
)
from ...models import DwsModel, parse_args
from ...providers.ownership import OWNER_INPUT, owner_input
from ...queue_wait import OnTimeout, WaitTimeout, wait_policy
from ...validation import is_output
from . import limits as _rows  # noqa: F401 (registers this kind's limit rows)
from .args import VertexTrainingJobArgs, VertexWorkerPoolArgs
from .provider import VertexCustomJobResource
from .vertex import DWS_TRAINING_GPUS, VertexMachine, check_region, vertex_machine

__all__ = [
    "TYPE",
    "VertexTrainingJob",
    "VertexTrainingJobArgs",
    "VertexTrainingJobSpec",
    "VertexWorkerPoolArgs",
    "custom_job_body",
]

TYPE = type_token("VertexTrainingJob")
_SHAPE = "it decides the job's GPUs"


def _display_name(field: str, value: Any) -> str:
    if not isinstance(value, str) or not value or len(value) > 128:
        raise DwsValidationError(field, value, "must be 1 to 128 characters (a CustomJob name)")
    return value


def _image(field: str, value: Any) -> str:
    if not isinstance(value, str) or not value or any(c.isspace() for c in value):
        raise DwsValidationError(
            field, value, "is not a container image URI (REGISTRY/PROJECT/IMAGE:TAG)"
        )
    return value


def _network(field: str, value: Any) -> str:
    parts = value.split("/") if isinstance(value, str) else []
    if len(parts) != 5 or parts[0] != "projects" or parts[2:4] != ["global", "networks"]:
        raise DwsValidationError(
            field,
            value,
            "is not projects/PROJECT_NUMBER/global/networks/NAME (the form Vertex AI peers with)",
        )
    if not parts[1].isdigit():
        raise DwsValidationError(
            field,
            value,
            f"names its project by id ({parts[1]}): Vertex AI peers with "
            f"projects/PROJECT_NUMBER/global/networks/{parts[4]}, the project number "
            "(CustomJobSpec.network, aiplatform v1beta1 discovery document)",
        )
    return str(value)


_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_ENV_VAR = (
    "aiplatform v1beta1 discovery document, EnvVar (name: a valid C identifier; value: a string)"
)


def _env(field: str, value: Any) -> Any:
    """Names that are C identifiers, values that are strings (or Outputs of them): a number
    is refused by Vertex AI (``EnvVar.value`` is a string)."""
    if not isinstance(value, Mapping):
        return value  # the type check says what is wrong
    for name, item in value.items():
        where = f"{field}[{name}]"
        if not isinstance(name, str) or not _ENV_NAME.fullmatch(name):
            raise DwsValidationError(
                where, name, f"is not a C identifier (letters, digits, _; {_ENV_VAR})"
            )
        if not isinstance(item, str) and not is_output(item):
            raise DwsValidationError(
                where, item, f'must be a string (quote it: "{item}"; {_ENV_VAR})'
            )
    return value


def _output_dir(field: str, value: Any) -> str:
    if not isinstance(value, str) or not value.startswith("gs://") or len(value) <= 5:
        raise DwsValidationError(field, value, "is not a Cloud Storage prefix (gs://BUCKET/PATH)")
    return value


class _VertexWorkerPoolSpec(DwsModel):
    """One worker pool: its replicas, and what they run when it differs from the job's."""

    replica_count: Annotated[
        int, Within("vertex_training.replica_count"), Known("it decides the job's GPUs")
    ] = 1
    """Replicas of this pool (default 1; the first pool, the primary replica, has exactly 1)."""
    image: MaybeOutput[Annotated[str, Check(_image)]] | None = None
    """Container image of this pool (default: the job's ``image``)."""
    args: list[str] | None = None
    """Container arguments of this pool (default: the job's ``args``)."""
    command: list[str] | None = None
    """Container command of this pool (default: the job's ``command``)."""


class VertexTrainingJobSpec(DwsModel):
    """Arguments of :class:`VertexTrainingJob`."""

    # The one declaration of each field: the args TypedDict is generated from it (python
    # scripts/generate.py). Also the shape of this kind's dws:capacity entries.

    region: MaybeOutput[Annotated[str, Check(check_region)]]
    """The Vertex AI region (its regional endpoint), e.g. ``us-central1``."""
    machine_type: Annotated[str, Known(_SHAPE)]
    """A GPU machine type with L4, A100, H100, H200 or B200 GPUs (``a3-highgpu-8g``), shared by
    every worker pool."""
    image: MaybeOutput[Annotated[str, Check(_image)]]
    """The training container image (``us-docker.pkg.dev/PROJECT/REPO/IMAGE:TAG``)."""
    accelerator_type: Annotated[str | None, Known(_SHAPE)] = None
    """``NVIDIA_H100_80GB`` or ``nvidia-h100-80gb``; default: the machine type's GPU."""
    accelerator_count: Annotated[int | None, Known(_SHAPE)] = None
    """GPUs per replica; default: the machine type's (a different count is refused)."""
    args: list[str] | None = None
    """Container arguments."""
    command: list[str] | None = None
    """Container command (overrides the image's entrypoint)."""
    env: MaybeOutput[
        Annotated[dict[str, Any], Check(_env), Takes(Mapping[str, str | pulumi.Output[str]])]
    ] = {}
    """Environment variables of the containers."""
    worker_pools: Annotated[list[_VertexWorkerPoolSpec], Known("they decide the job's GPUs")] = [
        _VertexWorkerPoolSpec()
    ]
    """1 to 4 worker pools (default: one pool of one replica)."""
    max_wait: (
        Annotated[
            Duration,
            DurationWithin("vertex_training.max_wait"),
            Known("it is written into the request and checked against its limits"),
        ]
        | None
    ) = None
    """How long the job waits in the queue for capacity (``scheduling.maxWaitDuration``);
    default: Google's, 1 day; ``0`` waits indefinitely (the deployment then waits as long as
    the provider's timeout, 2 hours by default, and leaves the job queued)."""
    max_run_duration: (
        Annotated[
            Duration,
            DurationWithin("vertex_training.max_run_duration"),
            Known("it is written into the request and checked against its limits"),
        ]
        | None
    ) = None
    """How long the job may run once it has its capacity (``scheduling.timeout``, at most 7
    days); default: Google's, 7 days."""
    wait_for: Literal["queued", "running", "succeeded"] = "running"
    """``running`` (default), ``queued`` or ``succeeded``: when the deployment is done."""
    wait_timeout: WaitTimeout | None = None
    """How long the deployment waits for ``wait_for`` (default: the queue window, ``max_wait``,
    plus an hour; with ``succeeded``, the run limit too); see ``on_timeout``."""
    on_timeout: OnTimeout | None = None
    """When ``wait_timeout`` passes with the job still queued: ``keep`` (default: the
    deployment succeeds with the job ``JOB_STATE_QUEUED``, warns, and ``pulumi refresh``
    follows it; its own queue window still ends it) or ``cancel`` (the job is cancelled and
    deleted)."""
    display_name: Annotated[str, Check(_display_name)] | None = None
    """The job's display name (default: the component's name)."""
    project: MaybeOutput[ProjectId] | None = None
    """Project (default: the ``gcp:project`` stack config)."""
    service_account: MaybeOutput[ServiceAccount] | None = None
    """The service account the job runs as (default: Vertex AI's Custom Code Service Agent)."""
    network: MaybeOutput[Annotated[str, Check(_network)]] | None = None
    """A VPC network to peer with: ``projects/PROJECT_NUMBER/global/networks/NAME``."""
    base_output_directory: MaybeOutput[Annotated[str, Check(_output_dir)]] | None = None
    """A ``gs://`` prefix for the job's outputs."""
    labels: MaybeOutput[Labels] = {}
    """Google Cloud labels on the job (a GPU job needs the policy pack's required labels)."""

    @model_validator(mode="wrap")
    @classmethod
    def _whole(cls, data: Any, handler: Any) -> VertexTrainingJobSpec:
        spec: VertexTrainingJobSpec = handler(data)
        spec.machine  # noqa: B018 - checks the machine, its GPUs and the door
        pools = spec.worker_pools
        limits.get("vertex_training.worker_pools").check(
            "worker_pools", len(pools), shown=f"{len(pools)} worker pools"
        )
        if pools[0].replica_count != 1:
            raise DwsValidationError(
                "worker_pools[0].replica_count",
                pools[0].replica_count,
                "must be 1: the first worker pool is the primary replica (Vertex AI "
                "distributed training); put the other workers in worker_pools[1]",
            )
        if spec.service_account == "default":
            raise DwsValidationError(
                "service_account",
                "default",
                "give a service account email; leave it out for Vertex AI's own agent",
            )
        return spec

    @property
    def machine(self) -> VertexMachine:
        """The machine spec every worker pool shares."""
        return vertex_machine(
            self.machine_type,
            self.accelerator_type,
            self.accelerator_count,
            allowed=DWS_TRAINING_GPUS,
            door="Vertex AI Flex-start training",
        )

    @property
    def gpus(self) -> int:
        """GPUs the job asks for: every replica of every pool."""
        per_replica = self.machine.accelerator_count
        return per_replica * sum(pool.replica_count for pool in self.worker_pools)


def _container(spec: VertexTrainingJobSpec, pool: _VertexWorkerPoolSpec) -> dict[str, Any]:
    container: dict[str, Any] = {}
    args = pool.args if pool.args is not None else spec.args
    command = pool.command if pool.command is not None else spec.command
    if args:
        container["args"] = list(args)
    if command:
        container["command"] = list(command)
    if spec.env:
        env = spec.env
        container["env"] = (
            env.apply(lambda e: [{"name": k, "value": v} for k, v in e.items()])
            if isinstance(env, pulumi.Output)
            else [{"name": k, "value": v} for k, v in env.items()]
        )
    container["imageUri"] = pool.image if pool.image is not None else spec.image
    return container


def custom_job_body(spec: VertexTrainingJobSpec, display_name: str) -> dict[str, Any]:
    """The ``CustomJob`` JSON of ``spec``: field for field what ``gcloud ai custom-jobs create
    --display-name=... --config=...`` (with ``scheduling`` in the config) sends, int64 replica
    counts as strings as gcloud writes them."""
    machine = spec.machine.spec()
    scheduling: dict[str, Any] = {"strategy": "FLEX_START"}
    if spec.max_wait is not None:
        scheduling["maxWaitDuration"] = spec.max_wait.to_proto_string()
    if spec.max_run_duration is not None:
        scheduling["timeout"] = spec.max_run_duration.to_proto_string()
    job_spec: dict[str, Any] = {}
    if spec.base_output_directory is not None:
        job_spec["baseOutputDirectory"] = {"outputUriPrefix": spec.base_output_directory}
    if spec.network is not None:
        job_spec["network"] = spec.network
    job_spec["scheduling"] = dict(sorted(scheduling.items()))
    if spec.service_account is not None:
        job_spec["serviceAccount"] = spec.service_account
    job_spec["workerPoolSpecs"] = [
        {
            "containerSpec": _container(spec, pool),
            "machineSpec": dict(machine),
            "replicaCount": str(pool.replica_count),
        }
        for pool in spec.worker_pools
    ]
    body: dict[str, Any] = {"displayName": display_name, "jobSpec": job_spec}
    if spec.labels:
        body["labels"] = spec.labels if is_output(spec.labels) else dict(spec.labels)
    return body


class VertexTrainingJob(pulumi.ComponentResource):
    """A Vertex AI custom job on Flex-start (see the module docstring).

    Child: ``job`` (:class:`~pulumi_dws.kinds.vertex_training.provider.VertexCustomJobResource`);
    ``spec`` is the validated args.
    """

    state: pulumi.Output[str]
    """The job's state: ``JOB_STATE_QUEUED``, ``JOB_STATE_RUNNING``, ``JOB_STATE_SUCCEEDED``..."""
    job_name: pulumi.Output[str]
    """``projects/PROJECT/locations/REGION/customJobs/ID``."""
    gpus: pulumi.Output[int]
    """GPUs the job asks for: every replica of every worker pool."""

    def __init__(
        self,
        name: str,
        args: VertexTrainingJobArgs,
        opts: pulumi.ResourceOptions | None = None,
    ) -> None:
        spec = parse_args(VertexTrainingJobSpec, args)
        super().__init__(TYPE, name, {}, opts)
        project = resolve_project(spec.project, self)
        self.spec = spec
        child = f"{name}-job"
        self.job = VertexCustomJobResource(
            child,
            {
                "project": project,
                "region": spec.region,
                OWNER_INPUT: owner_input(child),
                "body": custom_job_body(spec, spec.display_name or name),
                "waitFor": spec.wait_for,
                **wait_policy(spec.wait_timeout, spec.on_timeout),
            },
            pulumi.ResourceOptions(parent=self),
        )
        self.state = self.job.state
        self.job_name = self.job.name
        self.gpus = pulumi.Output.from_input(spec.gpus)
        self.register_outputs({"region": spec.region, "gpus": self.gpus})
