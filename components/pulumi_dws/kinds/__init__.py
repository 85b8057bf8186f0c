"""The built-in capacity kinds, one package each (``kinds/<kind>/``: its component, its
declaration in ``kind.py``, its dynamic providers and its test aids); each declaration registers
itself with :mod:`pulumi_dws.registry` when imported, and the registry calls :func:`load` when
first asked.

A new kind is a package here whose ``kind`` module calls :func:`~pulumi_dws.registry.register`
once, named in :data:`BUILTIN` (see docs/architecture.md, "How to add a kind"); its limit rows,
in its ``limits`` module, are registered with :mod:`pulumi_dws.limits` when its component
imports them (:func:`load_limits` imports them all for a look-up that needs every row).
"""

import importlib

from ..providers.endpoints import Api, declared_apis
from ..registry import register_resources

__all__ = ["BUILTIN", "load", "load_apis", "load_limits"]

BUILTIN = (
    "calendar",
    "slurm",
    "node_pool",
    "compute_class",
    "kueue",
    "flex_vm",
    "flex_group",
    "queued_tpu",
    "vertex_training",
    "vertex_deployment",
    "batch",
)
"""The kinds' packages, in the order ``dws:capacity`` lists them."""


def load() -> None:
    """Import every built-in kind's declaration, then the resource types no kind owns."""
    for name in BUILTIN:
        importlib.import_module(f"{__name__}.{name}.kind")
    common = importlib.import_module(f"{__name__}.common")
    register_resources(*common.RESOURCES)  # after the kinds: its catch-alls come last


def load_limits() -> None:
    """Import every built-in kind's limit rows (each kind's ``limits`` module registers them)."""
    _import_each("limits")


def load_apis() -> tuple[Api, ...]:
    """Every Google API the providers and the kinds call (each kind's ``api`` module declares
    its own, as Cloud Batch's): what ``dws emulator`` and the test aids point at a local
    server."""
    _import_each("api")
    return declared_apis()


def _import_each(part: str) -> None:
    for name in BUILTIN:
        module = f"{__name__}.{name}.{part}"
        try:
            importlib.import_module(module)
        except ModuleNotFoundError as err:
            if err.name != module:  # a kind without a module of that part has none
                raise
