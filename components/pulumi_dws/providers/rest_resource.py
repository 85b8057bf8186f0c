"""The declared base of the REST dynamic resources (``FlexStartVm``, ``MigResizeRequest``,
``QueuedTpu``, ``SlurmCluster``): a provider says what its resource *is*, once, as data (a
:class:`RestResource`), and writes only the hooks where it really differs.

From the declaration the base supplies:

======================================  ==================================================
declared (:class:`RestResource`)        supplied by :class:`RestResourceProvider`
======================================  ==================================================
``api``                                 the endpoint override from stack config and a REST
                                        client per call (:class:`RestProvider`)
``path`` (a :class:`PathTemplate`)      the :class:`Target` of a call, its id, id parsing,
                                        the segment checks of ``check``
``replace_keys``, ``in_place_keys``     ``diff``, and ``update`` (the state takes the new
                                        ``in_place_keys``: inputs such as ``waitFor`` that
                                        matter at create time only)
``outputs``                             the ``pulumi.dynamic.Resource`` class
                                        (:class:`DeclaredResource`)
``states``, ``is_resource``             reading and polling the resource
``error``, ``noun``, ``api_name``       every failure wrapped in the kind's error, saying
                                        what happened and what to do
``idempotency``, ``settle_seconds``     the create machine's mode (and so whether the REST
                                        client may send the create again)
======================================  ==================================================

Extension points, each a method a provider overrides (the defaults suit a new resource):

- :meth:`~RestResourceProvider.check_inputs`: what ``check`` adds to the declared checks;
- :meth:`~RestResourceProvider.same`: when an input counts as unchanged (``diff``);
- :meth:`~RestResourceProvider.create_steps`: the steps of the create machine (for an API with
  ``google.longrunning`` operations, :class:`~pulumi_dws.providers.lro.LroCreate` has them all);
- :meth:`~RestResourceProvider.outputs` and :meth:`~RestResourceProvider.created`: the outputs of
  a create, :meth:`~RestResourceProvider.read_outputs` those of a read;
- :meth:`~RestResourceProvider.read_live`, :meth:`~RestResourceProvider.delete_and_wait`:
  how the resource is read and deleted;
- :meth:`~RestResourceProvider.unreadable`, :meth:`~RestResourceProvider.undeletable`: the
  messages of a failed read or delete;
- :attr:`~RestResourceProvider.TARGET`: a :class:`Target` subclass that reads more from the
  inputs (what the kind's messages and steps need);
- :meth:`~RestResourceProvider.live_mark`, :attr:`~RestResourceProvider.MARKED`: where a live
  resource carries its ownership key (checked before a delete: :meth:`confirm_ours`);
- :meth:`~RestResourceProvider.interrupted`, :meth:`~RestResourceProvider.malformed`,
  :meth:`~RestResourceProvider.warn`: the messages of an interrupted call, of a state it can't
  read, and a warning the user must see.

What every provider gets without a hook (docs/reliability.md): each entry point runs guarded
(:func:`_guarded`: in a call scope the engine's cancellation reaches, its state checked against
:attr:`RestResource.state`, every failure one error of the kind naming the resource, nothing
secret in its messages); waits that cancellation ends and outages do not
(:meth:`~.rest.GoogleRestClient.wait_until`); the stack's ownership marks
(:mod:`~.ownership`).

A provider class is pickled into users' state by reference (its module and name) with its
instance attributes: the declaration is a class attribute, so it is never pickled, and a release
that changes it reaches every stack.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

import pulumi
import pulumi.dynamic as dyn

from ..errors import redact
from . import cancellation
from .checks import CheckFailures
from .create_machine import OWNER_LABEL, CreateFailed, CreateMachine, CreateSteps, Idempotency
from .dynamic_resource import init_dynamic
from .ownership import OWNER_INPUT, OWNERSHIP_OUTPUT, STACK_LABEL, Owner, sensitive_values
from .paths import PathTemplate, PathValueError
from .rest import ApiError, OperationError
from .rest_provider import RestProvider, shared_provider
from .state import StateField, state_problem

if TYPE_CHECKING:
    from .endpoints import Api
    from .rest import GoogleRestClient

__all__ = [
    "DeclaredResource",
    "RestResource",
    "RestResourceProvider",
    "ENTRY_POINTS",
    "States",
    "StateField",
    "Target",
    "any_object",
]

ENTRY_POINTS = ("check", "diff", "create", "read", "update", "delete")
"""The provider methods the host calls: each runs guarded (:func:`_guarded`)."""
OWNERSHIP_STATE = {
    "owner": StateField((dict, str)),
    "ownership": StateField((dict,)),
    "ownership.key": StateField((str,)),
}
"""What every declared resource's state may hold about whose it is (see :mod:`~.ownership`):
``owner`` is the stack's identity (an object), or the resource's name in the program only (a
string: an older form, hashed into the ownership key as it is)."""


def any_object(answer: Mapping[str, Any]) -> bool:
    """The default shape check of a resource answer: any JSON object."""
    return True


def _dig(value: Any, keys: tuple[str, ...]) -> Any:
    for key in keys:
        value = value.get(key) if isinstance(value, Mapping) else None
    return value


@dataclass(frozen=True)
class States:
    """What the API's states mean: where a resource answer keeps its state (``at``, the keys
    down to it: ``("state", "state")``), and which states are ``ready`` (what a create asks
    for), ``pending`` (on their way: queued, provisioning), ``queued`` (of those, the ones where
    nothing runs yet: an interrupted create removes such a request, losing only its place in
    the queue), ``ended`` (never ready on their own: failed, suspended), ``busy`` (a change
    refused until it settles) and ``deleting``. A state in none of them (``STATE_UNSPECIFIED``,
    one a newer API added) is *unknown*: never a conclusion (:meth:`known`)."""

    at: tuple[str, ...] = ("state",)
    ready: frozenset[str] = frozenset()
    pending: frozenset[str] = frozenset()
    ended: frozenset[str] = frozenset()
    busy: frozenset[str] = frozenset()
    deleting: frozenset[str] = frozenset()
    queued: frozenset[str] = frozenset()

    def of(self, resource: Mapping[str, Any] | None) -> str | None:
        """The state of ``resource`` (None when it has none, or there is none)."""
        state = _dig(resource, self.at)
        return state if isinstance(state, str) else None

    def known(self, state: str | None) -> bool:
        """Whether ``state`` is one the declaration gives a meaning to."""
        every = self.ready | self.pending | self.ended | self.busy | self.deleting | self.queued
        return state in every


@dataclass(frozen=True)
class RestResource:
    """What a REST dynamic resource is, declared once (see the module docstring).

    ``name`` makes its type token ``pulumi-python:dynamic/dws:<name>`` (in users' state: never
    renamed). ``path`` addresses one resource from its inputs; its last input is the resource's
    own id. ``region_key`` names the input that picks a regional endpoint (Vertex AI).
    ``settle_seconds`` is waited (virtual under an emulator clock) before a read concludes that
    a create whose answer was lost made nothing, and after a clean-up's delete before the read
    that says nothing is left. ``id_param`` is the create's query parameter that names the new
    resource (``queuedResourceId``, ``jobId``; its value is the path's last input), for an API
    where the program chooses the name. ``owner_label`` is the label key a create marks what it
    made with (default ``dws-create``; an API whose list filter is documented only for keys
    without a hyphen, as Vertex AI's, declares ``dws_create``).
    """

    name: str
    api: Api
    path: PathTemplate
    noun: str
    error: type[Exception]
    idempotency: Idempotency
    replace_keys: tuple[str, ...] = ()
    in_place_keys: tuple[str, ...] = ()
    outputs: tuple[str, ...] = ()
    states: States = field(default_factory=States)
    is_resource: Callable[[Mapping[str, Any]], bool] = any_object
    region_key: str | None = None
    id_param: str | None = None
    api_name: str = "the API"
    settle_seconds: float = 30.0
    owner_label: str = OWNER_LABEL
    stack_label: str = STACK_LABEL
    """The label key a create marks its stack with (default ``dws-stack``; ``dws_stack``
    beside ``owner_label`` ``dws_create``)."""
    state: Mapping[str, StateField] = field(default_factory=dict)
    """What the state must hold for ``read``, ``update``, ``delete`` and ``diff`` to act
    (:class:`~.state.StateField` per key, nested ones dotted): an old or hand-edited state that
    does not gets one clean error naming the key."""

    @property
    def type_token(self) -> str:
        """``pulumi-python:dynamic/dws:<name>``."""
        return f"pulumi-python:dynamic/dws:{self.name}"


class Target:
    """The resource one call is about: its inputs (``props``) and, from the declared path
    template, its path. A kind subclasses it to read more from the inputs (its messages'
    :meth:`describe`, what its steps need); :attr:`path` raises
    :class:`~pulumi_dws.providers.paths.PathValueError` when an input can't go into a URL."""

    def __init__(self, resource: RestResource, props: Mapping[str, Any]) -> None:
        self.resource = resource
        self.props = props

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.resource.name}, {dict(self.props)!r})"

    @property
    def path(self) -> str:
        """The resource's path, each input checked and quoted."""
        return self.resource.path.path(self.props)

    @property
    def id(self) -> str:
        """The Pulumi id: the resource's path."""
        return self.path

    @property
    def collection(self) -> str:
        """The collection a create is POSTed to (the path without the resource's own id)."""
        return self.resource.path.collection(self.props)

    @property
    def location(self) -> str | None:
        """The region of a regional API's endpoint, else None."""
        key = self.resource.region_key
        return None if key is None else self.props.get(key)

    def describe(self) -> str:
        """What messages call the resource: ``queued resource projects/p/...`` (``the queued
        resource`` while it can't be addressed)."""
        try:
            return f"{self.resource.noun} {self.path}"
        except PathValueError:
            return f"the {self.resource.noun}"


class NotOurs(Exception):
    """A delete refused: the live resource is not the one this stack created."""


def _carried(name: str, state: Any, result: Any) -> Any:
    """A read's or an update's result with the ownership the state knew (``owner`` and
    ``ownership``) carried over, when the provider's own outputs left it out."""
    if not isinstance(state, Mapping):
        return result
    outs = getattr(result, "outs", None)
    if not isinstance(outs, dict) or (name == "read" and not outs):
        return result
    for key in (OWNER_INPUT, OWNERSHIP_OUTPUT):
        if key in state and key not in outs:
            outs[key] = state[key]
    inputs = getattr(result, "inputs", None)
    if isinstance(inputs, dict) and OWNER_INPUT in state and OWNER_INPUT not in inputs:
        inputs[OWNER_INPUT] = state[OWNER_INPUT]
    return result


def _redacted(result: Any, secrets: list[str]) -> Any:
    """A ``check`` result with what may be secret kept out of its failures' reasons."""
    failures = getattr(result, "failures", None)
    if secrets and isinstance(failures, list):
        for failure in failures:
            failure.reason = redact(str(failure.reason), secrets)
    return result


def _guarded(name: str, method: Callable[..., Any]) -> Callable[..., Any]:
    """``method`` (an entry point the host calls) run the way every declared provider runs it:
    in a call scope the engine's cancellation reaches (:func:`~.cancellation.call_scope`); its
    state checked against the declaration first (``read``, ``update``, ``delete``, ``diff``);
    an interruption, or an error that is not the kind's own (a state it can't read), turned into
    one clean error of the kind naming the resource (never a Python traceback); and no message
    it lets out shows an input that may be secret (:func:`~.ownership.sensitive_values`:
    ``[secret]``)."""
    if getattr(method, "__dws_guarded__", False):
        return method

    @functools.wraps(method)
    def guarded(self: RestResourceProvider, *args: Any) -> Any:
        secrets = [v for a in args if isinstance(a, Mapping) for v in sensitive_values(a)]
        with cancellation.call_scope():
            id_, state = self._state_of_call(name, args)
            try:
                if state is not None:
                    self.check_state(name, id_, state)
                return _redacted(_carried(name, state, method(self, *args)), secrets)
            except cancellation.Interrupted as stop:
                message = self.interrupted(name, id_, stop.reason)
            except self.RESOURCE.error as err:
                message = str(err)
            except Exception as err:  # noqa: BLE001 - one clean error, never a traceback
                message = self.malformed(name, id_, err)
        raise self.failed(redact(message, secrets)) from None

    guarded.__dws_guarded__ = True  # type: ignore[attr-defined]
    return guarded


class RestResourceProvider(RestProvider):
    """CRUD of one declared REST resource (see the module docstring). A subclass sets
    :attr:`RESOURCE` (and :attr:`TARGET`, when its target reads more) and overrides the hooks
    where it differs; :attr:`API` follows from the declaration."""

    RESOURCE: ClassVar[RestResource]
    TARGET: ClassVar[type[Target]] = Target
    GONE_ID: ClassVar[str | None] = None
    """The id a read returns for a resource deleted outside Pulumi (None or "": the same to the
    engine)."""
    UNREADABLE: ClassVar[tuple[type[Exception], ...]] = (ApiError, PathValueError)
    """What a failed read raises (wrapped in the declared error by :meth:`read`)."""
    MARKED: ClassVar[bool] = True
    """Whether the resources carry the ownership labels (a delete checks them:
    :meth:`confirm_ours`)."""
    UNDELETABLE: ClassVar[tuple[type[Exception], ...]] = (
        ApiError,
        OperationError,
        TimeoutError,
        PathValueError,
    )
    """What a failed delete raises (wrapped by :meth:`delete`, with the declared error)."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        resource = cls.__dict__.get("RESOURCE")
        if resource is not None:
            cls.API = resource.api
        for name in ENTRY_POINTS:
            method = cls.__dict__.get(name)
            if callable(method):
                setattr(cls, name, _guarded(name, method))

    # ------------------------------------------------------------------ the state
    def _state_of_call(self, name: str, args: tuple[Any, ...]) -> tuple[str, Any]:
        """The id and the state an entry point acts on (None: nothing to check)."""
        if name in ("read", "delete") and len(args) == 2:
            return str(args[0]), args[1]
        if name in ("update", "diff") and len(args) == 3:
            return str(args[0]), args[1]
        return "", None

    def check_state(self, method: str, id_: str, state: Any) -> None:
        """Raise the declared error when ``state`` (what the engine holds for ``id_``) is not
        what :attr:`RestResource.state` declares. An empty state is an import (read by id)."""
        if not isinstance(state, dict):
            raise self.failed(f"{self.named(id_)}: its state is not an object")
        if not state and method == "read":
            return
        problem = state_problem(state, {**OWNERSHIP_STATE, **self.RESOURCE.state})
        if problem:
            raise self.failed(
                f"{self.named(id_)}: its state can't be used: {problem}. Nothing was changed. "
                "If the state was edited by hand, restore it; else run `pulumi refresh` (a read "
                "by id rebuilds it)."
            )

    def named(self, id_: str) -> str:
        """How messages about a call name the resource: ``QueuedTpu projects/p/...``."""
        return f"{self.RESOURCE.name} {id_}".strip() if id_ else self.RESOURCE.name

    def interrupted(self, method: str, id_: str, reason: str) -> str:
        """Hook: the message of a call other than a create that was interrupted (a create
        withdraws: see :class:`~.create_machine.CreateMachine`)."""
        what = self.named(id_)
        if method == "delete":
            return (
                f"delete of {what} was interrupted ({reason}) before it was confirmed; it is "
                "still in the stack: run `pulumi destroy` (or `pulumi up`) again."
            )
        if method == "update":
            return (
                f"update of {what} was interrupted ({reason}); run `pulumi up --refresh` "
                "again: it reads the resource and does what is still to do."
            )
        return f"{method} of {what} was interrupted ({reason}); nothing was changed."

    def malformed(self, method: str, id_: str, err: Exception) -> str:
        """Hook: the message of an entry point that failed on something other than the API (a
        state it can't read, most likely)."""
        key = f" (key {err.args[0]!r})" if isinstance(err, KeyError) and err.args else ""
        return (
            f"{self.named(id_)}: {method} failed on a state it can't read{key}: "
            f"{type(err).__name__}: {err}. Nothing was changed. If the state was edited by "
            "hand, restore it; else run `pulumi refresh`."
        )

    # ------------------------------------------------------------------ targets
    def target(self, props: Mapping[str, Any]) -> Target:
        """The target of ``props`` (not checked yet: its :attr:`~Target.path` checks)."""
        return self.TARGET(self.RESOURCE, props)

    def addressed(self, props: Mapping[str, Any]) -> Target:
        """The target of ``props``, its path checked (in ``OWNER_SEARCH`` mode, where the API
        names the resource, its collection's): the declared error when an input can't go into
        a URL."""
        target = self.target(props)
        try:
            if self.RESOURCE.idempotency is Idempotency.OWNER_SEARCH:
                target.collection  # noqa: B018 - checks every segment
            else:
                target.path  # noqa: B018 - checks every segment
        except PathValueError as err:
            raise self.failed(f"{target.describe()} can't be addressed: {err}") from None
        return target

    def parse_id(self, id_: str) -> dict[str, str]:
        """The inputs an id names; the declared error when it is not one of this resource's."""
        values = self.RESOURCE.path.parse(id_)
        if values is None:
            raise self.failed(self.not_an_id(id_))
        return values

    def not_an_id(self, id_: str) -> str:
        """Hook: the message for an id that is not one of this resource's."""
        path = self.RESOURCE.path
        return f"{id_!r} is not " + " or ".join(path.shape(i) for i in range(len(path.templates)))

    def bound(self, target: Target, name: Any) -> Target | None:
        """``target`` once the API named its resource ``name`` (``OWNER_SEARCH`` mode): the
        program's inputs as given, with the resource's own id taken from the name (the API may
        spell the project by its number; the id keeps it as the program wrote it); None when
        ``name`` is not one of this resource's."""
        values = self.RESOURCE.path.parse(name)
        if values is None:
            return None
        own = self.RESOURCE.path.keys[-1]
        return self.target({**dict(target.props), own: values[own]})

    def target_of_id(self, id_: str, props: Mapping[str, Any]) -> Target:
        """The target a read or delete of ``id_`` is about: ``props`` with what the id says
        (the id wins)."""
        return self.target({**dict(props), **self.parse_id(id_)})

    def failed(self, message: str) -> Exception:
        """The declared error with ``message``."""
        return self.RESOURCE.error(message)

    # ------------------------------------------------------------------ check
    def check(self, _olds: dict[str, Any], news: dict[str, Any]) -> dyn.CheckResult:
        """The declared checks (:meth:`check_address`) and the kind's (:meth:`check_inputs`)."""
        failures = CheckFailures()
        self.check_inputs(news, failures)
        return dyn.CheckResult(news, failures)

    def check_inputs(self, news: Mapping[str, Any], failures: CheckFailures) -> None:
        """Hook: append what is wrong with ``news``. Default: :meth:`check_address`."""
        self.check_address(news, failures)

    def check_address(
        self, news: Mapping[str, Any], failures: CheckFailures, *, required: bool = True
    ) -> None:
        """Every input of the path template is set (``required``) and, once known, can go into
        a URL in full (a value not known yet, as in a preview, is never a failure)."""
        path = self.RESOURCE.path
        for key, kind in path.fields:
            if required and news.get(key) is None:
                failures.append(dyn.CheckFailure(key, f"{key} is required"))
            failures.segment(key, news.get(key), kind)

    # ------------------------------------------------------------------ diff
    def same(self, key: str, old: Any, new: Any) -> bool:
        """Hook: whether input ``key`` is unchanged. Default: equal."""
        return bool(old == new)

    def diff(self, _id: str, olds: dict[str, Any], news: dict[str, Any]) -> dyn.DiffResult:
        """A change of a declared ``replace_keys`` input replaces the resource (deleting it
        first: its name is reused); one of ``in_place_keys`` is an update."""
        resource = self.RESOURCE

        def changed(key: str) -> bool:
            return not self.same(key, olds.get(key), news.get(key))

        replaces = [key for key in resource.replace_keys if changed(key)]
        changes = bool(replaces) or any(changed(key) for key in resource.in_place_keys)
        return dyn.DiffResult(
            changes=changes,
            replaces=replaces,
            delete_before_replace=True if replaces else None,
        )

    def update(self, id_: str, olds: dict[str, Any], news: dict[str, Any]) -> dyn.UpdateResult:
        """The declared ``in_place_keys`` take their new values and nothing is called: by
        default they are inputs that matter at create time only (``waitFor``). A resource that
        changes in place overrides this."""
        keys = self.RESOURCE.in_place_keys
        return dyn.UpdateResult({**olds, **{key: news.get(key) for key in keys}})

    # ------------------------------------------------------------------ create
    def create(self, props: dict[str, Any]) -> dyn.CreateResult:
        """Run the create machine over the kind's steps (:meth:`create_steps`) in the declared
        idempotency mode; its error says what happened to the resource."""
        target = self.addressed(props)
        try:
            client = self.client(target.location)
        except ValueError as err:
            if target.location is None:
                raise
            raise self.failed(f"the {self.RESOURCE.noun} can't be addressed: {err}") from None
        steps = self.create_steps(client, target)
        settle = self.RESOURCE.settle_seconds
        machine = CreateMachine(
            steps, settle=lambda: client.pause(settle), mode=self.RESOURCE.idempotency
        )
        try:
            live = machine.run()
        except CreateFailed as err:
            raise self.failed(str(err)) from None
        except PathValueError as err:
            raise self.failed(f"{target.describe()} can't be addressed: {err}") from None
        if self.RESOURCE.idempotency is Idempotency.OWNER_SEARCH:  # the API named it
            name = live.get("name")
            target = self.bound(target, name) or self.target_of_id(str(name), target.props)
        outs = self.created(target, live, steps, machine)
        if machine.note:  # a success the user must hear about (e.g. a request kept queued)
            self.warn(f"{target.describe()}: {machine.note}")
            observed = outs.get("observed")
            if isinstance(observed, dict):
                observed["note"] = machine.note
        key = getattr(steps, "key", None)
        if isinstance(key, str):  # what a later delete checks the live resource against
            owner = Owner.of(props)
            outs[OWNERSHIP_OUTPUT] = {"key": key, "stack": owner.mark if owner else None}
        if owner_of := props.get(OWNER_INPUT):
            outs.setdefault(OWNER_INPUT, owner_of)
        return dyn.CreateResult(target.id, outs)

    def warn(self, message: str) -> None:
        """Hook: tell the user ``message`` (``pulumi.log.warn``: inside the dynamic-provider host
        it goes to stderr, which the engine shows with the run's diagnostics)."""
        pulumi.log.warn(message)

    def create_steps(self, client: GoogleRestClient, target: Target) -> CreateSteps[Any, Any]:
        """Hook: the steps of one create (:class:`~.create_machine.CreateSteps`)."""
        raise NotImplementedError(f"{type(self).__name__} declares no create steps")

    def created(
        self,
        target: Target,
        live: Any,
        steps: CreateSteps[Any, Any],
        machine: CreateMachine[Any, Any],
    ) -> dict[str, Any]:
        """Hook: the outputs of a create that ended with ``live``. Default: :meth:`outputs`."""
        return self.outputs(target, live)

    def outputs(self, target: Target, live: Mapping[str, Any]) -> dict[str, Any]:
        """Hook: the outputs for the resource as it is (``live``). Default: the inputs."""
        return dict(target.props)

    # ------------------------------------------------------------------ read
    def read(self, id_: str, props: dict[str, Any]) -> dyn.ReadResult:
        """The resource as it is (:meth:`read_outputs`); gone when it was deleted outside
        Pulumi; the declared error, changing nothing, when it can't be read."""
        target = self.target_of_id(id_, props)
        try:
            live = self.read_live(self.client(target.location), target)
        except self.UNREADABLE as err:
            raise self.failed(self.unreadable(target, id_, err)) from None
        if live is None:
            return dyn.ReadResult(self.GONE_ID, {})
        return self.read_result(id_, target, live)

    def read_result(self, id_: str, target: Target, live: Mapping[str, Any]) -> dyn.ReadResult:
        """Hook: what a read that found the resource returns. Default: its id and
        :meth:`read_outputs`."""
        return dyn.ReadResult(id_, self.read_outputs(target, live))

    def read_live(self, client: GoogleRestClient, target: Target) -> dict[str, Any] | None:
        """Hook: the resource, or None when there is none."""
        return client.find(target.path, expect=self.RESOURCE.is_resource)

    def read_outputs(self, target: Target, live: Mapping[str, Any]) -> dict[str, Any]:
        """Hook: the outputs of a read. Default: :meth:`outputs`."""
        return self.outputs(target, live)

    def unreadable(self, target: Target, id_: str, err: Exception) -> str:
        """Hook: the message of a read that failed."""
        return (
            f"{target.describe()} could not be read: {err}. Nothing was changed; run "
            f"`pulumi refresh` again once {self.RESOURCE.api_name} answers."
        )

    def poll(
        self,
        client: GoogleRestClient,
        target: Target,
        until: Callable[[dict[str, Any] | None], bool],
        *,
        timeout: float | None = None,
    ) -> dict[str, Any] | None:
        """Read the resource with growing intervals until ``until(resource or None)`` or
        ``timeout`` (default: the provider's) seconds were slept; the last read."""
        return client.poll_until(
            lambda: self.read_live(client, target),
            until,
            timeout=self.timeout if timeout is None else timeout,
        )

    # ------------------------------------------------------------------ delete
    def delete(self, id_: str, props: dict[str, Any]) -> None:
        """Delete and wait (:meth:`delete_and_wait`); when that can't be confirmed, the declared
        error says the resource is still in the stack."""
        target = self.target_of_id(id_, props)
        try:
            client = self.client(target.location)
            self.confirm_ours(client, target, props)
            self.delete_and_wait(client, target)
        except NotOurs as err:
            raise self.failed(str(err)) from None
        except (*self.UNDELETABLE, self.RESOURCE.error) as err:
            raise self.failed(self.undeletable(target, id_, err)) from None

    def live_mark(self, live: Mapping[str, Any]) -> str | None:
        """Hook: the ownership label (the declared ``owner_label``) a resource carries (default:
        in its ``labels``)."""
        labels = live.get("labels")
        mark = labels.get(self.RESOURCE.owner_label) if isinstance(labels, Mapping) else None
        return mark if isinstance(mark, str) else None

    def confirm_ours(
        self, client: GoogleRestClient, target: Target, props: Mapping[str, Any]
    ) -> None:
        """Before a delete: a resource whose create recorded its ownership key
        (:data:`~.ownership.OWNERSHIP_OUTPUT`) is deleted only while the live resource still
        carries that key; one that carries another (it was replaced outside Pulumi, or another
        stack made it) raises :class:`NotOurs`. A state without a recorded key (an older release)
        and a resource that is gone pass. :attr:`MARKED` False (an API without labels) skips it."""
        recorded = props.get(OWNERSHIP_OUTPUT)
        key = recorded.get("key") if isinstance(recorded, Mapping) else None
        if not self.MARKED or not isinstance(key, str):
            return
        live = self.read_live(client, target)
        if live is None:
            return
        mark = self.live_mark(live)
        if mark == key:
            return
        label = self.RESOURCE.owner_label
        carries = f"{label}={mark}" if mark else f"no {label} label"
        raise NotOurs(
            f"{target.describe()} was not deleted: it carries {carries}, not {key}, the mark "
            "this stack made it with, so it is not the resource this stack created (it was "
            "replaced outside Pulumi, or another stack made it). To drop it from this stack "
            "without deleting it: `pulumi state delete` its URN."
        )

    def delete_and_wait(self, client: GoogleRestClient, target: Target) -> bool:
        """Hook: delete the resource and wait until it is gone; False when there was nothing to
        delete."""
        raise NotImplementedError(f"{type(self).__name__} declares no delete")

    def undeletable(self, target: Target, id_: str, err: Exception) -> str:
        """Hook: the message of a delete that could not be confirmed."""
        return (
            f"delete of {self.RESOURCE.noun} {id_} could not be confirmed: {err}. It is still "
            "in the stack: run `pulumi destroy` (or `pulumi up`) again."
        )


class DeclaredResource(dyn.Resource):
    """The ``pulumi.dynamic.Resource`` of a declared provider: a subclass names its type
    (``class QueuedTpuResource(DeclaredResource, module="dws", name="QueuedTpu")``) and its
    provider class (``provider_class = QueuedTpuProvider``); every declared output starts as
    None, so it is an ``Output`` attribute (``resource.state``). Resources that name no
    provider share one (:func:`~.rest_provider.shared_provider`).

    No class annotations here: the SDK resolves a resource class's type hints at every
    registration (a subclass may add them for type checkers, under ``TYPE_CHECKING``)."""

    if TYPE_CHECKING:
        provider_class: ClassVar[type[RestResourceProvider]]

    def __init__(
        self,
        name: str,
        props: Mapping[str, Any],
        opts: pulumi.ResourceOptions | None = None,
        provider: RestResourceProvider | None = None,
    ) -> None:
        cls = self.provider_class
        full: dict[str, Any] = dict.fromkeys(cls.RESOURCE.outputs)
        full.update(props)
        # As dyn.Resource.__init__ does, the provider's pickling done once per provider.
        init_dynamic(self, provider or shared_provider(cls), name, full, opts)


for _name in ENTRY_POINTS:
    setattr(RestResourceProvider, _name, _guarded(_name, getattr(RestResourceProvider, _name)))
