"""The ``MigResizeRequest`` dynamic resource: a resize request on a managed instance group, which
brings N VMs at once (all or nothing) through the Dynamic Workload Scheduler, and its lifecycle.

Type token: ``pulumi-python:dynamic/dws:MigResizeRequest``. Inputs (camelCase, as stored in
state):

``project``; ``zone`` or ``region``
    where the group lives: exactly one of them is a string, the other None (a zonal or a
    regional managed instance group).
``group``
    the managed instance group's name.
``name``
    the resize request's name (RFC 1035; unique within the group).
``body``
    the ``InstanceGroupManagerResizeRequest`` sent to ``resizeRequests.insert``, exactly as
    ``gcloud beta compute instance-groups managed resize-requests create --resize-by=N
    --requested-run-duration=D`` sends it: ``{"name", "resizeBy", "requestedRunDuration":
    {"seconds": "D"}}``.
``waitFor``
    ``accepted`` (return once Google queued the request) or ``running`` (once it SUCCEEDED and
    its VMs run).

Outputs: the inputs plus ``state`` (``CREATING``, ``ACCEPTED``, ``SUCCEEDED``, ``FAILED``,
``CANCELLED``, or ``EXPIRED`` once the run ended and the VMs are gone) and ``observed``:
``selfLink``, ``instances`` (the VM names), ``runEndsAt`` (RFC 3339 or None), ``requestId`` (of
the insert) and ``error`` (None, or Google's message for a failed request).

diff: every input but ``waitFor`` replaces the request (a resize request cannot be changed);
the component registers it with ``delete_before_replace``, and the delete removes the VMs the
request brought, so a replace is "delete the N running VMs, then ask for a new all-or-nothing
set" (deleting a resize request alone would leave its VMs running). ``waitFor`` only matters at
create time (an update keeps the request as it is).

create: the shared create state machine (:mod:`~pulumi_dws.providers.create_machine`) with the
steps of :mod:`~pulumi_dws.kinds.flex_group.create`: an insert with a deterministic ``requestId``;
a lost answer is sent again and then settled by reading the request by name (names are unique
per group): a request with this body is adopted (a crashed ``pulumi up``), one with another body
is refused. A group takes one request at a time: another request of the group that is
``CREATING``, ``ACCEPTED``, or ``SUCCEEDED`` with VMs running is refused before anything is sent
(a group's VMs can't be told apart by request, and the delete removes them all). Then it waits
per ``waitFor``, polling with growing intervals: ``accepted`` until
Google queued it (``ACCEPTED`` or ``SUCCEEDED``), ``running`` until ``SUCCEEDED`` with every VM
``RUNNING`` (at most :data:`RUNNING_WAIT_SECONDS`). A request that ends ``FAILED`` or
``CANCELLED``, or is still queued when the wait runs out, is reported with Google's error and
removed (cancelled, deleted, its VMs deleted) so nothing is left; if it cannot be removed the
create succeeds with its true state, so the stack tracks it.

read: the request and the group's managed instances; ``runEndsAt`` from the instances'
``scheduling.terminationTimestamp`` (else the time ``SUCCEEDED`` was first seen plus the run
duration); ``EXPIRED`` once a ``SUCCEEDED`` request's VMs are gone, or once the request is gone
after its run ended (Google deletes finished requests after a while); a request deleted outside
Pulumi before its run ended is gone (the next ``pulumi up`` asks again), unless the group still
has VMs: then it stays, ``SUCCEEDED`` with those VMs, so ``pulumi destroy`` removes them.

delete: wait out ``CREATING``, cancel if ``ACCEPTED``, delete the request, delete the group's
managed instances (one request per group), each operation waited for; safe to run again. While
another request of the group has or will have VMs, none is deleted and the delete fails saying
so (a group's VMs can't be told apart by request).

The provider pickles to a few hundred bytes: no client, no credentials; the endpoint comes from
``DWS_COMPUTE_ENDPOINT`` or the stack config ``dws:computeEndpoint``.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any

import pulumi
import pulumi.dynamic as dyn

from ...providers.compute_provider import ComputeProvider
from ...providers.rest_provider import shared_provider

if TYPE_CHECKING:
    from ...providers.rest import GoogleRestClient
    from .ops import Group

__all__ = [
    "MigResizeRequest",
    "MigResizeRequestProvider",
    "MigResizeError",
    "TYPE_TOKEN",
    "INPUT_KEYS",
    "OUTPUT_KEYS",
    "OBSERVED_KEYS",
    "RUNNING_WAIT_SECONDS",
    "resize_request_body",
    "request_id_of",
]

TYPE_TOKEN = "pulumi-python:dynamic/dws:MigResizeRequest"
INPUT_KEYS = ("project", "zone", "region", "group", "name", "body", "waitFor")
OUTPUT_KEYS = ("state", "observed")
OBSERVED_KEYS = ("selfLink", "instances", "runEndsAt", "requestId", "error")
WAITS = ("accepted", "running")
ACCEPT_WAIT_SECONDS = 900.0
"""How long a new request may stay ``CREATING`` before ``waitFor: accepted`` gives up."""
RUNNING_WAIT_SECONDS = 7200.0 + 600.0
"""How long ``waitFor: running`` waits for the whole set: the longest a Flex-start VM may queue
(``flex_start.request_valid_for``, 2 h) plus a margin. Resize requests in v1 have no queue
deadline of their own; a longer wait is ``waitFor: accepted`` and a later ``pulumi refresh``."""


def resize_request_body(name: str, count: int, run_seconds: int | None) -> dict[str, Any]:
    """The ``InstanceGroupManagerResizeRequest`` gcloud sends for ``gcloud beta compute
    instance-groups managed resize-requests create GROUP --resize-request=NAME --resize-by=COUNT
    --requested-run-duration=RUN`` (``run_seconds=None``: no ``--requested-run-duration``)."""
    body: dict[str, Any] = {"name": name, "resizeBy": count}
    if run_seconds is not None:
        body["requestedRunDuration"] = {"seconds": str(int(run_seconds))}
    return body


def request_id_of(
    project: str, group: str, name: str, *, zone: str | None = None, region: str | None = None
) -> str:
    """The resource id: ``projects/p/{zones/z|regions/r}/instanceGroupManagers/g/
    resizeRequests/name`` (pulumi-gcp's format)."""
    from ...providers.paths import resize_request_path

    return resize_request_path(project, group, name, zone=zone, region=region)


class MigResizeError(Exception):
    """A resize request could not be created, read or deleted. The message says what was
    asked, where, why, what to change, and whether anything was left behind."""


class MigResizeRequestProvider(ComputeProvider):
    """CRUD for ``MigResizeRequest`` over the Compute v1 REST API (see the module docstring;
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
        outs = {**olds, **{k: news[k] for k in INPUT_KEYS if k in news}}
        return dyn.UpdateResult(outs)

    def delete(self, _id: str, props: dict[str, Any]) -> None:
        _delete(self, props)


def default_provider() -> MigResizeRequestProvider:
    """The provider instance every ``MigResizeRequest`` of a program shares."""
    return shared_provider(MigResizeRequestProvider)


class MigResizeRequest(dyn.Resource, module="dws", name="MigResizeRequest"):
    """A resize request on a managed instance group
    (``pulumi-python:dynamic/dws:MigResizeRequest``).

    Most users want :class:`pulumi_dws.FlexStartGroup`, which builds ``props``. Every input and
    output key (:data:`INPUT_KEYS`, :data:`OUTPUT_KEYS`) is an ``Output`` attribute:
    ``request.state``, ``request.observed`` (a dict), ``request.body``...
    """

    def __init__(
        self,
        name: str,
        props: Mapping[str, Any],
        opts: pulumi.ResourceOptions | None = None,
        provider: MigResizeRequestProvider | None = None,
    ) -> None:
        full = {key: None for key in OUTPUT_KEYS}
        full.update(props)
        super().__init__(provider or default_provider(), name, full, opts)


# ---------------------------------------------------------------------- the request handled
@dataclass(frozen=True)
class _Rr:
    where: Group
    name: str
    body: dict[str, Any]
    wait_for: str
    props: Mapping[str, Any]

    @classmethod
    def of(cls, props: Mapping[str, Any]) -> _Rr:
        from .create import typed_body
        from .ops import Group

        where = Group(
            str(props["project"]),
            str(props["group"]),
            zone=str(props["zone"]) if props.get("zone") else None,
            region=str(props["region"]) if props.get("region") else None,
        )
        body = typed_body(props.get("body") or {})  # numbers arrive as protobuf doubles
        return cls(where, str(props["name"]), body, str(props.get("waitFor") or "running"), props)

    @property
    def id(self) -> str:
        w = self.where
        return request_id_of(w.project, w.group, self.name, zone=w.zone, region=w.region)

    @property
    def run(self) -> int | None:
        spec = self.body.get("requestedRunDuration") or {}
        return int(float(spec["seconds"])) if spec.get("seconds") is not None else None

    def describe(self) -> str:
        from ...duration import Duration

        w = self.where
        parts = [f"+{self.body.get('resizeBy', '?')} VMs"]
        if self.run:
            parts.append(f"run {Duration(self.run).human()}")
        parts.append(f"group {w.group} in {w.location}, project {w.project}")
        return f"Resize request '{self.name}' ({', '.join(parts)})"

    def gcloud(self, verb: str) -> str:
        w = self.where
        where = f"--zone {w.zone}" if w.zone else f"--region {w.region}"
        flag = "--resize-request" if verb == "describe" else "--resize-requests"
        return (
            f"gcloud beta compute instance-groups managed resize-requests {verb} {w.group} "
            f"{flag}={self.name} {where} --project {w.project}"
        )


# ---------------------------------------------------------------------- check / diff
def _check(news: Mapping[str, Any]) -> list[dyn.CheckFailure]:
    """Check the inputs; a value not known yet (a preview) is never a failure."""
    from ... import limits
    from ...providers.checks import CheckFailures
    from ...providers.checks import known as _known
    from ...validation import check_name, check_region, check_zone

    failures = CheckFailures()
    run = failures.run

    for key in ("project", "group", "name", "body"):
        if not news.get(key):
            failures.append(dyn.CheckFailure(key, f"{key} is required"))
    if failures:
        return failures
    zone, region = news.get("zone"), news.get("region")
    if bool(zone) == bool(region):
        failures.append(
            dyn.CheckFailure("zone", "exactly one of zone and region must be set (the other None)")
        )
    failures.segment("project", news["project"])
    if zone and _known(zone):
        run("zone", lambda: check_zone("zone", zone))
    if region and _known(region):
        run("region", lambda: check_region("region", region))
    for key in ("group", "name"):
        if _known(news[key]):
            run(key, partial(check_name, key, news[key]))
    body = news["body"]
    if not _known(body) and not isinstance(body, Mapping):
        return failures
    if not isinstance(body, Mapping):
        failures.append(dyn.CheckFailure("body", "body must be an object (a resize request)"))
        return failures
    if _known(body.get("name")) and _known(news["name"]) and body.get("name") != news["name"]:
        failures.append(dyn.CheckFailure("body", "body.name must be the same as name"))
    extra = sorted(set(body) - {"name", "resizeBy", "requestedRunDuration", "description"})
    if extra:
        failures.append(
            dyn.CheckFailure("body", f"body: {', '.join(extra)} not supported (use resizeBy)")
        )
    count = body.get("resizeBy")
    if _known(count):
        run(
            "body",
            lambda: limits.get("mig.resize_by").check(
                "body.resizeBy", limits.as_whole_number("body.resizeBy", count)
            ),
        )
    duration = body.get("requestedRunDuration")
    if duration is not None and _known(duration):
        run(
            "body",
            lambda: limits.get("mig.requested_run_duration").check(
                "body.requestedRunDuration", _run_seconds(duration)
            ),
        )
    value = news.get("waitFor")
    if value is not None and _known(value) and value not in WAITS:
        failures.append(dyn.CheckFailure("waitFor", f"waitFor {value!r} is not one of {WAITS}"))
    return failures


def _run_seconds(duration: Any) -> int:
    """The seconds of a ``requestedRunDuration`` (``{"seconds": "259200"}``, an int64 that may
    arrive as a whole number); anything else is refused with one sentence."""
    from ...errors import DwsValidationError

    seconds = duration.get("seconds") if isinstance(duration, Mapping) else None
    if isinstance(seconds, str) and seconds.isascii() and seconds.isdigit():
        return int(seconds)
    if isinstance(seconds, float) and seconds.is_integer():
        return int(seconds)
    if isinstance(seconds, int) and not isinstance(seconds, bool):
        return seconds
    raise DwsValidationError(
        "body.requestedRunDuration",
        duration,
        'must be {"seconds": N}, N a whole number of seconds',
    )


def _diff(olds: Mapping[str, Any], news: Mapping[str, Any]) -> dyn.DiffResult:
    from .create import typed_body

    def same(key: str) -> bool:
        old, new = olds.get(key), news.get(key)
        if key == "body" and isinstance(old, Mapping) and isinstance(new, Mapping):
            return typed_body(old) == typed_body(new)
        return (old or None) == (new or None)

    replaces = [k for k in INPUT_KEYS if k != "waitFor" and not same(k)]
    changes = bool(replaces) or not same("waitFor")
    return dyn.DiffResult(
        changes=changes,
        replaces=replaces,
        stables=[k for k in INPUT_KEYS if k != "waitFor"] if not replaces else [],
        delete_before_replace=True,
    )


# ---------------------------------------------------------------------- waiting
def reached(rr: _Rr, view: Mapping[str, Any]) -> bool:
    """Whether a request (and its VMs) reached what ``waitFor`` asks."""
    state = view["request"].get("state")
    if rr.wait_for == "accepted":
        return state in ("ACCEPTED", "SUCCEEDED")
    members = view.get("members") or []
    return state == "SUCCEEDED" and all(m.get("instanceStatus") == "RUNNING" for m in members)


def read_view(
    client: GoogleRestClient,
    rr: _Rr,
    seen: Callable[[dict[str, Any]], None] | None = None,
) -> dict[str, Any] | None:
    """The request and (once it SUCCEEDED) the group's managed instances; None when the
    request does not exist. ``seen`` is given the request as soon as it is read (before the
    instances are listed, which may fail)."""
    from .ops import get_request, managed_instances

    request = get_request(client, rr.where, rr.name)
    if request is None:
        return None
    if seen is not None:
        seen(request)
    members = managed_instances(client, rr.where) if request.get("state") == "SUCCEEDED" else []
    return {"request": request, "members": members}


def await_request(
    client: GoogleRestClient,
    rr: _Rr,
    seen: Callable[[dict[str, Any]], None] = lambda _view: None,
) -> dict[str, Any]:
    """Poll (growing intervals) until the request reached what ``waitFor`` asks; raise
    :class:`MigResizeError` when it ended FAILED or CANCELLED or disappeared, ``TimeoutError``
    when the wait ran out."""

    def read() -> dict[str, Any]:
        view = read_view(client, rr, lambda request: seen({"request": request, "members": []}))
        if view is None:
            raise MigResizeError(f"{rr.describe()} disappeared while it was awaited")
        seen(view)
        return view

    def done(view: dict[str, Any]) -> bool:
        return view["request"].get("state") in ("FAILED", "CANCELLED") or reached(rr, view)

    from .ops import poll_until

    budget = ACCEPT_WAIT_SECONDS if rr.wait_for == "accepted" else RUNNING_WAIT_SECONDS
    view, waited = poll_until(client, read, done, budget)
    if reached(rr, view):
        return view
    state = view["request"].get("state")
    if state in ("FAILED", "CANCELLED"):
        raise RequestEnded(view["request"])
    raise TimeoutError(f"it is still {state} after {waited:.0f}s")


class RequestEnded(MigResizeError):
    """Google ended the request ``FAILED`` or ``CANCELLED``."""

    def __init__(self, request: Mapping[str, Any]) -> None:
        self.request = dict(request)
        self.state = str(request.get("state"))
        self.reason = google_error(request) or "Google gave no reason"
        super().__init__(f"the request ended {self.state}: {self.reason}")


def google_error(request: Mapping[str, Any]) -> str | None:
    """``status.error.errors`` of a request as one line, or None."""
    status = request.get("status")
    error = status.get("error") if isinstance(status, Mapping) else None
    errors = error.get("errors") if isinstance(error, Mapping) else None
    if not isinstance(errors, list) or not errors:
        return None
    return "; ".join(
        f"{e.get('code', '')}: {e.get('message', '')}" if isinstance(e, Mapping) else str(e)
        for e in errors
    )


def failure_text(rr: _Rr, exc: Exception) -> str:
    """Why an accepted create failed, and what to change."""
    from ...duration import Duration

    if isinstance(exc, RequestEnded):
        return (
            f"{rr.describe()} ended {exc.state}: {exc.reason.rstrip('.')}. To change: deploy "
            "again later, or pick another zone or region (see `dws advise`)."
        )
    if isinstance(exc, TimeoutError):
        return (
            f"{rr.describe()} was not ready in time ({exc}; pulumi-dws waits up to "
            f"{Duration(int(RUNNING_WAIT_SECONDS)).human()} for the whole set). To change: "
            "deploy again later, or set wait_for='accepted' to return once the request is "
            "queued."
        )
    if isinstance(exc, MigResizeError):
        return str(exc).rstrip(".") + "."
    return f"{rr.describe()} could not be created: {exc}."


# ---------------------------------------------------------------------- outputs
def _rfc3339(seconds: float) -> str:
    return dt.datetime.fromtimestamp(seconds, dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _run_ends(rr: _Rr, view: Mapping[str, Any], previous: Any, now: float | None) -> Any:
    stamps = [
        str((m.get("scheduling") or {}).get("terminationTimestamp"))
        for m in view.get("members") or []
        if isinstance(m.get("scheduling"), Mapping)
        and (m.get("scheduling") or {}).get("terminationTimestamp")
    ]
    if stamps:
        return min(stamps)
    if previous:
        return previous
    if view["request"].get("state") == "SUCCEEDED" and rr.run and now is not None:
        return _rfc3339(now + rr.run)  # first seen SUCCEEDED: an upper bound
    return None


def _outputs(
    rr: _Rr,
    props: Mapping[str, Any],
    view: Mapping[str, Any],
    request_id: str | None,
    now: float | None,
) -> dict[str, Any]:
    from .ops import instance_name

    request = view["request"]
    previous = (props.get("observed") or {}) if isinstance(props.get("observed"), Mapping) else {}
    members = view.get("members") or []
    state = request.get("state")
    if state == "SUCCEEDED" and view.get("members") == []:  # None: they could not be listed
        state = "EXPIRED"
    outs = {key: props[key] for key in INPUT_KEYS if key in props}
    outs["state"] = state
    outs["observed"] = {
        "selfLink": request.get("selfLink"),
        "instances": sorted(instance_name(m) for m in members),
        "runEndsAt": _run_ends(rr, view, previous.get("runEndsAt"), now),
        "requestId": request_id,
        "error": google_error(request),
    }
    return outs


# ---------------------------------------------------------------------- create
def _create(provider: MigResizeRequestProvider, props: dict[str, Any]) -> dyn.CreateResult:
    from ...providers.create_machine import CreateFailed, CreateMachine
    from ...providers.paths import PathValueError
    from .create import SETTLE_SECONDS, MigCreate

    rr = _Rr.of(props)
    client = provider.client()
    steps = MigCreate(client, rr)
    sleep = client.sleep
    assert sleep is not None
    machine = CreateMachine(steps, settle=lambda: sleep(SETTLE_SECONDS))
    try:
        view = machine.run()
    except CreateFailed as err:
        raise MigResizeError(str(err)) from None
    except PathValueError as err:
        raise MigResizeError(f"{rr.describe()} can't be addressed: {err}") from None
    outs = _outputs(rr, props, view, steps.request_id, client.server_time)
    return dyn.CreateResult(rr.id, outs)


# ---------------------------------------------------------------------- read / delete
def _props_of_id(id_: str) -> dict[str, Any]:
    """Inputs for a request read by id alone (``pulumi import``)."""
    parts = id_.split("/")
    if len(parts) != 8 or parts[0] != "projects" or parts[2] not in ("zones", "regions"):
        raise MigResizeError(
            f"{id_!r} is not a resize request id (projects/P/zones/Z/instanceGroupManagers/G/"
            "resizeRequests/NAME, or regions/R for a regional group)"
        )
    zonal = parts[2] == "zones"
    return {
        "project": parts[1],
        "zone": parts[3] if zonal else None,
        "region": None if zonal else parts[3],
        "group": parts[5],
        "name": parts[7],
        "body": {"name": parts[7]},
        "waitFor": "accepted",
    }


def _read(provider: MigResizeRequestProvider, id_: str, props: dict[str, Any]) -> dyn.ReadResult:
    from ...providers.paths import PathValueError
    from ...providers.rest import ApiError
    from .ops import managed_instances

    imported = not props.get("project")
    if imported:
        props = _props_of_id(id_)
    rr = _Rr.of(props)
    client = provider.client()
    try:
        view = read_view(client, rr)
    except (ApiError, PathValueError) as err:
        raise MigResizeError(
            f"{rr.describe()} could not be read: {err}. Nothing was changed; run `pulumi "
            "refresh` again once Compute Engine answers."
        ) from None
    observed = props.get("observed")
    previous: Mapping[str, Any] = observed if isinstance(observed, Mapping) else {}
    if view is None:
        try:
            members = managed_instances(client, rr.where)
        except ApiError as err:
            raise MigResizeError(
                f"{rr.describe()} is gone, and whether its VMs still run could not be read: "
                f"{err}. Nothing was changed; run `pulumi refresh` again once Compute Engine "
                "answers."
            ) from None
        ends = previous.get("runEndsAt") if previous else None
        if not members and (not ends or not _ended(ends, client.server_time)):
            return dyn.ReadResult("", {})  # deleted outside Pulumi: the next up asks again
        # gone after its run ended, or deleted while its VMs run: the VMs stay tracked
        request = {"state": "SUCCEEDED", "selfLink": previous.get("selfLink")}
        view = {"request": request, "members": members}
    if imported:
        body = view["request"]
        props = {**props, "body": {k: body[k] for k in ("name", "resizeBy",
                 "requestedRunDuration", "description") if k in body}}  # fmt: skip
    outs = _outputs(rr, props, view, (previous or {}).get("requestId"), client.server_time)
    inputs = {key: outs[key] for key in INPUT_KEYS if key in outs}
    return dyn.ReadResult(id_ or rr.id, outs, inputs)


def _ended(stamp: str, now: float | None) -> bool:
    from ...validation import parse_timestamp

    if now is None:
        return False
    try:
        return parse_timestamp("runEndsAt", stamp).timestamp() <= now
    except Exception:  # noqa: BLE001 - an unreadable time proves nothing
        return False


def _delete(provider: MigResizeRequestProvider, props: dict[str, Any]) -> None:
    from ...providers.paths import PathValueError
    from ...providers.rest import ApiError, OperationError
    from .ops import tear_down

    rr = _Rr.of(props)
    try:
        tear_down(provider.client(), rr.where, rr.name)
    except (ApiError, OperationError, TimeoutError, PathValueError) as err:
        raise MigResizeError(
            f"{rr.describe()} could not be deleted: {err}. It is still in the stack: run "
            f"`pulumi destroy` (or `pulumi up`) again, or remove it with `{rr.gcloud('cancel')}`"
            f", `{rr.gcloud('delete')}` and delete the group's VMs, then `pulumi refresh`."
        ) from None
