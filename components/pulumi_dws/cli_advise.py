"""``dws advise calendar|capacity``: ask Google where and when GPU or TPU capacity can be had.

Wired into ``dws`` by :func:`add_advise_parser`; also runs on its own::

    python -m pulumi_dws.cli_advise calendar --region us-central1 \\
        --machine-type a3-highgpu-8g --count 2 --duration 7d \\
        --earliest 2027-03-01 --latest 2027-04-01 [--emit]
    python -m pulumi_dws.cli_advise calendar --region us-east5 \\
        --tpu-version v6e --count 16 --workload-type BATCH --duration 7d
    python -m pulumi_dws.cli_advise capacity --region us-central1 \\
        --machine-type a3-highgpu-8g --count 2

Exit codes: 0 recommendations found, 1 the API call failed (explained), 2 invalid input,
3 the API answered without a recommendation.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TextIO
from urllib.parse import urlparse

from .advice import (
    AdviceError,
    CalendarQuery,
    CapacityQuery,
    ask_calendar_mode,
    ask_capacity,
    calendar_json,
    calendar_table,
    capacity_json,
    capacity_table,
    emit_json,
    emit_text,
    resolve_project,
)
from .errors import DwsValidationError
from .policy.engine import stack_limits
from .providers.endpoints import COMPUTE
from .providers.rest import GoogleRestClient, RetryPolicy
from .validation import check_name

__all__ = ["add_advise_parser", "run_calendar", "run_capacity", "main", "EXIT_CODES"]

EXIT_OK, EXIT_API_ERROR, EXIT_INVALID, EXIT_NO_RECOMMENDATION = 0, 1, 2, 3
EXIT_CODES = {
    "ok": EXIT_OK,
    "api_error": EXIT_API_ERROR,
    "invalid": EXIT_INVALID,
    "no_recommendation": EXIT_NO_RECOMMENDATION,
}

_CLI_RETRY = RetryPolicy(attempts=4, cap=10.0, retry_after_cap=30.0)


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--project", help="project id (default: Application Default Credentials', or gcloud's)"
    )
    parser.add_argument("--region", required=True, help="region, e.g. us-central1")
    parser.add_argument(
        "--count", type=int, default=1, help="number of VMs, or TPU chips (default 1)"
    )
    parser.add_argument("--format", choices=("table", "json"), default="table")
    parser.add_argument(
        "--endpoint",
        help="Compute API root URL, e.g. http://127.0.0.1:8765/ for `dws emulator` "
        "(default: $DWS_COMPUTE_ENDPOINT, else Google)",
    )
    parser.add_argument(
        "--limits-profile",
        choices=("current", "seed"),
        help="limits table to validate with (seed: 7/14-day blocks, 8 weeks ahead)",
    )


def add_advise_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add ``advise`` (with ``calendar`` and ``capacity``) to a ``dws`` subparsers object.

    Each leaf sets ``func``: call ``args.func(args)`` and exit with the int it returns.
    """
    advise = subparsers.add_parser(
        "advise",
        help="find a Calendar-mode window or a zone with capacity before you ask",
        description="Ask the Compute API's advice methods where and when GPUs can be had.",
        epilog="exit codes: 0 recommendations, 1 API error (explained), 2 invalid input, "
        "3 no recommendation",
    )
    leaves = advise.add_subparsers(dest="advise_command", metavar="{calendar,capacity}")
    leaves.required = True

    cal = leaves.add_parser(
        "calendar",
        help="when and where a Calendar-mode reservation would be approved",
        description="advice.calendarMode: recommended zone and window for a future "
        "reservation in Calendar mode. Dates: 2027-03-01, 2027-03-01T08:00:00Z or +2w.",
    )
    _common(cal)
    what = cal.add_mutually_exclusive_group(required=True)
    what.add_argument(
        "--machine-type", help="GPU or H4D machine type, e.g. a3-highgpu-8g, h4d-highmem-192"
    )
    what.add_argument(
        "--tpu-version", help="TPU version (v5e, v5p, v6e): --count is then a number of chips"
    )
    cal.add_argument("--workload-type", help="TPUs: BATCH or SERVING (default: not sent)")
    cal.add_argument("--duration", required=True, help="block length, e.g. 7d (shortest)")
    cal.add_argument("--max-duration", help="longest acceptable block (default: --duration)")
    cal.add_argument("--earliest", help="earliest start (default: 1 day from now)")
    cal.add_argument("--latest", help="latest start (default: the end of the look-ahead)")
    cal.add_argument(
        "--exclude-zone",
        dest="exclude_zones",
        action="append",
        default=[],
        metavar="ZONE",
        help="never use this zone",
    )
    cal.add_argument(
        "--emit",
        action="store_true",
        help="print a CalendarReservation snippet and the dws:capacity config block",
    )
    cal.add_argument("--pick", type=int, default=1, help="recommendation to emit (default 1)")
    cal.add_argument("--name", help="reservation name in the snippet (default: type + date)")
    cal.set_defaults(func=run_calendar, flags=_flags(cal))

    cap = leaves.add_parser(
        "capacity",
        help="which zone can place VMs right now (Flex-start by default)",
        description="advice.capacity: real-time obtainability of VMs per zone and machine type.",
    )
    _common(cap)
    cap.add_argument(
        "--machine-type",
        action="append",
        required=True,
        help="GPU machine type; repeat to rank alternatives",
    )
    cap.add_argument(
        "--provisioning-model",
        choices=("FLEX_START", "SPOT", "STANDARD", "RESERVATION_BOUND"),
        default="FLEX_START",
    )
    cap.add_argument(
        "--shape",
        dest="target_shape",
        choices=("ANY_SINGLE_ZONE", "ANY", "BALANCED"),
        default="ANY_SINGLE_ZONE",
        help="how VMs may spread over zones (default: all in one zone)",
    )
    cap.add_argument(
        "--zone", dest="zones", action="append", default=[], help="only consider this zone"
    )
    cap.set_defaults(func=run_capacity, flags=_flags(cap))
    return advise


def _flags(parser: argparse.ArgumentParser) -> dict[str, str]:
    """Each flag by its destination, which is the name of the query field it gives
    (``exclude_zones`` -> ``--exclude-zone``): how an error about a field names the flag."""
    return {
        action.dest: action.option_strings[0]
        for action in parser._actions
        if action.option_strings and action.dest != "help"
    }


# ------------------------------------------------------------------------------ handlers
def _flag_message(err: DwsValidationError, flags: Mapping[str, str]) -> str:
    field = err.field
    root = re.split(r"[.\[]", field, maxsplit=1)[0]
    flag = flags.get(root)
    shown = f"{flag} ({field})" if flag and root != field else (flag or field)
    return f"{shown}: {str(err)[len(field) + 2 :]}"


def _client(args: argparse.Namespace) -> GoogleRestClient:
    if args.endpoint is not None:
        url = urlparse(args.endpoint)
        if url.scheme not in ("http", "https") or not url.netloc:
            raise DwsValidationError(
                "endpoint", args.endpoint, "is not an http(s) URL, e.g. http://127.0.0.1:8765/"
            )
    root = args.endpoint or COMPUTE.root()
    root = root if root.endswith("/") else root + "/"
    return GoogleRestClient(root + COMPUTE.path, retry=_CLI_RETRY)


def _print_json(data: Any, out: TextIO) -> None:
    out.write(json.dumps(data, indent=2) + "\n")


Handler = Callable[[argparse.Namespace, GoogleRestClient, str, TextIO, TextIO], int]


def _guard(run: Handler, args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Run a handler body, turning the library's errors into messages and exit codes.

    ``--limits-profile`` applies for this run only; the rows in force before come back.
    """
    profile = getattr(args, "limits_profile", None)
    try:
        with stack_limits({"profile": profile} if profile else None):
            client = _client(args)
            project = resolve_project(args.project, client.base_url)
            return int(run(args, client, project, out, err))
    except DwsValidationError as exc:
        err.write(f"error: {_flag_message(exc, getattr(args, 'flags', {}))}\n")
        return EXIT_INVALID
    except AdviceError as exc:
        err.write(f"error: {exc}\n")
        return EXIT_INVALID if exc.kind == "no_project" else EXIT_API_ERROR


def _calendar(
    args: argparse.Namespace, client: GoogleRestClient, project: str, out: TextIO, err: TextIO
) -> int:
    query = CalendarQuery.of({**vars(args), "project": project})
    if args.name is not None:
        check_name("name", args.name)
    advice = ask_calendar_mode(query, client)
    if advice.empty:
        if args.format == "json":
            _print_json(calendar_json(advice), out)
        err.write(advice.why_empty() + "\n")
        return EXIT_NO_RECOMMENDATION
    if not args.emit:
        if args.format == "json":
            _print_json(calendar_json(advice), out)
        else:
            out.write(calendar_table(advice) + "\n")
        return EXIT_OK
    windows = advice.windows
    if not 1 <= args.pick <= len(windows):
        raise DwsValidationError(
            "pick", args.pick, f"is not a recommendation number: use 1 to {len(windows)}"
        )
    window = windows[args.pick - 1]
    if args.format == "json":
        _print_json(emit_json(window, args.name, args.pick - 1), out)
    else:
        out.write(emit_text(window, args.name, args.pick - 1))
    return EXIT_OK


def _capacity(
    args: argparse.Namespace, client: GoogleRestClient, project: str, out: TextIO, err: TextIO
) -> int:
    query = CapacityQuery.of({**vars(args), "project": project})
    advice = ask_capacity(query, client)
    if args.format == "json":
        _print_json(capacity_json(advice), out)
    elif not advice.empty:
        out.write(capacity_table(advice) + "\n")
    if advice.empty:
        err.write(advice.why_empty() + "\n")
        return EXIT_NO_RECOMMENDATION
    return EXIT_OK


def run_calendar(
    args: argparse.Namespace, out: TextIO | None = None, err: TextIO | None = None
) -> int:
    """Handler of ``dws advise calendar``; returns the exit code."""
    return _guard(_calendar, args, out or sys.stdout, err or sys.stderr)


def run_capacity(
    args: argparse.Namespace, out: TextIO | None = None, err: TextIO | None = None
) -> int:
    """Handler of ``dws advise capacity``; returns the exit code."""
    return _guard(_capacity, args, out or sys.stdout, err or sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m pulumi_dws.cli_advise calendar|capacity ...``."""
    parser = argparse.ArgumentParser(prog="dws", description="pulumi-dws capacity advice")
    commands = parser.add_subparsers(dest="command", metavar="advise")
    add_advise_parser(commands)
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] in ("calendar", "capacity"):
        argv = ["advise", *argv]
    args = parser.parse_args(argv)
    if not hasattr(args, "func"):
        parser.print_help()
        return EXIT_INVALID
    return int(args.func(args))


if __name__ == "__main__":
    sys.exit(main())
