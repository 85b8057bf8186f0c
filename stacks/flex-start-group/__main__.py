"""Four Flex-start A3 High VMs at once: a managed instance group at size 0 and one resize
request that DWS fulfils all together (no paying for a partial set), for 3 days; Google deletes
the VMs when the run ends."""

import pulumi

from pulumi_dws import FlexStartGroup

config = pulumi.Config()
zone = config.get("zone")
region = config.get("region")

group = FlexStartGroup(
    "trainers",
    {
        **({"region": region} if region else {"zone": zone or "us-central1-a"}),
        "machine_type": config.get("machineType") or "a3-highgpu-8g",
        "count": config.get_int("count") or 4,
        "run_duration": config.get("runDuration") or "3d",
        "wait_for": config.get("waitFor") or "running",
        "boot_disk_size_gb": config.get_int("bootDiskSizeGb") or 200,
        "labels": {"team": "research", "workload": "training"},
        "startup_script": "#!/bin/bash\nnvidia-smi || true\n",
    },
)

pulumi.export("group", group.self_link)
pulumi.export("request_state", group.request_state)
pulumi.export("instances", group.instance_names)
pulumi.export("run_ends_at", group.run_ends_at)
