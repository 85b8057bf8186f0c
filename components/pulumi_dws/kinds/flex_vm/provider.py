"""The ``FlexStartVm`` dynamic resource: a Flex-start VM created with ``instances.insert`` and
``params.requestValidForDuration`` (the queue window pulumi-gcp cannot express), and its
lifecycle.

Type token: ``pulumi-python:dynamic/dws:FlexStartVm``. Inputs (camelCase, as stored in state):

``project``, ``zone``, ``name``
    where the VM lives.
``sourceInstanceTemplate``
    the pulumi-gcp instance template that holds the VM's shape (may be empty: then ``body``
    must be a complete instance).
``body``
    the Compute v1 ``Instance`` JSON sent to ``instances.insert`` over the template:
    ``name``, ``machineType``, ``scheduling`` (field for field what gcloud sends for
    ``--provisioning-model=FLEX_START``), ``params.requestValidForDuration`` (the queue),
    ``labels``, ``metadata``.
``desiredStatus``
    ``RUNNING`` or ``TERMINATED`` (stop/start in place).
``waitFor``
    ``accepted`` (return once the request is PENDING in Google's queue) or ``running``.
``templateShape``
    the fingerprint of the template's shape, when the template is shared by the VMs of one
    shape (:mod:`pulumi_dws.kinds.flex_vm.shapes`); absent for a template of the VM's own.

Outputs: the inputs plus ``status`` (``PENDING``, ``RUNNING``, ``TERMINATED``, ...) and
``observed``: ``instanceId``, ``selfLink``, ``internalIp``, ``externalIp``, ``runEndsAt`` (when
the run duration ends), ``lastStartTimestamp`` and ``requestId`` (of the insert). Grouping them
keeps the resource to nine properties: each one costs the SDK time at every registration.

diff: ``project``, ``zone``, ``name``, another template shape and the body's shape (anything but
``labels``, ``metadata``, ``params``) replace the VM (delete first: the name is reused and the
capacity released); ``desiredStatus``, ``body.labels`` and ``body.metadata`` update in place;
``waitFor`` and ``body.params`` only matter at create time. Another ``sourceInstanceTemplate``
replaces the VM unless both sides carry the same ``templateShape``, or the old side is a VM's
own template (state from before templates were shared) and the new side has a fingerprint.

create: the shared create state machine (:mod:`~pulumi_dws.providers.create_machine`) with the
steps of :mod:`~pulumi_dws.kinds.flex_vm.create` (what a VM that exists is brought to:
:mod:`~pulumi_dws.kinds.flex_vm.lifecycle`). Failures leave no orphan: an insert whose
answer was lost (dropped, reset, truncated, HTML, empty, not JSON, a string ``error``) is sent
again with its deterministic ``requestId`` and then settled by reading what exists; a VM already
there that carries this resource's ownership label (``dws-create``) is adopted (a crashed
``pulumi up``), one without it is refused; a create that fails after Compute accepted it returns
the VM if it reached what ``waitFor`` asked anyway, else deletes it before raising, and when it
cannot be deleted succeeds with the VM's true status so the stack tracks it.

read: a VM deleted outside Pulumi is gone; its status, labels, metadata and machine type are
read as they are (drift). update: waits for a passing state (``STOPPING``, ``SUSPENDING``,
``PENDING_STOP``...) to settle, then acts: stop, start a stopped VM, resume a suspended one; a
start that fails leaves the VM stopped, cancelling a request still queued. Each failure is one
:class:`FlexStartError` saying what was asked, where, why and what to change.

The resource is declared once (:data:`~pulumi_dws.kinds.flex_vm.api.FLEX_VM`: path, id,
outputs, states, idempotency) on the shared base (:mod:`~pulumi_dws.providers.rest_resource`),
which supplies the target (:class:`~pulumi_dws.kinds.flex_vm.target.FlexVm`), failure
wrapping and the ``Resource`` class. The provider pickles to a few hundred bytes: it holds no
client, no credentials and no configuration at pickling time; the REST client (ADC, or
anonymous for loopback emulators) is built inside each call, and the endpoint comes from
``DWS_COMPUTE_ENDPOINT`` or the stack config ``dws:computeEndpoint`` passed to
:meth:`FlexStartVmProvider.configure`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

import pulumi
import pulumi.dynamic as dyn

from ... import limits
from ...providers.checks import CheckFailures
from ...providers.checks import known as _known
from ...providers.compute_ops import delete_instance, get_instance
from ...providers.compute_provider import ComputeProvider
from ...providers.create_machine import OWNER_LABEL, CreateMachine, Phase
from ...providers.ownership import STACK_LABEL
from ...providers.paths import PathValueError
from ...providers.rest import ApiError, OperationError
from ...providers.rest_provider import shared_provider
from ...providers.rest_resource import DeclaredResource, RestResource, Target
from ...validation import check_name, check_zone
from .api import (
    BODY_CREATE_ONLY,
    BODY_IN_PLACE,
    FLEX_VM,
    INPUT_KEYS,
    OBSERVED_KEYS,
    OUTPUT_KEYS,
    REPLACE_KEYS,
    STOPPED,
    TYPE_TOKEN,
    FlexStartError,
    vm_id,
)
from .create import FlexCreate
from .lifecycle import Step, converge, metadata_items, sorted_items
from .target import FlexVm

if TYPE_CHECKING:
    from ...providers.rest import GoogleRestClient

__all__ = [
    "FlexStartVm",
    "FlexStartVmProvider",
    "FlexStartError",
    "TYPE_TOKEN",
    "INPUT_KEYS",
    "OUTPUT_KEYS",
    "OBSERVED_KEYS",
    "REPLACE_KEYS",
    "OWNER_LABEL",
    "vm_id",
]


class FlexStartVmProvider(ComputeProvider):
    """CRUD for ``FlexStartVm`` over the Compute v1 REST API (see the module docstring;
    ``sleep``, ``poll`` and the endpoint: :class:`~.compute_provider.ComputeProvider`)."""

    RESOURCE: ClassVar[RestResource] = FLEX_VM
    TARGET: ClassVar[type[Target]] = FlexVm

    def check(self, _olds: dict[str, Any], news: dict[str, Any]) -> dyn.CheckResult:
        return dyn.CheckResult(news, _check(news))

    def diff(self, _id: str, olds: dict[str, Any], news: dict[str, Any]) -> dyn.DiffResult:
        return _diff(olds, news)

    def create_steps(self, client: GoogleRestClient, target: Target) -> FlexCreate:
        assert isinstance(target, FlexVm)
        return FlexCreate(client, target)

    def created(
        self,
        target: Target,
        live: Any,
        steps: Any,
        machine: CreateMachine[Any, Any],
    ) -> dict[str, Any]:
        outs = _outputs(target.props, live, steps.request_id)
        if machine.phase is Phase.KEPT:  # the truth: the next `pulumi up` converges from it
            outs["desiredStatus"] = _status_intent(str(live.get("status")))
        return outs

    def target_of_id(self, id_: str, props: Mapping[str, Any]) -> Target:
        """The VM of the state's inputs; read by id alone (``pulumi import``), the VM the id
        names."""
        if id_.count("/") == 5:
            _, project, _, zone, _, name = id_.split("/")
            if not props.get("project"):
                props = {"project": project, "zone": zone, "name": name, "body": {"name": name}}
            else:  # the id wins where it says where the VM is
                props = {**dict(props), "project": project, "zone": zone, "name": name}
        return self.target(props)

    def read_live(self, client: GoogleRestClient, target: Target) -> dict[str, Any] | None:
        assert isinstance(target, FlexVm)
        return get_instance(client, target.project, target.zone, target.name)

    def read_result(self, id_: str, target: Target, live: Mapping[str, Any]) -> dyn.ReadResult:
        """The VM as it is: its status, labels, metadata and machine type (drift); a VM read by
        id alone gets inputs from what it is."""
        assert isinstance(target, FlexVm)
        props = target.props
        if "desiredStatus" not in props:
            props = _adopted(props, live)
        outs = _outputs(props, live, _request_id(props))
        body = dict(outs.get("body") or {})
        machine = str(live.get("machineType") or "").rsplit("/", 1)[-1]
        declared = body.get("machineType")
        if machine and declared and str(declared).split("/")[-1] != machine:
            body["machineType"] = f"zones/{target.zone}/machineTypes/{machine}"  # changed outside
        labels = _user_labels(live)
        if labels or body.get("labels"):
            body["labels"] = labels
        items = metadata_items(live)
        if items or body.get("metadata"):
            body["metadata"] = {"items": sorted_items(items)}
        outs["body"] = body
        outs["desiredStatus"] = _status_intent(str(live.get("status")))
        inputs = {key: outs[key] for key in INPUT_KEYS if key in outs}
        return dyn.ReadResult(id_ or target.id, outs, inputs)

    def update(self, _id: str, olds: dict[str, Any], news: dict[str, Any]) -> dyn.UpdateResult:
        """Wait for a passing status to settle, then act: labels, metadata, stop, start."""
        vm = FlexVm.of(news)
        client = self.client()
        step = Step()
        try:
            instance = get_instance(client, vm.project, vm.zone, vm.name)
            if instance is None:
                raise FlexStartError(
                    f"{vm.describe()} no longer exists; run `pulumi refresh` (or `pulumi up "
                    "--refresh`) to recreate it"
                )
            final = converge(client, vm, instance, step)
        except (ApiError, OperationError, TimeoutError, PathValueError) as err:
            raise FlexStartError(
                f"{vm.describe()} could not be updated: Compute Engine failed to {step.now} "
                f"({err}). To change: run `pulumi up --refresh` again once the cause is fixed."
            ) from None
        return dyn.UpdateResult(_outputs(news, final, _request_id(olds)))

    def delete_and_wait(self, client: GoogleRestClient, target: Target) -> bool:
        assert isinstance(target, FlexVm)
        return delete_instance(client, target.project, target.zone, target.name)

    def undeletable(self, target: Target, id_: str, err: Exception) -> str:
        assert isinstance(target, FlexVm)
        return (
            f"{target.describe()} could not be deleted: {err}. It is still in the stack: run "
            f"`pulumi destroy` (or `pulumi up`) again, or delete it with "
            f"`{target.gcloud('delete')}` and then `pulumi refresh`."
        )


def default_provider() -> FlexStartVmProvider:
    """The provider instance every ``FlexStartVm`` of a program shares."""
    return shared_provider(FlexStartVmProvider)


class FlexStartVm(DeclaredResource, module="dws", name="FlexStartVm"):
    """A Flex-start VM inserted with its queue window (``pulumi-python:dynamic/dws:FlexStartVm``).

    Most users want :class:`pulumi_dws.FlexStartInstance`, which builds ``props``. Every input
    and output key (:data:`INPUT_KEYS`, :data:`OUTPUT_KEYS`) is an ``Output`` attribute:
    ``vm.status``, ``vm.observed`` (a dict), ``vm.body``... (there are no class annotations on
    purpose: the SDK resolves them with ``typing.get_type_hints`` on every registration; the
    ones below exist for type checkers only).
    """

    if TYPE_CHECKING:
        status: pulumi.Output[str | None]
        observed: pulumi.Output[dict[str, Any] | None]

    provider_class = FlexStartVmProvider


# ---------------------------------------------------------------------- check / diff
def _check(news: Mapping[str, Any]) -> list[dyn.CheckFailure]:
    """Check the inputs; a value not known yet (a preview) is never a failure."""
    failures = CheckFailures()
    run = failures.run

    def seconds(spec: Any) -> int:
        return int(float(spec["seconds"]))

    for key in ("project", "zone", "name", "body"):
        if not news.get(key) and news.get(key) != 0:
            failures.append(dyn.CheckFailure(key, f"{key} is required"))
    if failures:
        return failures
    failures.segment("project", news["project"])
    if _known(news["zone"]):
        run("zone", lambda: check_zone("zone", news["zone"]))
    if _known(news["name"]):
        run("name", lambda: check_name("name", news["name"]))
    template = news.get("sourceInstanceTemplate")
    if template is not None and _known(template) and not isinstance(template, str):
        failures.append(dyn.CheckFailure("sourceInstanceTemplate", "must be a string"))
    body = news["body"]
    if not _known(body) and not isinstance(body, Mapping):
        return failures
    if not isinstance(body, Mapping):
        failures.append(dyn.CheckFailure("body", "body must be an object (a Compute Instance)"))
        return failures
    if _known(body.get("name")) and _known(news["name"]) and body.get("name") != news["name"]:
        failures.append(dyn.CheckFailure("body", "body.name must be the same as name"))
    scheduling = body.get("scheduling") or {}
    if _known(scheduling) and scheduling.get("provisioningModel") != "FLEX_START":
        failures.append(
            dyn.CheckFailure("body", "body.scheduling.provisioningModel must be FLEX_START")
        )
    if _known(scheduling) and scheduling.get("maxRunDuration") is not None:
        run(
            "body",
            lambda: limits.get("flex_start.max_run_duration").check(
                "body.scheduling.maxRunDuration", seconds(scheduling["maxRunDuration"])
            ),
        )
    params = body.get("params") or {}
    if _known(params) and params.get("requestValidForDuration") is not None:
        run(
            "body",
            lambda: limits.get("flex_start.request_valid_for").check(
                "body.params.requestValidForDuration", seconds(params["requestValidForDuration"])
            ),
        )
    labels = body.get("labels") or {}
    if _known(labels) and isinstance(labels, Mapping):
        failures.owner_label_room("body", "body.labels", labels)
    failures.wait_policy(news)
    for key, allowed in (("desiredStatus", ("RUNNING", "TERMINATED")), ("waitFor", _WAITS)):
        value = news.get(key)
        if value is not None and _known(value) and value not in allowed:
            failures.append(dyn.CheckFailure(key, f"{key} {value!r} is not one of {allowed}"))
    return failures


_WAITS = ("accepted", "running")


def _diff(olds: Mapping[str, Any], news: Mapping[str, Any]) -> dyn.DiffResult:
    replaces = [k for k in REPLACE_KEYS if (olds.get(k) or "") != (news.get(k) or "")]
    if "sourceInstanceTemplate" in replaces and not _template_reshaped(olds, news):
        replaces.remove("sourceInstanceTemplate")
    old_body = olds.get("body") or {}
    new_body = news.get("body") or {}
    changed_body = set()
    if not isinstance(new_body, Mapping):
        changed_body = {"?"}
    else:
        for key in set(old_body) | set(new_body):
            if old_body.get(key) != new_body.get(key):
                changed_body.add(key)
    if changed_body - set(BODY_IN_PLACE) - set(BODY_CREATE_ONLY):
        replaces.append("body")
    # A template of the same shape is recorded by an update that changes nothing in the cloud.
    in_place = [
        k
        for k in (
            "desiredStatus",
            "waitFor",
            "waitTimeout",
            "onTimeout",
            "templateShape",
            "sourceInstanceTemplate",
        )
        if k not in replaces and (olds.get(k) or "") != (news.get(k) or "")
    ]
    changes = bool(replaces or in_place or changed_body)
    return dyn.DiffResult(
        changes=changes,
        replaces=replaces,
        stables=["project", "zone", "name"] if not replaces else [],
        delete_before_replace=True,
    )


def _template_reshaped(olds: Mapping[str, Any], news: Mapping[str, Any]) -> bool:
    """Whether a new ``sourceInstanceTemplate`` means a new VM shape.

    With a ``templateShape`` (the fingerprint of the template's inputs) on both sides, only a
    new fingerprint does: the same shape under another template (shared, or recreated) is the
    same VM. A VM whose template was its own (state written before templates were shared)
    moving to a fingerprinted one keeps its VM: its template had the shape its inputs still
    describe, and what the body holds (machine type, scheduling, accelerators) is compared
    on its own. Without a fingerprint on the new side, any other template replaces the VM.
    """
    new_shape = news.get("templateShape")
    if not new_shape or not _known(new_shape):
        return True
    old_shape = olds.get("templateShape")
    if old_shape:
        return bool(old_shape != new_shape)
    return not olds.get("sourceInstanceTemplate")


# ---------------------------------------------------------------------- outputs
def _status_intent(status: str) -> str:
    return "TERMINATED" if status in STOPPED else "RUNNING"


def _observed(instance: Mapping[str, Any]) -> dict[str, Any]:
    nics = instance.get("networkInterfaces")
    nic = nics[0] if isinstance(nics, list) and nics and isinstance(nics[0], Mapping) else {}
    configs = nic.get("accessConfigs")
    access = (
        configs[0]
        if isinstance(configs, list) and configs and isinstance(configs[0], Mapping)
        else {}
    )
    status = instance.get("resourceStatus")
    scheduling = (status.get("scheduling") if isinstance(status, Mapping) else None) or {}
    return {
        "instanceId": instance.get("id"),
        "selfLink": instance.get("selfLink"),
        "internalIp": nic.get("networkIP"),
        "externalIp": access.get("natIP"),
        "runEndsAt": scheduling.get("terminationTimestamp")
        if isinstance(scheduling, Mapping)
        else None,
        "lastStartTimestamp": instance.get("lastStartTimestamp"),
    }


def _outputs(
    props: Mapping[str, Any], instance: Mapping[str, Any], request_id: str | None
) -> dict[str, Any]:
    outs = {key: props[key] for key in INPUT_KEYS if key in props}
    outs["status"] = instance.get("status")
    outs["observed"] = {**_observed(instance), "requestId": request_id}
    return outs


def _request_id(state: Mapping[str, Any]) -> str | None:
    return (state.get("observed") or {}).get("requestId")


def _user_labels(instance: Mapping[str, Any]) -> dict[str, Any]:
    """The VM's labels without pulumi-dws's own ownership label."""
    labels = instance.get("labels")
    labels = dict(labels) if isinstance(labels, Mapping) else {}
    labels.pop(OWNER_LABEL, None)
    labels.pop(STACK_LABEL, None)
    return labels


def _adopted(props: Mapping[str, Any], instance: Mapping[str, Any]) -> dict[str, Any]:
    """Inputs for a VM read by id alone: its machine type and Flex-start scheduling as they
    are."""
    scheduling = instance.get("scheduling") or {}
    keys = (
        "automaticRestart",
        "instanceTerminationAction",
        "maxRunDuration",
        "onHostMaintenance",
        "provisioningModel",
    )
    zone, machine = props["zone"], str(instance.get("machineType") or "")
    body = {
        "name": props["name"],
        "machineType": f"zones/{zone}/machineTypes/{machine.rsplit('/', 1)[-1]}",
        "scheduling": {k: scheduling[k] for k in keys if k in scheduling},
    }
    return {
        **props,
        "sourceInstanceTemplate": "",
        "body": body,
        "desiredStatus": _status_intent(str(instance.get("status"))),
        "waitFor": "running",
    }
