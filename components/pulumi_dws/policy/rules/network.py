"""Accelerator VMs and nodes without public IPs (an allow-list for exceptions): every
:class:`~pulumi_dws.policy.facts.PublicIp` a kind's reader yields."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..facts import PublicIp, facts
from ..values import matches_any
from ..view import Context, ResourceView
from .base import Finding, Option, Rule

__all__ = ["NO_PUBLIC_IP"]


def _no_public_ip(view: ResourceView, cfg: dict[str, Any], ctx: Context) -> Iterator[Finding]:
    if matches_any(cfg.get("allowedResources") or [], view.name, view.urn):
        return
    for ip in facts(view, PublicIp):
        if ip.public(ctx) is True:
            yield Finding(
                f"{view.label}{ip.where}: {ip.problem}; {ip.fix} or add the resource to "
                "allowedResources"
            )


NO_PUBLIC_IP = Rule(
    name="no-public-ip-on-accelerators",
    description="GPU and TPU VMs and nodes must not have public IP addresses.",
    level="mandatory",
    scope="resource",
    check=_no_public_ip,
    options=(
        Option.strings(
            "allowedResources",
            "Resource names or URNs (globs allowed) that may have public IPs.",
        ),
    ),
    remediation="Drop accessConfigs / enable private nodes; reach nodes through IAP or NAT.",
    note="names/URNs, globs",
)
