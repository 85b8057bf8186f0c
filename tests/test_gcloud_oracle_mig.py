"""gcloud, Google's own client, as the oracle for MIG resize request bodies: the body the
``MigResizeRequest`` provider sends (zonal and regional) must equal what ``gcloud beta compute
instance-groups managed resize-requests create --resize-by=N --requested-run-duration=D``
sends. gcloud runs against the recording server (``pulumi_dws.testing.gcloud``); each test skips
with a reason where gcloud, or its beta component, is missing."""

from __future__ import annotations

from typing import Any

import pytest

from pulumi_dws.providers.mig_resize import MigResizeRequestProvider, resize_request_body
from pulumi_dws.testing.clock_helpers import flex_start_group, mig_resize_props, virtual_sleep
from pulumi_dws.testing.emulator import Emulator
from pulumi_dws.testing.gcloud import (
    GcloudCapture,
    GcloudCommand,
    GcloudRuns,
    field_differences,
    gcloud_unavailable_reason,
)

PROJECT, ZONE, REGION = "demo-project", "us-central1-a", "us-central1"
CREATE = [
    "beta", "compute", "instance-groups", "managed", "resize-requests", "create", "g",
    "--resize-request=rr-1", "--resize-by=4", "--requested-run-duration=3d",
]  # fmt: skip
COMMANDS = {
    "zonal": GcloudCommand.of([*CREATE, f"--zone={ZONE}"], apis=("compute",)),
    "regional": GcloudCommand.of([*CREATE, f"--region={REGION}"], apis=("compute",)),
}
SCOPES = {"zonal": f"zones/{ZONE}", "regional": f"regions/{REGION}"}


def _capture(runs: GcloudRuns, scope: str) -> GcloudCapture:
    reason = gcloud_unavailable_reason("beta")
    if reason:
        pytest.skip(reason)
    command = COMMANDS[scope]
    return runs.run(command.args, apis=command.apis)


def _provider_body(scope: str) -> dict[str, Any]:
    """What the provider sends for 4 VMs for 3 days, zonal or regional, to the emulator."""
    zone, region = (ZONE, None) if scope == "zonal" else (None, REGION)
    with Emulator() as emu, pytest.MonkeyPatch.context() as env:
        env.setenv("DWS_COMPUTE_ENDPOINT", emu.url)
        env.setenv("DWS_VIRTUAL_CLOCK_URL", "")
        flex_start_group(emu, "g", project=PROJECT, zone=zone, region=region)
        props = mig_resize_props(
            "rr-1", "g", count=4, run=3 * 86400, project=PROJECT, zone=zone, region=region,
            wait_for="accepted",
        )  # fmt: skip
        MigResizeRequestProvider(sleep=virtual_sleep(emu)).create(props)
        [insert] = [
            r for r in emu.requests if r.method == "POST" and r.path.endswith("/resizeRequests")
        ]
        assert (
            insert.path
            == f"/compute/v1/projects/{PROJECT}/{SCOPES[scope]}/instanceGroupManagers/g/resizeRequests"
        )
        return dict(insert.body)


@pytest.mark.gcloud(COMMANDS["zonal"])
def test_zonal_resize_request_body_equals_gclouds(gcloud_runs: GcloudRuns) -> None:
    _check(gcloud_runs, "zonal")


@pytest.mark.gcloud(COMMANDS["regional"])
def test_regional_resize_request_body_equals_gclouds(gcloud_runs: GcloudRuns) -> None:
    _check(gcloud_runs, "regional")


def _check(runs: GcloudRuns, scope: str) -> None:
    cap = _capture(runs, scope)
    assert cap.ok, cap.describe()
    insert = cap.one("POST", r"/instanceGroupManagers/g/resizeRequests$")
    assert insert.path == (
        f"/compute/beta/projects/{PROJECT}/{SCOPES[scope]}/instanceGroupManagers/g/resizeRequests"
    )
    assert "requestId" not in insert.query  # gcloud sends none; the provider always does
    assert insert.body == {
        "name": "rr-1",
        "resizeBy": 4,
        "requestedRunDuration": {"seconds": "259200"},
    }
    assert field_differences(resize_request_body("rr-1", 4, 3 * 86400), insert.body) == []
    assert field_differences(_provider_body(scope), insert.body) == []
    # only the insert changes anything
    assert [r.path for r in cap.mutations if not r.path.endswith("/wait")] == [insert.path]
