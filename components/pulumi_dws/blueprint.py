"""The config-driven blueprint: declare DWS capacity of every kind in stack config.

``Pulumi.<stack>.yaml``::

    config:
      dws:capacity:
        calendar_reservations:
          - name: h100-block
            zone: us-central1-a
            machine_type: a3-highgpu-8g
            count: 2
            start_time: +4w
            duration: 7d

Every entry is validated by the same model as the component it becomes, and the whole
config is validated before any resource is registered: one bad entry fails the run with the
entry's path (``dws:capacity.calendar_reservations[0].duration: ...``) and nothing is created.
References between entries are checked too, by the kinds that have them (a
``kueue_queues[].node_pool`` must name a pool declared under ``queued_node_pools``, on the same
cluster). The kinds and their keys are those of :mod:`pulumi_dws.registry`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pulumi

from . import limits, regions, registry
from .errors import NO_VALUE, DwsValidationError
from .models import parse_args, suggest
from .registry import BlueprintEntry as Entry
from .validation import check_name

__all__ = [
    "Entry",
    "validate_capacity",
    "deploy",
    "deploy_from_config",
    "secret_inputs",
    "CONFIG_KEY",
]

CONFIG_KEY = "dws:capacity"


def validate_capacity(capacity: Mapping[str, Any] | None) -> list[Entry]:
    """Validate a ``dws:capacity`` object; return its entries in declaration order."""
    if capacity is None:
        return []
    if not isinstance(capacity, Mapping):
        raise DwsValidationError(CONFIG_KEY, capacity, "must be a mapping of kinds")
    entries: list[Entry] = []
    seen: set[tuple[str, str]] = set()
    kinds = registry.kinds_by_key()
    for key, items in capacity.items():
        kind = kinds.get(key)
        if kind is None:
            close = suggest(str(key), list(kinds))
            hint = f"did you mean {close}?" if close else f"use one of {', '.join(kinds)}"
            raise DwsValidationError(
                f"{CONFIG_KEY}.{key}", NO_VALUE, f"is not a capacity kind; {hint}"
            )
        if not isinstance(items, list):
            raise DwsValidationError(f"{CONFIG_KEY}.{key}", items, "must be a list of entries")
        for i, item in enumerate(items):
            where = f"{CONFIG_KEY}.{key}[{i}]"
            if not isinstance(item, Mapping) or "name" not in item:
                raise DwsValidationError(f"{where}.name", "(missing)", "every entry needs a name")
            args = dict(item)
            name = check_name(f"{where}.name", str(args.pop("name")))
            if (key, name) in seen:
                raise DwsValidationError(f"{where}.name", name, f"is used twice in {key}")
            seen.add((key, name))
            parse_args(kind.spec, args, prefix=where)
            entries.append(Entry(kind, name, args, where))
    for kind in kinds.values():
        if kind.check_entries is not None:
            kind.check_entries(entries)
    return entries


def deploy(
    capacity: Mapping[str, Any] | None, *, secret: bool = False
) -> dict[str, pulumi.ComponentResource]:
    """Validate the whole capacity config, then create one component per entry.

    ``secret=True`` (the config held a ``secure:`` value somewhere) makes every input of every
    resource the entries register a Pulumi secret: the engine only says that the whole key is
    secret, so all that comes from it is treated as secret, into the dynamic resources' inputs
    and the state.
    """
    entries = validate_capacity(capacity)
    built: dict[str, pulumi.ComponentResource] = {}
    opts = pulumi.ResourceOptions(transformations=[secret_inputs]) if secret else None
    for entry in entries:
        built[f"{entry.kind.key}/{entry.name}"] = entry.kind.component(entry.name, entry.args, opts)
    return built


def secret_inputs(
    args: pulumi.ResourceTransformationArgs,
) -> pulumi.ResourceTransformationResult:
    """A resource transformation that marks every input of a resource (and of its children) as
    a Pulumi secret (the dynamic provider's own ``__provider`` stays as it is)."""
    props = {
        key: value if key == "__provider" else pulumi.Output.secret(value)
        for key, value in args.props.items()
    }
    return pulumi.ResourceTransformationResult(props, args.opts)


def deploy_from_config(config: pulumi.Config | None = None) -> dict[str, pulumi.ComponentResource]:
    """Deploy the stack's ``dws:capacity`` (as secrets when the key holds a ``secure:`` value),
    under its ``dws:limits`` and ``dws:regions``, which every pulumi-dws component honours; a
    bad one fails here, before anything is made."""
    from pulumi.runtime.config import is_config_secret

    config = config or pulumi.Config("dws")
    limits.from_stack()
    regions.from_stack()
    secret = is_config_secret(config.full_key("capacity"))
    return deploy(config.get_object("capacity"), secret=secret)
