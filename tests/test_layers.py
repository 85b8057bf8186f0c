"""The library's layers: the order docs/architecture.md states ("Layers"), with the exceptions
it names, is what every import follows (lazy imports and imports by name included); no import
cycles (lazy imports included); no private name imported across the dynamic providers'
modules; and no test aid loaded by the library itself."""

from __future__ import annotations

import ast
import fnmatch
import re
import subprocess
import sys
from pathlib import Path

import pytest

import pulumi_dws

PACKAGE = Path(pulumi_dws.__file__).parent
PAGE = PACKAGE.parent.parent / "docs" / "architecture.md"


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _resolve(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = module.split(".")
    base = base if is_package else base[:-1]
    base = base[: len(base) - node.level + 1]
    return ".".join([*base, node.module] if node.module else base)


def _imports(path: Path) -> set[str]:
    """What the module at ``path`` imports (see :func:`_imports_in`)."""
    return _imports_in(_module_name(path), path.name == "__init__.py", path.read_text())


def _imports_in(module: str, is_package: bool, source: str) -> set[str]:
    """What ``module`` imports, when it is imported or when one of its functions runs (a lazy
    import inside a function is an edge too); imports under ``if TYPE_CHECKING:`` never run."""
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and ast.unparse(node.test) in _TYPE_CHECKING:
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            target = _resolve(module, is_package, node)
            found.add(target)
            found.update(f"{target}.{alias.name}" for alias in node.names)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(ast.parse(source))
    # Importing a submodule first runs its packages: not an edge of their own making.
    return {
        name
        for name in found
        if name in KNOWN and name != module and not module.startswith(name + ".")
    }


KNOWN = {_module_name(p) for p in PACKAGE.rglob("*.py")}
_TYPE_CHECKING = {"TYPE_CHECKING", "typing.TYPE_CHECKING"}
"""A guard whose body only a type checker reads (``if not TYPE_CHECKING:`` runs)."""


def test_no_import_cycles_lazy_imports_included() -> None:
    graph = {_module_name(p): _imports(p) for p in PACKAGE.rglob("*.py")}
    cycles: list[list[str]] = []

    def visit(node: str, path: list[str], done: set[str]) -> None:
        if node in path:
            cycles.append([*path[path.index(node) :], node])
            return
        if node in done:
            return
        for nxt in sorted(graph.get(node, ())):
            visit(nxt, [*path, node], done)
        done.add(node)

    done: set[str] = set()
    for start in sorted(graph):
        visit(start, [], done)
    assert not cycles, cycles[:3]


def test_an_import_inside_a_function_is_an_edge_and_a_type_only_one_is_not() -> None:
    source = (
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from ..kinds.slurm import api\n"
        "def f():\n    from .rest import GoogleRestClient\n"
    )
    found = _imports_in("pulumi_dws.providers.probe", False, source)
    assert "pulumi_dws.providers.rest" in found
    assert "pulumi_dws.kinds.slurm.api" not in found


def test_no_private_name_crosses_the_dynamic_providers_modules() -> None:
    """``providers/`` and the packages of kinds with a dynamic provider share public names
    only (``_Rr``, ``_Vm`` and ``_Target`` once crossed), type-only imports included."""
    crossing = []
    dynamic_kinds = [provider.parent for provider in PACKAGE.glob("kinds/*/provider.py")]
    modules = [*PACKAGE.glob("providers/*.py"), *(p for k in dynamic_kinds for p in k.glob("*.py"))]
    for path in modules:
        module = _module_name(path)
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                target = _resolve(module, path.name == "__init__.py", node)
                if target.startswith("pulumi_dws"):
                    crossing += [
                        f"{module}: {target}.{alias.name}"
                        for alias in node.names
                        if alias.name.startswith("_") and alias.name != "__all__"
                    ]
    assert crossing == []


def test_the_library_and_its_policy_load_no_test_aid() -> None:
    """Not when imported, and not when the rules run over the registry's kinds."""
    code = (
        "import sys, pulumi_dws, pulumi_dws.policy, pulumi_dws.blueprint\n"
        "from pulumi_dws.policy import ResourceView, capacity_summary, evaluate\n"
        "from pulumi_dws.plan.summary import key_properties\n"
        "view = ResourceView('gcp:container/nodePool:NodePool', 'p', props={})\n"
        "evaluate([view]); capacity_summary([view]); key_properties(view.type, {})\n"
        "print(sorted(m for m in sys.modules if m.startswith('pulumi_dws.testing')\n"
        "             or (m.startswith('pulumi_dws.kinds.') and m.endswith('.testing'))))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


# ---------------------------------------------------------------------------- the layer order
def _section(title: str) -> str:
    text = PAGE.read_text()
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end != -1 else None]


def _table(section: str, header: str) -> list[list[str]]:
    """The rows of the markdown table whose header starts with ``header``."""
    lines = section.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(header))
    rows = []
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip().strip("|").split("|")])
    return rows


def _names(cell: str) -> list[str]:
    return re.findall(r"`([^`]+)`", cell)


def layers() -> list[tuple[str, list[str]]]:
    """The page's layers, bottom first: ``(name, module patterns)``."""
    return [(row[0], _names(row[1])) for row in _table(_section("Layers"), "| layer |")]


def exceptions() -> list[tuple[str, str]]:
    """The page's allowed upward imports: ``(module pattern, pattern of what it imports)``."""
    return [
        (_names(row[0])[0], _names(row[1])[0])
        for row in _table(_section("Layers"), "| module | may import |")
    ]


def _path(module: str) -> str:
    """``pulumi_dws.kinds.calendar.rules`` -> ``kinds/calendar/rules`` (the root:
    ``pulumi_dws``)."""
    return (
        module if module == "pulumi_dws" else module.removeprefix("pulumi_dws.").replace(".", "/")
    )


def _matches(path: str, pattern: str) -> bool:
    if pattern.endswith("/"):  # a package: itself and everything in it
        return path == pattern[:-1] or path.startswith(pattern)
    return fnmatch.fnmatchcase(path, pattern)


def layer_of(module: str, table: list[tuple[str, list[str]]]) -> int | None:
    """The layer of ``module``: the row with the longest pattern that matches it."""
    best: tuple[int, int] | None = None
    for i, (_, patterns) in enumerate(table):
        for pattern in patterns:
            if _matches(_path(module), pattern) and (best is None or len(pattern) > best[1]):
                best = (i, len(pattern))
    return best[0] if best else None


def _named_imports(path: Path) -> set[str]:
    """Modules ``path`` imports by name (see :func:`_named_imports_in`)."""
    return _named_imports_in(_module_name(path), path.name == "__init__.py", path.read_text())


def _named_imports_in(module: str, is_package: bool, source: str) -> set[str]:
    """Modules ``module`` imports by name, however the call is written:
    ``importlib.import_module`` (or an alias of it) and ``__import__``, with a constant, an
    f-string (what is known of it: its text up to the first value, ``__name__`` and
    ``__package__`` read as the module's own) or a name relative to a package given as
    ``__name__``/``__package__``. The result is each name's longest known module."""
    tree = ast.parse(source)
    functions = {"import_module", "__import__"}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "importlib":
            functions.update(a.asname or a.name for a in node.names if a.name == "import_module")
    package = module if is_package else module.rpartition(".")[0]
    own = {"__name__": module, "__package__": package}
    found = set()
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and node.args):
            continue
        name = getattr(node.func, "attr", getattr(node.func, "id", ""))
        if name not in functions:
            continue
        text = _known_text(node.args[0], own)
        if text is None:
            continue
        if text.startswith("."):
            anchor = node.args[1] if len(node.args) > 1 else None
            base = own.get(getattr(anchor, "id", ""))
            if base is None:
                continue
            dots = len(text) - len(text.lstrip("."))
            parts = base.split(".")
            text = ".".join([*parts[: len(parts) - dots + 1], text.lstrip(".")]).rstrip(".")
        if text.startswith("pulumi_dws"):
            longest = max(
                (k for k in KNOWN if f"{text}.".startswith(f"{k}.")), key=len, default=None
            )
            if longest is not None:
                found.add(longest)
    return found


def _known_text(node: ast.expr, own: dict[str, str]) -> str | None:
    """What is known of a module name given as ``node``: a constant, or an f-string's text up
    to its first value other than the module's own names."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        text = ""
        for part in node.values:
            if isinstance(part, ast.Constant):
                text += str(part.value)
            elif isinstance(part.value, ast.Name) and part.value.id in own:  # type: ignore[attr-defined]
                text += own[part.value.id]  # type: ignore[attr-defined]
            else:
                return text.rsplit(".", 1)[0] if "." in text else text
        return text
    return None


def _edges() -> list[tuple[str, str]]:
    return sorted(
        (_module_name(p), target)
        for p in PACKAGE.rglob("*.py")
        for target in _imports(p) | _named_imports(p)
    )


def test_every_module_is_in_a_layer_of_the_page() -> None:
    table = layers()
    assert [name for name, _ in table][:3] == ["1. core", "2. providers", "3. registry"]
    missing = sorted(m for m in KNOWN if layer_of(m, table) is None)
    assert missing == [], "modules docs/architecture.md puts in no layer"


def upward_imports(
    edges: list[tuple[str, str]],
    table: list[tuple[str, list[str]]],
    allowed: list[tuple[str, str]],
) -> tuple[list[str], set[tuple[str, str]]]:
    """The imports that go up the layers and no exception allows; the exceptions used."""
    upward, used = [], set()
    for module, target in edges:
        low, high = layer_of(target, table), layer_of(module, table)
        assert low is not None and high is not None, (module, target)
        if low <= high:
            continue
        named = [
            (a, b) for a, b in allowed if _matches(_path(module), a) and _matches(_path(target), b)
        ]
        used.update(named)
        if not named:
            upward.append(f"{module} ({table[high][0]}) -> {target} ({table[low][0]})")
    return upward, used


def test_imports_go_down_the_layers_of_the_page_but_for_its_exceptions() -> None:
    """Lazy imports and imports by name included; each exception the page names is used."""
    allowed = exceptions()
    upward, used = upward_imports(_edges(), layers(), allowed)
    assert upward == []
    assert set(allowed) == used, f"exceptions no import needs: {set(allowed) - used}"


def test_the_registry_imports_nothing_of_the_library() -> None:
    """It loads the kinds by name when first asked, and nothing else (the page says so)."""
    assert _imports(PACKAGE / "registry.py") == set()
    assert _named_imports(PACKAGE / "registry.py") == {"pulumi_dws.kinds"}


def test_an_upward_import_is_caught_and_an_exception_is_only_its_pair() -> None:
    table, allowed = layers(), exceptions()
    policy, kinds = "pulumi_dws.policy.engine", "pulumi_dws.kinds.calendar.rules"
    assert upward_imports([(policy, kinds)], table, allowed)[0] == [
        f"{policy} (4. policy) -> {kinds} (6. kinds)"
    ]
    runner, mocks = "pulumi_dws.plan.runner", "pulumi_dws.testing.mocks"
    assert upward_imports([(runner, mocks)], table, allowed) == (
        [],
        {("plan/runner", "testing/mocks")},
    )
    summary = "pulumi_dws.plan.summary"
    assert upward_imports([(summary, mocks)], table, allowed)[0]  # the runner alone may
    assert layer_of("pulumi_dws.kinds.calendar.testing", table) == layer_of(mocks, table)


def test_a_type_check_guard_skips_only_the_type_checkers_branch() -> None:
    """``if TYPE_CHECKING:`` imports never run; ``if not TYPE_CHECKING:`` ones always do."""
    runs = "from typing import TYPE_CHECKING\nif not TYPE_CHECKING:\n    from . import models\n"
    assert "pulumi_dws.models" in _imports_in("pulumi_dws.errors", False, runs)
    never = "import typing\nif typing.TYPE_CHECKING:\n    from . import models\n"
    assert "pulumi_dws.models" not in _imports_in("pulumi_dws.errors", False, never)


@pytest.mark.parametrize(
    "source",
    [
        'import importlib\ndef f():\n    importlib.import_module("pulumi_dws.kinds.calendar.rules")\n',
        'import importlib\ndef f(k):\n    importlib.import_module(f"pulumi_dws.kinds.{k}.rules")\n',
        'import importlib\ndef f():\n    importlib.import_module("..kinds", __package__)\n',
        'from importlib import import_module as load\ndef f():\n    load("pulumi_dws.kinds")\n',
        'def f():\n    __import__("pulumi_dws.kinds.calendar.rules")\n',
    ],
    ids=["constant", "f-string", "relative", "alias", "__import__"],
)
def test_an_import_by_name_is_an_edge_however_it_is_written(source: str) -> None:
    found = _named_imports_in("pulumi_dws.policy.engine", False, source)
    assert any(name.startswith("pulumi_dws.kinds") for name in found), found
    table, allowed = layers(), exceptions()
    edges = [("pulumi_dws.policy.engine", name) for name in found]
    assert upward_imports(edges, table, allowed)[0]


def test_an_import_by_name_of_a_modules_own_package_is_resolved() -> None:
    source = 'import importlib\ndef f(n):\n    importlib.import_module(f"{__name__}.{n}.kind")\n'
    assert _named_imports_in("pulumi_dws.kinds", True, source) == {"pulumi_dws.kinds"}
