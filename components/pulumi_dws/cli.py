"""The ``dws`` command: ``dws plan``, ``dws emulator``, ``dws advise``, ``dws limits``,
``dws leftovers``.

Exit codes: 0 success; 1 the program or its configuration is invalid; 2 usage error (also
``dws plan`` of a directory that does not exist or holds no ``Pulumi.yaml``, and ``dws plan
--stack`` naming a stack with no config file in a project that has other stacks);
3 a mandatory policy was violated.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import sys
from collections.abc import Sequence
from typing import Any

__all__ = ["main", "build_parser", "version"]

EXIT_OK, EXIT_INVALID, EXIT_USAGE, EXIT_POLICY = 0, 1, 2, 3


def _out(text: str) -> None:
    """Print to stdout; a reader that went away (``dws plan | head``) ends output quietly."""
    try:
        print(text, flush=True)
    except BrokenPipeError:
        _silence_stdout()


def _silence_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's final flush cannot fail either."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)


def _plan(args: argparse.Namespace) -> int:
    from .plan import PlanError, UnknownStackError, run_plan
    from .plan.policy import apply_policies
    from .plan.render import render_json, render_markdown, render_text

    if args.no_policy and args.policy_config:
        print(
            "error: --no-policy and --policy-config contradict each other; give one",
            file=sys.stderr,
        )
        return EXIT_USAGE
    missing = _no_project(args.project_dir)
    if missing:
        print(f"error: {missing}", file=sys.stderr)
        return EXIT_USAGE
    try:
        plan = run_plan(args.project_dir, args.stack)
    except UnknownStackError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except PlanError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_INVALID
    try:
        report = apply_policies(plan, args.policy_config, enabled=not args.no_policy)
    except (OSError, ValueError) as exc:  # a bad policy config file or dws:policy object
        print(f"error: policy configuration: {exc}", file=sys.stderr)
        return EXIT_INVALID
    if args.format == "json":
        _out(render_json(plan, report.document()))
    elif args.format == "markdown":
        _out(render_markdown(plan, report.markdown()))
    else:
        _out(render_text(plan, report.text()))
    return EXIT_POLICY if report.mandatory_failed else EXIT_OK


def _no_project(directory: str) -> str | None:
    """Why ``directory`` is no Pulumi project to plan (a usage error), or None."""
    from pathlib import Path

    path = Path(directory)
    if not path.exists():
        return f"{directory}: no such directory"
    if not path.is_dir():
        return f"{directory}: not a directory (give the directory that holds Pulumi.yaml)"
    if not any((path / name).is_file() for name in ("Pulumi.yaml", "Pulumi.yml")):
        return f"{directory}: no Pulumi.yaml here"
    return None


def version() -> str:
    """The installed pulumi-dws version (``unknown`` when not installed as a distribution)."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as dist_version

    try:
        return dist_version("pulumi-dws")
    except PackageNotFoundError:
        return "unknown"


def _leftovers(args: argparse.Namespace) -> int:
    from .leftovers import (
        LeftoverError,
        Search,
        find_leftovers,
        full_stack,
        remove,
        stack_export,
        state_search,
        tracked_ids,
    )

    try:
        stack = full_stack(args.stack)
        if args.state:
            with open(args.state, encoding="utf-8") as source:
                export = json.load(source)
        else:
            export = stack_export(args.stack)
        search = state_search(export, Search(args.project, list(args.zone), list(args.region)))
        found = find_leftovers(stack, search, tracked_ids(export))
    except (LeftoverError, OSError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except Exception as exc:  # noqa: BLE001 - an API that failed: one line, no traceback
        print(f"error: the leftovers could not be listed: {exc}", file=sys.stderr)
        return EXIT_INVALID
    if not found:
        _out(f"no leftovers of stack {stack} in project {args.project}")
        return EXIT_OK
    for left in found:
        line = f"{left.kind:18} {left.id}  {left.state}"
        if args.delete:
            try:
                line += f"  {remove(left)}"
            except Exception as exc:  # noqa: BLE001 - report it, go on with the others
                line += f"  not deleted: {exc}"
        _out(line)
    if not args.delete:
        _out(f"{len(found)} leftover(s) of stack {stack}: `dws leftovers --delete` removes them")
    return EXIT_OK


def _calendar_block(spec: str, now: dt.datetime) -> tuple[str, str, int, dt.datetime, dt.datetime]:
    """``ZONE:MACHINE_TYPE:COUNT:FROM:TO`` (GPU VMs) or ``ZONE:TPU_VERSION:CHIPS:FROM:TO`` (a TPU
    version Calendar mode offers: ``v6e``, ``v5e``, ``v5p``); FROM and TO: ``2027-03-01`` or
    ``+2w``. A TPU block is offered under its ``vmFamily``, as ``advice.calendarMode`` asks for
    TPU chips."""
    from .advice.inputs import parse_when
    from .errors import DwsValidationError
    from .validation import check_zone

    parts = spec.split(":")
    if len(parts) != 5:
        raise DwsValidationError(
            "--calendar",
            spec,
            "is not ZONE:MACHINE_TYPE:COUNT:FROM:TO or ZONE:TPU_VERSION:CHIPS:FROM:TO, e.g. "
            "us-central1-a:a3-highgpu-8g:2:+2w:+10w or us-east5-b:v6e:16:+2w:+10w",
        )
    zone, machine, count, start, end = parts
    check_zone("--calendar zone", zone)
    offered = _calendar_offer(machine)
    if offered != machine:  # TPU chips: where Calendar mode offers the version
        from . import catalog

        catalog.check_tpu_zone(
            "--calendar zone", zone, catalog.tpu_generation("v", machine), "calendar"
        )
    if not count.isdecimal() or int(count) < 1:
        raise DwsValidationError("--calendar count", count, "must be a whole number >= 1")
    begins, ends = parse_when("--calendar from", start, now), parse_when("--calendar to", end, now)
    if ends <= begins:
        raise DwsValidationError("--calendar to", end, f"is not after {start}")
    return zone, offered, int(count), begins, ends


def _calendar_offer(machine: str) -> str:
    """What the emulated Google offers a block of: a GPU machine type as it is, a TPU version
    as its reservation ``vmFamily``."""
    from . import catalog
    from .errors import DwsValidationError

    offered = ", ".join(g.name for g in catalog.tpu_generations() if g.calendar_version)
    try:
        catalog.machine_shape("--calendar machine type", machine)
        return machine
    except DwsValidationError as gpu_error:
        try:
            generation = catalog.tpu_generation("--calendar TPU version", machine)
        except DwsValidationError:
            raise DwsValidationError(
                gpu_error.field, machine, f"{gpu_error.problem}; or a TPU version ({offered})"
            ) from None
    if generation.calendar_version is None:
        raise DwsValidationError(
            "--calendar TPU version",
            machine,
            f"is not offered in Calendar mode ({generation.title}); use one of {offered}",
        )
    return generation.vm_family


def _capacity_spec(spec: str) -> tuple[str, str, int, bool]:
    """``ZONE:MACHINE_TYPE:COUNT`` (VMs of a GPU, TPU or CPU machine type the catalog knows)
    or ``ZONE:TPU_VERSION:CHIPS`` (Cloud TPU chips of a version the Cloud TPU API serves, in a
    zone where the version is): ``(zone, machine type or version, count, is_tpu_chips)``."""
    from . import catalog
    from .errors import DwsValidationError
    from .validation import check_zone

    parts = spec.split(":")
    if len(parts) != 3:
        raise DwsValidationError(
            "--capacity",
            spec,
            "is not ZONE:MACHINE_TYPE:COUNT or ZONE:TPU_VERSION:CHIPS, e.g. "
            "us-central1-a:a3-highgpu-8g:2 or us-east5-a:v6e:16",
        )
    zone, name, count = parts
    check_zone("--capacity zone", zone)
    if not count.isdecimal() or int(count) < 1:
        raise DwsValidationError("--capacity count", count, "must be a whole number >= 1")
    if catalog.is_tpu_machine(name) or name in catalog.known():
        return zone, name, int(count), False
    try:
        generation = catalog.tpu_generation("--capacity TPU version", name)
    except DwsValidationError:
        try:
            catalog.machine_kind("--capacity machine type", name)  # a CPU type, or refused
        except DwsValidationError as unknown:
            versions = ", ".join(g.name for g in catalog.tpu_generations() if g.cloud_tpu_prefix)
            raise DwsValidationError(
                unknown.field, name, f"{unknown.problem}; or a TPU version ({versions})"
            ) from None
        return zone, name, int(count), False
    if generation.cloud_tpu_prefix is None:
        raise DwsValidationError(
            "--capacity TPU version",
            name,
            f"is not served by the Cloud TPU API ({generation.title}); use one of "
            + ", ".join(g.name for g in catalog.tpu_generations() if g.cloud_tpu_prefix),
        )
    catalog.check_tpu_zone("--capacity zone", zone, generation, "tpu")
    return zone, generation.name, int(count), True


def _emulator(args: argparse.Namespace) -> int:
    import threading

    from .clock import now
    from .errors import DwsValidationError
    from .kinds import load_apis
    from .testing.emulator import Emulator, VirtualClock
    from .testing.emulator.advice import AdviceService

    started = now()
    try:
        capacity = [_capacity_spec(spec) for spec in args.capacity]
        blocks = [_calendar_block(spec, started) for spec in args.calendar]
    except DwsValidationError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    # Its clock starts now, so relative dates mean the same here and in `dws advise`.
    emulator = Emulator(clock=VirtualClock(started), port=args.port)
    advice = emulator.services["advice"]
    assert isinstance(advice, AdviceService)  # the default services include it
    model = advice.capacity
    for zone, machine, count, chips in capacity:
        if chips:
            emulator.services["tpu"].add_chips(zone, machine, count)  # type: ignore[attr-defined]
        else:
            model.add(zone, machine, count)
    for zone, machine, count, begins, ends in blocks:
        model.offer_calendar(zone, machine, count, begins, ends)
    try:
        emulator.start()
    except OSError as exc:
        print(f"error: --port {args.port}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_USAGE
    print(f"DWS emulator on {emulator.url} (virtual clock: {emulator.clock_url})")
    for api in load_apis():
        print(f"  export {api.env_var}={emulator.url}")
    print(f"  export DWS_VIRTUAL_CLOCK_URL={emulator.clock_url}")
    print(f"  export GOOGLE_CLOUD_PROJECT={args.project}")
    print("Ctrl-C stops it.", flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        emulator.stop()
    return EXIT_OK


def _emulate(args: argparse.Namespace) -> int:
    """Run a project's dynamic resources against an emulator started here (with the
    ``--capacity`` given), and print what each became."""
    from .errors import DwsValidationError
    from .plan import PlanError
    from .testing.emulated import emulate
    from .testing.emulator import Emulator

    missing = _no_project(args.project_dir)
    if missing:
        print(f"error: {missing}", file=sys.stderr)
        return EXIT_USAGE
    try:
        capacity = [_capacity_spec(spec) for spec in args.capacity]
    except DwsValidationError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    with Emulator() as emulator:
        for zone, machine, count, chips in capacity:
            if chips:
                emulator.services["tpu"].add_chips(zone, machine, count)  # type: ignore[attr-defined]
            else:
                emulator.services["compute"].add_capacity(zone, machine, count)  # type: ignore[attr-defined]
        try:
            run = emulate(args.project_dir, args.stack, emulator)
        except PlanError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return EXIT_INVALID
    _out(f"Created in the emulator ({len(run.created)} dynamic resources):")
    for name, id_, state in run.created:
        _out(f"  {name}  {id_}" + (f"  {state}" if state else ""))
    return EXIT_OK


def _limits(args: argparse.Namespace) -> int:
    import fnmatch
    import json

    from . import limits

    rows = limits.table()
    if args.keys:

        def wanted(key: str) -> bool:
            return any(
                fnmatch.fnmatchcase(key, p) if any(c in p for c in "*?[") else p in key
                for p in args.keys
            )

        rows = [row for row in rows if wanted(row.key)]
        if not rows:
            known = ", ".join(row.key for row in limits.table())
            print(f"error: no limit matches {' '.join(args.keys)}; rows: {known}", file=sys.stderr)
            return EXIT_USAGE
    if args.format == "json":
        _out(json.dumps([_limit_document(row) for row in rows], indent=2, ensure_ascii=False))
        return EXIT_OK
    width = max(len(row.key) for row in rows) + 2
    _out("\n".join(f"{row.key:{width}}{row.allowed():40} {row.source}" for row in rows))
    return EXIT_OK


def _limit_document(row: Any) -> dict[str, Any]:
    """One row as JSON: bounds in the row's unit (seconds or a count), and as text."""
    return {
        "key": row.key,
        "description": row.description,
        "unit": row.unit,
        "minimum": row.minimum,
        "maximum": row.maximum,
        "choices": list(row.choices) if row.choices else None,
        "zones": list(row.zones) if row.zones else None,
        "allowed": row.allowed(),
        "source": row.source,
    }


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="dws", description="Dynamic Workload Scheduler capacity as Pulumi code."
    )
    parser.add_argument("--version", action="version", version=f"dws (pulumi-dws) {version()}")
    sub = parser.add_subparsers(dest="command", required=True)

    plan = sub.add_parser("plan", help="plan a Pulumi project offline, with policy checks")
    plan.add_argument("project_dir", nargs="?", default=".", help="directory with Pulumi.yaml")
    plan.add_argument("--stack", "-s", default="dev", help="stack whose config to load")
    plan.add_argument("--format", choices=("text", "json", "markdown"), default="text")
    plan.add_argument("--policy-config", help="JSON/YAML file of policy settings")
    plan.add_argument("--no-policy", action="store_true", help="skip the policy checks")
    plan.set_defaults(func=_plan)

    emu = sub.add_parser(
        "emulator",
        help="serve the local Google API emulator",
        description="Serve the Compute (with advice) and Vertex AI emulator on 127.0.0.1 and "
        "print the exports that point pulumi-dws and `dws advise` at it.",
    )
    emu.add_argument("--port", type=int, default=0, help="port (default: a free one)")
    emu.add_argument(
        "--capacity",
        action="append",
        default=[],
        metavar="ZONE:MACHINE_TYPE:COUNT",
        help="free capacity to start with (repeatable): COUNT VMs of a machine type "
        "(us-central1-a:a3-highgpu-8g:2), or COUNT Cloud TPU chips of a TPU version "
        "(us-east5-a:v6e:16)",
    )
    emu.add_argument(
        "--calendar",
        action="append",
        default=[],
        metavar="ZONE:MACHINE_TYPE:COUNT:FROM:TO",
        help="a Calendar-mode block the emulated Google approves (repeatable): COUNT VMs of a "
        "GPU MACHINE_TYPE, or COUNT chips of a TPU version (us-east5-b:v6e:16:+2w:+10w); FROM "
        "and TO are dates (2027-03-01) or offsets from now (+2w)",
    )
    emu.add_argument(
        "--project",
        default="dws-emulator",
        help="the project the printed GOOGLE_CLOUD_PROJECT names (the emulator serves any)",
    )
    emu.set_defaults(func=_emulator)

    emulate = sub.add_parser(
        "emulate",
        help="create a project's dynamic resources in a local emulator",
        description="Run a Pulumi project as `pulumi up` would, offline: its pulumi-dws dynamic "
        "resources (Flex-start VMs, queued TPUs, resize requests, Slurm clusters) are created "
        "by their own providers against an emulator started here, with the capacity given; "
        "instance templates and groups are created there too, other resources are mocked.",
    )
    emulate.add_argument("project_dir", nargs="?", default=".", help="directory with Pulumi.yaml")
    emulate.add_argument("--stack", "-s", default="dev", help="stack whose config to load")
    emulate.add_argument(
        "--capacity",
        action="append",
        default=[],
        metavar="ZONE:MACHINE_TYPE:COUNT",
        help="free capacity (repeatable), as for `dws emulator`",
    )
    emulate.set_defaults(func=_emulate)

    left = sub.add_parser(
        "leftovers",
        help="list (and delete) what a stack made but does not track",
        description="List the resources a stack marked (its dws-stack label; for resize "
        "requests, its groups) that its state does not hold: what a `pulumi up` killed "
        "mid-create left. --delete removes each entirely (a resize request with its VMs).",
    )
    left.add_argument("--stack", required=True, help="PROJECT/STACK or ORGANIZATION/PROJECT/STACK")
    left.add_argument("--project", required=True, help="the Google Cloud project to search")
    left.add_argument(
        "--state", help="the stack's state, as `pulumi stack export` writes it (default: run it)"
    )
    left.add_argument(
        "--zone", action="append", default=[], help="a TPU zone to search (default: all)"
    )
    left.add_argument(
        "--region",
        action="append",
        default=[],
        help="a region to search for Slurm clusters, Batch and Vertex AI jobs (default: the "
        "regions of those in the stack's state)",
    )
    left.add_argument("--delete", action="store_true", help="delete every leftover found")
    left.set_defaults(func=_leftovers)

    lim = sub.add_parser(
        "limits",
        help="print the service limits table in force",
        description="The limits table with sources. Filter by key: a part of it (calendar) or "
        "a glob (gke.*).",
    )
    lim.add_argument("keys", nargs="*", metavar="KEY", help="only rows whose key matches")
    lim.add_argument("--format", choices=("text", "json"), default="text")
    lim.set_defaults(func=_limits)

    try:
        from .cli_advise import add_advise_parser
    except ImportError:  # pragma: no cover - advice is optional in partial builds
        pass
    else:
        add_advise_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``dws`` console script."""
    parser = build_parser()
    args: Any = parser.parse_args(argv)
    try:
        return int(args.func(args))
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # the reader went away (`dws ... | head`): no traceback
        _silence_stdout()
        return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
