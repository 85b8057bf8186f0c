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

The whole config is one pydantic model built from the registry (:func:`capacity_model`):
every entry is validated by the same model as the component it becomes, and all of it
before any resource is registered: one bad entry fails the run with the
entry's path (``dws:capacity.calendar_reservations[0].duration: ...``) and nothing is created.
References between entries are checked too, by the kinds that have them (a
``kueue_queues[].node_pool`` must name a pool declared under ``queued_node_pools``, on the same
cluster). A ``reservation:`` (or a Slurm pool's) naming a ``calendar_reservations`` entry is
that entry, as a :class:`~pulumi_dws.CalendarReservation` object is in Python: the consumer is
checked against what the block holds (machine type or TPU generation, count or chips, zone)
before anything is made, and is given the block's component when it is made. The kinds and
their keys are those of :mod:`pulumi_dws.registry`.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from types import GenericAlias
from typing import Annotated, Any

import pulumi
from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    ValidationError,
    ValidationInfo,
    create_model,
)
from pydantic_core import ErrorDetails

from . import limits, regions, registry
from .errors import NO_VALUE, DwsValidationError
from .fields import Known, Name
from .models import DwsModel, first_error, parse_args, suggest, tag_outputs
from .registry import BlueprintEntry as Entry

__all__ = [
    "Entry",
    "validate_capacity",
    "capacity_model",
    "deploy",
    "deploy_from_config",
    "secret_inputs",
    "CONFIG_KEY",
]

CONFIG_KEY = "dws:capacity"


def validate_capacity(capacity: Mapping[str, Any] | None) -> list[Entry]:
    """Validate a ``dws:capacity`` object with :func:`capacity_model`, then the checks across
    entries of each kind; return its entries in declaration order."""
    if capacity is None:
        return []
    if not isinstance(capacity, Mapping):
        raise DwsValidationError(CONFIG_KEY, capacity, "must be a mapping of kinds")
    model = capacity_model()
    wired = _wire_reservations(capacity)
    data = tag_outputs(model, wired, CONFIG_KEY)
    try:
        model.model_validate(data)
    except ValidationError as exc:
        raise _first_problem(exc.errors(include_url=False), model, data) from None
    kinds = registry.kinds_by_key()
    entries = [
        Entry(kinds[key], item["name"], _without_name(item), f"{CONFIG_KEY}.{key}[{i}]")
        for key, items in wired.items()
        for i, item in enumerate(items)
    ]
    for kind in kinds.values():
        if kind.check_entries is not None:
            kind.check_entries(entries)
    return entries


RESERVATIONS_KEY = "calendar_reservations"


def _reservation_refs(args: Mapping[str, Any]) -> list[tuple[tuple[Any, ...], str]]:
    """Where an entry names a reservation: ``("reservation",)`` and, in a list of objects
    (a Slurm cluster's ``node_pools``), ``("node_pools", i, "reservation")``."""
    found: list[tuple[tuple[Any, ...], str]] = []
    if isinstance(args.get("reservation"), str):
        found.append((("reservation",), args["reservation"]))
    for key, value in args.items():
        if isinstance(value, list):
            for i, item in enumerate(value):
                if isinstance(item, Mapping) and isinstance(item.get("reservation"), str):
                    found.append(((key, i, "reservation"), item["reservation"]))
    return found


def _replaced(args: Mapping[str, Any], at: tuple[Any, ...], value: Any) -> dict[str, Any]:
    copy: Any = {k: (list(v) if isinstance(v, list) else v) for k, v in args.items()}
    holder = copy
    for part in at[:-1]:
        holder[part] = dict(holder[part]) if isinstance(holder[part], Mapping) else holder[part]
        holder = holder[part]
    holder[at[-1]] = value
    return dict(copy)


def _wire_reservations(capacity: Mapping[str, Any]) -> dict[str, Any]:
    """``capacity`` with each ``reservation:`` naming a ``calendar_reservations`` entry
    replaced by that entry (a :class:`~pulumi_dws.kinds.calendar.consumers.DeclaredReservation`,
    its spec validated first), so the consumer is validated with it as its component validates
    a ``CalendarReservation`` object."""
    from .kinds.calendar.component import CalendarReservationSpec
    from .kinds.calendar.consumers import DeclaredReservation

    declared = capacity.get(RESERVATIONS_KEY)
    if not isinstance(declared, list):
        return dict(capacity)
    blocks: dict[str, DeclaredReservation] = {}
    for i, item in enumerate(declared):
        name = item.get("name") if isinstance(item, Mapping) else None
        if not isinstance(name, str):
            return dict(capacity)  # the model reports the entry
        where = f"{CONFIG_KEY}.{RESERVATIONS_KEY}[{i}]"
        try:
            spec = parse_args(CalendarReservationSpec, _without_name(item), where)
        except DwsValidationError:
            return dict(capacity)  # the model reports it, in declaration order
        blocks[name] = DeclaredReservation(name, spec)
    wired: dict[str, Any] = {}
    for key, items in capacity.items():
        if key == RESERVATIONS_KEY or not isinstance(items, list):
            wired[key] = items
            continue
        wired[key] = []
        for item in items:
            if isinstance(item, Mapping):
                for at, name in _reservation_refs(item):
                    if name in blocks:
                        item = _replaced(item, at, blocks[name])
            wired[key].append(item)
    return wired


NAMED: dict[str, dict[str, str]] = {
    "kueue_queues": {"node_pool": "queued_node_pools", "compute_class": "compute_classes"},
}
"""The fields of an entry (at its top, or in a list of objects such as a queue's ``flavors``)
that name an entry of another kind: the entry is made after those and given their
components, as a Python program passes the objects, so it registers what the same program in
Python registers (a TPU pool's slice labels, a class's accelerator, a pool's own checks)."""


def _made(args: Any, built: Mapping[str, pulumi.ComponentResource]) -> Any:
    """``args`` with each declared reservation replaced by the block's component."""
    from .kinds.calendar.consumers import DeclaredReservation

    if isinstance(args, DeclaredReservation):
        return built[f"{RESERVATIONS_KEY}/{args.name}"]
    if isinstance(args, Mapping):
        return {k: _made(v, built) for k, v in args.items()}
    if isinstance(args, list):
        return [_made(v, built) for v in args]
    return args


def _given_components(
    key: str, args: dict[str, Any], built: Mapping[str, pulumi.ComponentResource]
) -> dict[str, Any]:
    """``args`` of a ``key`` entry with each field of :data:`NAMED` that names a declared entry
    replaced by that entry's component."""
    fields = NAMED.get(key)
    if not fields:
        return args

    def swap(item: Mapping[str, Any]) -> dict[str, Any]:
        out = dict(item)
        for field, kind in fields.items():
            named = out.get(field)
            if isinstance(named, str) and f"{kind}/{named}" in built:
                out[field] = built[f"{kind}/{named}"]
        return out

    top = swap(args)
    for field, value in top.items():
        if isinstance(value, list):
            top[field] = [swap(v) if isinstance(v, Mapping) else v for v in value]
    return top


def _build_rank(entry: Entry) -> int:
    """Blocks first (their consumers are given them), entries that name others last."""
    if entry.kind.key == RESERVATIONS_KEY:
        return 0
    return 2 if entry.kind.key in NAMED else 1


def capacity_model() -> type[BaseModel]:
    """The model of ``dws:capacity``, built from :mod:`pulumi_dws.registry`: a list per
    capacity kind under its key (may be left out), each entry validated by the kind's spec
    (the model of its component's args) plus a ``name`` used once in the list."""
    return _model_of(tuple((kind.key, kind.spec) for kind in registry.kinds()))


@functools.lru_cache(maxsize=4)
def _model_of(kinds: tuple[tuple[str, type[DwsModel]], ...]) -> type[BaseModel]:
    lists: dict[str, Any] = {
        key: (Annotated[(GenericAlias(list, _entry_model(spec)), AfterValidator(_names_once))], [])
        for key, spec in kinds
    }
    config = ConfigDict(extra="forbid", frozen=True)
    return create_model("CapacityConfig", __config__=config, **lists)


def _entry_model(spec: type[DwsModel]) -> type[DwsModel]:
    """``spec`` with a required ``name``: the component's (and by default its resources')."""
    name: Any = (Annotated[Name, Known("it names the entry's component")], ...)
    return create_model(f"{spec.__name__}Entry", __base__=spec, name=name)


def _names_once(entries: list[Any], info: ValidationInfo) -> list[Any]:
    """The entries of one kind, each with its own name."""
    key = info.field_name
    seen: set[str] = set()
    for i, entry in enumerate(entries):
        if entry.name in seen:
            raise DwsValidationError(f"{key}[{i}].name", entry.name, f"is used twice in {key}")
        seen.add(entry.name)
    return entries


def _without_name(item: Mapping[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in item.items() if key != "name"}


def _first_problem(
    errors: Sequence[ErrorDetails], model: type[BaseModel], data: Mapping[str, Any]
) -> DwsValidationError:
    """The problem to report: the first one in declaration order (kind, then entry), with
    the blueprint's own words for the shape of the config; within an entry, its name first."""
    keys = {key: i for i, key in enumerate(data)}

    def place(err: ErrorDetails) -> tuple[int, int]:
        loc = err["loc"]
        index = loc[1] if len(loc) > 1 and isinstance(loc[1], int) else -1
        return keys.get(str(loc[0]), len(keys)), index

    first = min(errors, key=place)
    group = [err for err in errors if place(err) == place(first)]
    key = str(first["loc"][0])
    where = f"{CONFIG_KEY}.{key}"
    if len(first["loc"]) == 1 and first["type"] == "extra_forbidden":
        close = suggest(key, list(model.model_fields))
        hint = f"did you mean {close}?" if close else f"use one of {', '.join(model.model_fields)}"
        return DwsValidationError(where, NO_VALUE, f"is not a capacity kind; {hint}")
    if len(first["loc"]) == 1 and first["type"] == "list_type":
        return DwsValidationError(where, first["input"], "must be a list of entries")
    named = [err for err in group if err["loc"][2:3] == ("name",)]
    if named and named[0]["type"] == "missing":
        entry = f"{where}[{first['loc'][1]}].name"
        return DwsValidationError(entry, "(missing)", "every entry needs a name")
    return first_error(named or group, CONFIG_KEY, model, data)


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
    # Blocks first, entries that name others last: each is given the components it names.
    for entry in sorted(entries, key=_build_rank):
        args = _given_components(entry.kind.key, _made(entry.args, built), built)
        built[f"{entry.kind.key}/{entry.name}"] = entry.kind.component(entry.name, args, opts)
    return {f"{e.kind.key}/{e.name}": built[f"{e.kind.key}/{e.name}"] for e in entries}


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
