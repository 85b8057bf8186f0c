"""The ``dws`` command: ``dws plan``, ``dws emulator``, ``dws advise``, ``dws limits``.

Exit codes: 0 success; 1 the program or its configuration is invalid; 2 usage error (also
``dws plan --stack`` naming a stack with no config file in a project that has other stacks);
3 a mandatory policy was violated.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

__all__ = ["main", "build_parser"]

EXIT_OK, EXIT_INVALID, EXIT_USAGE, EXIT_POLICY = 0, 1, 2, 3


def _plan(args: argparse.Namespace) -> int:
    from .plan import PlanError, UnknownStackError, run_plan
    from .plan.policy import apply_policies
    from .plan.render import render_json, render_markdown, render_text

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
        print(render_json(plan, report.document()))
    elif args.format == "markdown":
        print(render_markdown(plan, report.markdown()))
    else:
        print(render_text(plan, report.text()))
    return EXIT_POLICY if report.mandatory_failed else EXIT_OK


def _emulator(args: argparse.Namespace) -> int:
    import threading

    from .testing.emulator import Emulator

    emulator = Emulator(port=args.port)
    compute = emulator.services.get("compute")
    for spec in args.capacity:
        zone, machine, count = spec.split(":")
        if compute is None:
            print("error: this build has no Compute emulator", file=sys.stderr)
            return EXIT_USAGE
        compute.capacity.add(zone, machine, int(count))
    emulator.start()
    print(f"DWS emulator on {emulator.url} (virtual clock: {emulator.clock_url})")
    print(f"  export DWS_COMPUTE_ENDPOINT={emulator.url}")
    print(f"  export DWS_AIPLATFORM_ENDPOINT={emulator.url}")
    print(f"  export DWS_VIRTUAL_CLOCK_URL={emulator.clock_url}")
    print("Ctrl-C stops it.", flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        emulator.stop()
    return EXIT_OK


def _limits(args: argparse.Namespace) -> int:
    from . import limits

    for row in limits.table():
        print(f"{row.key:34} {row.allowed():40} {row.source}")
    return EXIT_OK


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="dws", description="Dynamic Workload Scheduler capacity as Pulumi code."
    )
    sub = parser.add_subparsers(dest="command", required=True)

    plan = sub.add_parser("plan", help="plan a Pulumi project offline, with policy checks")
    plan.add_argument("project_dir", nargs="?", default=".", help="directory with Pulumi.yaml")
    plan.add_argument("--stack", "-s", default="dev", help="stack whose config to load")
    plan.add_argument("--format", choices=("text", "json", "markdown"), default="text")
    plan.add_argument("--policy-config", help="JSON/YAML file of policy settings")
    plan.add_argument("--no-policy", action="store_true", help="skip the policy checks")
    plan.set_defaults(func=_plan)

    emu = sub.add_parser("emulator", help="serve the local Google API emulator")
    emu.add_argument("--port", type=int, default=8765)
    emu.add_argument(
        "--capacity",
        action="append",
        default=[],
        metavar="ZONE:MACHINE_TYPE:COUNT",
        help="free capacity to start with (repeatable)",
    )
    emu.set_defaults(func=_emulator)

    lim = sub.add_parser("limits", help="print the service limits table in force")
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


if __name__ == "__main__":
    sys.exit(main())
