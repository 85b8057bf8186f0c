"""Compute v1 calls on managed instance groups and their resize requests (zonal or regional),
shared by the ``MigResizeRequest`` provider's create, read and delete.

Every mutation carries a fresh ``requestId`` (the REST client's retries of one call reuse it,
so a retried cancel or delete is never carried out twice); every answer is checked for shape.
Waits poll with intervals that grow (:class:`~pulumi_dws.providers.rest.PollPolicy`).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ...providers.compute_ops import DEFAULT_OPERATION_TIMEOUT, is_operation, wait_operation
from ...providers.rest import ApiError, GoogleRestClient, pages
from .api import ACTIVE, FINISHED, GROUP, RESIZE_REQUEST_PATH, is_resize_request

__all__ = [
    "ACTIVE",
    "FINISHED",
    "Group",
    "is_resize_request",
    "get_request",
    "instance_name",
    "confirmed_instances",
    "managed_instances",
    "target_size",
    "other_live_request",
    "poll_until",
    "tear_down",
]


@dataclass(frozen=True)
class Group:
    """Where a resize request lives: a zonal (``zone``) or regional (``region``) group."""

    project: str
    group: str
    zone: str | None = None
    region: str | None = None

    @property
    def location(self) -> str:
        return str(self.zone or self.region)

    @property
    def values(self) -> dict[str, str | None]:
        """The group's inputs, as the path templates name them."""
        return {
            "project": self.project,
            "group": self.group,
            "zone": self.zone,
            "region": self.region,
        }

    @property
    def path(self) -> str:
        return GROUP.path(self.values)

    def request_path(self, name: str | None = None) -> str:
        """The path of the group's resize request ``name`` (None: of its resize requests)."""
        values = {**self.values, "name": name}
        if name is None:
            return RESIZE_REQUEST_PATH.collection(values)
        return RESIZE_REQUEST_PATH.path(values)

    def wait(
        self,
        client: GoogleRestClient,
        operation: dict[str, Any],
        timeout: float = DEFAULT_OPERATION_TIMEOUT,
    ) -> dict[str, Any]:
        """Wait for an operation of this group's zone or region (raises on its errors)."""
        return wait_operation(
            client, self.project, operation, zone=self.zone, region=self.region, timeout=timeout
        )


def _is_listing(answer: Mapping[str, Any]) -> bool:
    return isinstance(answer.get("managedInstances", []), list)


def get_request(client: GoogleRestClient, where: Group, name: str) -> dict[str, Any] | None:
    """``resizeRequests.get``, or None when neither the request nor its group exists."""
    return client.find(where.request_path(name), expect=is_resize_request)


def _is_request_list(answer: Mapping[str, Any]) -> bool:
    return isinstance(answer.get("items", []), list)


def other_live_request(client: GoogleRestClient, where: Group, name: str) -> dict[str, Any] | None:
    """Another resize request of the group that has or will have VMs (``CREATING``,
    ``ACCEPTED``, or ``SUCCEEDED`` while the group has VMs), or None. A group's VMs can't be
    told apart by the request that brought them, so a group takes one such request at a time."""
    others: list[dict[str, Any]] = []

    def fetch(token: str | None) -> Mapping[str, Any]:
        params = {"pageToken": token} if token else {}
        return client.get(where.request_path(), expect=_is_request_list, **params)

    try:
        for page in pages(fetch, f"the resize requests of {where.path}"):
            others += [
                dict(r)
                for r in page.get("items") or []
                if isinstance(r, Mapping) and is_resize_request(r) and r["name"] != name
            ]
    except ApiError as err:
        if err.not_found:
            return None
        raise
    for other in others:
        if other["state"] in ACTIVE:
            return other
    succeeded = [other for other in others if other["state"] == "SUCCEEDED"]
    if succeeded and managed_instances(client, where):
        return succeeded[0]
    return None


def managed_instances(client: GoogleRestClient, where: Group) -> list[dict[str, Any]]:
    """``listManagedInstances``: every VM of the group, every page followed (a group set to
    ``listManagedInstancesResults: PAGINATED`` answers 500 at a time); none when the group is
    gone."""
    found: list[dict[str, Any]] = []

    def fetch(token: str | None) -> Mapping[str, Any]:
        params = {"pageToken": token} if token else {}
        return client.post(  # a read: safe to send again
            f"{where.path}/listManagedInstances", expect=_is_listing, idempotent=True, **params
        )

    try:
        for answer in pages(fetch, f"the VMs of {where.path}"):
            found += [
                dict(m) for m in answer.get("managedInstances") or [] if isinstance(m, Mapping)
            ]
    except ApiError as err:
        if err.not_found:
            return []
        raise
    return found


def target_size(client: GoogleRestClient, where: Group) -> int | None:
    """The group's own record of how many VMs it holds or is making (``targetSize``); None when
    the group is gone or does not say."""
    group = client.find(where.path)
    size = (group or {}).get("targetSize")
    return int(size) if isinstance(size, (int, float)) and not isinstance(size, bool) else None


def confirmed_instances(client: GoogleRestClient, where: Group) -> list[dict[str, Any]]:
    """The group's VMs, an empty list never believed from one read: when
    ``listManagedInstances`` says none while the group's own record (``targetSize``) says it
    holds some, the list is asked again (a few times, with growing pauses); if it still says
    none, :class:`ApiError` (``lost``): what runs can't be told now."""
    members = managed_instances(client, where)
    if members:
        return members
    for pause in (1.0, 4.0, 16.0):
        size = target_size(client, where)
        if not size:
            return members
        client.pause(pause)
        members = managed_instances(client, where)
        if members:
            return members
    raise ApiError(
        0,
        f"listManagedInstances of group {where.group} lists no VM while the group's targetSize "
        f"is {size}",
        lost=True,
    )


def poll_until(
    client: GoogleRestClient,
    read: Callable[[], Any],
    done: Callable[[Any], bool],
    budget: float,
) -> tuple[Any, float]:
    """Read until ``done(value)`` or ``budget`` seconds went by (virtual under an emulator
    clock), sleeping intervals that grow per the client's poll policy; returns the last value
    read and the seconds waited. An outage is waited out (the client's
    :meth:`~pulumi_dws.providers.rest.GoogleRestClient.wait_until`); when no read worked at all,
    its error is raised."""
    result = client.wait_until(read, done, budget)
    if not result.seen and result.outage is not None:
        raise result.outage
    return result.value, result.waited


def _act(
    client: GoogleRestClient,
    where: Group,
    method: str,
    path: str,
    body: Any = None,
    **query: Any,
) -> bool:
    """One mutation (POST or DELETE) with a fresh request id, waited for; False when the
    target was already gone (404)."""
    params: dict[str, Any] = {"requestId": str(uuid.uuid4()), **query}
    try:
        if method == "DELETE":
            op = client.delete(path, expect=is_operation, **params)
        else:
            op = client.post(path, body, expect=is_operation, **params)
    except ApiError as err:
        if err.not_found:
            return False
        raise
    where.wait(client, op)
    return True


def tear_down(client: GoogleRestClient, where: Group, name: str) -> list[str]:
    """Remove a resize request and the VMs it brought: wait out ``CREATING``, cancel it if
    ``ACCEPTED``, delete it, then delete the group's managed instances (one request per
    group), waiting for each operation. Returns the names of the VMs deleted. Safe to run
    again after any failure: what is already gone is skipped. While another request of the
    group has or will have VMs (:func:`other_live_request`), no VM is deleted: an
    :class:`ApiError` says so."""
    for _ in range(3):
        request, _ = poll_until(
            client,
            lambda: get_request(client, where, name),
            lambda found: found is None or found.get("state") not in ("CREATING",),
            DEFAULT_OPERATION_TIMEOUT,
        )
        state = request.get("state") if request is not None else None
        try:
            if request is None:  # one read of absence is no conclusion: a delete by name is
                _act(client, where, "DELETE", where.request_path(name))
                break  # 404: it is gone indeed; or it was there, finished, and is deleted now
            if state == "ACCEPTED":
                _act(client, where, "POST", f"{where.request_path(name)}/cancel")
                continue  # read it again: it may have succeeded meanwhile
            if state in FINISHED:
                _act(client, where, "DELETE", where.request_path(name))
                break
        except ApiError as err:
            if err.status != 400:  # 400: its state changed under us; read it again
                raise
    else:
        raise ApiError(0, f"the resize request {name} could not be cancelled and deleted")
    members = confirmed_instances(client, where)
    if members:
        other = other_live_request(client, where, name)
        if other is not None:
            raise ApiError(
                0,
                f"group {where.group} also has resize request {other['name']} "
                f"({other['state']}); the VMs of a group can't be told apart by request, so "
                f"none were deleted (delete them with the group once {other['name']} is done)",
            )
        urls = [str(m.get("instance")) for m in members]
        body = {"instances": urls, "skipInstancesOnValidationError": True}
        _act(client, where, "POST", f"{where.path}/deleteInstances", body)
        left = target_size(client, where)
        if left:  # the group still holds VMs the list did not show: it holds only this request's
            _act(client, where, "POST", f"{where.path}/resize", None, size=0)
    return [instance_name(m) for m in members]


def instance_name(member: Mapping[str, Any]) -> str:
    """The VM name of a ``listManagedInstances`` entry."""
    return str(member.get("name") or str(member.get("instance", "")).rsplit("/", 1)[-1])
