"""The ``dws`` command as a newcomer meets it: ``dws limits`` filters and prints JSON, ``dws plan``
prints values as text (``32``, ``true``), stops quietly when its reader goes away and refuses
contradicting flags, and ``dws emulator`` serves the Compute API (and Calendar-mode blocks
given on the command line) from a plain ``pip install pulumi-dws``."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import dws

from pulumi_dws.cli import main

REPO = Path(__file__).resolve().parent.parent
DWS = [sys.executable, "-m", "pulumi_dws.cli"]
# Runs `dws` with google-api-python-client unimportable, as after `pip install pulumi-dws`.
WITHOUT_EXTRAS = textwrap.dedent(
    """
    import sys
    sys.modules["googleapiclient"] = None
    from pulumi_dws.cli import main
    sys.exit(main(sys.argv[1:]))
    """
)


# ---------------------------------------------------------------------------- dws limits
def test_limits_filters_by_part_of_the_key_or_a_glob(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["limits", "calendar"]) == 0
    keys = [line.split()[0] for line in capsys.readouterr().out.splitlines()]
    assert keys and all("calendar" in k for k in keys) and "calendar.duration" in keys
    assert main(["limits", "gke.*", "flex_start.max_run_duration"]) == 0
    keys = [line.split()[0] for line in capsys.readouterr().out.splitlines()]
    assert "flex_start.max_run_duration" in keys and "gke.max_nodes" in keys
    assert all(k.startswith("gke.") or k == "flex_start.max_run_duration" for k in keys)


def test_limits_prints_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["limits", "calendar.duration", "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert rows == [
        {
            "key": "calendar.duration",
            "description": "Calendar-mode reservation duration",
            "unit": "seconds",
            "minimum": 86400,
            "maximum": 7776000,
            "choices": None,
            "zones": None,
            "allowed": "1d (86400s) to 90d (7776000s)",
            "source": rows[0]["source"],
        }
    ]
    assert "§4" in rows[0]["source"]


def test_limits_that_match_nothing_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["limits", "calender"]) == 2
    assert "no limit matches calender; rows: " in capsys.readouterr().err


# ---------------------------------------------------------------------------- dws plan
def test_no_policy_with_a_policy_config_is_a_usage_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = main(["plan", str(REPO / "stacks/gke-dws"), "--no-policy", "--policy-config", "x.json"])
    assert code == 2
    assert "--no-policy and --policy-config contradict each other" in capsys.readouterr().err


def test_plan_values_are_text_and_whole_numbers_are_integers(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["plan", str(REPO / "stacks/gke-dws")]) == 0
    text = capsys.readouterr().out
    assert "gpusTotal: 32\n" in text and "32.0" not in text
    assert "queued_provisioning=true" in text and "=True" not in text
    assert "gpu_hours: 5376\n" in text
    assert main(["plan", str(REPO / "stacks/gke-dws"), "--format", "markdown"]) == 0
    markdown = capsys.readouterr().out
    assert "| `gpusTotal` | 32 |" in markdown
    assert "{'" not in markdown and "True" not in markdown and ".0," not in markdown
    assert 'gpus_by_type: {"nvidia-h100-80gb": 32}' in markdown
    assert main(["plan", str(REPO / "stacks/gke-dws"), "--format", "json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["outputs"]["gpusTotal"] == 32 and isinstance(
        document["outputs"]["gpusTotal"], int
    )


def test_plan_into_a_closed_pipe_exits_quietly(tmp_path: Path) -> None:
    """``dws plan | head``: the reader is gone before the plan is printed. (A plan of any
    project will do: a small one spares the process pulumi-gcp's import.)"""
    (tmp_path / "Pulumi.yaml").write_text("name: small\nruntime: python\n")
    (tmp_path / "__main__.py").write_text('import pulumi\npulumi.export("answer", 42)\n')
    read, write = os.pipe()
    os.close(read)
    proc = subprocess.run(
        [*DWS, "plan", str(tmp_path)], stdout=write, stderr=subprocess.PIPE, text=True
    )
    os.close(write)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr and "BrokenPipe" not in proc.stderr


# ---------------------------------------------------------------------------- dws emulator
def _http(method: str, url: str, body: Any = None) -> tuple[int, Any]:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method)
    request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, json.loads(answer.read() or b"{}")
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read() or b"{}")


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[dict[str, str], subprocess.Popen[str]]]:
    """``dws emulator`` (no extras) with a Calendar-mode block, and the exports it printed."""
    proc = subprocess.Popen(
        [sys.executable, "-c", WITHOUT_EXTRAS, "emulator",
         "--calendar", "us-central1-a:a3-highgpu-8g:2:+3w:+8w",
         "--capacity", "us-central1-b:a3-highgpu-8g:1"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    exports: dict[str, str] = {}
    assert proc.stdout is not None
    for line in proc.stdout:
        found = re.match(r"\s*export (\w+)=(\S+)", line)
        if found:
            exports[found.group(1)] = found.group(2)
        if line.startswith("Ctrl-C"):
            break
    try:
        yield exports, proc
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_the_emulator_serves_compute_without_extras(served: Any) -> None:
    exports, _ = served
    root = exports["DWS_COMPUTE_ENDPOINT"]
    assert re.fullmatch(r"http://127\.0\.0\.1:\d+/", root) and not root.endswith(":8765/")
    instances = root + "compute/v1/projects/p/zones/us-central1-b/instances"
    body = {"name": "vm", "machineType": "zones/us-central1-b/machineTypes/a3-highgpu-8g"}
    status, answer = _http("POST", instances, {**body, "colour": "blue"})
    assert status == 400 and 'Unknown name "colour"' in answer["error"]["message"]
    status, answer = _http("POST", instances, body)
    assert status == 200 and answer["kind"] == "compute#operation"
    assert exports["GOOGLE_CLOUD_PROJECT"] == "dws-emulator"


def test_the_emulator_serves_cloud_tpu_queued_resources(served: Any) -> None:
    exports, _ = served
    root = exports["DWS_TPU_ENDPOINT"]
    queued = root + "v2alpha1/projects/p/locations/us-east5-a/queuedResources?queuedResourceId=q"
    status, answer = _http("POST", queued, {"provisioningModel": "FLEX_STARTING"})
    assert status == 400 and answer["error"]["status"] == "INVALID_ARGUMENT"
    assert "provisioningModel" in answer["error"]["message"]


def test_the_emulator_serves_every_declared_api_including_a_kinds_own(served: Any) -> None:
    exports, _ = served
    assert {"DWS_AIPLATFORM_ENDPOINT", "DWS_BATCH_ENDPOINT"} <= set(exports)
    jobs = exports["DWS_BATCH_ENDPOINT"] + "v1/projects/p/locations/us-central1/jobs"
    status, answer = _http("GET", jobs)
    assert status == 200 and answer.get("jobs", []) == []
    custom = exports["DWS_AIPLATFORM_ENDPOINT"] + "v1/projects/p/locations/us-central1/customJobs"
    status, answer = _http("GET", custom)
    assert status == 200 and answer.get("customJobs", []) == []


def test_dws_advise_finds_the_block_given_on_the_command_line(served: Any) -> None:
    exports, _ = served
    env = {**os.environ, **exports}
    proc = dws(
        "advise", "calendar", "--region", "us-central1", "--machine-type", "a3-highgpu-8g",
        "--count", "2", "--duration", "7d", "--earliest", "+4w", "--latest", "+6w", "--emit",
        env=env,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "CalendarReservation(" in proc.stdout and '"zone": "us-central1-a"' in proc.stdout


@pytest.mark.parametrize(
    ("flag", "message"),
    [
        ("us-central1-a:a3-highgpu-8g:2:+3w", "--calendar: us-central1-a:a3-highgpu-8g:2:+3w is not ZONE:MACHINE_TYPE:COUNT:FROM:TO"),
        ("us-central1-z:a3-highgpu-8g:2:+3w:+8w", "--calendar zone: us-central1-z is not a zone of us-central1"),
        ("us-central1-a:a3-highgpu-8g:two:+3w:+8w", "--calendar count: two must be a whole number"),
        ("us-central1-a:a3-highgpu-8g:2:+8w:+3w", "--calendar to: +3w is not after +8w"),
        ("us-east5-b:v9z:16:+3w:+8w", "v9z is not a known GPU machine type for DWS"),
        ("us-east5-b:v9z:16:+3w:+8w", "; or a TPU version (v6e, v5e, v5p)"),
        ("us-east5-b:ct6e-standard-4t:4:+3w:+8w", "ct6e-standard-4t is a TPU machine type"),
        ("us-east5-b:tpu7x:16:+3w:+8w", "--calendar TPU version: tpu7x is not offered in Calendar mode"),
        ("us-east5-b:v6e:0:+3w:+8w", "--calendar count: \"0\" must be a whole number"),
    ],
)  # fmt: skip
def test_bad_emulator_blocks_are_usage_errors(
    flag: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["emulator", "--calendar", flag]) == 2
    assert message in capsys.readouterr().err
