"""Reserve A3 High VMs for a week in DWS Calendar mode and run a VM on the reservation."""

import pulumi
import pulumi_gcp as gcp

from pulumi_dws import CalendarReservation

config = pulumi.Config()

block = CalendarReservation(
    "h100-week",
    {
        "zone": config.get("zone") or "us-central1-a",
        "machine_type": "a3-highgpu-8g",
        "count": config.get_int("count") or 2,
        "start_time": config.get("startTime") or "+4w",
        "duration": config.get("duration") or "7d",
        "description": "Pre-training block for the research team",
    },
)

# A VM that runs on the reserved capacity once the window opens.
trainer = gcp.compute.Instance(
    "trainer-0",
    boot_disk={
        "initialize_params": {
            "image": "projects/debian-cloud/global/images/family/debian-12",
            "size": 200,
        }
    },
    network_interfaces=[{"network": "default"}],
    labels={"team": "research"},
    **block.instance_settings(),
)

pulumi.export("reservation", block.reservation_name)
pulumi.export("window", pulumi.Output.concat(block.start_time, " to ", block.end_time))
