"""What the Slurm tests share: seed 002's ``cluster_config.json`` with its placeholders filled
in, the provider's inputs for it, and an emulator serving the ``modelDevelopmentClusters`` API."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from pulumi_dws.testing.emulator import Emulator, FaultPlan
from pulumi_dws.testing.emulator.aiplatform import AiPlatformService

FIXTURE = Path(__file__).parent / "fixtures" / "cluster_config.json"
PROJECT, REGION, ZONE = "my-project", "us-central1", "us-central1-b"
ID = f"projects/{PROJECT}/locations/{REGION}/modelDevelopmentClusters/flexvm"


def seed_body(home: str = "home", project: str = PROJECT) -> dict[str, Any]:
    """The seed's ``cluster_config.json`` (Filestore instance ``home``, project ``project``)."""
    text = (
        FIXTURE.read_text()
        .replace("<project-id>", project)
        .replace("<region>", REGION)
        .replace("<zone>", ZONE)
        .replace("<filestore-id>", home)
    )
    return json.loads(text)


def cluster_inputs(body: Any = None, **extra: Any) -> dict[str, Any]:
    """The dynamic resource's inputs for cluster ``flexvm`` (the seed's body by default)."""
    return {
        "project": PROJECT,
        "region": REGION,
        "cluster_id": "flexvm",
        "body": body or seed_body(),
        **extra,
    }


@contextmanager
def aiplatform_emulator() -> Iterator[Emulator]:
    """A running emulator with only the Vertex AI service."""
    with Emulator([]) as emulator:
        emulator.add(AiPlatformService(emulator.clock))
        yield emulator


def fresh(emulator: Emulator) -> Emulator:
    """``emulator`` with no cluster, no fault and no recorded request left from a test before."""
    emulator["aiplatform"].reset()
    emulator.faults = FaultPlan()
    emulator.requests.clear()
    return emulator
