"""Compute Engine v1 zonal calls the dynamic providers share: instance paths, zone operations,
idempotent instance actions, and request bodies typed as the API types them, on top of
:class:`~pulumi_dws.providers.rest.GoogleRestClient`.

Every mutation carries a ``requestId`` (a UUID), so the client's retries after a 429, a 5xx, a
dropped connection or a damaged answer never do anything twice: Compute answers a repeated id
with the operation the first request started (for a limited time: at least an hour).

Answers are checked for shape (:func:`is_operation`, :func:`is_instance`): one that is not an
operation or an instance, or whose ``error`` is not an object, counts as lost and is asked for
again, never read as a success.
"""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Callable, Mapping
from typing import Any

from .paths import PathTemplate
from .rest import ApiError, GoogleRestClient, OperationError

__all__ = [
    "DEFAULT_OPERATION_TIMEOUT",
    "INSTANCE",
    "INSTANCE_NUMBERS",
    "OPERATION",
    "REQUEST_ID_NAMESPACE",
    "create_request_id",
    "instance_path",
    "operation_path",
    "scoped_operation_path",
    "zone_operation_path",
    "operation_errors",
    "operation_time",
    "is_done",
    "is_instance",
    "is_operation",
    "typed_instance",
    "typed_numbers",
    "RESIZE_REQUEST_NUMBERS",
    "wait_zone_operation",
    "wait_operation",
    "get_instance",
    "instance_action",
    "delete_instance",
]

INSTANCE = PathTemplate("projects/{project}/zones/{zone}/instances/{name}")
"""A Compute instance (relative to the Compute base URL)."""
OPERATION = PathTemplate(
    "projects/{project}/zones/{zone}/operations/{operation}",
    "projects/{project}/regions/{region}/operations/{operation}",
    labels={"operation": "operation name"},
)
"""A zone or region operation, polled by its name (never its selfLink's host)."""

DEFAULT_OPERATION_TIMEOUT = 900.0
"""Seconds (virtual under an emulator clock) to wait for a stop, start, delete or label change."""

REQUEST_ID_NAMESPACE = uuid.UUID("6b1f6f3e-6c57-4d3c-9a53-0d6f1e0c2a11")

INSTANCE_NUMBERS: dict[str, str] = {
    "advancedMachineFeatures.threadsPerCore": "int32",
    "advancedMachineFeatures.visibleCoreCount": "int32",
    "disks[].diskSizeGb": "int64",
    "disks[].index": "int32",
    "disks[].initializeParams.diskSizeGb": "int64",
    "disks[].initializeParams.provisionedIops": "int64",
    "disks[].initializeParams.provisionedThroughput": "int64",
    "guestAccelerators[].acceleratorCount": "int32",
    "networkInterfaces[].accessConfigs[].externalIpv6PrefixLength": "int32",
    "networkInterfaces[].internalIpv6PrefixLength": "int32",
    "networkInterfaces[].ipv6AccessConfigs[].externalIpv6PrefixLength": "int32",
    "networkInterfaces[].queueCount": "int32",
    "networkInterfaces[].vlan": "int32",
    "params.requestValidForDuration.nanos": "int32",
    "params.requestValidForDuration.seconds": "int64",
    "scheduling.availabilityDomain": "int32",
    "scheduling.gracefulShutdown.maxDuration.nanos": "int32",
    "scheduling.gracefulShutdown.maxDuration.seconds": "int64",
    "scheduling.hostErrorTimeoutSeconds": "int32",
    "scheduling.localSsdRecoveryTimeout.nanos": "int32",
    "scheduling.localSsdRecoveryTimeout.seconds": "int64",
    "scheduling.maxRunDuration.nanos": "int32",
    "scheduling.maxRunDuration.seconds": "int64",
    "scheduling.minNodeCpus": "int32",
    "scheduling.preemptionNoticeDuration.nanos": "int32",
    "scheduling.preemptionNoticeDuration.seconds": "int64",
}
"""The numeric fields of a Compute v1 ``Instance`` request body and their discovery format:
``int32`` is a JSON integer, ``int64`` a JSON string (the discovery document types it
``string``). Values reach a dynamic provider through protobuf ``Struct``, where every number is
a double, so :func:`typed_instance` puts them back (``8.0`` -> ``8``, ``7200.0`` -> ``"7200"``).
``tests/test_discovery.py`` keeps this table equal to the discovery document."""

RESIZE_REQUEST_NUMBERS: dict[str, str] = {
    "resizeBy": "int32",
    "requestedRunDuration.nanos": "int32",
    "requestedRunDuration.seconds": "int64",
}
"""The numeric fields of a Compute v1 ``InstanceGroupManagerResizeRequest`` request body, as
:data:`INSTANCE_NUMBERS` for an ``Instance``."""


def typed_instance(body: Any) -> Any:
    """``body`` with its numbers typed as :data:`INSTANCE_NUMBERS` says (whole numbers only;
    anything else is left for the API to judge)."""
    return typed_numbers(body, INSTANCE_NUMBERS)


def typed_numbers(body: Any, numbers: Mapping[str, str]) -> Any:
    """``body`` with the whole numbers at the paths of ``numbers`` (a table such as
    :data:`INSTANCE_NUMBERS`) typed as their discovery format says."""
    return _typed(body, "", numbers)


def _typed(value: Any, path: str, numbers: Mapping[str, str]) -> Any:
    if isinstance(value, Mapping):
        return {k: _typed(v, f"{path}.{k}" if path else str(k), numbers) for k, v in value.items()}
    if isinstance(value, list):
        return [_typed(v, f"{path}[]", numbers) for v in value]
    kind = numbers.get(path)
    if kind is None or isinstance(value, bool):
        return value
    whole = isinstance(value, int) or (isinstance(value, float) and value.is_integer())
    if not whole:
        return value
    return int(value) if kind == "int32" else str(int(value))


def instance_path(project: str, zone: str, name: str | None = None) -> str:
    """``projects/p/zones/z/instances[/name]`` (relative to the Compute base URL)."""
    values = {"project": project, "zone": zone, "name": name}
    return INSTANCE.path(values) if name is not None else INSTANCE.collection(values)


def scoped_operation_path(
    project: str, operation: str, *, zone: str | None = None, region: str | None = None
) -> str:
    """The poll path of a zone (``zone=``) or region (``region=``) operation."""
    return OPERATION.path(
        {"project": project, "zone": zone, "region": region, "operation": operation}
    )


def zone_operation_path(project: str, zone: str, operation: str) -> str:
    """``projects/p/zones/z/operations/op`` (from the operation's name, never its selfLink)."""
    return scoped_operation_path(project, operation, zone=zone)


def create_request_id(project: str, zone: str, name: str, attempt: str) -> str:
    """The ``requestId`` of one create attempt: a UUID derived from the VM and ``attempt``.

    The same attempt always gets the same id, so every retry of its insert (and a create run
    again after a crash) is deduplicated by Compute.
    """
    return str(uuid.uuid5(REQUEST_ID_NAMESPACE, f"{project}/{zone}/{name}#{attempt}"))


def operation_path(project: str, zone: str, operation: Mapping[str, Any]) -> str:
    """Poll path of a zone operation (from its name, never from its selfLink's host)."""
    return zone_operation_path(project, zone, operation.get("name"))  # type: ignore[arg-type]


def is_operation(answer: Mapping[str, Any]) -> bool:
    """A Compute operation: a ``name``, a ``status``, and an ``error`` (if any) that is an
    object with a list of errors."""
    error = answer.get("error")
    if error is not None and not (
        isinstance(error, Mapping) and isinstance(error.get("errors", []), list)
    ):
        return False
    return isinstance(answer.get("name"), str) and isinstance(answer.get("status"), str)


def is_instance(answer: Mapping[str, Any]) -> bool:
    """A Compute instance: a ``name`` and a ``status``."""
    return isinstance(answer.get("name"), str) and isinstance(answer.get("status"), str)


def is_done(operation: Mapping[str, Any]) -> bool:
    """True once a Compute operation's ``status`` is ``DONE`` (with or without errors)."""
    return operation.get("status") == "DONE"


def operation_errors(operation: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The ``error.errors`` of a finished operation (empty when it succeeded)."""
    error = operation.get("error")
    if not isinstance(error, Mapping):
        return []
    return [e if isinstance(e, dict) else {"message": str(e)} for e in error.get("errors") or []]


def operation_time(operation: Mapping[str, Any]) -> float | None:
    """When Compute created the operation (``insertTime``), as a POSIX timestamp."""
    text = operation.get("insertTime")
    if not isinstance(text, str):
        return None
    try:
        moment = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=dt.timezone.utc)
    return moment.timestamp()


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
    return wait_operation(client, project, operation, zone=zone, timeout=timeout, until=until)


def wait_operation(
    client: GoogleRestClient,
    project: str,
    operation: dict[str, Any],
    *,
    zone: str | None = None,
    region: str | None = None,
    timeout: float = DEFAULT_OPERATION_TIMEOUT,
    until: Callable[[dict[str, Any]], bool] | None = None,
) -> dict[str, Any]:
    """Poll a zone operation (``zone=``) or a region operation (``region=``) as
    :func:`wait_zone_operation` does."""

    def finished(op: dict[str, Any]) -> bool:
        return is_done(op) or (until is not None and until(op))

    done = client.wait(
        operation,
        scoped_operation_path(project, operation.get("name"), zone=zone, region=region),  # type: ignore[arg-type]
        is_done=finished,
        timeout=timeout,
        expect=is_operation,
    )
    errors = operation_errors(done)
    if is_done(done) and errors:
        raise OperationError(done, errors)
    return done


def get_instance(
    client: GoogleRestClient, project: str, zone: str, name: str
) -> dict[str, Any] | None:
    """``instances.get``, or None when the VM does not exist."""
    return client.find(instance_path(project, zone, name), expect=is_instance)


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
        f"{instance_path(project, zone, name)}/{action}",
        body,
        expect=is_operation,
        requestId=str(uuid.uuid4()),
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
        op = client.delete(
            instance_path(project, zone, name), expect=is_operation, requestId=str(uuid.uuid4())
        )
    except ApiError as err:
        if err.not_found:
            return False
        raise
    wait_zone_operation(client, project, zone, op, timeout=timeout)
    return True
