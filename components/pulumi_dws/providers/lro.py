"""The declared base for resources of Google's one-platform APIs (Cloud TPU queued resources,
Vertex AI clusters and jobs, Batch jobs), whose changes are ``google.longrunning`` operations
polled by name until ``done``: :class:`LroProvider` (waiting, deleting) and :class:`LroCreate`
(every step of the shared create machine).

A new resource of such an API declares a :class:`~.rest_resource.RestResource` and, usually,
only these hooks of :class:`LroCreate`: :meth:`~LroCreate.judge` (what a settled resource
means), :meth:`~LroCreate.settled` (when waiting for it ends) and :attr:`~LroCreate.MESSAGES`
(how its errors read); the rest follows from the declaration:

- the declared :class:`~.create_machine.Idempotency` decides how the create is sent and
  settled: with ``REQUEST_ID`` each attempt carries a ``requestId`` (kept for the client's
  retries); with ``REQUEST_ID`` or ``CALLER_ID`` the declared ``id_param`` names the resource
  (``queuedResourceId``, ``jobId``); with ``OWNER_SEARCH`` the API names it, the REST client
  never sends the create twice, and a create is found by the ownership label it carries
  (:meth:`LroProvider.search`: a list filtered on ``labels.dws-create``);
- the ownership label (:data:`~.create_machine.OWNER_LABEL`) goes on the body's ``labels``
  (:meth:`~LroCreate.with_owner`) and is read back from them (:meth:`~LroCreate.owner_mark`);
  its value is a hash of the inputs that make the resource what it is
  (:meth:`~LroCreate.owner_key`);
- a create answered with the resource itself (``customJobs.create``, ``jobs.create``) rather
  than an operation sets :attr:`~LroCreate.CREATE_ANSWER` to ``"resource"``.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from .cancellation import GraceExpired
from .create_machine import (
    CleanUp,
    Found,
    Idempotency,
    Outcome,
    Phase,
    Sent,
    found_by_owner,
    kept_unless_gone,
    sent_after,
    withdrawn,
)
from .ownership import Owner, owner_key
from .paths import PathValueError, operation_name_path
from .rest import ApiError, is_lro, pages, wire
from .rest_provider import DEFAULT_TIMEOUT
from .rest_resource import RestResourceProvider, Target

if TYPE_CHECKING:
    from .rest import GoogleRestClient, PollPolicy

__all__ = [
    "LroCreate",
    "LroProvider",
    "OperationFailed",
    "Ended",
    "RPC_CODES",
    "describe_status",
    "busy_refusal",
]

RPC_CODES = {
    1: "CANCELLED",
    2: "UNKNOWN",
    3: "INVALID_ARGUMENT",
    4: "DEADLINE_EXCEEDED",
    5: "NOT_FOUND",
    6: "ALREADY_EXISTS",
    7: "PERMISSION_DENIED",
    8: "RESOURCE_EXHAUSTED",
    9: "FAILED_PRECONDITION",
    10: "ABORTED",
    13: "INTERNAL",
    14: "UNAVAILABLE",
}
"""``google.rpc.Code`` names of the codes an operation's error carries."""
NOT_FOUND = 5


def describe_status(status: Mapping[str, Any]) -> str:
    """A ``google.rpc.Status`` as text: ``13 INTERNAL: backend error``."""
    code = status.get("code")
    name = RPC_CODES.get(code, "") if isinstance(code, int) else ""
    head = f"{code} {name}".strip()
    return f"{head}: {status.get('message', '')}" if head else str(status.get("message", status))


def busy_refusal(err: ApiError) -> bool:
    """``FAILED_PRECONDITION`` (400 or 409): the resource is busy (being created, updated or
    deleted) and refuses the change until it settles."""
    body = err.body if isinstance(err.body, dict) else {}
    status = (body.get("error") or {}).get("status", "") if isinstance(body, dict) else ""
    return err.status in (400, 409) and "FAILED_PRECONDITION" in (err.reason, status)


class OperationFailed(Exception):
    """An operation finished with an error: ``status`` (a ``google.rpc.Status``) and ``text``
    (it as the provider describes it)."""

    def __init__(self, what: str, status: Mapping[str, Any], text: str) -> None:
        self.status = dict(status)
        self.text = text
        super().__init__(f"{what} failed: {text}")

    @property
    def code(self) -> Any:
        return self.status.get("code")


class Ended(Exception):
    """A create's resource ended where it can never become what was asked."""


class LroProvider(RestResourceProvider):
    """A declared resource of a one-platform API (see the module docstring)."""

    UNDELETABLE: ClassVar[tuple[type[Exception], ...]] = (
        *RestResourceProvider.UNDELETABLE,
        OperationFailed,
    )

    OPERATION_LOCATION: ClassVar[str] = "region"
    """The segment kind of the location in the API's operation names (Cloud TPU: ``zone``)."""

    def __init__(
        self,
        timeout: float = DEFAULT_TIMEOUT,
        sleep: Callable[[float], None] | None = None,
        poll: PollPolicy | None = None,
    ) -> None:
        """``timeout`` first (as the first such providers took it); see :class:`RestProvider`
        for ``sleep`` and ``poll``. The timeout is kept on the instance, so it is pickled."""
        super().__init__(sleep, poll, timeout)

    def describe_status(self, status: Mapping[str, Any]) -> str:
        """Hook: how an operation's error reads in messages."""
        return describe_status(status)

    def wait_operation(
        self, client: GoogleRestClient, operation: Mapping[str, Any], what: str
    ) -> dict[str, Any]:
        """Poll an operation until ``done`` (its name is checked before it is a path); the
        declared error when the API answered without a usable operation."""
        try:
            poll = self.operation_path(operation.get("name"))
        except PathValueError:
            raise self.failed(
                f"{what}: the API answered without a usable operation: {str(operation)[:200]}"
            ) from None
        return client.wait(
            dict(operation),
            poll,
            is_done=lambda op: bool(op.get("done")),
            timeout=self.timeout,
            expect=is_lro,
        )

    def operation_path(self, name: Any) -> str:
        """Hook: the poll path of an operation the API named ``name``, each segment checked
        (:class:`~.paths.PathValueError` otherwise). Default: a location's operation,
        ``projects/P/locations/L/operations/ID`` (an API that names some under a resource, as
        Vertex AI names a deployment's under its endpoint, overrides it)."""
        return operation_name_path(name, location=self.OPERATION_LOCATION)

    def check_operation(self, done: Mapping[str, Any], what: str) -> None:
        """Raise :class:`OperationFailed` when a finished operation carries an error other than
        ``NOT_FOUND`` (what it was to remove is gone)."""
        error = done.get("error")
        if isinstance(error, Mapping) and error.get("code") != NOT_FOUND:
            raise OperationFailed(what, error, self.describe_status(error))

    def delete_and_wait(self, client: GoogleRestClient, target: Target) -> bool:
        """``DELETE`` the resource and wait for its operation; a delete refused while the
        resource is busy (:func:`busy_refusal`: a create, update or delete in flight) waits for
        it to settle, then is sent once more. False when there was nothing to delete."""
        states = self.RESOURCE.states
        moving = states.busy | states.deleting
        for attempt in range(2):
            try:
                operation = client.delete(target.path, expect=is_lro)
            except ApiError as err:
                if err.not_found:
                    return False
                if not busy_refusal(err):
                    raise
                live = self.poll(client, target, lambda r: r is None or states.of(r) not in moving)
                if live is None:
                    return True  # the delete in flight finished it
                if attempt or states.of(live) in moving:
                    raise
                continue
            done = self.wait_operation(client, operation, f"delete of {target.path}")
            self.check_operation(done, f"delete of {target.path}")
            return True
        raise AssertionError("unreachable")

    def search(self, client: GoogleRestClient, target: Target, key: str) -> list[dict[str, Any]]:
        """Hook: the resources of ``target``'s collection that carry the ownership label
        ``key``, oldest first (used in ``OWNER_SEARCH`` mode). Default: the list method,
        filtered on the label (``filter=labels.dws-create="<key>"``, AIP-160), every page;
        the answer's list is under the collection's name (AIP-132)."""
        collection = target.collection
        field = collection.rsplit("/", 1)[-1]
        found: list[dict[str, Any]] = []
        label = self.RESOURCE.owner_label

        def fetch(token: str | None) -> Mapping[str, Any]:
            params: dict[str, Any] = {"filter": f'labels.{label}="{key}"'}
            if token:
                params["pageToken"] = token
            return client.get(collection, **params)

        for page in pages(fetch, f"the search of {collection} for {label}={key}"):
            found += [dict(i) for i in page.get(field) or [] if isinstance(i, Mapping)]
        return found


class LroCreate:
    """The steps of one create of an :class:`LroProvider`'s resource (a
    :class:`~.create_machine.CreateSteps`), run in the declared idempotency mode.

    Hooks a kind overrides (each method's docstring says its default):

    - what is sent: :meth:`body` (and :meth:`with_owner`, where the ownership label goes);
    - whose it is: :meth:`owner_key` (the label's value: stack identity belongs here),
      :meth:`owner_mark` (where a found resource carries it), :meth:`owned` (a kind that
      recognises its own by other means: Slurm, by its spec);
    - how long and until what it waits: :meth:`settled`, :meth:`wait_seconds`,
      :meth:`after_operation`; what it means: :meth:`judge`;
    - data: :attr:`CREATE_ANSWER`, :attr:`OWNER_HOLDER`, :attr:`LEFTOVER`, :attr:`MESSAGES`.

    ``target`` becomes the created resource's own once its id is known (at once for a resource
    the program names; from the API's answer, or a search, in ``OWNER_SEARCH`` mode)."""

    CREATE_ANSWER: ClassVar[str] = "operation"
    """What the create method answers: ``"operation"`` or ``"resource"`` (the resource)."""
    OWNER_HOLDER: ClassVar[str] = "it"
    """What carries the ownership label, as messages say it (``"its node"``)."""
    LEFTOVER: ClassVar[str] = "The failed {noun}"
    """What a clean-up deletes, as its message names it."""
    MESSAGES: ClassVar[dict[str, str]] = {
        "not-ours": (
            "{noun} {path} {detail}. Nothing was created or changed. To change: choose another "
            "{name}, or delete that {noun}{removal} and deploy again."
        ),
        "lost": (
            "create of {noun} {path} got no usable answer ({error}), and none exists: nothing "
            "was created. To change: deploy again later."
        ),
        "rejected": "create of {noun} {path} {detail}",
        "cleaned-up": "{noun} {path} failed: {error}. {detail}",
        "withdrawn": "create of {noun} {path} stopped: {detail}",
        "unknown": (
            "create of {noun} {path}: {detail}. It may exist: run `pulumi up` again to adopt "
            "it (same inputs), or delete it."
        ),
    }
    """The create's error messages, by ending (``str.format`` fields: ``noun``, ``path``,
    ``detail``, ``error``, ``name``: the input that names the resource, ``removal``: `` (`the
    command`)`` that removes it, or empty)."""

    def __init__(self, provider: LroProvider, client: GoogleRestClient, target: Target) -> None:
        self.provider = provider
        self.client = client
        self.target = target
        self.resource = provider.RESOURCE
        self.mode = self.resource.idempotency
        self.owner = Owner.of(target.props)
        self.key = self.owner_key()
        self.request_ids: dict[int, str] = {}
        self._absent_since: tuple[float | None, int] | None = None

    # ------------------------------------------------------------------ hooks
    def owner_key(self) -> str:
        """Hook: the ownership key of these inputs (20 hex digits, a valid label value):
        :func:`~.ownership.owner_key` of the declared ``replace_keys`` inputs, keyed with the
        stack that creates and the resource's own name in it (the ``owner`` input; two
        resources of identical inputs then never adopt each other), secret-bearing inputs left
        out. An ``owner`` that is a name only (an older form) is hashed with the inputs."""
        props = self.target.props
        inputs = {key: props.get(key) for key in self.resource.replace_keys}
        if self.owner is None and props.get("owner") is not None:
            inputs["owner"] = props.get("owner")
        return owner_key(self.owner, inputs)

    def owner_labels(self, live: Mapping[str, Any]) -> Mapping[str, Any]:
        """Hook: the labels of a resource found that carry the ownership marks (default: its
        ``labels``)."""
        labels = live.get("labels")
        return labels if isinstance(labels, Mapping) else {}

    def owner_mark(self, live: Mapping[str, Any]) -> str | None:
        """The ownership label of a resource found (the declared ``owner_label``; None: it has
        none)."""
        mark = self.owner_labels(live).get(self.resource.owner_label)
        return mark if isinstance(mark, str) else None

    def marks(self) -> dict[str, str]:
        """The labels a create adds: the ownership key, and the stack when it is known (under
        the declared ``owner_label`` and ``stack_label``)."""
        added = {self.resource.owner_label: self.key}
        if self.owner is not None:
            added[self.resource.stack_label] = self.owner.mark
        return added

    def with_owner(self, body: Mapping[str, Any]) -> dict[str, Any]:
        """Hook: the body with the ownership labels (:meth:`marks`; numbers typed as sent)."""
        out = wire(body)
        out["labels"] = {**dict(out.get("labels") or {}), **self.marks()}
        return dict(out)

    def body(self) -> dict[str, Any]:
        """Hook: what the create sends. Default: the ``body`` input with the ownership label."""
        return self.with_owner(self.target.props.get("body") or {})

    def create_path(self) -> str:
        """Hook: where the create is POSTed. Default: the collection (a custom method such as
        ``endpoints.deployModel`` posts to ``{endpoint}:deployModel``)."""
        return self.target.collection

    def params(self, attempt: int) -> dict[str, Any]:
        """The create's query parameters: the declared ``id_param`` (the resource's own id),
        and in ``REQUEST_ID`` mode a request id per attempt (the same for every retry)."""
        params: dict[str, Any] = {}
        id_param = self.resource.id_param
        if id_param:
            params[id_param] = self.target.props.get(self.resource.path.keys[-1])
        if self.mode is Idempotency.REQUEST_ID:
            params["requestId"] = self.request_ids.setdefault(attempt, str(uuid.uuid4()))
        return params

    def owned(self, live: dict[str, Any]) -> Found[dict[str, Any]]:
        """Hook: whether a resource found is this create's own. Default: by its ownership
        label."""
        stack = self.owner_labels(live).get(self.resource.stack_label)
        return found_by_owner(
            live,
            self.owner_mark(live),
            self.key,
            "it already exists",
            self.OWNER_HOLDER,
            stack=stack if isinstance(stack, str) else None,
            ours=self.owner.mark if self.owner is not None else None,
            label=self.resource.owner_label,
        )

    def settled(self, live: dict[str, Any] | None) -> bool:
        """Hook: whether waiting for an accepted or adopted resource ends here. Default: ready
        or ended (a state the declaration knows), or gone *and confirmed gone*
        (:meth:`absent`): an unknown state or one read of absence never ends the wait."""
        if live is None:
            return self.absent()
        states = self.resource.states
        return states.of(live) in states.ready | states.ended

    def absent(self) -> bool:
        """A read found nothing: whether the absence is confirmed, i.e. every read for the
        declared ``settle_seconds`` (by the server's clock; else four reads) found nothing. A
        resource that exists but reads 404 right after its create (eventual consistency) shows
        up again before then."""
        now = self.client.server_time
        if self._absent_since is None:
            self._absent_since = (now, 0)
        since, reads = self._absent_since
        self._absent_since = (since, reads + 1)
        if now is not None and since is not None:
            return now - since >= self.resource.settle_seconds
        return reads + 1 >= 4

    def present(self) -> None:
        """A read found the resource: absence starts over."""
        self._absent_since = None

    def asked_wait(self) -> float | None:
        """The ``waitTimeout`` input (seconds), when the program sets one."""
        given = self.target.props.get("waitTimeout")
        if isinstance(given, (int, float)) and not isinstance(given, bool) and given > 0:
            return float(given)
        return None

    def wait_seconds(self) -> float:
        """Hook: how long a create waits for its resource to settle: the ``waitTimeout`` input
        when there is one (:meth:`asked_wait`), else the provider's timeout."""
        asked = self.asked_wait()
        return self.provider.timeout if asked is None else asked

    @property
    def on_timeout(self) -> str:
        """What the ``onTimeout`` input asks when the wait passes with the resource still on its
        way: ``keep`` (default: succeed with its true state, and say so) or ``cancel``."""
        return "cancel" if self.target.props.get("onTimeout") == "cancel" else "keep"

    def judge(self, live: dict[str, Any] | None) -> Outcome[dict[str, Any]]:
        """Hook: what a settled resource means: ready (RUNNING), still on its way (PENDING), or
        FAILED (gone, ended); one still on its way, or in a state the declaration does not know,
        when the wait ran out: :meth:`timed_out`."""
        if live is None:
            return Outcome(Phase.FAILED, error=Ended(f"the {self.resource.noun} is gone"))
        states = self.resource.states
        state = states.of(live)
        if state in states.ready:
            return Outcome(Phase.RUNNING, live)
        if state in states.ended:
            return Outcome(Phase.FAILED, error=Ended(f"it is {state}"))
        return self.timed_out(live)

    def timed_out(self, live: dict[str, Any]) -> Outcome[dict[str, Any]]:
        """The wait ran out with the resource not yet what was asked (or in a state that can't
        be read as an end): kept as it is, a success that says so (``onTimeout: keep``); or
        FAILED, so it is removed (``onTimeout: cancel``)."""
        state = self.resource.states.of(live)
        waited = f"{self.wait_seconds():.0f}s"
        if self.on_timeout == "cancel":
            return Outcome(Phase.FAILED, error=Ended(f"it is still {state} after {waited}"))
        return Outcome(
            Phase.PENDING,
            live,
            note=(
                f"the wait ({waited}) ended with it {state}, not yet what was asked: it is kept "
                "as it is, and `pulumi refresh` follows it. To cancel it when the wait ends "
                "instead, set on_timeout='cancel'."
            ),
        )

    def after_operation(self, done: dict[str, Any]) -> Outcome[dict[str, Any]]:
        """Hook: once the create's operation finished without error. Default: wait for the
        resource as :meth:`adopt` does."""
        response = done.get("response")
        if self.mode is Idempotency.OWNER_SEARCH and isinstance(response, dict):
            self.bind(response)
        return self.adopt(None)

    # ------------------------------------------------------------------ reads
    def read(self) -> dict[str, Any] | None:
        """The resource as it is now (None: gone)."""
        return self.provider.read_live(self.client, self.target)

    def poll(
        self, until: Callable[[dict[str, Any] | None], bool], timeout: float | None = None
    ) -> dict[str, Any] | None:
        return self.provider.poll(self.client, self.target, until, timeout=timeout)

    def bind(self, live: Mapping[str, Any]) -> None:
        """Make ``target`` the resource ``live`` the API named (its name is its path, parsed
        and checked; the program's own inputs are kept: see
        :meth:`~.rest_resource.RestResourceProvider.bound`)."""
        bound = self.provider.bound(self.target, live.get("name"))
        if bound is None:
            raise self.provider.failed(
                f"the API named the new {self.resource.noun} {live.get('name')!r}, which is not "
                f"{self.resource.path.shape()}"
            )
        self.target = bound

    def _lookup(self) -> dict[str, Any] | None:
        if self.mode is not Idempotency.OWNER_SEARCH:
            return self.read()
        matches = self.provider.search(self.client, self.target, self.key)
        if not matches:
            return None
        self.bind(matches[0])
        return matches[0]

    # ------------------------------------------------------------------ find
    def find(self) -> Found[dict[str, Any]]:
        """The resource of this create, if there is one: by its name, or in ``OWNER_SEARCH``
        mode by its ownership label; a delete in flight is waited out first."""
        deleting = self.resource.states.deleting
        try:
            live = self._lookup()
            if live is not None and self.resource.states.of(live) in deleting:
                live = self.poll(lambda r: r is None or self.resource.states.of(r) not in deleting)
        except ApiError as err:
            return Found(unknown=True, why=str(err))
        if live is None:
            return Found()
        return self.owned(live)

    # ------------------------------------------------------------------ send
    def send(self, attempt: int) -> Sent[dict[str, Any]]:
        """POST the create to the collection. The REST client sends it again only when the
        declared mode allows (see :class:`~.create_machine.Idempotency`)."""
        expect = is_lro if self.CREATE_ANSWER == "operation" else self.resource.is_resource
        try:
            answer = self.client.post(
                self.create_path(),
                self.body(),
                expect=expect,
                idempotent=self.mode.resend,
                **self.params(attempt),
            )
        except ApiError as err:
            return sent_after(err)
        return Sent("accepted", answer)

    # ------------------------------------------------------------------ follow / adopt
    def follow(self, handle: dict[str, Any]) -> Outcome[dict[str, Any]]:
        """Wait for the create's operation (or, when the API answered with the resource, for
        the resource) until it settles; once accepted, a create that can't be followed to the
        end succeeds with the resource as it is, so it stays tracked."""
        if self.CREATE_ANSWER == "resource":
            if self.mode is Idempotency.OWNER_SEARCH:  # the program named it otherwise
                self.bind(handle)
            return self.adopt(handle)
        what = f"create of {self.where()}"
        try:
            done = self.provider.wait_operation(self.client, handle, what)
        except Exception as err:  # noqa: BLE001 - accepted: never leave it untracked
            return self.as_it_is(err)
        error = done.get("error")
        if isinstance(error, Mapping):
            return Outcome(Phase.FAILED, error=Ended(self.provider.describe_status(error)))
        return self.after_operation(done)

    def adopt(self, live: dict[str, Any] | None) -> Outcome[dict[str, Any]]:
        """Wait for the resource (found, or just created) until it settles, then judge it. The
        wait outlasts outages (a read that fails transiently is no conclusion); one during which
        no read worked at all ends as a wait that ran out (:meth:`timed_out`), never as a
        removal."""
        if live is not None and self.settled(live):
            return self.judge(live)
        try:
            result = self.client.wait_until(self._observed, self.settled, self.wait_seconds())
        except Exception as err:  # noqa: BLE001 - accepted: never leave it untracked
            return self.as_it_is(err)
        if not result.seen:
            return self.as_it_is(result.outage or TimeoutError("no read worked"))
        if not result.done and result.value is None:  # absent, and not confirmed yet
            return self.as_it_is(TimeoutError("it could not be read back"))
        return self.judge(result.value)

    def _observed(self) -> dict[str, Any] | None:
        live = self.read()
        if live is not None:
            self.present()
        return live

    def as_it_is(self, err: Exception) -> Outcome[dict[str, Any]]:
        """Accepted, but it could not be followed to the end: succeed with the resource as it
        is, so it stays tracked, saying so (or fail when it cannot be read)."""
        try:
            live = self.read()
        except ApiError as lookup:
            return Outcome(Phase.FAILED, error=Ended(f"{err}; and it can't be read: {lookup}"))
        except PathValueError:  # its id is not known yet (OWNER_SEARCH): find it again
            return Outcome(Phase.FAILED, error=Ended(f"{err}; and it can't be found"))
        if live is None:
            return Outcome(Phase.FAILED, error=Ended(f"did not finish ({err}), and is gone"))
        state = self.resource.states.of(live)
        return Outcome(
            Phase.PENDING,
            live,
            note=(
                f"it could not be followed to the end ({err}); it is kept as it is ({state}), "
                "and `pulumi refresh` follows it."
            ),
        )

    # ------------------------------------------------------------------ failure
    def reached(self, failure: Exception) -> dict[str, Any] | None:
        """A failed resource never becomes what was asked."""
        return None

    def clean_up(self, failure: Exception) -> CleanUp[dict[str, Any]]:
        """Delete what the failed create left, wait, and read again (a create that arrived
        late would show): nothing left, or kept in the stack as it is."""
        undeletable = (ApiError, TimeoutError, Ended, OperationFailed, PathValueError)
        for _ in range(2):  # once more if it came back (a create that arrived late)
            try:
                gone = self.provider.delete_and_wait(self.client, self.target)
            except (*undeletable, self.resource.error) as err:
                text = err.text if isinstance(err, OperationFailed) else err
                return self.kept(f"could not be deleted ({text})")
            self.client.pause(self.resource.settle_seconds)
            try:
                live = self.read()
            except ApiError:
                live = None  # the delete was confirmed: trust it
            if live is None:
                leftover = self.LEFTOVER.format(noun=self.resource.noun)
                return CleanUp(
                    True,
                    f"{leftover} was deleted, so nothing is left behind."
                    if gone
                    else "Nothing was left behind.",
                )
        return self.kept("came back after it was deleted")

    def withdraw(self, reason: str) -> CleanUp[dict[str, Any]]:
        """Interrupted: find the resource; delete it while it is in a declared ``queued``
        state; return it once it is beyond (see :func:`~.create_machine.withdrawn`)."""
        states = self.resource.states

        def remove(_live: dict[str, Any]) -> str:
            try:
                self.provider.delete_and_wait(self.client, self.target)
            except GraceExpired:
                return "its delete was sent (not confirmed within the grace the engine gives)"
            return "it was deleted"

        return withdrawn(
            self.find(),
            queued=lambda live: states.of(live) in states.queued,
            remove=remove,
            what=f"the {self.resource.noun} {self.where()}",
            reason=reason,
        )

    def kept(self, why: str) -> CleanUp[dict[str, Any]]:
        """A failed resource that could not be removed: kept in the stack as it is."""

        def read() -> dict[str, Any] | None:
            try:
                return self.read()
            except PathValueError:  # OWNER_SEARCH, and its id is not known: can't be read
                raise ApiError(0, "its id is not known", lost=True) from None

        return kept_unless_gone(self.resource.noun, why, self.where(), read, ApiError)

    def where(self) -> str:
        """The resource's path, or its collection while its id is not known (``OWNER_SEARCH``
        before the API answered)."""
        try:
            return self.target.path
        except PathValueError:
            return self.target.collection

    # ------------------------------------------------------------------ messages
    def message(self, phase: Phase, detail: str, error: Exception | None) -> str:
        """The create's error message (:attr:`MESSAGES`)."""
        if phase is Phase.REJECTED and isinstance(error, ApiError) and error.ambiguous:
            key = "lost"
        else:
            key = {
                Phase.NOT_OURS: "not-ours",
                Phase.REJECTED: "rejected",
                Phase.CLEANED_UP: "cleaned-up",
                Phase.WITHDRAWN: "withdrawn",
            }.get(phase, "unknown")
        removal = self.removal()
        return self.MESSAGES[key].format(
            noun=self.resource.noun,
            path=self.where(),
            detail=detail,
            error=error,
            name=self.resource.path.label(self.resource.path.keys[-1]),
            removal=f" (`{removal}`)" if removal else "",
        )

    def removal(self) -> str:
        """Hook: the command that removes the resource entirely, for messages (default:
        none)."""
        return ""
