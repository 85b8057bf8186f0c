"""DWS capacity declared in stack config (``dws:capacity``): see Pulumi.yaml and the
pulumi-dws docs (docs/templates.md)."""

import pulumi

from pulumi_dws.blueprint import deploy_from_config

components = deploy_from_config()
pulumi.export("capacity", sorted(components))
