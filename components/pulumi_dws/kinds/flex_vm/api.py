"""Compute Engine instances as the ``FlexStartVm`` resource uses them: its declaration
(:data:`FLEX_VM`: path, states, outputs, idempotency), its inputs and outputs, the statuses its
steps tell apart, and the error its provider raises."""

from __future__ import annotations

from ...providers.compute_ops import INSTANCE, instance_path, is_instance
from ...providers.create_machine import Idempotency
from ...providers.endpoints import COMPUTE
from ...providers.rest_resource import RestResource, StateField, States

__all__ = [
    "ACCEPTED",
    "BODY_CREATE_ONLY",
    "BODY_IN_PLACE",
    "FAIL_FAST_TRY_SECONDS",
    "FLEX_VM",
    "FlexStartError",
    "INPUT_KEYS",
    "OBSERVED_KEYS",
    "OUTPUT_KEYS",
    "PASSING",
    "QUEUED",
    "REPLACE_KEYS",
    "STOCKOUT_CODES",
    "STOPPED",
    "TYPE_TOKEN",
    "WAIT_MARGIN_SECONDS",
    "vm_id",
]

TYPE_TOKEN = "pulumi-python:dynamic/dws:FlexStartVm"
INPUT_KEYS = (
    "project",
    "zone",
    "name",
    "sourceInstanceTemplate",
    "body",
    "desiredStatus",
    "waitFor",
    "templateShape",
    "waitTimeout",
    "onTimeout",
)
OUTPUT_KEYS = ("status", "observed")
OBSERVED_KEYS = (
    "instanceId",
    "selfLink",
    "internalIp",
    "externalIp",
    "runEndsAt",
    "lastStartTimestamp",
    "requestId",
)
REPLACE_KEYS = ("project", "zone", "name", "sourceInstanceTemplate")
BODY_IN_PLACE = ("labels", "metadata")
BODY_CREATE_ONLY = ("params",)
ACCEPTED = frozenset({"PENDING", "RUNNING"})
QUEUED = frozenset({"PENDING", "PROVISIONING", "STAGING"})
"""Statuses of a VM still on its way to running: a create that returns there is PENDING."""
PASSING = frozenset(
    {
        "STOPPING",
        "SUSPENDING",
        "PENDING_STOP",
        "DEPROVISIONING",
        "PROVISIONING",
        "STAGING",
        "REPAIRING",
    }
)
"""Statuses a VM passes through on its own: an update waits for them to end before acting."""
STOPPED = frozenset(
    {
        "TERMINATED",
        "STOPPED",
        "STOPPING",
        "PENDING_STOP",  # shutting down gracefully
        "DEPROVISIONING",  # halted, resources being released
        "SUSPENDED",
        "SUSPENDING",
    }
)
FAIL_FAST_TRY_SECONDS = 90  # dws-facts §1: without a queue Compute tries for about 90 s
WAIT_MARGIN_SECONDS = 600.0  # beyond the queue window (or the fail-fast try) before giving up
STOCKOUT_CODES = ("ZONE_RESOURCE_POOL_EXHAUSTED", "RESOURCE_POOL_EXHAUSTED", "STOCKOUT")


class FlexStartError(Exception):
    """A Flex-start VM could not be created, started or deleted. The message says what was
    asked, where, why, what to change, and whether anything was left behind."""


def vm_id(project: str, zone: str, name: str) -> str:
    """The resource id: ``projects/<p>/zones/<z>/instances/<name>`` (pulumi-gcp's format)."""
    return instance_path(project, zone, name)


FLEX_VM = RestResource(
    name="FlexStartVm",
    api=COMPUTE,
    path=INSTANCE,
    noun="Flex-start VM",
    error=FlexStartError,
    # the first insert's requestId is derived from the inputs, a later attempt's is random
    # (see kinds/flex_vm/create.py); the name is the program's too
    idempotency=Idempotency.REQUEST_ID,
    replace_keys=REPLACE_KEYS,
    outputs=OUTPUT_KEYS,
    states=States(
        at=("status",),
        ready=frozenset({"RUNNING"}),
        pending=QUEUED,
        busy=PASSING,
        ended=frozenset({"TERMINATED", "STOPPED", "SUSPENDED"}),
        queued=frozenset({"PENDING"}),  # waiting in the DWS queue: no capacity yet
    ),
    is_resource=is_instance,
    api_name="Compute Engine",
    state={
        "project": StateField((str,), required=True),
        "zone": StateField((str,), required=True),
        "name": StateField((str,), required=True),
        "body": StateField((dict,), required=True),
        "sourceInstanceTemplate": StateField((str,)),
        "desiredStatus": StateField((str,)),
        "waitFor": StateField((str,)),
        "waitTimeout": StateField((int, float)),
        "onTimeout": StateField((str,)),
        "templateShape": StateField((str,)),
        "status": StateField((str,)),
        "observed": StateField((dict,)),
        "observed.requestId": StateField((str,)),
        "body.labels": StateField((dict,)),
        "body.metadata": StateField((dict,)),
        "body.params": StateField((dict,)),
        "body.scheduling": StateField((dict,)),
    },
)
"""The ``FlexStartVm`` dynamic resource, declared (its diff and update, which act on the VM's
status, labels and metadata in place, are the provider's own: see :mod:`~.provider`)."""
