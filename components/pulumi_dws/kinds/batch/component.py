"""``BatchFlexJob``: a Cloud Batch job whose VMs are Flex-start VMs (Dynamic Workload
Scheduler: ``provisioningModel: FLEX_START``, Batch ``v1``).

    BatchFlexJob("render", {
        "region": "us-central1",
        "machine_type": "a3-highgpu-8g",          # 8 H100s per VM, one task per VM
        "image": "us-docker.pkg.dev/my-project/jobs/render:1",
        "commands": ["python", "render.py"],
        "task_count": 8, "parallelism": 2,         # 2 VMs at a time, 4 waves
        "max_run_duration": "6h",                  # each task runs at most 6 hours
    })

pulumi-gcp has no Batch job: the child is a dynamic resource, ``<name>-job``
(:class:`~pulumi_dws.kinds.batch.provider.BatchJobResource`); its ``body`` is field for field
what ``gcloud batch jobs submit JOB --location=REGION --config=job.json`` sends for the same
job (int64 counts as strings, as gcloud writes them).

What Google says of Flex-start in Batch: the Batch release notes (2026-03-20,
https://docs.cloud.google.com/batch/docs/release-notes) announce Flex-start VMs generally
available for Batch jobs, and the ``v1`` discovery document's ``provisioningModel`` has
``FLEX_START`` ("Instance is provisioned with DWS Flex Start and has limited max run
duration"). The limits below are Compute Engine's for Flex-start VMs
(https://cloud.google.com/compute/docs/instances/about-flex-start-vms): accelerator-optimized
machine types but A4X and G4, runs up to 7 days; each task must say how long it may run
(``max_run_duration``, 10 minutes to 7 days) so the GPU-hours are bounded.

Each task runs on a VM of its own (``taskCountPerNode: 1``); ``parallelism`` (default
``task_count``) VMs are asked for at once. The VMs get no external IP unless ``public_ip``
(give the subnet Cloud NAT or Private Google Access to pull images); GPU drivers are installed
(``installGpuDrivers``). ``wait_for``: ``running`` (default), ``queued`` or ``succeeded``.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import pulumi
from pydantic import model_validator

from ... import catalog
from ...defaults import resolve_project, stack_default_name, type_token
from ...duration import Duration
from ...errors import DwsValidationError
from ...fields import (
    Check,
    DurationWithin,
    Known,
    Labels,
    MaybeOutput,
    Network,
    ProjectId,
    ServiceAccount,
    Subnetwork,
    Within,
)
from ...models import DwsModel, parse_args
from ...providers.ownership import OWNER_INPUT, owner_input
from ...queue_wait import OnTimeout, WaitTimeout, wait_policy
from ...validation import check_name, check_zone, is_output
from . import limits as _rows  # noqa: F401 (registers this kind's limit rows)
from .args import BatchFlexJobArgs
from .locations import check_region
from .provider import BatchJobResource

__all__ = ["TYPE", "BatchFlexJob", "BatchFlexJobArgs", "BatchFlexJobSpec", "batch_job_body"]

TYPE = type_token("BatchFlexJob")
FLEX_START_VMS = "https://cloud.google.com/compute/docs/instances/about-flex-start-vms"
_NOT_FLEX_START = ("a4x-", "g4-")
_COUNTS = "they decide the job's GPUs"


def _image(field: str, value: Any) -> str:
    if not isinstance(value, str) or not value or any(c.isspace() for c in value):
        raise DwsValidationError(
            field, value, "is not a container image URI (REGISTRY/PROJECT/IMAGE:TAG)"
        )
    return value


def _machine(field: str, value: Any) -> str:
    if not isinstance(value, str):
        raise DwsValidationError(field, value, "must be a plain string (it decides the GPUs)")
    catalog.machine_shape(field, value)
    if value.startswith(_NOT_FLEX_START):
        raise DwsValidationError(
            field,
            value,
            "is not offered as a Flex-start VM (Flex-start takes accelerator-optimized machine "
            f"types except A4X and G4: {FLEX_START_VMS}); use e.g. a3-highgpu-8g or "
            "a4-highgpu-8g",
        )
    return value


class BatchFlexJobSpec(DwsModel):
    """Arguments of :class:`BatchFlexJob`."""

    # The one declaration of each field: the args TypedDict is generated from it (python
    # scripts/generate.py). Also the shape of this kind's dws:capacity entries.

    region: Annotated[str, Check(check_region), Known("it is checked against every zone")]
    """The job's location, a region Batch serves (``us-central1``)."""
    machine_type: Annotated[str, Check(_machine), Known(_COUNTS)]
    """An accelerator-optimized GPU machine type (not A4X or G4), e.g. ``a3-highgpu-8g``."""
    max_run_duration: Annotated[
        Duration,
        DurationWithin("batch.max_run_duration"),
        Known("it is written into the request and checked against its limits"),
    ]
    """How long each task may run (10 minutes to 7 days): the VMs' Flex-start run."""
    image: MaybeOutput[Annotated[str, Check(_image)]] | None = None
    """A container image the tasks run (or ``script``)."""
    commands: (
        Annotated[list[str], Known("it is written into the task", outputs_in_items=True)] | None
    ) = None
    """The container's command (appended to its entrypoint)."""
    script: MaybeOutput[str] | None = None
    """A script the tasks run instead of a container."""
    accelerator_type: Annotated[str | None, Known("it is checked against the machine type")] = None
    """``nvidia-h100-80gb`` or ``NVIDIA_H100_80GB``; checked against the machine type."""
    accelerator_count: Annotated[int | None, Known("it is checked against the machine type")] = None
    """GPUs per VM; checked against the machine type."""
    task_count: Annotated[int, Within("batch.task_count"), Known(_COUNTS)] = 1
    """Tasks of the job (default 1)."""
    parallelism: Annotated[int, Within("batch.parallelism"), Known(_COUNTS)] | None = None
    """Tasks (and so VMs) at once (default ``task_count``)."""
    zones: Annotated[list[str] | None, Known("they are checked against the region")] = None
    """Zones of the region the VMs may use (default: any zone of the region)."""
    wait_for: Literal["queued", "running", "succeeded"] = "running"
    """``running`` (default), ``queued`` or ``succeeded``: when the deployment is done."""
    wait_timeout: WaitTimeout | None = None
    """How long the deployment waits for ``wait_for`` (default 2 hours; with ``succeeded``,
    the tasks' run limit too); see ``on_timeout``."""
    on_timeout: OnTimeout | None = None
    """When ``wait_timeout`` passes with the job still ``QUEUED`` or ``SCHEDULED``: ``keep``
    (default: the deployment succeeds with the job's true state, warns, and ``pulumi refresh``
    follows it; Batch keeps it queued until its VMs are found) or ``cancel`` (the job is
    deleted)."""
    job_id: Annotated[str, Check(check_name)] | None = None
    """The job's id (default: the component's name)."""
    project: MaybeOutput[ProjectId] | None = None
    """Project (default: the ``gcp:project`` stack config)."""
    service_account: MaybeOutput[ServiceAccount] | None = None
    """The VMs' service account email (default: the Compute Engine default one)."""
    network: MaybeOutput[Network] = "default"
    """VPC network (default ``default``)."""
    subnetwork: MaybeOutput[Subnetwork] | None = None
    """Subnetwork of the VMs (a name or ``projects/P/regions/R/subnetworks/NAME``)."""
    public_ip: bool = False
    """Give each VM an external IP (default False)."""
    labels: MaybeOutput[Labels] = {}
    """Google Cloud labels on the job and on its VMs (a GPU job needs the policy pack's
    required labels)."""

    @model_validator(mode="wrap")
    @classmethod
    def _whole(cls, data: Any, handler: Any) -> BatchFlexJobSpec:
        spec: BatchFlexJobSpec = handler(data)
        catalog.check_attached(spec.machine_type, spec.accelerator_type, spec.accelerator_count)
        if (spec.image is None) == (spec.script is None):
            raise DwsValidationError(
                "image",
                spec.image,
                "give image (a container) or script (a script), one of them",
            )
        if spec.commands is not None and spec.image is None:
            raise DwsValidationError("commands", spec.commands, "only applies with image")
        if spec.parallelism is not None and spec.parallelism > spec.task_count:
            raise DwsValidationError(
                "parallelism",
                spec.parallelism,
                f"is above task_count ({spec.task_count}): at most that many tasks run at once",
            )
        for i, zone in enumerate(spec.zones or []):
            check_zone(f"zones[{i}]", zone)
            if zone.rsplit("-", 1)[0] != spec.region:
                raise DwsValidationError(
                    f"zones[{i}]", zone, f"is not in the job's region {spec.region}"
                )
        if spec.labels and not is_output(spec.labels):
            for key in spec.labels:
                if key.startswith(("goog-", "google-")):
                    raise DwsValidationError(
                        f"labels[{key}]", key, "goog- and google- labels are Batch's own"
                    )
        return spec

    @property
    def vms(self) -> int:
        """VMs the job asks for at once: one per task it runs at once."""
        return self.parallelism or self.task_count

    @property
    def gpus(self) -> int:
        """GPUs the job holds at once."""
        return catalog.machine_shape("machine_type", self.machine_type).gpus * self.vms


def _runnable(spec: BatchFlexJobSpec) -> dict[str, Any]:
    if spec.image is None:
        return {"script": {"text": spec.script}}
    container: dict[str, Any] = {}
    if spec.commands:
        container["commands"] = list(spec.commands)
    container["imageUri"] = spec.image
    return {"container": container}


def batch_job_body(spec: BatchFlexJobSpec) -> dict[str, Any]:
    """The ``Job`` JSON of ``spec``: field for field what ``gcloud batch jobs submit
    --config`` sends (keys as gcloud orders them, int64 counts as strings)."""
    network = spec.network if spec.network is not None else "default"
    interface: dict[str, Any] = {
        "network": network
        if is_output(network) or "/" in str(network)
        else f"global/networks/{network}",
        "noExternalIpAddress": not spec.public_ip,
    }
    if spec.subnetwork is not None:
        interface["subnetwork"] = spec.subnetwork
    allocation: dict[str, Any] = {
        "instances": [
            {
                "installGpuDrivers": True,
                "policy": {"machineType": spec.machine_type, "provisioningModel": "FLEX_START"},
            }
        ],
    }
    labels = (spec.labels if is_output(spec.labels) else dict(spec.labels)) if spec.labels else None
    if labels is not None:  # on the VMs (Job.labels label the job and its logs only)
        allocation["labels"] = labels
    if spec.zones:
        allocation["location"] = {"allowedLocations": [f"zones/{z}" for z in spec.zones]}
    allocation["network"] = {"networkInterfaces": [interface]}
    if spec.service_account is not None:
        allocation["serviceAccount"] = {"email": spec.service_account}
    body: dict[str, Any] = {"allocationPolicy": allocation}
    if labels is not None:
        body["labels"] = labels
    body["logsPolicy"] = {"destination": "CLOUD_LOGGING"}
    body["taskGroups"] = [
        {
            "parallelism": str(spec.vms),
            "taskCount": str(spec.task_count),
            "taskCountPerNode": "1",
            "taskSpec": {
                "maxRunDuration": spec.max_run_duration.to_proto_string(),
                "runnables": [_runnable(spec)],
            },
        }
    ]
    return body


class BatchFlexJob(pulumi.ComponentResource):
    """A Cloud Batch job on Flex-start VMs (see the module docstring).

    Child: ``job`` (:class:`~pulumi_dws.kinds.batch.provider.BatchJobResource`); ``spec`` is the
    validated args.
    """

    state: pulumi.Output[str]
    """``QUEUED``, ``SCHEDULED``, ``RUNNING``, ``SUCCEEDED``, ``FAILED``..."""
    job_name: pulumi.Output[str]
    """``projects/PROJECT/locations/REGION/jobs/ID``."""
    gpus: pulumi.Output[int]
    """GPUs the job holds at once: GPUs per VM times ``parallelism``."""

    def __init__(
        self,
        name: str,
        args: BatchFlexJobArgs,
        opts: pulumi.ResourceOptions | None = None,
    ) -> None:
        spec = parse_args(BatchFlexJobSpec, args)
        named = stack_default_name("job_id", spec.job_id, name, check_name, arg="job_id")
        job_id = named.value
        super().__init__(TYPE, name, {}, opts)
        project = resolve_project(spec.project, self)
        self.spec = spec
        self.job = BatchJobResource(
            f"{name}-job",
            {
                "project": project,
                "region": spec.region,
                "jobId": job_id,
                "body": batch_job_body(spec),
                "waitFor": spec.wait_for,
                **wait_policy(spec.wait_timeout, spec.on_timeout),
                OWNER_INPUT: owner_input(f"{name}-job"),
            },
            pulumi.ResourceOptions(parent=self, ignore_changes=named.kept("jobId")),
        )
        self.state = self.job.state
        self.job_name = self.job.name
        self.gpus = pulumi.Output.from_input(spec.gpus)
        # a job made before defaults carried the stack keeps its id
        shown: Any = self.job.jobId if named.defaulted else job_id  # type: ignore[attr-defined]
        self.register_outputs({"job_id": shown, "region": spec.region, "gpus": self.gpus})
