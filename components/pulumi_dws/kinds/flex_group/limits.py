"""The limit rows of groups of VMs through MIG resize requests (``FlexStartGroup``): a resize
request's run duration and size, and how many VMs a zonal or regional group holds: each row
with its source, registered with :mod:`pulumi_dws.limits` when this module is imported."""

from __future__ import annotations

from ...limits import TOOLKIT, WEEK, Limit, register

__all__ = ["ROWS"]

MIG_RESIZE_DOCS = (
    "https://docs.cloud.google.com/compute/docs/instance-groups/about-resize-requests-mig"
)

MIG_RESIZE_DEFINITION = (
    "GoogleCloudPlatform/magic-modules@068cc45653d9a6962a00fd7d324d8bd542e76801 "
    "mmv1/products/compute/ResizeRequest.yaml"
)

ROWS: tuple[Limit, ...] = (
    Limit(
        "mig.requested_run_duration",
        "MIG resize request run duration (requestedRunDuration)",
        "seconds",
        (
            f"{MIG_RESIZE_DOCS} (requestedRunDuration: between 10 minutes and seven days); "
            f"{MIG_RESIZE_DEFINITION} (requested_run_duration.seconds: 600 to 604800 "
            "inclusive)"
        ),
        minimum=600,
        maximum=WEEK,
    ),
    Limit(
        "mig.resize_by",
        "VMs one MIG resize request adds (resizeBy)",
        "count",
        (
            "Compute v1 discovery revision 20261106, InstanceGroupManagerResizeRequest."
            "resizeBy: at least 1, and no more than the group holds (rows "
            "mig.zonal_group_size, mig.regional_group_size)"
        ),
        minimum=1,
        maximum=2000,
    ),
    Limit(
        "mig.zonal_group_size",
        "VMs a zonal managed instance group holds",
        "count",
        (
            "Compute v1 discovery revision 20261106, InstanceGroupManager: a zonal group "
            "holds up to 1000 VMs; Cluster Toolkit splits Flex-start nodes into groups of "
            f"at most 1000 ({TOOLKIT} schedmd-slurm-gcp-v6-controller scripts/resume.py)"
        ),
        minimum=0,
        maximum=1000,
    ),
    Limit(
        "mig.regional_group_size",
        "VMs a regional managed instance group holds",
        "count",
        (
            "Compute v1 discovery revision 20261106, InstanceGroupManager: a regional group "
            "holds up to 2000 VMs; https://cloud.google.com/compute/docs/instance-groups/"
            "regional-migs ('Regional MIGs can manage up to 2,000 instances, twice as many "
            "as zonal MIGs')"
        ),
        minimum=0,
        maximum=2000,
    ),
)
"""This kind's rows."""

register(*ROWS)
