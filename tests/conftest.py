"""Shared fixtures: the repository root and a clean limits table for every test."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from pulumi_dws import limits

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True)
def _fresh_limits() -> Iterator[None]:
    limits.reset()
    yield
    limits.reset()


@pytest.fixture
def repo() -> Path:
    return REPO
