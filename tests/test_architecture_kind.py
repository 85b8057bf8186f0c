"""docs/architecture.md's worked example of a kind's declaration is the code's own: the block
is run and must build the very declaration ``CalendarReservation`` registers."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

from pulumi_dws.kinds.calendar import kind

PAGE = Path(__file__).resolve().parent.parent / "docs" / "architecture.md"


def test_the_worked_example_is_the_calendar_declaration() -> None:
    blocks = re.findall(r"^ *```python\n(.*?)^ *```", PAGE.read_text(), re.S | re.M)
    example = [b for b in blocks if b.lstrip().startswith("KIND = register(")]
    assert len(example) == 1
    code = "\n".join(line.removeprefix("   ") for line in example[0].splitlines())
    namespace = {name: getattr(kind, name) for name in dir(kind) if name != "KIND"}
    namespace["register"] = lambda declared: declared  # the kind is registered already
    exec(code, namespace)
    assert namespace["KIND"] == kind.KIND
    assert namespace["KIND"] != dataclasses.replace(kind.KIND, key="other")


def test_a_kind_may_not_declare_a_type_another_kind_reads() -> None:
    """The registry reads a type token with one declaration: a new kind declaring a type an
    existing kind already declares (gcp.compute.ResourcePolicy, a FlexStartGroup's workload
    policy) would have its reader, mocks behaviour and summary silently ignored. It is refused,
    naming both, and nothing of the new kind is registered."""
    import pytest

    from pulumi_dws import registry

    registry.kinds()  # every built-in kind registered
    taken = "gcp:compute/resourcePolicy:ResourcePolicy"
    owner = registry.resource_type(taken, by_name=False)
    assert owner is not None
    newcomer = dataclasses.replace(
        kind.KIND,
        name="PlacementPolicy",
        key="placement_policies",
        resources=(registry.ResourceType("placement_policy", types=(taken,)),),
    )
    with pytest.raises(ValueError, match=f"{taken} is declared twice.*{owner.kind}"):
        registry.register(newcomer)
    assert all(k.key != "placement_policies" for k in registry.kinds())
    assert registry.resource_type(taken, by_name=False) is owner
