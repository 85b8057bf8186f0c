"""The research team's training capacity: their own service account and instance template,
composed with a pulumi-dws Calendar-mode reservation."""

import pulumi
import pulumi_gcp as gcp

from pulumi_dws import CalendarReservation

IMAGE = (
    "projects/deeplearning-platform-release/global/images/family/"
    "common-cu128-ubuntu-2204-nvidia-570"
)

config = pulumi.Config()
team = config.get("team") or "research"
zone = config.get("zone") or "us-central1-a"

runner = gcp.serviceaccount.Account(
    "trainer-sa",
    account_id=f"{team}-trainer",
    display_name=f"{team} training jobs",
)

block = CalendarReservation(
    f"{team}-h200-block",
    {
        "zone": zone,
        "machine_type": "a3-ultragpu-8g",
        "count": config.get_int("nodes") or 4,
        "start_time": config.get("start") or "+3w",
        "duration": config.get("duration") or "14d",
        "description": f"{team}: two-week pre-training block",
    },
)

# The team's own template: their image, their service account, the reserved capacity
# (machine type, SPECIFIC reservation affinity, RESERVATION_BOUND scheduling). Its VMs must
# be created in the reservation's zone.
template = gcp.compute.InstanceTemplate(
    "trainer-template",
    disks=[
        {
            "source_image": IMAGE,
            "boot": True,
            "disk_size_gb": 500,
        }
    ],
    network_interfaces=[{"network": "default"}],
    service_account={"email": runner.email, "scopes": ["cloud-platform"]},
    labels={"team": team},
    **block.instance_template_settings(),
)

pulumi.export("reservation", block.reservation_name)
pulumi.export("template", template.self_link)
