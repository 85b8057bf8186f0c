"""Shared fixtures: the repository root and clean limits and regions tables for every test."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest
from pulumi.runtime.config import set_all_config

from pulumi_dws import limits, regions

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True)
def _no_project_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """A GOOGLE_CLOUD_PROJECT in the developer's shell must not change what tests see."""
    monkeypatch.delenv("GOOGLE_CLOUD_PROJECT", raising=False)


@pytest.fixture(autouse=True)
def _fresh_limits() -> Iterator[None]:
    """Every test starts with the default tables and no stack config (a program's dws:limits
    and dws:regions live in its stack config, which the mocks set per run)."""
    limits.reset()
    regions.reset()
    set_all_config({})
    yield
    limits.reset()
    regions.reset()
    set_all_config({})


@pytest.fixture
def repo() -> Path:
    return REPO


@pytest.fixture(autouse=True, scope="session")
def _no_pending_tasks_at_exit() -> Iterator[None]:
    """A program that failed leaves Pulumi's tasks pending in its event loop; cancel those of
    the last loop, so the interpreter does not report them destroyed at exit."""
    yield
    try:
        loop = asyncio.get_event_loop_policy().get_event_loop()
    except RuntimeError:
        return
    if loop.is_closed() or loop.is_running():
        return
    pending = [task for task in asyncio.all_tasks(loop) if not task.done()]
    for task in pending:
        task.cancel()
    if pending:
        loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
