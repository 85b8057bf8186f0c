"""Write the state a pulumi-dws release leaves for each dynamic resource: its components run
under the emulated mocks (:mod:`pulumi_dws.testing.emulated`: every dynamic resource created by
its own provider against the emulator), each dynamic resource's URN, id, inputs and outputs
recorded as the engine keeps them (JSON). ``tests/test_upgrade_state.py`` loads the result and
shows that the current release replaces nothing.

    PYTHONPATH=<checkout of the release>/components \\
        .venv/bin/python scripts/capture_release_state.py tests/fixtures/release_state_<rev>.json

The release's own code must be the one imported: point ``PYTHONPATH`` at its checkout.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import pulumi_dws
from pulumi_dws import FlexStartGroup, FlexStartInstance, QueuedTpu, SlurmCluster
from pulumi_dws.testing.emulated import EmulatedMocks, emulator_environment
from pulumi_dws.testing.emulator import Emulator

PROJECT = "my-project"
SEED_POOLS = [
    {
        "id": "a3u",
        "machine_type": "a3-ultragpu-8g",
        "accelerator_type": "NVIDIA_H200_141GB",
        "accelerator_count": 8,
        "provisioning_model": "FLEX_START",
        "flex_start_max_duration": "604800s",
        "min_nodes": 0,
        "max_nodes": 2,
        "zone": "us-central1-b",
    }
]
COMPONENTS: dict[str, Any] = {
    "FlexStartInstance": lambda: FlexStartInstance(
        "trainer",
        {
            "zone": "us-central1-a",
            "machine_type": "a3-highgpu-8g",
            "max_run_duration": "3d",
            "request_valid_for": "2h",
            "labels": {"team": "ml"},
        },
    ),
    "FlexStartGroup": lambda: FlexStartGroup(
        "trainers",
        {
            "zone": "us-central1-a",
            "machine_type": "a3-highgpu-8g",
            "count": 2,
            "run_duration": "1d",
        },
    ),
    "QueuedTpu": lambda: QueuedTpu(
        "trainer",
        {"zone": "us-east5-a", "accelerator_type": "v6e-16", "max_run_duration": "1d"},
    ),
    "SlurmCluster": lambda: SlurmCluster(
        "flexvm",
        {
            "display_name": "flexvm",
            "login": {"machine_type": "n2-standard-8", "zone": "us-central1-b"},
            "node_pools": SEED_POOLS,
            "home_directory_storage": "projects/my-project/locations/us-central1-b/instances/home",
        },
    ),
}


def capture() -> dict[str, Any]:
    """Every component's dynamic resource, as the release leaves it in the state."""
    found: dict[str, Any] = {"release": pulumi_dws.__file__, "resources": {}}
    for kind, make in COMPONENTS.items():
        with Emulator() as emu:
            emu["compute"].add_capacity("us-central1-a", "a3-highgpu-8g", 4)
            emu["tpu"].add_chips("us-east5-a", "v6e", 16)
            mocks = EmulatedMocks(emu, project=PROJECT)
            with emulator_environment(emu):
                mocks.run(make)
        for item in mocks.registered:
            if item.type.startswith("pulumi-python:dynamic/dws:") and item.custom:
                inputs = {k: v for k, v in item.inputs.items() if k != "__provider"}
                outputs = {k: v for k, v in item.outputs.items() if k != "__provider"}
                found["resources"][kind] = {
                    "urn": item.urn,
                    "type": item.type,
                    "id": item.id,
                    "inputs": inputs,
                    "outputs": outputs,
                }
    return found


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    text = json.dumps(capture(), indent=1, sort_keys=True, default=str)
    with open(sys.argv[1], "w", encoding="utf-8") as out:
        out.write(text + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
