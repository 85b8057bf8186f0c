"""Resource policies of the emulated Compute API (``resourcePolicies``, regional): the workload
policies a ``FlexStartGroup`` (or a hand-written group) names in
``resourcePolicies.workloadPolicy``. Stored as inserted; a group reads the policy it names when
it is created (:meth:`PolicyStore.find`); a policy a group uses can't be deleted (Google's
"resource in use", as for any resource another one names).

The rules of a policy (:data:`POLICY_RULES`, each with its source): a workload policy has a
type, takes ``acceleratorTopology`` or ``maxTopologyDistance`` but not both, and either only
with type ``HIGH_THROUGHPUT``.
"""

from __future__ import annotations

import copy
import itertools
from collections.abc import Callable, Mapping
from typing import Any, ClassVar

from ..base import GoogleError, Request, Response
from ..discovery import DiscoverySchema
from ..routing import Api
from ..rules import Rules
from .common import COMPUTE_SELF_LINK_ROOT, Operation, last, not_found, timestamp
from .operations import ComputeStore, Shared, body_object, request_id

__all__ = ["POLICY_RULES", "PolicyKey", "PolicyStore", "ResourcePoliciesApi", "policy_key"]

PolicyKey = tuple[str, str, str]
"""``(project, region, name)``."""

WORKLOAD_POLICY_FIELDS = (
    "https://github.com/hashicorp/terraform-provider-google-beta/blob/"
    "93c65b2d60fea598528f2769b5b09de856f8cb8c/website/docs/r/compute_resource_policy.html."
    "markdown (workload_policy.max_topology_distance: 'can be set only when the workload policy "
    "type is HIGH_THROUGHPUT and cannot be set if accelerator topology or accelerator topology "
    "mode is set'; accelerator_topology: '... cannot be set if max topology distance is set')"
)

POLICY_RULES: Rules[Mapping[str, Any]] = Rules("compute.resourcePolicies.insert")
"""The rules of a resource policy's insert body."""


def policy_key(link: str, project: str, region: str) -> PolicyKey:
    """The policy a full or partial URL (or a bare name: in ``project`` and ``region``) names."""
    parts = link.split("/")
    owner = parts[parts.index("projects") + 1] if "projects" in parts[:-1] else project
    where = parts[parts.index("regions") + 1] if "regions" in parts[:-1] else region
    return owner, where, last(link)


def _invalid(message: str) -> GoogleError:
    return GoogleError(
        400, f"Invalid value for field 'resource.workloadPolicy': {message}", "invalid"
    )


@POLICY_RULES.rule(
    "Compute discovery document, ResourcePolicyWorkloadPolicy.type (a workload policy has a "
    "type: HIGH_AVAILABILITY or HIGH_THROUGHPUT)"
)
def workload_policies_have_a_type(body: Mapping[str, Any]) -> None:
    workload = body.get("workloadPolicy")
    if workload is not None and (not isinstance(workload, Mapping) or not workload.get("type")):
        raise GoogleError(
            400, "Required field 'resource.workloadPolicy.type' not specified", "required"
        )


@POLICY_RULES.rule(WORKLOAD_POLICY_FIELDS)
def one_placement_property_of_high_throughput(body: Mapping[str, Any]) -> None:
    workload = body.get("workloadPolicy")
    if not isinstance(workload, Mapping):
        return
    topology = workload.get("acceleratorTopology") or workload.get("acceleratorTopologyMode")
    distance = workload.get("maxTopologyDistance")
    if topology and distance:
        raise _invalid("acceleratorTopology and maxTopologyDistance can't both be set.")
    if (topology or distance) and workload.get("type") != "HIGH_THROUGHPUT":
        raise _invalid("acceleratorTopology and maxTopologyDistance need type HIGH_THROUGHPUT.")


class PolicyStore(ComputeStore):
    """Every resource policy, by ``(project, region, name)``."""

    def __init__(self, shared: Shared) -> None:
        super().__init__(shared)
        self.policies: dict[PolicyKey, dict[str, Any]] = {}
        self._ids = itertools.count(1)

    @staticmethod
    def path(key: PolicyKey) -> str:
        project, region, name = key
        return f"projects/{project}/regions/{region}/resourcePolicies/{name}"

    def resources(self, project: str | None = None) -> list[dict[str, Any]]:
        """Copies of every policy (of ``project``), as ``get`` returns them."""
        with self.lock:
            return [copy.deepcopy(p) for k, p in self.policies.items() if project in (None, k[0])]

    def find(self, link: str, project: str, region: str) -> dict[str, Any] | None:
        """The policy a full or partial URL (or a bare name, in ``region``) names, or None."""
        found = self.policies.get(policy_key(link, project, region))
        return copy.deepcopy(found) if found is not None else None

    def insert(
        self, project: str, region: str, body: dict[str, Any], *, request_id: str | None = None
    ) -> Operation:
        def action() -> Operation:
            name = body.get("name")
            if not name:
                raise GoogleError(400, "Required field 'resource.name' not specified", "required")
            key = (project, region, str(name))
            target = self.path(key)
            if key in self.policies:
                raise GoogleError(409, f"The resource '{target}' already exists", "alreadyExists")
            POLICY_RULES.check(body)
            stored = copy.deepcopy(body)
            stored.update(
                kind="compute#resourcePolicy",
                id=str(4_000_000_000 + next(self._ids)),
                selfLink=COMPUTE_SELF_LINK_ROOT + target,
                region=f"{COMPUTE_SELF_LINK_ROOT}projects/{project}/regions/{region}",
                creationTimestamp=timestamp(self.moment.at),
                status="READY",
            )
            self.policies[key] = stored
            return self.operations.new(project, "insert", target, scope=f"regions/{region}")

        return self.operations.once(project, request_id, action)

    def get(self, key: PolicyKey) -> dict[str, Any]:
        with self.lock:
            found = self.policies.get(key)
            if found is None:
                raise not_found(self.path(key))
            return copy.deepcopy(found)

    def delete(
        self,
        key: PolicyKey,
        users: Callable[[PolicyKey], list[str]],
        *,
        request_id: str | None = None,
    ) -> Operation:
        """Delete a policy no group uses (``users``: the groups that name it)."""

        def action() -> Operation:
            target = self.path(key)
            if key not in self.policies:
                raise not_found(target)
            using = users(key)
            if using:
                raise GoogleError(
                    400,
                    f"The resource_policy resource '{target}' is already being used by "
                    f"'{using[0]}'",
                    "resourceInUseByAnotherResource",
                )
            del self.policies[key]
            return self.operations.new(key[0], "delete", target, scope=f"regions/{key[1]}")

        return self.operations.once(key[0], request_id, action)


class ResourcePoliciesApi(Api):
    """``resourcePolicies``: insert, get, delete (a policy a group uses stays)."""

    resources: ClassVar[tuple[str, ...]] = ("resourcePolicies",)

    def __init__(
        self,
        policies: PolicyStore,
        users: Callable[[PolicyKey], list[str]],
        schema: DiscoverySchema,
    ) -> None:
        self.policies = policies
        self.users = users
        self.schema = schema

    @staticmethod
    def _key(req: Request) -> PolicyKey:
        p = req.params
        return p["project"], p["region"], p["resourcePolicy"]

    def insert(self, req: Request) -> Response:
        body = body_object(req, "a ResourcePolicy")
        self.schema.require("ResourcePolicy", body, root="resource_policy")
        p = req.params
        op = self.policies.insert(p["project"], p["region"], body, request_id=request_id(req))
        return Response(200, op)

    def get(self, req: Request) -> Response:
        return Response(200, self.policies.get(self._key(req)))

    def delete(self, req: Request) -> Response:
        op = self.policies.delete(self._key(req), self.users, request_id=request_id(req))
        return Response(200, op)
