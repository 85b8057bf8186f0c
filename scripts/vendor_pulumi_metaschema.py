#!/usr/bin/env python3
"""Vendor Pulumi's package metaschema for the tests (no network at test time).

The tests validate the package schema pulumi-dws generates (``provider/schema.json``) against
the JSON Schema that describes every Pulumi package schema: ``pkg/codegen/schema/pulumi.json``
of pulumi/pulumi (Apache License 2.0). This script keeps what validation reads (types,
properties, patterns, enums, required, ``oneOf``/``allOf``, ``$defs`` and ``$ref``) and drops
the prose (``description``, ``title``, ``$comment``)::

    python scripts/vendor_pulumi_metaschema.py --metaschema PATH/TO/pulumi.json \\
        --commit <pulumi/pulumi commit>

Python's ``re`` spells a named group ``(?P<name>...)`` where the metaschema (ECMA-262) writes
``(?<name>...)``: the patterns are rewritten so, and only so. It writes
``tests/fixtures/pulumi_package_metaschema.json`` with the source, the commit and a SHA-256 of
the source file under ``x-vendored``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
from pathlib import Path
from typing import Any

OUTPUT = Path("tests/fixtures/pulumi_package_metaschema.json")
SOURCE = "https://github.com/pulumi/pulumi/blob/{commit}/pkg/codegen/schema/pulumi.json"
PROSE = {"description", "title", "$comment"}
_NAMED_GROUP = re.compile(r"\(\?<(?=[A-Za-z_])")


def strip(node: Any, *, in_properties: bool = False) -> Any:
    """``node`` without prose keywords (a property *named* ``description`` is kept)."""
    if isinstance(node, dict):
        kept: dict[str, Any] = {}
        for key, value in node.items():
            if key in PROSE and not in_properties and isinstance(value, str):
                continue
            if key == "pattern" and isinstance(value, str) and not in_properties:
                value = _NAMED_GROUP.sub("(?P<", value)
            kept[key] = strip(value, in_properties=key in ("properties", "$defs"))
        return kept
    if isinstance(node, list):
        return [strip(item) for item in node]
    return node


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--metaschema", type=Path, required=True, help="pulumi.json")
    parser.add_argument("--commit", required=True, help="the pulumi/pulumi commit it is from")
    args = parser.parse_args(argv)
    raw = args.metaschema.read_bytes()
    vendored = strip(json.loads(raw))
    vendored["x-vendored"] = {
        "source": SOURCE.format(commit=args.commit),
        "license": "Apache License 2.0 (pulumi/pulumi)",
        "sha256": hashlib.sha256(raw).hexdigest(),
        "changes": "prose keywords dropped; ECMA (?<name>...) groups written (?P<name>...)",
    }
    OUTPUT.write_text(json.dumps(vendored, indent=1, sort_keys=False) + "\n")
    print(f"wrote {OUTPUT}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
