"""Compute Engine v1 zonal calls the dynamic providers share: instance paths, zone operations,
and idempotent instance actions, on top of :class:`~pulumi_dws.providers.rest.GoogleRestClient`.

Every mutation carries a ``requestId`` (a UUID), so the client's retries after a 429, a 5xx or a
dropped connection never do anything twice: Compute answers a repeated id with the operation the
first request started.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

from .rest import ApiError, GoogleRestClient, OperationError

__all__ = [
    "DEFAULT_OPERATION_TIMEOUT",
    "REQUEST_ID_NAMESPACE",
    "create_request_id",
    "instance_path",
    "operation_path",
    "operation_errors",
    "is_done",
    "wait_zone_operation",
    "get_instance",
    "instance_action",
    "delete_instance",
]

DEFAULT_OPERATION_TIMEOUT = 900.0
"""Seconds (virtual under an emulator clock) to wait for a stop, start, delete or label change."""

REQUEST_ID_NAMESPACE = uuid.UUID("6b1f6f3e-6c57-4d3c-9a53-0d6f1e0c2a11")


def create_request_id(project: str, zone: str, name: str, attempt: str) -> str:
    """The ``requestId`` of one create attempt: a UUID derived from the VM and the attempt token.

    The same attempt always gets the same id (so every retry of its insert is deduplicated by
    Compute); a new attempt (a new ``pulumi up`` after a failure) gets a new one.
    """
    return str(uuid.uuid5(REQUEST_ID_NAMESPACE, f"{project}/{zone}/{name}#{attempt}"))


def instance_path(project: str, zone: str, name: str | None = None) -> str:
    """``projects/p/zones/z/instances[/name]`` (relative to the Compute base URL)."""
    base = f"projects/{project}/zones/{zone}/instances"
    return f"{base}/{name}" if name else base


def operation_path(project: str, zone: str, operation: dict[str, Any]) -> str:
    """Poll path of a zone operation (from its name, never from its selfLink's host)."""
    return f"projects/{project}/zones/{zone}/operations/{operation['name']}"


def is_done(operation: dict[str, Any]) -> bool:
    """True once a Compute operation's ``status`` is ``DONE`` (with or without errors)."""
    return operation.get("status") == "DONE"


def operation_errors(operation: dict[str, Any]) -> list[dict[str, Any]]:
    """The ``error.errors`` of a finished operation (empty when it succeeded)."""
    return list(((operation.get("error") or {}).get("errors")) or [])


def wait_zone_operation(
    client: GoogleRestClient,
    project: str,
    zone: str,
    operation: dict[str, Any],
    *,
    timeout: float = DEFAULT_OPERATION_TIMEOUT,
    until: Callable[[dict[str, Any]], bool] | None = None,
) -> dict[str, Any]:
    """Poll a zone operation until it is DONE (or ``until(operation)`` is true).

    Polling intervals double (see :class:`~pulumi_dws.providers.rest.PollPolicy`), so a 2-hour
    wait costs about a dozen calls. Raises :class:`OperationError` if the operation finished
    with errors, ``TimeoutError`` after ``timeout`` seconds.
    """

    def finished(op: dict[str, Any]) -> bool:
        return is_done(op) or (until is not None and until(op))

    done = client.wait(
        operation, operation_path(project, zone, operation), is_done=finished, timeout=timeout
    )
    errors = operation_errors(done)
    if is_done(done) and errors:
        raise OperationError(done, errors)
    return done


def get_instance(
    client: GoogleRestClient, project: str, zone: str, name: str
) -> dict[str, Any] | None:
    """``instances.get``, or None when the VM does not exist."""
    try:
        return client.get(instance_path(project, zone, name))
    except ApiError as err:
        if err.not_found:
            return None
        raise


def instance_action(
    client: GoogleRestClient,
    project: str,
    zone: str,
    name: str,
    action: str,
    body: Any = None,
    *,
    wait: bool = True,
    timeout: float = DEFAULT_OPERATION_TIMEOUT,
) -> dict[str, Any]:
    """POST ``instances/<name>/<action>`` (``stop``, ``start``, ``setLabels``, ...) with a fresh
    ``requestId``; wait for the operation unless ``wait=False``."""
    op = client.post(
        f"{instance_path(project, zone, name)}/{action}", body, requestId=str(uuid.uuid4())
    )
    return wait_zone_operation(client, project, zone, op, timeout=timeout) if wait else op


def delete_instance(
    client: GoogleRestClient,
    project: str,
    zone: str,
    name: str,
    *,
    timeout: float = DEFAULT_OPERATION_TIMEOUT,
) -> bool:
    """Delete a VM and wait; False if it was already gone (which counts as success)."""
    try:
        op = client.delete(instance_path(project, zone, name), requestId=str(uuid.uuid4()))
    except ApiError as err:
        if err.not_found:
            return False
        raise
    wait_zone_operation(client, project, zone, op, timeout=timeout)
    return True
