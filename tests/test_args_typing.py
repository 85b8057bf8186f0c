"""Users keep precise types: mypy, run on a small program as a user writes it (the installed
package, ``py.typed``), reports exactly the lines where the arguments are wrong (an unknown key,
a wrong type, a missing required key, a value outside a closed set, an Output where a plain value
is needed) and nothing on the lines that are right (Outputs where they are taken, durations in
any form, a CalendarReservation as a reservation, nested args)."""

from __future__ import annotations

import re
from pathlib import Path

from mypy import api

PROGRAM = """
import datetime

import pulumi

from pulumi_dws import (
    CalendarReservation,
    FlexStartGroup,
    FlexStartInstance,
    FlexStartInstanceArgs,
    GpuNetwork,
    GpuNetworkArgs,
    KueueQueue,
    QueuedNodePool,
    QueuedTpu,
    SlurmCluster,
    SlurmClusterArgs,
)
from pulumi_dws.duration import Duration
from pulumi_dws.gpu_network import GpuNetworkArgs as Rdma

zone: pulumi.Output[str] = pulumi.Output.from_input("us-central1-a")
block = CalendarReservation("block", {
    "zone": "us-east5-a", "tpu_version": "v6e", "chip_count": 16,
    "start_time": datetime.datetime(2030, 1, 1), "duration": "7d",
})
vm: FlexStartInstanceArgs = {
    "zone": zone, "machine_type": "a3-highgpu-8g", "max_run_duration": Duration.parse("3d"),
    "request_valid_for": None, "labels": {"team": zone}, "accelerators": [],
}
FlexStartInstance("vm", vm)
QueuedTpu("tpu", {
    "zone": "us-east5-a", "accelerator_type": "v6e-16", "provisioning": "reservation_bound",
    "reservation": block,
})
QueuedTpu("tpu-2", {"zone": "us-east5-a", "accelerator_type": "v6e-16", "node_count": 2,
                    "max_run_duration": 86400})
cluster: SlurmClusterArgs = {
    "display_name": "c",
    "login": {"zone": "us-central1-b"},
    "node_pools": [{"id": "a", "machine_type": "a3-ultragpu-8g", "max_nodes": 2}],
}
pool = QueuedNodePool("pool", {"cluster": "c", "location": "us-central1",
                               "machine_type": "a3-highgpu-8g", "max_nodes": 4})
KueueQueue("queue", {"node_pool": pool, "retry_strategy": {"backoff_limit_count": 0}})
rdma: GpuNetworkArgs = {"zone": "us-central1-b", "machine_type": "a4-highgpu-8g", "project": zone,
                        "gvnic_ranges": ("10.0.0.0/19", "10.0.64.0/18"), "rdma_nics": 8}
net = GpuNetwork("net", rdma)
FlexStartGroup("a4", {"zone": "us-central1-b", "machine_type": "a4-highgpu-8g", "count": 2,
                      "gpu_network": net})
same: Rdma = rdma

QueuedTpu("typo", {"zone": "us-east5-a", "accelerator_type": "v6e-16", "provisoning": "spot"})  # E
QueuedTpu("number", {"zone": 5, "accelerator_type": "v6e-16"})  # E
QueuedTpu("missing", {"accelerator_type": "v6e-16"})  # E
FlexStartInstance("mode", {**vm, "termination_action": "KEEP"})  # E
FlexStartGroup("plain", {"zone": "us-central1-a", "machine_type": zone, "count": 4})  # E
FlexStartGroup("shared", {"region": "us-central1", "machine_type": "a3-highgpu-8g", "count": 2,
                          "boot_disk_size_gb": "200"})  # E
SlurmCluster("nested", {**cluster, "login": {"zone": "us-central1-b", "pubic_ips": True}})  # E
QueuedNodePool("list", {"cluster": "c", "location": "us-central1", "machine_type": "a3-highgpu-8g",
                        "taints": [{"value": "x"}]})  # E
CalendarReservation("when", {"zone": "us-central1-a", "start_time": 3, "duration": "1d"})  # E
GpuNetwork("nics", {**rdma, "rdma_nics": "8"})  # E
GpuNetwork("zone", {"zone": zone, "machine_type": "a4-highgpu-8g"})  # E
GpuNetwork("machine", {"zone": "us-central1-b"})  # E
GpuNetwork("typo", {**rdma, "rdma_rnage": "10.1.0.0/18"})  # E
"""

CONFIG = """[mypy]
python_version = 3.10
strict_optional = true
[mypy-pulumi_gcp.*,pulumi_kubernetes.*,google.*,googleapiclient.*,grpc.*,jsonschema.*]
follow_imports = skip
ignore_missing_imports = true
"""


def test_mypy_reports_exactly_the_wrong_arguments(tmp_path: Path) -> None:
    program = tmp_path / "program.py"
    program.write_text(PROGRAM)
    (tmp_path / "mypy.ini").write_text(CONFIG)
    out, err, _ = api.run(
        [
            "--config-file",
            str(tmp_path / "mypy.ini"),
            "--cache-dir",
            str(tmp_path / "cache"),
            "--no-error-summary",
            str(program),
        ]
    )
    errors = re.findall(r"^.*program\.py:(\d+): error: (.*)$", out, re.M)
    marked = {i for i, line in enumerate(PROGRAM.splitlines(), 1) if line.endswith("# E")}
    assert {int(line) for line, _ in errors} == marked, out + err
    messages = "\n".join(message for _, message in errors)
    for said in (
        'Extra key "provisoning" for TypedDict "QueuedTpuArgs"',
        'TypedDict item "zone" has type "str | Output[str]"',
        'Missing key "zone" for TypedDict "QueuedTpuArgs"',
        "\"termination_action\" has type \"Literal['STOP', 'DELETE']\"",
        'expression has type "Output[str]", TypedDict item "machine_type" has type "str"',
        'Extra key "pubic_ips" for TypedDict "SlurmLoginArgs"',
        'Missing key "key" for TypedDict "TaintArgs"',
        'Missing key "machine_type" for TypedDict "GpuNetworkArgs"',
        'Extra key "rdma_rnage" for TypedDict "GpuNetworkArgs"',
    ):
        assert said in messages, messages
