"""Shared fixtures: the repository root and clean limits and regions tables for every test."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from pulumi.runtime.config import set_all_config

from pulumi_dws import limits, regions
from pulumi_dws.testing.event_loop import fresh_event_loop

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


@pytest.fixture(autouse=True)
def _fresh_event_loop() -> Iterator[None]:
    """Every test starts on a new event loop (Pulumi programs under the mocks run on the
    current one; an earlier ``asyncio.run`` leaves none) and leaves its own closed, with
    anything a failed program left pending cancelled."""
    fresh_event_loop()
    yield
    fresh_event_loop()
