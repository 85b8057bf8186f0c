"""Drive Pulumi's own Python dynamic-provider host over gRPC, the way the engine does.

:class:`DynamicProviderHost` starts ``python -u -m pulumi.dynamic`` and plays the engine's part,
so a provider is exercised through the real pickling, the real wire format and the real host
code::

    from pulumi_dws.testing.dynamic_host import DynamicProviderHost, secret, urn

    with DynamicProviderHost(MyProvider(), project="my-project") as host:
        u = urn("pulumi-python:dynamic:Resource", "thing", project="my-project")
        inputs, failures = host.check(u, {}, {"zone": "us-central1-a", "token": secret("t")})
        id_, outs = host.create(u, inputs)
        host.delete(u, id_, outs)

What it does on the engine's behalf (process, shutdown, secrets, previews, unknowns) is told in
``docs/dynamic-host.md``.
"""

from .host import DynamicProviderHost
from .responses import (
    CheckFailure,
    ConfigureResponse,
    DiffChanges,
    DiffResponse,
    DynamicHostError,
    DynamicProviderError,
    PropertyDiff,
)
from .wire import (
    DEFAULT_PROJECT,
    DEFAULT_STACK,
    PROVIDER_KEY,
    UNKNOWN,
    ignore_changes,
    is_secret,
    secret,
    serialized_provider_size,
    unwrap_secrets,
    urn,
)

__all__ = [
    "DEFAULT_PROJECT",
    "DEFAULT_STACK",
    "PROVIDER_KEY",
    "UNKNOWN",
    "ignore_changes",
    "CheckFailure",
    "ConfigureResponse",
    "DiffChanges",
    "DiffResponse",
    "DynamicHostError",
    "DynamicProviderError",
    "DynamicProviderHost",
    "PropertyDiff",
    "is_secret",
    "secret",
    "serialized_provider_size",
    "unwrap_secrets",
    "urn",
]
