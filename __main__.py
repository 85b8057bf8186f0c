"""The DWS blueprint: capacity of every kind, declared in stack config under ``dws:capacity``.

See ``Pulumi.dev.yaml`` for a sample and ``pulumi_dws.blueprint`` for the schema.
"""

import pulumi

from pulumi_dws.blueprint import deploy_from_config

components = deploy_from_config()
pulumi.export("capacity", sorted(components))
