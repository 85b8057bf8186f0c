"""docs/architecture.md's worked example of a declared dynamic resource is the code's own: the
block is run and must build the very declaration ``QueuedTpu`` uses."""

from __future__ import annotations

import re
from pathlib import Path

from pulumi_dws.kinds.queued_tpu import api
from pulumi_dws.providers.create_machine import Idempotency
from pulumi_dws.providers.endpoints import TPU
from pulumi_dws.providers.paths import PathTemplate
from pulumi_dws.providers.rest_resource import RestResource, StateField, States

PAGE = Path(__file__).resolve().parent.parent / "docs" / "architecture.md"


def test_the_worked_example_is_the_queued_tpu_declaration() -> None:
    blocks = re.findall(r"^```python\n(.*?)^```", PAGE.read_text(), re.S | re.M)
    example = [b for b in blocks if b.startswith("QUEUED_TPU = RestResource(")]
    assert len(example) == 1
    namespace = {
        **{name: getattr(api, name) for name in dir(api) if not name.startswith("_")},
        "Idempotency": Idempotency,
        "PathTemplate": PathTemplate,
        "RestResource": RestResource,
        "StateField": StateField,
        "States": States,
        "TPU": TPU,
    }
    del namespace["QUEUED_TPU"]
    exec(example[0], namespace)
    assert namespace["QUEUED_TPU"] == api.QUEUED_TPU
    assert namespace["QUEUED_TPU"] != RestResource(**{**vars(api.QUEUED_TPU), "noun": "other"})
