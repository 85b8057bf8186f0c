"""Argument types every component's spec is declared with: each check written once.

A spec field says what it takes with one of these ``Annotated`` types instead of a validator
of its own::

    class FlexStartInstanceSpec(DwsModel):
        zone: MaybeOutput[Zone]
        instance_name: Name | None = None
        max_run_duration: Annotated[Duration, Within("flex_start.max_run_duration")]
        boot_disk_size_gb: Annotated[int, Within("compute.boot_disk_gb")] = 100
        labels: MaybeOutput[Labels] = {}
        machine_type: Annotated[str, Known("it decides the GPUs")]

Each check is one of :mod:`pulumi_dws.validation` or :mod:`pulumi_dws.limits` and reports the
field by its name (the spec's :func:`~pulumi_dws.models.parse_args` puts it under its path).
Every field of a :class:`~pulumi_dws.models.DwsModel` also takes a Pulumi ``Output``, checked
once its value is known: :data:`MaybeOutput` says so in the type, :class:`Known` refuses one
with the reason.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any, TypeVar, Union

import pulumi
from pydantic import AfterValidator, BeforeValidator, ValidationInfo

from . import catalog, limits
from .errors import DwsValidationError
from .validation import (
    check_choice,
    check_image,
    check_labels,
    check_metadata,
    check_metadata_values,
    check_name,
    check_network,
    check_project,
    check_service_account,
    check_subnetwork,
    check_zone,
    region_of_location,
)

__all__ = [
    "MaybeOutput",
    "Known",
    "Takes",
    "Secret",
    "Within",
    "DurationWithin",
    "OneOf",
    "Each",
    "Check",
    "Name",
    "Zone",
    "Zones",
    "Location",
    "Labels",
    "Metadata",
    "GpuMachineType",
    "GpuOrHpcMachineType",
    "AcceleratorMachineType",
    "AcceleratorName",
    "ProjectId",
    "Network",
    "Subnetwork",
    "Image",
    "ServiceAccount",
    "MetadataText",
]

T = TypeVar("T")

if TYPE_CHECKING:
    MaybeOutput = Union[T, pulumi.Output[T]]  # noqa: UP007 (a generic alias)
else:

    class MaybeOutput:
        """``MaybeOutput[T]``: a ``T``, or a Pulumi ``Output`` of one checked as a ``T`` once
        its value is known (every :class:`~pulumi_dws.models.DwsModel` field works so; this
        says it in the type)."""

        def __class_getitem__(cls, item: Any) -> Any:
            return Annotated[item, _MAYBE_OUTPUT]


class _MaybeOutputMarker:
    def __repr__(self) -> str:
        return "MaybeOutput"


_MAYBE_OUTPUT = _MaybeOutputMarker()


@dataclass(frozen=True)
class Known:
    """The field's value decides what the component registers, so it must be known while the
    program runs: an Output there is refused with ``reason``. ``outputs_in_items``: only the
    list itself must be known (how many items, in what order); its items may be Outputs, each
    checked once known."""

    reason: str
    outputs_in_items: bool = False


@dataclass(frozen=True)
class Takes:
    """What users write in the field, as a Python type, where the validated type says less: a
    field whose own check decides (``Annotated[Any, Check(_reservation),
    Takes(CalendarReservation | str)]``) or whose values the type leaves open (labels). The
    generated args ``TypedDict`` s and the package schema read it
    (:mod:`pulumi_dws.package.python_types`, :mod:`pulumi_dws.package.introspect`)."""

    type: Any
    """The type, or an expression naming it as text (``"pulumi_gcp.vertex.AiEndpoint | str"``,
    the first name a module): a class of a Pulumi SDK written so is imported only when a tool
    reads it, since importing it loads its whole SDK package (``pulumi_gcp.vertex``)."""

    def resolve(self) -> Any:
        """The type (an expression evaluated, its module imported, now)."""
        if not isinstance(self.type, str):
            return self.type
        top = self.type.split(".", 1)[0].strip()
        return eval(self.type, {top: importlib.import_module(top)})  # noqa: S307 (our text)


@dataclass(frozen=True)
class Secret:
    """The field holds a secret (a token, a password): the package schema marks it secret, so
    other languages' SDKs send it as one, and the component provider never quotes its value
    in a message (:mod:`pulumi_dws.package`)."""


def _marked(validator: Any, **marks: Any) -> Any:
    """``validator`` whose function carries ``marks`` (``dws_choices``, ``dws_limits``...) for
    the tools that describe a field without running it (:mod:`pulumi_dws.package.introspect`)."""
    for key, value in marks.items():
        setattr(validator.func, f"dws_{key}", value)
    return validator


def _named(check: Callable[[str, Any], Any]) -> Callable[[Any, ValidationInfo], Any]:
    def run(value: Any, info: ValidationInfo) -> Any:
        return check(info.field_name or "value", value)

    return run


def Check(check: Callable[[str, Any], Any], *, before: bool = True) -> Any:  # noqa: N802
    """Run ``check(field, value)`` (its result is the field's value): ``before`` the field's
    type is checked (the check sees what the user wrote), or after."""
    validator = BeforeValidator if before else AfterValidator
    return validator(_named(check))


NAMED_ROWS: set[str] = set()
"""Every limits row a spec names (:func:`Within`, :func:`DurationWithin`), when its class is
defined; the row is looked up when a value is checked, so a test keeps each one known."""


def Within(key: str, *, minimum: int | None = None) -> Any:  # noqa: N802
    """A whole number inside limits row ``key`` (narrowed to ``minimum`` for this field);
    ``2.0`` from YAML is 2, ``"2"`` is refused."""
    NAMED_ROWS.add(key)
    check = Check(lambda field, value: limits.check_count(field, value, key, minimum=minimum))
    return _marked(check, limits=key, minimum=minimum)


def DurationWithin(key: str) -> Any:  # noqa: N802
    """A :class:`~pulumi_dws.duration.Duration` in any form, inside limits row ``key``."""
    NAMED_ROWS.add(key)
    return _marked(Check(lambda field, value: limits.check_duration(field, value, key)), limits=key)


def OneOf(choices: Collection[str], *, upper: bool = False) -> Any:  # noqa: N802
    """One of ``choices`` (compared upper-cased when ``upper``)."""
    allowed = tuple(choices)
    check = Check(
        lambda field, value: check_choice(field, value.upper() if upper else value, allowed),
        before=False,
    )
    return _marked(check, choices=allowed, upper=upper)


def Each(check: Callable[[str, Any], Any], *, at_least_one: str | None = None) -> Any:  # noqa: N802
    """``check`` on every item of a list, as ``field[i]``; ``at_least_one`` is the problem of
    an empty list (when one is refused)."""

    def run(field: str, items: Sequence[Any]) -> list[Any]:
        checked = [check(f"{field}[{i}]", item) for i, item in enumerate(items)]
        if at_least_one is not None and not checked:
            raise DwsValidationError(field, list(items), at_least_one)
        return checked

    return Check(run, before=False)


def _labels(field: str, value: Any) -> dict[str, Any]:
    if value is None:
        return {}
    return check_labels(field, value)


def _gpu_machine(field: str, value: Any) -> str:
    if not isinstance(value, str):
        raise DwsValidationError(
            field, value, "must be a plain string (it decides the GPU shape up front)"
        )
    catalog.machine_shape(field, value)
    return value


def _accelerator_machine(field: str, value: Any) -> str:
    if not isinstance(value, str):
        raise DwsValidationError(
            field, value, "must be a plain string (it decides the GPUs or TPU chips up front)"
        )
    if catalog.machine_accelerators(value) is None:
        raise DwsValidationError(
            field,
            value,
            "is not a known GPU or TPU machine type; use a GPU type (e.g. a3-highgpu-8g) or a "
            f"TPU type ({', '.join(catalog.tpu_machines())}), or pulumi_dws.catalog.register() it",
        )
    return value


def _location(field: str, value: str) -> str:
    region_of_location(field, value)
    return value


Name = Annotated[str, Check(check_name, before=False)]
"""An RFC 1035 name (``my-vm``): a lowercase letter, then letters, digits or hyphens."""
Zone = Annotated[str, Check(check_zone)]
"""A zone of the regions table (``us-central1-a``)."""
Zones = Annotated[list[str], Each(check_zone, at_least_one="must list at least one zone")]
"""A non-empty list of zones."""
Location = Annotated[str, Check(_location, before=False)]
"""A region or a zone, as GKE locations are."""
_TEXTS = Takes(Mapping[str, str | pulumi.Output[str]])
Labels = Annotated[dict[str, Any], Check(_labels), _TEXTS]
"""Google Cloud labels (keys and values of lowercase letters, digits, ``_`` and ``-``)."""
Metadata = Annotated[dict[str, Any], Check(check_metadata), _TEXTS]
"""VM metadata (keys of letters, digits, ``_`` and ``-``)."""
MetadataText = Annotated[dict[str, Any], Check(check_metadata_values), _TEXTS]
"""VM metadata whose values are strings (what the API sends; a number is refused)."""
ProjectId = Annotated[str, Check(check_project)]
"""A project id (``my-project``), the Compute API's pattern."""
Network = Annotated[str, Check(check_network)]
"""A VPC network name (``default``) or ``projects/P/global/networks/NAME``."""
Subnetwork = Annotated[str, Check(check_subnetwork)]
"""A subnetwork name or ``projects/P/regions/R/subnetworks/NAME``."""
Image = Annotated[str, Check(check_image)]
"""A boot image or image family (``projects/debian-cloud/global/images/family/debian-12``)."""
ServiceAccount = Annotated[str, Check(check_service_account)]
"""A service account email, or ``default``."""
GpuMachineType = Annotated[str, Check(_gpu_machine)]
"""A GPU machine type of the catalog (``a3-highgpu-8g``)."""
GpuOrHpcMachineType = Annotated[str, Check(catalog.calendar_machine)]
"""A GPU machine type of the catalog (``a3-highgpu-8g``) or an H4D machine type Google documents
(``h4d-highmem-192``): what Calendar mode reserves as VMs."""
AcceleratorMachineType = Annotated[str, Check(_accelerator_machine)]
"""A GPU or TPU machine type of the catalog (``a3-highgpu-8g``, ``ct6e-standard-4t``)."""
AcceleratorName = Annotated[
    str, Check(lambda field, value: catalog.accelerator(field, value).compute_name, before=False)
]
"""A GPU accelerator by its Compute or Vertex AI name, as its Compute name."""


def items_taking_outputs(metadata: Mapping[str, Sequence[Any]]) -> frozenset[str]:
    """The fields marked :class:`Known` whose items may be Outputs (``outputs_in_items``)."""
    return frozenset(
        name
        for name, items in metadata.items()
        for marker in items
        if isinstance(marker, Known) and marker.outputs_in_items
    )


def field_reasons(metadata: Mapping[str, Sequence[Any]]) -> dict[str, str]:
    """``{field: reason}`` of the fields marked :class:`Known` (by their metadata)."""
    return {
        name: marker.reason
        for name, items in metadata.items()
        for marker in items
        if isinstance(marker, Known)
    }
