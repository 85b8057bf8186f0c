"""gcloud, Google's own client, as the oracle for MIG resize requests: the body the
``MigResizeRequest`` provider sends (zonal and regional, with and without a run duration) must
equal what ``gcloud beta compute instance-groups managed resize-requests create --resize-by=N
--requested-run-duration=D`` sends, and its cancel and delete must be gcloud's. gcloud runs
against the recording server (``pulumi_dws.testing.gcloud``); each test skips with a reason
where gcloud, or its beta component, is missing."""

from __future__ import annotations

from typing import Any

import pytest

from pulumi_dws.kinds.flex_group.provider import MigResizeRequestProvider, resize_request_body
from pulumi_dws.testing.clock_helpers import flex_start_group, mig_resize_props, virtual_sleep
from pulumi_dws.testing.emulator import Emulator, Request
from pulumi_dws.testing.gcloud import (
    GcloudCapture,
    GcloudCommand,
    GcloudRuns,
    field_differences,
    gcloud_unavailable_reason,
)

PROJECT, ZONE, REGION = "demo-project", "us-central1-a", "us-central1"
RESIZE_REQUESTS = ["beta", "compute", "instance-groups", "managed", "resize-requests"]
CREATE = [
    *RESIZE_REQUESTS, "create", "g",
    "--resize-request=rr-1", "--resize-by=4", "--requested-run-duration=3d",
]  # fmt: skip
NAMED = ["g", "--resize-requests=rr-1", f"--zone={ZONE}"]
COMMANDS = {
    "zonal": GcloudCommand.of([*CREATE, f"--zone={ZONE}"], apis=("compute",)),
    "regional": GcloudCommand.of([*CREATE, f"--region={REGION}"], apis=("compute",)),
    "no_duration": GcloudCommand.of([*CREATE[:-1], f"--zone={ZONE}"], apis=("compute",)),
    "cancel": GcloudCommand.of([*RESIZE_REQUESTS, "cancel", *NAMED], apis=("compute",)),
    "delete": GcloudCommand.of([*RESIZE_REQUESTS, "delete", *NAMED, "--quiet"], apis=("compute",)),
}
SCOPES = {"zonal": f"zones/{ZONE}", "regional": f"regions/{REGION}"}
RUN = 3 * 86400


def _capture(runs: GcloudRuns, name: str) -> GcloudCapture:
    reason = gcloud_unavailable_reason("beta")
    if reason:
        pytest.skip(reason)
    command = COMMANDS[name]
    cap = runs.run(command.args, apis=command.apis)
    assert cap.ok, cap.describe()
    return cap


def _provider_run(scope: str, run: int | None = RUN) -> list[Request]:
    """What the provider sends to the emulator to create a request for 4 VMs (for ``run``
    seconds), zonal or regional, and then to delete it while it is queued."""
    zone, region = (ZONE, None) if scope == "zonal" else (None, REGION)
    with Emulator() as emu, pytest.MonkeyPatch.context() as env:
        env.setenv("DWS_COMPUTE_ENDPOINT", emu.url)
        env.setenv("DWS_VIRTUAL_CLOCK_URL", "")
        flex_start_group(emu, "g", project=PROJECT, zone=zone, region=region)
        props = mig_resize_props(
            "rr-1", "g", count=4, run=run, project=PROJECT, zone=zone, region=region,
            wait_for="accepted",
        )  # fmt: skip
        provider = MigResizeRequestProvider(sleep=virtual_sleep(emu))
        created = provider.create(props)
        provider.delete(created.id, created.outs)
        return list(emu.requests)


def _provider_body(scope: str, run: int | None = RUN) -> dict[str, Any]:
    sent = _provider_run(scope, run)
    [insert] = [r for r in sent if r.method == "POST" and r.path.endswith("/resizeRequests")]
    group = f"/compute/v1/projects/{PROJECT}/{SCOPES[scope]}/instanceGroupManagers/g"
    assert insert.path == f"{group}/resizeRequests"
    return dict(insert.body)


def _check(runs: GcloudRuns, scope: str) -> None:
    cap = _capture(runs, scope)
    insert = cap.one("POST", r"/instanceGroupManagers/g/resizeRequests$")
    group = f"/compute/beta/projects/{PROJECT}/{SCOPES[scope]}/instanceGroupManagers/g"
    assert insert.path == f"{group}/resizeRequests"
    assert "requestId" not in insert.query  # gcloud sends none; the provider always does
    assert insert.body == {
        "name": "rr-1",
        "resizeBy": 4,
        "requestedRunDuration": {"seconds": "259200"},  # 3d; int64 as a JSON string
    }
    assert field_differences(resize_request_body("rr-1", 4, RUN), insert.body) == []
    assert field_differences(_provider_body(scope), insert.body) == []
    # only the insert changes anything
    assert [r.path for r in cap.mutations if not r.path.endswith("/wait")] == [insert.path]


@pytest.mark.gcloud(COMMANDS["zonal"])
def test_zonal_resize_request_body_equals_gclouds(gcloud_runs: GcloudRuns) -> None:
    _check(gcloud_runs, "zonal")


@pytest.mark.gcloud(COMMANDS["regional"])
def test_regional_resize_request_body_equals_gclouds(gcloud_runs: GcloudRuns) -> None:
    _check(gcloud_runs, "regional")


@pytest.mark.gcloud(COMMANDS["no_duration"])
def test_without_a_run_duration_the_body_has_none(gcloud_runs: GcloudRuns) -> None:
    cap = _capture(gcloud_runs, "no_duration")
    insert = cap.one("POST", r"/instanceGroupManagers/g/resizeRequests$")
    assert insert.body == resize_request_body("rr-1", 4, None) == {"name": "rr-1", "resizeBy": 4}
    assert field_differences(_provider_body("zonal", None), insert.body) == []


@pytest.mark.gcloud(COMMANDS["cancel"], COMMANDS["delete"])
def test_the_provider_cancels_and_deletes_as_gcloud_does(gcloud_runs: GcloudRuns) -> None:
    expected = []
    for verb in ("cancel", "delete"):
        cap = _capture(gcloud_runs, verb)
        [call] = [r for r in cap.mutations if "/resizeRequests/" in r.path]
        path = call.path.replace("/compute/beta/", "/compute/v1/")
        expected.append((call.method, path, call.body))
    base = (
        f"/compute/v1/projects/{PROJECT}/zones/{ZONE}/instanceGroupManagers/g/resizeRequests/rr-1"
    )
    assert expected == [("POST", f"{base}/cancel", None), ("DELETE", base, None)]
    sent = _provider_run("zonal")
    ours = [
        (r.method, r.path, r.body) for r in sent if r.method != "GET" and r.path.startswith(base)
    ]
    assert ours == expected
