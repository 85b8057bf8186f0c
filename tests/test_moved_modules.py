"""Modules that moved keep their old import path: a re-export that warns with the new one.

The policy's test aids moved under :mod:`pulumi_dws.testing`; code that imported
``pulumi_dws.policy.testing``, ``.samples`` or ``.examples`` keeps working, told where to
import from, while importing :mod:`pulumi_dws.policy` still loads none of them.
"""

from __future__ import annotations

import subprocess
import sys
from types import ModuleType

import pytest

from pulumi_dws.kinds.slurm.testing import slurm_cluster_sample
from pulumi_dws.testing import policy as new_policy
from pulumi_dws.testing import samples as new_samples

MOVED = {
    "pulumi_dws.policy.testing": "pulumi_dws.testing.policy",
    "pulumi_dws.policy.samples": "pulumi_dws.testing.samples",
    "pulumi_dws.policy.examples": "pulumi_dws.testing.samples",
}


def _import_anew(old: str, monkeypatch: pytest.MonkeyPatch) -> tuple[ModuleType, list[str]]:
    """``import <old>`` as a user's module would, the first time; the warnings' sources."""
    monkeypatch.delitem(sys.modules, old, raising=False)
    namespace: dict[str, ModuleType] = {}
    with pytest.warns(DeprecationWarning) as caught:
        exec(compile(f"import {old} as module", "users_program.py", "exec"), namespace)
    shown = [f"{w.filename}: {w.message}" for w in caught if w.category is DeprecationWarning]
    return namespace["module"], shown


@pytest.mark.parametrize(("old", "new"), MOVED.items())
def test_an_old_path_imports_and_warns_at_the_importing_line_with_the_new_one(
    old: str, new: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    module, shown = _import_anew(old, monkeypatch)
    assert module.__name__ == old
    assert shown == [
        f"users_program.py: {old} moved to {new}: import {new} instead ({old} will be removed)"
    ]


def test_the_old_policy_testing_is_the_new_one(monkeypatch: pytest.MonkeyPatch) -> None:
    old, _ = _import_anew("pulumi_dws.policy.testing", monkeypatch)
    assert old.__all__ == new_policy.__all__
    for name in new_policy.__all__:
        assert getattr(old, name) is getattr(new_policy, name), name


def test_the_old_samples_and_examples_are_the_kinds_ones(monkeypatch: pytest.MonkeyPatch) -> None:
    samples, _ = _import_anew("pulumi_dws.policy.samples", monkeypatch)
    for name in samples.__all__:
        assert getattr(samples, name) is not None, name
    assert samples.variant is new_samples.variant and samples.DELETE is new_samples.DELETE
    assert samples.slurm_cluster is slurm_cluster_sample
    assert new_samples.samples() == samples.SAMPLES
    assert samples.SAMPLES["slurm_cluster"][1] is slurm_cluster_sample
    examples, _ = _import_anew("pulumi_dws.policy.examples", monkeypatch)
    assert examples.Example is new_samples.Example
    assert [str(e) for e in examples.EXAMPLES] == [str(e) for e in new_samples.examples()]
    with pytest.raises(AttributeError):
        examples.SAMPLES  # noqa: B018


def test_importing_the_policy_loads_no_old_path_and_no_test_aid() -> None:
    code = (
        "import sys, warnings\n"
        "warnings.simplefilter('error', DeprecationWarning)\n"
        "import pulumi_dws.policy, pulumi_dws.policy.engine, pulumi_dws.policy.rules\n"
        "print(sorted(m for m in sys.modules if m.startswith('pulumi_dws.testing') or m in "
        f"{sorted(MOVED)!r}))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
