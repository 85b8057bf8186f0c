#!/usr/bin/env python3
"""Write every file generated from the spec models and the kind registry; run it from the
repository's root after editing a spec (a field, its type, default, limits row or docstring),
a component's outputs or docstring, or a kind's declaration or rules::

    python scripts/generate.py            # write what is stale
    python scripts/generate.py --check    # only list what is stale (exit 1 if anything is)

It writes:

* the args ``TypedDict`` s users write (``kinds/<kind>/args.py``,
  ``pulumi_dws/vm_settings_args.py``: :mod:`pulumi_dws.package.args`);
* the package schema, ``provider/schema.json`` (:mod:`pulumi_dws.package.schema`);
* a page per component, ``docs/components/<Name>.md`` (:mod:`pulumi_dws.package.docs`).

Tests fail while any of them is stale. A generated args module that is missing (a new kind) or
lacks a name the library imports (a new nested spec) is stood in for while the library is
imported, so the command also writes the first one.
"""

from __future__ import annotations

import contextlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
import types
import typing
from collections.abc import Sequence
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
LIBRARY = REPO / "components" / "pulumi_dws"


class _StandIns(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Generated args modules (``pulumi_dws.kinds.<kind>.args``, ``pulumi_dws.<module>_args``)
    as they are on disk, with an empty ``TypedDict`` for any name they lack."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: types.ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        last = fullname.rsplit(".", 1)[-1]
        generated = last == "args" or last.endswith("_args")
        if (
            fullname.startswith("pulumi_dws.")
            and generated
            and fullname != "pulumi_dws.package.args"
        ):
            return importlib.util.spec_from_loader(fullname, self)
        return None

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> None:
        return None

    def exec_module(self, module: types.ModuleType) -> None:
        path = LIBRARY.joinpath(*module.__name__.split(".")[1:]).with_suffix(".py")
        module.__file__ = str(path)
        if path.exists():  # a stale module may fail: it is about to be rewritten
            with contextlib.suppress(Exception):
                exec(compile(path.read_text(), str(path), "exec"), vars(module))  # noqa: S102

        def stand_in(name: str) -> Any:
            if name.startswith("__"):
                raise AttributeError(name)
            return typing.TypedDict(name, {})  # type: ignore[operator]

        module.__getattr__ = stand_in  # type: ignore[method-assign]


def generated() -> dict[Path, str]:
    """Every generated file and what it should hold."""
    from pulumi_dws.package import args, docs, schema

    files = {args.module_path(name): text for name, text in args.generated_modules().items()}
    files[REPO / "provider" / "schema.json"] = schema.schema_json()
    files.update({REPO / path: text for path, text in docs.pages().items()})
    return files


def main(argv: Sequence[str]) -> int:
    check = "--check" in argv
    sys.meta_path.insert(0, _StandIns())
    files = generated()
    stale = {path: text for path, text in files.items() if _read(path) != text}
    for path, text in stale.items():
        print(f"{'stale' if check else 'wrote'}: {path.relative_to(REPO)}")
        if not check:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
    pages = REPO / "docs" / "components"
    for extra in sorted(set(pages.glob("*.md")) - set(files)):
        print(f"{'not generated' if check else 'removed'}: {extra.relative_to(REPO)}")
        if not check:
            extra.unlink()
        stale[extra] = ""
    return 1 if check and stale else 0


def _read(path: Path) -> str | None:
    return path.read_text() if path.exists() else None


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
