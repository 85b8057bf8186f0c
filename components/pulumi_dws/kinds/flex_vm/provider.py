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
steps of :mod:`~pulumi_dws.kinds.flex_vm.create`. Failures leave no orphan: an insert whose
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

The provider pickles to a few hundred bytes: it holds no client, no credentials and no
configuration at pickling time; the REST client (ADC, or anonymous for loopback emulators) is
built inside each call, and the endpoint comes from ``DWS_COMPUTE_ENDPOINT`` or the stack config
``dws:computeEndpoint`` passed to :meth:`FlexStartVmProvider.configure`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pulumi
import pulumi.dynamic as dyn

from ...providers.checks import known as _known
from ...providers.compute_provider import ComputeProvider
from ...providers.create_machine import OWNER_LABEL
from ...providers.rest_provider import shared_provider

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

TYPE_TOKEN = "pulumi-python:dynamic/dws:FlexStartVm"
INPUT_KEYS = (
    "project",
    "zone",
    "name",
    "sourceInstanceTemplate",
    "body",
    "desiredStatus",
    "waitFor",
    "templateShape",
)
OUTPUT_KEYS = ("status", "observed")
OBSERVED_KEYS = (
    "instanceId",
    "selfLink",
    "internalIp",
    "externalIp",
    "runEndsAt",
    "lastStartTimestamp",
    "requestId",
)
REPLACE_KEYS = ("project", "zone", "name", "sourceInstanceTemplate")
BODY_IN_PLACE = ("labels", "metadata")
BODY_CREATE_ONLY = ("params",)
ACCEPTED = frozenset({"PENDING", "RUNNING"})
PASSING = frozenset(
    {
        "STOPPING",
        "SUSPENDING",
        "PENDING_STOP",
        "DEPROVISIONING",
        "PROVISIONING",
        "STAGING",
        "REPAIRING",
    }
)
"""Statuses a VM passes through on its own: an update waits for them to end before acting."""
STOPPED = frozenset(
    {
        "TERMINATED",
        "STOPPED",
        "STOPPING",
        "PENDING_STOP",  # shutting down gracefully
        "DEPROVISIONING",  # halted, resources being released
        "SUSPENDED",
        "SUSPENDING",
    }
)
FAIL_FAST_TRY_SECONDS = 90  # dws-facts §1: without a queue Compute tries for about 90 s
WAIT_MARGIN_SECONDS = 600.0  # beyond the queue window (or the fail-fast try) before giving up
STOCKOUT_CODES = ("ZONE_RESOURCE_POOL_EXHAUSTED", "RESOURCE_POOL_EXHAUSTED", "STOCKOUT")


class FlexStartError(Exception):
    """A Flex-start VM could not be created, started or deleted. The message says what was
    asked, where, why, what to change, and whether anything was left behind."""


def vm_id(project: str, zone: str, name: str) -> str:
    """The resource id: ``projects/<p>/zones/<z>/instances/<name>`` (pulumi-gcp's format)."""
    from ...providers.paths import instance_path

    return instance_path(project, zone, name)


class FlexStartVmProvider(ComputeProvider):
    """CRUD for ``FlexStartVm`` over the Compute v1 REST API (see the module docstring;
    ``sleep``, ``poll`` and the endpoint: :class:`~.compute_provider.ComputeProvider`)."""

    def check(self, _olds: dict[str, Any], news: dict[str, Any]) -> dyn.CheckResult:
        return dyn.CheckResult(news, _check(news))

    def diff(self, _id: str, olds: dict[str, Any], news: dict[str, Any]) -> dyn.DiffResult:
        return _diff(olds, news)

    def create(self, props: dict[str, Any]) -> dyn.CreateResult:
        return _create(self, props)

    def read(self, id_: str, props: dict[str, Any]) -> dyn.ReadResult:
        return _read(self, id_, props)

    def update(self, _id: str, olds: dict[str, Any], news: dict[str, Any]) -> dyn.UpdateResult:
        return _update(self, olds, news)

    def delete(self, _id: str, props: dict[str, Any]) -> None:
        _delete(self, props)


def default_provider() -> FlexStartVmProvider:
    """The provider instance every ``FlexStartVm`` of a program shares."""
    return shared_provider(FlexStartVmProvider)


class FlexStartVm(dyn.Resource, module="dws", name="FlexStartVm"):
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

    def __init__(
        self,
        name: str,
        props: Mapping[str, Any],
        opts: pulumi.ResourceOptions | None = None,
        provider: FlexStartVmProvider | None = None,
    ) -> None:
        full = {key: None for key in OUTPUT_KEYS}
        full.update(props)
        super().__init__(provider or default_provider(), name, full, opts)


# ---------------------------------------------------------------------- the VM being handled
@dataclass(frozen=True)
class _Vm:
    project: str
    zone: str
    name: str
    machine_type: str
    template: str
    body: dict[str, Any]
    desired: str
    wait_for: str
    props: Mapping[str, Any]

    @classmethod
    def of(cls, props: Mapping[str, Any]) -> _Vm:
        return cls(
            str(props["project"]),
            str(props["zone"]),
            str(props["name"]),
            str((props.get("body") or {}).get("machineType") or "").rsplit("/", 1)[-1],
            str(props.get("sourceInstanceTemplate") or ""),
            dict(props.get("body") or {}),
            str(props.get("desiredStatus") or "RUNNING"),
            str(props.get("waitFor") or "running"),
            dict(props),
        )

    @property
    def id(self) -> str:
        return vm_id(self.project, self.zone, self.name)

    @property
    def window(self) -> int | None:
        spec = (self.body.get("params") or {}).get("requestValidForDuration") or {}
        return int(float(spec["seconds"])) if spec.get("seconds") is not None else None

    @property
    def run(self) -> int | None:
        spec = (self.body.get("scheduling") or {}).get("maxRunDuration") or {}
        return int(float(spec["seconds"])) if spec.get("seconds") is not None else None

    def describe(self) -> str:
        from ...duration import Duration

        parts = [f"{self.machine_type or 'VM'} in {self.zone}", f"project {self.project}"]
        if self.run:
            parts.append(f"max run {Duration(self.run).human()}")
        parts.append(f"queue window {Duration(self.window).human()}" if self.window else "no queue")
        return f"Flex-start VM '{self.name}' ({', '.join(parts)})"


# ---------------------------------------------------------------------- check / diff
def _check(news: Mapping[str, Any]) -> list[dyn.CheckFailure]:
    """Check the inputs; a value not known yet (a preview) is never a failure."""
    from ... import limits
    from ...providers.checks import CheckFailures
    from ...validation import check_name, check_zone

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
        if OWNER_LABEL in labels:
            failures.append(
                dyn.CheckFailure("body", f"body.labels: {OWNER_LABEL} is set by pulumi-dws itself")
            )
        most = (limits.get("labels.count").maximum or 64) - 1
        if len(labels) > most:
            failures.append(
                dyn.CheckFailure(
                    "body",
                    f"body.labels: {len(labels)} labels; at most {most} (pulumi-dws adds "
                    f"{OWNER_LABEL})",
                )
            )
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
        for k in ("desiredStatus", "waitFor", "templateShape", "sourceInstanceTemplate")
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


# ---------------------------------------------------------------------- create
def _create(provider: FlexStartVmProvider, props: dict[str, Any]) -> dyn.CreateResult:
    from ...providers.create_machine import CreateFailed, CreateMachine, Phase
    from ...providers.paths import PathValueError
    from .create import SETTLE_SECONDS, FlexCreate

    vm = _Vm.of(props)
    client = provider.client()
    steps = FlexCreate(client, vm)
    assert client.sleep is not None
    sleep = client.sleep
    machine = CreateMachine(steps, settle=lambda: sleep(SETTLE_SECONDS))
    try:
        instance = machine.run()
    except CreateFailed as err:
        raise FlexStartError(str(err)) from None
    except PathValueError as err:
        raise FlexStartError(f"{vm.describe()} can't be addressed: {err}") from None
    outs = _outputs(props, instance, steps.request_id)
    if machine.phase is Phase.KEPT:  # the truth: the next `pulumi up` converges from it
        outs["desiredStatus"] = _status_intent(str(instance.get("status")))
    return dyn.CreateResult(vm.id, outs)


def await_capacity(client: Any, vm: _Vm, op: dict[str, Any]) -> dict[str, Any]:
    """Wait for an insert/start/resume operation per ``waitFor``; raise on stock-out or
    timeout."""
    from ...providers.compute_ops import get_instance, wait_zone_operation

    until = None
    if vm.window and vm.wait_for == "accepted":

        def until(_op: dict[str, Any]) -> bool:
            instance = get_instance(client, vm.project, vm.zone, vm.name)
            return instance is not None and instance.get("status") in ACCEPTED

    budget = (vm.window or FAIL_FAST_TRY_SECONDS) + WAIT_MARGIN_SECONDS
    return wait_zone_operation(client, vm.project, vm.zone, op, timeout=budget, until=until)


def rejected_text(vm: _Vm, err: Exception) -> str:
    """Why Compute refused an insert (nothing was created)."""
    if getattr(err, "ambiguous", False):
        return (
            f"{vm.describe()} could not be created: Compute Engine did not accept the insert "
            f"({err}). Nothing was created. To change: deploy again later."
        )
    return f"{vm.describe()} was rejected by Compute Engine: {err}. Nothing was created."


def _is_stockout(exc: Exception) -> bool:
    codes = getattr(exc, "codes", None) or []
    return any(code.startswith(STOCKOUT_CODES) for code in codes)


def failure_text(vm: _Vm, exc: Exception) -> str:
    """Why an accepted create (or a start) failed, and what to change."""
    from ... import limits
    from ...duration import Duration

    window_row = limits.get("flex_start.request_valid_for")
    if _is_stockout(exc) and vm.window:
        return (
            f"{vm.describe()} got no capacity: the queue window of "
            f"{Duration(vm.window).describe()} (request_valid_for) ended before Compute Engine "
            "could place it. To change: deploy again later, pick another zone or machine type "
            "(see `dws advise`), or lengthen request_valid_for (allowed: "
            f"{window_row.allowed()})."
        )
    if _is_stockout(exc):
        return (
            f"{vm.describe()} got no capacity: Compute Engine found none in {vm.zone} within "
            f"about {FAIL_FAST_TRY_SECONDS}s and the request was not queued. To change: set "
            f"request_valid_for (allowed: {window_row.allowed()}) to wait in the DWS queue, or "
            "pick another zone or machine type (see `dws advise`)."
        )
    if isinstance(exc, TimeoutError):
        return (
            f"{vm.describe()} was not ready in time ({exc}). To change: deploy again later, or "
            "set wait_for='accepted' to return once the request is queued."
        )
    if isinstance(exc, FlexStartError):
        return str(exc).rstrip(".") + "."
    return f"{vm.describe()} could not be created: {exc}."


# ---------------------------------------------------------------------- read / update / delete
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
    return labels


def _read(provider: FlexStartVmProvider, id_: str, props: dict[str, Any]) -> dyn.ReadResult:
    from ...providers.compute_ops import get_instance
    from ...providers.paths import PathValueError
    from ...providers.rest import ApiError

    if not props.get("project") and id_.count("/") == 5:  # read by id alone
        _, project, _, zone, _, name = id_.split("/")
        props = {"project": project, "zone": zone, "name": name, "body": {"name": name}}
    vm = _Vm.of(props)
    try:
        instance = get_instance(provider.client(), vm.project, vm.zone, vm.name)
    except (ApiError, PathValueError) as err:
        raise FlexStartError(
            f"{vm.describe()} could not be read: {err}. Nothing was changed; run `pulumi "
            "refresh` again once Compute Engine answers."
        ) from None
    if instance is None:
        return dyn.ReadResult("", {})
    if "desiredStatus" not in props:
        props = _adopted(props, instance)
    outs = _outputs(props, instance, _request_id(props))
    body = dict(outs.get("body") or {})
    machine = str(instance.get("machineType") or "").rsplit("/", 1)[-1]
    if machine and body.get("machineType") and str(body["machineType"]).split("/")[-1] != machine:
        body["machineType"] = f"zones/{vm.zone}/machineTypes/{machine}"  # changed outside
    labels = _user_labels(instance)
    if labels or body.get("labels"):
        body["labels"] = labels
    items = _metadata_items(instance)
    if items or body.get("metadata"):
        body["metadata"] = {"items": _sorted_items(items)}
    outs["body"] = body
    outs["desiredStatus"] = _status_intent(str(instance.get("status")))
    inputs = {key: outs[key] for key in INPUT_KEYS if key in outs}
    return dyn.ReadResult(id_ or vm.id, outs, inputs)


def _metadata_items(instance: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    meta = instance.get("metadata")
    items = meta.get("items") if isinstance(meta, Mapping) else None
    return [i for i in items or [] if isinstance(i, Mapping) and "key" in i]


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


def _sorted_items(items: list[Mapping[str, Any]]) -> list[dict[str, Any]]:
    return sorted(
        ({"key": i["key"], "value": i.get("value", "")} for i in items), key=lambda i: i["key"]
    )


class _Step:
    """What an update is doing, for its error message."""

    def __init__(self) -> None:
        self.now = "read the VM"


def _update(
    provider: FlexStartVmProvider, olds: dict[str, Any], news: dict[str, Any]
) -> dyn.UpdateResult:
    from ...providers.compute_ops import get_instance
    from ...providers.paths import PathValueError
    from ...providers.rest import ApiError, OperationError

    vm = _Vm.of(news)
    client = provider.client()
    step = _Step()
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
            f"{vm.describe()} could not be updated: Compute Engine failed to {step.now} ({err}). "
            "To change: run `pulumi up --refresh` again once the cause is fixed."
        ) from None
    return dyn.UpdateResult(_outputs(news, final, _request_id(olds)))


def converge(
    client: Any, vm: _Vm, instance: dict[str, Any], step: _Step | None = None
) -> dict[str, Any]:
    """Bring a VM to what ``vm`` declares: wait for a passing status to end, set labels and
    metadata, then stop, start or resume it; returns the VM as it ends up. Raises
    :class:`FlexStartError` (or an API error) when it cannot."""
    from ...providers.compute_ops import get_instance, instance_action
    from ...providers.rest import ApiError

    step = step or _Step()

    def current() -> dict[str, Any]:
        found = get_instance(client, vm.project, vm.zone, vm.name)
        if found is None:
            raise FlexStartError(
                f"{vm.describe()} no longer exists; run `pulumi refresh` (or `pulumi up "
                "--refresh`) to recreate it"
            )
        return found

    step.now = "wait for it to settle"
    instance = _settle(client, vm, instance, current)
    step.now = "set its labels and metadata"
    for attempt in range(2):  # a stale fingerprint (412) is refetched once
        try:
            _apply_labels_and_metadata(client, vm, instance)
            break
        except ApiError as err:
            if err.status != 412 or attempt:
                raise
            instance = current()
    status = str(instance.get("status"))
    if vm.desired == "TERMINATED" and status not in ("TERMINATED", "STOPPED"):
        step.now = "stop it"
        instance_action(client, vm.project, vm.zone, vm.name, "stop")
    elif vm.desired == "RUNNING" and status in ("TERMINATED", "STOPPED", "SUSPENDED"):
        step.now = "resume it" if status == "SUSPENDED" else "start it"
        _start(client, vm, "resume" if status == "SUSPENDED" else "start")
    elif vm.desired == "RUNNING" and status == "PENDING" and vm.wait_for == "running":
        step.now = "wait for its capacity"
        _wait_running(client, vm, current)
    step.now = "read the VM"
    final = current()
    wanted = {"TERMINATED", "STOPPED"} if vm.desired == "TERMINATED" else ACCEPTED
    if str(final.get("status")) not in wanted:
        raise FlexStartError(
            f"{vm.describe()} is {final.get('status')} after the update, not "
            f"{vm.desired}. To change: run `pulumi up --refresh` again"
        )
    return final


def _settle(
    client: Any, vm: _Vm, instance: dict[str, Any], current: Callable[[], dict[str, Any]]
) -> dict[str, Any]:
    """Wait (growing intervals, virtual under an emulator clock) until the VM's status is not
    a passing one (see :data:`PASSING`)."""
    from ...providers.compute_ops import DEFAULT_OPERATION_TIMEOUT

    waited, interval = 0.0, client.poll.initial
    while str(instance.get("status")) in PASSING:
        if waited >= DEFAULT_OPERATION_TIMEOUT:
            raise FlexStartError(
                f"{vm.describe()} is still {instance.get('status')} after {waited:.0f}s; "
                "nothing was changed. To change: run `pulumi up` again once it has settled"
            )
        client.sleep(interval)
        waited += interval
        interval = min(client.poll.cap, interval * client.poll.factor)
        instance = current()
    return instance


def _wait_running(client: Any, vm: _Vm, current: Callable[[], dict[str, Any]]) -> None:
    """A queued VM (no operation at hand): poll until it runs, or fail when the window ends."""
    waited, interval = 0.0, client.poll.initial
    budget = (vm.window or FAIL_FAST_TRY_SECONDS) + WAIT_MARGIN_SECONDS
    while True:
        status = str(current().get("status"))
        if status == "RUNNING":
            return
        if status not in ACCEPTED | PASSING or waited >= budget:
            raise FlexStartError(f"{vm.describe()} did not get capacity (it is {status})")
        client.sleep(interval)
        waited += interval
        interval = min(client.poll.cap, interval * client.poll.factor)


def _start(client: Any, vm: _Vm, action: str = "start") -> None:
    """Start (or resume) a stopped VM: a new capacity request (the run clock restarts once
    placed), waited for per ``waitFor``. On failure the VM is left stopped, its request
    cancelled if need be."""
    from ...providers.compute_ops import get_instance, instance_action

    op = instance_action(client, vm.project, vm.zone, vm.name, action, wait=False)
    try:
        await_capacity(client, vm, op)
        return
    except Exception as exc:  # noqa: BLE001 - settle the VM before reporting
        if _reached(client, vm, exc) is not None:
            return  # it got what was asked for anyway (e.g. only polling failed)
        reason = failure_text(vm, exc).replace("could not be created", f"could not {action}")
    stop = f"gcloud compute instances stop {vm.name} --zone {vm.zone} --project {vm.project}"
    try:
        instance = get_instance(client, vm.project, vm.zone, vm.name)
        if instance is None:
            left = "The VM no longer exists; run `pulumi refresh` to recreate it."
        elif instance.get("status") in STOPPED:
            left = (
                f"The VM was not started and stays {instance.get('status')} (stopped, not "
                "billed for GPUs)."
            )
        else:  # still waiting for capacity: cancel, or it may start later unknown to the stack
            instance_action(client, vm.project, vm.zone, vm.name, "stop")
            left = (
                "Its capacity request was cancelled: the VM stays TERMINATED (stopped, not "
                "billed for GPUs)."
            )
    except Exception as err:  # noqa: BLE001
        left = f"The VM may still be waiting for capacity ({err}): stop it with `{stop}`."
    raise FlexStartError(f"{reason} {left}")


def _reached(client: Any, vm: _Vm, exc: Exception) -> dict[str, Any] | None:
    from .create import FlexCreate

    return FlexCreate(client, vm).reached(exc)


def _apply_labels_and_metadata(client: Any, vm: _Vm, instance: Mapping[str, Any]) -> None:
    from ...providers.compute_ops import instance_action

    labels = dict(vm.body.get("labels") or {})
    current = instance.get("labels") if isinstance(instance.get("labels"), Mapping) else {}
    owner = (current or {}).get(OWNER_LABEL)
    if owner is not None:
        labels[OWNER_LABEL] = owner  # kept: it says who made the VM
    if labels != dict(current or {}):
        instance_action(
            client,
            vm.project,
            vm.zone,
            vm.name,
            "setLabels",
            {"labels": labels, "labelFingerprint": instance.get("labelFingerprint")},
        )
    wanted = _sorted_items((vm.body.get("metadata") or {}).get("items") or [])
    meta = instance.get("metadata") if isinstance(instance.get("metadata"), Mapping) else {}
    if wanted != _sorted_items(_metadata_items(instance)):
        instance_action(
            client,
            vm.project,
            vm.zone,
            vm.name,
            "setMetadata",
            {"items": wanted, "fingerprint": (meta or {}).get("fingerprint")},
        )


def _delete(provider: FlexStartVmProvider, props: dict[str, Any]) -> None:
    from ...providers.compute_ops import delete_instance
    from ...providers.paths import PathValueError
    from ...providers.rest import ApiError, OperationError

    vm = _Vm.of(props)
    try:
        delete_instance(provider.client(), vm.project, vm.zone, vm.name)
    except (ApiError, OperationError, TimeoutError, PathValueError) as err:
        raise FlexStartError(
            f"{vm.describe()} could not be deleted: {err}. It is still in the stack: run "
            "`pulumi destroy` (or `pulumi up`) again, or delete it with `gcloud compute "
            f"instances delete {vm.name} --zone {vm.zone} --project {vm.project}` and then "
            "`pulumi refresh`."
        ) from None
