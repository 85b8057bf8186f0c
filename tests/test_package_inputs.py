"""From ``Construct`` inputs (the schema's spelling) to a component's Python args, and from the
Python API's errors to what the caller reads (``pulumi_dws.package.construct``)."""

from __future__ import annotations

from typing import Any

import pytest
from pulumi.runtime import rpc

from pulumi_dws import registry
from pulumi_dws.errors import NO_VALUE, DwsValidationError
from pulumi_dws.package.construct import problem_of, python_args, secret_fields
from pulumi_dws.package.introspect import describe


def _model(key: str) -> Any:
    kind = registry.kind(key)
    assert kind is not None
    return describe(kind.spec)


def test_inputs_become_the_python_apis_args() -> None:
    args = python_args(
        _model("slurm_clusters"),
        {
            "displayName": "c",
            "login": {"machineType": "n2-standard-8", "zone": "us-central1-b"},
            "nodePools": [{"id": "a", "machineType": "a3-ultragpu-8g", "maxNodes": 2.0}],
            "labels": {"costCenter": "ml"},  # a map: its keys stay as written
        },
    )
    assert args == {
        "display_name": "c",
        "login": {"machine_type": "n2-standard-8", "zone": "us-central1-b"},
        "node_pools": [{"id": "a", "machine_type": "a3-ultragpu-8g", "max_nodes": 2}],
        "labels": {"costCenter": "ml"},
    }
    assert isinstance(args["node_pools"][0]["max_nodes"], int)


def test_a_secret_keeps_its_wrapper_and_its_insides_are_renamed() -> None:
    args = python_args(
        _model("slurm_clusters"),
        {"login": rpc.wrap_rpc_secret({"machineType": "n2-standard-8", "zone": "z"})},
    )
    assert args["login"] == rpc.wrap_rpc_secret({"machine_type": "n2-standard-8", "zone": "z"})


@pytest.mark.parametrize(
    ("inputs", "message"),
    [
        ({"maxRunDuraton": "1d"}, "maxRunDuraton: unknown argument; did you mean maxRunDuration?"),
        (
            {"max_run_duration": "1d"},  # the Python spelling is not the schema's
            "max_run_duration: unknown argument; did you mean maxRunDuration?",
        ),
        ({"login": {"zonee": "z"}}, "login.zonee: unknown argument; did you mean zone?"),
    ],
)
def test_a_property_the_schema_lacks_is_refused(inputs: dict[str, Any], message: str) -> None:
    key = "slurm_clusters" if "login" in inputs else "queued_tpus"
    with pytest.raises(DwsValidationError) as info:
        python_args(_model(key), inputs)
    assert str(info.value) == message


def test_an_error_reads_in_the_callers_spelling() -> None:
    problem = problem_of(DwsValidationError("node_pools[1].max_nodes", 0, "is below 1"))
    assert (problem.path, problem.message) == (
        "nodePools[1].maxNodes",
        "nodePools[1].maxNodes: 0 is below 1",
    )
    assert problem.reason == "0 is below 1"
    keyed = problem_of(DwsValidationError("labels key", "Team", "is not a valid label key"))
    assert (keyed.path, keyed.message) == ("labels", "labels key: Team is not a valid label key")
    config = problem_of(DwsValidationError("dws:limits", NO_VALUE, "is not a mapping"))
    assert (config.path, config.message) == ("", "dws:limits: is not a mapping")


def test_a_secret_is_never_in_the_message() -> None:
    err = DwsValidationError(
        "zone", "us-hidden9-a", "is not a Google Cloud zone: there is no region us-hidden9"
    )
    by_path = problem_of(err, secret_paths=["zone"], secret_values=["us-hidden9-a"])
    assert by_path.message == (
        "zone: [secret] is not a Google Cloud zone: there is no region [secret]"
    )
    by_value = problem_of(err, secret_values=["us-hidden9-a"])
    assert "hidden" not in by_value.message
    nested = problem_of(
        DwsValidationError("login.zone", "x", "bad"), secret_paths=["login"], secret_values=[]
    )
    assert nested.message == "login.zone: [secret] bad"
    items = problem_of(
        DwsValidationError("node_pools[3].id", "x", "bad"), secret_paths=["node_pools[*].id"]
    )
    assert items.message == "nodePools[3].id: [secret] bad"
    assert problem_of(err).message.startswith("zone: us-hidden9-a")  # not secret: shown


def test_fields_marked_secret_are_found_under_lists() -> None:
    from typing import Annotated

    from pulumi_dws.fields import Secret
    from pulumi_dws.models import DwsModel

    class _Key(DwsModel):
        value: Annotated[str, Secret()]

    class _Spec(DwsModel):
        token: Annotated[str, Secret()] | None = None
        keys: list[_Key] = []

    assert list(secret_fields(describe(_Spec))) == ["token", "keys[*].value"]


def test_an_output_is_spelled_as_python_once_known() -> None:
    """A value another resource gives (an Output) is renamed and its whole numbers made ints
    once it is known, as a value given as itself."""
    import pulumi

    from pulumi_dws.testing import GcpMocks

    def program() -> Any:
        args = python_args(
            _model("slurm_clusters"),
            {
                "homeFilestore": pulumi.Output.from_input(
                    {"tier": "BASIC_SSD", "capacityGb": 2560.0}
                )
            },
        )
        return args["home_filestore"]

    value = GcpMocks().run(program)
    assert value == {"tier": "BASIC_SSD", "capacity_gb": 2560}
    assert isinstance(value["capacity_gb"], int)
