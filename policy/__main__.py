"""The pulumi-dws policy pack: serves the rules of ``pulumi_dws.policy`` to the Pulumi engine.

Run by ``pulumi preview --policy-pack policy/`` (the CLI starts
``python -m pulumi.policy <engine> policy/``, which runs this file).
"""

import sys
from pathlib import Path

try:
    from pulumi_dws.policy.pack import serve
except ImportError:  # a checkout without pulumi-dws installed: use the sources beside the pack
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "components"))
    from pulumi_dws.policy.pack import serve

serve("dws-policies")
