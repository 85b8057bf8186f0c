"""A queued Flex-start VM: it waits in Google's DWS queue for up to 2 hours instead of failing
on a stock-out, runs for at most 3 days, and is stopped (not deleted) when the run ends."""

import pulumi

from pulumi_dws import FlexStartInstance

config = pulumi.Config()

vm = FlexStartInstance(
    "trainer",
    {
        "zone": config.get("zone") or "us-central1-a",
        "machine_type": config.get("machineType") or "a3-highgpu-8g",
        "max_run_duration": config.get("maxRunDuration") or "3d",
        "request_valid_for": config.get("requestValidFor") or "2h",
        "termination_action": config.get("terminationAction") or "STOP",
        "desired_status": config.get("desiredStatus") or "RUNNING",
        "wait_for": config.get("waitFor") or "running",
        "boot_disk_size_gb": config.get_int("bootDiskSizeGb") or 200,
        "labels": {"team": "research", "workload": "training"},
        "startup_script": "#!/bin/bash\nnvidia-smi || true\n",
    },
)

pulumi.export("instance", vm.instance_name)
pulumi.export("status", vm.status)
pulumi.export("internal_ip", vm.internal_ip)
pulumi.export("run_ends_at", vm.run_ends_at)
