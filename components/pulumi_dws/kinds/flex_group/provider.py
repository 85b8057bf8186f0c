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

The resource is declared once (:data:`~pulumi_dws.kinds.flex_group.api.RESIZE_REQUEST`: paths,
id, replace keys, outputs, states, idempotency) on the shared base
(:mod:`~pulumi_dws.providers.rest_resource`), which supplies the target
(:class:`~pulumi_dws.kinds.flex_group.target.ResizeRequest`), id parsing, the diff, failure
wrapping and the ``Resource`` class. The provider pickles to a few hundred bytes: no client, no
credentials; the endpoint comes from ``DWS_COMPUTE_ENDPOINT`` or the stack config
``dws:computeEndpoint``.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from functools import partial
from typing import TYPE_CHECKING, Any, ClassVar

import pulumi.dynamic as dyn

from ... import limits
from ...errors import DwsValidationError
from ...providers.checks import CheckFailures
from ...providers.checks import known as _known
from ...providers.compute_provider import ComputeProvider
from ...providers.create_machine import CreateMachine
from ...providers.rest import ApiError
from ...providers.rest_provider import shared_provider
from ...providers.rest_resource import DeclaredResource, RestResource, Target
from ...validation import check_name, check_region, check_zone, parse_timestamp
from .api import (
    INPUT_KEYS,
    OBSERVED_KEYS,
    OUTPUT_KEYS,
    RESIZE_REQUEST,
    RUNNING_WAIT_SECONDS,
    TYPE_TOKEN,
    WAITS,
    MigResizeError,
    request_id_of,
    resize_request_body,
    typed_body,
)
from .create import MigCreate
from .ops import confirmed_instances, instance_name, tear_down
from .target import ResizeRequest
from .waiting import google_error, read_view

if TYPE_CHECKING:
    from ...providers.rest import GoogleRestClient

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


class MigResizeRequestProvider(ComputeProvider):
    """CRUD for ``MigResizeRequest`` over the Compute v1 REST API (see the module docstring;
    ``sleep``, ``poll`` and the endpoint: :class:`~.compute_provider.ComputeProvider`)."""

    RESOURCE: ClassVar[RestResource] = RESIZE_REQUEST
    TARGET: ClassVar[type[Target]] = ResizeRequest
    MARKED: ClassVar[bool] = False  # resize requests take no labels: the group is the stack's

    def check(self, _olds: dict[str, Any], news: dict[str, Any]) -> dyn.CheckResult:
        return dyn.CheckResult(news, _check(news))

    def same(self, key: str, old: Any, new: Any) -> bool:
        """A body is compared as the API types it; an empty input is an absent one."""
        if key == "body" and isinstance(old, Mapping) and isinstance(new, Mapping):
            return typed_body(old) == typed_body(new)
        return bool((old or None) == (new or None))

    def create_steps(self, client: GoogleRestClient, target: Target) -> MigCreate:
        assert isinstance(target, ResizeRequest)
        return MigCreate(client, target)

    def created(
        self, target: Target, live: Any, steps: Any, machine: CreateMachine[Any, Any]
    ) -> dict[str, Any]:
        assert isinstance(target, ResizeRequest)
        return _outputs(target, target.props, live, steps.request_id, steps.client.server_time)

    def target_of_id(self, id_: str, props: Mapping[str, Any]) -> Target:
        """The request of the state's inputs; read by id alone (``pulumi import``), the
        request the id names."""
        values = self.parse_id(id_)
        if props.get("project"):  # the id wins where it says where the request is
            where = {"zone": None, "region": None, **values}
            return self.target({**dict(props), **where})
        return self.target(
            {
                "zone": None,
                "region": None,
                **values,
                "body": {"name": values["name"]},
                "waitFor": "accepted",
            }
        )

    def not_an_id(self, id_: str) -> str:
        return (
            f"{id_!r} is not a resize request id (projects/P/zones/Z/instanceGroupManagers/G/"
            "resizeRequests/NAME, or regions/R for a regional group)"
        )

    def read(self, id_: str, props: dict[str, Any]) -> dyn.ReadResult:
        """The request and its group's VMs; gone when it was deleted outside Pulumi before its
        run could end, ``EXPIRED`` (derived) once it ended, kept while the group's VMs run."""
        imported = not props.get("project")
        rr = self.target_of_id(id_, props)
        assert isinstance(rr, ResizeRequest)
        props = dict(rr.props)
        client = self.client()
        try:
            view = read_view(client, rr)
        except self.UNREADABLE as err:
            raise self.failed(self.unreadable(rr, id_, err)) from None
        observed = props.get("observed")
        previous: Mapping[str, Any] = observed if isinstance(observed, Mapping) else {}
        if view is None:
            try:
                members = confirmed_instances(client, rr.where)
            except ApiError as err:
                raise MigResizeError(
                    f"{rr.describe()} is gone, and whether its VMs still run could not be "
                    f"read: {err}. Nothing was changed; run `pulumi refresh` again once Compute "
                    "Engine answers."
                ) from None
            if not members and not _ran(rr, props, previous, client.server_time):
                return dyn.ReadResult(self.GONE_ID, {})  # deleted outside Pulumi: asked again
            # gone after its run ended (or after it ran), or deleted while its VMs run: the
            # stack keeps it (no second set is bought), with the VMs that still run
            request = {
                "state": "SUCCEEDED",
                "selfLink": previous.get("selfLink"),
                "creationTimestamp": previous.get("createdAt"),
            }
            view = {"request": request, "members": members, "gone": True}
            if not members:  # its run's end: as seen, or at the latest a run after its create
                view["ends"] = previous.get("runEndsAt") or _created_plus_run(rr, previous)
        if imported:
            body = view["request"]
            kept = ("name", "resizeBy", "requestedRunDuration", "description")
            props = {**props, "body": {k: body[k] for k in kept if k in body}}
        outs = _outputs(rr, props, view, (previous or {}).get("requestId"), client.server_time)
        inputs = {key: outs[key] for key in INPUT_KEYS if key in outs}
        return dyn.ReadResult(id_ or rr.id, outs, inputs)

    def update(self, _id: str, olds: dict[str, Any], news: dict[str, Any]) -> dyn.UpdateResult:
        """Only ``waitFor`` changes in place, and it matters at create time only."""
        outs = {**olds, **{k: news[k] for k in INPUT_KEYS if k in news}}
        return dyn.UpdateResult(outs)

    def delete_and_wait(self, client: GoogleRestClient, target: Target) -> bool:
        """Cancel and delete the request, then delete the VMs it brought (see
        :func:`~.ops.tear_down`)."""
        assert isinstance(target, ResizeRequest)
        tear_down(client, target.where, target.name)
        return True

    def undeletable(self, target: Target, id_: str, err: Exception) -> str:
        assert isinstance(target, ResizeRequest)
        return (
            f"{target.describe()} could not be deleted: {err}. It is still in the stack: run "
            f"`pulumi destroy` (or `pulumi up`) again, or remove it and its VMs with "
            f"{target.removal()}, then `pulumi refresh`."
        )


def default_provider() -> MigResizeRequestProvider:
    """The provider instance every ``MigResizeRequest`` of a program shares."""
    return shared_provider(MigResizeRequestProvider)


class MigResizeRequest(DeclaredResource, module="dws", name="MigResizeRequest"):
    """A resize request on a managed instance group
    (``pulumi-python:dynamic/dws:MigResizeRequest``).

    Most users want :class:`pulumi_dws.FlexStartGroup`, which builds ``props``. Every input and
    output key (:data:`INPUT_KEYS`, :data:`OUTPUT_KEYS`) is an ``Output`` attribute:
    ``request.state``, ``request.observed`` (a dict), ``request.body``...
    """

    provider_class = MigResizeRequestProvider


# ---------------------------------------------------------------------- check
def _check(news: Mapping[str, Any]) -> list[dyn.CheckFailure]:
    """Check the inputs; a value not known yet (a preview) is never a failure."""

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
        size = "mig.regional_group_size" if region else "mig.zonal_group_size"

        def _count() -> None:
            whole = limits.as_whole_number("body.resizeBy", count)
            limits.get("mig.resize_by").check("body.resizeBy", whole)
            limits.get(size).check("body.resizeBy", whole)

        run("body", _count)
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


def _rfc3339(seconds: float) -> str:
    return dt.datetime.fromtimestamp(seconds, dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _run_ends(rr: ResizeRequest, view: Mapping[str, Any], previous: Any, now: float | None) -> Any:
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
    rr: ResizeRequest,
    props: Mapping[str, Any],
    view: Mapping[str, Any],
    request_id: str | None,
    now: float | None,
) -> dict[str, Any]:
    """The outputs: Google's state of the request (``observed.googleState``); ``EXPIRED`` only
    when pulumi-dws derives it (the request ``SUCCEEDED``, its run ended by the server's clock,
    and the group lists no VM: ``observed.derived`` says so), never from one empty list."""
    request = view["request"]
    previous = (props.get("observed") or {}) if isinstance(props.get("observed"), Mapping) else {}
    members = view.get("members") or []
    google = request.get("state")
    ends = view.get("ends") or _run_ends(rr, view, previous.get("runEndsAt"), now)
    state, derived = google, None
    listed_none = view.get("members") == []  # None: they could not be listed
    if google == "SUCCEEDED" and listed_none and (ends is None or _ended(str(ends), now)):
        state = "EXPIRED"
        gone = " and Google removed the finished request" if view.get("gone") else ""
        derived = (
            "EXPIRED is derived by pulumi-dws (Google has no such state): the request "
            f"SUCCEEDED, its run ended{f' at {ends}' if ends else ''}{gone}, and the group has "
            "no VMs"
        )
    outs = {key: props[key] for key in INPUT_KEYS if key in props}
    outs["state"] = state
    outs["observed"] = {
        "selfLink": request.get("selfLink"),
        "instances": sorted(instance_name(m) for m in members),
        "runEndsAt": ends,
        "requestId": request_id,
        "error": google_error(request),
        "createdAt": request.get("creationTimestamp") or previous.get("createdAt"),
        "googleState": google if not view.get("gone") else previous.get("googleState"),
        "derived": derived,
    }
    return outs


def _ran(
    rr: ResizeRequest, props: Mapping[str, Any], previous: Mapping[str, Any], now: float | None
) -> bool:
    """Whether a request that is gone, with no VM left, may have had its run (so the stack must
    not buy it again): its run's end is known and passed, or it was created a run's length ago,
    so the run may have come and gone unseen (a ``waitFor: accepted`` create that no refresh
    saw succeed). One deleted outside Pulumi before its run could end is gone (the next
    ``pulumi up`` asks again); a request with no run duration runs until deleted."""
    if props.get("state") == "EXPIRED":
        return True
    ends = previous.get("runEndsAt")
    if ends and _ended(str(ends), now):
        return True
    ends = _created_plus_run(rr, previous)
    return ends is not None and _ended(ends, now)


def _created_plus_run(rr: ResizeRequest, previous: Mapping[str, Any]) -> str | None:
    """When a run that started at the request's create would have ended (RFC 3339): the
    earliest its run can have ended; None without a create time or a run duration."""
    created = previous.get("createdAt")
    if not created or not rr.run:
        return None
    try:
        start = parse_timestamp("createdAt", str(created)).timestamp()
    except Exception:  # noqa: BLE001 - an unreadable time proves nothing
        return None
    return _rfc3339(start + rr.run)


def _ended(stamp: str, now: float | None) -> bool:

    if now is None:
        return False
    try:
        return parse_timestamp("runEndsAt", stamp).timestamp() <= now
    except Exception:  # noqa: BLE001 - an unreadable time proves nothing
        return False
