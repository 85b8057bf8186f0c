"""The pages under docs/: every code block of every page is run or checked (here, in
tests/test_docs.py's ``DOC_CHECKS``, or by the page's own test module), every page is reachable
from the README or docs/index.md, every relative link resolves (file and heading), every cited
footnote is defined on its page; and the TPU door table is the catalog's, the template plans
cleanly, the destroy page has a row per kind."""

from __future__ import annotations

import ast
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
DOCS = REPO / "docs"
PAGES = (
    "tpu-doors.md",
    "emulator-tool.md",
    "destroy.md",
    "templates.md",
    "multi-language.md",
    "dynamic-host.md",
    "emulator-services.md",
)
CHECKED_BY_THEIR_OWN_TESTS = {
    # page: the test modules that run or check its blocks
    "architecture.md": ("test_architecture_kind.py", "test_architecture_doc.py",
                        "test_generated_args.py"),
    "frontier-gpus.md": ("test_docs_frontier.py",),
}  # fmt: skip
GENERATED = DOCS / "components"  # tests/test_component_docs.py runs their blocks
TEMPLATE = REPO / "templates" / "dws-blueprint"


def blocks(page: str) -> list[tuple[str, str]]:
    """The page's fenced blocks (language, code), an indented one (in a list item) dedented."""
    text = (DOCS / page).read_text()
    found = []
    for m in re.finditer(r"^( *)```(\w*)\n(.*?)^\1```", text, re.S | re.M):
        indent, lang, code = m.groups()
        found.append((lang, "".join(ln.removeprefix(indent) for ln in code.splitlines(True))))
    return found


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


def check_package_add(code: str) -> None:
    """``pulumi package add`` of the plugin in a checkout beside the program, or at a Git tag:
    both name this repository's ``provider/``, a Python plugin."""
    local, remote = (shlex.split(line) for line in code.strip().splitlines())
    assert local[:3] == remote[:3] == ["pulumi", "package", "add"]
    assert Path(local[3]).parts[-2:] == ("pulumi-dws", "provider")
    assert re.fullmatch(r"github\.com/[\w-]+/pulumi-dws\.git/provider@v[\d.]+", remote[3])
    plugin = yaml.safe_load((REPO / "provider" / "PulumiPlugin.yaml").read_text())
    assert plugin["runtime"] == "python"


def check_schema_command(code: str) -> None:
    """The command writes what is checked in: run now, it leaves ``provider/schema.json`` as
    it is."""
    import contextlib
    import io

    from pulumi_dws.package import schema

    python, m, module, redirect, target = shlex.split(code.strip())
    assert (m, module, redirect) == ("-m", "pulumi_dws.package.schema", ">")
    assert python == ".venv/bin/python" and schema.__name__ == module
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        schema.main()
    assert out.getvalue() == (REPO / target).read_text()


def check_dynamic_host_sample(code: str) -> None:
    """The sample runs through the real host with a provider that behaves as it expects
    (``check`` wants a zone, a new zone is a replacement)."""
    from pulumi_dws.testing._echo_provider import EchoProvider

    exec(compile(code, "<dynamic-host.md>", "exec"), {"MyProvider": EchoProvider})


def check_routes_excerpt(code: str) -> None:
    """The excerpt is ``InstancesApi`` as it is: an ``Api`` answering ``instances`` with the
    handlers the block names, each a method of a discovery method of that resource."""
    from pulumi_dws.testing.emulator.compute.instances import InstancesApi
    from pulumi_dws.testing.emulator.routing import Api

    assert code.startswith("class InstancesApi(Api):") and issubclass(InstancesApi, Api)
    shown = re.search(r"resources = (\(.*?\))", code)
    assert shown is not None and ast.literal_eval(shown.group(1)) == InstancesApi.resources
    for name in re.findall(r"def (\w+)\(self, req: Request\) -> Response", code):
        assert callable(getattr(InstancesApi, name)), name
    assert "compute.instances.setLabels" in code and callable(InstancesApi.set_labels)


def check_rule_excerpt(code: str) -> None:
    """The excerpt is a registered group rule: its decorator's source and its refusal."""
    from pulumi_dws.testing.emulator.base import GoogleError
    from pulumi_dws.testing.emulator.compute import group_rules

    name = re.search(r"^def (\w+)\(new: NewGroup\)", code, re.M)
    assert name is not None
    rule = getattr(group_rules, name.group(1))
    shown = re.search(r"\(a Flex-start MIG [^)]*\)", code)
    assert shown is not None
    assert any(r.check is rule and shown.group(0) in r.source for r in group_rules.GROUP_RULES)
    flex = {"scheduling": {"provisioningModel": "FLEX_START"}}
    rule(group_rules.NewGroup({"targetSize": 0}, flex))  # what Google accepts
    with pytest.raises(GoogleError) as refused:
        rule(group_rules.NewGroup({"targetSize": 2}, flex))
    message = re.search(r'GoogleError\(400, "(.*?)\.\.\.", "invalid"\)', code)
    assert message is not None and refused.value.status == 400
    assert refused.value.message.startswith(message.group(1)) and refused.value.reason == "invalid"


CHECKS: dict[str, Callable[[str], None]] = {
    "from pulumi_dws import catalog": run_python,
    "dws emulator": run_dws,
    "dws emulate": run_dws,
    "from pulumi_dws.testing.emulated import emulate": lambda code: exec(code, {}),
    "dws plan --stack dev": lambda code: None,  # the root project: planned in test_docs
    "from pulumi_dws import CalendarReservation": run_python,
    "pulumi new ./templates/dws-blueprint": lambda code: None,  # new_from_template below
    "dws plan my-capacity --stack dev": lambda code: None,  # test_the_template_plans
    "pulumi package add ../pulumi-dws/provider": check_package_add,
    # the messages: tests/test_package_construct.py, test_the_messages_docs_show_are_the_providers
    "maxRunDuration: 8d is above": lambda code: None,
    ".venv/bin/python -m pulumi_dws.package.schema": check_schema_command,
    "from pulumi_dws.testing.dynamic_host import DynamicProviderHost": check_dynamic_host_sample,
    "class InstancesApi(Api):": check_routes_excerpt,
    "@GROUP_RULES.rule(": check_rule_excerpt,
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


# ------------------------------------------------------------------------------ every page
def _hand_written() -> list[Path]:
    return sorted(p for p in DOCS.rglob("*.md") if GENERATED not in p.parents)


def test_every_block_of_every_page_is_checked() -> None:
    """A page with code blocks has their checks registered: in PAGES (here), in
    tests/test_docs.py's DOC_CHECKS, or in test modules of its own that read it; the generated
    component pages' blocks are Python, which tests/test_component_docs.py runs."""
    from test_docs import DOC_CHECKS

    for page in _hand_written():
        if not blocks(str(page.relative_to(DOCS))):
            continue
        name = str(page.relative_to(DOCS))
        owners = [name in PAGES, page in DOC_CHECKS, name in CHECKED_BY_THEIR_OWN_TESTS]
        assert owners.count(True) == 1, f"docs/{name}: its blocks have no checks (or two sets)"
        for module in CHECKED_BY_THEIR_OWN_TESTS.get(name, ()):
            assert name in (REPO / "tests" / module).read_text(), (name, module)
    for page in sorted(GENERATED.glob("*.md")):
        langs = {lang for lang, _ in blocks(str(page.relative_to(DOCS)))}
        assert langs <= {"python"}, page.name


# What a link may point at: a file of the repository, and a heading of a Markdown file.
_FENCE = re.compile(r"^( *)```.*?^\1```", re.S | re.M)
_CODE = re.compile(r"`[^`\n]*`")
_LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def _prose(text: str) -> str:
    """The text without code blocks and code spans (what a reader sees as links)."""
    return _CODE.sub("", _FENCE.sub("", text))


def anchors(page: Path) -> set[str]:
    """The ids GitHub gives the page's headings: lower case, punctuation dropped, spaces as
    hyphens, a repeated one numbered."""
    found: set[str] = set()
    for heading in re.findall(r"^#{1,6} +(.+?) *$", _FENCE.sub("", page.read_text()), re.M):
        slug = re.sub(r"[^\w\- ]", "", heading.replace("`", "").lower()).replace(" ", "-")
        n, candidate = 0, slug
        while candidate in found:
            n += 1
            candidate = f"{slug}-{n}"
        found.add(candidate)
    return found


def links(page: Path) -> list[tuple[Path, str]]:
    """The relative links of a page: (the file it names, the anchor or "")."""
    found = []
    for target in _LINK.findall(_prose(page.read_text())):
        if re.match(r"[a-z]+:", target):
            continue  # https:, mailto:
        path, _, anchor = target.partition("#")
        found.append(((page.parent / path).resolve() if path else page, anchor))
    return found


MARKDOWN = [REPO / "README.md", *sorted(DOCS.rglob("*.md"))]


@pytest.mark.parametrize("page", MARKDOWN, ids=[str(p.relative_to(REPO)) for p in MARKDOWN])
def test_every_relative_link_resolves(page: Path) -> None:
    for target, anchor in links(page):
        assert target.exists(), f"{page.relative_to(REPO)}: no {target}"
        assert REPO in target.parents or target == REPO, target
        if anchor:
            assert target.suffix == ".md", f"{page.relative_to(REPO)}: #{anchor} of {target}"
            assert anchor in anchors(target), (
                f"{page.relative_to(REPO)}: no #{anchor} in {target.name}"
            )


def test_every_page_is_reachable_from_the_readme_or_the_index() -> None:
    seen: set[Path] = set()
    todo = [REPO / "README.md", DOCS / "index.md"]
    while todo:
        page = todo.pop()
        if page in seen or page.suffix != ".md" or not page.is_file():
            continue
        seen.add(page)
        todo += [target for target, _ in links(page)]
    unreachable = [str(p.relative_to(REPO)) for p in DOCS.rglob("*.md") if p not in seen]
    assert unreachable == []


def test_the_index_lists_every_hand_written_page() -> None:
    """docs/index.md is the map: every hand-written page is linked from it directly."""
    listed = {target for target, _ in links(DOCS / "index.md")}
    missing = [p.name for p in _hand_written() if p not in listed and p != DOCS / "index.md"]
    assert missing == []


@pytest.mark.parametrize("page", MARKDOWN, ids=[str(p.relative_to(REPO)) for p in MARKDOWN])
def test_every_cited_footnote_is_defined_on_its_page(page: Path) -> None:
    text = _prose(page.read_text())
    cited = set(re.findall(r"\[\^(\w+)\](?!:)", text))
    defined = set(re.findall(r"^\[\^(\w+)\]:", text, re.M))
    assert cited == defined, page.name


def test_the_link_checks_can_fail(tmp_path: Path) -> None:
    """A link to a missing file, or to a heading a page does not have, is found."""
    (tmp_path / "a.md").write_text("# A `b` (c), d!\n\n[x](b.md) [y](a.md#nope) [z](#a-b-c-d)\n")
    found = links(tmp_path / "a.md")
    assert [t.exists() for t, _ in found] == [False, True, True]
    assert anchors(tmp_path / "a.md") == {"a-b-c-d"}
    assert [anchor in anchors(tmp_path / "a.md") for _, anchor in found[1:]] == [False, True]


_REPO_PATH = re.compile(  # the folders only this repository has (other repos have examples/)
    r"`((?:tests|stacks|benchmarks|scripts|templates|components/pulumi_dws|\.github)/[\w./-]*)`"
)


@pytest.mark.parametrize("page", MARKDOWN, ids=[str(p.relative_to(REPO)) for p in MARKDOWN])
def test_the_repository_files_a_page_names_exist(page: Path) -> None:
    """`tests/...`, `stacks/...`, `benchmarks/...` and the like, named in a page, are there."""
    named = _REPO_PATH.findall(_FENCE.sub("", page.read_text()))
    missing = [path for path in named if not (REPO / path.rstrip("/")).exists()]
    assert missing == [], page.name
