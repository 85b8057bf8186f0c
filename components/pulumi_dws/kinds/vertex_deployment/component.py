"""``FlexStartDeployment``: a model served from a Vertex AI endpoint on Flex-start capacity for
a bounded time (``dedicatedResources.flexStart.maxRuntimeDuration``, ``v1beta1`` only).

    import pulumi_gcp as gcp

    endpoint = gcp.vertex.AiEndpoint("serving", name="1234567", location="us-central1",
                                     region="us-central1", display_name="serving")
    FlexStartDeployment("llm", {
        "endpoint": endpoint,                     # an AiEndpoint, or its id / full name
        "model": "projects/my-project/locations/us-central1/models/987",
        "machine_type": "g2-standard-24",        # 2 L4s per replica
        "min_replicas": 1, "max_replicas": 2,
        "max_runtime_duration": "3d",            # undeployed by Vertex AI 3 days after the request
    })

pulumi-gcp 10.2 has no deployment with Flex-start: the child is a dynamic resource,
``<name>-deployment``
(:class:`~pulumi_dws.kinds.vertex_deployment.provider.FlexStartDeployedModelResource`); its
``body`` is the ``deployModel`` request, field for field what ``gcloud beta ai endpoints
deploy-model`` sends for what gcloud can express (gcloud 528 has no Flex-start flag: the
``flexStart`` field is the discovery document's).

What Google says of Flex-start inference
(https://docs.cloud.google.com/vertex-ai/docs/predictions/use-flex-start-vms, Preview):
``max_runtime_duration`` up to 7 days; the model is undeployed automatically that long after
the request; no TPU Pods; the VMs take preemptible quota. ``wait_for``: ``deployed`` (default:
every ``min_replicas`` replica available) or ``queued`` (the deployment is listed).
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

import pulumi
import pulumi_gcp as gcp
from pydantic import model_validator

from ...defaults import resolve_project, type_token
from ...duration import Duration
from ...errors import DwsValidationError
from ...fields import (
    Check,
    DurationWithin,
    Known,
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
from ..vertex_training.vertex import VertexMachine, check_region, vertex_machine
from . import limits as _rows  # noqa: F401 (registers this kind's limit rows)
from .args import FlexStartDeploymentArgs
from .provider import FlexStartDeployedModelResource

__all__ = [
    "TYPE",
    "FlexStartDeployment",
    "FlexStartDeploymentArgs",
    "FlexStartDeploymentSpec",
    "deploy_model_body",
]

TYPE = type_token("FlexStartDeployment")
_ENDPOINT_NAME = re.compile(
    r"^projects/(?P<project>[^/]+)/locations/(?P<region>[^/]+)/endpoints/(?P<id>[1-9][0-9]*)\Z"
)
_ENDPOINT_ID = re.compile(r"^[1-9][0-9]{0,18}\Z")
_MODEL_NAME = re.compile(r"^projects/[^/]+/locations/(?P<region>[^/]+)/models/[^/]+\Z")
_MODEL_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_@-]*\Z")
_REPLICAS = "they decide the deployment's GPUs"
_REGION_NEEDED = "is required with an endpoint id: give the endpoint's region (us-central1)"


def _endpoint(field: str, value: Any) -> Any:
    if is_output(value) or isinstance(value, gcp.vertex.AiEndpoint):
        return value
    if isinstance(value, str) and (_ENDPOINT_ID.match(value) or _ENDPOINT_NAME.match(value)):
        return value
    raise DwsValidationError(
        field,
        value,
        "is not an endpoint: give a gcp.vertex.AiEndpoint, its id (digits, e.g. 1234567) or "
        "projects/PROJECT/locations/REGION/endpoints/ID",
    )


def _model(field: str, value: Any) -> Any:
    if isinstance(value, str) and (_MODEL_NAME.match(value) or _MODEL_ID.match(value)):
        return value
    raise DwsValidationError(
        field, value, "is not a model: give projects/PROJECT/locations/REGION/models/ID or its id"
    )


def _display_name(field: str, value: Any) -> str:
    if not isinstance(value, str) or not value or len(value) > 128:
        raise DwsValidationError(field, value, "must be 1 to 128 characters")
    return value


class FlexStartDeploymentSpec(DwsModel):
    """Arguments of :class:`FlexStartDeployment`."""

    # The one declaration of each field: the args TypedDict is generated from it (python
    # scripts/generate.py). Also the shape of this kind's dws:capacity entries.

    endpoint: MaybeOutput[
        Annotated[Any, Check(_endpoint), Takes("pulumi_gcp.vertex.AiEndpoint | str")]
    ]
    """The endpoint: a pulumi-gcp ``AiEndpoint``, its id (``1234567``) or its full name
    (``projects/P/locations/REGION/endpoints/ID``, such as ``AiEndpoint.id``), known or an
    Output."""
    model: MaybeOutput[Annotated[str, Check(_model)]]
    """The model to deploy: ``projects/P/locations/REGION/models/ID`` (the model may be in
    another region than the endpoint; ``@VERSION`` picks a version), or its id, in the
    endpoint's project and region."""
    machine_type: Annotated[str, Known("it decides the deployment's GPUs")]
    """A GPU machine type (``g2-standard-24``, ``a3-highgpu-8g``)."""
    max_runtime_duration: Annotated[
        Duration,
        DurationWithin("vertex_deployment.max_runtime_duration"),
        Known("it is written into the request and checked against its limits"),
    ]
    """How long the deployment lasts (at most 7 days): Vertex AI undeploys it that long after
    the request."""
    region: (
        Annotated[str, Check(check_region), Known("it picks the regional endpoint called")] | None
    ) = None
    """The endpoint's region (default: from the endpoint's full name, or the ``AiEndpoint``)."""
    accelerator_type: Annotated[str | None, Known("it is checked against the machine type")] = None
    """``NVIDIA_L4`` or ``nvidia-l4``; default: the machine type's GPU."""
    accelerator_count: Annotated[int | None, Known("it is checked against the machine type")] = None
    """GPUs per replica, 1 to the machine type's (default: all of them); at half of them or
    fewer, Vertex AI puts several replicas on one VM."""
    min_replicas: Annotated[int, Within("vertex_deployment.replica_count"), Known(_REPLICAS)] = 1
    """Replicas always deployed (default 1)."""
    max_replicas: (
        Annotated[int, Within("vertex_deployment.replica_count"), Known(_REPLICAS)] | None
    ) = None
    """Replicas it may scale to (default: ``min_replicas``)."""
    display_name: Annotated[str, Check(_display_name)] | None = None
    """The deployed model's display name (default: the component's name)."""
    service_account: MaybeOutput[ServiceAccount] | None = None
    """The service account the model's container runs as."""
    wait_for: Literal["deployed", "queued"] = "deployed"
    """``deployed`` (default) or ``queued``: when the deployment is done."""
    wait_timeout: WaitTimeout | None = None
    """How long the deployment waits for ``wait_for`` (default: ``max_runtime_duration``);
    see ``on_timeout``."""
    on_timeout: OnTimeout | None = None
    """When ``wait_timeout`` passes with the model still waiting for capacity: ``keep``
    (default: the deployment succeeds with it ``DEPLOYING``, warns, and ``pulumi refresh``
    follows it) or ``cancel`` (it is undeployed)."""
    project: MaybeOutput[ProjectId] | None = None
    """Project (default: the endpoint's, else the ``gcp:project`` stack config)."""

    @model_validator(mode="wrap")
    @classmethod
    def _whole(cls, data: Any, handler: Any) -> FlexStartDeploymentSpec:
        spec: FlexStartDeploymentSpec = handler(data)
        spec.machine  # noqa: B018 - checks the machine and its GPUs
        if spec.max_replicas is not None and spec.max_replicas < spec.min_replicas:
            raise DwsValidationError(
                "max_replicas",
                spec.max_replicas,
                f"is below min_replicas ({spec.min_replicas}); give at least {spec.min_replicas}",
            )
        region = spec.region
        named = _ENDPOINT_NAME.match(spec.endpoint) if isinstance(spec.endpoint, str) else None
        if named is not None:
            check_region("endpoint", named["region"])
            if region is not None and region != named["region"]:
                raise DwsValidationError(
                    "region", region, f"is not the endpoint's region ({named['region']})"
                )
            region = named["region"]
        resolved_later = isinstance(spec.endpoint, gcp.vertex.AiEndpoint) or is_output(
            spec.endpoint
        )  # read from the endpoint once known (_endpoint_parts)
        if region is None and not resolved_later:
            raise DwsValidationError("region", None, _REGION_NEEDED)
        if spec.service_account == "default":
            raise DwsValidationError(
                "service_account", "default", "give a service account email, or leave it out"
            )
        return spec.model_copy(update={"region": region})

    @property
    def machine(self) -> VertexMachine:
        """The machine spec of each replica."""
        return vertex_machine(
            self.machine_type, self.accelerator_type, self.accelerator_count, co_scheduled=True
        )

    @property
    def gpus(self) -> int:
        """GPUs the deployment may hold: those of the VMs of every replica it may scale to
        (several replicas share a VM when each takes half of its GPUs or fewer)."""
        return self.machine.gpus_held(self.max_replicas or self.min_replicas)


def deploy_model_body(
    spec: FlexStartDeploymentSpec, model: Any, display_name: str
) -> dict[str, Any]:
    """The ``deployModel`` request of ``spec``: field for field what ``gcloud beta ai endpoints
    deploy-model`` sends for the fields it has flags for, and ``flexStart`` as the discovery
    document spells it (gcloud 528 has no flag for it). The deployed model's id is added by the
    provider."""
    resources: dict[str, Any] = {
        "flexStart": {"maxRuntimeDuration": spec.max_runtime_duration.to_proto_string()},
        "machineSpec": spec.machine.spec(),
        "maxReplicaCount": spec.max_replicas or spec.min_replicas,
        "minReplicaCount": spec.min_replicas,
    }
    deployed: dict[str, Any] = {
        "dedicatedResources": resources,
        "displayName": display_name,
        "model": model,
    }
    if spec.service_account is not None:
        deployed["serviceAccount"] = spec.service_account
    return {"deployedModel": deployed}


def _endpoint_parts(value: Any, region: str | None) -> tuple[str | None, str, str]:
    """``(project or None, region, id)`` of an endpoint given as an Output, once known: its
    full name (``AiEndpoint.id``) says all three; an id needs ``region``."""
    named = _ENDPOINT_NAME.match(value) if isinstance(value, str) else None
    if named is not None:
        check_region("endpoint", named["region"])
        if region is not None and region != named["region"]:
            raise DwsValidationError(
                "region", region, f"is not the endpoint's region ({named['region']})"
            )
        return named["project"], named["region"], named["id"]
    if not isinstance(value, str) or not _ENDPOINT_ID.match(value):
        _endpoint("endpoint", value)  # raises: what an endpoint is
    if region is None:
        raise DwsValidationError("region", None, _REGION_NEEDED)
    return None, region, str(value)


def _resolved(spec: FlexStartDeploymentSpec, parent: pulumi.Resource) -> tuple[Any, Any, Any]:
    """``(project, region, endpoint id)`` of the deployment, from the endpoint (an
    ``AiEndpoint``'s outputs, its full name, or either known only at run time) and the args."""
    endpoint = spec.endpoint
    if isinstance(endpoint, gcp.vertex.AiEndpoint):
        project = spec.project if spec.project is not None else endpoint.project
        region = spec.region if spec.region is not None else endpoint.location
        return project, region, endpoint.name
    if is_output(endpoint):
        parts = pulumi.Output.from_input(endpoint).apply(
            lambda value: _endpoint_parts(value, spec.region)
        )
        project = (
            spec.project
            if spec.project is not None
            else parts.apply(lambda p: p[0] if p[0] else resolve_project(None, parent))
        )
        return project, parts.apply(lambda p: p[1]), parts.apply(lambda p: p[2])
    named = _ENDPOINT_NAME.match(endpoint) if isinstance(endpoint, str) else None
    if named is not None:
        project = spec.project if spec.project is not None else named["project"]
        return project, named["region"], named["id"]
    return resolve_project(spec.project, parent), spec.region, endpoint


def _model_name(model: Any, project: Any, region: Any) -> Any:
    if isinstance(model, str) and _MODEL_NAME.match(model):
        return model
    return pulumi.Output.concat("projects/", project, "/locations/", region, "/models/", model)


class FlexStartDeployment(pulumi.ComponentResource):
    """A model deployed on Flex-start capacity (see the module docstring).

    Child: ``deployment``
    (:class:`~pulumi_dws.kinds.vertex_deployment.provider.FlexStartDeployedModelResource`);
    ``spec`` is the validated args.
    """

    state: pulumi.Output[str]
    """``DEPLOYING`` (waiting for capacity, provisioning) or ``DEPLOYED``."""
    deployed_model_name: pulumi.Output[str]
    """``projects/P/locations/REGION/endpoints/E/deployedModels/ID``."""
    gpus: pulumi.Output[int]
    """GPUs the deployment may hold: those of the VMs ``max_replicas`` replicas take."""

    def __init__(
        self,
        name: str,
        args: FlexStartDeploymentArgs,
        opts: pulumi.ResourceOptions | None = None,
    ) -> None:
        spec = parse_args(FlexStartDeploymentSpec, args)
        super().__init__(TYPE, name, {}, opts)
        project, region, endpoint_id = _resolved(spec, self)
        region = pulumi.Output.from_input(region).apply(lambda r: check_region("region", r))
        self.spec = spec
        child = f"{name}-deployment"
        self.deployment = FlexStartDeployedModelResource(
            child,
            {
                "project": project,
                "region": region,
                "endpoint": endpoint_id,
                OWNER_INPUT: owner_input(child),
                "body": deploy_model_body(
                    spec, _model_name(spec.model, project, region), spec.display_name or name
                ),
                "waitFor": spec.wait_for,
                **wait_policy(spec.wait_timeout, spec.on_timeout),
            },
            pulumi.ResourceOptions(parent=self),
        )
        self.state = self.deployment.state
        self.deployed_model_name = self.deployment.name
        self.gpus = pulumi.Output.from_input(spec.gpus)
        self.register_outputs({"gpus": self.gpus})
