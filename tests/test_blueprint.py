"""The config-driven blueprint: validation of the whole dws:capacity before anything exists."""

from __future__ import annotations

from typing import Any

import pytest

from pulumi_dws import limits, registry
from pulumi_dws.blueprint import deploy, validate_capacity
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
    kinds = registry.kinds_by_key()
    assert set(kinds) >= {
        "calendar_reservations",
        "flex_start_vms",
        "queued_node_pools",
        "kueue_queues",
        "slurm_clusters",
    }
    for kind in kinds.values():
        assert kind.component.__name__ == kind.name and kind.spec.__name__


@pytest.mark.parametrize(
    ("capacity", "message"),
    [
        ({"reservations": []}, "dws:capacity.reservations: is not a capacity kind; use one of"),
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


POOL = {
    "name": "a3-queued",
    "cluster": "ml-cluster",
    "location": "us-central1",
    "machine_type": "a3-highgpu-8g",
    "max_nodes": 4,
}
QUEUE = {
    "name": "dws",
    "node_pool": "a3-queued",
    "gpu_quota": 32,
    "namespaces": ["default"],
    "cluster": "ml-cluster",
    "location": "us-central1",
}


@pytest.mark.parametrize(
    ("queue", "pool", "message"),
    [
        ({"node_pool": "a3-queue"}, {}, "dws:capacity.kueue_queues[0].node_pool: a3-queue names no node pool declared in dws:capacity.queued_node_pools (declared: a3-queued); did you mean a3-queued?"),
        ({"node_pool": "other"}, {}, "node_pool: other names no node pool declared"),
        ({"cluster": "other-cluster"}, {}, "kueue_queues[0].cluster: other-cluster differs from the cluster of node pool a3-queued (dws:capacity.queued_node_pools[0]: ml-cluster)"),
        ({}, {"mode": "flex_start"}, "kueue_queues[0].node_pool: a3-queued is in mode flex_start; ProvisioningRequests need a pool in mode queued"),
    ],
)  # fmt: skip
def test_a_kueue_queue_must_reference_a_declared_pool(
    queue: dict[str, Any], pool: dict[str, Any], message: str
) -> None:
    capacity = {"queued_node_pools": [{**POOL, **pool}], "kueue_queues": [{**QUEUE, **queue}]}
    mocks = GcpMocks()
    with pytest.raises(DwsValidationError) as err:
        mocks.run(lambda: deploy(capacity))
    assert message in str(err.value)
    assert mocks.registered == []


def test_a_queue_may_come_before_the_pool_it_names() -> None:
    capacity = {"kueue_queues": [dict(QUEUE)], "queued_node_pools": [dict(POOL)]}
    assert [e.name for e in validate_capacity(capacity)] == ["dws", "a3-queued"]
