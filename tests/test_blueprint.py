"""The config-driven blueprint: validation of the whole dws:capacity before anything exists."""

from __future__ import annotations

import typing
from typing import Any

import pulumi
import pytest
from component_helpers import stack_default

from pulumi_dws import limits, registry
from pulumi_dws.blueprint import capacity_model, deploy, validate_capacity
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


# ---------------------------------------------------------------------------- the config model
def test_the_config_model_is_built_from_the_registry() -> None:
    model = capacity_model()
    kinds = registry.kinds_by_key()
    assert list(model.model_fields) == list(kinds)
    for key, kind in kinds.items():
        field = model.model_fields[key]
        assert not field.is_required()
        (entry,) = typing.get_args(field.annotation)
        assert issubclass(entry, kind.spec)
        assert set(entry.model_fields) == {*kind.spec.model_fields, "name"}
        assert entry.model_fields["name"].is_required()
    assert capacity_model() is model  # built once while the registry is unchanged


@pytest.mark.parametrize(
    ("capacity", "message"),
    [
        (
            {"calendar_reservations": ["h100"]},
            "dws:capacity.calendar_reservations[0]: h100 must be a mapping of arguments (zone, ",
        ),
        (
            {"calendar_reservations": [{"name": 5, **BLOCK}]},
            "dws:capacity.calendar_reservations[0].name: 5 must be a string",
        ),
        (
            {"calendar_reservations": [{"name": "a", **BLOCK, "end_time": "2027-03-01T00:00:00Z"}]},
            "dws:capacity.calendar_reservations[0].end_time: 2027-03-01T00:00:00Z give exactly one",
        ),
        (
            {"calendar_reservations": [{"name": "a", **BLOCK, "count": 0}], "kueue_queues": 3},
            "dws:capacity.calendar_reservations[0].count: 0 is below",
        ),
        (
            {"kueue_queues": 3, "calendar_reservations": [{"name": "a", **BLOCK, "count": 0}]},
            "dws:capacity.kueue_queues: 3 must be a list of entries",
        ),
        (
            {"calendar_reservations": [{"name": "a", **BLOCK}, {**BLOCK, "cuont": 1}]},
            "dws:capacity.calendar_reservations[1].name: (missing) every entry needs a name",
        ),
    ],
)
def test_the_first_problem_in_declaration_order_is_reported(
    capacity: dict[str, Any], message: str
) -> None:
    with pytest.raises(DwsValidationError) as err:
        validate_capacity(capacity)
    assert str(err.value).startswith(message), str(err.value)


def test_an_entry_name_must_be_known_while_an_argument_may_be_an_output() -> None:
    named = {"calendar_reservations": [{**BLOCK, "name": pulumi.Output.from_input("a")}]}
    mocks = GcpMocks()
    with pytest.raises(DwsValidationError) as err:
        mocks.run(lambda: deploy(named))
    assert str(err.value) == (
        "dws:capacity.calendar_reservations[0].name: must be known when the program runs, "
        "not an Output: it names the entry's component"
    )
    assert mocks.registered == []
    described = {
        "calendar_reservations": [
            {"name": "a", **BLOCK, "description": pulumi.Output.from_input("team block")}
        ]
    }
    mocks = GcpMocks()
    assert list(mocks.run(lambda: deploy(described))) == ["calendar_reservations/a"]
    assert mocks.one("gcp:compute/futureReservation:FutureReservation")


def test_queued_tpus_are_declared_under_their_key() -> None:
    mocks = GcpMocks(project="my-project")
    flex = {"zone": "us-east5-a", "accelerator_type": "v6e-16", "max_run_duration": "1d"}
    built = mocks.run(lambda: deploy({"queued_tpus": [{"name": "trainer", **flex}]}))
    assert sorted(built) == ["queued_tpus/trainer"]
    [resource] = mocks.resources("pulumi-python:dynamic/dws:QueuedTpu")
    assert resource.inputs["queuedResourceId"] == stack_default("trainer")
    with pytest.raises(DwsValidationError, match=r"queued_tpus\[0\].max_run_duration"):
        GcpMocks().run(
            lambda: deploy({"queued_tpus": [{"name": "t", **flex, "max_run_duration": "8d"}]})
        )
