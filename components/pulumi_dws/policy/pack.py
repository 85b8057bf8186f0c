"""The rules as a ``pulumi_policy.PolicyPack`` (needs the ``policy`` extra: pulumi-policy).

``policy/__main__.py`` calls :func:`serve`; :func:`policies` builds the Policy objects alone
(for tests, or to combine with your own policies in your own pack)::

    from pulumi_policy import PolicyPack
    from pulumi_dws.policy.pack import policies

    PolicyPack("my-pack", policies=[*policies(), my_policy])
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pulumi_policy import (
    EnforcementLevel,
    Policy,
    PolicyConfigSchema,
    PolicyPack,
    ReportViolation,
    ResourceValidationArgs,
    ResourceValidationPolicy,
    StackValidationArgs,
    StackValidationPolicy,
)

from .engine import stack_limits
from .rules import Rule, all_rules
from .view import Context, ResourceView

__all__ = ["PACK_NAME", "policies", "serve", "limits_config"]

PACK_NAME = "dws-policies"
LIMITS_CONFIG_KEY = "dws:limits"


def limits_config() -> str | None:
    """The stack's ``dws:limits`` config (JSON text) if the engine passed stack config to the
    pack (it does: ``PULUMI_CONFIG``), so the pack judges by the same limits as the program."""
    try:
        import pulumi.runtime

        return pulumi.runtime.get_config(LIMITS_CONFIG_KEY)
    except Exception:  # noqa: BLE001 (no runtime settings: no stack config)
        return None


def _resource_validate(rule: Rule) -> Callable[[ResourceValidationArgs, ReportViolation], None]:
    def validate(args: ResourceValidationArgs, report_violation: ReportViolation) -> None:
        view = ResourceView.from_policy_args(args)
        with stack_limits(limits_config()):
            found = rule(view, dict(args.get_config() or {}), Context())
        for violation in found:
            report_violation(violation.message, None)

    return validate


def _stack_validate(rule: Rule) -> Callable[[StackValidationArgs, ReportViolation], None]:
    def validate(args: StackValidationArgs, report_violation: ReportViolation) -> None:
        views = [ResourceView.from_policy_resource(r) for r in args.resources]
        with stack_limits(limits_config()):
            found = rule(views, dict(args.get_config() or {}), Context(stack=views))
        for violation in found:
            report_violation(violation.message, violation.urn or None)

    return validate


def _schema(rule: Rule) -> PolicyConfigSchema | None:
    properties = rule.config_schema()
    return PolicyConfigSchema(properties) if properties else None


def policies() -> list[Policy]:
    """One Pulumi policy per rule (``plan``-scope rules, which need planned operations the
    policy runtime does not give, are left out)."""
    out: list[Policy] = []
    for rule in all_rules():
        common: dict[str, Any] = {
            "name": rule.name,
            "description": rule.description,
            "enforcement_level": EnforcementLevel(rule.level),
            "config_schema": _schema(rule),
            "remediation_steps": rule.remediation or None,
            "tags": ["dws", "gcp"],
        }
        if rule.scope == "resource":
            out.append(ResourceValidationPolicy(validate=_resource_validate(rule), **common))
        elif rule.scope == "stack":
            out.append(StackValidationPolicy(validate=_stack_validate(rule), **common))
    return out


def serve(name: str = PACK_NAME) -> None:
    """Start the policy pack server (blocks; what ``pulumi preview --policy-pack`` runs)."""
    PolicyPack(
        name=name,
        policies=policies(),
        description="Dynamic Workload Scheduler guard rails for Google Cloud GPU capacity.",
        provider="gcp",
        tags=["gcp", "gpu", "dws"],
    )
