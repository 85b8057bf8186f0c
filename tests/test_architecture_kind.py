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
