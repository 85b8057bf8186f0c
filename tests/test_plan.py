"""``dws plan`` on every project in the repository, and on broken ones."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from pulumi_dws.cli import main
from pulumi_dws.plan import load_project, load_stack_config, run_plan

REPO = Path(__file__).resolve().parent.parent
PROJECTS = sorted(
    [REPO]
    + [p.parent for p in REPO.glob("stacks/*/Pulumi.yaml")]
    + [p.parent for p in REPO.glob("examples/*/Pulumi.yaml")]
)

# What each project must at least register (type token -> count).
EXPECTED: dict[str, dict[str, int]] = {
    ".": {
        "dws:index:CalendarReservation": 1,
        "dws:index:FlexStartInstance": 1,
        "dws:index:QueuedNodePool": 1,
        "dws:index:KueueQueue": 1,
        "dws:index:SlurmCluster": 1,
        "gcp:compute/futureReservation:FutureReservation": 1,
        "pulumi-python:dynamic/dws:FlexStartVm": 1,
        "gcp:container/nodePool:NodePool": 1,
        "pulumi-python:dynamic/dws:SlurmCluster": 1,
    },
    "stacks/calendar-reservation": {
        "gcp:compute/futureReservation:FutureReservation": 1,
        "gcp:compute/instance:Instance": 1,
    },
    "stacks/flex-start-vm": {"pulumi-python:dynamic/dws:FlexStartVm": 1},
    "stacks/gke-dws": {
        "gcp:container/nodePool:NodePool": 1,
        "kubernetes:kueue.x-k8s.io/v1beta2:ClusterQueue": 1,
        "kubernetes:kueue.x-k8s.io/v1beta2:LocalQueue": 1,
    },
    "stacks/slurm-flex": {
        "pulumi-python:dynamic/dws:SlurmCluster": 1,
        "gcp:projects/iAMMember:IAMMember": 2,
    },
    "examples/team-training": {
        "gcp:compute/futureReservation:FutureReservation": 1,
        "gcp:compute/instanceTemplate:InstanceTemplate": 1,
        "gcp:serviceaccount/account:Account": 1,
    },
}


def rel(path: Path) -> str:
    return str(path.relative_to(REPO)) if path != REPO else "."


def test_every_project_is_covered() -> None:
    assert sorted(rel(p) for p in PROJECTS) == sorted(EXPECTED)


@pytest.mark.parametrize("project", PROJECTS, ids=rel)
def test_every_pulumi_yaml_is_a_valid_python_project(project: Path) -> None:
    raw = yaml.safe_load((project / "Pulumi.yaml").read_text())
    assert set(raw) <= {"name", "description", "runtime", "main", "config", "template"}
    assert raw["name"].replace("-", "").replace("_", "").isalnum()
    assert raw["runtime"]["name"] == "python"
    assert set(raw["runtime"].get("options", {})) <= {"toolchain", "virtualenv", "typechecker"}
    loaded = load_project(project)
    assert loaded.program.is_file()
    assert (project / "Pulumi.dev.yaml").is_file(), "every project ships a dev stack"


@pytest.mark.parametrize("project", PROJECTS, ids=rel)
def test_plan_of_every_project_exits_0_and_lists_expected_resources(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["plan", str(project), "--format", "json"])
    captured = capsys.readouterr()
    assert code == 0, captured.err + captured.out[-2000:]
    doc = json.loads(captured.out)
    counts: dict[str, int] = {}
    for resource in doc["resources"]:
        counts[resource["type"]] = counts.get(resource["type"], 0) + 1
    for type_, n in EXPECTED[rel(project)].items():
        assert counts.get(type_, 0) >= n, (type_, counts)
    assert not [v for v in doc["policy"]["violations"] if v["level"] == "mandatory"]


def test_text_plan_shows_the_tree_and_key_properties(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plan", str(REPO / "stacks/calendar-reservation")]) == 0
    out = capsys.readouterr().out
    assert "└─ + gcp:compute/futureReservation:FutureReservation h100-week-future-reservation" in out
    assert "mode=CALENDAR" in out and "machine_type=a3-highgpu-8g" in out and "gpus=16" in out
    assert "provisioning_model=RESERVATION_BOUND" in out
    assert "Policies: no violations" in out


def test_markdown_plan_is_a_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plan", str(REPO / "stacks/calendar-reservation"), "--format", "markdown"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("### `dws plan`: calendar-reservation / dev")
    assert "| `h100-week-future-reservation` | `gcp:compute/futureReservation:FutureReservation` |" in out


def write_project(tmp: Path, program: str, config: str = "") -> Path:
    (tmp / "Pulumi.yaml").write_text("name: broken\nruntime: python\n")
    (tmp / "__main__.py").write_text(program)
    if config:
        (tmp / "Pulumi.dev.yaml").write_text(config)
    return tmp


def test_program_exception_is_one_clear_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_project(tmp_path, "import pulumi\n\nraise RuntimeError('no cluster named ml')\n")
    assert main(["plan", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: the program failed (at ")
    assert "__main__.py:3): RuntimeError: no cluster named ml" in err
    assert "Traceback" not in err


def test_validation_error_in_config_fails_before_anything_is_created(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    program = "from pulumi_dws.blueprint import deploy_from_config\ndeploy_from_config()\n"
    config = """config:
  dws:capacity:
    calendar_reservations:
      - {name: ok, zone: us-central1-a, machine_type: a3-highgpu-8g, count: 1, start_time: +4w, duration: 7d}
      - {name: bad, zone: us-central1-a, machine_type: a3-highgpu-8g, count: 1, start_time: +4w, duration: 8h}
"""
    write_project(tmp_path, program, config)
    assert main(["plan", str(tmp_path), "--format", "json"]) == 1
    captured = capsys.readouterr()
    assert captured.err.strip() == (
        "error: invalid configuration: dws:capacity.calendar_reservations[1].duration: 8h is below "
        "the Calendar-mode reservation duration minimum of 1d (86400s); allowed: 1d (86400s) to 90d (7776000s)"
    )
    assert captured.out == ""


def test_not_a_project(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plan", str(tmp_path)]) == 1
    assert "no Pulumi.yaml here" in capsys.readouterr().err
    (tmp_path / "Pulumi.yaml").write_text("name: x\nruntime: nodejs\n")
    assert main(["plan", str(tmp_path)]) == 1
    assert "dws plan runs python programs" in capsys.readouterr().err


def test_secure_config_values_are_shown_as_secrets_never_decrypted(tmp_path: Path) -> None:
    program = (
        "import pulumi\n"
        "pulumi.export('token', pulumi.Config().require_secret('token'))\n"
        "pulumi.export('derived', pulumi.Output.secret('s3cr3t'))\n"
    )
    config = "config:\n  broken:token:\n    secure: v1:abcdef\n  broken:plain: 3\n"
    project = load_project(write_project(tmp_path, program, config))
    stack = load_stack_config(project, "dev")
    assert stack.values == {"broken:token": "[secret]", "broken:plain": "3"}
    assert stack.secret_keys == ["broken:token"]
    plan = run_plan(tmp_path)
    assert plan.outputs == {"token": "[secret]", "derived": "[secret]"}


def test_mandatory_violation_exits_3(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    program = """import pulumi_gcp as gcp
gcp.projects.IAMMember("too-broad", project="p", role="roles/editor", member="user:a@example.com")
"""
    write_project(tmp_path, program)
    assert main(["plan", str(tmp_path)]) == 3
    assert "[mandatory] no-basic-roles" in capsys.readouterr().out


def test_console_script_runs_the_plan_in_a_fresh_process() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "pulumi_dws.cli", "plan", str(REPO / "stacks/calendar-reservation")],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert "gcp:compute/futureReservation:FutureReservation" in proc.stdout


def test_program_helpers_do_not_leak_between_plans_but_libraries_stay(tmp_path: Path) -> None:
    import pulumi_gcp.compute

    first, second = tmp_path / "a", tmp_path / "b"
    for project, value in ((first, "one"), (second, "two")):
        project.mkdir()
        (project / "helpers.py").write_text(f"VALUE = {value!r}\n")
        write_project(project, "import pulumi, helpers\npulumi.export('v', helpers.VALUE)\n")
    assert run_plan(first).outputs["v"] == "one"
    assert run_plan(second).outputs["v"] == "two"
    assert sys.modules["pulumi_gcp.compute"] is pulumi_gcp.compute
