"""The built-in capacity kinds, one module each; each declares itself to
:mod:`pulumi_dws.registry` when imported (the registry imports this package when first asked).

A new kind is a module here that calls :func:`~pulumi_dws.registry.register` once, named in
:data:`BUILTIN` (see docs/architecture.md, "How to add a kind").
"""

import importlib

from ..registry import register_resources

__all__ = ["BUILTIN"]

BUILTIN = ("calendar", "slurm", "gke", "kueue", "flex_vm", "flex_group", "queued_tpu")
"""The kinds' modules, in the order ``dws:capacity`` lists them."""

for _name in BUILTIN:
    importlib.import_module(f"{__name__}.{_name}")

from .common import RESOURCES  # noqa: E402  (after the kinds: its catch-alls come last)

register_resources(*RESOURCES)
