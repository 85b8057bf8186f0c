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
ALL_PROJECTS = sorted(
    [REPO]
    + [p.parent for p in REPO.glob("stacks/*/Pulumi.yaml")]
    + [p.parent for p in REPO.glob("examples/*/Pulumi.yaml")]
)


def _runtime(project: Path) -> str:
    runtime = yaml.safe_load((project / "Pulumi.yaml").read_text())["runtime"]
    return str(runtime["name"] if isinstance(runtime, dict) else runtime)


PROJECTS = [p for p in ALL_PROJECTS if _runtime(p) == "python"]
# Programs in other languages use the dws component package; dws plan runs Python programs only
# (tests/test_package_examples.py checks these against the package schema).
OTHER_LANGUAGES = {"examples/typescript-flex-start": "nodejs", "examples/yaml-flex-start": "yaml"}

# What each project must at least register (type token -> count).
EXPECTED: dict[str, dict[str, int]] = {
    ".": {
        "dws:index:CalendarReservation": 1,
        "dws:index:FlexStartInstance": 1,
        "dws:index:FlexStartGroup": 1,
        "dws:index:QueuedNodePool": 1,
        "dws:index:KueueQueue": 1,
        "dws:index:SlurmCluster": 1,
        "gcp:compute/futureReservation:FutureReservation": 1,
        "pulumi-python:dynamic/dws:FlexStartVm": 1,
        "pulumi-python:dynamic/dws:MigResizeRequest": 1,
        "gcp:container/nodePool:NodePool": 1,
        "pulumi-python:dynamic/dws:SlurmCluster": 1,
    },
    "stacks/calendar-reservation": {
        "gcp:compute/futureReservation:FutureReservation": 1,
        "gcp:compute/instance:Instance": 1,
    },
    "stacks/flex-start-vm": {"pulumi-python:dynamic/dws:FlexStartVm": 1},
    "stacks/a4-training": {
        "dws:index:GpuNetwork": 1,
        "gcp:compute/network:Network": 3,
        "gcp:compute/subnetwork:Subnetwork": 10,
        "gcp:compute/resourcePolicy:ResourcePolicy": 1,
        "gcp:compute/regionInstanceTemplate:RegionInstanceTemplate": 1,
        "gcp:compute/regionInstanceGroupManager:RegionInstanceGroupManager": 1,
        "pulumi-python:dynamic/dws:MigResizeRequest": 1,
    },
    "stacks/flex-start-group": {
        "gcp:compute/instanceTemplate:InstanceTemplate": 1,
        "gcp:compute/instanceGroupManager:InstanceGroupManager": 1,
        "pulumi-python:dynamic/dws:MigResizeRequest": 1,
    },
    "stacks/gke-dws": {
        "gcp:container/nodePool:NodePool": 1,
        "kubernetes:kueue.x-k8s.io/v1beta2:ClusterQueue": 1,
        "kubernetes:kueue.x-k8s.io/v1beta2:LocalQueue": 1,
    },
    "stacks/gke-compute-class": {
        "dws:index:ComputeClass": 1,
        "kubernetes:cloud.google.com/v1:ComputeClass": 1,
        "gcp:compute/futureReservation:FutureReservation": 1,
        "gcp:container/nodePool:NodePool": 1,
        "kubernetes:kueue.x-k8s.io/v1beta2:ResourceFlavor": 2,
        "kubernetes:kueue.x-k8s.io/v1beta2:ClusterQueue": 1,
        "kubernetes:ray.io/v1:RayJob": 1,
    },
    "stacks/tpu-dws": {
        "gcp:container/nodePool:NodePool": 1,
        "dws:index:QueuedTpu": 1,
        "pulumi-python:dynamic/dws:QueuedTpu": 1,
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
    others = {rel(p): _runtime(p) for p in ALL_PROJECTS if p not in PROJECTS}
    assert others == OTHER_LANGUAGES


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
    assert (
        "└─ + gcp:compute/futureReservation:FutureReservation h100-week-future-reservation" in out
    )
    assert "mode=CALENDAR" in out and "machine_type=a3-highgpu-8g" in out and "gpus=16" in out
    assert "provisioning_model=RESERVATION_BOUND" in out
    assert "Policies: no violations" in out


def test_markdown_plan_is_a_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plan", str(REPO / "stacks/calendar-reservation"), "--format", "markdown"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("### `dws plan`: calendar-reservation / dev")
    assert (
        "| `h100-week-future-reservation` | `gcp:compute/futureReservation:FutureReservation` |"
        in out
    )


def write_project(tmp: Path, program: str, config: str = "") -> Path:
    (tmp / "Pulumi.yaml").write_text("name: broken\nruntime: python\n")
    (tmp / "__main__.py").write_text(program)
    if config:
        (tmp / "Pulumi.dev.yaml").write_text(config)
    return tmp


def test_program_exception_is_one_clear_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
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
    """No project to plan is a usage error (2); a project dws plan cannot run is invalid (1)."""
    assert main(["plan", str(tmp_path)]) == 2
    assert "no Pulumi.yaml here" in capsys.readouterr().err
    assert main(["plan", str(tmp_path / "nonexistent")]) == 2
    assert "no such directory" in capsys.readouterr().err
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


# ----------------------------------------------------------------------- review fixes
def test_the_program_runs_in_its_main_directory(tmp_path: Path) -> None:
    (tmp_path / "Pulumi.yaml").write_text("name: mained\nruntime: python\nmain: src/\n")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "zone.txt").write_text("europe-west4-b\n")
    (tmp_path / "src" / "__main__.py").write_text(
        "import pulumi\npulumi.export('zone', open('zone.txt').read().strip())\n"
    )
    assert run_plan(tmp_path).outputs == {"zone": "europe-west4-b"}


def test_sys_exit_0_ends_the_program_normally_and_other_exits_fail(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_project(
        tmp_path,
        "import sys, pulumi, pulumi_gcp as gcp\ngcp.compute.Network('net')\n"
        "pulumi.export('a', 1)\nsys.exit(0)\n",
    )
    plan = run_plan(tmp_path)
    assert [r.name for r in plan.resources] == ["net"] and plan.outputs == {"a": 1}
    (tmp_path / "__main__.py").write_text("import sys\nsys.exit('set gcp:project first')\n")
    assert main(["plan", str(tmp_path)]) == 1
    assert (
        capsys.readouterr().err
        == "error: the program exited with status 1: set gcp:project first\n"
    )


def test_secret_inputs_are_never_shown(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    program = (
        "import pulumi, pulumi_gcp as gcp\n"
        "gcp.compute.Network('net', description=pulumi.Output.secret('s3cr3t'))\n"
    )
    write_project(tmp_path, program)
    for fmt in ("json", "text", "markdown"):
        assert main(["plan", str(tmp_path), "--format", fmt, "--no-policy"]) == 0
        out = capsys.readouterr().out
        assert "s3cr3t" not in out, fmt
    plan = run_plan(tmp_path)
    assert plan.resources[0].inputs["description"] == "[secret]"


def test_secure_values_inside_config_objects_are_secrets(tmp_path: Path) -> None:
    program = (
        "import pulumi\n"
        "obj = pulumi.Config().require_object('db')\n"
        "pulumi.export('user', obj['user'])\npulumi.export('password', obj['password'])\n"
    )
    config = "config:\n  broken:db:\n    user: admin\n    password:\n      secure: v1:zzz\n"
    project = load_project(write_project(tmp_path, program, config))
    stack = load_stack_config(project, "dev")
    assert json.loads(stack.values["broken:db"]) == {"user": "admin", "password": "secret"}
    assert stack.secret_keys == ["broken:db"]
    assert "v1:zzz" not in json.dumps(run_plan(tmp_path).outputs)


def test_project_config_plain_objects_schema_defaults_and_required_keys(tmp_path: Path) -> None:
    (tmp_path / "__main__.py").write_text("import pulumi\n")
    (tmp_path / "Pulumi.yaml").write_text(
        """name: proj
runtime: python
config:
  region: us-east5
  zones: {default: [us-east5-a]}
  gcp:project: {value: from-project-file}
  sizes: {a: 1}
  nodes: {type: integer}
"""
    )
    (tmp_path / "Pulumi.dev.yaml").write_text("config:\n  proj:nodes: 4\n")
    values = load_stack_config(load_project(tmp_path), "dev").values
    assert values == {
        "proj:region": "us-east5",
        "proj:zones": '["us-east5-a"]',
        "gcp:project": "from-project-file",
        "proj:sizes": '{"a": 1}',
        "proj:nodes": "4",
    }
    (tmp_path / "Pulumi.dev.yaml").write_text("config:\n  proj:nodes: four\n")
    with pytest.raises(
        ValueError, match="Stack 'dev' with configuration key 'nodes' must be of type 'integer'"
    ):
        load_stack_config(load_project(tmp_path), "dev")
    (tmp_path / "Pulumi.dev.yaml").write_text("config: {}\n")
    with pytest.raises(ValueError, match="Stack 'dev' is missing configuration value 'nodes'"):
        load_stack_config(load_project(tmp_path), "dev")


def test_a_stack_name_with_no_file_is_a_usage_error_when_the_project_has_other_stacks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_project(tmp_path, "import pulumi\n", "config:\n  broken:zone: us-east5-a\n")
    (tmp_path / "Pulumi.prod.yml").write_text("config:\n  broken:zone: us-east5-b\n")
    assert main(["plan", str(tmp_path), "--stack", "dve"]) == 2
    err = capsys.readouterr().err
    assert (
        err.startswith("error: no config file for stack 'dve'") and "its stacks: dev, prod" in err
    )
    # A fully qualified name uses the file of its last part; .yml files count.
    plan = run_plan(tmp_path, "acme/broken/prod")
    assert plan.stack.stack == "prod" and plan.stack.values == {"broken:zone": "us-east5-b"}


def test_a_project_without_stack_files_plans_any_stack(tmp_path: Path) -> None:
    write_project(tmp_path, "import pulumi\npulumi.export('stack', pulumi.get_stack())\n")
    assert run_plan(tmp_path, "ci").outputs == {"stack": "ci"}


def test_stack_config_dir_is_honoured(tmp_path: Path) -> None:
    write_project(tmp_path, "import pulumi\npulumi.export('z', pulumi.Config().get('zone'))\n")
    (tmp_path / "Pulumi.yaml").write_text("name: broken\nruntime: python\nstackConfigDir: config\n")
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "Pulumi.dev.yaml").write_text("config:\n  broken:zone: us-east5-c\n")
    assert run_plan(tmp_path).outputs == {"z": "us-east5-c"}


def test_a_broken_stack_file_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_project(tmp_path, "import pulumi\n", "config:\n  broken:zone: [unclosed\n")
    assert main(["plan", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "Pulumi.dev.yaml: not valid YAML" in err
    assert "Traceback" not in err


def test_pulumi_wrapped_program_errors_are_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    program = (
        "import pulumi, pulumi_gcp as gcp\n"
        "gcp.compute.Network('net', description=pulumi.Output.from_input('x').apply(int))\n"
    )
    write_project(tmp_path, program)
    assert main(["plan", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "invalid literal for int()" in err


def test_the_plan_order_is_stable_and_follows_dependencies() -> None:
    import random

    from pulumi_dws.plan.runner import _tree_order
    from pulumi_dws.testing.mocks import Registered

    def reg(name: str, parent: str = "", deps: tuple[str, ...] = ()) -> Registered:
        return Registered(
            f"urn::{name}", "t:i:T", name, {}, {}, "", parent, True, dependencies=list(deps)
        )

    items = [
        reg("block"),
        reg("z-start", "urn::block"),
        reg("a-future", "urn::block", ("urn::z-start",)),
        reg("vm", deps=("urn::a-future",)),
        reg("a-net"),
    ]
    orders = set()
    for seed in range(10):
        shuffled = list(items)
        random.Random(seed).shuffle(shuffled)
        orders.add(tuple(r.name for r in _tree_order(shuffled)))
    assert orders == {("a-net", "block", "z-start", "a-future", "vm")}
    first = [r.urn for r in run_plan(REPO).resources]
    assert all([r.urn for r in run_plan(REPO).resources] == first for _ in range(3))


def test_limits_a_program_applies_do_not_leak_into_the_next_plan(tmp_path: Path) -> None:
    from pulumi_dws import limits

    blueprint = "from pulumi_dws.blueprint import deploy_from_config\ndeploy_from_config()\n"
    seed, current = tmp_path / "seed", tmp_path / "current"
    for project, extra, duration in (
        (seed, "  dws:limits: {profile: seed}\n", "7d"),
        (current, "", "30d"),
    ):
        project.mkdir()
        config = (
            "config:\n" + extra + "  dws:capacity:\n    calendar_reservations:\n"
            "      - {name: b, zone: us-central1-a, machine_type: a3-highgpu-8g, count: 1,"
            f" start_time: +4w, duration: {duration}}}\n"
        )
        write_project(project, blueprint, config)
    run_plan(seed)
    assert limits.get("calendar.duration").choices is None  # the caller's table, untouched
    assert [
        r.name for r in run_plan(current).resources if r.type == "dws:index:CalendarReservation"
    ] == ["b"]


def test_stack_limits_reach_the_policy_rules(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    program = "from pulumi_dws.blueprint import deploy_from_config\ndeploy_from_config()\n"
    config = """config:
  dws:limits: {calendar.duration: {maximum: 120d}}
  dws:capacity:
    calendar_reservations:
      - {name: long, zone: us-central1-a, machine_type: a3-highgpu-8g, count: 1, start_time: +4w, duration: 100d, labels: {team: a}}
"""
    write_project(tmp_path, program, config)
    assert main(["plan", str(tmp_path), "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert not [v for v in doc["policy"]["violations"] if v["rule"] == "calendar-window"]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{all: [unclosed", "--policy-config: {file} is not JSON or YAML"),
        ("- all\n- mandatory\n", "--policy-config: {file} must hold an object of rules, not list"),
    ],
)
def test_a_bad_policy_config_file_is_one_clear_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str, message: str
) -> None:
    write_project(tmp_path, "import pulumi\n")
    policy = tmp_path / "policy.yaml"
    policy.write_text(content)
    assert main(["plan", str(tmp_path), "--policy-config", str(policy)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: policy configuration: " + message.format(file=policy))
    assert err.count("\n") == 1


def test_a_stack_policy_that_is_not_an_object_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_project(tmp_path, "import pulumi\n", "config:\n  dws:policy: strict\n")
    assert main(["plan", str(tmp_path)]) == 1
    assert capsys.readouterr().err == (
        "error: policy configuration: dws:policy: strict must be an object (a mapping in the stack file)\n"
    )


def test_plan_of_a_flex_start_group_counts_its_vms_on_the_request(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["plan", str(REPO / "stacks/flex-start-group")]) == 0
    out = capsys.readouterr().out
    assert "+ pulumi-python:dynamic/dws:MigResizeRequest trainers-request" in out
    assert "resize_by=4  run_duration=3d  wait_for=running  gpus=32  gpu_hours=2304" in out
    assert "on_failure=DO_NOTHING" in out and "termination_action=DELETE" in out
    assert 'gpus_by_type: {"nvidia-h100-80gb": 32}' in out
    assert "Policies: no violations" in out


def test_plan_of_the_a4_training_stack_shows_the_frontier_group(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["plan", str(REPO / "stacks/a4-training")]) == 0
    out = capsys.readouterr().out
    assert "+ dws:index:GpuNetwork a4-net" in out
    assert "mtu=8896  network_profile=us-central1-b-vpc-roce" in out
    assert "type=HIGH_THROUGHPUT  max_topology_distance=BLOCK" in out
    assert 'zones=["us-central1-b"]  workload_policy=workload-policy-' in out
    assert "resize_by=16  run_duration=2d  wait_for=running  gpus=128  gpu_hours=6144" in out
    assert 'gpus_by_type: {"nvidia-b200": 128}' in out
    assert "Policies: no violations" in out
