"""Docs that cannot rot: every code block in README.md, and in the pages under docs/ that the
README's sections moved to, is run (or, where it needs the Pulumi CLI and a cloud project,
checked against the repository) by a test here. A new block without a check fails
:func:`test_every_readme_block_is_checked` (README) or :func:`test_every_docs_block_is_checked`
(a page of :data:`DOC_CHECKS`)."""

from __future__ import annotations

import copy
import json
import os
import re
import shlex
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml
from cli_helpers import dws as run_dws
from packaging.requirements import Requirement

import pulumi_dws
from pulumi_dws import FlexStartInstance, limits
from pulumi_dws.blueprint import deploy, validate_capacity
from pulumi_dws.errors import DwsValidationError
from pulumi_dws.kinds.flex_vm.provider import FlexStartVmProvider
from pulumi_dws.kinds.kueue.component import KueueQueue
from pulumi_dws.kinds.node_pool.component import QueuedNodePool
from pulumi_dws.kinds.slurm.component import SlurmCluster
from pulumi_dws.policy import rule
from pulumi_dws.policy.engine import check_config
from pulumi_dws.policy.pack import policies
from pulumi_dws.testing import GcpMocks

REPO = Path(__file__).resolve().parent.parent
README = REPO / "README.md"
DWS = [sys.executable, "-m", "pulumi_dws.cli"]


@dataclass(frozen=True)
class Block:
    lang: str
    code: str
    line: int
    page: Path = README

    @property
    def first(self) -> str:
        return self.code.strip().splitlines()[0]

    @property
    def commands(self) -> list[str]:
        """The block's lines that are commands (comments and blanks left out)."""
        return [c for c in (ln.split("  #")[0].strip() for ln in self.code.splitlines()) if c]


def readme_blocks(path: Path = README) -> list[Block]:
    text = path.read_text()
    found = []
    for match in re.finditer(r"^( *)```(\w*)\n(.*?)^\1```", text, re.S | re.M):
        indent, lang, code = match.groups()
        lines = [ln[len(indent) :] if ln.startswith(indent) else ln for ln in code.splitlines()]
        line = text[: match.start()].count("\n") + 1
        found.append(Block(lang, "\n".join(lines) + "\n", line, path))
    return found


BLOCKS = readme_blocks()


def sibling(b: Block, starts: str) -> Block:
    """The one block of ``b``'s page whose first line starts with ``starts``."""
    matching = [o for o in readme_blocks(b.page) if o.first.startswith(starts)]
    assert len(matching) == 1, f"{len(matching)} blocks of {b.page.name} start with {starts!r}"
    return matching[0]


def dws(
    *args: str, env: dict[str, str] | None = None, cwd: Path = REPO
) -> subprocess.CompletedProcess[str]:
    """A README ``dws`` command line, in this process (see cli_helpers)."""
    return run_dws(*args, env=env, cwd=cwd)


def run_python(code: str, under_mocks: bool = True) -> dict[str, Any]:
    """Run a README Python block (with the package's names at hand, as the README's earlier
    blocks imported them), under GcpMocks unless it drives its own."""
    namespace: dict[str, Any] = {
        "__name__": "readme",
        "FlexStartInstance": FlexStartInstance,
        "SlurmCluster": SlurmCluster,
        "QueuedNodePool": QueuedNodePool,
        "KueueQueue": KueueQueue,
        "CalendarReservation": pulumi_dws.CalendarReservation,
    }
    saved = dict(os.environ)  # what a block sets (an endpoint, as a shell would) ends with it
    try:
        if under_mocks:
            GcpMocks(project="my-project").run(lambda: exec(code, namespace))
        else:
            exec(code, namespace)
    finally:
        os.environ.clear()
        os.environ.update(saved)
    return namespace


# ------------------------------------------------------------------------------ checks
def check_quickstart(b: Block) -> None:
    """Exactly two commands: set up + offline plan, set up + tests (the second is .ci/run's)."""
    lines = b.commands
    assert len(lines) == 2
    setup = "python3 -m venv .venv && .venv/bin/pip install -q -e "
    assert all(line.startswith(setup) for line in lines)
    assert lines[0].endswith(" && .venv/bin/dws plan")
    assert lines[1] in (REPO / ".ci" / "run").read_text()
    assert "-p no:cacheprovider" in lines[1]
    plan = dws("plan")  # the first line's command, in this test's environment
    assert plan.returncode == 0, plan.stderr


def check_python_under_mocks(b: Block) -> None:
    run_python(b.code)


def check_python_alone(b: Block) -> None:
    run_python(b.code, under_mocks=False)


def check_error_sample(b: Block) -> None:
    args = {"zone": "us-central1-a", "machine_type": "a3-highgpu-8g", "max_run_duration": "8d"}
    with pytest.raises(DwsValidationError) as err:
        GcpMocks().run(lambda: FlexStartInstance("trainer", args))
    assert str(err.value) == b.code.strip()


def check_typo_sample(b: Block) -> None:
    args = {"zone": "us-central1-a", "machine_type": "a3-highgpu-8g", "max_run_duraton": "3d"}
    with pytest.raises(DwsValidationError) as err:
        GcpMocks().run(lambda: FlexStartInstance("trainer", args))
    assert str(err.value) == b.code.strip()


def check_advise_with_the_emulator(b: Block) -> None:
    """The page's `dws emulator` line, then its `dws advise` lines as written, with the
    exports the emulator printed: exit 0 (found) or 3 (no recommendation)."""
    emulator = sibling(b, "dws emulator")
    with served(emulator.commands[0]) as exports:
        env = {**os.environ, **exports}
        codes = []
        for command in b.commands:
            argv = shlex.split(command)
            assert argv[0] == "dws" and not set(command) & set("[]|&;$`<>"), command
            done = dws(*argv[1:], env=env)
            assert done.returncode in (0, 3), (command, done.stderr)
            codes.append(done.returncode)
            if "--emit" in argv:
                assert "CalendarReservation(" in done.stdout and "h100-block" in done.stdout
        assert codes[:3] == [0, 0, 0]  # the block the emulator line declares is found


def check_tpu_advice_with_the_emulator(b: Block) -> None:
    """The page's TPU flow: its `dws emulator --calendar ZONE:v6e:CHIPS:...` line, then its
    `dws advise calendar --tpu-version ... --emit` line with the exports the emulator printed;
    the emitted Python registers the TPU CalendarReservation under mocks."""
    emulator, advise = [c for c in b.commands if not c.startswith("#")]
    with served(emulator) as exports:
        done = dws(*shlex.split(advise)[1:], env={**os.environ, **exports})
    assert done.returncode == 0, done.stderr
    python = done.stdout.split("# --- or stack config")[0]
    assert '"tpu_version": "v6e"' in python and '"chip_count": 16' in python, python
    mocks = GcpMocks(project="my-project")
    mocks.run(lambda: exec(python, {"__name__": "readme"}))
    [reservation] = mocks.resources("gcp:compute/futureReservation:FutureReservation")
    aggregate = reservation.inputs["aggregateReservation"]
    assert aggregate["vmFamily"] == "VM_FAMILY_CLOUD_TPU_LITE_POD_SLICE_CT6E"
    assert reservation.inputs["zone"] == "us-east5-b"


def check_emulator_line(b: Block) -> None:
    assert len(b.commands) == 1 and "--port" not in b.commands[0]
    with served(b.commands[0]) as exports:
        assert set(exports) >= {"DWS_COMPUTE_ENDPOINT", "GOOGLE_CLOUD_PROJECT"}


class served:  # noqa: N801 (a context manager used like a function)
    """``dws emulator ...`` running in the background; yields the exports it printed."""

    def __init__(self, command: str) -> None:
        argv = shlex.split(command)
        assert argv[:2] == ["dws", "emulator"], command
        self.proc = subprocess.Popen(
            [*DWS, *argv[1:]], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )

    def __enter__(self) -> dict[str, str]:
        exports: dict[str, str] = {}
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            found = re.match(r"\s*export (\w+)=(\S+)", line)
            if found:
                exports[found.group(1)] = found.group(2)
            if line.startswith("Ctrl-C"):
                return exports
        raise AssertionError(f"dws emulator did not start: {self.proc.stderr.read()}")  # type: ignore[union-attr]

    def __exit__(self, *exc: object) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=30)


def check_commands_exit_0(b: Block) -> None:
    for command in b.commands:
        argv = shlex.split(command)
        assert argv[0] == "dws", command
        done = dws(*argv[1:])
        assert done.returncode == 0, (command, done.stdout, done.stderr)


def check_limits_config(b: Block) -> None:
    config = yaml.safe_load(b.code)["config"]
    hundred_days = {"zone": "us-central1-a", "machine_type": "a3-highgpu-8g", "count": 8,
                    "start_time": "+4w", "duration": "100d"}  # fmt: skip
    GcpMocks().run(lambda: pulumi_dws.CalendarReservation("b", hundred_days), config=config)
    nine = {**hundred_days, "count": 9}
    with pytest.raises(DwsValidationError, match="count: 9 is above"):
        GcpMocks().run(lambda: pulumi_dws.CalendarReservation("b", nine), config=config)


def check_regions_config(b: Block) -> None:
    config = yaml.safe_load(b.code)["config"]
    args = {"zone": "us-east7-b", "machine_type": "a3-highgpu-8g", "max_run_duration": "1d"}
    GcpMocks().run(lambda: FlexStartInstance("vm", args), config=config)


def check_blueprint_config(b: Block) -> None:
    capacity = yaml.safe_load(b.code)["config"]["dws:capacity"]
    assert [e.kind.key for e in validate_capacity(capacity)] == list(capacity)
    built = GcpMocks(project="my-project").run(lambda: deploy(capacity))
    assert len(built) == sum(len(entries) for entries in capacity.values()) == 6


def check_policy_commands(b: Block) -> None:
    """`pulumi preview --policy-pack ...` needs the Pulumi CLI and a cloud project: check what
    the commands name exists and is valid, and run their offline equivalent."""
    for command in b.commands:
        argv = shlex.split(command)
        assert argv[:2] in (["pulumi", "preview"], ["pulumi", "up"]), command
        pack = Path(argv[argv.index("--policy-pack") + 1])
        assert (REPO / pack / "PulumiPolicy.yaml").exists()
        if "--policy-pack-config" in argv:
            config = REPO / argv[argv.index("--policy-pack-config") + 1]
            check_config(json.loads(config.read_text()))
            done = dws("plan", "--policy-config", str(config))
            assert done.returncode in (0, 3), done.stderr


def check_policy_config_sample(b: Block) -> None:
    data = json.loads(b.code)
    check_config(data)


def check_deploying_for_real(b: Block) -> None:
    """Needs the Pulumi CLI and a project; check every path and file it relies on. The first
    line installs the policy extra into the .venv the stacks name and activates it: the policy
    pack (runtime python, no virtualenv) runs the python on PATH, which must import pulumi_dws
    and pulumi_policy."""
    import tomllib

    lines = b.commands
    make, install, activate = (part.strip() for part in lines[0].split("&&"))
    assert make == "python3 -m venv .venv"
    pip, *args = shlex.split(install)
    assert pip == ".venv/bin/pip" and args[:2] == ["install", "-e"]
    assert "policy" in Requirement(f"pulumi-dws{args[2].removeprefix('.')}").extras
    extra = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    wanted = {Requirement(r).name for r in extra["optional-dependencies"]["policy"]}
    assert "pulumi-policy" in wanted
    assert activate in ("source .venv/bin/activate", ". .venv/bin/activate")
    pack = yaml.safe_load((REPO / "policy" / "PulumiPolicy.yaml").read_text())
    assert pack["runtime"] == "python"  # no virtualenv option: the python on PATH
    cd = shlex.split(lines[1])
    stack_dir = REPO / cd[1]
    assert cd[0] == "cd" and (stack_dir / "Pulumi.yaml").exists()
    assert (stack_dir / "Pulumi.dev.yaml").exists() and "pulumi stack init dev" in lines
    pulumi = [
        shlex.split(line) for line in lines if line.startswith(("pulumi preview", "pulumi up"))
    ]
    assert [argv[1] for argv in pulumi] == ["preview", "up"]
    for argv in pulumi:
        pack_dir = stack_dir / argv[argv.index("--policy-pack") + 1]
        assert pack_dir.resolve() == REPO / "policy" and (pack_dir / "PulumiPolicy.yaml").exists()
    venv = yaml.safe_load((stack_dir / "Pulumi.yaml").read_text())["runtime"]["options"][
        "virtualenv"
    ]
    assert (stack_dir / venv).resolve() == REPO / ".venv"  # the .venv the first line makes
    assert dws("plan", cd[1]).returncode == 0


def check_package_yaml(b: Block) -> None:
    """The README's Pulumi YAML lines are the tested example's (examples/yaml-flex-start,
    checked against the package schema by tests/test_package_examples.py): its package entry,
    and each resource's type and properties as the example gives them."""
    shown = yaml.safe_load(b.code)
    example = yaml.safe_load((REPO / "examples" / "yaml-flex-start" / "Pulumi.yaml").read_text())
    assert shown["packages"] == example["packages"]
    assert (REPO / "examples" / "yaml-flex-start" / shown["packages"]["dws"]).resolve() == (
        REPO / "provider"
    )
    for name, resource in shown["resources"].items():
        given = example["resources"][name]
        assert resource["type"] == given["type"], name
        assert resource["properties"].items() <= given["properties"].items(), name


def check_vcs_requirement(b: Block) -> None:
    requirement = Requirement(b.code.strip())
    assert requirement.name == "pulumi-dws" and requirement.url.startswith("git+https://")


def check_upgrade_from_0_1(b: Block) -> None:
    """The 0.1 VM (no reservation affinity) is replaced without the block, kept with it: the
    block's ignored paths are the ones that changed, on the two children it names."""
    mocks = GcpMocks(project="my-project")
    namespace = {"__name__": "readme", "FlexStartInstance": FlexStartInstance}
    mocks.run(lambda: exec(b.code, namespace))
    template = mocks.one("gcp:compute/instanceTemplate:InstanceTemplate", name="trainer-template")
    vm = mocks.one("pulumi-python:dynamic/dws:FlexStartVm", name="trainer-vm")
    assert template.ignore_changes == ["reservationAffinity"]
    assert template.inputs["reservationAffinity"] == {"type": "NO_RESERVATION"}
    # with the paths that keep a defaulted name (see defaults.stack_default_name)
    assert vm.ignore_changes == ["name", "body.name", "body.reservationAffinity"]
    assert vm.inputs["body"]["reservationAffinity"] == {"consumeReservationType": "NO_RESERVATION"}
    as_in_0_1 = {**vm.inputs, "body": {k: v for k, v in vm.inputs["body"].items()
                                       if k != "reservationAffinity"}}  # fmt: skip
    assert "body" in FlexStartVmProvider().diff("vm", as_in_0_1, vm.inputs).replaces
    assert not FlexStartVmProvider().diff("vm", as_in_0_1, as_in_0_1).changes


def check_h4d_calendar_block(b: Block) -> None:
    """The H4D block of calendar.md reserves H4D VMs and a group consumes them."""
    mocks = GcpMocks()
    mocks.run(lambda: exec(b.code, {}))
    sku = mocks.one("gcp:compute/futureReservation:FutureReservation").inputs
    assert sku["specificSkuProperties"]["instanceProperties"]["machineType"] == "h4d-highmem-192"
    template = mocks.one("gcp:compute/instanceTemplate:InstanceTemplate").inputs
    assert template["machineType"] == "h4d-highmem-192"
    assert template["reservationAffinity"]["specificReservation"]["values"] == ["hpc-week"]


CHECKS: dict[str, Callable[[Block], None]] = {
    "pulumi-dws @ git+https://": check_vcs_requirement,
    "python3 -m venv .venv && .venv/bin/pip install -q -e . && .venv/bin/dws plan": check_quickstart,
    "from pulumi_dws import FlexStartInstance": check_python_under_mocks,
    "max_run_duration: 8d is above": check_error_sample,
    "max_run_duraton: unknown argument": check_typo_sample,
    "from pulumi_dws import FlexStartGroup": check_python_under_mocks,
    "from pulumi_dws import QueuedTpu": check_python_under_mocks,
    "from pulumi_dws import VertexTrainingJob": check_python_under_mocks,
    "from pulumi_dws import BatchFlexJob": check_python_under_mocks,
    "from pulumi_dws.gke import QueuedNodePool": check_python_under_mocks,
    "from pulumi_dws import ComputeClass": check_python_under_mocks,
    "from pulumi_dws import SlurmCluster": check_python_under_mocks,
    "from pulumi_dws import CalendarReservation, FlexStartGroup": check_python_under_mocks,
    "from pulumi_dws import GpuNetwork, FlexStartGroup": check_python_under_mocks,
    "packages:\n  dws:": check_package_yaml,
    "dws plan": check_commands_exit_0,
    "python3 -m venv .venv && .venv/bin/pip install -e '.[policy]'": check_deploying_for_real,
}  # fmt: skip


def _check_for(b: Block) -> str:
    keys = [k for k in CHECKS if b.code.startswith(k) or (b.first == k)]
    keys = keys or [k for k in CHECKS if b.first.startswith(k)]
    assert len(keys) == 1, f"README.md:{b.line}: {len(keys)} checks match {b.first!r}: {keys}"
    return keys[0]


def test_every_readme_block_is_checked() -> None:
    keys = [_check_for(b) for b in BLOCKS]
    assert sorted(keys) == sorted(CHECKS), "each check covers exactly one README block"


@pytest.mark.parametrize("b", BLOCKS, ids=[f"line{b.line}" for b in BLOCKS])
def test_readme_block(b: Block, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DWS_COMPUTE_ENDPOINT", raising=False)  # a block may set it
    CHECKS[_check_for(b)](b)


def test_dates_in_examples_are_relative() -> None:
    """A fixed date falls out of the 120-day look-ahead one day: examples use +4w and such
    (a date may only appear in a comment or in prose, as the form a value may take)."""
    for b in [*BLOCKS, *(b for _, b in DOC_BLOCKS)]:
        for line in b.code.splitlines():
            code = line.split("#")[0]
            assert not re.search(r"\b20\d\d-\d\d-\d\d", code), f"{b.page.name}:{b.line}: {line}"


def test_the_sample_stack_has_one_of_each_kind() -> None:
    """The Quickstart plans ``Pulumi.dev.yaml`` as "one of each kind of capacity": every kind
    of the registry has an entry there (a kind added later fails here until it has one), and
    the plan of it passes the policy rules (check_quickstart)."""
    from pulumi_dws import registry

    capacity = yaml.safe_load((REPO / "Pulumi.dev.yaml").read_text())["config"]["dws:capacity"]
    assert sorted(capacity) == sorted(kind.key for kind in registry.kinds())
    assert all(len(entries) >= 1 for entries in capacity.values())


def test_the_team_training_example_installs_without_a_package_index() -> None:
    """pulumi-dws is on no index, so the example's requirements name it by path: ``../..``,
    relative to the example's directory (where Pulumi runs pip), is this repository; every
    other requirement is one this environment satisfies."""
    import importlib.metadata

    from packaging.version import Version

    example = REPO / "examples" / "team-training"
    lines = [
        ln.strip() for ln in (example / "requirements.txt").read_text().splitlines()
        if ln.strip() and not ln.strip().startswith("#")
    ]  # fmt: skip
    local = [ln for ln in lines if ln.startswith((".", "/"))]
    assert local == ["../.."]
    import tomllib

    target = (example / local[0]).resolve()
    assert tomllib.loads((target / "pyproject.toml").read_text())["project"]["name"] == "pulumi-dws"
    for line in (ln for ln in lines if ln not in local):
        requirement = Requirement(line)
        assert requirement.name != "pulumi-dws", "a bare pulumi-dws requirement needs an index"
        installed = Version(importlib.metadata.version(requirement.name))
        assert requirement.specifier.contains(installed), (line, installed)
    options = yaml.safe_load((example / "Pulumi.yaml").read_text())["runtime"]["options"]
    assert options["toolchain"] == "pip"  # Pulumi runs `pip install -r requirements.txt` there


def test_the_policy_packs_requirements_are_complete_and_its_fallback_works(tmp_path: Path) -> None:
    """Installed alone, policy/requirements.txt is enough for the pack to import the sources
    beside it: it names pulumi-dws's own dependencies and pulumi-policy, as pyproject does."""
    import tomllib

    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    wanted = {str(Requirement(r)) for r in project["dependencies"]}
    wanted |= {str(Requirement(r)) for r in project["optional-dependencies"]["policy"]}
    lines = (REPO / "policy" / "requirements.txt").read_text().splitlines()
    given = {str(Requirement(ln)) for ln in lines if ln.strip() and not ln.startswith("#")}
    assert given == wanted
    # The fallback: a copy of the pack beside the sources, and no installed pulumi-dws (its
    # editable install is only a path entry: take it away).
    (tmp_path / "policy").mkdir()
    (tmp_path / "policy" / "__main__.py").write_text((REPO / "policy" / "__main__.py").read_text())
    (tmp_path / "components").symlink_to(REPO / "components")
    probe = f"""
import runpy, sys
sys.path[:] = [p for p in sys.path if not p.endswith("components")]
try:
    import pulumi_dws
except ImportError:
    pass
else:
    raise SystemExit("pulumi-dws is still importable")
import pulumi_policy
pulumi_policy.PolicyPack = lambda **kw: print("PACK", kw["name"], len(kw["policies"]))
runpy.run_path({str(tmp_path / "policy" / "__main__.py")!r}, run_name="__main__")
print("FROM", sys.modules["pulumi_dws"].__file__)
"""
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "PACK dws-policies" in done.stdout
    assert f"FROM {tmp_path}/components/pulumi_dws/__init__.py" in done.stdout, done.stdout


# ------------------------------------------------------------------------------ the policy pack and CI
# What docs/policy.md says of the policy pack and of CI: every rule named, the commands, and
# the workflow that runs `dws plan` and `pulumi preview` on each stack.
POLICIES = policies()
DOCS = REPO / "docs"


def test_docs_name_every_policy_and_the_commands() -> None:
    text = (DOCS / "policy.md").read_text()
    assert "pulumi preview --policy-pack policy/ --policy-pack-config" in text
    assert "dws plan" in text
    for policy in [*POLICIES, rule("calendar-delete-or-replace")]:
        assert f"`{policy.name}`" in text, policy.name


def test_ci_workflows_run_plan_and_preview() -> None:
    workflows = sorted((REPO / ".github" / "workflows").glob("*.y*ml"))
    assert workflows
    texts = {w.name: w.read_text() for w in workflows}
    for text in texts.values():
        yaml.safe_load(text)
    joined = "\n".join(texts.values())
    assert "dws plan" in joined and "--policy-pack policy/" in joined
    assert "pulumi/actions@" in joined


def test_ci_workflows_check_every_stack() -> None:
    stacks = sorted(p.parent.name for p in (REPO / "stacks").glob("*/Pulumi.yaml"))
    assert stacks
    workflow = yaml.safe_load((REPO / ".github" / "workflows" / "dws-policy.yml").read_text())
    for name in ("plan", "preview"):
        assert workflow["jobs"][name]["strategy"]["matrix"]["stack"] == stacks, name


def test_ci_preview_installs_into_the_virtualenv_the_stacks_name() -> None:
    workflow = yaml.safe_load((REPO / ".github" / "workflows" / "dws-policy.yml").read_text())
    runs = "\n".join(step.get("run", "") for step in workflow["jobs"]["preview"]["steps"])
    for project in sorted((REPO / "stacks").glob("*/Pulumi.yaml")):
        options = yaml.safe_load(project.read_text())["runtime"]["options"]
        venv = (project.parent / options["virtualenv"]).resolve().relative_to(REPO)
        assert f"python -m venv {venv}\n" in runs, project
        assert f'{venv}/bin/pip install -e ".[policy]"' in runs, project
    # ...and the policy pack (runtime python, no virtualenv) runs the python on PATH: that one.
    assert 'echo "$GITHUB_WORKSPACE/.venv/bin" >> "$GITHUB_PATH"' in runs


# ------------------------------------------------------------------------------ how we know
# The references the library cites can be checked: the "How we know" table (docs/how-we-know.md)
# covers every component, and each citation names where to look (a URL, a repository file at a
# commit, a seed), never a bare name.
README_TEXT = README.read_text()
HOW_WE_KNOW = (DOCS / "how-we-know.md").read_text()
PAGE_TEXTS = {page: page.read_text() for page in sorted(DOCS.rglob("*.md"))}
SOURCES = {p: p.read_text() for p in sorted((REPO / "components").rglob("*.py"))}
COMPONENTS = ("FlexStartInstance", "QueuedNodePool", "KueueQueue", "SlurmCluster")
COMPONENTS += ("CalendarReservation", "FlexStartGroup", "QueuedTpu", "ComputeClass")
LOCATOR = re.compile(r"https://\S+|[\w.-]+/[\w.-]+@[0-9a-f]{40}|\bseed 00\d")


def test_the_docs_say_how_we_know_each_component() -> None:
    table = HOW_WE_KNOW
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
    texts = {**SOURCES, README: README_TEXT, **PAGE_TEXTS}
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


# ------------------------------------------------------------------------------ docs pages
# Each code block of a page under docs/ has a check too (a new block without one fails).
COMPUTE_CLASS_DOC = REPO / "docs" / "gke-compute-class.md"


def check_topology_jobset(b: Block) -> None:
    from pulumi_dws.kueue import provisioning_request_pod_sets

    namespace = run_python(b.code)
    [request] = provisioning_request_pod_sets(namespace["job"], namespace["queue"])
    assert request.names == ("leader", "workers") and request.count == 8
    pod = namespace["job"]["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]
    assert pod["metadata"]["annotations"] == {
        "kueue.x-k8s.io/podset-required-topology": "cloud.google.com/gce-topology-block"
    }


def check_compute_class_blueprint(b: Block) -> None:
    capacity = yaml.safe_load(b.code)["config"]["dws:capacity"]
    assert [e.kind.key for e in validate_capacity(capacity)] == [
        "calendar_reservations",
        "compute_classes",
        "queued_node_pools",
        "kueue_queues",
    ]
    mocks = GcpMocks(project="my-project")
    built = mocks.run(lambda: deploy(capacity))
    assert sorted(built) == [
        "calendar_reservations/h200-block",
        "compute_classes/h200",
        "kueue_queues/training",
        "queued_node_pools/h200-queued",
    ]
    [cls] = mocks.resources("kubernetes:cloud.google.com/v1:ComputeClass")
    assert cls.inputs["spec"]["priorities"][0]["reservations"]["specific"] == [
        {"name": "h200-block"}
    ]
    moved = copy.deepcopy(capacity)
    moved["calendar_reservations"][0]["zone"] = "us-central1-c"
    with pytest.raises(DwsValidationError, match="outside the class's zones"):
        validate_capacity(moved)


DOC_CHECKS: dict[Path, dict[str, Callable[[Block], None]]] = {
    COMPUTE_CLASS_DOC: {
        "from pulumi_dws import ComputeClass, CalendarReservation": check_python_under_mocks,
        "from pulumi_dws import KueueQueue, QueuedNodePool, kueue_jobset": check_topology_jobset,
        "config:\n  dws:capacity:": check_compute_class_blueprint,
    },
    # The pages the README's sections moved to: each block keeps the check it had there.
    DOCS / "flex-start-vm.md": {'FlexStartInstance("trainer"': check_python_under_mocks},
    DOCS / "flex-start-group.md": {
        "from pulumi_dws import FlexStartGroup": check_python_under_mocks,
        "from pulumi_dws import GpuNetwork, FlexStartGroup": check_python_under_mocks,
    },
    DOCS / "gke.md": {"from pulumi_dws.gke import QueuedNodePool": check_python_under_mocks},
    DOCS / "slurm.md": {'SlurmCluster("flexvm"': check_python_under_mocks},
    DOCS / "calendar.md": {
        "import pulumi_gcp as gcp": check_python_under_mocks,
        "from pulumi_dws import CalendarReservation, FlexStartGroup": check_h4d_calendar_block,
    },
    DOCS / "tpus.md": {
        "from pulumi_dws import CalendarReservation, KueueQueue": check_python_under_mocks,
        "from pulumi_dws import QueuedTpu": check_python_under_mocks,
    },
    DOCS / "plan.md": {
        "dws plan": check_commands_exit_0,
        "dws advise calendar": check_advise_with_the_emulator,
        "dws emulator": check_emulator_line,
        "# TPU v6e: 16 chips in us-east5-b": check_tpu_advice_with_the_emulator,
        "import datetime as dt": check_python_alone,
    },
    DOCS / "limits.md": {
        "dws limits calendar": check_commands_exit_0,
        "from pulumi_dws import limits": check_python_alone,
        "config:\n  dws:limits:": check_limits_config,
        "config:\n  dws:regions:": check_regions_config,
    },
    DOCS / "blueprint.md": {"config:\n  dws:capacity:": check_blueprint_config},
    DOCS / "policy.md": {
        "pulumi preview --policy-pack policy/": check_policy_commands,
        '{"all": "mandatory",': check_policy_config_sample,
    },
    DOCS / "upgrading.md": {"# Upgrading from 0.1": check_upgrade_from_0_1},
    DOCS / "testing.md": {"import pulumi\n": check_python_alone},
}
DOC_BLOCKS = [(page, b) for page in DOC_CHECKS for b in readme_blocks(page)]


def _doc_check(page: Path, b: Block) -> Callable[[Block], None]:
    found = [check for key, check in DOC_CHECKS[page].items() if b.code.startswith(key)]
    assert len(found) == 1, f"{page.name}:{b.line}: {len(found)} checks match {b.first!r}"
    return found[0]


def test_every_docs_block_is_checked() -> None:
    """Each page of DOC_CHECKS: every block has exactly one check, every check one block."""
    for page, checks in DOC_CHECKS.items():
        blocks = readme_blocks(page)
        assert blocks and len(blocks) == len(checks), page.name
        used = [key for b in blocks for key in checks if b.code.startswith(key)]
        assert sorted(used) == sorted(checks), page.name
        for b in blocks:
            _doc_check(page, b)


def test_a_block_that_sets_the_environment_leaves_it_as_it_was() -> None:
    """A block that points an endpoint at its emulator as a user's shell would
    (``os.environ["DWS_COMPUTE_ENDPOINT"] = emu.url``, in plan.md) runs in the test process:
    what it set must not outlive it, or every later test of that worker that starts a plugin or
    a host (they inherit the environment, and the variable wins over their config) calls an
    emulator that is gone."""
    [(page, b)] = [(p, b) for p, b in DOC_BLOCKS if 'os.environ["DWS_COMPUTE_ENDPOINT"]' in b.code]
    before = dict(os.environ)
    _doc_check(page, b)(b)
    assert dict(os.environ) == before


@pytest.mark.parametrize(
    ("page", "b"), DOC_BLOCKS, ids=[f"{p.stem}:{b.line}" for p, b in DOC_BLOCKS]
)
def test_docs_block(page: Path, b: Block) -> None:
    _doc_check(page, b)(b)
