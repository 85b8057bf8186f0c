"""docs/frontier-gpus.md cannot rot: its code blocks run, its tables say what the catalog and the
limits say, and the files and tests it names exist."""

from __future__ import annotations

import re
from pathlib import Path

from pulumi_dws import catalog, limits
from pulumi_dws.testing import GcpMocks

REPO = Path(__file__).resolve().parent.parent
DOC = REPO / "docs" / "frontier-gpus.md"
TEXT = DOC.read_text()


def blocks() -> list[tuple[str, str]]:
    return re.findall(r"^```(\w*)\n(.*?)^```", TEXT, re.S | re.M)


def test_every_block_is_python_and_registers_under_mocks() -> None:
    found = blocks()
    assert found and all(lang == "python" for lang, _ in found)
    for _, code in found:
        mocks = GcpMocks(project="my-project")
        mocks.run(lambda code=code: exec(code, {"__name__": "doc"}))
        assert mocks.resources("dws:index:FlexStartGroup")


def test_the_machine_table_says_what_the_catalog_says() -> None:
    section = TEXT.split("## What each machine type needs")[1].split("\n## ")[0]
    rows = {
        line.split("|")[1].strip(): [c.strip() for c in line.split("|")[2:-1]]
        for line in section.splitlines()
        if line.startswith("| ") and "`" in line.split("|")[1]
    }
    assert len(rows) >= 7
    for name, cells in rows.items():
        machine = re.search(r"`([a-z0-9-]+)", name)
        assert machine is not None, name
        series = catalog.series_of(machine.group(1))
        assert series is not None, name
        flex, resize, policy, nics = cells[0], cells[1], cells[2], cells[3]
        assert flex.startswith("yes" if series.flex_start else "no"), name
        if series.resize_requests is False:
            assert resize.startswith("no"), name
        if series.workload_policy == "accelerator_topology":
            assert "accelerator_topology" in policy and "1x72" in policy, name
        elif series.workload_policy == "max_topology_distance":
            assert "max_topology_distance" in policy, name
        if series.nics is not None:
            layout = series.nics
            assert f"{layout.gvnics} gVNIC + {layout.rdma} {layout.rdma_type}" in nics, name
            assert layout.profile in nics, name


def test_the_numbers_are_the_limits_rows() -> None:
    assert limits.get("calendar.count").maximum == 80 and "1 to 80" in TEXT
    assert limits.get("calendar.count_h4d").maximum == 256 and "up to 256" in TEXT
    assert limits.get("mig.zonal_group_size").maximum == 1000 and "1,000 VMs" in TEXT
    assert limits.get("mig.regional_group_size").maximum == 2000 and "2,000" in TEXT


def test_the_files_it_names_exist() -> None:
    for path in re.findall(r"`((?:tests|stacks|components)/[\w./-]+)`", TEXT):
        assert (REPO / path.rstrip("/")).exists(), path
