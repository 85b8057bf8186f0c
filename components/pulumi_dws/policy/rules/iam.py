"""No basic roles (roles/editor, roles/owner) in any :class:`~pulumi_dws.policy.facts.Grant` a
reader yields; the least-privilege pair for the Slurm agent."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..facts import Grant, facts
from ..values import matches_any
from ..view import Context, ResourceView
from .base import Finding, Option, Rule

__all__ = ["NO_BASIC_ROLES", "SLURM_AGENT_ROLES", "SERVICE_AGENT_DOMAIN"]

SERVICE_AGENT_DOMAIN = "@cloudservices.gserviceaccount.com"
SLURM_AGENT_ROLES = ("roles/compute.instanceAdmin.v1", "roles/iam.serviceAccountUser")


def _advice(member: str) -> str:
    pair = " and ".join(SLURM_AGENT_ROLES)
    if member.endswith(SERVICE_AGENT_DOMAIN):
        return (
            f"the Google APIs service agent needs only {pair} for managed Slurm clusters; "
            "grant those two instead"
        )
    return (
        "grant a predefined least-privilege role instead (for the managed Slurm service agent "
        f"PROJECT_NUMBER{SERVICE_AGENT_DOMAIN}: {pair})"
    )


def _no_basic_roles(view: ResourceView, cfg: dict[str, Any], ctx: Context) -> Iterator[Finding]:
    forbidden = set(cfg.get("forbiddenRoles") or [])
    allowed = cfg.get("allowedMembers") or []
    for grant in facts(view, Grant):
        role, members = grant.role, grant.members
        if not isinstance(role, str) or role not in forbidden:
            continue
        for member in members:
            if not isinstance(member, str) or matches_any(allowed, member):
                continue  # unknown (UNKNOWN) or allow-listed
            yield Finding(f"{view.label}: grants {role} to {member}; {_advice(member)}")


NO_BASIC_ROLES = Rule(
    name="no-basic-roles",
    description="No roles/editor or roles/owner grants; use least-privilege roles.",
    level="mandatory",
    scope="resource",
    check=_no_basic_roles,
    options=(
        Option.strings("forbiddenRoles", "Roles to refuse.", ["roles/editor", "roles/owner"]),
        Option.strings(
            "allowedMembers", "Members (globs allowed, e.g. group:admins@*) exempt from it."
        ),
    ),
    remediation=f"Managed Slurm: grant {' + '.join(SLURM_AGENT_ROLES)} to the service agent.",
)
