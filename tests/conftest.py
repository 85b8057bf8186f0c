"""Shared fixtures: the repository root, clean limits and regions tables and a fresh event loop
for every test; the emulator setup of the Flex-start provider tests (``emu``, ``compute``,
``provider``; a module that needs another setup defines its own fixture of the same name); one
advice-only emulator per module (``advice_emulator``); and the session's gcloud runs (``gcloud_runs``, started early for the tests marked ``gcloud``)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from pulumi.runtime.config import set_all_config

from pulumi_dws import limits, regions
from pulumi_dws.kinds.flex_vm.provider import FlexStartVmProvider
from pulumi_dws.testing.clock_helpers import emulator_env, virtual_sleep
from pulumi_dws.testing.emulator import Emulator, VirtualClock
from pulumi_dws.testing.emulator.advice import AdviceService
from pulumi_dws.testing.emulator.capacity import CapacityModel
from pulumi_dws.testing.emulator.compute import ComputeService
from pulumi_dws.testing.event_loop import fresh_event_loop
from pulumi_dws.testing.gcloud import GcloudCommand, GcloudRuns, gcloud_path

REPO = Path(__file__).resolve().parent.parent
_GCLOUD_RUNS = pytest.StashKey[GcloudRuns]()


# ---------------------------------------------------------------------- gcloud, the oracle
def pytest_configure(config: pytest.Config) -> None:
    config.stash[_GCLOUD_RUNS] = GcloudRuns(workers=1, shared_dir=_shared_by_workers(config))


def _shared_by_workers(config: pytest.Config) -> Path | None:
    """Under ``pytest -n`` (pytest-xdist) every worker collects every test and so would start
    every gcloud run: they share the runs through a folder of the run's base temporary
    directory (each worker's ``basetemp`` is a folder in it), so each command runs once."""
    if not hasattr(config, "workerinput"):
        return None
    return Path(config.option.basetemp).parent / "gcloud-runs"


def _declared(items: list[pytest.Item]) -> list[GcloudCommand]:
    return [
        command
        for item in items
        for marker in item.iter_markers("gcloud")
        for command in marker.args
        if isinstance(command, GcloudCommand)
    ]


def _selecting(config: pytest.Config) -> bool:
    """Whether the command line picks tests by marker or keyword (then only the selected
    tests' runs are started, once collection is over)."""
    return bool(config.getoption("markexpr", "") or config.getoption("keyword", ""))


@pytest.hookimpl(trylast=True)
def pytest_collectreport(report: pytest.CollectReport) -> None:
    """In a plain run, start a module's gcloud runs as soon as it is collected: the
    background worker gets going while the rest of the suite is still being imported."""
    items = [node for node in report.result if isinstance(node, pytest.Item)]
    if not items or gcloud_path() is None or _selecting(items[0].config):
        return
    if hasattr(items[0].config, "workerinput"):
        return  # a worker of pytest -n starts its share once collection is over
    items[0].config.stash[_GCLOUD_RUNS].prefetch(_declared(items))


def pytest_collection_finish(session: pytest.Session) -> None:
    """Start the gcloud runs the selected tests declare (``@pytest.mark.gcloud(command, ...)``)
    in the background, in test order (those started already are not run again): gcloud loads
    for about a second per run, on the core the tests leave free, and each test then finds
    its capture made."""
    if gcloud_path() is None:
        return  # the oracle tests skip themselves
    commands = list(dict.fromkeys(_declared(session.items)))
    worker = getattr(session.config, "workerinput", None)
    if worker is not None and commands:
        # Worker k of n starts k/n of the way into the list (and wraps round): the workers
        # run different commands at once instead of queueing on the same one's lock.
        start = int(worker["workerid"].removeprefix("gw")) * len(commands) // worker["workercount"]
        commands = commands[start:] + commands[:start]
    session.config.stash[_GCLOUD_RUNS].prefetch(commands)


def pytest_sessionfinish(session: pytest.Session) -> None:
    session.config.stash[_GCLOUD_RUNS].close()


@pytest.fixture(scope="session")
def gcloud_runs(pytestconfig: pytest.Config) -> GcloudRuns:
    """gcloud runs shared by the session: each command runs once (see the prefetch above)."""
    return pytestconfig.stash[_GCLOUD_RUNS]


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


@pytest.fixture(scope="module")
def advice_emulator() -> Iterator[Emulator]:
    """One emulator serving only Compute's advice methods, for a module's tests (stopping one
    takes half a second); a test resets it with ``AdviceService.reset``."""
    clock_ = VirtualClock()
    with Emulator([AdviceService(CapacityModel(clock_.now()), clock_)], clock=clock_) as emulator:
        yield emulator


@pytest.fixture
def emu(monkeypatch: pytest.MonkeyPatch) -> Iterator[Emulator]:
    """A running emulator; in-process providers find it through ``DWS_COMPUTE_ENDPOINT`` (and
    no virtual-clock URL: they are given :func:`virtual_sleep` instead)."""
    with Emulator() as emulator:
        for key, value in emulator_env(emulator, virtual_clock=False).items():
            monkeypatch.setenv(key, value)
        yield emulator


@pytest.fixture
def compute(emu: Emulator) -> ComputeService:
    return emu["compute"]


@pytest.fixture
def provider(emu: Emulator) -> FlexStartVmProvider:
    """Sleeps advance the emulator's virtual clock: waiting 2 h takes milliseconds."""
    return FlexStartVmProvider(sleep=virtual_sleep(emu))
