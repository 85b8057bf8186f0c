"""The capacity kinds of pulumi-dws and the resource types it reads: one declaration each.

A *capacity kind* (Flex-start VM, queued node pool, Kueue queue, Slurm cluster, Calendar
reservation...) declares itself once, in its own module under :mod:`pulumi_dws.kinds`, with a
:class:`CapacityKind`: its component, args and spec, its ``dws:capacity`` key, and the
:class:`ResourceType` of every resource it registers (raw pulumi-gcp resources a user may
register directly included), each saying how the policy rules, the capacity summary and
``dws plan`` read it and how it behaves under :class:`~pulumi_dws.testing.GcpMocks`.

Everything that used to keep a table per kind iterates this registry: the blueprint
(:mod:`pulumi_dws.blueprint`), ``dws plan``'s key properties, the policy's readers and capacity
summary, and the mocks. Test aids (mocks behaviours, policy samples) are named by module path
(:class:`Ref`) and only imported by :mod:`pulumi_dws.testing`: importing the library or its
policy loads none.

The built-in kinds are loaded (:mod:`pulumi_dws.kinds`) the first time the registry is asked.
"""

from __future__ import annotations

import importlib
import re
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .policy.capacity import CapacityItem
    from .policy.rules.base import Rule
    from .policy.view import ResourceView

__all__ = [
    "DYNAMIC_PREFIX",
    "SERVED_PREFIX",
    "is_dynamic",
    "Ref",
    "ResourceType",
    "CapacityKind",
    "BlueprintEntry",
    "register",
    "register_resources",
    "kinds",
    "kind",
    "resource_types",
    "resource_type",
    "reader_for",
    "kinds_by_key",
]

DYNAMIC_PREFIX = "pulumi-python:dynamic"
SERVED_PREFIX = "dws:dynamic:"
"""The type prefix of the components' dynamic resources when the component provider
(:mod:`pulumi_dws.package`) serves them, for programs in other languages: ``dws:dynamic:QueuedTpu``
is ``pulumi-python:dynamic/dws:QueuedTpu``, read alike."""


def is_dynamic(token: str) -> bool:
    """A dynamic resource's type: Python's (``pulumi-python:dynamic/...``) or one the component
    provider serves (``dws:dynamic:...``)."""
    return token.startswith((DYNAMIC_PREFIX, SERVED_PREFIX))


@dataclass(frozen=True)
class Ref:
    """An attribute of a module, named by path (``"pulumi_dws.kinds.flex_vm.testing:SAMPLES"``)
    and imported only when :meth:`load` is called."""

    path: str

    def load(self) -> Any:
        module, _, attr = self.path.partition(":")
        loaded: Any = importlib.import_module(module)
        for part in attr.split(".") if attr else ():
            loaded = getattr(loaded, part)
        return loaded


Parts = Callable[["ResourceView"], Iterable[Any]]
Items = Callable[["ResourceView"], Iterable["CapacityItem"]]
Summary = Callable[["ResourceView"], dict[str, Any]]
StackItems = Callable[["ResourceView", Sequence["ResourceView"]], Iterable["CapacityItem"]]


@dataclass(frozen=True)
class ResourceType:
    """One resource type (or a family of them) and how pulumi-dws reads it.

    Attributes:
        kind: the short name rules and the capacity summary use (``instance``, ``flex_vm``,
            ``node_pool``...).
        types: exact type tokens.
        pattern: a regular expression for a family of tokens (IAM grants, Kubernetes objects);
            tried after every exact token, in registration order.
        dynamic_names: the last part of a dynamic resource's token (any module) that reads as
            this kind, lowercased (``flexstartvm``).
        recognise: for a dynamic resource whose name says nothing, whether its props look like
            this kind (e.g. an API body with ``scheduling`` and ``machineType``).
        parts: what the policy reads of it: the facts general rules check
            (:mod:`pulumi_dws.policy.facts`: ``RunLimit``, ``QueueWindow``, ``Labels``,
            ``PublicIp``, ``Grant``) and the shapes its capacity and its kind's rules read
            (:class:`~pulumi_dws.policy.shapes.VmSpec`, a kind's own ``kinds/<kind>/shapes.py``:
            ``PoolSpec``, ``SlurmPool``...).
        capacity: the GPU capacity it asks for (:class:`~pulumi_dws.policy.capacity.CapacityItem`).
        stack_capacity: instead of ``capacity``, for a resource whose capacity another resource
            of the stack completes (a MIG resize request: its VMs' shape is its group's
            template): called with the resource and every resource of the stack.
        summary: the key properties ``dws plan`` shows.
        mock: how it behaves under GcpMocks (a :data:`~pulumi_dws.testing.mocks.Fill`).
        autonamed: whether the provider gives it a ``name`` when none is set.
    """

    kind: str
    types: tuple[str, ...] = ()
    pattern: str | None = None
    dynamic_names: tuple[str, ...] = ()
    recognise: Callable[[ResourceView], bool] | None = None
    parts: Parts | None = None
    capacity: Items | None = None
    stack_capacity: StackItems | None = None
    summary: Summary | None = None
    mock: Ref | None = None
    autonamed: bool = True

    def matches(self, token: str, *, by_name: bool = True) -> bool:
        """Whether ``token`` is one of this entry's types: exact, by pattern, or (``by_name``)
        a dynamic resource of any module with one of its names."""
        if token in self.types:
            return True
        if self.pattern is not None and re.match(self.pattern, token):
            return True
        if by_name and is_dynamic(token):
            return token.rsplit(":", 1)[-1].lower() in self.dynamic_names
        return False


@dataclass(frozen=True)
class BlueprintEntry:
    """One entry of ``dws:capacity``: its kind, name, args (without ``name``) and path."""

    kind: CapacityKind
    name: str
    args: dict[str, Any]
    where: str


@dataclass(frozen=True)
class CapacityKind:
    """One kind of DWS capacity, declared once.

    Attributes:
        name: the component's class name (its type token is ``dws:index:<name>``,
            :func:`pulumi_dws.defaults.type_token`).
        component: the component class.
        args: its args ``TypedDict`` (what users write).
        spec: its validated args model (:class:`~pulumi_dws.models.DwsModel`), which is also
            the shape of its ``dws:capacity`` entries.
        key: its ``dws:capacity`` key (``flex_start_vms``).
        resources: the resource types it registers and reads.
        test_aids: the module of its test aids (``SAMPLES``, ``EXAMPLES``), for
            :mod:`pulumi_dws.testing.samples`.
        check_entries: a check across ``dws:capacity`` entries (a Kueue queue names a pool
            declared beside it), run on every entry once each is valid.
        rules: the policy rules of this kind alone (in ``kinds/<kind>/rules.py``); the policy
            engine runs them after the general rules
            (:func:`pulumi_dws.policy.rules.all_rules`), which check the facts every kind's
            readers yield (:mod:`pulumi_dws.policy.facts`).
        advice_hint: what to write to take a ``dws advise capacity`` answer
            (:class:`~pulumi_dws.advice.CapacityAdvice`) as this kind, or None when the answer
            does not fit it; ``dws advise`` prints every kind's hint under its table.
    """

    name: str
    component: Callable[..., Any]
    args: type
    spec: type
    key: str
    resources: tuple[ResourceType, ...] = ()
    test_aids: str | None = None
    check_entries: Callable[[Sequence[BlueprintEntry]], None] | None = None
    rules: tuple[Rule, ...] = ()
    advice_hint: Callable[[Any], str | None] | None = None


_kinds: dict[str, CapacityKind] = {}
_resources: list[ResourceType] = []
_exact: dict[str, ResourceType] = {}
_loaded = False
_lock = threading.RLock()


def register(kind: CapacityKind) -> CapacityKind:
    """Add a capacity kind (and its resource types); its ``key`` must be new."""
    with _lock:
        if kind.key in _kinds:
            raise ValueError(f"capacity kind {kind.key} is declared twice")
        _check_new_types(kind.resources)
        _kinds[kind.key] = kind
        register_resources(*kind.resources)
    return kind


def register_resources(*entries: ResourceType) -> None:
    """Add resource types no capacity kind owns (networks, Kubernetes objects...); a type token
    is declared once (another declaration of it would never be read)."""
    with _lock:
        _check_new_types(entries)
        for entry in entries:
            _resources.append(entry)
            for token in entry.types:
                _exact[token] = entry


def _check_new_types(entries: Sequence[ResourceType]) -> None:
    seen: dict[str, ResourceType] = {}
    for entry in entries:
        for token in entry.types:
            known = _exact.get(token) or seen.get(token)
            if known is not None:
                raise ValueError(
                    f"resource type {token} is declared twice ({known.kind}, {entry.kind}): "
                    "the registry reads one declaration of a type"
                )
            seen[token] = entry


def _ensure_loaded() -> None:
    global _loaded
    if _loaded:
        return
    with _lock:
        if not _loaded:
            _loaded = True
            importlib.import_module("pulumi_dws.kinds").load()


def kinds() -> tuple[CapacityKind, ...]:
    """Every capacity kind, in declaration order."""
    _ensure_loaded()
    return tuple(_kinds.values())


def kind(key: str) -> CapacityKind | None:
    """The kind declared under ``dws:capacity`` key ``key`` (None if there is none)."""
    _ensure_loaded()
    return _kinds.get(key)


def resource_types() -> tuple[ResourceType, ...]:
    """Every resource type entry, in registration order."""
    _ensure_loaded()
    return tuple(_resources)


def resource_type(token: str, *, by_name: bool = True) -> ResourceType | None:
    """The entry for a type token: an exact token, else a pattern, else (``by_name``) a
    dynamic resource's name."""
    _ensure_loaded()
    found = _exact.get(token)
    if found is not None:
        return found
    return next((e for e in _resources if e.matches(token, by_name=by_name)), None)


def reader_for(view: ResourceView) -> ResourceType | None:
    """The entry that reads ``view``: by its type token, else (a dynamic resource of a type
    nobody declared) by what its props look like."""
    found = resource_type(view.type)
    if found is not None or not is_dynamic(view.type):
        return found
    return next(
        (entry for entry in _resources if entry.recognise is not None and entry.recognise(view)),
        None,
    )


def kinds_by_key() -> Mapping[str, CapacityKind]:
    """Every capacity kind by its ``dws:capacity`` key."""
    _ensure_loaded()
    return dict(_kinds)
