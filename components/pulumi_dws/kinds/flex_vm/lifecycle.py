"""What a ``FlexStartVm`` does to a VM that exists: wait for its capacity, bring it to the
status, labels and metadata its inputs declare (stop, start, resume), and tell whether a failure
reached what was asked anyway. Shared by the create's steps (:mod:`~.create`) and the
provider's update (:mod:`~.provider`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ...providers.cancellation import Interrupted, shielded
from ...providers.compute_ops import (
    DEFAULT_OPERATION_TIMEOUT,
    get_instance,
    instance_action,
    wait_zone_operation,
)
from ...providers.create_machine import OWNER_LABEL
from ...providers.ownership import STACK_LABEL
from ...providers.rest import ApiError, GoogleRestClient, OperationError
from .api import (
    ACCEPTED,
    FAIL_FAST_TRY_SECONDS,
    PASSING,
    STOPPED,
    WAIT_MARGIN_SECONDS,
    FlexStartError,
)
from .messages import failure_text
from .target import FlexVm

__all__ = [
    "Step",
    "await_capacity",
    "converge",
    "metadata_items",
    "reached_anyway",
    "sorted_items",
]


def await_capacity(client: GoogleRestClient, vm: FlexVm, op: dict[str, Any]) -> dict[str, Any]:
    """Wait for an insert/start/resume operation per ``waitFor``; raise on stock-out or
    timeout."""
    until = None
    if vm.window and vm.wait_for == "accepted":

        def until(_op: dict[str, Any]) -> bool:
            instance = get_instance(client, vm.project, vm.zone, vm.name)
            return instance is not None and instance.get("status") in ACCEPTED

    budget = (vm.window or FAIL_FAST_TRY_SECONDS) + WAIT_MARGIN_SECONDS
    if vm.wait_timeout is not None:  # the program's wait_timeout, within what the window allows
        budget = min(budget, vm.wait_timeout)
    return wait_zone_operation(client, vm.project, vm.zone, op, timeout=budget, until=until)


def metadata_items(instance: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The VM's metadata items (those with a key)."""
    meta = instance.get("metadata")
    items = meta.get("items") if isinstance(meta, Mapping) else None
    return [i for i in items or [] if isinstance(i, Mapping) and "key" in i]


def sorted_items(items: list[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Metadata items as compared and sent: ``key`` and ``value``, by key."""
    return sorted(
        ({"key": i["key"], "value": i.get("value", "")} for i in items), key=lambda i: i["key"]
    )


class Step:
    """What an update is doing, for its error message."""

    def __init__(self) -> None:
        self.now = "read the VM"


def converge(
    client: GoogleRestClient, vm: FlexVm, instance: dict[str, Any], step: Step | None = None
) -> dict[str, Any]:
    """Bring a VM to what ``vm`` declares: wait for a passing status to end, set labels and
    metadata, then stop, start or resume it; returns the VM as it ends up. Raises
    :class:`FlexStartError` (or an API error) when it cannot."""
    step = step or Step()

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
    client: GoogleRestClient,
    vm: FlexVm,
    instance: dict[str, Any],
    current: Callable[[], dict[str, Any]],
) -> dict[str, Any]:
    """Wait (growing intervals, virtual under an emulator clock; an outage waited out) until
    the VM's status is not a passing one (see :data:`PASSING`)."""
    result = client.wait_until(
        current,
        lambda found: str(found.get("status")) not in PASSING,
        DEFAULT_OPERATION_TIMEOUT,
        initial=instance,
    )
    if not result.done:
        seen = result.value or instance
        raise FlexStartError(
            f"{vm.describe()} is still {seen.get('status')} after {result.waited:.0f}s; "
            "nothing was changed. To change: run `pulumi up` again once it has settled"
        )
    assert result.value is not None
    return result.value


def _wait_running(
    client: GoogleRestClient, vm: FlexVm, current: Callable[[], dict[str, Any]]
) -> None:
    """A queued VM (no operation at hand): poll until it runs, or fail when the window ends."""
    budget = (vm.window or FAIL_FAST_TRY_SECONDS) + WAIT_MARGIN_SECONDS

    def settled(found: dict[str, Any]) -> bool:
        return str(found.get("status")) not in (ACCEPTED | PASSING) - {"RUNNING"}

    result = client.wait_until(current, settled, budget)
    status = str((result.value or {}).get("status"))
    if status != "RUNNING":
        raise FlexStartError(f"{vm.describe()} did not get capacity (it is {status})")


def _start(client: GoogleRestClient, vm: FlexVm, action: str = "start") -> None:
    """Start (or resume) a stopped VM: a new capacity request (the run clock restarts once
    placed), waited for per ``waitFor``. On failure the VM is left stopped, its request
    cancelled if need be."""

    op = instance_action(client, vm.project, vm.zone, vm.name, action, wait=False)
    try:
        await_capacity(client, vm, op)
        return
    except Interrupted as interrupted:  # still queued: withdraw the start, as a create does
        withdrawn = _withdraw_start(client, vm)
        raise Interrupted(f"{interrupted.reason}; {withdrawn}") from None
    except Exception as exc:  # noqa: BLE001 - settle the VM before reporting
        if reached_anyway(client, vm, exc) is not None:
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


def _withdraw_start(client: GoogleRestClient, vm: FlexVm) -> str:
    """An interrupted start: stop the VM while it still waits for capacity (within the grace
    the engine gives), so it never starts unknown to the stack; one that runs is left
    running. What was done."""
    with shielded():
        try:
            instance = get_instance(client, vm.project, vm.zone, vm.name)
            status = str((instance or {}).get("status"))
            if instance is None or status in STOPPED or status == "RUNNING":
                return f"the VM is {status}"
            instance_action(client, vm.project, vm.zone, vm.name, "stop", wait=False)
        except Exception as err:  # noqa: BLE001 - say what is known
            return f"its start could not be withdrawn ({err}): stop it with `{vm.gcloud('stop')}`"
    return "its start was withdrawn: the VM stays stopped"


def _apply_labels_and_metadata(
    client: GoogleRestClient, vm: FlexVm, instance: Mapping[str, Any]
) -> None:
    """Set the VM's labels (keeping its ownership label) and metadata to what ``vm``
    declares, when they differ."""
    labels = dict(vm.body.get("labels") or {})
    current = instance.get("labels") if isinstance(instance.get("labels"), Mapping) else {}
    for mark in (OWNER_LABEL, STACK_LABEL):  # kept: they say who made the VM
        if (current or {}).get(mark) is not None:
            labels[mark] = (current or {})[mark]
    if labels != dict(current or {}):
        instance_action(
            client,
            vm.project,
            vm.zone,
            vm.name,
            "setLabels",
            {"labels": labels, "labelFingerprint": instance.get("labelFingerprint")},
        )
    wanted = sorted_items((vm.body.get("metadata") or {}).get("items") or [])
    meta = instance.get("metadata") if isinstance(instance.get("metadata"), Mapping) else {}
    if wanted != sorted_items(metadata_items(instance)):
        instance_action(
            client,
            vm.project,
            vm.zone,
            vm.name,
            "setMetadata",
            {"items": wanted, "fingerprint": (meta or {}).get("fingerprint")},
        )


def reached_anyway(
    client: GoogleRestClient, vm: FlexVm, failure: Exception
) -> dict[str, Any] | None:
    """After a failure: the VM, if it reached what ``waitFor`` asks anyway (e.g. only the
    polling failed); else None (Compute said it failed, or the VM is gone or elsewhere)."""
    if isinstance(failure, (OperationError, FlexStartError)):
        return None  # Compute said the insert failed, or the VM is gone
    try:
        instance = get_instance(client, vm.project, vm.zone, vm.name)
    except Exception:  # noqa: BLE001 - then clean up
        return None
    if instance is None or vm.desired == "TERMINATED":
        return None
    wanted = ACCEPTED if vm.wait_for == "accepted" and vm.window else {"RUNNING"}
    return instance if instance.get("status") in wanted else None
