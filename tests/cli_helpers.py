"""Run a ``dws`` command line through the console script's own entry point
(``pulumi_dws.cli:main``) in this process: its exit status and what it printed.

``dws plan`` undoes what a program changes in the process (cwd, sys.path, its modules, the
limits and regions tables, config), as test_plan.py checks; test_plan.py also runs the console
script in a fresh process, and test_cli.py checks what only a process shows (a closed pipe).
"""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
from collections.abc import Iterator, Mapping
from pathlib import Path
from unittest import mock

from pulumi_dws import cli


@contextlib.contextmanager
def working_directory(path: Path | str) -> Iterator[None]:
    saved = os.getcwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(saved)


def dws(
    *args: str, env: Mapping[str, str] | None = None, cwd: Path | str | None = None
) -> subprocess.CompletedProcess[str]:
    """``dws <args>`` with ``env`` as the whole environment (default: this one), in ``cwd``."""
    out, err = io.StringIO(), io.StringIO()
    with (
        mock.patch.dict(os.environ, dict(env) if env is not None else dict(os.environ), clear=True),
        working_directory(cwd or os.getcwd()),
        contextlib.redirect_stdout(out),
        contextlib.redirect_stderr(err),
    ):
        try:
            code = cli.main(list(args))
        except SystemExit as exit_:  # argparse's usage errors
            code = exit_.code if isinstance(exit_.code, int) else int(exit_.code is not None)
    return subprocess.CompletedProcess(["dws", *args], code, out.getvalue(), err.getvalue())
