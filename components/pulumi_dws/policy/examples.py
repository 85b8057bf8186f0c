"""Violating variants of the samples, at least one per resource rule.

Each :class:`Example` edits a clean sample from :mod:`pulumi_dws.policy.samples` so exactly
one rule reports it; the tests run every example through the pure rules, the policy pack and
the pulumi-policy runtime, and once more with the offending value unknown.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .samples import DELETE, SAMPLES, variant

__all__ = ["Example", "EXAMPLES"]


@dataclass(frozen=True)
class Example:
    """A violating variant of a sample for one rule.

    ``changes`` are ``(path, value)`` edits applied with :func:`variant`; ``expect`` is a
    piece of the message; ``unknown`` the path that, set to unknown instead, makes the rule
    unable to tell (so it must stay silent).
    """

    rule: str
    sample: str
    changes: tuple[tuple[str, Any], ...]
    expect: str
    config: dict[str, Any] | None = None
    unknown: str | None = None

    @property
    def type(self) -> str:
        return SAMPLES[self.sample][0]

    def props(self) -> dict[str, Any]:
        out = SAMPLES[self.sample][1]()
        for path, value in self.changes:
            out = variant(out, path, value)
        return out

    def unknown_props(self, marker: Any) -> dict[str, Any]:
        """The violating props with the offending value replaced by ``marker``."""
        return variant(self.props(), self.unknown or self.changes[-1][0], marker)

    def __str__(self) -> str:
        edits = ",".join(path for path, _ in self.changes)
        tail = f":unknown={self.unknown}" if self.unknown else ""
        return f"{self.rule}:{self.sample}:{edits}{tail}"


EXAMPLES: tuple[Example, ...] = (
    # flex-start-max-run-duration
    Example(
        "flex-start-max-run-duration",
        "flex_instance",
        (("scheduling.maxRunDuration.seconds", 8 * 86400),),
        "above the Flex-start",
    ),
    Example(
        "flex-start-max-run-duration",
        "flex_instance",
        (("scheduling.maxRunDuration", DELETE),),
        "is missing",
    ),
    Example(
        "flex-start-max-run-duration",
        "flex_template",
        (("scheduling.maxRunDuration.seconds", 10),),
        "below",
    ),
    Example(
        "flex-start-max-run-duration",
        "flex_region_template",
        (("scheduling.maxRunDuration.seconds", 5 * 86400),),
        "policy cap of 3d",
        config={"maxRunDuration": "3d"},
    ),
    Example(
        "flex-start-max-run-duration",
        "flex_vm_body",
        (("body.scheduling.maxRunDuration.seconds", "700000"),),
        "body.scheduling.maxRunDuration",
    ),
    Example(
        "flex-start-max-run-duration",
        "queued_node_pool",
        (("nodeConfig.maxRunDuration", "691200s"),),
        "gke.max_run_duration",
    ),
    Example(
        "flex-start-max-run-duration",
        "queued_node_pool",
        (("nodeConfig.maxRunDuration", DELETE),),
        "requires a max run duration",
        config={"requireOnNodePools": True},
    ),
    Example(
        "flex-start-max-run-duration",
        "slurm_cluster",
        (("body.node_pools.1.flex_start_max_duration", "10s"),),
        "slurm.flex_start_max_duration",
    ),
    Example(
        "flex-start-max-run-duration",
        "kueue_config",
        (("spec.parameters.maxRunDurationSeconds", "700000"),),
        "kueue.max_run_duration",
    ),
    # flex-start-queue-window
    Example(
        "flex-start-queue-window",
        "flex_vm_body",
        (("body.params.requestValidForDuration.seconds", "30"),),
        "below",
    ),
    Example(
        "flex-start-queue-window",
        "flex_vm_body",
        (("body.params.requestValidForDuration.seconds", "10800"),),
        "above",
    ),
    Example(
        "flex-start-queue-window",
        "flex_vm_body",
        (("body.params", DELETE),),
        "fails after about 90 s",
        config={"requireQueueWindow": True},
        unknown="body.params",
    ),
    # gke-dws-node-pool
    Example(
        "gke-dws-node-pool",
        "queued_node_pool",
        (("autoscaling.totalMinNodeCount", 1),),
        "minimum of 0",
    ),
    Example(
        "gke-dws-node-pool",
        "queued_node_pool",
        (("autoscaling.locationPolicy", "BALANCED"),),
        "use ANY",
    ),
    Example(
        "gke-dws-node-pool",
        "queued_node_pool",
        (("autoscaling", DELETE),),
        "autoscaling is missing",
    ),
    Example(
        "gke-dws-node-pool",
        "queued_node_pool",
        (("nodeConfig.reservationAffinity.consumeReservationType", "ANY_RESERVATION"),),
        "NO_RESERVATION",
    ),
    Example(
        "gke-dws-node-pool",
        "queued_node_pool",
        (("management.autoRepair", True),),
        "autoRepair is true",
    ),
    Example(
        "gke-dws-node-pool",
        "queued_node_pool",
        (("management", DELETE),),
        "autoRepair is on (the default)",
    ),
    Example("gke-dws-node-pool", "queued_node_pool", (("nodeConfig.spot", True),), "Spot"),
    Example(
        "gke-dws-node-pool",
        "queued_node_pool",
        (("placementPolicy.type", "COMPACT"),),
        "compact placement",
    ),
    Example(  # compact placement is fine on TPUs: with the machine type unknown, can't tell
        "gke-dws-node-pool",
        "queued_node_pool",
        (("placementPolicy.type", "COMPACT"),),
        "compact placement",
        unknown="nodeConfig.machineType",
    ),
    Example(
        "gke-dws-node-pool", "queued_node_pool", (("initialNodeCount", 2),), "start with 0 nodes"
    ),
    Example(
        "gke-dws-node-pool",
        "queued_node_pool",
        (
            ("queuedProvisioning", DELETE),
            ("nodeConfig.flexStart", True),
            ("nodeConfig.preemptible", True),
        ),
        "(Flex-start pool)",
    ),
    # gke-dws-auto-upgrade
    Example(
        "gke-dws-auto-upgrade",
        "queued_node_pool",
        (("management.autoUpgrade", True),),
        "autoUpgrade is true",
    ),
    # no-public-ip-on-accelerators
    Example(
        "no-public-ip-on-accelerators",
        "flex_instance",
        (("networkInterfaces.0.accessConfigs", [{}]),),
        "public IP",
    ),
    Example(
        "no-public-ip-on-accelerators",
        "flex_instance",
        (("networkInterfaces.0.accessConfigs", [{}]),),
        "public IP",
        unknown="machineType",
    ),
    Example(
        "no-public-ip-on-accelerators",
        "flex_vm_body",
        (("body.networkInterfaces.0.accessConfigs", [{"type": "ONE_TO_ONE_NAT"}]),),
        "body.networkInterfaces[0].accessConfigs",
    ),
    Example(
        "no-public-ip-on-accelerators",
        "queued_node_pool",
        (("networkConfig.enablePrivateNodes", False),),
        "GPU nodes get public IPs",
    ),
    Example(
        "no-public-ip-on-accelerators",
        "slurm_cluster",
        (("body.node_pools.1.enable_public_ips", True),),
        "GPU node pool a3",
    ),
    # no-basic-roles
    Example(
        "no-basic-roles",
        "service_agent_member",
        (("role", "roles/editor"),),
        "roles/compute.instanceAdmin.v1 and roles/iam.serviceAccountUser",
    ),
    Example(
        "no-basic-roles",
        "service_agent_member",
        (("role", "roles/owner"), ("member", "user:alice@example.com")),
        "grants roles/owner to user:alice@example.com",
        unknown="member",
    ),
    Example(
        "no-basic-roles",
        "service_agent_member",
        (("role", "roles/compute.admin"),),
        "roles/compute.admin",
        config={"forbiddenRoles": ["roles/compute.admin"]},
    ),
    # calendar-auto-delete
    Example(
        "calendar-auto-delete",
        "calendar_reservation",
        (("autoDeleteAutoCreatedReservations", False),),
        "is false",
    ),
    Example(
        "calendar-auto-delete",
        "calendar_reservation",
        (("autoDeleteAutoCreatedReservations", DELETE),),
        "missing (default false)",
    ),
    Example(
        "calendar-auto-delete",
        "calendar_reservation",
        (("autoDeleteAutoCreatedReservations", False),),
        "is false",
        unknown="reservationMode",
    ),
    # calendar-window
    Example(
        "calendar-window",
        "calendar_reservation",
        (("timeWindow.duration.seconds", 100 * 86400),),
        "calendar.duration",
    ),
    Example(
        "calendar-window", "calendar_reservation", (("timeWindow.duration.seconds", 3600),), "below"
    ),
    Example(
        "calendar-window",
        "calendar_reservation",
        (("timeWindow.duration", DELETE), ("timeWindow.endTime", "2027-08-01T00:00:00Z")),
        "calendar.duration",
    ),
    Example(
        "calendar-window",
        "calendar_reservation",
        (("timeWindow.startTime", "2027-07-01T00:00:00Z"),),
        "calendar.start_ahead",
    ),
    # required-labels
    Example(
        "required-labels",
        "flex_instance",
        (("labels", DELETE),),
        "lacks required label(s) team",
        unknown="labels",
    ),
    Example(
        "required-labels",
        "flex_vm_body",
        (("body.labels.team", DELETE),),
        "body.labels lacks",
        unknown="body.labels",
    ),
    Example("required-labels", "flex_template", (("labels.team", ""),), "is empty"),
    Example(
        "required-labels",
        "queued_node_pool",
        (("nodeConfig.resourceLabels.env", "dev"),),
        "cost-center",
        config={"requiredLabels": ["team", "cost-center"]},
        unknown="nodeConfig.resourceLabels",
    ),
    Example("required-labels", "slurm_cluster", (("body.labels", {}),), "body.labels lacks"),
)
"""Violating examples, at least one per resource rule (the stack and plan rules, gpu-budget
and calendar-delete-or-replace, need several resources; see the tests)."""
