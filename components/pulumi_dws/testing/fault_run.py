"""Fault runs: many create/delete cycles of a dynamic provider through a
:class:`~pulumi_dws.testing.fault_proxy.FaultProxy`, counted from the emulator's own records.

    with Emulator() as emu, FaultProxy(emu.url) as proxy:
        report = flex_vm_fault_run(emu, proxy, cycles=200, rate=0.25, seed=1)
        assert report.orphans == 0 and report.duplicates == 0

A cycle creates a resource (as ``pulumi up`` would), deletes it when the create succeeded
(retrying as a user re-running ``pulumi destroy`` would), and then compares what exists in the
emulator with what the "state" holds. Every create is stack ``a``'s (its ``owner``). Some
cycles are *interrupted* mid-wait (:class:`Interrupter`): after a random number of the
create's sleeps, the engine ends its call (SIGINT: the signal's grace) or sends ``Cancel``.
Some are *two-stack* cycles: once ``a``'s create succeeded, stack ``b`` creates the same named
resource (it must be refused: never adopted, so never destroyed by ``b``); for resize requests,
whose groups are each stack's own, ``b`` makes and destroys its set in its own group, and
``a``'s set must be whole afterwards. An **orphan** is a resource that exists at the end of a
cycle although no successful create returned it (it is then removed, so each counts once); a
**duplicate** is a resource created more than once by one create (more than one VM or cluster
made during one create call; for resize requests, a second request, or more VMs than asked).
Names and inputs
repeat every few cycles, so a create often follows the delete of an identical resource within
Compute's request-id memory: the stale-answer trap is part of every run.

The providers run in this process with a short HTTP deadline (``DWS_HTTP_TIMEOUT``) and sleeps
that advance the emulator's virtual clock, so a run of hundreds of cycles takes seconds.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import random
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from ..kinds.flex_group.provider import MigResizeError, MigResizeRequestProvider
from ..kinds.flex_vm.provider import FlexStartError, FlexStartVmProvider
from ..kinds.queued_tpu.provider import QueuedTpuError, QueuedTpuProvider
from ..kinds.slurm.provider import SlurmClusterError, SlurmClusterProvider
from ..providers import cancellation
from ..providers.rest import PollPolicy
from .clock_helpers import flex_start_group, flex_start_vm_props, mig_resize_props
from .emulator import Emulator
from .fault_proxy import FaultProxy, ProxyFaultPlan
from .labelled_jobs import LABELLED_JOBS, LabelledJobError, LabelledJobProvider

__all__ = [
    "POLL",
    "STACK_A",
    "STACK_B",
    "FaultRunReport",
    "Interrupter",
    "KindFaultRun",
    "OtherStack",
    "count_duplicates",
    "create_then_delete",
    "interruption",
    "keyed_cycle",
    "kind_fault_runs",
    "owned",
    "run_cycles",
    "sweep_keys",
    "two_stack_cycle",
    "flex_vm_fault_run",
    "labelled_job_fault_run",
    "mig_resize_fault_run",
    "queued_tpu_fault_run",
    "slurm_fault_run",
]

ZONE, MACHINE, PROJECT = "us-central1-a", "a3-highgpu-8g", "p"
POLL = PollPolicy(initial=20.0, factor=3.0, cap=1800.0)
"""The poll policy of a fault run: fewer polls of the same paths."""


STACK_A = {"organization": "organization", "project": "fault-run", "stack": "a"}
STACK_B = {**STACK_A, "stack": "b"}


def owned(props: dict[str, Any], stack: dict[str, str], name: str = "r") -> dict[str, Any]:
    """``props`` made by ``stack`` (its ``owner`` input)."""
    return {**props, "owner": {**stack, "name": name}}


@dataclass
class FaultRunReport:
    """What a fault run did and found."""

    provider: str
    cycles: int = 0
    created: int = 0
    failed: int = 0
    requests: int = 0
    faults: dict[str, Counter[str]] = field(default_factory=dict)
    orphans: int = 0
    duplicates: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    interrupted: int = 0
    """Creates stopped mid-wait (the engine's Cancel, or the end of its call)."""
    two_stack: int = 0
    """Cycles where another stack went for the same resource."""
    cross_stack: int = 0
    """Of those, where the other stack took or damaged this one's resource (counted in
    ``duplicates`` too: must be 0)."""
    kept: int = 0
    """Creates that succeeded with their resource still queued when the wait ended (kept, as
    ``onTimeout: keep`` asks, and then deleted by the cycle's destroy)."""

    @property
    def injected(self) -> int:
        return sum(sum(c.values()) for c in self.faults.values())

    @property
    def after_act(self) -> int:
        return sum(self.faults.get("after", Counter()).values())

    def lines(self) -> list[str]:
        """The report as printed by ``benchmarks/fault_run.py``."""
        rate = self.injected / self.requests if self.requests else 0.0
        out = [
            f"{self.provider}: {self.cycles} cycles, {self.created} created, {self.failed} "
            f"failed cleanly, {self.interrupted} interrupted mid-wait, {self.two_stack} "
            f"two-stack ({self.cross_stack} crossed), {self.kept} kept at the wait's end; "
            f"{self.requests} requests, "
            f"{self.injected} faults ({rate:.0%}), {self.after_act} after the act; orphans "
            f"{self.orphans}, duplicates {self.duplicates}",
        ]
        for phase in ("before", "after"):
            kinds = self.faults.get(phase) or Counter()
            shown = ", ".join(f"{k} {n}" for k, n in sorted(kinds.items()))
            out.append(f"  faults {phase} the act: {shown or 'none'}")
        return out


@dataclass(frozen=True)
class KindFaultRun:
    """A kind's fault run, declared in its test aids (``FAULT_RUN`` in
    ``kinds/<kind>/testing.py``): the emulated services it needs (``services(clock)``) and the
    run itself (``run(emulator, proxy, cycles=, rate=, seed=)``, built on
    :func:`create_then_delete` and :func:`run_cycles`, with an :class:`Interrupter` as the
    provider's sleep, :func:`interruption` and :func:`two_stack_cycle` choosing the cycles that are
    interrupted or raced by another stack, and :func:`owned` giving each stack's ``owner``).
    ``benchmarks/fault_run.py`` and the tests find every kind's so (:func:`kind_fault_runs`)."""

    provider: str
    services: Callable[[Any], list[Any]]
    run: Callable[..., FaultRunReport]


def kind_fault_runs() -> list[KindFaultRun]:
    """Every fault run the kinds' test aids declare, in the kinds' order."""
    from .. import registry

    found: list[KindFaultRun] = []
    for kind in registry.kinds():
        if kind.test_aids:
            declared = getattr(importlib.import_module(kind.test_aids), "FAULT_RUN", None)
            if isinstance(declared, KindFaultRun):
                found.append(declared)
    return found


@contextmanager
def _environment(values: dict[str, str]) -> Iterator[None]:
    saved = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def _retry(action: Callable[[], Any], attempts: int = 6) -> None:
    """Run ``action`` until it succeeds, as a user runs ``pulumi destroy`` again."""
    for attempt in range(attempts):
        try:
            action()
            return
        except Exception:  # noqa: BLE001 - any failure: try again
            if attempt + 1 == attempts:
                raise


class Interrupter:
    """A provider's ``sleep`` (the emulator's virtual clock) that, once :meth:`arm` ed, stops
    the create in flight after its ``n``-th sleep (``n`` drawn from 1 to 6) as the engine
    does: ``signal`` ends the call (its token, with the signal's grace: SIGINT or SIGTERM to
    the host, or a terminated run), ``cancel`` sends ``Cancel`` (the process's token)."""

    def __init__(self, emu: Emulator, seed: int) -> None:
        self.emu = emu
        self.rng = random.Random(seed)
        self.at: int | None = None
        self.how = ""
        self.count = 0
        self.fired = False

    def arm(self, how: str) -> None:
        self.at, self.how, self.count, self.fired = self.rng.randint(1, 6), how, 0, False

    def disarm(self) -> bool:
        """Stop stopping; whether it fired."""
        fired, self.at, self.fired = self.fired, None, False
        cancellation.PROCESS.reset()
        return fired

    def __call__(self, seconds: float) -> None:
        self.emu.clock.advance(seconds)
        if self.at is None or self.fired:
            return
        self.count += 1
        if self.count < self.at:
            return
        self.fired = True
        if self.how == "cancel":
            cancellation.PROCESS.cancel("fault run: the engine sent Cancel")
        else:
            call = cancellation.current_call()
            if call is not None:
                call.cancel("fault run: the engine ended the call", cancellation.SIGNAL_BUDGET)


def create_then_delete(
    report: FaultRunReport,
    provider: Any,
    props: dict[str, Any],
    error: type[Exception],
    tracked_as: Callable[[Any], str | set[str]],
    *,
    interrupter: Interrupter | None = None,
    interrupt: str = "",
    rival: dict[str, Any] | None = None,
    meanwhile: Callable[[Any], None] | None = None,
) -> set[str]:
    """One cycle's ``pulumi up`` and ``pulumi destroy``: what the state still tracks after it
    (``tracked_as(result)``, one key or several, of a create whose deletes all failed; else
    nothing). ``interrupt`` (``signal`` or ``cancel``) stops the create mid-wait; ``rival``
    (another stack's inputs for the same resource) is created once this create succeeded,
    and must be refused."""
    tracked: set[str] = set()
    if interrupter is not None and interrupt:
        interrupter.arm(interrupt)
    try:
        result = provider.create(props)
    except error as err:
        report.failed += 1
        report.errors[str(err).split(":")[0][:60]] += 1
        return tracked
    finally:
        if interrupter is not None and interrupter.disarm():
            report.interrupted += 1
    report.created += 1
    if _kept_at_timeout(result):
        report.kept += 1
    keys = tracked_as(result)
    tracked.update({keys} if isinstance(keys, str) else keys)
    if rival is not None:
        report.two_stack += 1
        try:
            provider.create(rival)
        except error:
            pass  # refused: the other stack's, never adopted
        else:
            report.cross_stack += 1
            report.duplicates += 1
    if meanwhile is not None:
        meanwhile(result)
    try:
        _retry(lambda: provider.delete(result.id, result.outs or {}))
        tracked.clear()
    except error:
        pass  # still tracked: not an orphan; the caller removes it
    return tracked


def _kept_at_timeout(result: Any) -> bool:
    """Whether a create's result is a resource kept still queued when its wait ended (the note
    the create leaves in ``observed``)."""
    observed = (getattr(result, "outs", None) or {}).get("observed")
    note = observed.get("note") if isinstance(observed, dict) else None
    return isinstance(note, str) and "kept" in note and "wait" in note


class OtherStack:
    """Two-stack cycles of a resource another stack's create does not collide with by name (the
    API names it, or its id derives from the stack's ownership key): once ``a``'s create
    succeeded, stack ``b`` creates one of the same inputs; it must make its own beside ``a``'s
    (never adopt it), and neither its create nor its destroy may act on ``a``'s: no request
    other than a read that names ``a``'s id (``key(result)``: the last segment of its id) in its
    path or body. ``made`` counts what ``b`` made in the current cycle (not duplicates of
    ``a``'s create): :meth:`duplicates` subtracts it. ``created()`` is how many resources the
    emulator has made so far."""

    def __init__(
        self,
        emu: Emulator,
        report: FaultRunReport,
        provider: Any,
        error: type[Exception],
        created: Callable[[], int],
        key: Callable[[Any], str] = lambda result: str(result.id).rsplit("/", 1)[-1],
    ) -> None:
        self.emu, self.report, self.provider, self.error = emu, report, provider, error
        self.created, self.key = created, key
        self.made = 0

    def start(self) -> int:
        """A new cycle: how many resources exist so far (``before``)."""
        self.made = 0
        return self.created()

    def _touched(self, key: str, since: int) -> bool:
        for request in self.emu.requests[since:]:
            if request.method == "GET":
                continue
            if key in request.path or key in json.dumps(request.body, default=str):
                return True
        return False

    def meanwhile(self, rival: dict[str, Any]) -> Callable[[Any], None]:
        """What :func:`create_then_delete` runs between ``a``'s create and delete."""

        def run(result: Any) -> None:
            self.report.two_stack += 1
            before, since = self.created(), len(self.emu.requests)
            try:
                made = self.provider.create(rival)
            except self.error:
                made = None
            self.made += self.created() - before
            if made is not None:
                if made.id == result.id:  # b adopted a's
                    self.report.cross_stack += 1
                    self.report.duplicates += 1
                    return
                with contextlib.suppress(self.error):
                    _retry(lambda: self.provider.delete(made.id, made.outs or {}))
            if self._touched(self.key(result), since):  # b's create or destroy acted on a's
                self.report.cross_stack += 1
                self.report.duplicates += 1

        return run

    def duplicates(self, before: int) -> None:
        """Count what ``a``'s one create made beyond one (``b``'s own left out)."""
        self.report.duplicates += max(0, self.created() - before - self.made - 1)


def interruption(i: int) -> str:
    """Which cycles are interrupted mid-wait, and how: about one in six."""
    return {5: "signal", 10: "cancel"}.get(i % 11, "")


def two_stack_cycle(i: int) -> bool:
    """Which cycles another stack goes for the same resource in: one in seven."""
    return i % 7 == 3


def run_cycles(
    report: FaultRunReport,
    proxy: FaultProxy,
    plan: ProxyFaultPlan,
    endpoint_env: str,
    deadline: float,
    cycles: int,
    cycle: Callable[[int], None],
) -> FaultRunReport:
    """Run ``cycle(i)`` ``cycles`` times with the provider pointed at ``proxy`` (its endpoint
    variable ``endpoint_env``) under ``plan``; then record what the proxy injected."""
    env = {endpoint_env: proxy.url, "DWS_VIRTUAL_CLOCK_URL": "", "DWS_HTTP_TIMEOUT": str(deadline)}
    proxy.plan = plan
    with _environment(env):
        for i in range(cycles):
            cycle(i)
            report.cycles += 1
    report.faults = proxy.counts()
    report.requests = proxy.requests()
    return report


def count_duplicates(report: FaultRunReport, created: list[Any], before: int) -> None:
    """One create made ``len(created) - before`` resources: all but the first are duplicates."""
    report.duplicates += max(0, len(created) - before - 1)


def sweep_keys(
    report: FaultRunReport, keys: list[Any], tracked: set[str], remove: Callable[..., None]
) -> None:
    """Remove every resource ``(project, location, id)`` in ``keys``; count as orphans those
    whose id the state does not track."""
    for key in keys:
        if key[2] not in tracked:
            report.orphans += 1
        remove(*key)


def keyed_cycle(
    emu: Emulator,
    report: FaultRunReport,
    i: int,
    provider: Any,
    error: type[Exception],
    props: dict[str, Any],
    key: str,
    *,
    interrupter: Interrupter,
    created: Callable[[], list[Any]],
    listed: Callable[[], list[Any]],
    remove: Callable[..., None],
    settle: Callable[[], None] | None = None,
) -> None:
    """Cycle ``i`` of a resource whose id the program names (``key``): stack ``a`` creates
    and deletes it (interrupted on the cycles :func:`interruption` picks), and on the cycles
    :func:`two_stack_cycle` picks stack ``b`` goes for the same id and must be refused. Then
    ``settle()`` (clear what the cycle scripted), all but one of what the create made
    (``created()``) count as duplicates, the clock lets any delete in flight finish, and every
    resource ``listed()`` is removed, those the state does not track counted as orphans."""
    before = len(created())
    tracked = create_then_delete(
        report,
        provider,
        owned(props, STACK_A, key),
        error,
        lambda _: key,
        interrupter=interrupter,
        interrupt=interruption(i),
        rival=owned(props, STACK_B, key) if two_stack_cycle(i) else None,
    )
    if settle is not None:
        settle()
    count_duplicates(report, created(), before)
    emu.clock.advance(3600)  # let any delete in flight finish
    sweep_keys(report, listed(), tracked, remove)


def flex_vm_fault_run(
    emu: Emulator,
    proxy: FaultProxy,
    *,
    cycles: int = 200,
    rate: float = 0.25,
    seed: int = 1,
    names: int = 5,
    deadline: float = 0.1,
    held_weight: float = 0.05,
) -> FaultRunReport:
    """``cycles`` create/delete cycles of ``FlexStartVm`` through ``proxy`` (see the module
    docstring). Every fourth cycle waits in the queue for capacity; every tenth finds none."""

    compute = emu["compute"]
    report = FaultRunReport("FlexStartVm")
    interrupter = Interrupter(emu, seed)
    provider = FlexStartVmProvider(sleep=interrupter, poll=POLL)

    def cycle(i: int) -> None:
        slot = i % names
        props = flex_start_vm_props(
            f"vm-{slot}",
            project=PROJECT,
            zone=ZONE,
            machine_type=MACHINE,
            max_run=86400,
            termination_action="STOP",
            labels={"slot": str(slot)},
            request_valid_for=7200 if slot % 2 == 0 else None,
            wait_for="accepted" if slot == 4 else "running",
        )
        _take_all_capacity(compute)
        if i % 10 != 9:
            compute.add_capacity(ZONE, MACHINE, 1, after=1800 if i % 4 == 2 else 0)
        compute.keep_failed_instances = i % 20 >= 10
        before = len(compute.created)
        mine = owned(props, STACK_A, f"vm-{slot}")
        tracked = create_then_delete(
            report,
            provider,
            mine,
            FlexStartError,
            lambda result: str(result.outs["observed"]["instanceId"]),
            interrupter=interrupter,
            interrupt=interruption(i),
            rival=owned(props, STACK_B, f"vm-{slot}") if two_stack_cycle(i) else None,
        )
        count_duplicates(report, compute.created, before)
        for vm in compute.instances(PROJECT):
            if str(vm["id"]) not in tracked:
                report.orphans += 1
            compute.remove_instance(PROJECT, ZONE, vm["name"])

    plan = ProxyFaultPlan(rate=rate, seed=seed, held_weight=held_weight)
    return run_cycles(report, proxy, plan, "DWS_COMPUTE_ENDPOINT", deadline, cycles, cycle)


def slurm_fault_run(
    emu: Emulator,
    proxy: FaultProxy,
    *,
    cycles: int = 200,
    rate: float = 0.25,
    seed: int = 1,
    names: int = 4,
    deadline: float = 0.1,
    held_weight: float = 0.05,
    body: Callable[[str], dict[str, Any]],
    project: str = "my-project",
    region: str = "us-central1",
) -> FaultRunReport:
    """``cycles`` create/delete cycles of ``SlurmCluster`` through ``proxy``; ``body(cluster_id)``
    gives the create body. Every seventh create's operation fails (the clean-up path)."""

    svc = emu["aiplatform"]
    report = FaultRunReport("SlurmCluster")
    interrupter = Interrupter(emu, seed)
    provider = SlurmClusterProvider(sleep=interrupter, poll=POLL)

    def cycle(i: int) -> None:
        cluster_id = f"c{i % names}"
        props = {
            "project": project,
            "region": region,
            "cluster_id": cluster_id,
            "body": body(cluster_id),
        }
        if i % 7 == 6:
            svc.fail_next("create")
        keyed_cycle(
            emu,
            report,
            i,
            provider,
            SlurmClusterError,
            props,
            cluster_id,
            interrupter=interrupter,
            created=lambda: svc.created,
            listed=lambda: list(svc.clusters),
            remove=svc.remove,
            settle=lambda: svc.failures["create"].clear(),
        )

    plan = ProxyFaultPlan(rate=rate, seed=seed, held_weight=held_weight)
    return run_cycles(report, proxy, plan, "DWS_AIPLATFORM_ENDPOINT", deadline, cycles, cycle)


def queued_tpu_fault_run(
    emu: Emulator,
    proxy: FaultProxy,
    *,
    cycles: int = 200,
    rate: float = 0.25,
    seed: int = 1,
    names: int = 4,
    deadline: float = 0.1,
    held_weight: float = 0.05,
    body: Callable[[str, str], dict[str, Any]],
    project: str = "p",
    zone: str = "us-east5-a",
) -> FaultRunReport:
    """``cycles`` create/delete cycles of ``QueuedTpu`` (a v6e-16 slice) through ``proxy``;
    ``body(queued_resource_id, zone)`` gives the create body (with a 2-hour queue window).
    Every fourth create waits in the queue for its chips, every seventh request fails when
    accepted, every tenth finds no chips (its window expires); every third returns once
    accepted."""

    svc = emu["tpu"]
    report = FaultRunReport("QueuedTpu")
    interrupter = Interrupter(emu, seed)
    provider = QueuedTpuProvider(sleep=interrupter, poll=POLL)

    def cycle(i: int) -> None:
        resource_id = f"qr{i % names}"
        props = {
            "project": project,
            "zone": zone,
            "queuedResourceId": resource_id,
            "body": body(resource_id, zone),
            "waitFor": "accepted" if i % 3 == 2 else "active",
        }
        svc.take_all_chips(zone, "v6e")  # start each cycle with none free
        if i % 10 != 9:
            svc.add_chips(zone, "v6e", 16, after=1800 if i % 4 == 1 else 0)
        if i % 7 == 6:
            svc.fail_next()
        keyed_cycle(
            emu,
            report,
            i,
            provider,
            QueuedTpuError,
            props,
            resource_id,
            interrupter=interrupter,
            created=lambda: svc.created,
            listed=svc.queued_resources,
            remove=svc.remove,
        )

    plan = ProxyFaultPlan(rate=rate, seed=seed, held_weight=held_weight)
    return run_cycles(report, proxy, plan, "DWS_TPU_ENDPOINT", deadline, cycles, cycle)


def mig_resize_fault_run(
    emu: Emulator,
    proxy: FaultProxy,
    *,
    cycles: int = 200,
    rate: float = 0.25,
    seed: int = 1,
    groups: int = 4,
    count: int = 2,
    deadline: float = 0.1,
    held_weight: float = 0.05,
) -> FaultRunReport:
    """``cycles`` create/delete cycles of ``MigResizeRequest`` through ``proxy`` on ``groups``
    Flex-start groups (odd ones regional), ``count`` VMs each. Every fourth cycle's set queues
    for capacity, every seventh request fails while it queues, every tenth starts with no
    capacity free (where none comes back from the VMs deleted before it, the wait runs out and
    the request is kept, as ``onTimeout: keep`` asks, then deleted by the cycle's destroy); some
    requests stay ``CREATING`` a while, some VMs boot slowly.
    An orphan is a resize request or a VM no successful create returned."""

    compute = emu["compute"]
    report = FaultRunReport("MigResizeRequest")
    interrupter = Interrupter(emu, seed)
    provider = MigResizeRequestProvider(sleep=interrupter, poll=POLL)
    regions = {slot: REGION if slot % 2 else None for slot in range(groups)}
    for slot, region in regions.items():
        for stack in ("", "b"):  # stack b's groups: each stack names its own (default names)
            flex_start_group(
                emu,
                f"g{slot}{stack}",
                project=PROJECT,
                zone=None if region else ZONE,
                region=region,
            )

    def other_stack(props: dict[str, Any], slot: int) -> Callable[[Any], None]:
        """Stack b makes and destroys its set in its own group; stack a's set must stay whole."""

        def meanwhile(result: Any) -> None:
            report.two_stack += 1
            mine = set(result.outs["observed"]["instances"])
            theirs = {**props, "group": f"g{slot}b", "owner": {**STACK_B, "name": "rr"}}
            compute.add_capacity(ZONE, MACHINE, count)
            before = (len(compute.resize_inserted), len(compute.created))
            try:
                made = provider.create(theirs)
                _retry(lambda: provider.delete(made.id, made.outs or {}))
            except MigResizeError:
                pass
            b_requests = len(compute.resize_inserted) - before[0]
            b_vms = len(compute.created) - before[1]
            extra[0] += b_requests
            extra[1] += b_vms
            left = {vm["name"] for vm in compute.instances(PROJECT)}
            if mine and not mine <= left:  # b's destroy took a's VMs
                report.cross_stack += 1
                report.duplicates += 1
            for vm in compute.instances(PROJECT):  # b's own leftovers, if any: not a's orphans
                if vm["name"] not in mine and "g" + str(slot) + "b" in vm["name"]:
                    report.orphans += 1
                    compute.remove_instance(PROJECT, str(vm["zone"]).rsplit("/", 1)[-1], vm["name"])

        return meanwhile

    extra = [0, 0]  # requests and VMs stack b made in the current cycle

    def cycle(i: int) -> None:
        slot = i % groups
        region = regions[slot]
        props = mig_resize_props(
            f"rr-{i % 3}",
            f"g{slot}",
            count=count,
            run=86400,
            project=PROJECT,
            zone=None if region else ZONE,
            region=region,
            wait_for="accepted" if i % 5 == 3 else "running",
        )
        _take_all_capacity(compute)
        if i % 10 != 9:
            queued = i % 4 == 2 or i % 7 == 6
            compute.add_capacity(ZONE, MACHINE, count, after=1800 if queued else 0)
        if i % 7 == 6:
            compute.fail_next_resize_request(after=900)
        compute.mig_accept_seconds = 30 if i % 3 == 0 else 0
        compute.mig_boot_seconds = 60 if i % 2 == 0 else 0
        requests_before = len(compute.resize_inserted)
        vms_before = len(compute.created)
        extra[0] = extra[1] = 0
        tracked = create_then_delete(
            report,
            provider,
            owned(props, STACK_A, "rr"),
            MigResizeError,
            lambda r: {r.outs["observed"]["selfLink"], *r.outs["observed"]["instances"]},
            interrupter=interrupter,
            interrupt=interruption(i),
            meanwhile=other_stack(props, slot) if two_stack_cycle(i) else None,
        )
        compute.forget_scripted_failure()
        made = len(compute.resize_inserted) - requests_before - extra[0]
        vms = len(compute.created) - vms_before - extra[1]
        report.duplicates += max(0, made - 1) + max(0, vms - count * max(made, 1))
        report.orphans += _sweep(compute, tracked)

    plan = ProxyFaultPlan(rate=rate, seed=seed, held_weight=held_weight)
    return run_cycles(report, proxy, plan, "DWS_COMPUTE_ENDPOINT", deadline, cycles, cycle)


def labelled_job_fault_run(
    emu: Emulator,
    proxy: FaultProxy,
    *,
    cycles: int = 200,
    rate: float = 0.25,
    seed: int = 1,
    names: int = 4,
    deadline: float = 0.1,
    held_weight: float = 0.05,
) -> FaultRunReport:
    """``cycles`` create/delete cycles of a job of the fake API that names its jobs and takes no
    request id (:mod:`~pulumi_dws.testing.labelled_jobs`: the ``OWNER_SEARCH`` mode) through
    ``proxy``; the emulator must serve a ``LabelledJobsService``. Every seventh job fails
    once created (the clean-up path). A duplicate is a second job made by one create."""
    svc = emu["labelled-jobs"]
    report = FaultRunReport("LabelledJob")
    interrupter = Interrupter(emu, seed)
    provider = LabelledJobProvider(sleep=interrupter, poll=POLL)
    other = OtherStack(emu, report, provider, LabelledJobError, lambda: len(svc.created))

    def cycle(i: int) -> None:
        props = {
            "project": PROJECT,
            "region": REGION,
            "displayName": f"job-{i % names}",
            "body": {"jobSpec": {"workerPoolSpecs": [{"replicaCount": 1 + i % names}]}},
        }
        if i % 7 == 6:
            svc.fail_next()
        before = other.start()
        tracked = create_then_delete(
            report,
            provider,
            owned(props, STACK_A, "job"),
            LabelledJobError,
            lambda r: r.id,
            interrupter=interrupter,
            interrupt=interruption(i),
            meanwhile=other.meanwhile(owned(props, STACK_B, "job")) if two_stack_cycle(i) else None,
        )
        other.duplicates(before)
        for job in svc.jobs():
            if job["name"] not in tracked:
                report.orphans += 1
            svc.remove(job["name"])

    plan = ProxyFaultPlan(rate=rate, seed=seed, held_weight=held_weight)
    return run_cycles(report, proxy, plan, LABELLED_JOBS.env_var, deadline, cycles, cycle)


def _take_all_capacity(compute: Any) -> None:
    """Start a cycle with no capacity free in ``ZONE`` for ``MACHINE``."""
    while compute.capacity.take(ZONE, MACHINE):
        pass


REGION = "us-central1"


def _sweep(compute: Any, tracked: set[str]) -> int:
    """Remove every resize request and VM left in ``compute``; the number not in
    ``tracked`` (their selfLinks, VM names)."""
    orphans = 0
    for request in compute.resize_requests(PROJECT):
        link = str(request["selfLink"])
        if link not in tracked:
            orphans += 1
        parts = link.split("/")
        where = parts[parts.index("projects") + 2 : parts.index("projects") + 4]
        group = parts[parts.index("instanceGroupManagers") + 1]
        scope = {"zone": where[1]} if where[0] == "zones" else {"region": where[1]}
        compute.remove_resize_request(PROJECT, group, request["name"], **scope)
    for vm in compute.instances(PROJECT):
        if vm["name"] not in tracked:
            orphans += 1
        compute.remove_instance(PROJECT, str(vm["zone"]).rsplit("/", 1)[-1], vm["name"])
    return orphans
