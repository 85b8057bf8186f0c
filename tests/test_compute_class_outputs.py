"""A ComputeClass priority's reservation may be a Pulumi Output (``gcp.compute.Reservation(...)
.name``, a shared reservation's path from another stack): only the name waits for its value
and is checked once known; every other rule of the class is checked at construction."""

from __future__ import annotations

from typing import Any

import pulumi
import pulumi_gcp as gcp
import pytest
from compute_class_helpers import validate_class

from pulumi_dws import ComputeClass
from pulumi_dws.errors import DwsValidationError
from pulumi_dws.testing import GcpMocks

CR = "kubernetes:cloud.google.com/v1:ComputeClass"
BASE = {"cluster": "ml-cluster", "location": "us-central1", "machine_type": "a3-ultragpu-8g",
        "zones": ["us-central1-b"]}  # fmt: skip
FLEX = {"capacity": "flex_start", "max_run_duration": "7d"}


def registered(reservation: Any, **priority: Any) -> dict[str, Any]:
    mocks = GcpMocks()

    def program() -> None:
        first = {"capacity": "reservation", "reservation": reservation(), **priority}
        ComputeClass("h200", {**BASE, "priorities": [first, FLEX]})  # type: ignore[typeddict-item]

    mocks.run(program)
    [resource] = mocks.resources(CR)
    manifest = {k: v for k, v in resource.inputs.items() if k != "__provider"}
    validate_class(manifest)
    return manifest["spec"]["priorities"][0]  # type: ignore[no-any-return]


def test_a_reservation_resources_name_is_the_priority_s_reservation() -> None:
    def reservation() -> Any:
        made = gcp.compute.Reservation(
            "h200-res",
            name="h200-res",
            zone="us-central1-b",
            specific_reservation={
                "count": 2,
                "instance_properties": {"machine_type": "a3-ultragpu-8g"},
            },
        )
        return made.name

    rule = registered(reservation, reservation_block="b1")
    assert rule["reservations"] == {
        "affinity": "Specific",
        "specific": [{"name": "h200-res", "reservationBlock": {"name": "b1"}}],
    }
    assert rule["machineType"] == "a3-ultragpu-8g"


def test_a_shared_reservations_path_once_known_gives_its_project() -> None:
    rule = registered(lambda: pulumi.Output.from_input("projects/owner-proj/reservations/r1"))
    assert rule["reservations"]["specific"] == [{"name": "r1", "project": "owner-proj"}]
    rule = registered(
        lambda: pulumi.Output.from_input("projects/owner-proj/reservations/r1"),
        reservation_project="other-proj",
    )
    assert rule["reservations"]["specific"] == [{"name": "r1", "project": "other-proj"}]


def test_a_bad_name_fails_the_run_once_known_naming_the_field() -> None:
    with pytest.raises(DwsValidationError) as info:
        registered(lambda: pulumi.Output.from_input("Not A Name"))
    assert info.value.field == "priorities[0].reservation", str(info.value)
    assert "is not a reservation name" in str(info.value)


def test_the_other_rules_are_still_checked_at_construction() -> None:
    """With the name unknown, a block on a machine without blocks, a sub-block without a
    block, and any other field given as an Output are refused before anything registers."""
    name = pulumi.Output.from_input("h200-res")
    l4 = {**BASE, "machine_type": "g2-standard-8"}
    cases: list[tuple[dict[str, Any], str, str]] = [
        ({**l4, "priorities": [{"capacity": "reservation", "reservation": name,
                                 "reservation_block": "b1"}]},
         "priorities[0].reservation_block", "only applies to A3 Ultra"),
        ({**BASE, "priorities": [{"capacity": "reservation", "reservation": name,
                                   "reservation_sub_block": "s1"}]},
         "reservation_sub_block", "needs reservation_block"),
        ({**BASE, "priorities": [{"capacity": "reservation", "reservation": name,
                                   "reservation_block": pulumi.Output.from_input("b1")}]},
         "priorities[0].reservation_block", "must be known when the program runs"),
        ({**BASE, "priorities": [{"capacity": "flex_start",
                                   "max_run_duration": pulumi.Output.from_input("7d")}]},
         "priorities[0].max_run_duration", "must be known when the program runs"),
        ({**BASE, "priorities": [pulumi.Output.from_input(FLEX)]},
         "priorities[0]", "must be known when the program runs"),
    ]  # fmt: skip
    for args, field, fragment in cases:
        mocks = GcpMocks()
        with pytest.raises(DwsValidationError) as info:
            mocks.run(lambda args=args: ComputeClass("h200", args))  # type: ignore[misc]
        assert info.value.field.endswith(field), (field, str(info.value))
        assert fragment in str(info.value), str(info.value)
        assert not mocks.resources(CR)


def test_a_reservation_output_on_another_capacity_is_refused_without_its_repr() -> None:
    with pytest.raises(DwsValidationError) as info:
        GcpMocks().run(
            lambda: ComputeClass(
                "h200",
                {**BASE, "priorities": [  # type: ignore[typeddict-item]
                    {"capacity": "spot", "reservation": pulumi.Output.from_input("r")}]},
            )
        )  # fmt: skip
    assert info.value.field == "priorities[0].reservation"
    assert "only applies to capacity reservation" in str(info.value)
    assert "Output" not in str(info.value)
