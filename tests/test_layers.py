"""The library's layers: no import cycles, and no test aid loaded by the library itself."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pulumi_dws

PACKAGE = Path(pulumi_dws.__file__).parent


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


def _top_level_imports(path: Path) -> set[str]:
    """What a module imports when it is imported (not inside functions or TYPE_CHECKING)."""
    module = _module_name(path)
    tree = ast.parse(path.read_text())
    found: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            continue
        for sub in ast.walk(node) if not isinstance(node, ast.FunctionDef | ast.ClassDef) else []:
            if isinstance(sub, ast.Import):
                found.update(alias.name for alias in sub.names)
            elif isinstance(sub, ast.ImportFrom):
                target = _resolve(module, path.name == "__init__.py", sub)
                found.add(target)
                found.update(f"{target}.{alias.name}" for alias in sub.names)
    known = {_module_name(p) for p in PACKAGE.rglob("*.py")}
    # Importing a submodule first runs its packages: not an edge of their own making.
    return {
        name
        for name in found
        if name in known and name != module and not module.startswith(name + ".")
    }


def test_no_import_cycles() -> None:
    graph = {_module_name(p): _top_level_imports(p) for p in PACKAGE.rglob("*.py")}
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
