"""One instance template per distinct group shape in a program.

A ``FlexStartGroup``'s template holds its VMs' shape and settings (machine type, disks,
network, scheduling, labels, metadata); groups of the same shape in the same project (and, for
regional groups, region) share one ``flex-group-shape-<fingerprint>`` at the stack's root,
``InstanceTemplate`` or ``RegionInstanceTemplate``: a pulumi-gcp template costs as much to
register as the rest of a group. A group names it by a path made of its project and name
(``projects/P/global/instanceTemplates/NAME``), known as soon as Pulumi autonames it, so the
policy rules find a group's template before it exists.

A shape with an ``Output`` in it (a ``GpuNetwork``'s subnetworks, a project not known yet),
or a group given ``protect`` or transformations (a shared template is nobody's child), gets its
own ``<name>-template`` child instead (:func:`pulumi_dws.kinds.flex_vm.shapes.shareable`), as
before shared templates, whose fingerprint rules it shares.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pulumi
import pulumi_gcp as gcp
from pulumi.runtime import settings

__all__ = ["GROUP_SHAPE_DESCRIPTION", "TEMPLATE_TYPES", "shared_group_template", "template_path"]

GROUP_SHAPE_DESCRIPTION = "pulumi-dws: the VMs of Flex-start groups (FlexStartGroup)"
"""The ``description`` of every shared group template."""

TEMPLATE_TYPES = (
    "gcp:compute/instanceTemplate:InstanceTemplate",
    "gcp:compute/regionInstanceTemplate:RegionInstanceTemplate",
)

# The shared templates of the running program, keyed by fingerprint; a new resource monitor
# (a new program run, e.g. under test mocks) starts an empty table.
_program: tuple[Any, dict[str, pulumi.CustomResource]] = (None, {})


def shared_group_template(
    shape: str, inputs: Mapping[str, Any], provider: pulumi.ProviderResource | None
) -> pulumi.CustomResource:
    """The program's group template of fingerprint ``shape`` (regional when ``inputs`` has a
    ``region``), registered on first use."""
    global _program
    monitor = settings.get_monitor()
    if _program[0] is not monitor:
        _program = (monitor, {})
    templates = _program[1]
    template = templates.get(shape)
    if template is None:
        kind = (
            gcp.compute.RegionInstanceTemplate
            if inputs.get("region")
            else (gcp.compute.InstanceTemplate)
        )
        template = kind(
            f"flex-group-shape-{shape}",
            description=GROUP_SHAPE_DESCRIPTION,
            opts=pulumi.ResourceOptions(provider=provider),
            **inputs,
        )
        templates[shape] = template
    return template


def template_path(template: pulumi.CustomResource, project: str, region: str | None) -> Any:
    """``projects/P/global/instanceTemplates/NAME`` (``regions/R`` for a regional one): the
    template's path from its name, which Pulumi knows once it autonames it.

    pulumi-gcp sends a version's ``instance_template`` as given (``expandVersions``:
    ``ConvertToUniqueIdWhenPresent``) and compares it with the full URL Google returns through
    ``compareSelfLinkRelativePathsIgnoreParams``, so a relative path causes no diff
    (hashicorp/terraform-provider-google-beta@93c65b2d,
    ``google-beta/services/compute/resource_compute_instance_group_manager.go`` and
    ``resource_compute_region_instance_group_manager.go``)."""
    where = f"regions/{region}" if region else "global"
    name: pulumi.Output[str] = template.name  # type: ignore[attr-defined]
    return pulumi.Output.concat(f"projects/{project}/{where}/instanceTemplates/", name)
