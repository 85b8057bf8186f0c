"""Dynamic provider for Cloud TPU queued resources (``v2alpha1`` ``queuedResources``): the
Flex-start, Spot and reservation-bound TPU requests pulumi-gcp cannot express.

Resource type ``pulumi-python:dynamic/dws:QueuedTpu``. Inputs: ``project``, ``zone``,
``queuedResourceId``, ``body`` (the ``QueuedResource`` JSON, field for field what ``gcloud alpha
compute tpus queued-resources create`` sends) and ``waitFor`` (``accepted`` | ``active``).
Outputs: the inputs plus ``name``, ``state`` (``WAITING_FOR_RESOURCES``, ``PROVISIONING``,
``ACTIVE``, ``FAILED``, ``SUSPENDED``...), ``observed`` (``createTime``, ``stateInitiator``,
``error``: why it ``FAILED``) and ``drift`` (the body paths a read found changed).

* Create: ``POST {parent}/queuedResources?queuedResourceId=ID&requestId=UUID``, the operation
  polled, then the request read back until it is what ``waitFor`` asks: ``accepted`` (waiting
  for capacity, provisioning or active) or ``active``. The steps run on the shared create state
  machine (:mod:`~pulumi_dws.kinds.queued_tpu.create`): an answer lost in any way is sent
  again with the same request id, then settled by reading; a request found under the id is
  adopted when its node carries this resource's ownership label (a crashed ``pulumi up``) and
  refused otherwise. Once the API accepted the create nothing is orphaned: a request that
  ``FAILED`` (its queue window passed), was ``SUSPENDED`` or is still queued when the wait ends
  (the queue window plus an hour, or ``timeout``) is deleted, and read again after the delete
  settles, before the error says nothing is left; one that can't be deleted, or can't be
  followed, is returned with its true ``state`` so the stack tracks it.
* Diff: a queued resource can't be changed: any change of ``project``, ``zone``,
  ``queuedResourceId`` or ``body`` replaces it (delete first: the id is reused); ``waitFor``
  only matters at create time.
* Read: the request as it is: ``state``, and drift (:mod:`~pulumi_dws.kinds.queued_tpu.drift`):
  ``body`` takes the accelerator type, multislice node count and node labels Google has, and
  ``drift`` lists the paths that differ (so the next ``pulumi up`` replaces a request made again
  outside Pulumi); one deleted outside Pulumi is gone.
* Delete: ``DELETE {name}?requestId=UUID``, with ``force=true`` when the request has (or may be
  making) TPU nodes (the API refuses to delete those otherwise), the operation polled, then read
  until it is gone; 404 is success.

Endpoint: ``DWS_TPU_ENDPOINT`` or the stack config ``dws:tpuEndpoint`` (anonymous on loopback),
else ``https://tpu.googleapis.com/`` with Application Default Credentials fetched per call. The
provider pickles to a few hundred bytes: no client, no credentials.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

import pulumi
import pulumi.dynamic as dyn

from ...providers.endpoints import TPU, Api
from ...providers.rest import is_lro
from ...providers.rest_provider import DEFAULT_TIMEOUT, RestProvider
from .create import ENDED, QueuedTpuCreate, state_of

if TYPE_CHECKING:
    from ...providers.rest import GoogleRestClient, PollPolicy

__all__ = [
    "QueuedTpuProvider",
    "QueuedTpuResource",
    "QueuedTpuError",
    "TYPE_TOKEN",
    "REPLACE_KEYS",
    "ENDED",
    "is_queued_resource",
    "describe_status",
    "failure_detail",
]

TYPE_TOKEN = "pulumi-python:dynamic/dws:QueuedTpu"
REPLACE_KEYS = ("project", "zone", "queuedResourceId", "body")
_NO_NODES = frozenset({"ACCEPTED", "WAITING_FOR_RESOURCES", "FAILED", "SUSPENDED"})
"""States whose request the API deletes without ``force`` (it holds no TPU nodes)."""
_WAIT_MARGIN = 3600.0
"""Past the queue window, how long a create waits for provisioning to finish."""


class QueuedTpuError(Exception):
    """A queued-resource call failed; the message says what happened and what to do."""


def is_queued_resource(answer: Mapping[str, Any]) -> bool:
    """A queued resource: a ``name`` and, if any, a ``state`` object."""
    state = answer.get("state")
    return isinstance(answer.get("name"), str) and (state is None or isinstance(state, Mapping))


def describe_status(status: Mapping[str, Any]) -> str:
    """``google.rpc.Status`` as text."""
    return f"{status.get('code', '')}: {status.get('message', '')}".strip(": ")


def failure_detail(live: Mapping[str, Any]) -> str:
    """`` (why)`` for a request whose state carries an error, else ""."""
    state = live.get("state") or {}
    failed = state.get("failedData") if isinstance(state, Mapping) else None
    error = (failed or {}).get("error") if isinstance(failed, Mapping) else None
    return f" ({describe_status(error)})" if isinstance(error, Mapping) else ""


def _node_specs(body: Any) -> tuple[list[tuple[int, Any]], str | None]:
    """``([(index, node spec)], problem)``: the known node specs of ``body``, or why
    ``body.tpu.nodeSpec`` is not a list of objects (parts not known yet are let be)."""
    from pulumi.output import Unknown

    tpu = body.get("tpu") if isinstance(body, Mapping) else None
    if tpu is None or isinstance(tpu, Unknown):
        return [], None
    if not isinstance(tpu, Mapping):
        return [], "body.tpu must be an object (a Tpu)"
    specs = tpu.get("nodeSpec")
    if specs is None or isinstance(specs, Unknown):
        return [], None
    if not isinstance(specs, list):
        return [], "body.tpu.nodeSpec must be a list of node specs"
    known_specs: list[tuple[int, Any]] = []
    for i, spec in enumerate(specs):
        if isinstance(spec, Unknown):
            continue
        if not isinstance(spec, Mapping):
            return [], f"body.tpu.nodeSpec[{i}] must be an object (a NodeSpec)"
        node = spec.get("node")
        if node is not None and not isinstance(node, (Mapping, Unknown)):
            return [], f"body.tpu.nodeSpec[{i}].node must be an object (a Node)"
        labels = node.get("labels") if isinstance(node, Mapping) else None
        if labels is not None and not isinstance(labels, (Mapping, Unknown)):
            return [], f"body.tpu.nodeSpec[{i}].node.labels must be an object"
        known_specs.append((i, spec))
    return known_specs, None


def _body_failures(body: Any) -> list[dyn.CheckFailure]:
    """The node specs are objects, and their labels leave room for the ownership label the
    create adds (and don't set it)."""
    from ... import limits
    from .create import OWNER_LABEL

    specs, problem = _node_specs(body)
    if problem:
        return [dyn.CheckFailure("body", problem)]
    failures: list[dyn.CheckFailure] = []
    for i, spec in specs:
        node = spec.get("node")
        labels = node.get("labels") if isinstance(node, Mapping) else None
        if not isinstance(labels, Mapping):  # its keys are known even when a value is not
            continue
        where = f"body.tpu.nodeSpec[{i}].node.labels"
        if OWNER_LABEL in labels:
            failures.append(
                dyn.CheckFailure("body", f"{where}: {OWNER_LABEL} is set by pulumi-dws itself")
            )
        most = (limits.get("labels.count").maximum or 64) - 1
        if len(labels) > most:
            failures.append(
                dyn.CheckFailure(
                    "body",
                    f"{where}: {len(labels)} labels; at most {most} (pulumi-dws adds "
                    f"{OWNER_LABEL})",
                )
            )
    return failures


@dataclass(frozen=True)
class _Target:
    """The queued resource one call is about, its paths checked."""

    props: Mapping[str, Any]
    project: str
    zone: str
    resource_id: str

    @property
    def parent(self) -> str:
        from ...providers.paths import queued_resource_path

        return queued_resource_path(self.project, self.zone)

    @property
    def path(self) -> str:
        from ...providers.paths import queued_resource_path

        return queued_resource_path(self.project, self.zone, self.resource_id)


def _target(props: Mapping[str, Any]) -> _Target:
    from ...providers.paths import PathValueError

    target = _Target(props, props.get("project"), props.get("zone"), props.get("queuedResourceId"))  # type: ignore[arg-type]
    try:
        target.path  # noqa: B018 - checks every segment
    except PathValueError as err:
        raise QueuedTpuError(f"the queued resource can't be addressed: {err}") from None
    return target


def _parse_id(id_: str) -> _Target:
    parts = id_.split("/") if isinstance(id_, str) else []
    if len(parts) != 6 or parts[0] != "projects" or parts[2] != "locations":
        raise QueuedTpuError(f"{id_!r} is not projects/PROJECT/locations/ZONE/queuedResources/ID")
    props = {"project": parts[1], "zone": parts[3], "queuedResourceId": parts[5]}
    return _target(props)


def _outputs(props: Mapping[str, Any], live: Mapping[str, Any]) -> dict[str, Any]:
    state = live.get("state") if isinstance(live.get("state"), Mapping) else {}
    observed: dict[str, Any] = {
        "createTime": live.get("createTime"),
        "stateInitiator": (state or {}).get("stateInitiator"),
    }
    detail = failure_detail(live)
    if detail:
        observed["error"] = detail.strip(" ()")
    return {
        **dict(props),
        "name": live.get("name"),
        "state": state_of(live),
        "observed": observed,
        "drift": [],
    }


class QueuedTpuProvider(RestProvider):
    """CRUD for one Cloud TPU queued resource; see the module docstring (``sleep``, ``poll``,
    ``timeout`` and the endpoint, ``dws:tpuEndpoint``: :class:`~.rest_provider.RestProvider`)."""

    API: ClassVar[Api] = TPU

    def __init__(
        self,
        timeout: float = DEFAULT_TIMEOUT,
        sleep: Callable[[float], None] | None = None,
        poll: PollPolicy | None = None,
    ) -> None:
        super().__init__(sleep, poll, timeout)

    def check(self, _olds: dict[str, Any], news: dict[str, Any]) -> dyn.CheckResult:
        """Every value that goes into a URL is checked in full; a value not known yet (a
        preview) is never a failure."""
        from pulumi.output import Unknown

        from ...providers.checks import CheckFailures

        failures = CheckFailures()
        kinds = {"project": "project", "zone": "zone", "queuedResourceId": "name"}
        for key, kind in kinds.items():
            if news.get(key) is None:
                failures.append(dyn.CheckFailure(key, f"{key} is required"))
            failures.segment(key, news.get(key), kind)
        wait_for = news.get("waitFor", "active")
        if not isinstance(wait_for, Unknown) and wait_for not in ("accepted", "active"):
            failures.append(dyn.CheckFailure("waitFor", "waitFor: accepted or active"))
        if not isinstance(news.get("body"), (Mapping, Unknown)):
            failures.append(dyn.CheckFailure("body", "body is required (a QueuedResource)"))
        failures.extend(_body_failures(news.get("body")))
        return dyn.CheckResult(news, failures)

    def diff(self, _id: str, olds: dict[str, Any], news: dict[str, Any]) -> dyn.DiffResult:
        replaces = [k for k in REPLACE_KEYS if olds.get(k) != news.get(k)]
        return dyn.DiffResult(
            changes=bool(replaces) or olds.get("waitFor") != news.get("waitFor"),
            replaces=replaces,
            delete_before_replace=True if replaces else None,
        )

    def create(self, props: dict[str, Any]) -> dyn.CreateResult:
        from ...providers.create_machine import CreateFailed, CreateMachine
        from .create import SETTLE_SECONDS

        target = _target(props)
        client = self.client()
        steps = QueuedTpuCreate(self, client, target)
        assert client.sleep is not None
        sleep = client.sleep
        machine = CreateMachine(steps, settle=lambda: sleep(SETTLE_SECONDS))
        try:
            live = machine.run()
        except CreateFailed as err:
            raise QueuedTpuError(str(err)) from None
        return dyn.CreateResult(target.path, _outputs(props, live))

    def read(self, id_: str, props: dict[str, Any]) -> dyn.ReadResult:
        from ...providers.rest import ApiError

        target = _parse_id(id_)
        try:
            live = self.read_live(self.client(), target.path)
        except ApiError as err:
            raise QueuedTpuError(
                f"queued resource {id_} could not be read: {err}. Nothing was changed; run "
                "`pulumi refresh` again once the API answers."
            ) from None
        if live is None:
            return dyn.ReadResult(None, {})
        from .drift import seen_body

        base = {**dict(props), **{k: v for k, v in target.props.items()}}
        body, drift = seen_body(base.get("body"), live)
        if "body" in base:
            base["body"] = body
        return dyn.ReadResult(id_, {**_outputs(base, live), "drift": drift})

    def update(self, id_: str, olds: dict[str, Any], news: dict[str, Any]) -> dyn.UpdateResult:
        # Only waitFor can differ without a replacement: it matters at create time only.
        return dyn.UpdateResult({**olds, "waitFor": news.get("waitFor")})

    def delete(self, id_: str, props: dict[str, Any]) -> None:
        from ...providers.rest import ApiError

        target = _parse_id(id_)
        try:
            self.delete_and_wait(self.client(), target.path)
        except (ApiError, TimeoutError, QueuedTpuError) as err:
            raise QueuedTpuError(
                f"delete of queued resource {id_} could not be confirmed: {err}. It is still in "
                "the stack: run `pulumi destroy` (or `pulumi up`) again."
            ) from None

    # ------------------------------------------------------------------ calls
    def wait_seconds(self, target: _Target) -> float:
        """How long a create waits for ``waitFor``: the queue window plus an hour to
        provision, or ``timeout`` when the request has no window."""
        from ...duration import Duration
        from ...errors import DwsValidationError

        body = target.props.get("body")
        policy = body.get("queueingPolicy") if isinstance(body, Mapping) else None
        window = policy.get("validUntilDuration") if isinstance(policy, Mapping) else None
        if isinstance(window, str):
            try:
                return Duration.parse(window, "validUntilDuration").seconds + _WAIT_MARGIN
            except DwsValidationError:
                pass  # the API refuses it
        return self.timeout

    def read_live(self, client: GoogleRestClient, path: str) -> dict[str, Any] | None:
        """The queued resource, or None when there is none."""
        return client.find(path, expect=is_queued_resource)

    def poll(
        self,
        client: GoogleRestClient,
        path: str,
        until: Callable[[dict[str, Any] | None], bool],
        *,
        timeout: float | None = None,
    ) -> dict[str, Any] | None:
        """Read ``path`` until ``until(resource or None)`` or the wait ends."""
        return client.poll_resource(
            path, until, timeout=self.timeout if timeout is None else timeout,
            expect=is_queued_resource,
        )  # fmt: skip

    def wait_operation(
        self, client: GoogleRestClient, operation: dict[str, Any], what: str
    ) -> dict[str, Any]:
        """Poll a Cloud TPU operation until done (its name is checked before it is a path)."""
        from ...providers.paths import PathValueError, operation_name_path

        try:
            poll = operation_name_path(operation.get("name"), location="zone")
        except PathValueError:
            raise QueuedTpuError(
                f"{what}: the API answered without a usable operation: {str(operation)[:200]}"
            ) from None
        return client.wait(
            operation, poll, is_done=lambda op: bool(op.get("done")), timeout=self.timeout,
            expect=is_lro,
        )  # fmt: skip

    def delete_and_wait(self, client: GoogleRestClient, path: str) -> bool:
        """Delete the queued resource (``force`` when it may have nodes) and wait until it is
        gone; False when there was nothing to delete."""
        from ...providers.rest import ApiError

        live = self.read_live(client, path)
        if live is None:
            return False
        if state_of(live) != "DELETING":
            request_id = str(uuid.uuid4())
            force = state_of(live) not in _NO_NODES
            for attempt in range(2):
                params: dict[str, Any] = {"requestId": request_id}
                if force:
                    params["force"] = "true"
                try:
                    op = client.delete(path, expect=is_lro, **params)
                except ApiError as err:
                    if err.not_found:
                        return True
                    if attempt == 0 and err.status in (400, 409) and not force:
                        force, request_id = True, str(uuid.uuid4())  # nodes appeared meanwhile
                        continue
                    raise
                done = self.wait_operation(client, op, f"delete of {path}")
                error = done.get("error")
                if isinstance(error, Mapping) and error.get("code") != 5:
                    raise QueuedTpuError(f"delete of {path} failed: {describe_status(error)}")
                break
        final = self.poll(client, path, lambda r: r is None)
        if final is not None:
            raise TimeoutError(f"{path} is still {state_of(final)} after {self.timeout:.0f}s")
        return True


class QueuedTpuResource(dyn.Resource, module="dws", name="QueuedTpu"):
    """The queued resource as a dynamic resource (``pulumi-python:dynamic/dws:QueuedTpu``)."""

    name: pulumi.Output[str]
    state: pulumi.Output[str]
    observed: pulumi.Output[dict[str, Any]]
    drift: pulumi.Output[list[str]]

    def __init__(
        self,
        name: str,
        props: dict[str, Any],
        opts: pulumi.ResourceOptions | None = None,
        provider: QueuedTpuProvider | None = None,
    ) -> None:
        outputs = dict.fromkeys(("name", "state", "observed", "drift"))
        super().__init__(provider or QueuedTpuProvider(), name, {**outputs, **props}, opts)
