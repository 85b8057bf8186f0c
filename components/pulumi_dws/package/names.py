"""How the package spells names: Python's ``max_run_duration`` is the schema's
``maxRunDuration`` (what TypeScript, YAML, Go and C# programs write), and a Python argument
path (``node_pools[1].max_nodes``, ``labels[team]``) is a Pulumi property path
(``nodePools[1].maxNodes``, ``labels["team"]``)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

__all__ = ["camel", "pascal", "snake", "property_path", "path_segments", "Segment"]

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_UPPER = re.compile(r"(?<=[a-z0-9])([A-Z])")


def camel(name: str) -> str:
    """``max_run_duration`` -> ``maxRunDuration`` (``id`` stays ``id``)."""
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def pascal(name: str) -> str:
    """``max_run_duration`` or ``maxRunDuration`` -> ``MaxRunDuration``."""
    spelled = camel(name)
    return spelled[:1].upper() + spelled[1:]


def snake(name: str) -> str:
    """``maxRunDuration`` -> ``max_run_duration``: the inverse of :func:`camel` on the names it
    gives."""
    return _UPPER.sub(lambda m: "_" + m.group(1).lower(), name)


@dataclass(frozen=True)
class Segment:
    """One step of an argument path: an argument ``name``, a list ``index`` or a map ``key``."""

    kind: str
    value: str | int


def path_segments(path: str) -> list[Segment]:
    """``node_pools[1].max_nodes`` -> name ``node_pools``, index 1, name ``max_nodes``;
    ``labels[team]`` -> name ``labels``, key ``team``. Empty when ``path`` does not start with
    an argument name; anything after a space (``labels key``) is not part of the path."""
    text = path.split(" ", 1)[0]
    segments: list[Segment] = []
    i = 0
    expect_name = True
    while i < len(text):
        if expect_name:
            match = _WORD.match(text, i)
            if match is None:
                break
            segments.append(Segment("name", match.group(0)))
            i = match.end()
            expect_name = False
        elif text[i] == ".":
            i += 1
            expect_name = True
        elif text[i] == "[":
            end = text.find("]", i)
            if end < 0:
                break
            key = text[i + 1 : end]
            segments.append(Segment("index", int(key)) if key.isdigit() else Segment("key", key))
            i = end + 1
        else:
            break
    return segments


def property_path(path: str, *, rename: bool = True) -> str:
    """A Python argument path as a Pulumi property path, argument names in the schema's
    spelling (``rename``): ``node_pools[1].max_nodes`` -> ``nodePools[1].maxNodes``,
    ``labels[team]`` -> ``labels["team"]``. A path that names no argument is returned as it is."""
    segments = path_segments(path)
    if not segments:
        return path
    out = ""
    for segment in segments:
        if segment.kind == "index":
            out += f"[{segment.value}]"
        elif segment.kind == "key":
            out += f"[{json.dumps(segment.value)}]"
        else:
            name = camel(str(segment.value)) if rename else str(segment.value)
            out += f".{name}" if out else name
    return out
