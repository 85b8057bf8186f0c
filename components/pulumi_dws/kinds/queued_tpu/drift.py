"""What a read of a Cloud TPU queued resource can see drift in: the fields of its (first) node
spec that decide what the request is, compared between the declared ``body`` and the request
Google has under the id (a queued resource can't be changed in place: one that differs was
deleted and made again outside Pulumi, e.g. with gcloud).

Watched: the accelerator type, the multislice node count and the node's labels (the ownership
label ``dws-create`` left out: the provider adds it). A field the answer does not carry is not
compared: no drift is claimed from what can't be seen.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from ...providers.create_machine import OWNER_LABEL

__all__ = ["WATCHED", "seen_body"]

_SPEC = ("tpu", "nodeSpec", 0)
WATCHED: tuple[tuple[str, tuple[Any, ...]], ...] = (
    ("tpu.nodeSpec[0].node.acceleratorType", (*_SPEC, "node", "acceleratorType")),
    ("tpu.nodeSpec[0].multiNodeParams.nodeCount", (*_SPEC, "multiNodeParams", "nodeCount")),
    ("tpu.nodeSpec[0].node.labels", (*_SPEC, "node", "labels")),
)
"""``(path as drift names it, keys into the body)`` of each field a read compares."""


def _get(value: Any, keys: tuple[Any, ...]) -> Any:
    for key in keys:
        if isinstance(key, int):
            value = value[key] if isinstance(value, list) and len(value) > key else None
        else:
            value = value.get(key) if isinstance(value, Mapping) else None
    return value


def _comparable(keys: tuple[Any, ...], value: Any) -> Any:
    if keys[-1] == "labels":
        labels = dict(value) if isinstance(value, Mapping) else {}
        labels.pop(OWNER_LABEL, None)
        return labels
    if keys[-1] == "nodeCount":
        # int32 in JSON; the engine hands numbers over as floats; an absent count is 1 slice
        try:
            return 1 if value is None else int(value)
        except (TypeError, ValueError):
            return value
    return value


def _set(body: dict[str, Any], keys: tuple[Any, ...], value: Any) -> None:
    """Put ``value`` at ``keys`` (dicts made on the way); None or empty labels remove it, and a
    ``multiNodeParams`` left empty goes too."""
    node: Any = body
    for key in keys[:-1]:
        node = node[key] if isinstance(key, int) else node.setdefault(key, {})
    last = keys[-1]
    if value is None or value == {} or (last == "nodeCount" and value == 1):
        node.pop(last, None)
    else:
        node[last] = value
    params = _get(body, (*_SPEC, "multiNodeParams"))
    if params == {}:
        _get(body, _SPEC).pop("multiNodeParams")


def seen_body(declared: Any, live: Mapping[str, Any]) -> tuple[Any, list[str]]:
    """``(body, drift)``: the declared body with each watched field as Google has it, and the
    paths that differ (empty when it is as declared or can't be compared)."""
    live_spec = _get(live, _SPEC)
    if not isinstance(declared, Mapping) or not isinstance(_get(declared, _SPEC), Mapping):
        return declared, []
    if not isinstance(live_spec, Mapping):
        return declared, []
    body = copy.deepcopy(dict(declared))
    drift: list[str] = []
    for path, keys in WATCHED:
        if keys[3] == "node" and not isinstance(live_spec.get("node"), Mapping):
            continue  # the answer has no node: nothing about it can be seen
        want = _comparable(keys, _get(declared, keys))
        have = _comparable(keys, _get(live, keys))
        if want != have:
            drift.append(path)
            _set(body, keys, have)
    return body, drift
