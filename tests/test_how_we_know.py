"""The references the library cites can be checked: the README's "How we know" table covers
every component, and each citation names where to look (a URL, a repository file at a commit,
a seed), never a bare name."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pulumi_dws import limits

REPO = Path(__file__).resolve().parent.parent
README = (REPO / "README.md").read_text()
SOURCES = {p: p.read_text() for p in sorted((REPO / "components").rglob("*.py"))}
COMPONENTS = ("FlexStartInstance", "QueuedNodePool", "KueueQueue", "SlurmCluster")
COMPONENTS += ("CalendarReservation",)
LOCATOR = re.compile(r"https://\S+|[\w.-]+/[\w.-]+@[0-9a-f]{40}|\bseed 00\d")


def _section(title: str) -> str:
    start = README.index(title)
    end = README.find("\n## ", start + 1)
    return README[start : end if end != -1 else None]


def test_the_readme_says_how_we_know_each_component() -> None:
    table = _section("## How we know")
    rows = [line for line in table.splitlines() if line.startswith("| `")]
    for component in COMPONENTS:
        assert any(row.startswith(f"| `{component}`") for row in rows), component
    for row in rows:
        references = row.split(" | ")[1]
        assert LOCATOR.search(references) or "gcloud" in references or "[^" in references, row
    cited = set(re.findall(r"\[\^(\w+)\](?!:)", table))
    defined = dict(re.findall(r"^\[\^(\w+)\]: (.*)$", table, re.M))
    assert cited and cited == set(defined)
    for note in defined.values():
        assert re.search(r"`[\w.-]+/[\w.-]+`.* commit `[0-9a-f]{40}`", note), note


@pytest.mark.parametrize(
    ("needle", "locator"),
    [
        ("ModelDevelopmentCluster.yaml", re.compile(r"0ab2d4ad")),
        ("10.5.0", re.compile(r"pulumi\.com/registry/packages/gcp/api-docs/vertex/")),
    ],
)
def test_citations_of_the_cluster_definition_name_where_to_look(
    needle: str, locator: re.Pattern[str]
) -> None:
    """magic-modules' ModelDevelopmentCluster.yaml is cited at a commit, pulumi-gcp 10.5.0 with
    its registry page: both exist publicly, and now say where."""
    texts = {**SOURCES, REPO / "README.md": README}
    found = 0
    for path, text in texts.items():
        for match in re.finditer(re.escape(needle), text):
            found += 1
            around = text[max(0, match.start() - 400) : match.end() + 400]
            assert locator.search(around), f"{path.name}: {needle} cited without a locator"
    assert found


@pytest.mark.parametrize(
    "key",
    [
        "flex_start.max_run_duration",
        "slurm.flex_start_max_duration",
        "slurm.display_name_length",
        "slurm.cluster_id_length",
    ],
)
def test_the_rows_this_issue_decided_cite_checkable_sources(key: str) -> None:
    assert LOCATOR.search(limits.get(key).source), limits.get(key).source
