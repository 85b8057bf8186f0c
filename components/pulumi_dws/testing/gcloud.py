"""A gcloud "oracle": see the exact request bodies Google's own CLI sends, fully offline.

Google's ``gcloud`` CLI is the reference client for the Compute Engine and GKE APIs. This
module runs a real ``gcloud`` command against a fake API server on ``127.0.0.1`` and records
every HTTP request it makes, so a test can compare the library's request bodies with what
``gcloud`` sends for the equivalent command line::

    from pulumi_dws.testing.gcloud import gcloud_unavailable_reason, run_gcloud

    reason = gcloud_unavailable_reason("alpha")
    if reason:
        pytest.skip(reason)
    cap = run_gcloud(["alpha", "compute", "instances", "create", "vm-1",
                      "--zone=us-central1-a", "--provisioning-model=FLEX_START", ...])
    assert cap.ok, cap.describe()
    body = cap.create_request().body
    assert body["scheduling"]["provisioningModel"] == "FLEX_START"

How it works:

* :class:`OracleServer` is the emulator (:mod:`pulumi_dws.testing.emulator`) on an ephemeral
  port, serving only its recording service (:mod:`pulumi_dws.testing.emulator.recording`): it
  records each request (method, path, query, headers, raw and JSON-decoded body, the status
  answered) and answers just plausibly enough for ``gcloud`` to finish (a ``DONE`` operation
  for every change, what was posted for a later GET, minimal zones, projects, images and GKE
  clusters; unknown paths a Google-style 404).
* :func:`run_gcloud` writes a private, throw-away ``CLOUDSDK_CONFIG`` directory (credentials
  disabled, prompts/usage reporting/surveys/update checks off, ``core/project`` set, the GCE
  metadata probe off) and points ``api_endpoint_overrides/<api>`` at the server.

Endpoint overrides, as gcloud 528 implements them (``apis_internal._BuildEndpointOverride``):

* There is ONE key per API: ``api_endpoint_overrides/compute`` is shared by the v1, beta and
  alpha Compute clients. (``compute/alpha``, ``compute/beta`` and ``compute/v1`` keys exist
  only under ``api_client_overrides``, which picks the client *version*, not the endpoint.)
* An override whose path is not ``/`` is used verbatim as the client's base URL, so the
  Compute override must carry the version path of the command's release track:
  ``.../compute/alpha/`` for ``gcloud alpha``, ``.../compute/beta/`` for ``gcloud beta``,
  ``.../compute/v1/`` for GA. :func:`run_gcloud` picks it from ``args[0]``. (A bare root URL
  also reaches the server, but then the resource URLs gcloud writes *into* request bodies,
  e.g. ``machineType``, lack the ``compute/<version>/`` segment, unlike the real thing.)
* GKE's client base URL is ``https://container.googleapis.com/`` and its request paths carry
  the version (``v1/``, ``v1beta1/``), so the ``container`` override is the server's root URL.

Resource URLs inside captured bodies point at the fake server
(``http://127.0.0.1:PORT/compute/alpha/projects/...``); :meth:`GcloudCapture.canonical`
rewrites them to the real hosts (``https://compute.googleapis.com/compute/alpha/...``).

Nothing here needs network access or Google credentials; no request leaves the machine.
"""

from __future__ import annotations

import configparser
import contextlib
import fcntl
import functools
import hashlib
import json
import os
import pickle
import re
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from .emulator import Emulator
from .emulator.recording import CapturedRequest, RecordingService, is_create_path

__all__ = [
    "DEFAULT_PROJECT",
    "CapturedRequest",
    "GcloudCapture",
    "GcloudCommand",
    "GcloudRuns",
    "OracleServer",
    "endpoint_overrides",
    "field_differences",
    "gcloud_available",
    "gcloud_path",
    "gcloud_unavailable_reason",
    "run_gcloud",
    "write_gcloud_config",
]

DEFAULT_PROJECT = "demo-project"
"""Project written to ``core/project`` when the caller does not pass one."""

_GCLOUD_ENV = "PULUMI_DWS_GCLOUD"

# Environment variables that would override the private configuration written below
# (CLOUDSDK_PYTHON* is kept: it only chooses the interpreter gcloud runs on).
_SCRUBBED_ENV_PREFIXES = ("CLOUDSDK_", "GOOGLE_APPLICATION_CREDENTIALS", "GCE_METADATA")
_KEPT_ENV_PREFIXES = ("CLOUDSDK_PYTHON",)

# Where each API really lives, for GcloudCapture.canonical().
_REAL_ROOTS = {
    "compute": "https://compute.googleapis.com/",
    "v2alpha1": "https://tpu.googleapis.com/",
    "v2": "https://tpu.googleapis.com/",
}
_DEFAULT_REAL_ROOT = "https://container.googleapis.com/"


# --------------------------------------------------------------------------------------------
# Captured data
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class GcloudCapture:
    """The outcome of one :func:`run_gcloud` call.

    Attributes:
        args: The gcloud arguments that were run (without the ``gcloud`` executable).
        returncode: gcloud's exit status (``-9`` if it was killed on timeout).
        stdout: What gcloud printed on standard output.
        stderr: What gcloud printed on standard error (progress, warnings, errors).
        requests: Every request the oracle server received, in arrival order.
        base_url: The server's root URL (``http://127.0.0.1:PORT/``).
        timed_out: True if gcloud was killed because it exceeded the timeout.
    """

    args: tuple[str, ...]
    returncode: int
    stdout: str
    stderr: str
    requests: tuple[CapturedRequest, ...]
    base_url: str
    timed_out: bool = False

    @property
    def ok(self) -> bool:
        """True if gcloud exited with status 0 (and was not killed)."""
        return self.returncode == 0 and not self.timed_out

    @property
    def mutations(self) -> list[CapturedRequest]:
        """The non-GET requests, in order (creates, actions, deletes, operation waits)."""
        return [r for r in self.requests if r.is_mutation]

    def find(self, method: str | None = None, path: str | None = None) -> list[CapturedRequest]:
        """Return the requests matching ``method`` (exact) and ``path`` (regex, ``re.search``)."""
        pattern = re.compile(path) if path is not None else None
        return [
            r
            for r in self.requests
            if (method is None or r.method == method.upper())
            and (pattern is None or pattern.search(r.path))
        ]

    def one(self, method: str, path: str) -> CapturedRequest:
        """Return the single request matching ``method`` and ``path`` (a regex).

        Raises:
            AssertionError: if there is not exactly one match (the message lists all
                requests and gcloud's stderr, to make a failing test easy to read).
        """
        found = self.find(method, path)
        if len(found) != 1:
            raise AssertionError(
                f"expected exactly one {method} request matching {path!r}, got {len(found)}\n"
                + self.describe()
            )
        return found[0]

    def create_request(self) -> CapturedRequest:
        """Return the one POST that creates a resource (not an action, not an operation wait).

        A "create" is a POST whose path ends in a collection: for Compute
        ``.../zones/{z}/{collection}``, ``.../regions/{r}/{collection}`` or
        ``.../global/{collection}``; for GKE ``.../clusters`` or ``.../nodePools``.

        Raises:
            AssertionError: if there is not exactly one such request.
        """
        creates = [r for r in self.requests if r.method == "POST" and is_create_path(r.path)]
        if len(creates) != 1:
            raise AssertionError(
                f"expected exactly one create request, got {len(creates)}\n" + self.describe()
            )
        return creates[0]

    def canonical(self, value: Any) -> Any:
        """Return ``value`` (e.g. a captured body) with fake-server URLs made real.

        Every string that starts with :attr:`base_url` is rewritten to the host the request
        would really go to: ``http://127.0.0.1:PORT/compute/alpha/projects/p/...`` becomes
        ``https://compute.googleapis.com/compute/alpha/projects/p/...``; GKE paths
        (``v1/...``, ``v1beta1/...``) get ``https://container.googleapis.com/``, Cloud TPU
        paths (``v2alpha1/...``, ``v2/...``) ``https://tpu.googleapis.com/``. Dicts and
        lists are copied recursively; other values are returned unchanged.
        """
        if isinstance(value, str):
            if not value.startswith(self.base_url):
                return value
            rest = value[len(self.base_url) :]
            return _REAL_ROOTS.get(rest.split("/", 1)[0], _DEFAULT_REAL_ROOT) + rest
        if isinstance(value, dict):
            return {k: self.canonical(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self.canonical(v) for v in value]
        return value

    def describe(self) -> str:
        """A human-readable summary: command, exit status, each request, gcloud's stderr."""
        lines = [f"gcloud {' '.join(self.args)}", f"exit status: {self.returncode}"]
        if self.timed_out:
            lines.append("(timed out)")
        lines.append("requests:")
        lines.extend(f"  {r.method} {r.path} -> {r.status}" for r in self.requests)
        if not self.requests:
            lines.append("  (none)")
        lines.append("stderr:")
        lines.append(self.stderr.rstrip() or "  (empty)")
        return "\n".join(lines)


def field_differences(
    ours: Any, theirs: Any, *, allowed: Mapping[str, str] | None = None, path: str = ""
) -> list[str]:
    """Compare two request bodies field for field; return one line per difference.

    Dicts are walked key by key and lists item by item, so a difference names its path
    (``scheduling.maxRunDuration.seconds: 259200 != '259200'``, ``reservationAffinity:
    missing from ours``). ``allowed`` maps dotted paths to the reason they may differ (a field
    gcloud sends that the library sets elsewhere, say): those paths and everything under them
    are skipped. An empty list means the bodies agree.

    Args:
        ours: The library's body (or part of it).
        theirs: gcloud's body, e.g. ``capture.canonical(capture.create_request().body)``.
        allowed: Paths that may differ, each with its reason.
        path: The path of ``ours`` inside a bigger body (for the messages).
    """
    allowed = allowed or {}
    if path in allowed:
        return []
    where = path or "(body)"
    if isinstance(ours, Mapping) and isinstance(theirs, Mapping):
        found: list[str] = []
        for key in sorted(set(ours) | set(theirs), key=str):
            sub = f"{path}.{key}" if path else str(key)
            if sub in allowed:
                continue
            if key not in theirs:
                found.append(f"{sub}: missing from gcloud's (ours: {ours[key]!r})")
            elif key not in ours:
                found.append(f"{sub}: missing from ours (gcloud: {theirs[key]!r})")
            else:
                found += field_differences(ours[key], theirs[key], allowed=allowed, path=sub)
        return found
    if isinstance(ours, list) and isinstance(theirs, list):
        if len(ours) != len(theirs):
            return [
                f"{where}: {len(ours)} items != {len(theirs)} (ours {ours!r}, gcloud {theirs!r})"
            ]
        found = []
        for i, (mine, other) in enumerate(zip(ours, theirs, strict=True)):
            found += field_differences(mine, other, allowed=allowed, path=f"{path}[{i}]")
        return found
    if ours == theirs and type(ours) is type(theirs):
        return []
    return [f"{where}: {ours!r} != {theirs!r}"]


# --------------------------------------------------------------------------------------------
# The recording server
# --------------------------------------------------------------------------------------------


class OracleServer:
    """A recording fake of the Compute Engine and GKE REST APIs on ``127.0.0.1``: the emulator
    serving its recording service (:mod:`pulumi_dws.testing.emulator.recording`).

    Use it as a context manager (or call :meth:`start` / :meth:`stop`). Point gcloud at
    it with :func:`write_gcloud_config`; :func:`run_gcloud` does all of that for you.

    Args:
        project: The project id the fake resources belong to.
    """

    def __init__(self, project: str = DEFAULT_PROJECT) -> None:
        self._recording = RecordingService(project)
        self._emulator = Emulator([self._recording])

    @property
    def base_url(self) -> str:
        """The server's root URL, ``http://127.0.0.1:PORT/``."""
        return self._emulator.url

    @property
    def requests(self) -> list[CapturedRequest]:
        """A snapshot of the requests received so far, in arrival order."""
        return self._recording.recorded()

    def start(self) -> OracleServer:
        """Start serving in a daemon thread; returns ``self``."""
        self._emulator.start()
        return self

    def stop(self) -> None:
        """Stop serving and close the listening socket."""
        self._emulator.stop()

    def __enter__(self) -> OracleServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


# --------------------------------------------------------------------------------------------
# gcloud configuration and runner
# --------------------------------------------------------------------------------------------


def gcloud_path() -> str | None:
    """Return the gcloud executable to use, or None if there is none.

    ``$PULUMI_DWS_GCLOUD`` wins if set; otherwise ``gcloud`` is looked up on ``PATH``.
    """
    explicit = os.environ.get(_GCLOUD_ENV)
    if explicit:
        return explicit if os.access(explicit, os.X_OK) else None
    return shutil.which("gcloud")


def endpoint_overrides(
    endpoint: str, apis: Sequence[str] = ("compute", "container"), track: str = "ga"
) -> dict[str, str]:
    """Return the ``api_endpoint_overrides`` values that send ``apis`` to ``endpoint``.

    ``compute`` gets the version path of the release track (``compute/v1/``,
    ``compute/beta/`` or ``compute/alpha/``), because gcloud uses a non-root override
    verbatim and has one Compute key for all versions. Every other API gets the root URL,
    which gcloud completes with the API's own base path (for ``container`` the version is in
    each request path).

    Args:
        endpoint: Root URL of the fake server, e.g. ``http://127.0.0.1:8080/``.
        apis: API names as gcloud spells them, e.g. ``"compute"``, ``"container"``.
        track: ``"ga"``, ``"beta"`` or ``"alpha"``.

    Returns:
        A mapping from API name to override URL.
    """
    root = endpoint if endpoint.endswith("/") else endpoint + "/"
    version = {"alpha": "alpha", "beta": "beta"}.get(track, "v1")
    return {api: f"{root}compute/{version}/" if api == "compute" else root for api in apis}


def write_gcloud_config(
    config_dir: str | os.PathLike[str],
    *,
    project: str = DEFAULT_PROJECT,
    endpoint: str | None = None,
    apis: Sequence[str] = ("compute", "container"),
    track: str = "ga",
) -> None:
    """Write a private, offline gcloud configuration into ``config_dir``.

    This is what ``gcloud config set`` would write, without paying gcloud's start-up time
    for each property: ``auth/disable_credentials``, ``core/project``, no prompts, no usage
    reporting, no survey, no update check, no GCE metadata probe, and (if ``endpoint`` is
    given) ``api_endpoint_overrides/<api>`` for each of ``apis``.

    Args:
        config_dir: The directory to use as ``CLOUDSDK_CONFIG`` (created if missing).
        project: Value for ``core/project``.
        endpoint: Root URL of the fake server, e.g. ``http://127.0.0.1:8080/``.
        apis: API names to redirect to ``endpoint`` (see :func:`endpoint_overrides`).
        track: The command's release track (``"ga"``, ``"beta"``, ``"alpha"``), which picks
            the Compute version path.
    """
    root = os.fspath(config_dir)
    os.makedirs(os.path.join(root, "configurations"), exist_ok=True)
    parser = configparser.ConfigParser()
    parser["core"] = {
        "project": project,
        "disable_prompts": "true",
        "disable_usage_reporting": "true",
        "check_gce_metadata": "false",
        "show_structured_logs": "never",
    }
    parser["auth"] = {"disable_credentials": "true"}
    parser["component_manager"] = {"disable_update_check": "true"}
    parser["survey"] = {"disable_prompts": "true"}
    if endpoint is not None and apis:
        parser["api_endpoint_overrides"] = endpoint_overrides(endpoint, apis, track)
    with open(os.path.join(root, "configurations", "config_default"), "w") as fh:
        parser.write(fh)
    with open(os.path.join(root, "active_config"), "w") as fh:
        fh.write("default")
    # gcloud caches "am I on GCE?" here; pre-seeding it avoids a metadata-server probe.
    with open(os.path.join(root, "gce"), "w") as fh:
        fh.write("False")


def _release_track(argv: Sequence[str]) -> str:
    return argv[0] if argv and argv[0] in ("alpha", "beta") else "ga"


def _gcloud_env(config_dir: str) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if k.startswith(_KEPT_ENV_PREFIXES) or not k.startswith(_SCRUBBED_ENV_PREFIXES)
    }
    env["CLOUDSDK_CONFIG"] = config_dir
    # Make sure nothing routes 127.0.0.1 through a proxy.
    no_proxy = ",".join(x for x in (env.get("NO_PROXY"), "127.0.0.1", "localhost") if x)
    env["NO_PROXY"] = env["no_proxy"] = no_proxy
    return env


@contextlib.contextmanager
def _private_config_dir() -> Iterator[str]:
    path = tempfile.mkdtemp(prefix="gcloud-oracle-")
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def _text(data: str | bytes | None) -> str:
    if data is None:
        return ""
    return data.decode(errors="replace") if isinstance(data, bytes) else data


def run_gcloud(
    args: Sequence[str],
    *,
    apis: Sequence[str] = ("compute", "container"),
    timeout: float = 60,
    project: str = DEFAULT_PROJECT,
) -> GcloudCapture:
    """Run gcloud against a fresh recording server and return what it sent.

    Each call gets its own server (ephemeral port) and its own temporary ``CLOUDSDK_CONFIG``
    directory, so calls are independent and may run in parallel threads. The directory is
    removed afterwards; the user's real gcloud configuration is never read or touched.

    Args:
        args: gcloud arguments, e.g. ``["alpha", "compute", "instances", "create", "vm-1",
            "--zone=us-central1-a"]``. A leading ``"gcloud"`` is accepted and dropped. The
            first argument (``alpha``/``beta``/other) picks the Compute endpoint version.
        apis: The APIs whose ``api_endpoint_overrides`` point at the server. Requests for
            any other API would go to Google and fail (there is no network).
        timeout: Seconds before gcloud is killed (the capture then has ``timed_out=True``
            and still holds every request received until then).
        project: Value for ``core/project`` (used when the command has no ``--project``).

    Returns:
        A :class:`GcloudCapture` with gcloud's exit status, output and the recorded requests.
        A non-zero exit status is returned, not raised: check :attr:`GcloudCapture.ok`.

    Raises:
        FileNotFoundError: if no gcloud executable is available (check
            :func:`gcloud_available` first).
    """
    exe = gcloud_path()
    if exe is None:
        raise FileNotFoundError("gcloud is not installed (see gcloud_available())")
    argv = list(args)
    if argv and argv[0] == "gcloud":
        argv = argv[1:]
    with OracleServer(project) as server, _private_config_dir() as config_dir:
        write_gcloud_config(
            config_dir,
            project=project,
            endpoint=server.base_url,
            apis=apis,
            track=_release_track(argv),
        )
        timed_out = False
        try:
            proc = subprocess.run(
                [exe, *argv],
                env=_gcloud_env(config_dir),
                stdin=subprocess.DEVNULL,
                capture_output=True,
                text=True,
                timeout=timeout,
                check=False,
            )
            returncode, stdout, stderr = proc.returncode, proc.stdout, proc.stderr
        except subprocess.TimeoutExpired as exc:
            timed_out = True
            returncode, stdout, stderr = -9, _text(exc.stdout), _text(exc.stderr)
        return GcloudCapture(
            args=tuple(argv),
            returncode=returncode,
            stdout=stdout,
            stderr=stderr,
            requests=tuple(server.requests),
            base_url=server.base_url,
            timed_out=timed_out,
        )


@dataclass(frozen=True)
class GcloudCommand:
    """One gcloud run, as :class:`GcloudRuns` keys it: the arguments (without ``gcloud``), the
    APIs pointed at the recording server, and ``core/project``."""

    args: tuple[str, ...]
    apis: tuple[str, ...] = ("compute", "container")
    project: str = DEFAULT_PROJECT

    @classmethod
    def of(
        cls,
        args: Sequence[str],
        *,
        apis: Sequence[str] = ("compute", "container"),
        project: str = DEFAULT_PROJECT,
    ) -> GcloudCommand:
        argv = tuple(args)
        return cls(argv[1:] if argv[:1] == ("gcloud",) else argv, tuple(apis), project)


class GcloudRuns:
    """gcloud runs shared by many tests: each distinct command runs once, in the background.

    A gcloud start-up costs about a second of CPU (its command tree loads for every run), and
    the same command gives the same requests: a test suite announces its commands up front
    with :meth:`prefetch` (in the order the tests will want them) and asks for a capture with
    :meth:`run`, which waits only if that run has not finished yet. ``workers`` runs go at
    once (one leaves the other cores to the tests meanwhile).

    Processes that run parts of one suite (``pytest -n``) share runs through ``shared_dir``:
    the first process to reach a command runs it, holding an exclusive lock on the command's
    file there, and stores the capture; the others wait on that lock and read the capture
    instead of starting gcloud again.
    """

    def __init__(
        self,
        *,
        workers: int = 1,
        timeout: float = 120,
        shared_dir: str | os.PathLike[str] | None = None,
    ) -> None:
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="gcloud")
        self._timeout = timeout
        self._shared_dir = None if shared_dir is None else os.fspath(shared_dir)
        self._runs: dict[GcloudCommand, Future[GcloudCapture]] = {}
        self._lock = threading.Lock()

    def _run(self, command: GcloudCommand) -> GcloudCapture:
        if self._shared_dir is None:
            return self._run_here(command)
        os.makedirs(self._shared_dir, exist_ok=True)
        key = hashlib.sha256(repr(command).encode()).hexdigest()[:32]
        stored = os.path.join(self._shared_dir, f"{key}.capture")
        with open(os.path.join(self._shared_dir, f"{key}.lock"), "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # held while this process runs the command
            try:
                if os.path.exists(stored):
                    with open(stored, "rb") as fh:
                        capture: GcloudCapture = pickle.load(fh)
                    return capture
                capture = self._run_here(command)
                with open(stored + ".part", "wb") as fh:
                    pickle.dump(capture, fh)
                os.replace(stored + ".part", stored)
                return capture
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)

    def _run_here(self, command: GcloudCommand) -> GcloudCapture:
        return run_gcloud(
            command.args, apis=command.apis, project=command.project, timeout=self._timeout
        )

    def _submit(self, command: GcloudCommand) -> Future[GcloudCapture]:
        with self._lock:
            run = self._runs.get(command)
            if run is None:
                run = self._pool.submit(self._run, command)
                self._runs[command] = run
            return run

    def prefetch(self, commands: Iterable[GcloudCommand]) -> None:
        """Start these runs (in this order) unless they were started already."""
        for command in commands:
            self._submit(command)

    def run(
        self,
        args: Sequence[str],
        *,
        apis: Sequence[str] = ("compute", "container"),
        project: str = DEFAULT_PROJECT,
    ) -> GcloudCapture:
        """The capture of ``gcloud <args>`` (see :func:`run_gcloud`), run once per command.

        A run still queued behind other prefetched runs is taken out of the queue and run
        here, in the caller's thread, rather than waited for.
        """
        command = GcloudCommand.of(args, apis=apis, project=project)
        queued = self._submit(command)
        if queued.cancel():
            here: Future[GcloudCapture] = Future()
            with self._lock:
                self._runs[command] = here
            try:
                here.set_result(self._run(command))
            except BaseException as exc:
                here.set_exception(exc)
                raise
        with self._lock:
            run = self._runs[command]
        return run.result()

    def close(self) -> None:
        """Drop the runs not started yet and wait for those under way."""
        self._pool.shutdown(wait=True, cancel_futures=True)


def _surface_dir() -> str | None:
    """``<sdk root>/lib/surface`` of the gcloud in use, if the install has that layout."""
    exe = gcloud_path()
    if exe is None:
        return None
    surface = os.path.join(
        os.path.dirname(os.path.dirname(os.path.realpath(exe))), "lib", "surface"
    )
    return surface if os.path.isfile(os.path.join(surface, "__init__.py")) else None


def _has_release_track(track: str) -> bool | None:
    """Whether the ``alpha``/``beta`` command tree is installed (None: cannot tell)."""
    surface = _surface_dir()
    if surface is None or track not in ("alpha", "beta"):
        return None
    return os.path.isfile(os.path.join(surface, track, "__init__.py"))


@functools.cache
def _installed_components() -> frozenset[str] | None:
    """Component ids from ``gcloud version --format=json``, or None if that fails."""
    exe = gcloud_path()
    if exe is None:
        return None
    with _private_config_dir() as config_dir:
        write_gcloud_config(config_dir)
        try:
            proc = subprocess.run(
                [exe, "version", "--format=json"],
                env=_gcloud_env(config_dir),
                stdin=subprocess.DEVNULL,
                capture_output=True,
                text=True,
                timeout=60,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired):
            return None
    if proc.returncode != 0:
        return None
    try:
        versions = json.loads(proc.stdout)
    except ValueError:
        return None
    return frozenset(str(k) for k in versions) if isinstance(versions, dict) else None


def gcloud_unavailable_reason(*components: str) -> str | None:
    """Return why gcloud (with ``components``) cannot be used here, or None if it can.

    ``alpha`` and ``beta`` are checked on disk (their command trees under the SDK's
    ``lib/surface``); any other component id by running ``gcloud version`` once per process
    (cached) in a private configuration.

    Args:
        components: gcloud component ids that must be installed, e.g. ``"alpha"``, ``"beta"``.

    Returns:
        ``None`` if usable, else a one-line reason suitable for ``pytest.skip``.
    """
    exe = gcloud_path()
    if exe is None:
        return "gcloud is not installed (not on PATH and $PULUMI_DWS_GCLOUD unset)"
    # The alpha/beta components are their command trees: a file check is enough and saves
    # a gcloud start-up. Anything else (or an unfamiliar install layout) is asked of
    # `gcloud version`, once per process.
    known = {c: _has_release_track(c) for c in components}
    missing = [c for c, present in known.items() if present is False]
    if _surface_dir() is None or any(present is None for present in known.values()):
        installed = _installed_components()
        if installed is None:
            return f"{exe} is present but `gcloud version` failed"
        missing += [c for c, present in known.items() if present is None and c not in installed]
    if missing:
        return f"gcloud component(s) not installed: {', '.join(missing)}"
    return None


def gcloud_available(*components: str) -> bool:
    """Tell whether gcloud, and each of ``components`` (e.g. ``"alpha"``), can be used here.

    Typical use in a test (the reason variant says *why* in the skip message)::

        reason = gcloud_unavailable_reason("alpha")
        if reason:
            pytest.skip(reason)

    Args:
        components: gcloud component ids that must be installed (``"alpha"``, ``"beta"``).

    Returns:
        True if :func:`run_gcloud` can run such commands here.
    """
    return gcloud_unavailable_reason(*components) is None
