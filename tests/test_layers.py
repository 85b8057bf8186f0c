"""The library's layers: no import cycles (lazy imports included), no private name imported
across the dynamic providers' modules, and no test aid loaded by the library itself."""

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


def _imports(path: Path) -> set[str]:
    """What the module at ``path`` imports (see :func:`_imports_in`)."""
    return _imports_in(_module_name(path), path.name == "__init__.py", path.read_text())


def _imports_in(module: str, is_package: bool, source: str) -> set[str]:
    """What ``module`` imports, when it is imported or when one of its functions runs (a lazy
    import inside a function is an edge too); imports under ``if TYPE_CHECKING:`` never run."""
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
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
