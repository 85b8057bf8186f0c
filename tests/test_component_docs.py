"""The pages under docs/components/ are generated from the kind registry and the spec models:
the checked-in pages are what the generator writes now (a field, output, rule or docstring
changed without ``python scripts/generate.py`` fails here), each lists every argument and
output of its component, their examples run, and the docs link them."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, Literal

import pulumi
import pytest

import pulumi_dws
from pulumi_dws import registry
from pulumi_dws.fields import Known, Within
from pulumi_dws.models import DwsModel
from pulumi_dws.package.component_outputs import component_outputs
from pulumi_dws.package.components import ServedComponent, served_components
from pulumi_dws.package.docs import DIRECTORY, page, page_name, pages
from pulumi_dws.package.introspect import describe
from pulumi_dws.policy import Rule
from pulumi_dws.testing import GcpMocks

REPO = Path(__file__).resolve().parent.parent
PAGES = pages()
KINDS = served_components()


@pytest.mark.parametrize("path", sorted(PAGES))
def test_each_page_is_current(path: str) -> None:
    assert (REPO / path).read_text() == PAGES[path], (
        f"{path} is stale: run python scripts/generate.py"
    )


def test_every_page_under_docs_components_is_generated() -> None:
    assert {str(p.relative_to(REPO)) for p in (REPO / DIRECTORY).glob("*.md")} == set(PAGES)


def _rows(text: str, heading: str) -> list[str]:
    section = text.split(f"\n{heading}\n", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"^\| `([a-z_]+)` \|", section, re.M)


@pytest.mark.parametrize("kind", KINDS, ids=[k.name for k in KINDS])
def test_each_page_lists_every_argument_and_output(kind: ServedComponent) -> None:
    text = PAGES[f"{DIRECTORY}/{page_name(kind)}"]
    model = describe(kind.spec)
    assert _rows(text, "## Arguments")[: len(model.fields)] == [f.name for f in model.fields]
    assert _rows(text, "## Outputs") == [o.name for o in component_outputs(kind.component)]
    for rule in getattr(kind, "rules", ()):
        assert f"| `{rule.name}` | {rule.level} |" in text
    assert f"`{kind.args.__name__}`" not in text or kind.args.__name__ in pulumi_dws.__all__


BLOCKS = [
    (path, block)
    for path, text in sorted(PAGES.items())
    for block in re.findall(r"^```python\n(.*?)^```", text, re.S | re.M)
]


@pytest.mark.parametrize(("path", "code"), BLOCKS, ids=[p for p, _ in BLOCKS])
def test_each_example_on_a_page_runs(path: str, code: str) -> None:
    namespace = {name: getattr(pulumi_dws, name) for name in pulumi_dws.__all__}
    GcpMocks(project="my-project").run(lambda: exec(compile(code, path, "exec"), namespace))


def test_the_docs_link_the_pages() -> None:
    index = PAGES[f"{DIRECTORY}/README.md"]
    assert all(f"]({page_name(kind)})" in index for kind in KINDS)
    for doc in ("README.md", "docs/architecture.md"):
        text = (REPO / doc).read_text()
        assert "docs/components/README.md" in text or "components/README.md" in text, doc


# ---------------------------------------------------------------- a kind added later
class _GadgetSpec(DwsModel):
    """Arguments of a gadget.

    A gadget comes in parts."""

    size: Annotated[int, Within("compute.accelerator_count")]
    """How many parts."""
    mode: Literal["fast", "slow"] = "fast"
    shape: Annotated[str, Known("it decides what is registered")] = "box"


class Gadget(pulumi.ComponentResource):
    """A gadget."""

    count: pulumi.Output[int]
    """How many there are."""


def _never(*_: object) -> list[object]:
    return []


def test_a_kind_added_later_gets_its_page() -> None:
    kind = registry.CapacityKind(
        name="Gadget",
        component=Gadget,
        args=dict,  # unread: the page comes from the spec
        spec=_GadgetSpec,
        key="gadgets",
        rules=(Rule("gadget-size", "Gadgets are small.", "advisory", "resource", _never),),
    )
    text = page(kind)
    assert "| Python | `pulumi_dws.Gadget(name, args: GadgetArgs, opts=None)` |" in text
    assert "A gadget comes in parts." in text
    assert (
        "| `size` | integer | yes |  | 1 or 2 or 4 or 8 (limits row `compute.accelerator_count`) "
        "| How many parts. |"
    ) in text
    assert '| `mode` | string |  | `"fast"` | `fast`, `slow` |  |' in text
    assert "Known when the program runs (not an Output): it decides what is registered." in text
    assert "| `count` | integer | How many there are. |" in text
    assert "| `gadget-size` | advisory | Gadgets are small. |  |" in text
