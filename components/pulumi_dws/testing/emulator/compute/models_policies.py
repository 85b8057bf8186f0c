"""Resource policies (workload policies) of the emulated Compute Engine: ``resourcePolicies``
``insert`` / ``get`` / ``delete`` in a region. Mixed into :class:`~.models.ComputeBackend`,
whose operations and request ids they share; a group that names one (``resourcePolicies.
workloadPolicy``) looks it up here (:meth:`PolicyBackend.find_policy`).

Rules: a workload policy takes ``acceleratorTopology`` or ``maxTopologyDistance``, not both,
and either only with type ``HIGH_THROUGHPUT`` (pulumi-gcp ResourcePolicy ``workload_policy``
docs: "can be set only when the workload policy type is HIGH_THROUGHPUT and cannot be set if
max topology distance is set"; gcloud 528 ``resource-policies create workload-policy`` makes
the flags exclusive); a policy a group uses can't be deleted ("resource in use").
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any

from ..base import GoogleError
from .common import COMPUTE_SELF_LINK_ROOT as _ROOT
from .common import Operation, last, not_found, timestamp

if TYPE_CHECKING:
    import datetime as dt
    import itertools
    import threading
    from collections.abc import Callable

__all__ = ["PolicyBackend", "policy_key"]

PolicyKey = tuple[str, str, str]
"""``(project, region, name)``."""


def policy_key(link: str, project: str, region: str) -> PolicyKey:
    """The policy a full or partial URL (or a bare name: in ``project`` and ``region``) names."""
    parts = link.split("/")
    owner = parts[parts.index("projects") + 1] if "projects" in parts[:-1] else project
    where = parts[parts.index("regions") + 1] if "regions" in parts[:-1] else region
    return owner, where, last(link)


class PolicyBackend:
    """Resource policies of a region (see the module docstring)."""

    if TYPE_CHECKING:  # what ComputeBackend provides
        _lock: threading.RLock
        _now: dt.datetime
        _counter: itertools.count[int]

        def _new_op(
            self,
            project: str,
            zone: str | None,
            kind: str,
            target: str,
            *,
            done: bool = True,
            region: str | None = None,
        ) -> Operation: ...

        def once(
            self, project: str, request_id: str | None, action: Callable[[], Operation]
        ) -> Operation: ...

        def _policy_users(self, key: PolicyKey) -> list[str]: ...

    def _init_policies(self) -> None:
        self._policies: dict[PolicyKey, dict[str, Any]] = {}

    def policies(self, project: str | None = None) -> list[dict[str, Any]]:
        """Copies of every resource policy (of ``project``), as ``get`` returns them."""
        with self._lock:
            return [copy.deepcopy(p) for k, p in self._policies.items() if project in (None, k[0])]

    def find_policy(self, link: str, project: str, region: str) -> dict[str, Any] | None:
        """The policy a full or partial URL (or a bare name, in ``region``) names, or None."""
        found = self._policies.get(policy_key(link, project, region))
        return copy.deepcopy(found) if found is not None else None

    def insert_policy(
        self, project: str, region: str, body: dict[str, Any], *, request_id: str | None = None
    ) -> Operation:
        def action() -> Operation:
            name = body.get("name")
            if not name:
                raise GoogleError(400, "Required field 'resource.name' not specified", "required")
            target = f"projects/{project}/regions/{region}/resourcePolicies/{name}"
            if (project, region, name) in self._policies:
                raise GoogleError(409, f"The resource '{target}' already exists", "alreadyExists")
            _check_workload(body.get("workloadPolicy"))
            stored = copy.deepcopy(body)
            stored.update(
                kind="compute#resourcePolicy",
                id=str(4_000_000_000 + next(self._counter)),
                selfLink=_ROOT + target,
                region=f"{_ROOT}projects/{project}/regions/{region}",
                creationTimestamp=timestamp(self._now),
                status="READY",
            )
            self._policies[(project, region, str(name))] = stored
            return self._new_op(project, None, "insert", target, region=region)

        return self.once(project, request_id, action)

    def get_policy(self, project: str, region: str, name: str) -> dict[str, Any]:
        with self._lock:
            found = self._policies.get((project, region, name))
            if found is None:
                raise not_found(f"projects/{project}/regions/{region}/resourcePolicies/{name}")
            return copy.deepcopy(found)

    def delete_policy(
        self, project: str, region: str, name: str, *, request_id: str | None = None
    ) -> Operation:
        def action() -> Operation:
            target = f"projects/{project}/regions/{region}/resourcePolicies/{name}"
            if (project, region, name) not in self._policies:
                raise not_found(target)
            users = self._policy_users((project, region, name))
            if users:
                raise GoogleError(
                    400,
                    f"The resource_policy resource '{target}' is already being used by "
                    f"'{users[0]}'",
                    "resourceInUseByAnotherResource",
                )
            del self._policies[(project, region, name)]
            return self._new_op(project, None, "delete", target, region=region)

        return self.once(project, request_id, action)


def _check_workload(workload: Any) -> None:
    if workload is None:
        return
    if not isinstance(workload, dict) or not workload.get("type"):
        raise GoogleError(
            400, "Required field 'resource.workloadPolicy.type' not specified", "required"
        )
    topology = workload.get("acceleratorTopology") or workload.get("acceleratorTopologyMode")
    if topology and workload.get("maxTopologyDistance"):
        raise GoogleError(
            400,
            "Invalid value for field 'resource.workloadPolicy': acceleratorTopology and "
            "maxTopologyDistance can't both be set.",
            "invalid",
        )
    if (topology or workload.get("maxTopologyDistance")) and workload["type"] != "HIGH_THROUGHPUT":
        raise GoogleError(
            400,
            "Invalid value for field 'resource.workloadPolicy': acceleratorTopology and "
            "maxTopologyDistance need type HIGH_THROUGHPUT.",
            "invalid",
        )
