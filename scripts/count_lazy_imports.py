"""Count the function-level ("lazy") imports of the library: ``import`` statements inside a
function or method body (imports under ``if TYPE_CHECKING:`` are not counted: they never run).

    .venv/bin/python scripts/count_lazy_imports.py [folder ...]

With no folder: the whole library, ``providers/`` and ``kinds/``, one line each, then the files
that have the most.
"""

from __future__ import annotations

import ast
import sys
from collections import Counter
from pathlib import Path

LIBRARY = Path(__file__).resolve().parent.parent / "components" / "pulumi_dws"


def lazy_imports(path: Path) -> int:
    """The number of import statements inside function bodies of ``path``."""

    def visit(node: ast.AST, in_function: bool) -> int:
        found = int(in_function and isinstance(node, ast.Import | ast.ImportFrom))
        inner = in_function or isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        return found + sum(visit(child, inner) for child in ast.iter_child_nodes(node))

    return visit(ast.parse(path.read_text()), False)


def count(folder: Path) -> Counter[str]:
    """Lazy imports per file under ``folder``."""
    return Counter(
        {
            str(p.relative_to(LIBRARY)): n
            for p in sorted(folder.rglob("*.py"))
            if (n := lazy_imports(p))
        }
    )


def main(argv: list[str]) -> int:
    folders = [Path(a).resolve() for a in argv] or [
        LIBRARY,
        LIBRARY / "providers",
        LIBRARY / "kinds",
    ]
    for folder in folders:
        found = count(folder)
        print(f"{folder.relative_to(LIBRARY.parent)}: {sum(found.values())} function-level imports")
    everything = count(LIBRARY)
    print("most:", ", ".join(f"{f} {n}" for f, n in everything.most_common(12)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
