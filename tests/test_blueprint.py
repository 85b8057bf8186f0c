"""The config-driven blueprint: validation of the whole dws:capacity before anything exists."""

from __future__ import annotations

from typing import Any

import pytest

from pulumi_dws import limits
from pulumi_dws.blueprint import KINDS, deploy, validate_capacity
from pulumi_dws.errors import DwsValidationError
from pulumi_dws.testing import GcpMocks

BLOCK = {
    "zone": "us-central1-a",
    "machine_type": "a3-highgpu-8g",
    "count": 1,
    "start_time": "+4w",
    "duration": "7d",
}


def test_every_kind_of_the_library_is_declarable() -> None:
    assert set(KINDS) >= {
        "calendar_reservations",
        "flex_start_vms",
        "queued_node_pools",
        "kueue_queues",
        "slurm_clusters",
    }
    for kind in KINDS.values():
        component, spec = kind.load()
        assert component.__name__ and spec.__name__


@pytest.mark.parametrize(
    ("capacity", "message"),
    [
        ({"reservations": []}, "dws:capacity.reservations: reservations is not a capacity kind"),
        ({"calendar_reservations": {"name": "x"}}, "must be a list of entries"),
        (
            {"calendar_reservations": [dict(BLOCK)]},
            "calendar_reservations[0].name: (missing) every entry needs a name",
        ),
        (
            {"calendar_reservations": [{"name": "a", **BLOCK}, {"name": "a", **BLOCK}]},
            "calendar_reservations[1].name: a is used twice",
        ),
        (
            {
                "calendar_reservations": [
                    {"name": "a", **BLOCK},
                    {"name": "b", **BLOCK, "count": -1},
                ]
            },
            "dws:capacity.calendar_reservations[1].count: -1 is below",
        ),
        (
            {"calendar_reservations": [{"name": "Bad", **BLOCK}]},
            "calendar_reservations[0].name: Bad is not a valid",
        ),
    ],
)
def test_bad_config_names_the_entry_and_registers_nothing(
    capacity: dict[str, Any], message: str
) -> None:
    mocks = GcpMocks()
    with pytest.raises(DwsValidationError) as err:
        mocks.run(lambda: deploy(capacity))
    assert message in str(err.value)
    assert mocks.registered == []


def test_deploys_one_component_per_entry_in_order() -> None:
    mocks = GcpMocks()
    built = mocks.run(
        lambda: deploy({"calendar_reservations": [{"name": "a", **BLOCK}, {"name": "b", **BLOCK}]})
    )
    assert sorted(built) == ["calendar_reservations/a", "calendar_reservations/b"]
    assert sorted(r.name for r in mocks.resources("dws:index:CalendarReservation")) == ["a", "b"]


def test_stack_limits_override_applies_to_the_blueprint() -> None:
    long = {"calendar_reservations": [{"name": "a", **BLOCK, "duration": "100d"}]}
    with pytest.raises(DwsValidationError, match="100d is above"):
        validate_capacity(long)
    limits.apply_config({"calendar.duration": {"maximum": "120d"}})
    assert [e.name for e in validate_capacity(long)] == ["a"]
