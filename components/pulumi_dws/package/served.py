"""The components' dynamic resources, served by the component provider itself.

In Python, a component's cloud calls Pulumi cannot make with pulumi-gcp are dynamic resources
(``pulumi-python:dynamic/dws:FlexStartVm``...): the engine runs them in the ``pulumi-python``
plugin, ``python3 -m pulumi.dynamic``, started in the *program's* directory with the
*program's* virtualenv (``PULUMI_RUNTIME_VIRTUALENV``, from the program's ``Pulumi.yaml``),
which unpickles the provider from the resource's ``__provider`` input. When the program is
TypeScript, Go or YAML there is no such virtualenv: the plugin's ``python3`` has neither
``pulumi`` nor ``pulumi_dws``, and the resource fails (pulumi/pulumi#5455, open since 2020;
``sdk/python/dist/pulumi-resource-pulumi-python`` and ``NewProvider`` in
``sdk/go/common/resource/plugin/provider_plugin.go``, which passes the program's runtime
options to every provider plugin).

So inside the component provider each dynamic resource a component registers is sent to the
engine as a custom resource of this package, ``dws:dynamic:<Name>``
(:class:`ServingMonitor` changes the type of the registration and nothing else: the same
name, parent, inputs, ``__provider`` included), and the engine asks this same provider process
to check, diff, create, read, update and delete it. :class:`ServedResources` does that with the
provider class the ``__provider`` pickle names, exactly as ``python -m pulumi.dynamic`` would,
except that it loads only pulumi-dws's own provider classes (never arbitrary code from a
state) and gets the package's config (``dws:computeEndpoint``...) as a dynamic provider gets it.

The resources keep every input and output of their Python twins; only the type differs, so a
stack made from a Python program and one made from another language are not interchangeable
(their types differ; an alias would be needed to move one to the other).
"""

from __future__ import annotations

import base64
import io
import pickle
import threading
from collections.abc import Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from pulumi.dynamic import ConfigureRequest, ResourceProvider
from pulumi.dynamic.config import Config
from pulumi.dynamic.dynamic import PROVIDER_KEY
from pulumi.runtime import rpc

from ..registry import SERVED_PREFIX
from . import PACKAGE_NAME

__all__ = [
    "COMPONENT_PROVIDER",
    "DYNAMIC_PREFIX",
    "PROVIDER_KEY",
    "served_type",
    "dynamic_type",
    "ServingMonitor",
    "serving_monitor",
    "ServedResources",
    "ServedProviderError",
    "load_provider",
]

DYNAMIC_PREFIX = "pulumi-python:dynamic/dws:"
"""The type prefix of pulumi-dws's dynamic resources (``dyn.Resource`` with ``module="dws"``)."""
_SERVED_PREFIX = SERVED_PREFIX


class ServedProviderError(Exception):
    """A served resource's ``__provider`` is missing or names something else than a pulumi-dws
    dynamic provider."""


def served_type(token: str) -> str | None:
    """``pulumi-python:dynamic/dws:FlexStartVm`` -> ``dws:dynamic:FlexStartVm`` (None for any
    other type)."""
    if token.startswith(DYNAMIC_PREFIX):
        return _SERVED_PREFIX + token[len(DYNAMIC_PREFIX) :]
    return None


def dynamic_type(token: str) -> str | None:
    """``dws:dynamic:FlexStartVm`` -> ``pulumi-python:dynamic/dws:FlexStartVm`` (None for any
    other type)."""
    if token.startswith(_SERVED_PREFIX):
        return DYNAMIC_PREFIX + token[len(_SERVED_PREFIX) :]
    return None


# ---------------------------------------------------------------------------- registering
COMPONENT_PROVIDER: ContextVar[str] = ContextVar("dws_component_provider", default="")
"""The reference of the ``dws`` provider the component being constructed was given (its
``providers`` option), if any: its served resources go to that provider."""


class ServingMonitor:
    """The engine's resource monitor as components see it inside the provider: a dynamic
    resource's registration goes out as a ``dws:dynamic:<Name>`` custom resource of this
    package's version (so the engine gives it to this provider, or to the ``dws`` provider
    the component was given: :data:`COMPONENT_PROVIDER`), everything else unchanged."""

    def __init__(self, monitor: Any, version: str) -> None:
        self._monitor = monitor
        self._version = version

    def RegisterResource(self, request: Any) -> Any:  # noqa: N802 (the gRPC method's name)
        token = served_type(request.type)
        if token is not None:
            served = type(request)()
            served.CopyFrom(request)
            served.type = token
            if not served.provider:
                served.provider = COMPONENT_PROVIDER.get()
            if not served.version:
                served.version = self._version
            request = served
        return self._monitor.RegisterResource(request)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._monitor, name)


_MONITORS: dict[str, ServingMonitor] = {}
_MONITORS_LOCK = threading.Lock()


def serving_monitor(endpoint: str, monitor: Any, version: str) -> ServingMonitor:
    """The one :class:`ServingMonitor` of the engine at ``endpoint`` (``monitor`` is a stub to
    it): every ``Construct`` of a deployment shares it, and with it what a program shares
    (the Flex-start VMs' templates, one per shape: :mod:`pulumi_dws.kinds.flex_vm.shapes`)."""
    with _MONITORS_LOCK:
        found = _MONITORS.get(endpoint)
        if found is None:
            found = _MONITORS[endpoint] = ServingMonitor(monitor, version)
        return found


# ---------------------------------------------------------------------------- serving
class _ProviderUnpickler(pickle.Unpickler):
    """Loads pulumi-dws's own dynamic provider classes only, so a state cannot make the
    provider run other code: a pickle can call whatever global it names (``REDUCE``), so the
    only globals it may name are those classes (named by a plain name, not a dotted path that
    would reach what their module imported, such as ``os``)."""

    def find_class(self, module: str, name: str) -> Any:
        refused = ServedProviderError(f"{module}.{name} is not a pulumi-dws dynamic provider")
        if not (module == "pulumi_dws" or module.startswith("pulumi_dws.")) or "." in name:
            raise refused
        found = super().find_class(module, name)
        if not (
            isinstance(found, type)
            and issubclass(found, ResourceProvider)
            and found.__module__.startswith("pulumi_dws.")
        ):
            raise refused
        return found


def load_provider(serialized: str) -> ResourceProvider:
    """The provider a ``__provider`` value (base64 of its pickle) holds; only pulumi-dws's
    dynamic provider classes load."""
    try:
        data = base64.b64decode(serialized, validate=True)
        provider = _ProviderUnpickler(io.BytesIO(data)).load()
    except ServedProviderError:
        raise
    except Exception as err:  # noqa: BLE001 - any damage to the value
        raise ServedProviderError(f"{PROVIDER_KEY} is not a pickled provider ({err})") from None
    if not isinstance(provider, ResourceProvider):
        raise ServedProviderError(f"{PROVIDER_KEY} holds a {type(provider).__name__}")
    return provider


@dataclass
class ServedResources:
    """The ``dws:dynamic:*`` resources' operations, each done by the provider its
    ``__provider`` input names, as ``python -m pulumi.dynamic`` does them: one provider
    instance per ``__provider`` value, configured once with the package config.

    Inputs and outputs are plain values: secrets are unwrapped before a provider sees them
    (a dynamic provider never gets one) and the caller marks the outputs again.
    """

    project: str = "project"
    config: dict[str, Any] = field(default_factory=dict)
    _providers: dict[str, ResourceProvider] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def configure(self, package_config: Mapping[str, Any]) -> None:
        """Keep the package's config (``computeEndpoint``...) as dynamic providers get it,
        namespaced (``dws:computeEndpoint``); providers loaded later are configured with it."""
        self.config = {
            f"{PACKAGE_NAME}:{key}" if ":" not in key else key: rpc.unwrap_rpc_secret(value)
            for key, value in package_config.items()
        }

    def provider(self, *bags: Mapping[str, Any]) -> ResourceProvider:
        """The provider of the first property bag that names one (new inputs, else old)."""
        serialized = None
        for bag in bags:
            value = rpc.unwrap_rpc_secret(bag.get(PROVIDER_KEY))
            if isinstance(value, str) and value != rpc.UNKNOWN:
                serialized = value
                break
        if serialized is None:
            raise ServedProviderError(f"the resource has no {PROVIDER_KEY}")
        with self._lock:
            provider = self._providers.get(serialized)
            if provider is None:
                provider = load_provider(serialized)
                provider.configure(ConfigureRequest(Config(dict(self.config), self.project)))
                self._providers[serialized] = provider
        return provider
