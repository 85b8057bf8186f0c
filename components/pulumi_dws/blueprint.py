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
References between entries are checked too: a ``kueue_queues[].node_pool`` must name a pool
declared under ``queued_node_pools`` (its ``name``, else its entry name), on the same cluster.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import pulumi

from . import limits, regions
from .errors import NO_VALUE, DwsValidationError
from .models import parse_args, suggest
from .validation import check_name

__all__ = [
    "Kind",
    "KINDS",
    "validate_capacity",
    "deploy",
    "deploy_from_config",
    "secret_inputs",
    "CONFIG_KEY",
]

CONFIG_KEY = "dws:capacity"


@dataclass(frozen=True)
class Kind:
    """One kind of capacity: where its component and args model live."""

    key: str
    module: str
    component: str
    spec: str

    def load(self) -> tuple[Callable[..., pulumi.ComponentResource], Any]:
        mod = importlib.import_module(self.module, __package__)
        return getattr(mod, self.component), getattr(mod, self.spec)


KINDS: dict[str, Kind] = {
    kind.key: kind
    for kind in [
        Kind(
            "calendar_reservations", ".calendar", "CalendarReservation", "CalendarReservationSpec"
        ),
        Kind("slurm_clusters", ".slurm", "SlurmCluster", "SlurmClusterSpec"),
        Kind("queued_node_pools", ".gke", "QueuedNodePool", "QueuedNodePoolSpec"),
        Kind("kueue_queues", ".kueue", "KueueQueue", "KueueQueueSpec"),
        Kind("flex_start_vms", ".flex_vm", "FlexStartInstance", "FlexStartInstanceSpec"),
    ]
}


@dataclass(frozen=True)
class Entry:
    kind: Kind
    name: str
    args: dict[str, Any]
    where: str


def validate_capacity(capacity: Mapping[str, Any] | None) -> list[Entry]:
    """Validate a ``dws:capacity`` object; return its entries in declaration order."""
    if capacity is None:
        return []
    if not isinstance(capacity, Mapping):
        raise DwsValidationError(CONFIG_KEY, capacity, "must be a mapping of kinds")
    entries: list[Entry] = []
    seen: set[tuple[str, str]] = set()
    for key, items in capacity.items():
        if key not in KINDS:
            close = suggest(str(key), list(KINDS))
            hint = f"did you mean {close}?" if close else f"use one of {', '.join(KINDS)}"
            raise DwsValidationError(
                f"{CONFIG_KEY}.{key}", NO_VALUE, f"is not a capacity kind; {hint}"
            )
        if not isinstance(items, list):
            raise DwsValidationError(f"{CONFIG_KEY}.{key}", items, "must be a list of entries")
        kind = KINDS[key]
        _, spec = kind.load()
        for i, item in enumerate(items):
            where = f"{CONFIG_KEY}.{key}[{i}]"
            if not isinstance(item, Mapping) or "name" not in item:
                raise DwsValidationError(f"{where}.name", "(missing)", "every entry needs a name")
            args = dict(item)
            name = check_name(f"{where}.name", str(args.pop("name")))
            if (key, name) in seen:
                raise DwsValidationError(f"{where}.name", name, f"is used twice in {key}")
            seen.add((key, name))
            parse_args(spec, args, prefix=where)
            entries.append(Entry(kind, name, args, where))
    _check_references(entries)
    return entries


def _check_references(entries: list[Entry]) -> None:
    """Each Kueue queue names a queued node pool declared beside it, on the same cluster, in a
    mode its ProvisioningRequests can use."""
    pools = {
        str(e.args.get("name") or e.name): e for e in entries if e.kind.key == "queued_node_pools"
    }
    for queue in (e for e in entries if e.kind.key == "kueue_queues"):
        target = queue.args.get("node_pool")
        if not isinstance(target, str):
            continue
        pool = pools.get(target)
        if pool is None:
            declared = ", ".join(sorted(pools)) or "none"
            close = suggest(target, sorted(pools))
            hint = f"; did you mean {close}?" if close else ""
            raise DwsValidationError(
                f"{queue.where}.node_pool",
                target,
                f"names no node pool declared in {CONFIG_KEY}.queued_node_pools "
                f"(declared: {declared}){hint}",
            )
        for field in ("cluster", "location", "project"):
            mine, theirs = queue.args.get(field), pool.args.get(field)
            if mine is not None and theirs is not None and mine != theirs:
                raise DwsValidationError(
                    f"{queue.where}.{field}",
                    mine,
                    f"differs from the {field} of node pool {target} ({pool.where}: {theirs})",
                )
        queued = pool.args.get("mode", "queued") == "queued"
        if queue.args.get("provisioning_request", True) and not queued:
            raise DwsValidationError(
                f"{queue.where}.node_pool",
                target,
                f"is in mode {pool.args.get('mode')}; ProvisioningRequests need a pool in mode "
                "queued (or set provisioning_request: false)",
            )


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
        component, _ = entry.kind.load()
        built[f"{entry.kind.key}/{entry.name}"] = component(entry.name, entry.args, opts)
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
