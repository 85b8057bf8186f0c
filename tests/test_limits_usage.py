"""Checks elsewhere in the library read their bounds from the limits table: overriding a row
changes what they accept."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from pulumi_dws import limits
from pulumi_dws.errors import DwsValidationError
from pulumi_dws.kinds.flex_vm.component import FlexStartInstanceSpec
from pulumi_dws.kinds.kueue.component import _check_dns_label
from pulumi_dws.kinds.node_pool.component import _check_k8s_labels
from pulumi_dws.kinds.slurm.diff import valid_cluster_id
from pulumi_dws.models import parse_args


def _flex_metadata(key: str) -> None:
    parse_args(
        FlexStartInstanceSpec,
        {
            "zone": "us-central1-a",
            "machine_type": "a3-highgpu-8g",
            "max_run_duration": "1d",
            "metadata": {key: "v"},
        },
    )


def _cluster_id(value: str) -> None:
    if not valid_cluster_id(value):
        raise DwsValidationError("cluster_id", value, "is invalid")


CASES: list[tuple[str, Callable[[str], object], str, int]] = [
    ("kubernetes.name_length", lambda v: _check_dns_label("name", v), "q" * 64, 70),
    ("kubernetes.name_length", lambda v: _check_k8s_labels("labels", {"team": v}), "v" * 64, 70),
    ("compute.metadata_key_length", _flex_metadata, "k" * 129, 140),
    ("slurm.cluster_id_length", _cluster_id, "abcdefghijk", 12),
]


@pytest.mark.parametrize(("row", "check", "value", "raised_to"), CASES, ids=[c[0] for c in CASES])
def test_override_moves_the_bound(
    row: str, check: Callable[[str], object], value: str, raised_to: int
) -> None:
    with pytest.raises(DwsValidationError):
        check(value)
    with limits.overridden(row, maximum=raised_to):
        check(value)
