"""A dynamic resource's registration with its provider's serialization done once per provider.

``pulumi.dynamic.Resource.__init__`` pickles the provider (``dill``) for every resource; a
program of many groups pickles the same shared provider again and again (a third of a
millisecond each time, as much as validating the group's args). :func:`init_dynamic` does what
that ``__init__`` does (refuse a ``__provider`` prop, serialize the provider, make it a secret
unless the provider says otherwise, register ``pulumi-python:dynamic/<module>:<name>``), reusing
the serialization while the provider object and its attributes are the same.
"""

from __future__ import annotations

from typing import Any

import pulumi
from pulumi.dynamic import Resource, ResourceProvider
from pulumi.dynamic.dynamic import PROVIDER_KEY, _serialize, serialize_provider

__all__ = ["init_dynamic", "serialized_provider"]

_cache: dict[tuple[int, type, str], tuple[Any, bool]] = {}


def serialized_provider(provider: ResourceProvider) -> tuple[Any, bool]:
    """``(serialized provider, whether it captured secrets)``, as pulumi.dynamic makes them,
    made once per provider object and attribute values."""
    key = (id(provider), type(provider), repr(sorted(vars(provider).items())))
    found = _cache.get(key)
    if found is None:
        found = _cache[key] = _serialize(True, serialize_provider, provider)
        if len(_cache) > 64:  # providers made per resource: keep the table small
            _cache.pop(next(iter(_cache)))
    return found


def init_dynamic(
    resource: Resource,
    provider: ResourceProvider,
    name: str,
    props: dict[str, Any],
    opts: pulumi.ResourceOptions | None,
) -> None:
    """Register ``resource`` as ``pulumi.dynamic.Resource.__init__`` would."""
    if PROVIDER_KEY in props:
        raise ValueError("A dynamic resource must not define the __provider key")
    serialized, secrets = serialized_provider(provider)
    if getattr(provider, "serialize_as_secret_always", True) or secrets:
        serialized = pulumi.Output.secret(serialized)
    props[PROVIDER_KEY] = serialized
    type_name = type(resource)._resource_type_name  # noqa: SLF001
    pulumi.CustomResource.__init__(resource, f"pulumi-python:{type_name}", name, props, opts)
