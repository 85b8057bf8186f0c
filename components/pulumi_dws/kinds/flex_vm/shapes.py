"""One instance template per distinct Flex-start VM shape in a program.

A ``FlexStartInstance``'s template holds only its VM's shape (machine type, boot disk, network,
service account, accelerators, Flex-start scheduling): labels, metadata and the queue window go
on the VM's insert body. VMs of the same shape therefore share one ``gcp.compute.InstanceTemplate``
named ``flex-shape-<fingerprint>`` at the stack's root (registering a pulumi-gcp template costs
about as much as a raw VM: one per VM made a ``FlexStartInstance`` twice as slow to register).

The fingerprint (:func:`fingerprint`) is a hash of the template's inputs and of the gcp provider
the VM would use; the ``FlexStartVm`` carries it as ``templateShape`` so that its diff replaces
the VM when its shape changes, not when the template it was created from is renamed or
recreated with the same shape (see :mod:`pulumi_dws.kinds.flex_vm.provider`).

A shape that holds an ``Output`` (a project, image or network not known until deployment) can't
be fingerprinted before it is known, and a shared template is nobody's child, so it would not
inherit what a component passes on (``protect``, ``transformations``, ``transforms``): such a VM
gets its own ``<name>-template`` child, as before.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import pulumi
from pulumi.runtime import settings

from ...outputs import is_output

if TYPE_CHECKING:  # policy rules import this module for SHAPE_DESCRIPTION alone
    import pulumi_gcp as gcp

__all__ = ["SHAPE_DESCRIPTION", "TEMPLATE_TYPE", "fingerprint", "shareable", "shared_template"]

SHAPE_DESCRIPTION = "pulumi-dws: the shape of Flex-start VMs (FlexStartInstance)"
"""The ``description`` of every shared template: how policy rules and readers of the cloud
console recognise a template that carries a VM shape only (its labels are on the VMs)."""

TEMPLATE_TYPE = "gcp:compute/instanceTemplate:InstanceTemplate"

# The templates of the running program, keyed by fingerprint; a new resource monitor (a new
# program run, e.g. under test mocks) starts an empty table.
_program: tuple[Any, dict[str, gcp.compute.InstanceTemplate]] = (None, {})


def shareable(component: pulumi.Resource, opts: pulumi.ResourceOptions | None) -> bool:
    """Whether ``component``'s template may be shared: nothing that its children would
    inherit but the provider (``protect``, ``transformations``, ``transforms``) was given to it,
    since a shared template is nobody's child."""
    given = opts or pulumi.ResourceOptions()
    inherited = component._transformations or component._protect  # noqa: SLF001
    return not (given.transformations or given.transforms or inherited)


def _plain(value: Any) -> bool:
    if is_output(value):
        return False
    if isinstance(value, Mapping):
        return all(_plain(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return all(_plain(v) for v in value)
    return value is None or isinstance(value, (str, int, float, bool))


def fingerprint(inputs: Mapping[str, Any], provider: pulumi.ProviderResource | None) -> str | None:
    """A stable hash of a template's ``inputs`` and its ``provider`` (by name), or None when an
    input is an ``Output`` (not known yet)."""
    if not _plain(inputs):
        return None
    # A provider's name is unique in a stack; with no explicit provider the default one is used.
    key = {"inputs": inputs, "provider": provider._name if provider is not None else None}  # noqa: SLF001
    text = json.dumps(key, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def shared_template(
    shape: str, inputs: Mapping[str, Any], provider: pulumi.ProviderResource | None
) -> gcp.compute.InstanceTemplate:
    """The program's template of fingerprint ``shape``, registered on first use."""
    import pulumi_gcp as gcp

    global _program
    monitor = settings.get_monitor()
    if _program[0] is not monitor:
        _program = (monitor, {})
    templates = _program[1]
    template = templates.get(shape)
    if template is None:
        template = gcp.compute.InstanceTemplate(
            f"flex-shape-{shape}",
            description=SHAPE_DESCRIPTION,
            opts=pulumi.ResourceOptions(provider=provider),
            **inputs,
        )
        templates[shape] = template
    return template
