"""Errors that say what happened: typos with a suggestion (before "is required"), values quoted
when they could be misread, plain words instead of pydantic's or Python's class names, no
Output reprs, and allowed ranges that match what is enforced."""

from __future__ import annotations

import copy
import re
from collections.abc import Iterator
from typing import Any

import pulumi
import pytest
from test_outputs import FULL

from pulumi_dws.blueprint import validate_capacity
from pulumi_dws.errors import DwsValidationError
from pulumi_dws.kinds.calendar.component import CalendarReservationSpec
from pulumi_dws.kinds.compute_class.spec import ComputeClassSpec
from pulumi_dws.kinds.flex_vm.component import FlexStartInstanceSpec
from pulumi_dws.kinds.kueue.component import KueueQueueSpec
from pulumi_dws.kinds.node_pool.component import QueuedNodePoolSpec
from pulumi_dws.kinds.slurm.component import SlurmClusterSpec
from pulumi_dws.models import parse_args
from pulumi_dws.testing import GcpMocks
from pulumi_dws.testing.event_loop import fresh_event_loop

SPECS: dict[str, Any] = {
    "FlexStartInstance": FlexStartInstanceSpec,
    "CalendarReservation": CalendarReservationSpec,
    "QueuedNodePool": QueuedNodePoolSpec,
    "KueueQueue": KueueQueueSpec,
    "KueueQueue with flavors": KueueQueueSpec,
    "KueueQueue merging": KueueQueueSpec,
    "ComputeClass": ComputeClassSpec,
    "SlurmCluster": SlurmClusterSpec,
}
# A required argument of each component, misspelt.
TYPOS = {
    "FlexStartInstance": ("max_run_duration", "max_run_duraton"),
    "CalendarReservation": ("machine_type", "machine_tpye"),
    "QueuedNodePool": ("max_nodes", "max_node"),
    "KueueQueue": ("namespaces", "namespace"),
    "SlurmCluster": ("display_name", "displayname"),
}
# What a message must never show: pydantic's words, Python's type names, an object repr.
LEAKS = re.compile(
    r"NoneType|_SlurmLoginSpec|_SlurmNodePoolSpec|_TaintSpec|_RetryStrategySpec|Spec\b|Input should|instance of|"
    r"object at 0x|Output object|pydantic|<class"
)


def _error(spec: Any, args: Any) -> DwsValidationError:
    with pytest.raises(DwsValidationError) as info:
        parse_args(spec, args)
    return info.value


@pytest.mark.parametrize("kind", sorted(TYPOS))
def test_a_misspelt_argument_is_a_typo_with_a_suggestion_before_missing_required(kind: str) -> None:
    right, wrong = TYPOS[kind]
    args = dict(FULL[kind][1])
    args[wrong] = args.pop(right)
    err = _error(SPECS[kind], args)
    assert str(err) == f"{wrong}: unknown argument; did you mean {right}?"


def test_typos_in_nested_arguments_name_their_path() -> None:
    args = copy.deepcopy(FULL["SlurmCluster"][1])
    args["node_pools"][0]["max_node"] = args["node_pools"][0].pop("max_nodes")
    assert str(_error(SlurmClusterSpec, args)) == (
        "node_pools[0].max_node: unknown argument; did you mean max_nodes?"
    )
    args = copy.deepcopy(FULL["SlurmCluster"][1])
    args["login"]["machinetype"] = args["login"].pop("machine_type")
    assert str(_error(SlurmClusterSpec, args)) == (
        "login.machinetype: unknown argument; did you mean machine_type?"
    )


def test_an_unknown_argument_far_from_any_lists_the_known_ones() -> None:
    args = {**FULL["FlexStartInstance"][1], "colour": "blue"}
    message = str(_error(FlexStartInstanceSpec, args))
    assert message.startswith(
        "colour: unknown argument; known: zone, machine_type, max_run_duration"
    )


def test_blueprint_entries_and_kinds_get_typo_suggestions() -> None:
    entry = {"name": "trainer", **FULL["FlexStartInstance"][1]}
    entry["max_run_duraton"] = entry.pop("max_run_duration")
    with pytest.raises(DwsValidationError) as info:
        validate_capacity({"flex_start_vms": [entry]})
    assert str(info.value) == (
        "dws:capacity.flex_start_vms[0].max_run_duraton: unknown argument; "
        "did you mean max_run_duration?"
    )
    with pytest.raises(DwsValidationError) as info:
        validate_capacity({"flex_start_vm": []})
    assert str(info.value).startswith(
        "dws:capacity.flex_start_vm: is not a capacity kind; did you mean flex_start_vms?"
    )


@pytest.mark.parametrize(
    ("kind", "changes", "expected"),
    [
        ("CalendarReservation", {"count": "2"}, 'count: "2" must be a whole number'),
        ("QueuedNodePool", {"max_nodes": "4"}, 'max_nodes: "4" must be a whole number'),
        ("FlexStartInstance", {"boot_disk_size_gb": "200"}, 'boot_disk_size_gb: "200" must be'),
        ("KueueQueue", {"gpu_quota": "8"}, 'gpu_quota: "8" must be a whole number'),
        ("FlexStartInstance", {"instance_name": 5}, "instance_name: 5 must be a string"),
        ("FlexStartInstance", {"termination_action": "KEEP"}, "use one of STOP, DELETE"),
        ("SlurmCluster", {"login": None}, "login: None must be a mapping of arguments (zone, "),
        ("SlurmCluster", {"login": "us-central1-b"}, "login: us-central1-b must be a mapping"),
        ("KueueQueue", {"node_pool": None}, "node_pool: None must be a QueuedNodePool"),
        ("FlexStartInstance", {"labels": 3}, "labels: 3 must be a mapping"),
        ("QueuedNodePool", {"node_locations": "us-central1-a"}, "node_locations: us-central1-a must be a list"),
        ("QueuedNodePool", {"labels": {"team": None}}, "labels[team]: None must be a string"),
    ],
)  # fmt: skip
def test_messages_quote_misreadable_values_and_use_plain_words(
    kind: str, changes: dict[str, Any], expected: str
) -> None:
    message = str(_error(SPECS[kind], {**FULL[kind][1], **changes}))
    assert message.startswith(expected) or expected in message, message
    assert not LEAKS.search(message), message


@pytest.mark.parametrize(
    ("kind", "changes"),
    [
        ("CalendarReservation", {"count": 2.0}),
        ("QueuedNodePool", {"max_nodes": 4.0, "disk_size_gb": 200.0}),
        ("FlexStartInstance", {"boot_disk_size_gb": 200.0, "max_run_duration": 7200.0}),
        ("SlurmCluster", {"node_pools": [{"id": "a3u", "machine_type": "a3-ultragpu-8g", "max_nodes": 2.0}]}),
    ],
)  # fmt: skip
def test_whole_numbers_written_as_floats_are_accepted(kind: str, changes: dict[str, Any]) -> None:
    parse_args(SPECS[kind], {**FULL[kind][1], **changes})


def test_a_fraction_is_not_a_whole_number() -> None:
    assert str(
        _error(CalendarReservationSpec, {**FULL["CalendarReservation"][1], "count": 2.5})
    ) == ("count: 2.5 must be a whole number")


def _fuzz_cases() -> Iterator[tuple[str, tuple[Any, ...], Any]]:
    odd_values = [None, 3.5, [], {}, "x", object(), True, -1, "2"]
    for kind, (_, args) in FULL.items():
        stack: list[tuple[tuple[Any, ...], Any]] = [((), args)]
        while stack:
            loc, value = stack.pop()
            if loc:
                for odd in odd_values:
                    yield kind, loc, odd
            if isinstance(value, dict):
                stack.extend(((*loc, k), v) for k, v in value.items())
            elif isinstance(value, list):
                stack.extend(((*loc, i), v) for i, v in enumerate(value))


def test_no_bad_value_anywhere_gets_a_leaky_message_or_a_crash() -> None:
    """Every argument path of every component, with values of every wrong kind: the answer is
    accepted or a DwsValidationError in plain words, never a TypeError or a class name."""
    leaks = []
    for kind, loc, odd in _fuzz_cases():
        args = copy.deepcopy(FULL[kind][1])
        holder: Any = args
        for part in loc[:-1]:
            holder = holder[part]
        holder[loc[-1]] = odd
        try:
            parse_args(SPECS[kind], args)
        except DwsValidationError as err:
            if LEAKS.search(str(err)):
                leaks.append(str(err))
    assert not leaks, leaks[:5]


def test_an_output_with_a_bad_value_fails_the_run_with_the_arguments_path() -> None:
    cases = [
        ("FlexStartInstance", ("zone",), "us-central1-z", "zone: us-central1-z is not a zone of us-central1"),
        ("CalendarReservation", ("count",), "2", 'count: "2" must be a whole number'),
        ("FlexStartInstance", ("labels", "team"), "ML", "labels[team]: ML is not a valid label value"),
        ("SlurmCluster", ("login", "count"), 0, "login.count: 0 is below the Slurm node pool node count minimum of 1"),
        ("SlurmCluster", ("node_pools", 0, "zone"), "us-east1-b", "node_pools[0].zone: us-east1-b is not in region us-central1"),
        ("QueuedNodePool", ("node_locations", 0), "europe-west4-a", "node_locations[0]: europe-west4-a is not in region us-central1"),
        ("FlexStartInstance", ("max_run_duration",), "8d", "max_run_duration: 8d is above"),
    ]  # fmt: skip
    for kind, loc, bad, expected in cases:
        component, args = FULL[kind]
        args = copy.deepcopy(args)
        holder: Any = args
        for part in loc[:-1]:
            holder = holder[part]
        holder[loc[-1]] = pulumi.Output.from_input(bad)
        fresh_event_loop()
        with pytest.raises(DwsValidationError) as info:
            GcpMocks().run(lambda c=component, a=args: c("x", a))
        assert str(info.value).startswith(expected), (kind, str(info.value))
        assert not LEAKS.search(str(info.value))


def test_an_output_where_the_value_decides_the_shape_is_refused_with_the_reason() -> None:
    args = {**FULL["QueuedNodePool"][1], "machine_type": pulumi.Output.from_input("a3-highgpu-8g")}
    assert str(_error(QueuedNodePoolSpec, args)) == (
        "machine_type: must be known when the program runs, not an Output: it decides the "
        "pool's GPUs or TPU chips"
    )
    args = {**FULL["CalendarReservation"][1], "start_time": pulumi.Output.from_input("+4w")}
    with pytest.raises(
        DwsValidationError,
        match=r"^start_time: must be known when the program runs, not an Output: a relative start \(\+28d\)",
    ):
        GcpMocks().run(lambda: FULL["CalendarReservation"][0]("x", args))


def test_slurm_max_nodes_messages_state_the_range_enforced() -> None:
    """A pool's max_nodes is 1 to 1000: both ends say so (0 is not "allowed: 0 to 1000")."""
    for bad, start in [(0, "0 is below"), (5000, "5000 is above")]:
        args = copy.deepcopy(FULL["SlurmCluster"][1])
        args["node_pools"][0]["max_nodes"] = bad
        message = str(_error(SlurmClusterSpec, args))
        assert message.startswith(f"node_pools[0].max_nodes: {start}"), message
        assert message.endswith("allowed: 1 to 1000"), message
    args = copy.deepcopy(FULL["SlurmCluster"][1])
    args["node_pools"][0]["min_nodes"] = 0  # a static minimum of 0 is still fine
    parse_args(SlurmClusterSpec, args)


def test_show_never_prints_an_object_repr() -> None:
    from pulumi_dws.errors import show

    class Odd:
        pass

    assert show(Odd()) == "an object of type Odd"
    assert show(pulumi.Output.from_input("x")) == "an Output"
    assert show("2") == '"2"' and show("2.5") == '"2.5"' and show("true") == '"true"'
    assert show("us-central1") == "us-central1" and show("") == '""'


def test_a_nested_models_own_rule_names_the_field_under_its_path() -> None:
    args = {**FULL["KueueQueue"][1], "retry_strategy": {"backoff_base_seconds": 5000}}
    assert str(_error(KueueQueueSpec, args)) == (
        "retry_strategy.backoff_base_seconds: 5000 is above backoff_max_seconds (1800)"
    )
