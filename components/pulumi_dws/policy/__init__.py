"""Policy rules for DWS capacity: pure functions over neutral resource views.

The same rules run three ways:

* ``pulumi preview --policy-pack policy/`` (the pack in ``policy/`` builds a
  ``pulumi_policy.PolicyPack`` with :func:`pulumi_dws.policy.pack.policies`);
* ``dws plan`` (offline, on resources registered under ``pulumi_dws.testing.GcpMocks``) with
  :func:`evaluate` and :func:`capacity_summary`;
* your own tests, through :mod:`pulumi_dws.testing.policy` (and its samples,
  :mod:`pulumi_dws.testing.samples`).

Importing this package imports neither pulumi-policy (only ``.pack`` does) nor any test aid.
"""

from __future__ import annotations

from .capacity import CapacityItem, capacity_items, capacity_summary
from .engine import check_config, evaluate, level_for, load_config, rule_config, stack_limits
from .rules import RULES, Finding, Option, Rule, all_rules, rule
from .values import UNKNOWN, is_unknown
from .view import Context, Level, ResourceView, Violation, normalize_operation, type_of_urn

__all__ = [
    "RULES",
    "UNKNOWN",
    "all_rules",
    "CapacityItem",
    "Context",
    "Finding",
    "Level",
    "Option",
    "ResourceView",
    "Rule",
    "Violation",
    "capacity_items",
    "capacity_summary",
    "check_config",
    "evaluate",
    "is_unknown",
    "level_for",
    "load_config",
    "normalize_operation",
    "rule",
    "rule_config",
    "stack_limits",
    "type_of_urn",
]
