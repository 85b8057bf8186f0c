"""The pages under docs/ about the TPU doors, the emulator as a tool, ``pulumi destroy`` and the
``pulumi new`` template: every code block is run or checked, the door table is the catalog's,
and the template plans cleanly."""

from __future__ import annotations

import re
import shlex
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from pulumi_dws.catalog.availability import DOORS, TPU_ZONES
from pulumi_dws.cli import main
from pulumi_dws.testing import GcpMocks

REPO = Path(__file__).resolve().parent.parent
PAGES = ("tpu-doors.md", "emulator-tool.md", "destroy.md", "templates.md")
TEMPLATE = REPO / "templates" / "dws-blueprint"


def blocks(page: str) -> list[tuple[str, str]]:
    text = (REPO / "docs" / page).read_text()
    return [(m[1], m[2]) for m in re.finditer(r"^```(\w*)\n(.*?)^```", text, re.S | re.M)]


def run_python(code: str) -> None:
    GcpMocks(project="my-project").run(lambda: exec(compile(code, "<docs>", "exec"), {}))


def run_dws(code: str) -> None:
    for line in code.splitlines():
        argv = shlex.split(line.split("#")[0])
        if argv[:2] == ["dws", "emulator"]:  # a server: its flags are checked, not served
            from pulumi_dws.cli import _capacity_spec

            for flag, value in zip(argv, argv[1:], strict=False):
                if flag == "--capacity":
                    _capacity_spec(value)
            continue
        assert argv[0] == "dws" and main(argv[1:]) == 0, line


def new_from_template(tmp_path: Path) -> Path:
    """What ``pulumi new ./templates/dws-blueprint --dir my-capacity`` leaves, plus the stack
    file it writes for the answers."""
    target = tmp_path / "my-capacity"
    shutil.copytree(TEMPLATE, target)
    project = target / "Pulumi.yaml"
    text = project.read_text().replace("${PROJECT}", "my-capacity")
    project.write_text(text.replace("${DESCRIPTION}", "DWS capacity"))
    (target / "Pulumi.dev.yaml").write_text("config:\n  gcp:project: my-project\n")
    return target


CHECKS: dict[str, Callable[[str], None]] = {
    "from pulumi_dws import catalog": run_python,
    "dws emulator": run_dws,
    "dws emulate": run_dws,
    "from pulumi_dws.testing.emulated import emulate": lambda code: exec(code, {}),
    "dws plan --stack dev": lambda code: None,  # the root project: planned in test_docs
    "from pulumi_dws import CalendarReservation": run_python,
    "pulumi new ./templates/dws-blueprint": lambda code: None,  # new_from_template below
    "dws plan my-capacity --stack dev": lambda code: None,  # test_the_template_plans
}


def _check_for(code: str) -> str:
    found = [k for k in CHECKS if code.startswith(k)]
    assert len(found) == 1, (code, found)
    return found[0]


ALL = [(page, code) for page in PAGES for _, code in blocks(page)]


def test_every_block_of_these_pages_is_checked() -> None:
    assert sorted(_check_for(code) for _, code in ALL) == sorted(CHECKS)


@pytest.mark.parametrize(("page", "code"), ALL, ids=[f"{p}:{i}" for i, (p, _) in enumerate(ALL)])
def test_block(page: str, code: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)
    CHECKS[_check_for(code)](code)


def test_the_door_table_is_the_catalogs() -> None:
    text = (REPO / "docs" / "tpu-doors.md").read_text()
    rows = [line for line in text.splitlines() if line.startswith("| ") and "`" in line]
    expected = [
        f"| {DOORS[r.door]} | {r.generation}{f' {r.workload}' if r.workload else ''} | "
        f"{', '.join(r.zones)} | `{r.key}` | {r.source} |"
        for r in TPU_ZONES
    ]
    assert rows == expected


def test_the_template_is_a_pulumi_new_template_that_plans(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    raw = yaml.safe_load((TEMPLATE / "Pulumi.yaml").read_text())
    assert raw["template"]["description"] and "gcp:project" in raw["template"]["config"]
    assert raw["name"] == "${PROJECT}"
    project = new_from_template(tmp_path)
    assert main(["plan", str(project), "--stack", "dev"]) == 0, capsys.readouterr().err
    out = capsys.readouterr().out
    assert "trainers-request" in out and "v6e-flex-queued-resource" in out
    assert "Policies: no violations" in out


def test_the_ci_workflow_finds_the_policy_config_the_repository_ships() -> None:
    workflow = yaml.safe_load((REPO / ".github" / "workflows" / "dws-policy.yml").read_text())
    for job in ("plan", "preview"):
        steps = [
            s
            for s in workflow["jobs"][job]["steps"]
            if "policy/config/$STACK.json" in s.get("run", "")
        ]
        assert steps, job
        for step in steps:
            assert (REPO / "policy" / "config" / f"{step['env']['STACK']}.json").is_file()


def test_the_destroy_page_says_what_happens_to_every_kind() -> None:
    """Each capacity kind of the registry has its row in docs/destroy.md (a kind added later
    fails here until the page says what `pulumi destroy` does to it)."""
    from pulumi_dws import registry

    text = (REPO / "docs" / "destroy.md").read_text()
    rows = [line.split("|")[1] for line in text.splitlines() if line.startswith("| `")]
    named = {name for row in rows for name in re.findall(r"`(\w+)`", row)}
    missing = [kind.name for kind in registry.kinds() if kind.name not in named]
    assert missing == [], f"docs/destroy.md has no row for {missing}"
