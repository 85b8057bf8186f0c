"""The create of a Flex-start VM, as steps of the shared
:class:`~pulumi_dws.providers.create_machine.CreateMachine`.

Crash adoption. A Python dynamic provider's ``create`` does not see the URN and cannot record a
partial create, so a ``pulumi up`` that dies after the insert reached Google would leave a
billing GPU VM the state does not know. Two things make the next ``pulumi up`` (same inputs)
adopt it instead of failing with "already exists":

* the **ownership label** ``dws-create=<key>`` on the VM, ``<key>`` a short hash of the inputs
  that make the VM what it is (project, zone, name, template, the body's shape: not its labels,
  metadata or queue window, which may change). A VM with the right name and label is ours; a VM
  with the name but without it (or with another key) is someone else's, and is refused;
* a **deterministic request id** derived from the same key, so an insert sent again after a
  crash or a lost answer is deduplicated by Compute.

The trap: Compute remembers a request id for a while (at least an hour), so after a deliberate
delete, a create with the same inputs (same id) is answered with the *old*, finished operation
while no VM exists; an old failed operation is replayed the same way. Such stale answers are
detected (a finished insert whose VM is gone, or an operation older than this create, by the
server's own clock) and the create goes on with a fresh, random id (a second VM cannot come of
it: the name is taken, and the label says whose it is).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ...duration import Duration
from ...providers.cancellation import GraceExpired
from ...providers.compute_insert import (
    AttemptIds,
    insert_answer,
    name_taken_text,
    unconfirmed_text,
)
from ...providers.compute_ops import (
    create_request_id,
    delete_instance,
    get_instance,
    instance_action,
    instance_path,
    is_operation,
    typed_instance,
)
from ...providers.create_machine import (
    OWNER_LABEL,
    CleanUp,
    Found,
    Outcome,
    Phase,
    Sent,
    found_by_owner,
    withdrawn,
)
from ...providers.ownership import STACK_LABEL, Owner, owner_key
from ...providers.rest import ApiError
from .api import FLEX_VM, QUEUED, FlexStartError
from .lifecycle import await_capacity, converge, reached_anyway
from .messages import failure_text, rejected_text
from .target import FlexVm

if TYPE_CHECKING:
    from ...providers.rest import GoogleRestClient

__all__ = ["OWNER_LABEL", "FlexCreate", "create_key"]


def create_key(props: Mapping[str, Any]) -> str:
    """The ownership key of a VM's inputs: 20 hex digits (a valid label value) of an HMAC keyed
    with the stack that creates, over what makes the VM what it is (not its labels, metadata or
    queue window, which may change; see :func:`~pulumi_dws.providers.ownership.owner_key`)."""
    body = {k: v for k, v in dict(props.get("body") or {}).items() if k not in _NOT_IN_KEY}
    identity = {
        "project": props.get("project"),
        "zone": props.get("zone"),
        "name": props.get("name"),
        "template": props.get("sourceInstanceTemplate") or "",
        "body": typed_instance(body),
    }
    return owner_key(Owner.of(props), identity)


_NOT_IN_KEY = frozenset({"labels", "metadata", "params"})


class FlexCreate:
    """The steps of one FlexStartVm create (a :class:`CreateSteps`)."""

    def __init__(self, client: GoogleRestClient, vm: FlexVm) -> None:
        self.client = client
        self.vm = vm
        self.owner = Owner.of(vm.props)
        self.key = create_key(vm.props)
        self.request_id: str | None = None
        self.started: float | None = None  # the server's time when this create began
        self.failure: Exception | None = None  # why the create failed, once it did
        # The first id is derived from the inputs: an insert sent again after a crash is
        # deduplicated. Once it proved stale, a random one: never stale, and a second VM can't
        # happen anyway (the name is taken; the label says whose it is).
        self._ids = AttemptIds(create_request_id(vm.project, vm.zone, vm.name, f"{self.key}#0"))

    # ------------------------------------------------------------------ find
    def find(self) -> Found[dict[str, Any]]:
        vm = self.vm
        try:
            instance = get_instance(self.client, vm.project, vm.zone, vm.name)
        except ApiError as err:
            return Found(unknown=True, why=str(err))
        finally:
            if self.started is None:
                self.started = self.client.server_time
        if instance is None:
            return Found()
        labels = instance.get("labels") if isinstance(instance.get("labels"), Mapping) else {}
        exists = f"an instance named {vm.name} already exists in {vm.zone}"
        return found_by_owner(
            instance,
            (labels or {}).get(OWNER_LABEL),
            self.key,
            exists,
            stack=(labels or {}).get(STACK_LABEL),
            ours=self.owner.mark if self.owner is not None else None,
        )

    # ------------------------------------------------------------------ send
    def body(self) -> dict[str, Any]:
        body = dict(self.vm.body)
        marks = {OWNER_LABEL: self.key}
        if self.owner is not None:
            marks[STACK_LABEL] = self.owner.mark
        body["labels"] = {**dict(body.get("labels") or {}), **marks}
        return typed_instance(body)

    def send(self, attempt: int) -> Sent[dict[str, Any]]:
        vm = self.vm
        self.request_id = self._ids(attempt)
        params: dict[str, Any] = {"requestId": self.request_id}
        if vm.template:
            params["sourceInstanceTemplate"] = vm.template
        return insert_answer(
            lambda: self.client.post(
                instance_path(vm.project, vm.zone), self.body(), expect=is_operation, **params
            ),
            started=self.started,
            current=lambda: get_instance(self.client, vm.project, vm.zone, vm.name),
            what="VM",
        )

    # ------------------------------------------------------------------ follow / adopt
    def follow(self, op: dict[str, Any]) -> Outcome[dict[str, Any]]:
        vm = self.vm
        try:
            await_capacity(self.client, vm, op)
            if vm.desired == "TERMINATED":
                instance_action(self.client, vm.project, vm.zone, vm.name, "stop")
            instance = get_instance(self.client, vm.project, vm.zone, vm.name)
            if instance is None:
                raise FlexStartError(f"{vm.describe()} disappeared right after it was created")
        except TimeoutError as exc:
            kept = self._at_wait_timeout()
            return kept if kept is not None else Outcome(Phase.FAILED, error=exc)
        except Exception as exc:  # noqa: BLE001 - every failure must settle or clean up first
            return Outcome(Phase.FAILED, error=exc)
        return Outcome(_phase_of(instance), instance)

    def _at_wait_timeout(self) -> Outcome[dict[str, Any]] | None:
        """The ``waitTimeout`` passed inside the queue window with the VM still queued: with
        ``onTimeout: keep`` (the default) it stays queued (its window still bounds it: Google
        ends the request then), and the create succeeds saying so; with ``cancel`` a failure
        that says so (the VM is then removed). None: not a queued VM at its wait_timeout (the
        wait's own error stands)."""
        vm = self.vm
        if vm.wait_timeout is None:
            return None
        try:
            instance = get_instance(self.client, vm.project, vm.zone, vm.name)
        except ApiError:
            return None
        if instance is None or instance.get("status") not in FLEX_VM.states.queued:
            return None
        waited = Duration(int(vm.wait_timeout)).human()
        status = instance.get("status")
        if vm.on_timeout != "keep":
            return Outcome(
                Phase.FAILED,
                error=FlexStartError(
                    f"{vm.describe()} was still {status} in the queue when its wait_timeout "
                    f"({waited}) passed, and on_timeout='cancel' removes it then. To change: "
                    "a longer wait_timeout, on_timeout='keep' to keep its place in the queue, "
                    "or wait_for='accepted'"
                ),
            )
        note = (
            f"the wait_timeout ({waited}) passed with the VM still {status} in the queue: it "
            "is kept, queued until its window ends, and `pulumi refresh` follows it. To cancel "
            "it at the wait_timeout instead, set on_timeout='cancel'."
        )
        return Outcome(Phase.PENDING, instance, note=note)

    def adopt(self, instance: dict[str, Any]) -> Outcome[dict[str, Any]]:
        try:
            final = converge(self.client, self.vm, instance)
        except Exception as exc:  # noqa: BLE001 - every failure must settle or clean up first
            return Outcome(Phase.FAILED, error=exc)
        return Outcome(_phase_of(final), final)

    # ------------------------------------------------------------------ failure
    def reached(self, failure: Exception) -> dict[str, Any] | None:
        return reached_anyway(self.client, self.vm, failure)

    def clean_up(self, failure: Exception) -> CleanUp[dict[str, Any]]:
        vm = self.vm
        self.failure = failure
        left: dict[str, Any] = {}
        for _ in range(2):  # a second time if it came back (an insert that arrived late)
            try:
                deleted = delete_instance(self.client, vm.project, vm.zone, vm.name)
            except Exception as err:  # noqa: BLE001 - e.g. the delete went through unanswered
                return self._after_failed_delete(err)
            try:
                found = get_instance(self.client, vm.project, vm.zone, vm.name)
            except ApiError:
                found = None  # the delete was confirmed: trust it
            if found is None:
                done = ": the half-created VM was deleted." if deleted else "."
                return CleanUp(True, f"Nothing was left behind{done}")
            left = found
        return CleanUp(
            False,
            f"The VM reappeared after it was deleted; it is kept in the stack as it is "
            f"({left.get('status')}): run `pulumi destroy` or `pulumi up` again.",
            left=left,
        )

    def _after_failed_delete(self, err: Exception) -> CleanUp[dict[str, Any]]:
        vm = self.vm
        try:
            instance = get_instance(self.client, vm.project, vm.zone, vm.name)
        except Exception:  # noqa: BLE001
            return CleanUp(
                False,
                f"The VM may still exist and could not be deleted ({err}). It carries the label "
                f"{OWNER_LABEL}={self.key}: run `pulumi up` again with the same inputs to adopt "
                f"it, or delete it with `{vm.gcloud('delete')}`.",
            )
        if instance is None:
            return CleanUp(True, "Nothing was left behind: the half-created VM was deleted.")
        return CleanUp(
            False,
            f"The VM could not be deleted ({err}); it is kept in the stack with its true status "
            f"({instance.get('status')}), so `pulumi up`, `refresh` and `destroy` reach it.",
            left=instance,
        )

    # ------------------------------------------------------------------ interrupted
    def withdraw(self, reason: str) -> CleanUp[dict[str, Any]]:
        """Interrupted: a VM of ours still queued (``PENDING``) is deleted; one with capacity is
        kept (see :func:`~pulumi_dws.providers.create_machine.withdrawn`)."""
        vm = self.vm

        def remove(_instance: dict[str, Any]) -> str:
            try:
                delete_instance(self.client, vm.project, vm.zone, vm.name)
            except GraceExpired:
                return "its delete was sent (not confirmed within the grace the engine gives)"
            return "the VM was deleted"

        return withdrawn(
            self.find(),
            queued=lambda instance: instance.get("status") in FLEX_VM.states.queued,
            remove=remove,
            what=f"VM {vm.name}",
            reason=reason,
        )

    # ------------------------------------------------------------------ messages
    def message(self, phase: Phase, detail: str, error: Exception | None) -> str:
        vm = self.vm
        if phase is Phase.WITHDRAWN:
            return f"{vm.describe()} was not created: {detail}"
        if phase is Phase.NOT_OURS:
            return name_taken_text(
                vm.describe(), detail, "instance_name", "VM", vm.gcloud("delete")
            )
        if phase is Phase.REJECTED:
            if isinstance(error, ApiError) and error.ambiguous:
                return unconfirmed_text(vm.describe(), error, "VM")
            return rejected_text(vm, error or RuntimeError(detail))
        if phase is Phase.CLEANED_UP:
            return f"{failure_text(vm, error or RuntimeError(detail))} {detail}"
        if self.failure is not None:  # the create failed and its clean-up could not finish
            return f"{failure_text(vm, self.failure)} {detail}"
        return (
            f"{vm.describe()}: {detail}. Whether the VM was created cannot be read now. If it "
            f"was, it carries the label {OWNER_LABEL}={self.key}: run `pulumi up` again with "
            "the same inputs and it is adopted (one VM, nothing duplicated); or check with "
            f"`{vm.gcloud('describe')}` and delete it."
        )


def _phase_of(instance: Mapping[str, Any]) -> Phase:
    return Phase.PENDING if instance.get("status") in QUEUED else Phase.RUNNING
