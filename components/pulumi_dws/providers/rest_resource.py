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
``replace_keys``, ``in_place_keys``     ``diff``
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
  inputs (what the kind's messages and steps need).

A provider class is pickled into users' state by reference (its module and name) with its
instance attributes: the declaration is a class attribute, so it is never pickled, and a release
that changes it reaches every stack.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

import pulumi
import pulumi.dynamic as dyn

from .checks import CheckFailures
from .create_machine import CreateFailed, CreateMachine, CreateSteps, Idempotency
from .dynamic_resource import init_dynamic
from .paths import PathTemplate, PathValueError
from .rest import ApiError, OperationError
from .rest_provider import RestProvider, shared_provider

if TYPE_CHECKING:
    from .endpoints import Api
    from .rest import GoogleRestClient

__all__ = [
    "DeclaredResource",
    "RestResource",
    "RestResourceProvider",
    "States",
    "Target",
    "any_object",
]


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
    for), ``pending`` (on their way: queued, provisioning), ``ended`` (never ready on their
    own: failed, suspended), ``busy`` (a change refused until it settles) and ``deleting``."""

    at: tuple[str, ...] = ("state",)
    ready: frozenset[str] = frozenset()
    pending: frozenset[str] = frozenset()
    ended: frozenset[str] = frozenset()
    busy: frozenset[str] = frozenset()
    deleting: frozenset[str] = frozenset()

    def of(self, resource: Mapping[str, Any] | None) -> str | None:
        """The state of ``resource`` (None when it has none, or there is none)."""
        state = _dig(resource, self.at)
        return state if isinstance(state, str) else None


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
    where the program chooses the name.
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
        sleep = client.sleep
        assert sleep is not None
        settle = self.RESOURCE.settle_seconds
        machine = CreateMachine(steps, settle=lambda: sleep(settle), mode=self.RESOURCE.idempotency)
        try:
            live = machine.run()
        except CreateFailed as err:
            raise self.failed(str(err)) from None
        except PathValueError as err:
            raise self.failed(f"{target.describe()} can't be addressed: {err}") from None
        if self.RESOURCE.idempotency is Idempotency.OWNER_SEARCH:  # the API named it
            target = self.target_of_id(str(live.get("name")), target.props)
        return dyn.CreateResult(target.id, self.created(target, live, steps, machine))

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
        return client.poll_resource(
            target.path,
            until,
            timeout=self.timeout if timeout is None else timeout,
            expect=self.RESOURCE.is_resource,
        )

    # ------------------------------------------------------------------ delete
    def delete(self, id_: str, props: dict[str, Any]) -> None:
        """Delete and wait (:meth:`delete_and_wait`); when that can't be confirmed, the declared
        error says the resource is still in the stack."""
        target = self.target_of_id(id_, props)
        try:
            self.delete_and_wait(self.client(target.location), target)
        except (*self.UNDELETABLE, self.RESOURCE.error) as err:
            raise self.failed(self.undeletable(target, id_, err)) from None

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
