"""Each kind's limit rows live in its package (``kinds/<kind>/limits.py``), the general ones in
``pulumi_dws.limits``; the table users read, ``dws:limits`` overrides and the specs that name
rows see them all."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

from pulumi_dws import fields, kinds, limits
from pulumi_dws.catalog.availability import TPU_ZONES
from pulumi_dws.errors import DwsValidationError
from pulumi_dws.testing import GcpMocks


def _kind_rows() -> dict[str, tuple[limits.Limit, ...]]:
    found = {}
    for name in kinds.BUILTIN:
        module = importlib.import_module(f"pulumi_dws.kinds.{name}.limits")
        found[name] = module.ROWS
    return found


def test_the_table_is_the_general_rows_and_each_kinds_once() -> None:
    by_kind = _kind_rows()
    keys = [row.key for rows in by_kind.values() for row in rows]
    assert len(keys) == len(set(keys))
    general = {row.key for row in limits.table()} - set(keys)
    # a general row under a kind's prefix is the catalog's (where each door offers each TPU)
    prefixes = {k.split(".", 1)[0] + "." for k in keys}
    borrowed = {k for k in general if k.startswith(tuple(prefixes))}
    assert general and borrowed <= {row.key for row in TPU_ZONES}
    # a kind's rows are named after it, or after the API it calls
    prefixes = {"flex_vm": "flex_start.", "flex_group": "mig.", "node_pool": "gke."}
    for name, rows in by_kind.items():
        prefix = prefixes.get(name, f"{name}.")
        assert rows and all(row.key.startswith(prefix) for row in rows), name


def test_every_row_a_spec_names_is_in_the_table() -> None:
    known = {row.key for row in limits.table()}
    assert fields.NAMED_ROWS and known >= fields.NAMED_ROWS, fields.NAMED_ROWS - known


def test_a_row_is_declared_once() -> None:
    row = limits.get("calendar.duration")
    limits.register(row)  # the same row again: nothing changes
    with pytest.raises(ValueError, match="calendar.duration is declared twice"):
        limits.register(limits.Limit(row.key, "other", "seconds", "nowhere", maximum=1))


def test_dws_limits_overrides_know_a_kinds_rows() -> None:
    config = {"dws:limits": '{"queued_tpu.node_count": {"maximum": 300}, "mig.resize_by": {}}'}
    args = {"zone": "us-east5-a", "accelerator_type": "v6e-16", "node_count": 280}
    args |= {"provisioning": "spot"}
    GcpMocks().run(lambda: __import__("pulumi_dws").QueuedTpu("q", args), config=config)
    with pytest.raises(DwsValidationError, match="dws:limits.queued_tpu.node_cout.*did you mean"):
        bad = {"dws:limits": '{"queued_tpu.node_cout": {"maximum": 3}}'}
        GcpMocks().run(lambda: __import__("pulumi_dws").QueuedTpu("q", args), config=bad)


def test_a_fresh_program_sees_every_kinds_rows_and_the_seed_profile() -> None:
    code = (
        "from pulumi_dws import limits\n"
        "print(limits.get('kueue.max_run_duration').maximum, len(limits.seed_profile()))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["604800", "3"]
